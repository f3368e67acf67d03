"""String parsing kernels: DecodeRaw, StringToNumber, DecodeCSV.

All are pure functions of string tensors (NumPy object arrays of bytes)."""
from __future__ import annotations

import base64
import re

import numpy as np

from ref import protos
from ref.formats import tensor_util
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


def _padded_rule(ins, attrs):
    shape, t = ins["input_bytes"].shape, dtypes.as_dtype(attrs["out_type"])
    n = ins["fixed_length"].value
    if n is not None and int(n) % t.size:
        raise ValueError(f"Dimension size must be evenly divisible by {t.size} but is {int(n)} for "
                         f"'{attrs['_op_name']}' (DecodePaddedRaw)")
    last = None if n is None else int(n) // t.size
    return [(t, shape.concatenate([last]) if shape.ndims is not None else unknown_shape())]


@register_op("DecodePaddedRaw", inputs=("input_bytes", "fixed_length"), outputs=("output",),
             attrs={"out_type": REQUIRED, "little_endian": True},
             allowed={"out_type": tuple(d for d in _RAW_TYPES if d.size > 1 or d in (dtypes.uint8, dtypes.int8))},
             shape=_padded_rule)
def decode_padded_raw(input_bytes, fixed_length, out_type, little_endian=True):
    """As ``DecodeRaw`` with each string cut or zero-padded to ``fixed_length``
    bytes (a multiple of the type's size)."""
    t = dtypes.as_dtype(out_type)
    n = int(fixed_length)
    if n % t.size:
        raise invalid_argument(f"fixed_length (={n}) must be a multiple of the size of out_type ({t.size})")
    np_t = np.dtype(t.np).newbyteorder("<" if little_endian else ">")
    arr = np.asarray(input_bytes, dtype=object)
    items = [_b(x)[:n].ljust(n, b"\0") for x in arr.reshape(-1)]
    flat = np.frombuffer(b"".join(items), dtype=np_t).astype(t.np)
    return flat.reshape(arr.shape + (n // t.size,))


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


_CSV_TYPE_NAME = {dtypes.float32: "float", dtypes.float64: "double"}  # TF's C++ type names in its messages


@register_op("DecodeCSV", inputs=("records", "record_defaults"), outputs=("*output",),
             list_inputs={"record_defaults": None}, type_lists={"OUT_TYPE": "record_defaults"},
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
            if select_cols[-1] >= len(fields):  # TF counts the selected columns the record holds
                have = sum(c < len(fields) for c in select_cols)
                raise invalid_argument(f"Expect {len(select_cols)} fields but have {have} in record {r}")
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
                    raise invalid_argument(f"Field {c} in record {r} is not a valid "
                                           f"{_CSV_TYPE_NAME.get(t, t.name)}: {_s(f)}")
                outs[c][idx] = v
    return outs


# -- ParseExampleV2 -------------------------------------------------------------------

_KIND = {dtypes.string: "bytes_list", dtypes.float32: "float_list", dtypes.int64: "int64_list"}
_KIND_NAME = {"bytes_list": "string", "float_list": "float", "int64_list": "int64"}


_COUNT_NAME = {"bytes_list": "bytes", "float_list": "float", "int64_list": "int64"}
_TYPE_STRING = {dtypes.string: "string", dtypes.float32: "float", dtypes.int64: "int64"}


def _feature_values(example, key, t, index, where=None, style="dense"):
    """The values of feature ``key`` in ``example`` as a list (None when absent
    or when the Feature sets no list at all: TF counts that one missing)."""
    if key not in example.features.feature or example.features.feature[key].WhichOneof("kind") is None:
        return None
    return _values(example.features.feature[key], key, t, index, where, style)


def _values(f, key, t, index, where=None, style="dense"):
    """The values of Feature ``f`` as a list; a kind other than ``t``'s raises
    TF's message after ``where`` (TF's location of the value: "Name: n, Key:
    k, Index: i." in a batch, "Key: k." for one Example), worded as TF's parser
    words it for a dense, a sparse or ragged (``style="sparse"``) feature or a
    feature list's step (``style="list"``)."""
    kind = f.WhichOneof("kind")
    if kind is None:
        return []
    if kind != _KIND[t]:
        if style == "list":
            raise invalid_argument(f"{where}  Data types don't match. Expected type: {_KIND_NAME[_KIND[t]]}")
        if style == "sparse" and where is not None:
            raise invalid_argument(f"{where}  Data types don't match. Expected type: {_KIND_NAME[_KIND[t]]}, "
                                   f"Actual type: {_KIND_NAME[kind]}")
        if where is not None:
            raise invalid_argument(f"{where}  Data types don't match. Data type: {_KIND_NAME[kind]} but expected "
                                   f"type: {_KIND_NAME[_KIND[t]]}")
        raise invalid_argument(f"Name: <unknown>, Feature: {key} (data type: {_KIND_NAME[_KIND[t]]}) is "
                               f"required but could not be found. Data types don't match. Data type: "
                               f"{_KIND_NAME[kind]} but expected type: {_KIND_NAME[_KIND[t]]} (example {index})")
    return list(getattr(f, kind).value)


def _where(names, b, key, scalar):
    """TF's location of example b's feature ``key`` in a parse error."""
    if scalar:
        return f"Key: {key}."
    name = _s(names[b]) if b < len(names) and _s(names[b]) else "<unknown>"
    return f"Name: {name}, Key: {key}, Index: {b}."


def _parse_rule(ins, attrs):
    batch = ins["serialized"].shape
    lead = [] if batch.ndims == 0 else [batch.as_list()[0] if batch.ndims else None]
    out = []
    ns = attrs["num_sparse"]
    out += [(dtypes.int64, TensorShape([None, len(lead) + 1]))] * ns
    out += [(dtypes.as_dtype(t), TensorShape([None])) for t in attrs["sparse_types"]]
    out += [(dtypes.int64, TensorShape([len(lead) + 1]))] * ns
    for d, s in zip(ins["dense_defaults"], attrs["dense_shapes"]):
        dims = [None if x is None or x == -1 else x for x in (s.as_list() if isinstance(s, TensorShape) else s)]
        out.append((d.dtype, TensorShape(lead).concatenate(TensorShape(dims))))
    out += [(dtypes.as_dtype(t), TensorShape([None])) for t in attrs.get("ragged_value_types") or ()]
    splits = [None if not lead or lead[0] is None else lead[0] + 1]
    out += [(dtypes.as_dtype(t), TensorShape(splits)) for t in attrs.get("ragged_split_types") or ()]
    return out


@register_op("ParseExampleV2", inputs=("serialized", "names", "sparse_keys", "dense_keys", "ragged_keys",
                                       "dense_defaults"), outputs=("*outputs",),
             list_inputs={"dense_defaults": None},
             attrs={"Tdense": None, "num_sparse": REQUIRED, "sparse_types": REQUIRED, "ragged_value_types": [],
                    "ragged_split_types": [], "dense_shapes": REQUIRED}, shape=_parse_rule)
def parse_example_v2(serialized, names, sparse_keys, dense_keys, ragged_keys, dense_defaults, num_sparse,
                     sparse_types, dense_shapes, Tdense=None, ragged_value_types=(), ragged_split_types=()):
    """Parses serialized ``tf.train.Example`` protos: for each sparse key
    (indices, values, dense_shape), for each dense key a [batch] + shape tensor
    (a first dimension of -1: padded to the longest, with the default), for
    each ragged key its values (all examples' concatenated) and row splits
    ([batch + 1]: example b's values are values[splits[b]:splits[b + 1]])."""
    ser = np.asarray(serialized, dtype=object)
    scalar = ser.ndim == 0
    records = [_b(x) for x in ser.reshape(-1)]
    examples = []
    for i, r in enumerate(records):
        ex = protos.example_pb2.Example()  # protobuf loads on the first parse
        try:
            ex.ParseFromString(r)
        except Exception:
            raise invalid_argument(f"Could not parse example input, value: '{r[:64]!r}'")
        examples.append(ex)
    names = list(np.asarray(names, dtype=object).reshape(-1))
    s_keys = [_s(k) for k in np.asarray(sparse_keys, dtype=object).reshape(-1)]
    d_keys = [_s(k) for k in np.asarray(dense_keys, dtype=object).reshape(-1)]
    s_types = [dtypes.as_dtype(t) for t in sparse_types]
    ind_out, val_out, shp_out, dense_out = [], [], [], []
    for key, t in zip(s_keys, s_types):
        idx, vals, width = [], [], 0
        for b, ex in enumerate(examples):
            v = _feature_values(ex, key, t, b, _where(names, b, key, scalar), "sparse") or []
            width = max(width, len(v))
            idx += [[b, j] for j in range(len(v))]
            vals += v
        idx = np.array(idx, dtype=np.int64).reshape(-1, 2)
        shape = np.array([len(examples), width], dtype=np.int64)
        if scalar:
            idx, shape = idx[:, 1:], shape[1:]
        ind_out.append(idx)
        val_out.append(np.array(vals, dtype=object if t == dtypes.string else t.np).reshape(-1))
        shp_out.append(shape)
    for key, default, shape in zip(d_keys, dense_defaults, dense_shapes):
        default = np.asarray(default)
        t = dtypes.string if default.dtype == object else dtypes.as_dtype(default.dtype)
        np_t = object if t == dtypes.string else t.np
        shape = list(TensorShape(shape).as_list()) if not isinstance(shape, (list, tuple)) else list(shape)
        shape = [-1 if d is None else d for d in shape]
        variable = bool(shape) and shape[0] == -1
        inner = int(np.prod(shape[1:] if variable else shape))
        rows = []
        for b, ex in enumerate(examples):
            where = _where(names, b, key, scalar)
            v = _feature_values(ex, key, t, b, where)
            if v is None:
                if variable:
                    rows.append(np.zeros([0], dtype=np_t))
                    continue
                if default.size == 0:
                    missing = f"Feature: {key} (data type: {_TYPE_STRING[t]}) is required but could not be found."
                    raise invalid_argument(missing if scalar else f"{where.split(', Key')[0]}, {missing}")
                rows.append(np.broadcast_to(default, shape).reshape(-1).astype(np_t))
                continue
            count = _COUNT_NAME[_KIND[t]]
            if variable and inner and len(v) % inner:
                if scalar:
                    raise invalid_argument(f"Error while parsing feature with key {key}: number of elements should "
                                           f"be divisible by {inner}, found {len(v)} instead")
                raise invalid_argument(f"{where}  Number of {count} values is not a multiple of stride length. "
                                       f"Saw {len(v)} values but output shape is: "
                                       f"[{','.join('?' if d == -1 else str(d) for d in shape)}]")
            if not variable and len(v) != inner:
                detail = (f"Number of {count} values != expected.  Values size: {len(v)} but output shape: "
                          f"[{','.join(str(d) for d in shape)}]")
                raise invalid_argument(f"{where}  Can't parse serialized Example: {detail}" if scalar
                                       else f"{where}  {detail}")
            rows.append(np.array(v, dtype=np_t))
        if variable:
            length = max([len(r) // max(inner, 1) for r in rows] + [0])
            fill = default.reshape(-1)[0] if default.size else (b"" if t == dtypes.string else 0)
            full = np.full([len(rows), length * inner], fill, dtype=np_t)
            for b, r in enumerate(rows):
                full[b, :len(r)] = r
            out = full.reshape([len(rows), length] + shape[1:])
        else:
            out = np.stack(rows).reshape([len(rows)] + shape) if rows else np.zeros([0] + shape, np_t)
        dense_out.append(out[0] if scalar else out)
    r_keys = [_s(k) for k in np.asarray(ragged_keys, dtype=object).reshape(-1)]
    if len(r_keys) != len(ragged_value_types) or len(r_keys) != len(ragged_split_types):
        raise invalid_argument(f"len(ragged_keys) != len(ragged_value_types) or len(ragged_split_types): "
                               f"{len(r_keys)} vs {len(ragged_value_types)}, {len(ragged_split_types)}")
    ragged_vals, ragged_splits = [], []
    for key, t, st in zip(r_keys, ragged_value_types, ragged_split_types):
        t, st = dtypes.as_dtype(t), dtypes.as_dtype(st)
        rows = [_feature_values(ex, key, t, b, _where(names, b, key, scalar), "sparse") or []
                for b, ex in enumerate(examples)]
        ragged_vals.append(np.array([v for r in rows for v in r],
                                    dtype=object if t == dtypes.string else t.np).reshape(-1))
        ragged_splits.append(np.cumsum([0] + [len(r) for r in rows]).astype(st.np))
    return ind_out + val_out + shp_out + dense_out + ragged_vals + ragged_splits


# -- ParseSingleSequenceExample ----------------------------------------------------------

def _sparse(rows, t):
    """indices [N, 2], values [N], dense_shape [2] of a list of value lists."""
    idx = [[i, j] for i, r in enumerate(rows) for j in range(len(r))]
    vals = [v for r in rows for v in r]
    return (np.array(idx, dtype=np.int64).reshape(-1, 2),
            np.array(vals, dtype=object if t == dtypes.string else t.np).reshape(-1),
            np.array([len(rows), max([len(r) for r in rows] + [0])], dtype=np.int64))


def _seq_rule(ins, attrs):
    out = []
    n = attrs["Ncontext_sparse"]
    out += [(dtypes.int64, TensorShape([None, 1]))] * n
    out += [(dtypes.as_dtype(t), TensorShape([None])) for t in attrs["context_sparse_types"]]
    out += [(dtypes.int64, TensorShape([1]))] * n
    out += [(d.dtype, TensorShape(s)) for d, s in zip(ins["context_dense_defaults"], attrs["context_dense_shapes"])]
    m = attrs["Nfeature_list_sparse"]
    out += [(dtypes.int64, TensorShape([None, 2]))] * m
    out += [(dtypes.as_dtype(t), TensorShape([None])) for t in attrs["feature_list_sparse_types"]]
    out += [(dtypes.int64, TensorShape([2]))] * m
    out += [(dtypes.as_dtype(t), TensorShape([None]).concatenate(TensorShape(s)))
            for t, s in zip(attrs["feature_list_dense_types"], attrs["feature_list_dense_shapes"])]
    return out


@register_op("ParseSingleSequenceExample",
             inputs=("serialized", "feature_list_dense_missing_assumed_empty", "context_sparse_keys",
                     "context_dense_keys", "feature_list_sparse_keys", "feature_list_dense_keys",
                     "context_dense_defaults", "debug_name"), outputs=("*outputs",),
             list_inputs={"context_sparse_keys": "Ncontext_sparse", "context_dense_keys": "Ncontext_dense",
                          "feature_list_sparse_keys": "Nfeature_list_sparse",
                          "feature_list_dense_keys": "Nfeature_list_dense", "context_dense_defaults": None},
             attrs={"Ncontext_sparse": 0, "Ncontext_dense": 0, "Nfeature_list_sparse": 0, "Nfeature_list_dense": 0,
                    "context_sparse_types": [], "Tcontext_dense": [], "feature_list_dense_types": [],
                    "context_dense_shapes": [], "feature_list_sparse_types": [], "feature_list_dense_shapes": []},
             shape=_seq_rule)
def parse_single_sequence_example(serialized, feature_list_dense_missing_assumed_empty, context_sparse_keys,
                                  context_dense_keys, feature_list_sparse_keys, feature_list_dense_keys,
                                  context_dense_defaults, debug_name, Ncontext_sparse=0, Ncontext_dense=0,
                                  Nfeature_list_sparse=0, Nfeature_list_dense=0, context_sparse_types=(),
                                  Tcontext_dense=(), feature_list_dense_types=(), context_dense_shapes=(),
                                  feature_list_sparse_types=(), feature_list_dense_shapes=()):
    """Parses one serialized ``tf.train.SequenceExample``: the context as
    ParseExampleV2 parses one Example; each dense feature list -> [steps] + shape,
    each sparse feature list -> (indices [N, 2], values, dense_shape [steps, longest])."""
    seq = protos.example_pb2.SequenceExample()
    try:
        seq.ParseFromString(_b(np.asarray(serialized, dtype=object).item()))
    except Exception:
        raise invalid_argument("Could not parse example input")
    name = _s(np.asarray(debug_name, dtype=object).item()) or "<unknown>"
    out = [[], [], []]
    for key, t in zip(context_sparse_keys, context_sparse_types):
        t = dtypes.as_dtype(t)
        f = seq.context.feature
        v = _values(f[_s(np.asarray(key).item())], _s(np.asarray(key).item()), t, 0) \
            if _s(np.asarray(key).item()) in f else []
        idx, vals, shape = _sparse([v], t)
        out[0].append(idx[:, 1:])
        out[1].append(vals)
        out[2].append(shape[1:])
    result = out[0] + out[1] + out[2]
    for key, default, shape in zip(context_dense_keys, context_dense_defaults, context_dense_shapes):
        key = _s(np.asarray(key, dtype=object).item())
        default = np.asarray(default)
        t = dtypes.string if default.dtype == object else dtypes.as_dtype(default.dtype)
        shape = [int(d) for d in (TensorShape(shape).as_list() if isinstance(shape, TensorShape) else shape)]
        if key in seq.context.feature:
            v = _values(seq.context.feature[key], key, t, 0)
            if len(v) != int(np.prod(shape)):
                raise invalid_argument(f"Name: {name}, Key: {key}, Index: 0.  Number of {t.name} values != "
                                       f"expected.  Values size: {len(v)} but output shape: {shape}")
            result.append(np.array(v, dtype=object if t == dtypes.string else t.np).reshape(shape))
        elif default.size:
            result.append(np.array(default).reshape(shape))
        else:
            raise invalid_argument(f"Name: {name}, Feature: {key} (data type: {t.name}) is required but could "
                                   f"not be found.")
    out = [[], [], []]
    for key, t in zip(feature_list_sparse_keys, feature_list_sparse_types):
        key, t = _s(np.asarray(key, dtype=object).item()), dtypes.as_dtype(t)
        steps = seq.feature_lists.feature_list[key].feature if key in seq.feature_lists.feature_list else []
        lst = lambda i: f"Name: {name}, Feature list: {key}, Index: {i}."  # noqa: E731
        for part, x in zip(out, _sparse([_values(f, key, t, i, lst(i), "list") for i, f in enumerate(steps)], t)):
            part.append(x)
    result += out[0] + out[1] + out[2]
    empty_ok = {_s(k) for k in np.asarray(feature_list_dense_missing_assumed_empty, dtype=object).reshape(-1)}
    for key, t, shape in zip(feature_list_dense_keys, feature_list_dense_types, feature_list_dense_shapes):
        key, t = _s(np.asarray(key, dtype=object).item()), dtypes.as_dtype(t)
        shape = [int(d) for d in (TensorShape(shape).as_list() if isinstance(shape, TensorShape) else shape)]
        np_t = object if t == dtypes.string else t.np
        if key not in seq.feature_lists.feature_list:
            if key not in empty_ok:
                raise invalid_argument(f"Name: {name}, Feature list '{key}' is required but could not be found.  "
                                       f"Did you mean to include it in feature_list_dense_missing_assumed_empty "
                                       f"or feature_list_dense_defaults?")
            result.append(np.zeros([0] + shape, dtype=np_t))
            continue
        rows = []
        for i, f in enumerate(seq.feature_lists.feature_list[key].feature):
            v = _values(f, key, t, i, f"Name: {name}, Feature list: {key}, Index: {i}.", "list")
            if len(v) != int(np.prod(shape)):
                raise invalid_argument(f"Name: {name}, Key: {key}, Index: {i}.  Number of {t.name} values != "
                                       f"expected.  values size: {len(v)} but output shape: {shape}")
            rows.append(np.array(v, dtype=np_t).reshape(shape))
        result.append(np.stack(rows) if rows else np.zeros([0] + shape, dtype=np_t))
    return result


# -- ParseSequenceExampleV2 (batched) ---------------------------------------------------------

def _seq_v2_rule(ins, attrs):
    ser = ins["serialized"].shape
    batch = ser.as_list()[0] if ser.ndims == 1 else None
    out = []
    n = attrs["Ncontext_sparse"]
    out += [(dtypes.int64, TensorShape([None, 2]))] * n
    out += [(dtypes.as_dtype(t), TensorShape([None])) for t in attrs["context_sparse_types"]]
    out += [(dtypes.int64, TensorShape([2]))] * n
    out += [(d.dtype, TensorShape([batch]).concatenate(TensorShape(s)))
            for d, s in zip(ins["context_dense_defaults"], attrs["context_dense_shapes"])]
    splits = TensorShape([None if batch is None else batch + 1])
    out += [(dtypes.as_dtype(t), TensorShape([None])) for t in attrs.get("context_ragged_value_types") or ()]
    out += [(dtypes.as_dtype(t), splits) for t in attrs.get("context_ragged_split_types") or ()]
    m = attrs["Nfeature_list_sparse"]
    out += [(dtypes.int64, TensorShape([None, 3]))] * m
    out += [(dtypes.as_dtype(t), TensorShape([None])) for t in attrs["feature_list_sparse_types"]]
    out += [(dtypes.int64, TensorShape([3]))] * m
    out += [(dtypes.as_dtype(t), TensorShape([batch, None]).concatenate(TensorShape(s)))
            for t, s in zip(attrs["feature_list_dense_types"], attrs["feature_list_dense_shapes"])]
    out += [(dtypes.int64, TensorShape([batch]))] * attrs["Nfeature_list_dense"]
    out += [(dtypes.as_dtype(t), TensorShape([None])) for t in attrs.get("feature_list_ragged_value_types") or ()]
    out += [(dtypes.as_dtype(t), splits) for t in attrs.get("feature_list_ragged_split_types") or ()]
    out += [(dtypes.as_dtype(t), TensorShape([None])) for t in attrs.get("feature_list_ragged_split_types") or ()]
    return out


def _ragged_sequence_outputs(flat, context_keys, context_types, list_keys, list_types):
    """The ragged outputs of ParseSequenceExampleV2: per context key its values
    and row splits over the examples; per feature-list key its values, outer
    splits (steps per example) and inner splits (values per step)."""
    examples = []
    for r in flat:
        ex = protos.example_pb2.SequenceExample()
        ex.ParseFromString(_b(r))
        examples.append(ex)
    np_of = lambda t: object if t == dtypes.string else t.np  # noqa: E731
    c_vals, c_splits = [], []
    for key, (t, st) in zip(context_keys, context_types):
        key, t, st = _s(key), dtypes.as_dtype(t), dtypes.as_dtype(st)
        rows = []
        for b, ex in enumerate(examples):
            f = ex.context.feature.get(key) if key in ex.context.feature else None
            rows.append([] if f is None else _values(f, key, t, b))
        c_vals.append(np.array([v for r in rows for v in r], dtype=np_of(t)).reshape(-1))
        c_splits.append(np.cumsum([0] + [len(r) for r in rows]).astype(st.np))
    f_vals, f_outer, f_inner = [], [], []
    for key, (t, st) in zip(list_keys, list_types):
        key, t, st = _s(key), dtypes.as_dtype(t), dtypes.as_dtype(st)
        steps_per = []
        for b, ex in enumerate(examples):
            fl = ex.feature_lists.feature_list[key].feature if key in ex.feature_lists.feature_list else []
            steps = [_values(f, key, t, b) for f in fl]
            steps_per.append(steps)
        inner = [len(step) for steps in steps_per for step in steps]
        f_vals.append(np.array([v for steps in steps_per for step in steps for v in step],
                               dtype=np_of(t)).reshape(-1))
        f_outer.append(np.cumsum([0] + [len(steps) for steps in steps_per]).astype(st.np))
        f_inner.append(np.cumsum([0] + inner).astype(st.np))
    return c_vals, c_splits, f_vals, f_outer, f_inner


def _batch_sparse(parts, extra_rank):
    """One SparseTensor [batch] + dims from per-example (indices, values, dense_shape)."""
    idx = [np.concatenate([np.full((len(ix), 1), b, np.int64), ix], axis=1) for b, (ix, _, _) in enumerate(parts)]
    vals = [v for _, v, _ in parts]
    shape = np.max(np.stack([s for _, _, s in parts]), axis=0) if parts else np.zeros(extra_rank, np.int64)
    return (np.concatenate(idx).reshape(-1, extra_rank + 1) if idx else np.zeros((0, extra_rank + 1), np.int64),
            np.concatenate(vals) if vals else np.zeros(0),
            np.concatenate([[len(parts)], shape]).astype(np.int64))


@register_op("ParseSequenceExampleV2",
             inputs=("serialized", "debug_name", "context_sparse_keys", "context_dense_keys", "context_ragged_keys",
                     "feature_list_sparse_keys", "feature_list_dense_keys", "feature_list_ragged_keys",
                     "feature_list_dense_missing_assumed_empty", "context_dense_defaults"),
             outputs=("*outputs",), list_inputs={"context_dense_defaults": None},
             attrs={"Ncontext_sparse": 0, "Tcontext_dense": [], "context_sparse_types": [],
                    "context_ragged_value_types": [], "context_ragged_split_types": [], "context_dense_shapes": [],
                    "Nfeature_list_sparse": 0, "Nfeature_list_dense": 0, "feature_list_dense_types": [],
                    "feature_list_sparse_types": [], "feature_list_ragged_value_types": [],
                    "feature_list_ragged_split_types": [], "feature_list_dense_shapes": []},
             shape=_seq_v2_rule)
def parse_sequence_example_v2(serialized, debug_name, context_sparse_keys, context_dense_keys, context_ragged_keys,
                              feature_list_sparse_keys, feature_list_dense_keys, feature_list_ragged_keys,
                              feature_list_dense_missing_assumed_empty, context_dense_defaults, Ncontext_sparse=0,
                              Tcontext_dense=(), context_sparse_types=(), context_ragged_value_types=(),
                              context_ragged_split_types=(), context_dense_shapes=(), Nfeature_list_sparse=0,
                              Nfeature_list_dense=0, feature_list_dense_types=(), feature_list_sparse_types=(),
                              feature_list_ragged_value_types=(), feature_list_ragged_split_types=(),
                              feature_list_dense_shapes=()):
    """Parses a vector of serialized ``SequenceExample`` protos, each as
    ParseSingleSequenceExample, batched: context sparse -> indices [N, 2]
    (example, index), dense shape [batch, longest]; context dense ->
    [batch] + shape; feature-list sparse -> indices [N, 3] (example, step,
    index), dense shape [batch, most steps, longest]; feature-list dense ->
    [batch, most steps] + shape, zero-padded (empty strings), with each
    example's number of steps in ``feature_list_dense_lengths``. Ragged
    features: values with row splits over the examples (feature lists: outer
    splits over examples, inner splits over steps)."""
    ser = np.asarray(serialized, dtype=object)
    if ser.ndim > 1:
        raise invalid_argument(f"Expected serialized to be a scalar or vector, got shape: {list(ser.shape)}")
    flat = ser.reshape(-1)
    names = np.asarray(debug_name, dtype=object).reshape(-1)
    if names.size and names.size != flat.size:
        raise invalid_argument(f"Expected len(debug_name) == len(serialized), got {names.size} vs {flat.size}")
    keys = lambda k: list(np.asarray(k, dtype=object).reshape(-1))  # noqa: E731
    c_sparse, c_dense, f_sparse, f_dense = (keys(context_sparse_keys), keys(context_dense_keys),
                                            keys(feature_list_sparse_keys), keys(feature_list_dense_keys))
    empty_ok = [k for k, ok in zip(f_dense, np.asarray(feature_list_dense_missing_assumed_empty).reshape(-1)) if ok]
    per = [parse_single_sequence_example(
        s, np.array(empty_ok, dtype=object), c_sparse, c_dense, f_sparse, f_dense, context_dense_defaults,
        names[i] if names.size else b"", context_sparse_types=context_sparse_types,
        context_dense_shapes=context_dense_shapes, feature_list_sparse_types=feature_list_sparse_types,
        feature_list_dense_types=feature_list_dense_types, feature_list_dense_shapes=feature_list_dense_shapes)
        for i, s in enumerate(flat)]
    c_rv, c_rs, f_rv, f_ro, f_ri = _ragged_sequence_outputs(
        flat, keys(context_ragged_keys), list(zip(context_ragged_value_types, context_ragged_split_types)),
        keys(feature_list_ragged_keys), list(zip(feature_list_ragged_value_types, feature_list_ragged_split_types)))
    ns, nd, ms = len(c_sparse), len(c_dense), len(f_sparse)
    out_ind, out_val, out_shp = [], [], []
    for j, t in enumerate(context_sparse_types):
        ix, v, sh = _batch_sparse([(r[j], r[ns + j], r[2 * ns + j]) for r in per], 1)
        out_ind.append(ix)
        out_val.append(v.astype(object if dtypes.as_dtype(t) == dtypes.string else dtypes.as_dtype(t).np))
        out_shp.append(sh)
    result = out_ind + out_val + out_shp
    for j, (default, shape) in enumerate(zip(context_dense_defaults, context_dense_shapes)):
        np_t = np.asarray(default).dtype
        shape = [int(d) for d in (TensorShape(shape).as_list() if isinstance(shape, TensorShape) else shape)]
        rows = [r[3 * ns + j] for r in per]
        if not rows:  # TF's batched kernel rejects an empty batch with context dense features
            raise invalid_argument(f"Inconsistent max number of elements for feature {_s(c_dense[j])}: expected "
                                   f"{int(np.prod(shape))}, but found 0")
        result.append(np.stack(rows).astype(np_t) if rows else np.zeros([0] + shape, np_t))
    result += c_rv + c_rs
    base = 3 * ns + nd
    out_ind, out_val, out_shp = [], [], []
    for j, t in enumerate(feature_list_sparse_types):
        ix, v, sh = _batch_sparse([(r[base + j], r[base + ms + j], r[base + 2 * ms + j]) for r in per], 2)
        out_ind.append(ix)
        out_val.append(v.astype(object if dtypes.as_dtype(t) == dtypes.string else dtypes.as_dtype(t).np))
        out_shp.append(sh)
    result += out_ind + out_val + out_shp
    base += 3 * ms
    lengths = []
    for j, (t, shape) in enumerate(zip(feature_list_dense_types, feature_list_dense_shapes)):
        t = dtypes.as_dtype(t)
        np_t = object if t == dtypes.string else t.np
        shape = [int(d) for d in (TensorShape(shape).as_list() if isinstance(shape, TensorShape) else shape)]
        rows = [r[base + j] for r in per]
        steps = max([len(x) for x in rows] + [0])
        full = np.full([len(rows), steps] + shape, b"" if t == dtypes.string else 0, dtype=np_t)
        for b, x in enumerate(rows):
            full[b, :len(x)] = x
        result.append(full)
        lengths.append(np.array([len(x) for x in rows], dtype=np.int64))
    return result + lengths + f_rv + f_ro + f_ri


# -- SerializeTensor / ParseTensor: a tensor as a serialized TensorProto ---------

@register_op("SerializeTensor", inputs=("tensor",), outputs=("serialized",), type_attrs={"T": "tensor"},
             shape=lambda ins, attrs: [(dtypes.string, TensorShape([]))])
def serialize_tensor(tensor):
    """The TensorProto of ``tensor`` as TF writes it (``AsProtoTensorContent``):
    dtype, shape, and the values as raw little-endian ``tensor_content``
    (strings in ``string_val``)."""
    x = np.asarray(tensor)
    dt = dtypes.string if x.dtype == object or x.dtype.kind in "SU" else dtypes.as_dtype(x.dtype)
    proto = protos.tensor_pb2.TensorProto(dtype=dt.as_datatype_enum)
    proto.tensor_shape.SetInParent()  # written even for a scalar, as TF does
    for d in x.shape:
        proto.tensor_shape.dim.add(size=int(d))
    if dt == dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode() for v in x.reshape(-1))
    elif x.size:
        proto.tensor_content = np.ascontiguousarray(x).astype(x.dtype.newbyteorder("<")).tobytes()
    return np.array(proto.SerializeToString(), dtype=object)


@register_op("ParseTensor", inputs=("serialized",), outputs=("output",), attrs={"out_type": REQUIRED},
             shape=lambda ins, attrs: [(attrs["out_type"], unknown_shape())])
def parse_tensor(serialized, out_type):
    """The tensor a serialized TensorProto holds; its dtype must be ``out_type``."""
    s = np.asarray(serialized, dtype=object)
    if s.ndim != 0:
        raise invalid_argument(f"Expected `serialized` to be a scalar, got shape: [{','.join(map(str, s.shape))}]")
    raw = s.item()
    proto = protos.tensor_pb2.TensorProto()
    try:
        proto.ParseFromString(raw if isinstance(raw, bytes) else str(raw).encode())
        value = tensor_util.make_ndarray(proto)
    except Exception:  # noqa: BLE001 - protobuf's DecodeError, or make_ndarray's ValueError
        data = raw if isinstance(raw, bytes) else str(raw).encode()
        raise invalid_argument("Could not parse `serialized` as TensorProto, base64: "
                               + base64.b64encode(data).decode("ascii"))
    want = dtypes.as_dtype(out_type)
    if proto.dtype != want.as_datatype_enum:
        raise invalid_argument(f"Type mismatch between parsed tensor ({dtypes.as_dtype(proto.dtype).name}) "
                               f"and dtype ({want.name})")
    return np.array(value)


@register_op("DecodeJSONExample", inputs=("json_examples",), outputs=("binary_examples",),
             shape=lambda ins, attrs: [(dtypes.string, ins["json_examples"].shape)])
def decode_json_example(json_examples):
    """Each JSON-encoded ``Example`` (protobuf's JSON mapping: ``floatList``,
    ``int64List`` values as numbers or strings, ``bytesList`` values base64) as
    its binary serialization (map entries sorted by key; repeated numbers packed,
    where TF's writer leaves them unpacked: both decode to the same Example)."""
    json_format = protos.json_format  # protobuf's JSON mapping, loaded on use
    x = np.asarray(json_examples, dtype=object)
    out = np.empty(x.shape, dtype=object)
    for i, text in np.ndenumerate(x):
        msg = protos.example_pb2.Example()
        try:
            json_format.Parse(text.decode("utf-8") if isinstance(text, bytes) else str(text), msg)
        except (json_format.ParseError, ValueError, UnicodeDecodeError) as e:
            raise invalid_argument(f"Error while parsing JSON: {e}")
        out[i] = msg.SerializeToString(deterministic=True)
    return out
