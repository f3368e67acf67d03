"""String parsing kernels: DecodeRaw, StringToNumber, DecodeCSV.

All are pure functions of string tensors (NumPy object arrays of bytes)."""
from __future__ import annotations

import re

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape


def _b(v) -> bytes:
    return v.encode() if isinstance(v, str) else bytes(v)


def _s(v) -> str:
    return v.decode("utf-8", "replace") if isinstance(v, (bytes, bytearray)) else str(v)


_RAW_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint16, dtypes.uint8,
              dtypes.int16, dtypes.int8, dtypes.int64, dtypes.complex64, dtypes.complex128, dtypes.bool)


def _decode_raw_rule(ins, attrs):
    shape = ins["bytes"].shape
    return [(dtypes.as_dtype(attrs["out_type"]), shape.concatenate([None]) if shape.ndims is not None
             else unknown_shape())]


@register_op("DecodeRaw", inputs=("bytes",), outputs=("output",), attrs={"out_type": REQUIRED,
                                                                         "little_endian": True},
             allowed={"out_type": _RAW_TYPES}, shape=_decode_raw_rule)
def decode_raw(bytes, out_type, little_endian=True):
    """output[..., j] = the j-th ``out_type`` value in the bytes of input[...]:
    every string must have the same length, a multiple of the type's size."""
    t = dtypes.as_dtype(out_type)
    np_t = np.dtype(t.np).newbyteorder("<" if little_endian else ">")
    items = [_b(x) for x in np.asarray(bytes, dtype=object).reshape(-1)]
    arr = np.asarray(bytes, dtype=object)
    if not items:
        return np.zeros(arr.shape + (0,), dtype=t.np)
    size = len(items[0])
    for i, x in enumerate(items):
        if len(x) != size:
            raise invalid_argument(f"DecodeRaw requires input strings to all be the same size, but element {i} "
                                   f"has size {len(x)} != {size}")
    if size % np_t.itemsize:
        raise invalid_argument(f"Input to DecodeRaw has length {size} that is not a multiple of "
                               f"{np_t.itemsize}, the size of {t.name}")
    flat = np.frombuffer(b"".join(items), dtype=np_t).astype(t.np)
    return flat.reshape(arr.shape + (size // np_t.itemsize,))


_INT_RE = re.compile(r"^\s*[+-]?\d+\s*$")
_FLOAT_RE = re.compile(r"^\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)\s*$",
                       re.IGNORECASE)


def _to_number(text: str, t):
    """The value of ``text`` as a ``t`` (None when it is not one)."""
    if t.is_integer:
        if not _INT_RE.match(text):
            return None
        v = int(text)
        return v if t.min <= v <= t.max else None
    if not _FLOAT_RE.match(text):
        return None
    return float(text.strip())


@register_op("StringToNumber", inputs=("string_input",), outputs=("output",), attrs={"out_type": dtypes.float32},
             allowed={"out_type": (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)},
             shape=lambda ins, attrs: [(dtypes.as_dtype(attrs["out_type"]), ins["string_input"].shape)])
def string_to_number(string_input, out_type=dtypes.float32):
    """output = the number each string spells (``"3.5"``, ``"-7"``, ``"inf"``)."""
    t = dtypes.as_dtype(out_type)
    arr = np.asarray(string_input, dtype=object)
    out = np.empty(arr.shape, dtype=t.np)
    for idx, x in np.ndenumerate(arr):
        v = _to_number(_s(x), t)
        if v is None:
            raise invalid_argument(f"StringToNumberOp could not correctly convert string: {_s(x)}")
        out[idx] = v
    return out


# -- DecodeCSV ----------------------------------------------------------------------

_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def _csv_rule(ins, attrs):
    for i, d in enumerate(ins["record_defaults"]):
        if d.shape.ndims is not None and d.shape.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {d.shape.ndims} for "
                             f"'{attrs.get('_op_name', 'DecodeCSV')}' (record_defaults[{i}])")
    return [(dtypes.as_dtype(t), ins["records"].shape) for t in attrs["OUT_TYPE"]]


def _split(record: bytes, delim: bytes, quote: bool, index: int):
    """The fields of one CSV record (TF's rules for quotes)."""
    fields, i, n = [], 0, len(record)
    while True:
        if quote and i < n and record[i:i + 1] == b'"':
            i += 1
            buf = bytearray()
            while True:
                if i >= n:
                    raise invalid_argument(f"Quoted field has to end with quote followed by delim or end "
                                           f"of record {index}")
                c = record[i:i + 1]
                if c == b'"':
                    if record[i + 1:i + 2] == b'"':
                        buf += b'"'
                        i += 2
                        continue
                    i += 1
                    if i < n and record[i:i + 1] != delim:
                        raise invalid_argument(f"Quote inside a string has to be escaped by another quote "
                                               f"in record {index}")
                    break
                buf += c
                i += 1
            fields.append(bytes(buf))
        else:
            j = record.find(delim, i)
            j = n if j < 0 else j
            field = record[i:j]
            if quote and b'"' in field:
                raise invalid_argument(f"Unquoted fields cannot have quotes/CRLFs inside")
            fields.append(field)
            i = j
        if i >= n:
            return fields
        i += 1  # the delimiter
        if i == n:
            fields.append(b"")
            return fields


@register_op("DecodeCSV", inputs=("records", "record_defaults"), outputs=("*output",),
             list_inputs={"record_defaults": None},
             attrs={"OUT_TYPE": REQUIRED, "field_delim": ",", "use_quote_delim": True, "na_value": "",
                    "select_cols": []}, shape=_csv_rule)
def decode_csv(records, record_defaults, OUT_TYPE, field_delim=",", use_quote_delim=True, na_value="",
               select_cols=()):
    """output[c][i] = field ``c`` of ``records[i]`` converted to ``OUT_TYPE[c]``; an
    empty field (or one equal to ``na_value``) takes ``record_defaults[c]``,
    which must then hold one value."""
    types = [dtypes.as_dtype(t) for t in OUT_TYPE]
    select_cols = list(select_cols or ())
    if select_cols and len(select_cols) != len(types):
        raise invalid_argument(f"select_cols should match record_defaults. Got {len(select_cols)} select_cols "
                               f"and {len(types)} record_defaults")
    if any(b <= a for a, b in zip(select_cols, select_cols[1:])) or (select_cols and select_cols[0] < 0):
        raise invalid_argument("select_cols should be non-negative and increasing")
    delim = _b(field_delim)
    if len(delim) != 1:
        raise invalid_argument("field_delim should be only 1 char")
    na = _b(na_value)
    defaults = [np.asarray(d, dtype=object if t == dtypes.string else t.np) for d, t in zip(record_defaults, types)]
    for i, d in enumerate(defaults):
        if d.size > 1:
            raise invalid_argument(f"There should only be 1 default per field but field {i} has {d.size}")
    recs = np.asarray(records, dtype=object)
    outs = [np.empty(recs.shape, dtype=object if t == dtypes.string else t.np) for t in types]
    for r, (idx, rec) in enumerate(np.ndenumerate(recs)):
        fields = _split(_b(rec), delim, use_quote_delim, r)
        if select_cols:
            if select_cols[-1] >= len(fields):
                raise invalid_argument(f"Expect {select_cols[-1] + 1} fields but have {len(fields)} in record {r}")
            fields = [fields[c] for c in select_cols]
        elif len(fields) != len(types):
            raise invalid_argument(f"Expect {len(types)} fields but have {len(fields)} in record {r}")
        for c, (f, t) in enumerate(zip(fields, types)):
            if f == b"" or (na and f == na):
                if defaults[c].size == 0:
                    raise invalid_argument(f"Field {c} is required but missing in record {r}!")
                outs[c][idx] = defaults[c].reshape(-1)[0]
            elif t == dtypes.string:
                outs[c][idx] = f
            else:
                v = _to_number(_s(f), t)
                if v is None:
                    raise invalid_argument(f"Field {c} in record {r} is not a valid {t.name}: {_s(f)}")
                outs[c][idx] = v
    return outs
