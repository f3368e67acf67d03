"""Unicode kernels: ``UnicodeDecode``, ``UnicodeDecodeWithOffsets``,
``UnicodeEncode`` and ``UnicodeTranscode`` (TF's unicode_ops over ICU
converters), for the encodings "UTF-8", "UTF-16-BE" and "UTF-32-BE" (TF's decode and
encode accept no others; its transcode takes any ICU converter, ref's these three).

* Decoding a string gives its code points, and with offsets the byte where each
  starts. An ill-formed sequence (a maximal subpart, as ICU and the Unicode
  standard's "best practice" delimit it) is, by ``errors``: one
  ``replacement_char`` (``replace``), dropped (``ignore``), or an
  InvalidArgumentError (``strict``). With ``replace_control_characters`` the C0
  controls U+0000..U+001F become ``replacement_char`` too.
* Encoding a row of code points writes each in the output encoding; a value
  that is no Unicode scalar (negative, a surrogate, above U+10FFFF) is handled
  by ``errors`` as above.
* Transcoding decodes, then encodes.
"""
from __future__ import annotations

import codecs
import threading

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape

_CODECS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
_MARK = "\udc00"  # a lone surrogate: no decoder yields one for valid input, so it marks an error span
_STATE = threading.local()  # the error spans of the string being decoded, per thread


def _mark_errors(exc):
    _STATE.spans.append((exc.start, exc.end))
    return _MARK, exc.end


codecs.register_error("ref_tf_unicode_mark", _mark_errors)


def _codec(encoding):
    if encoding not in _CODECS:
        raise invalid_argument(f"Could not create converter for input encoding: {encoding}")
    return _CODECS[encoding]


def _unit_length(cp, codec):
    if codec == "utf-8":
        return 1 if cp < 0x80 else 2 if cp < 0x800 else 3 if cp < 0x10000 else 4
    if codec == "utf-16-be":
        return 2 if cp < 0x10000 else 4
    return 4


def _decode_one(data, codec, errors, replacement_char, replace_control):
    """(code points, byte offsets) of one string."""
    _STATE.spans = spans = []
    text = data.decode(codec, "ref_tf_unicode_mark")
    points, offsets, pos, k = [], [], 0, 0
    for ch in text:
        if ch == _MARK:
            start, end = spans[k]
            k += 1
            if errors == "strict":
                raise invalid_argument("Invalid formatting on input string")
            if errors == "replace":
                points.append(replacement_char)
                offsets.append(start)
            pos = end
            continue
        cp = ord(ch)
        if replace_control and cp < 0x20:
            cp = replacement_char
        points.append(cp)
        offsets.append(pos)
        pos += _unit_length(ord(ch), codec)
    return points, offsets


def _check_errors(errors):
    if errors not in ("strict", "replace", "ignore"):
        raise invalid_argument(f"errors must be one of strict, replace, ignore; got {errors}")


def _decode(input, input_encoding, errors, replacement_char, replace_control_characters, Tsplits):
    codec = _codec(input_encoding)
    _check_errors(errors)
    flat = np.asarray(input, dtype=object).reshape(-1)
    splits, values, starts = [0], [], []
    for s in flat:
        s = s if isinstance(s, bytes) else str(s).encode("utf-8")
        points, offsets = _decode_one(s, codec, errors, replacement_char, replace_control_characters)
        values += points
        starts += offsets
        splits.append(len(values))
    idx = dtypes.as_dtype(Tsplits).as_numpy_dtype
    return np.asarray(splits, idx), np.asarray(values, np.int32), np.asarray(starts, np.int64)


def _decode_shape(ins, attrs, with_offsets=False):
    s = ins["input"].shape
    if s.ndims is not None and s.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.ndims} for '{attrs['_op_name']}' "
                         f"(op: '{'UnicodeDecodeWithOffsets' if with_offsets else 'UnicodeDecode'}') "
                         f"with input shapes: {s}.")
    n = s.as_list()[0] if s.ndims else None
    out = [(attrs.get("Tsplits", dtypes.int64), TensorShape([None if n is None else n + 1])),
           (dtypes.int32, TensorShape([None]))]
    return out + [(dtypes.int64, TensorShape([None]))] if with_offsets else out


_DECODE_ATTRS = {"input_encoding": REQUIRED, "errors": "replace", "replacement_char": 65533,
                 "replace_control_characters": False, "Tsplits": dtypes.int64}


@register_op("UnicodeDecode", inputs=("input",), outputs=("row_splits", "char_values"), attrs=_DECODE_ATTRS,
             allowed={"Tsplits": (dtypes.int32, dtypes.int64)}, shape=_decode_shape)
def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, Tsplits=dtypes.int64):
    """The code points of each string of the vector ``input``, concatenated,
    and the row splits delimiting each string's."""
    splits, values, _ = _decode(input, input_encoding, errors, replacement_char, replace_control_characters, Tsplits)
    return splits, values


@register_op("UnicodeDecodeWithOffsets", inputs=("input",), outputs=("row_splits", "char_values", "char_to_byte_starts"),
             attrs=_DECODE_ATTRS, allowed={"Tsplits": (dtypes.int32, dtypes.int64)},
             shape=lambda ins, attrs: _decode_shape(ins, attrs, True))
def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                                replace_control_characters=False, Tsplits=dtypes.int64):
    """``UnicodeDecode`` plus the byte offset where each code point starts."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, Tsplits)


def _encode_points(points, codec, errors, replacement_char):
    out = []
    for cp in points:
        cp = int(cp)
        if cp < 0 or cp > 0x10FFFF or 0xD800 <= cp <= 0xDFFF:
            if errors == "strict":
                raise invalid_argument(f"Invalid code point: {cp}")
            if errors == "ignore":
                continue
            cp = replacement_char
        out.append(chr(cp))
    return "".join(out).encode(codec)


def _encode_shape(ins, attrs):
    s = ins["input_splits"].shape
    n = s.as_list()[0] if s.ndims == 1 else None
    return [(dtypes.string, TensorShape([None if n is None else n - 1]))]


@register_op("UnicodeEncode", inputs=("input_values", "input_splits"), outputs=("output",),
             attrs={"errors": "replace", "output_encoding": REQUIRED, "replacement_char": 65533},
             type_attrs={"Tsplits": "input_splits"}, allowed={"Tsplits": (dtypes.int32, dtypes.int64)},
             input_types={"input_values": dtypes.int32}, shape=_encode_shape)
def unicode_encode(input_values, input_splits, errors="replace", output_encoding=None, replacement_char=65533):
    """One string per row ``input_values[splits[i]:splits[i + 1]]`` of code points."""
    codec = _codec(output_encoding)
    _check_errors(errors)
    values, splits = np.asarray(input_values).reshape(-1), np.asarray(input_splits)
    if splits.ndim != 1 or splits.size == 0 or splits[0] != 0 or splits[-1] != values.size \
            or np.any(np.diff(splits) < 0):
        raise invalid_argument("Input splits must start with 0, end with the number of values and not decrease")
    out = np.empty(splits.size - 1, object)
    for i in range(splits.size - 1):
        out[i] = _encode_points(values[splits[i]:splits[i + 1]], codec, errors, replacement_char)
    return out


@register_op("UnicodeTranscode", inputs=("input",), outputs=("output",),
             attrs={"input_encoding": REQUIRED, "output_encoding": REQUIRED, "errors": "replace",
                    "replacement_char": 65533, "replace_control_characters": False},
             shape=lambda ins, attrs: [(dtypes.string, ins["input"].shape)])
def unicode_transcode(input, input_encoding, output_encoding, errors="replace",  # noqa: A002
                      replacement_char=65533, replace_control_characters=False):
    """Each string decoded from ``input_encoding`` and encoded in ``output_encoding``."""
    codec_in, codec_out = _codec(input_encoding), _codec(output_encoding)
    _check_errors(errors)
    arr = np.asarray(input, dtype=object)
    out = np.empty(arr.shape, object)
    for i, s in np.ndenumerate(arr):
        s = s if isinstance(s, bytes) else str(s).encode("utf-8")
        points, _ = _decode_one(s, codec_in, errors, replacement_char, replace_control_characters)
        out[i] = _encode_points(points, codec_out, errors, replacement_char)
    return out
