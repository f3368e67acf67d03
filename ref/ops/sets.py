"""Set kernels: ``SetSize`` and the set operations between the last-dimension
sets of two tensors (``DenseToDenseSetOperation``, ``DenseToSparseSetOperation``,
``SparseToSparseSetOperation``), TF's set_kernels.

A rank-R input (R >= 2) holds one set per index of its first R-1 dimensions
(the "group"): the values along its last dimension (dense: every value, -1s
included; sparse: the stored values of that group). Both inputs must have the
same group shape. The result is a SparseTensor whose group g holds the sorted
result of the operation on the two sets of g (empty results store nothing);
its dense shape is the group shape plus the largest result set size.
``set_operation`` is ``"a-b"``, ``"b-a"``, ``"intersection"`` or ``"union"``
(case-insensitive).
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes, errors
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

SET_TYPES = (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.uint16, dtypes.string)
_OPERATIONS = ("a-b", "b-a", "intersection", "union")


def _shape_str(shape) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _group_shape(shape):
    shape = [int(d) for d in shape]
    if len(shape) < 2:
        raise invalid_argument(f"Shape {_shape_str(shape)} has rank {len(shape)} < 2")
    return shape[:-1]


def _operation(set_operation):
    op = set_operation.lower()
    if op not in _OPERATIONS:
        raise invalid_argument(f"Invalid set_operation {set_operation}.")
    return op


def _apply(op, a, b):
    if op == "a-b":
        return a - b
    if op == "b-a":
        return b - a
    if op == "intersection":
        return a & b
    return a | b


def _key(v):
    return v.item() if hasattr(v, "item") and not isinstance(v, (bytes, str)) else v


def _sparse_groups(indices, values, shape, validate_indices, what):
    """{group index tuple: set of values} of a sparse set tensor, checked as TF does."""
    indices = np.asarray(indices, np.int64)
    values = np.asarray(values)
    shape = np.asarray(shape, np.int64)
    if shape.ndim != 1:
        raise invalid_argument("Shape must be a 1D tensor.")
    if len(shape) < 2:
        raise invalid_argument(f"Invalid rank {len(shape)}.")
    if indices.ndim != 2 or indices.shape[1] != len(shape) or values.ndim != 1 \
            or indices.shape[0] != values.shape[0]:
        raise invalid_argument(f"{what}: indices {_shape_str(indices.shape)}, values {_shape_str(values.shape)} "
                               f"and shape {_shape_str(shape.shape)} do not form a SparseTensor")
    groups = {}
    prev = None
    for n, (row, v) in enumerate(zip(indices, values)):
        ix = tuple(int(i) for i in row)
        where = f"indices[{n}] = [{','.join(map(str, ix))}]"
        bad = [j for j, (i, d) in enumerate(zip(ix, shape)) if i < 0 or i >= d]
        if bad and validate_indices:
            raise invalid_argument(f"{where} is out of bounds: need 0 <= index < {_shape_str(shape)}")
        if bad:  # TF's CheckGroup, when indices are not validated first
            j = bad[0]
            raise errors.InternalError(None, None, f"indices[{n}, {j}] expected < {int(shape[j])}, got {ix[j]}.")
        if validate_indices and prev is not None and ix <= prev:
            if ix == prev:
                raise invalid_argument(f"{where} is repeated")
            raise invalid_argument(f"{where} is out of order. Many sparse ops require sorted indices.\n    Use "
                                   "`tf.sparse.reorder` to create a correctly ordered copy.\n\n")
        prev = ix
        groups.setdefault(ix[:-1], set()).add(_key(v))
    return groups, [int(d) for d in shape]


def _dense_groups(x):
    x = np.asarray(x)
    if x.ndim < 2:
        raise invalid_argument(f"Shape {_shape_str(x.shape)} has rank {x.ndim} < 2")
    flat = x.reshape(-1, x.shape[-1])
    return {tuple(int(i) for i in np.unravel_index(g, x.shape[:-1])): set(_key(v) for v in row)
            for g, row in enumerate(flat)}, list(x.shape)


def _result(op, groups1, shape1, groups2, shape2, dtype):
    g1, g2 = _group_shape(shape1), _group_shape(shape2)
    if g1 != g2:
        raise invalid_argument(f"Mismatched shapes {_shape_str(g1)} vs {_shape_str(g2)}")
    out = []
    for g in sorted(set(groups1) | set(groups2)):
        s = _apply(op, groups1.get(g, set()), groups2.get(g, set()))
        if s:
            out.append((tuple(int(i) for i in g), sorted(s)))
    width = max((len(s) for _, s in out), default=0)
    n = sum(len(s) for _, s in out)
    indices = np.zeros((n, len(g1) + 1), np.int64)
    np_dtype = object if dtype == dtypes.string else dtype.np
    values = np.empty(n, dtype=np_dtype)
    k = 0
    for g, s in out:
        for j, v in enumerate(s):
            indices[k, :-1] = g
            indices[k, -1] = j
            values[k] = v
            k += 1
    return indices, values, np.array(g1 + [width], np.int64)


def _set_rule(*rank_inputs):
    def rule(ins, attrs):
        rank = None
        for name in rank_inputs:
            spec = ins[name]
            if name.endswith("_shape"):
                d = spec.shape.as_list()[0] if spec.shape.ndims == 1 else None
            else:
                d = spec.shape.ndims
            if d is not None:
                if d < 2:
                    raise ValueError(f"Shape must be at least rank 2 but is rank {d} for '{attrs['_op_name']}'")
                rank = d
        dtype = ins[rank_inputs[0].replace("_shape", "_values") if rank_inputs[0].endswith("_shape")
                    else rank_inputs[0]].dtype
        return [(dtypes.int64, TensorShape([None, rank])), (dtype, TensorShape([None])),
                (dtypes.int64, TensorShape([rank]))]
    return rule


_ALLOWED = {"T": SET_TYPES}


@register_op("SetSize", inputs=("set_indices", "set_values", "set_shape"), outputs=("size",),
             attrs={"validate_indices": True}, type_attrs={"T": "set_values"}, allowed=_ALLOWED,
             shape=lambda ins, attrs: [(dtypes.int32, unknown_shape())])
def set_size(set_indices, set_values, set_shape, validate_indices=True):
    """size[g] = the number of distinct values of group g (the last dimension of
    the SparseTensor); int32 of shape ``set_shape[:-1]``."""
    groups, shape = _sparse_groups(set_indices, set_values, set_shape, validate_indices, "SetSize")
    out = np.zeros(shape[:-1], np.int32)
    for g, s in groups.items():
        out[g] = len(s)
    return out


@register_op("DenseToDenseSetOperation", inputs=("set1", "set2"),
             outputs=("result_indices", "result_values", "result_shape"),
             attrs={"set_operation": REQUIRED, "validate_indices": True}, type_attrs={"T": ("set1", "set2")},
             allowed=_ALLOWED, shape=_set_rule("set1", "set2"))
def dense_to_dense_set_operation(set1, set2, set_operation, validate_indices=True):
    """result[g] = sorted(op(set(set1[g, :]), set(set2[g, :]))) as a SparseTensor."""
    op = _operation(set_operation)
    (a, sa), (b, sb) = _dense_groups(set1), _dense_groups(set2)
    return _result(op, a, sa, b, sb, _dtype_of(set1))


@register_op("DenseToSparseSetOperation", inputs=("set1", "set2_indices", "set2_values", "set2_shape"),
             outputs=("result_indices", "result_values", "result_shape"),
             attrs={"set_operation": REQUIRED, "validate_indices": True},
             type_attrs={"T": ("set1", "set2_values")}, allowed=_ALLOWED, shape=_set_rule("set1", "set2_shape"))
def dense_to_sparse_set_operation(set1, set2_indices, set2_values, set2_shape, set_operation,
                                  validate_indices=True):
    """result[g] = sorted(op(set(set1[g, :]), set2's values of group g)) as a SparseTensor."""
    op = _operation(set_operation)
    a, sa = _dense_groups(set1)
    b, sb = _sparse_groups(set2_indices, set2_values, set2_shape, validate_indices, "DenseToSparseSetOperation")
    return _result(op, a, sa, b, sb, _dtype_of(set1))


@register_op("SparseToSparseSetOperation",
             inputs=("set1_indices", "set1_values", "set1_shape", "set2_indices", "set2_values", "set2_shape"),
             outputs=("result_indices", "result_values", "result_shape"),
             attrs={"set_operation": REQUIRED, "validate_indices": True},
             type_attrs={"T": ("set1_values", "set2_values")}, allowed=_ALLOWED,
             shape=_set_rule("set1_shape", "set2_shape"))
def sparse_to_sparse_set_operation(set1_indices, set1_values, set1_shape, set2_indices, set2_values, set2_shape,
                                   set_operation, validate_indices=True):
    """result[g] = sorted(op(set1's values of group g, set2's values of group g)) as a SparseTensor."""
    op = _operation(set_operation)
    a, sa = _sparse_groups(set1_indices, set1_values, set1_shape, validate_indices, "SparseToSparseSetOperation")
    b, sb = _sparse_groups(set2_indices, set2_values, set2_shape, validate_indices, "SparseToSparseSetOperation")
    return _result(op, a, sa, b, sb, _dtype_of(set1_values))


def _dtype_of(x):
    x = np.asarray(x)
    return dtypes.string if x.dtype == object or x.dtype.kind in "SU" else dtypes.as_dtype(x.dtype)
