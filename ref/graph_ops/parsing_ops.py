"""``tf.decode_raw``, ``tf.decode_csv`` and ``tf.string_to_number`` (kernels in
:mod:`ref.ops.parsing`)."""
from __future__ import annotations

from ref.framework.graph import apply_op, convert_to_tensor
from ref.types import dtypes

__all__ = ["decode_raw", "decode_csv", "string_to_number"]


def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """Reinterprets the bytes of each string as a vector of ``out_type`` values
    (``DecodeRaw``); TF 1.x's ``bytes`` keyword is accepted too."""
    if input_bytes is None:
        input_bytes = bytes
    if out_type is None:
        raise TypeError("decode_raw() missing required argument 'out_type'")
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
