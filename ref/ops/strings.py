"""String kernels: splitting, substrings, regular-expression replacement,
``DecodeCompressed``, ``StringLength`` / ``StringLower`` / ``StringUpper`` /
``StringStrip`` / ``ReduceJoin``, the hash buckets (``StringToHashBucket``, ``...Fast``,
``...Strong``) that vocabulary tables use for out-of-vocabulary keys,
``Fingerprint`` (farmhash64 of each row's bytes) and ``AsString``.

* ``StringToHashBucketFast``: farmhash ``Fingerprint64(s) mod num_buckets``;
* ``StringToHashBucket``: TensorFlow's own ``Hash64`` (MurmurHash64A, seed
  0xDECAFCAFFE) ``mod num_buckets``;
* ``StringToHashBucketStrong``: ``SipHash-2-4(key, s) mod num_buckets``.
"""
from __future__ import annotations

import base64
import re
import zlib

import numpy as np

from ref.types import dtypes, errors
from ref.ops import farmhash
from ref.ops.reduction import _reduction_shape
from ref.ops.registry import REQUIRED, broadcast_rule, invalid_argument, register_op, require_rank
from ref.types.shapes import TensorShape


def _dtype_of(x) -> dtypes.DType:
    x = np.asarray(x)
    return dtypes.string if x.dtype == object or x.dtype.kind in "SU" else dtypes.as_dtype(x.dtype)


def _text(v):
    if isinstance(v, np.ndarray) and v.ndim == 0:
        v = v.item()
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else v


def _bytes(v):
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


def _same_shape(ins, attrs):
    return [(dtypes.int64, ins["input"].shape)]


@register_op("StringToHashBucket", inputs=("string_tensor",), outputs=("output",),
             attrs={"num_buckets": REQUIRED}, shape=lambda ins, attrs: [(dtypes.int64, ins["string_tensor"].shape)])
def string_to_hash_bucket(string_tensor, num_buckets):
    """output = Hash64(string_tensor) mod num_buckets (TF's own MurmurHash64A; int64)."""
    if num_buckets < 1:
        raise invalid_argument(f"num_buckets must be >= 1, got {num_buckets}")
    x = np.asarray(string_tensor, dtype=object)
    out = np.array([farmhash.tf_hash64(_bytes(s)) % num_buckets for s in x.reshape(-1)], dtype=np.int64)
    return out.reshape(x.shape)


@register_op("StringToHashBucketFast", inputs=("input",), outputs=("output",), attrs={"num_buckets": REQUIRED},
             shape=_same_shape)
def string_to_hash_bucket_fast(input, num_buckets):
    """output = Fingerprint64(input) mod num_buckets (farmhash; int64)."""
    if num_buckets < 1:
        raise invalid_argument(f"num_buckets must be >= 1, got {num_buckets}")
    x = np.asarray(input, dtype=object)
    out = np.array([farmhash.fingerprint64(_bytes(s)) % num_buckets for s in x.reshape(-1)], dtype=np.int64)
    return out.reshape(x.shape)


def _fingerprint_shape(ins, attrs):
    data, method = ins["data"], ins["method"]
    if data.shape.rank is not None and data.shape.rank < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {data.shape.rank} for "
                         f"'{attrs['_op_name']}' (op: 'Fingerprint') with input shapes: {data.shape}, {method.shape}.")
    size = None
    if method.value is not None:
        if _text(method.value) != "farmhash64":
            raise ValueError(f"Unsupported method: {_text(method.value)}")
        size = 8
    batch = data.shape[0] if data.shape.rank is not None else None
    return [(dtypes.uint8, TensorShape([batch, size]))]


def _fp_bytes(v: int) -> bytes:
    return v.to_bytes(8, "little")


@register_op("Fingerprint", inputs=("data", "method"), outputs=("fingerprint",), type_attrs={"T": "data"},
             shape=_fingerprint_shape)
def fingerprint(data, method):
    """fingerprint[i] = the 8 little-endian bytes of farmhash ``Fingerprint64``
    of row ``data[i]``'s bytes (numbers: their memory, C order); string rows of
    more than one string fingerprint the concatenated fingerprints of the strings."""
    method = np.asarray(method)
    if method.ndim:
        raise invalid_argument(f"`method` should be a scalar string: [{','.join(map(str, method.shape))}]")
    if _text(method) != "farmhash64":
        raise invalid_argument(f"Unsupported fingerprint method: {_text(method)}")
    x = np.asarray(data)
    if x.ndim < 1:
        raise invalid_argument("`data` should have at least one dimension: []")
    rows = x.reshape(x.shape[0], -1) if x.shape[0] else x.reshape(0, 0)
    if _dtype_of(x) == dtypes.string:
        def row_bytes(row):
            if row.shape[0] == 1:
                return _bytes(row[0])
            return b"".join(_fp_bytes(farmhash.fingerprint64(_bytes(s))) for s in row)
    else:
        def row_bytes(row):
            return np.ascontiguousarray(row).tobytes()
    out = b"".join(_fp_bytes(farmhash.fingerprint64(row_bytes(r))) for r in rows)
    return np.frombuffer(out, np.uint8).reshape(x.shape[0], 8).copy()


def _siphash24(k0, k1, data):
    """SipHash-2-4 of ``data`` with the 128-bit key (k0, k1), as an unsigned int."""
    M = farmhash.M

    def rotl(x, b):
        return ((x << b) | (x >> (64 - b))) & M
    v0, v1, v2, v3 = k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d, k0 ^ 0x6c7967656e657261, \
        k1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, n):
        for _ in range(n):
            v0 = (v0 + v1) & M; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)  # noqa: E702
            v2 = (v2 + v3) & M; v3 = rotl(v3, 16); v3 ^= v2  # noqa: E702
            v0 = (v0 + v3) & M; v3 = rotl(v3, 21); v3 ^= v0  # noqa: E702
            v2 = (v2 + v1) & M; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)  # noqa: E702
        return v0, v1, v2, v3
    n = len(data)
    tail = data[n - n % 8:] + bytes(7 - n % 8) + bytes([n & 0xff])
    blocks = data[:n - n % 8] + tail
    for i in range(0, len(blocks), 8):
        m = int.from_bytes(blocks[i:i + 8], "little")
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    v2 ^= 0xff
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


@register_op("StringToHashBucketStrong", inputs=("input",), outputs=("output",),
             attrs={"num_buckets": REQUIRED, "key": REQUIRED}, shape=_same_shape)
def string_to_hash_bucket_strong(input, num_buckets, key):
    """output = SipHash-2-4(key, input) mod num_buckets (int64)."""
    if num_buckets < 1:
        raise invalid_argument(f"num_buckets must be >= 1, got {num_buckets}")
    if len(key) != 2:
        raise invalid_argument(f"Key must have 2 elements, got {len(key)}")
    k0, k1 = (int(k) & farmhash.M for k in key)
    x = np.asarray(input, dtype=object)
    out = np.array([_siphash24(k0, k1, _bytes(s)) % num_buckets for s in x.reshape(-1)], dtype=np.int64)
    return out.reshape(x.shape)


@register_op("AsString", inputs=("input",), outputs=("output",), type_attrs={"T": ("input",)},
             attrs={"precision": -1, "scientific": False, "shortest": False, "width": -1, "fill": ""},
             shape=lambda ins, attrs: [(dtypes.string, ins["input"].shape)])
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill=""):
    """Each element formatted as text: C's ``%d`` for integers, ``%f`` (``%e``
    with ``scientific``, ``%g`` with ``shortest``; ``precision`` digits) for
    floats, ``true``/``false`` for bools, padded to ``width`` with ``fill``
    (a space or ``0``)."""
    x = np.asarray(input)
    if fill not in ("", " ", "0"):
        raise invalid_argument(f"Fill argument not supported: \"{fill}\"")
    if scientific and shortest:
        raise invalid_argument("Cannot select both scientific and shortest notation")
    spec = "%" + ("0" if fill == "0" else "") + (str(width) if width > -1 else "")
    if x.dtype.kind == "f":
        spec += (f".{precision}" if precision > -1 else "") + ("e" if scientific else "g" if shortest else "f")
    elif x.dtype.kind in "iu":
        spec += "d"
    elif x.dtype.kind == "b":
        spec += "s"
    elif x.dtype == object:
        spec += "s"
    else:
        raise invalid_argument(f"Value for attr 'T' of {_dtype_of(x).name} is not in the list of allowed values")
    out = np.empty(x.shape, dtype=object)
    for ix, v in np.ndenumerate(x):
        if x.dtype.kind == "b":
            v = "true" if v else "false"
        elif x.dtype == object:
            v = _text(v)
        elif x.dtype.kind == "f":
            v = float(v)
        else:
            v = int(v)
        s = spec % v
        if x.dtype.kind == "f" and s.lstrip("-").lower() in ("inf", "nan"):
            s = s.lower()
        out[ix] = s.encode()
    return out


# --- splitting, substrings, regular-expression replacement -----------------------------------------------

def _split_shape(ins, attrs):
    require_rank(ins, attrs, input=1)
    return [(dtypes.int64, TensorShape([None, 2])), (dtypes.string, TensorShape([None])),
            (dtypes.int64, TensorShape([2]))]


def _sparse_rows(rows):
    """(indices, values, dense_shape) of a 2-D SparseTensor whose row ``i`` holds ``rows[i]``."""
    indices = [(i, j) for i, r in enumerate(rows) for j in range(len(r))]
    values = np.empty(len(indices), dtype=object)
    values[:] = [t for r in rows for t in r]
    width = max((len(r) for r in rows), default=0)
    return (np.array(indices, dtype=np.int64).reshape(-1, 2), values, np.array([len(rows), width], dtype=np.int64))


def _vector(x, what):
    x = np.asarray(x, dtype=object)
    if x.ndim != 1:
        raise invalid_argument(f"{what} must be a vector, got shape: {_shape_text(x.shape)}")
    return [_bytes(s) for s in x]


def _scalar(x, what):
    x = np.asarray(x, dtype=object)
    if x.ndim != 0:
        raise invalid_argument(f"{what} must be a scalar, got shape: {_shape_text(x.shape)}")
    return _bytes(x.item())


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


@register_op("StringSplit", inputs=("input", "delimiter"), outputs=("indices", "values", "shape"),
             attrs={"skip_empty": True}, input_types={"input": dtypes.string, "delimiter": dtypes.string},
             shape=_split_shape)
def string_split(input, delimiter, skip_empty=True):
    """Each string of the vector ``input`` split at every byte that occurs in
    ``delimiter`` (a set of one-byte delimiters; empty: into single bytes), the
    empty pieces dropped when ``skip_empty``; a SparseTensor ``[batch, max tokens]``."""
    strings = _vector(input, "input")
    sep = _scalar(delimiter, "delimiter")
    rows = []
    for s in strings:
        if not sep:
            rows.append([s[i:i + 1] for i in range(len(s))])
            continue
        pieces, start = [], 0
        for i, c in enumerate(s):
            if c in sep:
                pieces.append(s[start:i])
                start = i + 1
        pieces.append(s[start:])
        rows.append([p for p in pieces if p or not skip_empty] if s else [])  # TF: no token for b""
    return _sparse_rows(rows)


@register_op("StringSplitV2", inputs=("input", "sep"), outputs=("indices", "values", "shape"),
             attrs={"maxsplit": -1}, input_types={"input": dtypes.string, "sep": dtypes.string}, shape=_split_shape)
def string_split_v2(input, sep, maxsplit=-1):
    """Python's ``str.split``: each string split at ``sep`` (empty pieces kept),
    or, for an empty ``sep``, at runs of ASCII whitespace (no empty pieces); at
    most ``maxsplit`` splits when it is positive."""
    strings = _vector(input, "input")
    s_ep = _scalar(sep, "sep")
    n = maxsplit if maxsplit > 0 else -1
    rows = [s.split(s_ep, n) if s_ep else s.split(None, n) for s in strings]
    return _sparse_rows(rows)


def _utf8_starts(s):
    """Byte offsets of the UTF-8 characters of ``s`` (continuation bytes are 0b10xxxxxx)."""
    return [i for i, c in enumerate(s) if c & 0xC0 != 0x80]


def _substr_one(s, pos, length, unit, index):
    if unit == "BYTE":
        p = pos + len(s) if pos < 0 else pos
        if not 0 <= p <= len(s):
            raise invalid_argument(f"pos {pos} out of range for string b'{s.decode('utf-8', 'replace')}' "
                                   f"at index {index}")
        return s[p:] if length < 0 else s[p:p + length]
    starts = _utf8_starts(s) + [len(s)]
    n = len(starts) - 1
    if pos >= 0:
        if pos > n:
            raise invalid_argument(f"pos {pos} out of range for string at index {index}")
        end = n if length < 0 else min(n, pos + length)
        return s[starts[pos]:starts[end]]
    end_char = n - max(0, -pos - length)
    begin_char = n + pos
    if begin_char < 0 or end_char < 0:
        raise invalid_argument(f"pos {pos} out of range for string at index {index}")
    return s[starts[begin_char]:starts[max(end_char, begin_char)]]


def _substr_shape(ins, attrs):
    a, b = ins["pos"].shape, ins["len"].shape
    if not a.is_compatible_with(b):
        raise ValueError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}" if a.ndims != b.ndims
                         else f"Dimensions must be equal, but are {a} and {b}")
    [(_, shape)] = broadcast_rule("input", "pos")(ins, attrs)
    return [(dtypes.string, shape)]  # strings out, whatever the rule's dtype


@register_op("Substr", inputs=("input", "pos", "len"), outputs=("output",), attrs={"unit": "BYTE"},
             type_attrs={"T": ("pos", "len")}, allowed={"T": (dtypes.int32, dtypes.int64)},
             input_types={"input": dtypes.string}, shape=_substr_shape)
def substr(input, pos, len, unit="BYTE"):
    """``input[pos:pos + len]`` per element, in bytes or (``UTF8_CHAR``) in
    characters; a negative ``pos`` counts from the end; ``len`` past the end
    stops there; ``pos`` beyond either end is an InvalidArgumentError.
    ``pos``/``len`` share one shape and broadcast against ``input``."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise invalid_argument(f"unit must be one of BYTE, UTF8_CHAR, got {unit}")
    pos, ln = np.asarray(pos), np.asarray(len)
    if pos.shape != ln.shape:
        raise invalid_argument(f"pos and len should have the same shape, got: {_shape_text(pos.shape)} vs. "
                               f"{_shape_text(ln.shape)}")
    x = np.asarray(input, dtype=object)
    try:
        shape = np.broadcast_shapes(x.shape, pos.shape)
    except ValueError:
        raise invalid_argument(f"Incompatible shapes: {_shape_text(x.shape)} vs. {_shape_text(pos.shape)}") from None
    xs, ps, ls = (np.broadcast_to(a, shape).reshape(-1) for a in (x, pos, ln))
    out = np.empty(xs.size, dtype=object)
    for i in range(xs.size):
        out[i] = _substr_one(_bytes(xs[i]), int(ps[i]), int(ls[i]), unit, i)
    return out.reshape(shape)


def _compile_re2(pattern):
    """``pattern`` (RE2 syntax) as a Python ``re`` pattern over text: ASCII
    classes (``\\w``, ``\\d``, ``\\s``, ``\\b`` as RE2's), ``.`` one character."""
    try:
        return re.compile(pattern.decode("utf-8", "surrogateescape"), re.ASCII)
    except re.error as e:
        raise invalid_argument(f"Invalid pattern: {pattern.decode('utf-8', 'replace')}, error: {e}") from None


def _rewrite(rewrite, m, groups):
    """RE2's Rewrite: ``\\N`` the N-th group (``\\0`` the match), ``\\\\`` a backslash;
    any other escape ends the rewrite there (RE2 logs it and stops)."""
    out, i = [], 0
    while i < len(rewrite):
        c = rewrite[i]
        if c != "\\":
            out.append(c)
        elif i + 1 < len(rewrite) and rewrite[i + 1].isdigit():
            out.append(m.group(int(rewrite[i + 1])) or "")
            i += 1
        elif i + 1 < len(rewrite) and rewrite[i + 1] == "\\":
            out.append("\\")
            i += 1
        else:
            break
        i += 1
    return "".join(out)


def _max_group(rewrite):
    return max((int(d) for d in re.findall(r"\\(\d)", rewrite.replace("\\\\", ""))), default=0)


def _re2_replace(regex, s, rewrite, replace_global):
    """RE2::Replace (first match) / RE2::GlobalReplace (every non-overlapping
    match; an empty match right where the previous one ended is skipped by one
    character), the string unchanged when ``rewrite`` names a missing group."""
    if _max_group(rewrite) > regex.groups:
        return s
    out, p, count, lastend = [], 0, 0, None
    while p <= len(s):
        m = regex.search(s, p)
        if m is None:
            break
        out.append(s[p:m.start()])
        if m.start() == m.end() and m.start() == lastend:
            out.append(s[p:p + 1])
            p += 1
            continue
        out.append(_rewrite(rewrite, m, regex.groups))
        p = lastend = m.end()
        count += 1
        if not replace_global:
            break
    if count == 0:
        return s
    out.append(s[p:])
    return "".join(out)


def _regex_replace(input, pattern, rewrite, replace_global):
    regex = _compile_re2(pattern)
    text = rewrite.decode("utf-8", "surrogateescape")
    x = np.asarray(input, dtype=object)
    out = np.empty(x.shape, dtype=object)
    for ix, v in np.ndenumerate(x):
        out[ix] = _re2_replace(regex, _bytes(v).decode("utf-8", "surrogateescape"), text,
                               replace_global).encode("utf-8", "surrogateescape")
    return out


@register_op("RegexReplace", inputs=("input", "pattern", "rewrite"), outputs=("output",),
             attrs={"replace_global": True},
             input_types={"input": dtypes.string, "pattern": dtypes.string, "rewrite": dtypes.string},
             shape=lambda ins, attrs: [(dtypes.string, ins["input"].shape)])
def regex_replace(input, pattern, rewrite, replace_global=True):
    """Each string with the matches of the RE2 ``pattern`` replaced by ``rewrite``
    (``\\1``..``\\9`` insert groups). Python's ``re`` stands in for RE2: the common
    syntax agrees; RE2-only syntax (``\\pN``, ``\\C``, ``\\Q..\\E``) is rejected and
    Python-only syntax (look-around, back-references) accepted where RE2 would
    reject the pattern."""
    p = np.asarray(pattern, dtype=object)
    if p.ndim != 0:
        raise invalid_argument(f"Pattern must be scalar, but received {_shape_text(p.shape)}")
    r = np.asarray(rewrite, dtype=object)
    if r.ndim != 0:
        raise invalid_argument(f"Rewrite must be scalar, but received {_shape_text(r.shape)}")
    return _regex_replace(input, _bytes(p.item()), _bytes(r.item()), replace_global)


@register_op("StaticRegexReplace", inputs=("input",), outputs=("output",),
             attrs={"pattern": REQUIRED, "rewrite": REQUIRED, "replace_global": True},
             input_types={"input": dtypes.string}, shape=lambda ins, attrs: [(dtypes.string, ins["input"].shape)])
def static_regex_replace(input, pattern, rewrite, replace_global=True):
    """``RegexReplace`` with the pattern and rewrite as attrs (what
    ``tf.strings.regex_replace`` builds for Python strings)."""
    return _regex_replace(input, _bytes(pattern), _bytes(rewrite), replace_global)


@register_op("DecodeCompressed", inputs=("bytes",), outputs=("output",), attrs={"compression_type": ""},
             input_types={"bytes": dtypes.string}, shape=lambda ins, attrs: [(dtypes.string, ins["bytes"].shape)])
def decode_compressed(bytes, compression_type=""):  # noqa: A002  (TF's input name)
    """Each string inflated from a zlib (``ZLIB``) or gzip (``GZIP``) stream, or
    kept (``""``); a corrupt stream is a DataLossError. TF's ``ZSTD`` needs a
    zstd decoder Python's standard library lacks: UnimplementedError."""
    if compression_type not in ("", "ZLIB", "GZIP", "ZSTD"):
        raise invalid_argument("Only ZLIB, ZSTD, GZIP or NONE are supported compressions")
    if compression_type == "ZSTD":
        raise errors.UnimplementedError(None, None, "ZSTD decompression is not available in ref")
    x = np.asarray(bytes, dtype=object)
    out = np.empty(x.shape, dtype=object)
    wbits = zlib.MAX_WBITS + (16 if compression_type == "GZIP" else 0)
    for ix, v in np.ndenumerate(x):
        data = _bytes(v)
        if compression_type:
            d = zlib.decompressobj(wbits)
            try:
                data = d.decompress(data) + d.flush()
            except zlib.error as e:
                raise errors.DataLossError(None, None, f"inflate() failed: {e}") from None
        out[ix] = data
    return out


# ---------------------------------------------------------------------------
# Element-wise transforms and ReduceJoin (tf.strings.length / lower / upper /
# strip / reduce_join)
# ---------------------------------------------------------------------------

def _string_map(input, fn, out_dtype=object):
    x = np.asarray(input, dtype=object)
    out = np.empty(x.shape, dtype=out_dtype)
    flat, src = out.reshape(-1), x.reshape(-1)
    for i in range(flat.size):
        flat[i] = fn(_bytes(src[i]))
    return out


def _string_shape(ins, attrs):
    return [(dtypes.string, ins["input"].shape)]


@register_op("StringLength", inputs=("input",), outputs=("output",), attrs={"unit": "BYTE"},
             shape=lambda ins, attrs: [(dtypes.int32, ins["input"].shape)])
def string_length(input, unit="BYTE"):
    """The length of each string (int32): its bytes, or with ``unit="UTF8_CHAR"``
    its UTF-8 characters (the bytes that are not continuation bytes 10xxxxxx)."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise invalid_argument(f"unit must be BYTE or UTF8_CHAR, got {unit}")
    if unit == "BYTE":
        return _string_map(input, len, np.int32)
    return _string_map(input, lambda s: sum(1 for b in s if b & 0xC0 != 0x80), np.int32)


def _case(convert, encoding):
    if encoding not in ("", "utf-8"):
        raise invalid_argument(f"Invalid encoding: \"{encoding}\"")
    if encoding == "":  # ASCII letters only, other bytes kept (bytes.lower/upper do exactly that)
        return lambda s: convert(s)
    return lambda s: convert(s.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


@register_op("StringLower", inputs=("input",), outputs=("output",), attrs={"encoding": ""}, shape=_string_shape)
def string_lower(input, encoding=""):
    """Each string in lower case: ASCII letters only (``encoding=""``), or every
    letter of the UTF-8 text (``encoding="utf-8"``)."""
    return _string_map(input, _case(lambda s: s.lower(), encoding))


@register_op("StringUpper", inputs=("input",), outputs=("output",), attrs={"encoding": ""}, shape=_string_shape)
def string_upper(input, encoding=""):
    """Each string in upper case (ASCII letters, or UTF-8 text with ``encoding="utf-8"``)."""
    return _string_map(input, _case(lambda s: s.upper(), encoding))


@register_op("StringStrip", inputs=("input",), outputs=("output",), shape=_string_shape)
def string_strip(input):
    """Each string without its leading and trailing ASCII whitespace (space,
    ``\\t \\n \\v \\f \\r``)."""
    return _string_map(input, lambda s: s.strip(b" \t\n\v\f\r"))


def _reduce_join_shape(ins, attrs):
    return _reduction_shape({"input": ins["inputs"], "axis": ins["reduction_indices"]},
                            attrs, dtype=dtypes.string)


@register_op("ReduceJoin", inputs=("inputs", "reduction_indices"), outputs=("output",),
             attrs={"keep_dims": False, "separator": ""}, shape=_reduce_join_shape)
def reduce_join(inputs, reduction_indices, keep_dims=False, separator=""):
    """Joins the strings along ``reduction_indices`` with ``separator``. The
    order of each joined group: the *first* listed axis varies fastest (TF's
    kernel), so the default ``[rank-1, ..., 0]`` joins in row-major order."""
    x = np.asarray(inputs, dtype=object)
    ndim = x.ndim
    axes = [int(a) for a in np.asarray(reduction_indices).reshape(-1)]
    reduced = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise errors.OutOfRangeError(None, None,
                                         f"Invalid reduction dimension {a} for input with {ndim} dimension(s)")
        if a % ndim in reduced:
            raise invalid_argument(f"Duplicate reduction dimension {a}")
        reduced.append(a % ndim)
    kept = [d for d in range(ndim) if d not in reduced]
    order = kept + reduced[::-1]  # the last of these varies fastest
    moved = np.transpose(x, order).reshape([x.shape[d] for d in kept] + [-1]) if x.size else None
    sep = _bytes(separator)
    out_shape = [1 if d in reduced else x.shape[d] for d in range(ndim)] if keep_dims else \
        [x.shape[d] for d in kept]
    out = np.empty(int(np.prod([x.shape[d] for d in kept], dtype=np.int64)), dtype=object)
    rows = moved.reshape(out.size, -1) if moved is not None else np.empty((out.size, 0), dtype=object)
    for i in range(out.size):
        out[i] = sep.join(_bytes(s) for s in rows[i])
    return out.reshape(out_shape)


@register_op("EncodeBase64", inputs=("input",), outputs=("output",), attrs={"pad": False},
             input_types={"input": dtypes.string}, shape=lambda ins, attrs: [(dtypes.string, ins["input"].shape)])
def encode_base64(input, pad=False):  # noqa: A002  (TF's input name)
    """Each string in web-safe base64 (RFC 4648 section 5: ``-`` and ``_`` for
    ``+`` and ``/``), with ``=`` padding only when ``pad``."""
    x = np.asarray(input, dtype=object)
    out = [base64.urlsafe_b64encode(_bytes(s)) for s in x.reshape(-1)]
    if not pad:
        out = [s.rstrip(b"=") for s in out]
    return np.array(out, dtype=object).reshape(x.shape)


@register_op("DecodeBase64", inputs=("input",), outputs=("output",),
             input_types={"input": dtypes.string}, shape=lambda ins, attrs: [(dtypes.string, ins["input"].shape)])
def decode_base64(input):  # noqa: A002  (TF's input name)
    """Each web-safe base64 string decoded, padded or not; anything outside the
    alphabet, or a length of 1 mod 4, is an InvalidArgumentError."""
    x = np.asarray(input, dtype=object)
    out = []
    for s in x.reshape(-1):
        b = _bytes(s).rstrip(b"=")
        if len(b) % 4 == 1 or re.fullmatch(rb"[A-Za-z0-9_-]*", b) is None:
            raise invalid_argument(f"Invalid character found in base64 (or wrong length): {b[:64]!r}")
        out.append(base64.urlsafe_b64decode(b + b"=" * (-len(b) % 4)))
    return np.array(out, dtype=object).reshape(x.shape)
