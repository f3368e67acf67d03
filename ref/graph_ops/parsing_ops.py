"""``tf.decode_raw``, ``tf.decode_csv`` and ``tf.string_to_number`` (kernels in
:mod:`ref.ops.parsing`)."""
from __future__ import annotations

import collections

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
import re
from ref.framework.sparse_tensor import SparseTensor
from ref.types import dtypes
from ref.types.shapes import as_shape

__all__ = ["decode_raw", "decode_csv", "string_to_number", "VarLenFeature", "FixedLenFeature",
           "FixedLenSequenceFeature", "parse_example", "parse_single_example", "parse_single_sequence_example",
           "parse_sequence_example", "parse_tensor", "serialize_tensor",
           "decode_json_example"]



def _scope_safe(key):
    """A feature key as a name (TF replaces characters a scope may not hold with _)."""
    return re.sub(r"[^A-Za-z0-9_.\-/]", "_", key)

def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None,  # noqa: A002
               fixed_length=None):
    """Reinterprets the bytes of each string as a vector of ``out_type`` values
    (``DecodeRaw``); TF 1.x's ``bytes`` keyword is accepted too; with
    ``fixed_length`` (tf.io.decode_raw v2's) each string is cut or zero-padded
    to that many bytes (``DecodePaddedRaw``)."""
    if input_bytes is None:
        input_bytes = bytes
    if out_type is None:
        raise TypeError("decode_raw() missing required argument 'out_type'")
    if fixed_length is not None:
        return apply_op("DecodePaddedRaw", input_bytes=convert_to_tensor(input_bytes, dtype=dtypes.string),
                        fixed_length=convert_to_tensor(fixed_length, dtype=dtypes.int32),
                        out_type=dtypes.as_dtype(out_type), little_endian=bool(little_endian),
                        name=name or "DecodePaddedRaw")
    return apply_op("DecodeRaw", bytes=convert_to_tensor(input_bytes, dtype=dtypes.string),
                    out_type=dtypes.as_dtype(out_type), little_endian=bool(little_endian),
                    name=name or "DecodeRaw")


def string_to_number(string_tensor, out_type=dtypes.float32, name=None):
    """Converts each string to the number it spells (``StringToNumber``)."""
    return apply_op("StringToNumber", string_input=convert_to_tensor(string_tensor, dtype=dtypes.string),
                    out_type=dtypes.as_dtype(out_type), name=name or "StringToNumber")


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """Converts CSV records to tensors, one per column (``DecodeCSV``).
    ``record_defaults`` gives each column's type and its default (an empty
    tensor makes the column required)."""
    if not isinstance(record_defaults, (list, tuple)):
        raise TypeError(f"Expected list for 'record_defaults' argument to 'DecodeCSV' Op, not {record_defaults!r}.")
    if select_cols is not None:
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
        if any(c < 0 for c in select_cols):
            raise ValueError("select_cols contains negative values.")
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
    defaults = [convert_to_tensor(d, name=f"record_defaults_{i}") for i, d in enumerate(record_defaults)]
    out = apply_op("DecodeCSV", records=convert_to_tensor(records, dtype=dtypes.string), record_defaults=defaults,
                   OUT_TYPE=[d.dtype.base_dtype for d in defaults], field_delim=field_delim,
                   use_quote_delim=use_quote_delim, na_value=na_value, select_cols=list(select_cols or []),
                   name=name or "DecodeCSV")
    return list(out) if isinstance(out, (list, tuple)) else [out]


# -- tf.parse_example ------------------------------------------------------------------

class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """Configuration for parsing a variable-length input feature (a SparseTensor)."""


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """Configuration for parsing a fixed-length input feature (a dense tensor of
    ``shape``; ``default_value`` when the feature is missing, else required)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """Configuration for a feature holding any number of ``shape`` elements
    (a dense tensor padded with ``default_value`` to the longest in the batch)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


def _parse(serialized, features, name, example_names, single):
    if not features:
        raise ValueError("Missing: features was %s." % features)
    sparse = sorted(k for k, f in features.items() if isinstance(f, VarLenFeature))
    dense = sorted(k for k, f in features.items() if isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)))
    unknown = set(features) - set(sparse) - set(dense)
    if unknown:
        raise ValueError(f"Unsupported feature type for keys {sorted(unknown)}")
    with name_scope(name, "ParseExample" if not single else "ParseSingleExample", [serialized]):
        defaults, shapes = [], []
        for k in dense:
            f = features[k]
            dtype = dtypes.as_dtype(f.dtype)
            if dtype not in (dtypes.string, dtypes.float32, dtypes.int64):
                raise ValueError(f"Unsupported dtype {dtype.name} for feature {k}: use float32, int64 or string")
            shape = list(as_shape(f.shape).as_list())
            if isinstance(f, FixedLenSequenceFeature):
                if not f.allow_missing:
                    raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
                shapes.append([-1] + shape)
                dv = [] if f.default_value is None else f.default_value
                defaults.append(convert_to_tensor(dv, dtype=dtype, name="key_" + _scope_safe(k)))
            else:
                shapes.append(shape)
                if f.default_value is None:
                    defaults.append(convert_to_tensor([], dtype=dtype, name="key_" + _scope_safe(k)))
                else:
                    defaults.append(apply_op("Reshape", tensor=convert_to_tensor(f.default_value, dtype=dtype),
                                             shape=convert_to_tensor(shape, dtype=dtypes.int32),
                                             name="key_" + _scope_safe(k)))
        sparse_types = [dtypes.as_dtype(features[k].dtype) for k in sparse]
        outs = apply_op(
            "ParseExampleV2", serialized=convert_to_tensor(serialized, dtype=dtypes.string),
            names=convert_to_tensor(example_names if example_names is not None else [], dtype=dtypes.string),
            sparse_keys=convert_to_tensor(sparse, dtype=dtypes.string),
            dense_keys=convert_to_tensor(dense, dtype=dtypes.string),
            ragged_keys=convert_to_tensor([], dtype=dtypes.string), dense_defaults=defaults,
            Tdense=[d.dtype for d in defaults], num_sparse=len(sparse), sparse_types=sparse_types,
            dense_shapes=shapes, name="ParseExampleV2")
    n = len(sparse)
    result = {}
    for i, k in enumerate(sparse):
        result[k] = SparseTensor(outs[i], outs[n + i], outs[2 * n + i])
    for i, k in enumerate(dense):
        result[k] = outs[3 * n + i]
    return result


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch of serialized ``Example`` protos into a dict of tensors:
    ``FixedLenFeature`` -> [batch] + shape, ``FixedLenSequenceFeature`` ->
    [batch, longest] + shape, ``VarLenFeature`` -> a SparseTensor [batch, longest]."""
    return _parse(serialized, features, name, example_names, single=False)


def parse_single_example(serialized, features, name=None, example_names=None):
    """As :func:`parse_example` for one serialized ``Example`` (a scalar): no batch dimension."""
    return _parse(serialized, features, name, example_names, single=True)


def _sequence_outputs(outs, c_sparse, c_dense, s_sparse, s_dense):
    """(context, feature_lists, dense lengths) from a sequence-example parse op's
    flat outputs: context sparse (indices, values, shapes), context dense,
    feature-list sparse (indices, values, shapes), feature-list dense, then (the
    batched op only) the dense lengths."""
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    context, feature_lists, lengths = {}, {}, {}
    n = len(c_sparse)
    for i, k in enumerate(c_sparse):
        context[k] = SparseTensor(outs[i], outs[n + i], outs[2 * n + i])
    pos = 3 * n
    for i, k in enumerate(c_dense):
        context[k] = outs[pos + i]
    pos += len(c_dense)
    m = len(s_sparse)
    for i, k in enumerate(s_sparse):
        feature_lists[k] = SparseTensor(outs[pos + i], outs[pos + m + i], outs[pos + 2 * m + i])
    pos += 3 * m
    for i, k in enumerate(s_dense):
        feature_lists[k] = outs[pos + i]
        if pos + len(s_dense) + i < len(outs):
            lengths[k] = outs[pos + len(s_dense) + i]
    return context, feature_lists, lengths


def _context_dense_defaults(context_features, keys):
    """The context's dense defaults, one tensor per key of ``keys`` (``context_key_<k>``):
    empty when a feature has none (required), else its default reshaped to its shape."""
    defaults = []
    for k in keys:
        f = context_features[k]
        dtype = dtypes.as_dtype(f.dtype)
        if f.default_value is None:
            defaults.append(convert_to_tensor([], dtype=dtype, name=f"context_key_{k}"))
        else:
            defaults.append(apply_op("Reshape", tensor=convert_to_tensor(f.default_value, dtype=dtype),
                                     shape=convert_to_tensor(as_shape(f.shape).as_list(), dtype=dtypes.int32),
                                     name=f"context_key_{k}"))
    return defaults


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """Parses one serialized ``SequenceExample``: returns (context dict, sequence
    dict). Context features parse as in :func:`parse_single_example`; a
    ``FixedLenFeature``/``FixedLenSequenceFeature`` sequence feature becomes a
    [steps] + shape tensor (``allow_missing``: [0] + shape when absent), a
    ``VarLenFeature`` one a SparseTensor [steps, longest]."""
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    c_sparse = sorted(k for k, f in context_features.items() if isinstance(f, VarLenFeature))
    c_dense = sorted(k for k, f in context_features.items() if isinstance(f, FixedLenFeature))
    s_sparse = sorted(k for k, f in sequence_features.items() if isinstance(f, VarLenFeature))
    s_dense = sorted(k for k, f in sequence_features.items()
                     if isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)))
    with name_scope(name, "ParseSingleSequenceExample", [serialized]):
        defaults = _context_dense_defaults(context_features, c_dense)
        missing_ok = [k for k in s_dense if getattr(sequence_features[k], "allow_missing", False)]
        s = lambda keys: [convert_to_tensor(k, dtype=dtypes.string) for k in keys]  # noqa: E731
        outs = apply_op(
            "ParseSingleSequenceExample", serialized=convert_to_tensor(serialized, dtype=dtypes.string),
            feature_list_dense_missing_assumed_empty=convert_to_tensor(missing_ok, dtype=dtypes.string),
            context_sparse_keys=s(c_sparse), context_dense_keys=s(c_dense), feature_list_sparse_keys=s(s_sparse),
            feature_list_dense_keys=s(s_dense), context_dense_defaults=defaults,
            debug_name=convert_to_tensor(example_name or "", dtype=dtypes.string),
            context_sparse_types=[dtypes.as_dtype(context_features[k].dtype) for k in c_sparse],
            Tcontext_dense=[d.dtype for d in defaults],
            context_dense_shapes=[as_shape(context_features[k].shape).as_list() for k in c_dense],
            feature_list_sparse_types=[dtypes.as_dtype(sequence_features[k].dtype) for k in s_sparse],
            feature_list_dense_types=[dtypes.as_dtype(sequence_features[k].dtype) for k in s_dense],
            feature_list_dense_shapes=[as_shape(sequence_features[k].shape).as_list() for k in s_dense],
            name="ParseSingleSequenceExample")
    context, sequence, _ = _sequence_outputs(outs, c_sparse, c_dense, s_sparse, s_dense)
    return context, sequence


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """Parses a batch (a vector) of serialized ``SequenceExample`` protos:
    returns (context dict, feature-list dict, lengths dict). Context features
    parse as in :func:`parse_example` ([batch] + shape; VarLenFeature a
    SparseTensor [batch, longest]); a ``FixedLenSequenceFeature`` feature list
    becomes [batch, most steps] + shape, zero-padded, with each example's
    number of steps in the lengths dict; a ``VarLenFeature`` one a
    SparseTensor [batch, most steps, longest]. ``RaggedFeature`` is not
    supported by ref."""
    if not (context_features or sequence_features):
        raise ValueError("Both `context_features` and `sequence_features` argument are None, but at least one "
                         "should have values.")
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    for k, f in context_features.items():
        if not isinstance(f, (VarLenFeature, FixedLenFeature)):
            raise ValueError(f"Unsupported {type(f).__name__} {f}.")
    for k, f in sequence_features.items():
        if not isinstance(f, (VarLenFeature, FixedLenSequenceFeature)):
            raise ValueError(f"Unsupported {type(f).__name__} {f}.")
    c_sparse = sorted(k for k, f in context_features.items() if isinstance(f, VarLenFeature))
    c_dense = sorted(k for k, f in context_features.items() if isinstance(f, FixedLenFeature))
    s_sparse = sorted(k for k, f in sequence_features.items() if isinstance(f, VarLenFeature))
    s_dense = sorted(k for k, f in sequence_features.items() if isinstance(f, FixedLenSequenceFeature))
    for k in s_dense:
        if sequence_features[k].default_value is not None:
            raise ValueError(f"Value feature_list.dense_defaults[{k}] must be None")
    with name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        defaults = _context_dense_defaults(context_features, c_dense)
        strings = lambda keys: convert_to_tensor(list(keys), dtype=dtypes.string)  # noqa: E731
        outs = apply_op(
            "ParseSequenceExampleV2", serialized=convert_to_tensor(serialized, dtype=dtypes.string, name="serialized"),
            debug_name=strings(example_names if example_names is not None else []),
            context_sparse_keys=strings(c_sparse), context_dense_keys=strings(c_dense),
            context_ragged_keys=strings([]), feature_list_sparse_keys=strings(s_sparse),
            feature_list_dense_keys=strings(s_dense), feature_list_ragged_keys=strings([]),
            feature_list_dense_missing_assumed_empty=convert_to_tensor(
                [bool(sequence_features[k].allow_missing) for k in s_dense], dtype=dtypes.bool),
            context_dense_defaults=defaults, Ncontext_sparse=len(c_sparse), Tcontext_dense=[d.dtype for d in defaults],
            context_sparse_types=[dtypes.as_dtype(context_features[k].dtype) for k in c_sparse],
            context_dense_shapes=[as_shape(context_features[k].shape).as_list() for k in c_dense],
            Nfeature_list_sparse=len(s_sparse), Nfeature_list_dense=len(s_dense),
            feature_list_dense_types=[dtypes.as_dtype(sequence_features[k].dtype) for k in s_dense],
            feature_list_sparse_types=[dtypes.as_dtype(sequence_features[k].dtype) for k in s_sparse],
            feature_list_dense_shapes=[as_shape(sequence_features[k].shape).as_list() for k in s_dense],
            name="ParseSequenceExampleV2")
    return _sequence_outputs(outs, c_sparse, c_dense, s_sparse, s_dense)


def serialize_tensor(tensor, name=None):
    """A scalar string: ``tensor`` as a serialized TensorProto (``SerializeTensor``)."""
    return apply_op("SerializeTensor", tensor=tensor, name=name or "SerializeTensor")


def parse_tensor(serialized, out_type, name=None):
    """The tensor of ``out_type`` that a serialized TensorProto holds (``ParseTensor``)."""
    return apply_op("ParseTensor", serialized=convert_to_tensor(serialized, dtype=dtypes.string),
                    out_type=dtypes.as_dtype(out_type), name=name or "ParseTensor")


def decode_json_example(json_examples, name=None):
    """JSON-encoded ``Example`` protos as binary ones (``DecodeJSONExample``)."""
    return apply_op("DecodeJSONExample", json_examples=convert_to_tensor(json_examples, dtype=dtypes.string),
                    name=name or "DecodeJSONExample")
