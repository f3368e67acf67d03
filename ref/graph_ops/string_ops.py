"""TF1 string builders (TF's ``string_ops.py`` and the v1 wrappers of
``ragged_string_ops.py``): ``tf.string_split``, ``tf.strings.split``,
``tf.substr`` / ``tf.strings.substr``, ``tf.regex_replace`` /
``tf.strings.regex_replace``, ``tf.strings.length`` / ``lower`` / ``upper`` /
``strip`` / ``join`` / ``reduce_join`` / ``regex_full_match`` / ``format``.
Kernels: ``ref/ops/strings.py`` (``StringJoin``, ``StaticRegexFullMatch`` and
``RegexFullMatch`` in ``ref/ops/io.py``, ``StringFormat`` in ``ref/ops/logging.py``)."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.framework.sparse_tensor import SparseTensor
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.ragged_tensor import RaggedTensor, convert_to_tensor_or_ragged_tensor

__all__ = ["string_split", "strings_split_v1", "string_split_v2", "substr", "substr_deprecated", "regex_replace",
           "decode_compressed", "string_length", "string_lower", "string_upper", "string_strip", "string_join",
           "reduce_join", "regex_full_match", "string_format"]


def _sparse(indices, values, shape):
    indices.set_shape([None, 2])
    values.set_shape([None])
    shape.set_shape([2])
    return SparseTensor(indices, values, shape)


def _string_split_sparse(source, sep=None, skip_empty=True, delimiter=None):
    """``StringSplit`` on a vector: a SparseTensor ``[batch, max tokens]``."""
    if sep is not None and delimiter is not None:
        raise ValueError("Cannot specify both 'sep' and 'delimiter'")
    delimiter = sep if sep is not None else delimiter
    delimiter = convert_to_tensor(" " if delimiter is None else delimiter, dtype=dtypes.string)
    source = convert_to_tensor(source, dtype=dtypes.string)
    return _sparse(*apply_op("StringSplit", input=source, delimiter=delimiter, skip_empty=skip_empty))


def _string_split_v2_sparse(source, sep=None, maxsplit=-1):
    """``StringSplitV2`` on a vector: a SparseTensor ``[batch, max tokens]``."""
    sep = convert_to_tensor("" if sep is None else sep, dtype=dtypes.string)
    source = convert_to_tensor(source, dtype=dtypes.string)
    return _sparse(*apply_op("StringSplitV2", input=source, sep=sep, maxsplit=maxsplit))


def _rows_of(sparse):
    return RaggedTensor.from_value_rowids(values=sparse.values, value_rowids=sparse.indices[:, 0],
                                          nrows=sparse.dense_shape[0], validate=False)


def string_split(source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor", name=None):
    """``tf.string_split`` (v1): each string of the vector ``source`` split at any
    byte of ``sep`` (default ``" "``; empty: into bytes), as a SparseTensor
    ``[batch, max tokens]`` or (``result_type="RaggedTensor"``) a RaggedTensor."""
    with name_scope(name, "StringSplit", [source]):
        sparse = _string_split_sparse(source, sep=sep, skip_empty=skip_empty, delimiter=delimiter)
        if result_type == "SparseTensor":
            return sparse
        if result_type == "RaggedTensor":
            return _rows_of(sparse)
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def string_split_v2(input, sep=None, maxsplit=-1, name=None):
    """``tf.strings.split`` (v2): ``input`` of any rank split as Python's
    ``str.split`` does, one ragged dimension more than ``input``."""
    with name_scope(name, "StringSplit", [input]):
        input = convert_to_tensor_or_ragged_tensor(input, dtype=dtypes.string, name="input")
        if isinstance(input, RaggedTensor):
            return input.with_flat_values(string_split_v2(input.flat_values, sep, maxsplit))
        rank = input.shape.ndims
        if rank == 0:
            return string_split_v2(array_ops.stack([input]), sep, maxsplit)[0]
        if rank == 1 or rank is None:
            return _rows_of(_string_split_v2_sparse(input, sep=sep, maxsplit=maxsplit))
        return string_split_v2(RaggedTensor.from_tensor(input), sep, maxsplit)


def strings_split_v1(input=None, sep=None, maxsplit=-1, result_type="SparseTensor", source=None, name=None):
    """``tf.strings.split`` (compat.v1): ``string_split_v2`` with a SparseTensor
    result by default (``result_type="RaggedTensor"`` for the ragged one)."""
    if input is not None and source is not None:
        raise ValueError("Cannot specify both 'input' and 'source'")
    input = source if input is None else input
    with name_scope(name, "StringSplit", [input]):
        input = convert_to_tensor_or_ragged_tensor(input, dtype=dtypes.string, name="input")
        if input.shape.rank == 0:
            input = array_ops.expand_dims(input, 0)
        if result_type == "SparseTensor":
            if input.shape.rank == 1:
                return _string_split_v2_sparse(input, sep=sep, maxsplit=maxsplit)
            return string_split_v2(input, sep=sep, maxsplit=maxsplit).to_sparse()
        if result_type == "RaggedTensor":
            return string_split_v2(input, sep=sep, maxsplit=maxsplit)
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")


def substr(input, pos, len, name=None, unit="BYTE"):
    """``tf.strings.substr`` (v1): ``input[pos:pos + len]`` per element, in bytes
    or ``UTF8_CHAR`` characters (``Substr``)."""
    return apply_op("Substr", input=input, pos=pos, len=len, unit=unit, name=name)


def substr_deprecated(input, pos, len, name=None, unit="BYTE"):
    """``tf.substr``: ``tf.strings.substr`` under its TF1 top-level name."""
    return substr(input, pos, len, name=name, unit=unit)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """``tf.strings.regex_replace``: matches of ``pattern`` replaced by ``rewrite``;
    ``StaticRegexReplace`` when both are Python strings, else ``RegexReplace``."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return apply_op("StaticRegexReplace", input=input, pattern=pattern, rewrite=rewrite,
                        replace_global=replace_global, name=name)
    return apply_op("RegexReplace", input=input, pattern=pattern, rewrite=rewrite,
                    replace_global=replace_global, name=name)


def decode_compressed(bytes, compression_type="", name=None):  # noqa: A002  (TF's argument name)
    """``tf.io.decode_compressed``: each string inflated from ``ZLIB`` or ``GZIP``
    (``""``: unchanged) (``DecodeCompressed``)."""
    return apply_op("DecodeCompressed", bytes=bytes, compression_type=compression_type, name=name)


def string_length(input, name=None, unit="BYTE"):
    """``tf.strings.length`` (v1 signature): each string's length in bytes or,
    with ``unit="UTF8_CHAR"``, in UTF-8 characters (int32, ``StringLength``)."""
    return apply_op("StringLength", input=input, unit=unit, name=name)


def string_lower(input, encoding="", name=None):
    """``tf.strings.lower``: ASCII letters (``encoding="utf-8"``: all letters) in
    lower case (``StringLower``)."""
    return apply_op("StringLower", input=input, encoding=encoding, name=name)


def string_upper(input, encoding="", name=None):
    """``tf.strings.upper``: the same in upper case (``StringUpper``)."""
    return apply_op("StringUpper", input=input, encoding=encoding, name=name)


def string_strip(input, name=None):
    """``tf.strings.strip`` / ``tf.string_strip``: leading and trailing
    whitespace removed (``StringStrip``)."""
    return apply_op("StringStrip", input=input, name=name)


def string_join(inputs, separator="", name=None):
    """``tf.strings.join`` / ``tf.string_join``: the strings of ``inputs`` joined
    element-wise with ``separator``, scalars broadcast (``StringJoin``)."""
    return apply_op("StringJoin", inputs=list(inputs), separator=separator, name=name)


def _reduce_join_axes(x, axis):
    # TF: every axis, last first ([rank-1, ..., 0]), which joins in row-major order
    if axis is not None:
        return axis
    if x.shape.ndims is not None:
        return constant(np.arange(x.shape.ndims - 1, -1, -1), dtype=dtypes.int32)
    return math_ops.range(array_ops.rank(x) - 1, -1, -1)


def reduce_join(inputs, axis=None, keep_dims=None, separator="", name=None, reduction_indices=None, keepdims=None):
    """``tf.strings.reduce_join`` / ``tf.reduce_join`` (v1 signature): the strings
    joined along ``axis`` (all axes when None) with ``separator`` (``ReduceJoin``
    inside a ``ReduceJoin`` name scope)."""
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'")
    keepdims = keep_dims if keepdims is None else keepdims
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_indices'")
    axis = reduction_indices if axis is None else axis
    with name_scope(None, "ReduceJoin", [inputs, axis]):
        inputs = convert_to_tensor(inputs)
        return apply_op("ReduceJoin", inputs=inputs, reduction_indices=_reduce_join_axes(inputs, axis),
                        keep_dims=bool(keepdims), separator=separator, name=name)


def regex_full_match(input, pattern, name=None):
    """``tf.strings.regex_full_match``: whether ``pattern`` matches each whole
    string; ``StaticRegexFullMatch`` for a Python string pattern, else
    ``RegexFullMatch``."""
    if isinstance(pattern, (str, bytes)):
        return apply_op("StaticRegexFullMatch", input=input, pattern=pattern, name=name)
    return apply_op("RegexFullMatch", input=input, pattern=pattern, name=name)


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """``tf.strings.format``: ``template`` with each ``placeholder`` replaced by
    the next tensor of ``inputs`` printed as ``tf.print`` does (``StringFormat``);
    one tensor may be given alone."""
    if isinstance(inputs, Tensor):
        inputs = [inputs]
    if template.count(placeholder) != len(inputs):
        raise ValueError(f"The template expects {template.count(placeholder)} tensors, but the inputs only has "
                         f"{len(inputs)}. Please ensure the number of placeholders in template matches inputs "
                         f"length.")
    return apply_op("StringFormat", inputs=list(inputs), template=template, placeholder=placeholder,
                    summarize=summarize, name=name)


def encode_base64(input, pad=False, name=None):  # noqa: A002  (TF's argument name)
    """``tf.io.encode_base64``: web-safe base64, ``=`` padding only with ``pad`` (``EncodeBase64``)."""
    return apply_op("EncodeBase64", input=input, pad=pad, name=name)


def decode_base64(input, name=None):  # noqa: A002  (TF's argument name)
    """``tf.io.decode_base64``: web-safe base64 decoded (``DecodeBase64``)."""
    return apply_op("DecodeBase64", input=input, name=name)
