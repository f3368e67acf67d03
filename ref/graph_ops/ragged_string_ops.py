"""``tf.strings`` builders over Unicode code points and bytes (TF's
ragged_string_ops): ``unicode_decode`` / ``unicode_decode_with_offsets`` (a
RaggedTensor of code points per string, the input's shape plus one ragged
dimension), ``unicode_split`` / ``unicode_split_with_offsets`` (one string per
character), ``unicode_encode`` (the inverse of decode), ``unicode_transcode``
``bytes_split`` (one string per byte, ``StringSplit`` with an empty
delimiter), ``ngrams`` (``StringNGrams`` over the innermost rows) and
``unsorted_segment_join``."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op
from ref.graph_ops import array_ops
from ref.framework.tensor import Tensor
from ref.graph_ops.ragged_tensor import RaggedTensor, convert_to_tensor_or_ragged_tensor, is_ragged

__all__ = ["unicode_decode", "unicode_decode_with_offsets", "unicode_split", "unicode_split_with_offsets",
           "unicode_encode", "unicode_transcode", "bytes_split", "ngrams", "unsorted_segment_join"]


def _decode(input, input_encoding, errors, replacement_char, replace_control_characters, with_offsets):
    input = convert_to_tensor_or_ragged_tensor(input, name="input")
    ndims = input.shape.ndims
    if ndims is None:
        raise ValueError("Rank of `input` must be statically known.")
    if ndims > 1:
        if not is_ragged(input):
            input = RaggedTensor.from_tensor(input, ragged_rank=ndims - 1)
        elif input.ragged_rank < ndims - 1:
            input = input.with_flat_values(RaggedTensor.from_tensor(input.flat_values,
                                                                    ragged_rank=ndims - input.ragged_rank - 1))
    flat = array_ops.reshape(input.flat_values if is_ragged(input) else input, [-1])
    outs = apply_op("UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode", input=flat,
                    input_encoding=input_encoding, errors=errors, replacement_char=replacement_char,
                    replace_control_characters=replace_control_characters)
    splits, values = outs[0], outs[1]

    def shaped(v):
        if ndims == 0:
            return v
        rt = RaggedTensor.from_row_splits(v, splits, validate=False)
        return input.with_flat_values(rt) if ndims > 1 else rt

    return (shaped(values), shaped(outs[2])) if with_offsets else shaped(values)


def unicode_decode(input, input_encoding, errors="replace", replacement_char=0xFFFD,  # noqa: A002
                   replace_control_characters=False, name=None):
    """The code points of each string (int32), one more ragged dimension."""
    with name_scope(name, "UnicodeDecode", [input]):
        return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, False)


def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=0xFFFD,  # noqa: A002
                                replace_control_characters=False, name=None):
    """``(code points, byte offset of each)``."""
    with name_scope(name, "UnicodeDecodeWithOffsets", [input]):
        return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, True)


def _encode_each(codepoints, encoding, errors, replacement_char):
    """Each code point as a string of its own (the shape of ``codepoints``)."""
    flat = codepoints.flat_values if is_ragged(codepoints) else codepoints
    vector = array_ops.reshape(flat, [-1])
    n = array_ops.shape(vector, out_type=dtypes.int64)[0]
    from_rows = apply_op("Range", start=array_ops.zeros([], dtypes.int64), limit=n + 1,
                         delta=array_ops.ones([], dtypes.int64))
    chars = apply_op("UnicodeEncode", input_values=vector, input_splits=from_rows, output_encoding=encoding,
                     errors=errors, replacement_char=replacement_char)
    chars = array_ops.reshape(chars, array_ops.shape(flat))
    return codepoints.with_flat_values(chars) if is_ragged(codepoints) else chars


def unicode_split(input, input_encoding, errors="replace", replacement_char=0xFFFD, name=None):  # noqa: A002
    """Each string split into its characters (strings in ``input_encoding``)."""
    with name_scope(name, "UnicodeSplit", [input]):
        codepoints = _decode(input, input_encoding, errors, replacement_char, False, False)
        return _encode_each(codepoints, input_encoding, errors, replacement_char)


def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=0xFFFD,  # noqa: A002
                               name=None):
    """``(characters, byte offset of each)``."""
    with name_scope(name, "UnicodeSplitWithOffsets", [input]):
        codepoints, offsets = _decode(input, input_encoding, errors, replacement_char, False, True)
        return _encode_each(codepoints, input_encoding, errors, replacement_char), offsets


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """One string per innermost row of code points (``UnicodeEncode``)."""
    with name_scope(name, "UnicodeEncode", [input]):
        t = convert_to_tensor_or_ragged_tensor(input)
        if t.shape.ndims is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if is_ragged(t):
            if t.flat_values.shape.ndims > 1:
                return t.with_flat_values(unicode_encode(t.flat_values, output_encoding, errors, replacement_char))
            if t.ragged_rank > 1:
                return t.with_values(unicode_encode(t.values, output_encoding, errors, replacement_char))
            return apply_op("UnicodeEncode", input_values=t.values, input_splits=t.row_splits,
                            output_encoding=output_encoding, errors=errors, replacement_char=replacement_char)
        rank = t.shape.ndims
        if rank == 2:
            return unicode_encode(RaggedTensor.from_tensor(t), output_encoding, errors, replacement_char)
        if rank > 2:
            flat = array_ops.reshape(t, array_ops.stack([-1, array_ops.shape(t)[-1]]))
            return array_ops.reshape(unicode_encode(flat, output_encoding, errors, replacement_char), t.shape[:-1])
        if rank == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        rt = RaggedTensor.from_row_splits(t, array_ops.stack([0, array_ops.shape(t, out_type=dtypes.int32)[0]]),
                                          validate=False)
        return array_ops.reshape(unicode_encode(rt, output_encoding, errors, replacement_char), [])


def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """Each string re-encoded from ``input_encoding`` to ``output_encoding`` (``UnicodeTranscode``)."""
    return apply_op("UnicodeTranscode", input=input, input_encoding=input_encoding, output_encoding=output_encoding,
                    errors=errors, replacement_char=replacement_char,
                    replace_control_characters=replace_control_characters, name=name)


def bytes_split(input, name=None):  # noqa: A002
    """Each string split into its bytes, one more ragged dimension."""
    with name_scope(name, "StringsByteSplit", [input]):
        input = convert_to_tensor_or_ragged_tensor(input, name="input")
        if is_ragged(input):
            return input.with_flat_values(bytes_split(input.flat_values))
        rank = input.shape.ndims
        if rank is None:
            raise ValueError("input must have a statically-known rank.")
        if rank == 0:
            return bytes_split(array_ops.stack([input]))[0]
        if rank == 1:
            indices, values, shape = apply_op("StringSplit", input=input, delimiter="", skip_empty=False)
            return RaggedTensor.from_value_rowids(values=values, value_rowids=indices[:, 0], nrows=shape[0],
                                                  validate=False)
        return bytes_split(RaggedTensor.from_tensor(input))


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """The n-grams of the innermost rows of ``data`` (``StringNGrams``); dense
    input gives dense output."""
    with name_scope(name, "StringNGrams", [data]):
        if pad_values is None:
            left_pad = right_pad = ""
        elif isinstance(pad_values, (list, tuple)):
            if not all(isinstance(v, (bytes, str)) for v in pad_values[:2]):
                raise TypeError("pad_values must be a string, tuple of strings, or None.")
            left_pad, right_pad = pad_values[0], pad_values[1]
        else:
            if not isinstance(pad_values, (bytes, str)):
                raise TypeError("pad_values must be a string, tuple of strings, or None.")
            left_pad = right_pad = pad_values
        if padding_width is not None and padding_width < 1:
            raise ValueError("padding_width must be greater than 0.")
        if padding_width is not None and pad_values is None:
            raise ValueError("pad_values must be provided if padding_width is set.")
        data = convert_to_tensor_or_ragged_tensor(data, name="data", dtype=dtypes.string)
        to_tensor = isinstance(data, Tensor)
        if to_tensor:
            dense_shape = array_ops.concat([array_ops.shape(data)[:-1], [-1]], axis=0)
        if not is_ragged(data):
            if data.shape.ndims is None:
                raise ValueError("Rank of data must be known.")
            if data.shape.ndims == 0:
                raise ValueError("Data must have rank>0")
            if data.shape.ndims == 1:
                rt = RaggedTensor.from_row_starts(data, [0], validate=False)
                return ngrams(rt, ngram_width, separator, pad_values, padding_width, preserve_short_sequences,
                              name)[0]
            data = RaggedTensor.from_tensor(data, ragged_rank=data.shape.ndims - 1)
        if data.ragged_rank > 1:
            output = data.with_values(ngrams(data.values, ngram_width, separator, pad_values, padding_width,
                                             preserve_short_sequences, name))
            return array_ops.reshape(output.flat_values, dense_shape) if to_tensor else output
        if pad_values is None:
            padding_width = 0
        if pad_values is not None and padding_width is None:
            padding_width = -1
        widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
        for w in widths:
            if w < 1:
                raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
        values, splits = apply_op("StringNGrams", data=data.flat_values, data_splits=data.row_splits,
                                  separator=separator, ngram_widths=widths, left_pad=left_pad, right_pad=right_pad,
                                  pad_width=padding_width, preserve_short_sequences=preserve_short_sequences)
        output = RaggedTensor.from_row_splits(values=values, row_splits=splits, validate=False)
        return array_ops.reshape(output.flat_values, dense_shape) if to_tensor else output


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """``output[s]``: the strings of ``inputs`` in segment ``s``, joined by
    ``separator`` in order (``UnsortedSegmentJoin``)."""
    return apply_op("UnsortedSegmentJoin", inputs=inputs, segment_ids=segment_ids, num_segments=num_segments,
                    separator=separator, name=name)
