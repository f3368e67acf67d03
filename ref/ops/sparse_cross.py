"""Feature crosses of sparse and dense columns (TF's sparse_cross_op.cc):
``SparseCross`` (hashed int64 ids or ``"_X_"``-joined strings) and
``SparseCrossV2`` (strings joined by a separator).

Row ``b`` of the output holds the cartesian product of row ``b``'s features of
every input, the last input varying fastest. Hashed ids, as TF's
``HashCrosser``: ``h = hash_key``, then for each column ``h =
FingerprintCat64(h, f)`` where ``f`` is ``Fingerprint64(s)`` for a string and the
int64 value itself for an integer; the id is ``h mod num_buckets`` (unsigned;
``mod 2**63 - 1`` when ``num_buckets`` is 0).
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops import farmhash
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape
from ref.ops.array import _shape_str

M64 = farmhash.M
_KMUL = 0xc6a4a7935bd1e995
_INT64_MAX = (1 << 63) - 1


def _shift_mix(v):
    return v ^ (v >> 47)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TF's ``FingerprintCat64``: two 64-bit fingerprints combined (not commutative)."""
    result = fp1 ^ _KMUL
    result ^= (_shift_mix((fp2 * _KMUL) & M64) * _KMUL) & M64
    result = (result * _KMUL) & M64
    result = (_shift_mix(result) * _KMUL) & M64
    return _shift_mix(result)


def _str(v):
    return v if isinstance(v, bytes) else str(v).encode("utf-8")


def _validate(indices, values, shapes, dense_inputs):
    n = len(indices)
    for i, ix in enumerate(indices):
        if ix.ndim != 2:
            raise invalid_argument(f"Input indices should be a matrix but received shape {_shape_str(ix.shape)} "
                                   f"at position {i}")
        if ix.shape[1] != 2:
            raise invalid_argument(f"Expected D2 of index to be 2 got {ix.shape[1]} at position {i}")
    if len(values) != n:
        raise invalid_argument(f"Expected {n} input values, got {len(values)}")
    for i, (ix, v) in enumerate(zip(indices, values)):
        if v.ndim != 1:
            raise invalid_argument(f"Input values should be a vector but received shape {_shape_str(v.shape)} "
                                   f"at position {i}")
        if ix.shape[0] != v.shape[0]:
            raise invalid_argument(f"Expected size of values to be {ix.shape[0]} got {v.shape[0]} at position {i}")
    if len(shapes) != n:
        raise invalid_argument(f"Expected {n} input shapes, got {len(shapes)}")
    for i, s in enumerate(shapes):
        if s.ndim != 1:
            raise invalid_argument(f"Input shapes should be a vector but received shape {_shape_str(s.shape)} "
                                   f"at position {i}")
        if s.shape[0] != 2:
            raise invalid_argument(f"shape should imply a 2D tensor, but got {_shape_str(s.shape)} at position {i}")
    for i, d in enumerate(dense_inputs):
        if d.ndim != 2:
            raise invalid_argument(f"Dense inputs should be a matrix but received shape {_shape_str(d.shape)} "
                                   f"at position {i}")
    batch = int(shapes[0][0]) if n else (dense_inputs[0].shape[0] if dense_inputs else 0)
    for i, s in enumerate(shapes):
        if int(s[0]) != batch:
            raise invalid_argument(f"Expected batch size {batch} got {int(s[0])} at position {i}")
    for i, d in enumerate(dense_inputs):
        if d.shape[0] != batch:
            raise invalid_argument(f"Expected batch size {batch} got {d.shape[0]} at dense tensor {i}")
    return batch


def _rows(indices, values, shapes, dense_inputs, feature):
    """Per batch row, the list of each column's features (sparse columns first,
    then dense), each feature mapped by ``feature``. Sparse rows are read as
    TF's kernel reads them: consecutive index rows whose batch index is ``b``."""
    indices = [np.asarray(x) for x in indices]
    values = [np.asarray(x) for x in values]
    shapes = [np.asarray(x) for x in shapes]
    dense_inputs = [np.asarray(x) for x in dense_inputs]
    batch = _validate(indices, values, shapes, dense_inputs)
    cursor = [0] * len(indices)
    rows = []
    for b in range(batch):
        cols = []
        for i, (ix, v) in enumerate(zip(indices, values)):
            start = cursor[i]
            while cursor[i] < ix.shape[0] and ix[cursor[i], 0] == b:
                cursor[i] += 1
            cols.append([feature(x) for x in v[start:cursor[i]]])
        for d in dense_inputs:
            cols.append([feature(x) for x in d[b]])
        rows.append(cols)
    return rows


def _product(cols):
    """The cartesian product of the columns' features, the last varying fastest."""
    if any(len(c) == 0 for c in cols) or not cols:
        return []
    out = [[]]
    for c in cols:
        out = [p + [x] for p in out for x in c]
    return out


def _assemble(rows, combine, out_dtype):
    crosses = [[combine(p) for p in _product(cols)] for cols in rows]
    total = sum(len(c) for c in crosses)
    width = max((len(c) for c in crosses), default=0)
    idx = np.zeros((total, 2), np.int64)
    vals = np.empty(total, dtype=object if out_dtype == dtypes.string else np.int64)
    k = 0
    for b, cs in enumerate(crosses):
        for j, v in enumerate(cs):
            idx[k] = (b, j)
            vals[k] = v
            k += 1
    return idx, vals, np.array([len(rows), width], np.int64)


def _cross_shape(out_type):
    def rule(ins, attrs):
        return [(dtypes.int64, TensorShape([None, 2])), (out_type(attrs), TensorShape([None])),
                (dtypes.int64, TensorShape([2]))]
    return rule


@register_op("SparseCross", inputs=("indices", "values", "shapes", "dense_inputs"),
             outputs=("output_indices", "output_values", "output_shape"),
             list_inputs={"indices": "N", "values": None, "shapes": "N", "dense_inputs": None},
             type_lists={"sparse_types": "values", "dense_types": "dense_inputs"},
             input_types={"indices": dtypes.int64, "shapes": dtypes.int64},
             attrs={"hashed_output": REQUIRED, "num_buckets": REQUIRED, "hash_key": REQUIRED, "out_type": REQUIRED,
                    "internal_type": REQUIRED},
             allowed={"out_type": (dtypes.int64, dtypes.string), "internal_type": (dtypes.int64, dtypes.string)},
             shape=_cross_shape(lambda attrs: dtypes.as_dtype(attrs["out_type"])))
def sparse_cross(indices, values, shapes, dense_inputs, hashed_output, num_buckets, hash_key, out_type,
                 internal_type, N=None, sparse_types=None, dense_types=None):
    """The crosses of row b's features of every input (sparse inputs first, then
    dense): ``"_X_"``-joined strings (integers written in decimal), or with
    ``hashed_output`` the ids ``FingerprintCat64`` chains from ``hash_key``
    (string features fingerprinted, integers taken as they are) mod ``num_buckets``."""
    if num_buckets < 0:
        raise invalid_argument(f"num_buckets must be >= 0, got {num_buckets}")
    hashed = bool(hashed_output)
    if hashed:
        def feature(x):
            return farmhash.fingerprint64(_str(x)) if isinstance(x, (bytes, str)) else int(x) & M64
        key = int(hash_key) & M64

        def combine(p):
            h = key
            for f in p:
                h = fingerprint_cat64(h, f)
            return h % num_buckets if num_buckets > 0 else h % _INT64_MAX
        return _assemble(_rows(indices, values, shapes, dense_inputs, feature), combine, dtypes.int64)
    return _assemble(_rows(indices, values, shapes, dense_inputs, _str), b"_X_".join, dtypes.string)


@register_op("SparseCrossV2", inputs=("indices", "values", "shapes", "dense_inputs", "sep"),
             outputs=("output_indices", "output_values", "output_shape"),
             list_inputs={"indices": "N", "values": None, "shapes": "N", "dense_inputs": None},
             type_lists={"sparse_types": "values", "dense_types": "dense_inputs"},
             input_types={"indices": dtypes.int64, "shapes": dtypes.int64, "sep": dtypes.string},
             shape=_cross_shape(lambda attrs: dtypes.string))
def sparse_cross_v2(indices, values, shapes, dense_inputs, sep, N=None, sparse_types=None, dense_types=None):
    """Each row's crosses as strings joined by the scalar ``sep`` (integers in decimal)."""
    s = np.asarray(sep, dtype=object)
    if s.ndim != 0:
        raise invalid_argument(f"Input separator should be a scalar. Received: {s!r}")
    return _assemble(_rows(indices, values, shapes, dense_inputs, _str), _str(s.item()).join, dtypes.string)
