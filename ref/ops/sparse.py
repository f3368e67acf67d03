"""Sparse kernels: ops on the (indices, values, dense_shape) triple of a SparseTensor.

A sparse tensor of rank R with N stored entries is three arrays: ``indices``
(int64 ``[N, R]``), ``values`` (``[N]``) and ``dense_shape`` (int64 ``[R]``).
"Canonical" (standard, row-major) order means the rows of ``indices`` are
lexicographically increasing; most ops expect it and ``SparseReorder``
produces it. The names, inputs and attrs are those of ``tf.raw_ops``; so are the
error messages of bad run-time input (InvalidArgumentError).

Serialization lives in :mod:`ref.ops.sparse_serialization`, the sparse
segment reductions (``SparseSegmentSum`` ...) in :mod:`ref.ops.sparse_segment`,
the reductions over a sparse tensor's axes (``SparseReduceSum``, ``SparseReduceMax``
and their ``...Sparse`` forms) in :mod:`ref.ops.sparse_reduction`.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, invalid_argument, register_op, require_rank, shape_input
from ref.types.shapes import TensorShape

_INDEX = (dtypes.int32, dtypes.int64)


def _shape_str(shape) -> str:
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


def _index_str(row) -> str:
    return ",".join(str(int(i)) for i in row)


def _dim(spec, i):
    """Static size of dimension ``i`` of a Spec (None if unknown)."""
    s = spec.shape
    return None if s.ndims is None or s.ndims <= i else s.as_list()[i]


def _const_vector(spec):
    return None if spec.value is None else [int(v) for v in np.asarray(spec.value).reshape(-1)]


def _lex_order(indices) -> np.ndarray:
    """The stable permutation that sorts the rows of ``indices`` lexicographically."""
    indices = np.asarray(indices)
    if indices.shape[0] == 0 or indices.shape[1] == 0:
        return np.arange(indices.shape[0])
    return np.lexsort(indices.T[::-1])


def _check_triple(indices, values, shape, what="Input"):
    if indices.ndim != 2:
        raise invalid_argument(f"{what} indices should be a matrix but received shape {_shape_str(indices.shape)}")
    if values.ndim != 1:
        raise invalid_argument(f"{what} values should be a vector but received shape {_shape_str(values.shape)}")
    if shape.ndim != 1:
        raise invalid_argument(f"{what} shape should be a vector but received shape {_shape_str(shape.shape)}")
    if indices.shape[0] != values.shape[0]:
        raise invalid_argument(f"Number of elements in {what.lower()} values ({values.shape[0]}) doesn't match "
                               f"number of rows of indices ({indices.shape[0]})")
    if indices.shape[1] != shape.shape[0]:
        raise invalid_argument(f"Input indices has rank {indices.shape[1]} but input shape has rank "
                               f"{shape.shape[0]}")


def _check_bounds(indices, shape):
    """TF's SparseTensor validation: every index within ``shape``."""
    bad = np.nonzero(np.any((indices < 0) | (indices >= shape), axis=1))[0] if indices.size else []
    if len(bad):
        i = int(bad[0])
        raise invalid_argument(f"indices[{i}] = [{_index_str(indices[i])}] is out of bounds: need 0 <= index < "
                               f"[{_index_str(shape)}]")


def _triple_shapes(ins, values_dtype, idx="input_indices", shp="input_shape"):
    """(indices, values, shape) output specs preserving the input rank when known."""
    rank = _dim(ins[idx], 1)
    if rank is None:
        rank = _dim(ins[shp], 0)
    return [(dtypes.int64, TensorShape([None, rank])), (values_dtype, TensorShape([None])),
            (dtypes.int64, TensorShape([rank]))]


# ---------------------------------------------------------------------------
# SparseToDense, SparseTensorDenseAdd
# ---------------------------------------------------------------------------

def _sparse_to_dense_shape(ins, attrs):
    out = ins["output_shape"]
    if out.shape.ndims is not None and out.shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {out.shape.ndims} for '{attrs['_op_name']}' "
                         f"(op: 'SparseToDense') with input shapes: {ins['sparse_indices'].shape}, {out.shape}.")
    dims = _const_vector(out)
    if dims is not None:
        shape = TensorShape([None if d < 0 else d for d in dims])
    else:
        shape = shape_input(out)
    return [(ins["sparse_values"].dtype, shape)]


@register_op("SparseToDense", inputs=("sparse_indices", "output_shape", "sparse_values", "default_value"),
             outputs=("dense",), attrs={"validate_indices": True},
             type_attrs={"T": ("sparse_values", "default_value"), "Tindices": ("sparse_indices", "output_shape")},
             allowed={"Tindices": _INDEX}, shape=_sparse_to_dense_shape)
def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value, validate_indices=True):
    """``dense = fill(output_shape, default_value); dense[sparse_indices[i]] = sparse_values[i]``
    (``sparse_values`` may be a scalar, used for every index). With
    ``validate_indices`` the indices must be in bounds, in canonical order and
    unique; without it, later duplicates win (out-of-bounds still raise)."""
    idx, shape = np.asarray(sparse_indices), np.asarray(output_shape)
    values, default = np.asarray(sparse_values), np.asarray(default_value)
    if idx.ndim > 2:
        raise invalid_argument(f"sparse_indices should be a scalar, vector, or matrix, got shape "
                               f"{_shape_str(idx.shape)}")
    num_elems = idx.shape[0] if idx.ndim > 0 else 1
    num_dims = idx.shape[1] if idx.ndim > 1 else 1
    if shape.ndim != 1:
        raise invalid_argument(f"output_shape must be rank 1, got shape {_shape_str(shape.shape)}")
    if not (values.ndim == 0 or (values.ndim == 1 and values.shape[0] == num_elems)):
        raise invalid_argument(f"sparse_values has incorrect shape {_shape_str(values.shape)}, should be [] or "
                               f"[{num_elems}]")
    if default.ndim != 0:
        raise invalid_argument("default_value should be a scalar.")
    if shape.shape[0] != num_dims:
        raise invalid_argument(f"output_shape has incorrect number of elements: {shape.shape[0]} should be: "
                               f"{num_dims}")
    if np.any(shape < 0):
        raise invalid_argument(f"Dimension -1 must be >= 0")
    idx = idx.reshape(num_elems, num_dims).astype(np.int64)
    if validate_indices:
        _check_bounds(idx, shape)
        if num_elems > 1:
            linear = np.ravel_multi_index(tuple(idx.T), tuple(int(d) for d in shape))
            step = np.diff(linear)
            bad = np.nonzero(step <= 0)[0]
            if len(bad):
                i = int(bad[0]) + 1
                if step[i - 1] == 0:
                    raise invalid_argument(f"indices[{i}] = [{_index_str(idx[i])}] is repeated")
                raise invalid_argument(f"indices[{i}] = [{_index_str(idx[i])}] is out of order. Many sparse ops "
                                       "require sorted indices.\n    Use `tf.sparse.reorder` to create a "
                                       "correctly ordered copy.\n\n")
    else:
        bad = np.nonzero(np.any((idx < 0) | (idx >= shape), axis=1))[0] if idx.size else []
        if len(bad):
            i = int(bad[0])
            raise invalid_argument(f"Indices are not valid (out of bounds).  Shape: [{_index_str(shape)}]")
    dense = np.full(tuple(int(d) for d in shape), default, dtype=default.dtype)
    if num_elems:
        dense[tuple(idx.T)] = values
    return dense


@register_op("SparseTensorDenseAdd", inputs=("a_indices", "a_values", "a_shape", "b"), outputs=("output",),
             type_attrs={"T": ("a_values", "b"), "Tindices": ("a_indices", "a_shape")},
             allowed={"T": dtypes.NUMBERS, "Tindices": _INDEX},
             shape=lambda ins, attrs: [(ins["b"].dtype, ins["b"].shape)])
def sparse_tensor_dense_add(a_indices, a_values, a_shape, b):
    """``output = b + A`` where A is the sparse (a_indices, a_values, a_shape);
    ``a_shape`` must equal ``b``'s shape; repeated indices add up."""
    idx, shape, b = np.asarray(a_indices), np.asarray(a_shape), np.asarray(b)
    if idx.ndim != 2 or np.ndim(a_values) != 1 or shape.ndim != 1:
        raise invalid_argument(f"Inputs must be a matrix, vector and vector: got a_indices "
                               f"{_shape_str(idx.shape)}, a_values {_shape_str(np.shape(a_values))}, a_shape "
                               f"{_shape_str(shape.shape)}")
    if tuple(shape) != b.shape:
        raise invalid_argument(f"Dimension mismatch: a_shape {_shape_str(shape)} vs. b.shape "
                               f"{_shape_str(b.shape)}")
    _check_bounds(idx, shape)
    out = b.copy()
    np.add.at(out, tuple(idx.T.astype(np.int64)), np.asarray(a_values))
    return out


# ---------------------------------------------------------------------------
# SparseReorder, SparseReshape, SparseConcat
# ---------------------------------------------------------------------------

@register_op("SparseReorder", inputs=("input_indices", "input_values", "input_shape"),
             outputs=("output_indices", "output_values"), type_attrs={"T": "input_values"},
             shape=lambda ins, attrs: [(dtypes.int64, ins["input_indices"].shape.merge_with(TensorShape([None, None]))
                                        if ins["input_indices"].shape.ndims is not None else TensorShape([None, None])),
                                       (ins["input_values"].dtype, ins["input_values"].shape)])
def sparse_reorder(input_indices, input_values, input_shape):
    """The same sparse tensor with its entries in canonical row-major order
    (a stable sort of the rows of ``input_indices``)."""
    idx, vals, shape = np.asarray(input_indices), np.asarray(input_values), np.asarray(input_shape)
    _check_triple(idx, vals, shape)
    order = _lex_order(idx)
    return idx[order].astype(np.int64), vals[order]


def _sparse_reshape_shape(ins, attrs):
    rank = _dim(ins["new_shape"], 0)
    return [(dtypes.int64, TensorShape([_dim(ins["input_indices"], 0), rank])),
            (dtypes.int64, TensorShape([rank]))]


@register_op("SparseReshape", inputs=("input_indices", "input_shape", "new_shape"),
             outputs=("output_indices", "output_shape"), shape=_sparse_reshape_shape)
def sparse_reshape(input_indices, input_shape, new_shape):
    """Same entries in the same order, each index re-expressed in ``new_shape``
    (row-major linear position preserved); at most one ``-1`` is inferred."""
    idx, shape, target = np.asarray(input_indices), np.asarray(input_shape), np.asarray(new_shape)
    if idx.ndim != 2:
        raise invalid_argument(f"Input indices should be a matrix but received shape {_shape_str(idx.shape)}")
    if shape.ndim != 1:
        raise invalid_argument(f"Input shape should be a vector but received shape {_shape_str(shape.shape)}")
    if target.ndim != 1:
        raise invalid_argument(f"Target shape should be a vector but received shape {_shape_str(target.shape)}")
    dense_size = int(np.prod(shape, dtype=np.int64))
    out, unknown, product = [int(d) for d in target], -1, 1
    for d, size in enumerate(out):
        if size == -1:
            if unknown != -1:
                raise invalid_argument(f"only one output dimension may be -1, not both {unknown} and {d}")
            unknown = d
        else:
            if size < 0:
                raise invalid_argument(f"size {d} must be non-negative, not {size}")
            product *= size
    in_str = "[" + ",".join(str(int(d)) for d in shape) + "]"
    if unknown != -1:
        if product <= 0:
            raise invalid_argument("reshape cannot infer the missing input size for an empty tensor unless all "
                                   "specified input sizes are non-zero")
        if dense_size % product:
            raise invalid_argument(f"Input to reshape is a SparseTensor with {dense_size} dense values, but the "
                                   f"requested shape requires a multiple of {product}. input_shape={in_str} "
                                   f"output_shape={_shape_str(out)}")
        out[unknown] = dense_size // product
    if int(np.prod(out, dtype=np.int64)) != dense_size:
        raise invalid_argument(f"Input to reshape is a tensor with {dense_size} dense values, but the requested "
                               f"shape has {int(np.prod(out, dtype=np.int64))}. input_shape={in_str} "
                               f"output_shape={_shape_str(out)}")
    out_shape = np.array(out, dtype=np.int64)
    if idx.shape[0] and (dense_size == 0 or idx.shape[1] == 0 or len(out) == 0) and dense_size != 1:
        raise invalid_argument(f"Input tensor has {idx.shape[0]} non zero elements but input shape ({in_str}) or "
                               f"output shape ({_shape_str(out)}) is empty")
    if idx.shape[0] == 0:
        return np.zeros((0, len(out)), np.int64), out_shape
    linear = np.ravel_multi_index(tuple(idx.T.astype(np.int64)), tuple(int(d) for d in shape)) if idx.shape[1] \
        else np.zeros(idx.shape[0], np.int64)
    new_idx = np.stack(np.unravel_index(linear, tuple(out)), axis=1) if out else np.zeros((idx.shape[0], 0))
    return new_idx.astype(np.int64), out_shape


def _sparse_concat_shape(ins, attrs):
    rank = None
    for s in ins["indices"]:
        rank = rank if rank is not None else _dim(s, 1)
    for s in ins["shapes"]:
        rank = rank if rank is not None else _dim(s, 0)
    rows = [_dim(s, 0) for s in ins["indices"]] + [_dim(s, 0) for s in ins["values"]]
    nnz = None if None in rows[:len(ins["indices"])] else sum(rows[:len(ins["indices"])])
    return [(dtypes.int64, TensorShape([nnz, rank])), (ins["values"][0].dtype, TensorShape([nnz])),
            (dtypes.int64, TensorShape([rank]))]


@register_op("SparseConcat", inputs=("indices", "values", "shapes"),
             outputs=("output_indices", "output_values", "output_shape"), attrs={"concat_dim": REQUIRED},
             list_inputs={"indices": "N", "values": "N", "shapes": "N"}, type_attrs={"T": "values"},
             shape=_sparse_concat_shape)
def sparse_concat(indices, values, shapes, concat_dim):
    """The inputs side by side along ``concat_dim`` (each input's indices there
    shifted by the sizes before it); the result in canonical order. All other
    dimensions must agree."""
    n = len(indices)
    for name, group, want in (("indices", indices, 2), ("values", values, 1), ("shapes", shapes, 1)):
        for i, a in enumerate(group):
            if np.ndim(a) != want:
                kind = "a matrix" if want == 2 else "a vector"
                raise invalid_argument(f"Input {name} should be {kind} but received shape "
                                       f"{_shape_str(np.shape(a))} at position {i}")
    first = np.asarray(shapes[0])
    rank = first.shape[0]
    dim = concat_dim + rank if concat_dim < 0 else concat_dim
    if not 0 <= dim < rank:
        raise invalid_argument(f"Concat dimension must be in range [{-rank}, {rank}), got {concat_dim}")
    out_shape = first.astype(np.int64).copy()
    for i in range(1, n):
        cur = np.asarray(shapes[i])
        if cur.shape[0] != rank:
            raise invalid_argument(f"Ranks of all input tensors must match: expected {rank} but got "
                                   f"{cur.shape[0]} at position {i}")
        for j in range(rank):
            if j != dim and cur[j] != first[j]:
                raise invalid_argument(f"Input shapes must match: expected {int(first[j])} for dimension {j} "
                                       f"but got {int(cur[j])} at position {i}")
        out_shape[dim] += cur[dim]
    parts, offset = [], 0
    for i in range(n):
        idx = np.asarray(indices[i]).astype(np.int64).copy()
        # each input sorted with concat_dim first, as TF's kernel does before joining
        order_cols = [dim] + [j for j in range(rank) if j != dim]
        if idx.shape[0]:
            idx = idx[_lex_order(idx[:, order_cols])]
            perm = _lex_order(np.asarray(indices[i])[:, order_cols])
        else:
            perm = np.arange(0)
        idx[:, dim] += offset
        offset += int(np.asarray(shapes[i])[dim])
        parts.append((idx, np.asarray(values[i])[perm]))
    all_idx = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, rank), np.int64)
    all_vals = np.concatenate([p[1] for p in parts])
    order = _lex_order(all_idx)
    return all_idx[order].reshape(-1, rank), all_vals[order], out_shape


# ---------------------------------------------------------------------------
# SparseSlice (+grad), SparseSplit
# ---------------------------------------------------------------------------

def _slice(idx, vals, shape, start, size):
    """(indices, values, shape) of the entries in the box [start, start + size), shifted to it."""
    shape = shape.astype(np.int64)
    start, size = start.astype(np.int64), size.astype(np.int64)
    end = np.minimum(start + size, shape)
    out_shape = np.maximum(end - start, 0)
    keep = np.all((idx >= start) & (idx < end), axis=1) if idx.shape[0] else np.zeros(0, bool)
    return (idx[keep] - start).astype(np.int64).reshape(-1, shape.shape[0]), vals[keep], out_shape, keep


@register_op("SparseSlice", inputs=("indices", "values", "shape", "start", "size"),
             outputs=("output_indices", "output_values", "output_shape"), type_attrs={"T": "values"},
             shape=lambda ins, attrs: _triple_shapes(ins, ins["values"].dtype, "indices", "shape"))
def sparse_slice(indices, values, shape, start, size):
    """The entries within ``[start, start + size)`` (clipped to ``shape``),
    their indices relative to ``start``; ``output_shape`` is the clipped size."""
    idx, vals, shp = np.asarray(indices), np.asarray(values), np.asarray(shape)
    start, size = np.asarray(start), np.asarray(size)
    _check_triple(idx, vals, shp)
    if start.ndim != 1 or size.ndim != 1:
        raise invalid_argument(f"Input start and size should be vectors but received shapes "
                               f"{_shape_str(start.shape)} and {_shape_str(size.shape)}")
    if start.shape[0] != shp.shape[0] or size.shape[0] != shp.shape[0]:
        raise invalid_argument(f"Expected start and size to have {shp.shape[0]} elements, got "
                               f"{start.shape[0]} and {size.shape[0]}")
    out_idx, out_val, out_shape, _ = _slice(idx, vals, shp, start, size)
    return out_idx, out_val, out_shape


def _slice_grad_shape(ins, attrs):
    require_rank(ins, attrs, backprop_val_grad=1, input_indices=2, input_start=1, output_indices=2)
    return [(ins["backprop_val_grad"].dtype, TensorShape([_dim(ins["input_indices"], 0)]))]


@register_op("SparseSliceGrad", inputs=("backprop_val_grad", "input_indices", "input_start", "output_indices"),
             outputs=("val_grad",), type_attrs={"T": "backprop_val_grad"}, allowed={"T": dtypes.NUMBERS},
             shape=_slice_grad_shape)
def sparse_slice_grad(backprop_val_grad, input_indices, input_start, output_indices):
    """The sliced values' gradients back at the input entries they came from (0 elsewhere)."""
    g, idx = np.asarray(backprop_val_grad), np.asarray(input_indices)
    start, out_idx = np.asarray(input_start).astype(np.int64), np.asarray(output_indices)
    pos = {tuple(r): k for k, r in enumerate(out_idx.astype(np.int64) + start)}
    out = np.zeros(idx.shape[0], dtype=g.dtype)
    for i, r in enumerate(idx.astype(np.int64)):
        k = pos.get(tuple(r))
        if k is not None:
            out[i] = g[k]
    return out


def _sparse_split_shape(ins, attrs):
    n = attrs["num_split"]
    triple = _triple_shapes(ins, ins["values"].dtype, "indices", "shape")
    return [triple[0]] * n + [triple[1]] * n + [triple[2]] * n


@register_op("SparseSplit", inputs=("split_dim", "indices", "values", "shape"), outputs=("*outputs",),
             attrs={"num_split": REQUIRED}, type_attrs={"T": "values"}, shape=_sparse_split_shape,
             input_types={"split_dim": dtypes.int64})
def sparse_split(split_dim, indices, values, shape, num_split):
    """``num_split`` slices along ``split_dim``: the first ``size % num_split``
    get one more than ``size // num_split``. Returns the ``num_split``
    indices, then the values, then the shapes."""
    idx, vals, shp = np.asarray(indices), np.asarray(values), np.asarray(shape).astype(np.int64)
    _check_triple(idx, vals, shp)
    rank = shp.shape[0]
    dim = int(np.asarray(split_dim).reshape(-1)[0])
    if not -rank <= dim < rank:
        raise invalid_argument(f"Input split_dim should be between {-rank} and {rank}, got {dim}")
    dim %= rank
    if num_split < 1 or num_split > shp[dim]:
        raise invalid_argument(f"Input num_split should be between 1 and {int(shp[dim])}, got {num_split}")
    base, extra = divmod(int(shp[dim]), num_split)
    outs, begin = [], 0
    for k in range(num_split):
        width = base + (1 if k < extra else 0)
        start = np.zeros(rank, np.int64)
        start[dim] = begin
        size = shp.copy()
        size[dim] = width
        outs.append(_slice(idx, vals, shp, start, size)[:3])
        begin += width
    return [o[0] for o in outs] + [o[1] for o in outs] + [o[2] for o in outs]


# ---------------------------------------------------------------------------
# SparseAdd and its gradient
# ---------------------------------------------------------------------------

def _merge(a_idx, b_idx):
    """Walks two canonically ordered index lists together: yields (i, j, cmp)."""
    i = j = 0
    na, nb = a_idx.shape[0], b_idx.shape[0]
    while i < na and j < nb:
        a, b = tuple(a_idx[i]), tuple(b_idx[j])
        if a < b:
            yield i, None
            i += 1
        elif a > b:
            yield None, j
            j += 1
        else:
            yield i, j
            i += 1
            j += 1
    for k in range(i, na):
        yield k, None
    for k in range(j, nb):
        yield None, k


@register_op("SparseAdd", inputs=("a_indices", "a_values", "a_shape", "b_indices", "b_values", "b_shape", "thresh"),
             outputs=("sum_indices", "sum_values", "sum_shape"),
             type_attrs={"T": ("a_values", "b_values"), "Treal": "thresh"},
             allowed={"T": dtypes.NUMBERS, "Treal": dtypes.REALS},
             shape=lambda ins, attrs: _triple_shapes(ins, ins["a_values"].dtype, "a_indices", "a_shape"))
def sparse_add(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
    """A + B for two sparse tensors of the same shape, both in canonical order.
    Entries present in both are summed and kept only if ``|sum| >= thresh``;
    entries present in one are copied. The result is in canonical order."""
    a_idx, b_idx = np.asarray(a_indices), np.asarray(b_indices)
    a_val, b_val = np.asarray(a_values), np.asarray(b_values)
    a_sh, b_sh = np.asarray(a_shape), np.asarray(b_shape)
    if a_idx.ndim != 2 or b_idx.ndim != 2:
        raise invalid_argument(f"Input indices should be matrices but received shapes: "
                               f"{_shape_str(a_idx.shape)} and {_shape_str(b_idx.shape)}")
    if a_idx.shape[1] != b_idx.shape[1]:
        raise invalid_argument(f"Input indices must have the same dimension, got {a_idx.shape[1]} and "
                               f"{b_idx.shape[1]}")
    if a_val.ndim != 1 or b_val.ndim != 1:
        raise invalid_argument(f"Input values should be vectors but received shapes: "
                               f"{_shape_str(a_val.shape)} and {_shape_str(b_val.shape)}")
    if a_val.shape[0] != a_idx.shape[0] or b_val.shape[0] != b_idx.shape[0]:
        raise invalid_argument(f"Expected {a_idx.shape[0]} and {b_idx.shape[0]} non-empty input values, got "
                               f"{a_val.shape[0]} and {b_val.shape[0]}")
    if a_sh.ndim != 1 or b_sh.ndim != 1:
        raise invalid_argument(f"Input shapes should be a vector but received shapes {_shape_str(a_sh.shape)} "
                               f"and {_shape_str(b_sh.shape)}")
    if np.ndim(thresh) != 0:
        raise invalid_argument(f"The magnitude threshold must be a scalar: got shape "
                               f"{_shape_str(np.shape(thresh))}")
    if a_sh.shape != b_sh.shape:
        raise invalid_argument(f"Operands do not have the same ranks; got shapes: {_shape_str(a_sh)} and "
                               f"{_shape_str(b_sh)}")
    for d in range(a_sh.shape[0]):
        if a_sh[d] != b_sh[d]:
            raise invalid_argument(f"Operands' shapes do not match: got {int(a_sh[d])} and {int(b_sh[d])} for "
                                   f"dimension {d}")
    thresh = np.asarray(thresh).item()
    out_idx, out_val = [], []
    for i, j in _merge(a_idx, b_idx):
        if j is None:
            out_idx.append(a_idx[i])
            out_val.append(a_val[i])
        elif i is None:
            out_idx.append(b_idx[j])
            out_val.append(b_val[j])
        else:
            s = a_val[i] + b_val[j]
            if thresh <= abs(s):
                out_idx.append(a_idx[i])
                out_val.append(s)
    rank = a_sh.shape[0]
    idx = np.array(out_idx, dtype=np.int64).reshape(-1, rank)
    return idx, np.array(out_val, dtype=a_val.dtype).reshape(-1), a_sh.astype(np.int64)


@register_op("SparseAddGrad", inputs=("backprop_val_grad", "a_indices", "b_indices", "sum_indices"),
             outputs=("a_val_grad", "b_val_grad"), type_attrs={"T": "backprop_val_grad"},
             allowed={"T": dtypes.NUMBERS},
             shape=lambda ins, attrs: [(ins["backprop_val_grad"].dtype, TensorShape([_dim(ins["a_indices"], 0)])),
                                       (ins["backprop_val_grad"].dtype, TensorShape([_dim(ins["b_indices"], 0)]))])
def sparse_add_grad(backprop_val_grad, a_indices, b_indices, sum_indices):
    """The gradients of SparseAdd's ``sum_values`` routed back to ``a_values``
    and ``b_values``: each entry of A (of B) gets the gradient of the sum entry
    at its index, or 0 where the sum dropped it (below ``thresh``)."""
    g = np.asarray(backprop_val_grad)
    a_idx, b_idx, s_idx = (np.asarray(x) for x in (a_indices, b_indices, sum_indices))
    if a_idx.ndim != 2 or b_idx.ndim != 2 or s_idx.ndim != 2:
        raise invalid_argument(f"Input indices should be matrices but received shapes: {_shape_str(a_idx.shape)}, "
                               f"{_shape_str(b_idx.shape)}, {_shape_str(s_idx.shape)}")
    if g.ndim != 1 or g.shape[0] != s_idx.shape[0]:
        raise invalid_argument(f"backprop_val_grad must be a vector of the sum's size {s_idx.shape[0]}, got shape "
                               f"{_shape_str(g.shape)}")
    pos = {tuple(r): k for k, r in enumerate(s_idx)}
    a_grad = np.array([g[pos[tuple(r)]] if tuple(r) in pos else 0 for r in a_idx], dtype=g.dtype).reshape(-1)
    b_grad = np.array([g[pos[tuple(r)]] if tuple(r) in pos else 0 for r in b_idx], dtype=g.dtype).reshape(-1)
    return a_grad, b_grad


# ---------------------------------------------------------------------------
# SparseTensorDenseMatMul
# ---------------------------------------------------------------------------

def _sparse_matmul_shape(ins, attrs):
    b = ins["b"].shape
    if b.ndims is not None and b.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {b.ndims} for '{attrs['_op_name']}' (op: "
                         f"'SparseTensorDenseMatMul') with input shapes: {ins['a_indices'].shape}, "
                         f"{ins['a_values'].shape}, {ins['a_shape'].shape}, {b}.")
    a_dims = _const_vector(ins["a_shape"])
    rows = None
    if a_dims is not None and len(a_dims) == 2:
        rows = a_dims[1] if attrs.get("adjoint_a") else a_dims[0]
    cols = None
    if b.ndims == 2:
        cols = b.as_list()[0] if attrs.get("adjoint_b") else b.as_list()[1]
        inner_b = b.as_list()[1] if attrs.get("adjoint_b") else b.as_list()[0]
        if a_dims is not None and len(a_dims) == 2:
            inner_a = a_dims[0] if attrs.get("adjoint_a") else a_dims[1]
            if inner_a >= 0 and inner_b is not None and inner_a != inner_b:
                raise ValueError(f"Dimensions must be equal, but are {inner_a} and {inner_b} for "
                                 f"'{attrs['_op_name']}' (op: 'SparseTensorDenseMatMul') with input shapes: "
                                 f"{ins['a_indices'].shape}, {ins['a_values'].shape}, {ins['a_shape'].shape}, {b}.")
    return [(ins["a_values"].dtype, TensorShape([rows, cols]))]


@register_op("SparseTensorDenseMatMul", inputs=("a_indices", "a_values", "a_shape", "b"), outputs=("product",),
             attrs={"adjoint_a": False, "adjoint_b": False},
             type_attrs={"T": ("a_values", "b"), "Tindices": "a_indices"}, allowed={"Tindices": _INDEX},
             shape=_sparse_matmul_shape)
def sparse_tensor_dense_mat_mul(a_indices, a_values, a_shape, b, adjoint_a=False, adjoint_b=False):
    """``product = op(A) @ op(B)`` with A the 2-D sparse (a_indices, a_values,
    a_shape) and ``op`` the adjoint (conjugate transpose) where asked. Entries
    with repeated indices add up; the order of the indices does not matter."""
    idx, vals, shape, b = (np.asarray(x) for x in (a_indices, a_values, a_shape, b))
    if b.ndim != 2:
        raise invalid_argument("Tensor 'b' is not a matrix")
    if shape.ndim != 1:
        raise invalid_argument("Tensor 'a_shape' is not a vector")
    if shape.shape[0] != 2:
        raise invalid_argument("Tensor 'a_shape' must have 2 elements")
    if vals.ndim != 1:
        raise invalid_argument("Tensor 'a_values' is not a vector")
    if idx.ndim != 2:
        raise invalid_argument("Tensor 'a_indices' is not a matrix")
    if idx.shape[0] != vals.shape[0]:
        raise invalid_argument("Number of rows of a_indices does not match number of entries in a_values")
    if idx.shape[1] != 2:
        raise invalid_argument("Number of columns of a_indices does not match number of entries in a_shape")
    outer_left, inner_left = (int(shape[1]), int(shape[0])) if adjoint_a else (int(shape[0]), int(shape[1]))
    inner_right, outer_right = (b.shape[1], b.shape[0]) if adjoint_b else (b.shape[0], b.shape[1])
    if inner_left != inner_right:
        raise invalid_argument(f"Cannot multiply A and B because inner dimension does not match: {inner_left} vs. "
                               f"{inner_right}.  Did you forget a transpose?  Dimensions of A: "
                               f"[{int(shape[0])}, {int(shape[1])}).  Dimensions of B: {_shape_str(b.shape)}")
    rhs = np.conj(b.T) if adjoint_b else b
    m_col, k_col = (1, 0) if adjoint_a else (0, 1)
    m, k = idx[:, m_col].astype(np.int64), idx[:, k_col].astype(np.int64)
    for i in range(idx.shape[0]):
        if not 0 <= k[i] < inner_left:
            raise invalid_argument(f"k ({int(k[i])}) from index[{i},{k_col}] out of bounds (>={inner_left})")
        if not 0 <= m[i] < outer_left:
            raise invalid_argument(f"m ({int(m[i])}) from index[{i},{m_col}] out of bounds (>={outer_left})")
    a_vals = np.conj(vals) if adjoint_a else vals
    out = np.zeros((outer_left, outer_right), dtype=np.result_type(vals.dtype, b.dtype))
    np.add.at(out, m, a_vals[:, None] * rhs[k])
    return out.astype(b.dtype, copy=False)


# ---------------------------------------------------------------------------
# SparseDenseCwise{Mul,Div,Add}: a sparse tensor's entries with a dense one
# ---------------------------------------------------------------------------

def _cwise_shape(ins, attrs):
    require_rank(ins, attrs, sp_indices=2, sp_values=1, sp_shape=1)
    return [(ins["sp_values"].dtype, TensorShape([_dim(ins["sp_indices"], 0)]))]


def _dense_at(sp_indices, sp_shape, dense):
    """``dense`` broadcast to ``sp_shape`` (the dense side only), read at each index."""
    idx, shape, dense = np.asarray(sp_indices), np.asarray(sp_shape), np.asarray(dense)
    if idx.ndim != 2 or shape.ndim != 1:
        raise invalid_argument(f"Input sp_indices should be a matrix and sp_shape a vector; got shapes "
                               f"[{_index_str(idx.shape)}] and [{_index_str(shape.shape)}]")
    lead = shape.shape[0] - dense.ndim
    ok = lead >= 0 and all(d == 1 or d == s for d, s in zip(dense.shape, shape[lead:]))
    if not ok:
        raise invalid_argument(f"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible "
                               f"shapes: [{_index_str(shape)}] vs. [{_index_str(dense.shape)}]")
    cols = idx[:, lead:].astype(np.int64) if idx.size else np.zeros((idx.shape[0], dense.ndim), np.int64)
    cols = np.where(np.array(dense.shape) == 1, 0, cols) if dense.ndim else cols
    return dense[tuple(cols.T)] if dense.ndim else np.broadcast_to(dense, (idx.shape[0],))


def _truncating_divide(x, y):
    if x.dtype.kind in "iu":
        q = np.abs(x) // np.abs(y)
        return (q * np.sign(x) * np.sign(y)).astype(x.dtype)
    return np.divide(x, y).astype(x.dtype, copy=False)


def _register_cwise(name, fn, doc):
    @register_op(name, inputs=("sp_indices", "sp_values", "sp_shape", "dense"), outputs=("output",),
                 type_attrs={"T": ("sp_values", "dense")}, allowed={"T": dtypes.NUMBERS}, shape=_cwise_shape)
    def kernel(sp_indices, sp_values, sp_shape, dense):
        values = np.asarray(sp_values)
        return fn(values, _dense_at(sp_indices, sp_shape, dense).astype(values.dtype, copy=False))

    kernel.__doc__ = doc
    kernel.__name__ = kernel.__qualname__ = name
    return kernel


sparse_dense_cwise_mul = _register_cwise(
    "SparseDenseCwiseMul", lambda v, d: np.multiply(v, d),
    """``output[i] = sp_values[i] * dense[sp_indices[i]]``, ``dense`` broadcast to ``sp_shape``.""")
sparse_dense_cwise_div = _register_cwise(
    "SparseDenseCwiseDiv", _truncating_divide,
    """``output[i] = sp_values[i] / dense[sp_indices[i]]`` (integers: truncating), ``dense`` broadcast.""")
sparse_dense_cwise_add = _register_cwise(
    "SparseDenseCwiseAdd", lambda v, d: np.add(v, d),
    """``output[i] = sp_values[i] + dense[sp_indices[i]]``: only the stored entries (TF's semantics).""")


# ---------------------------------------------------------------------------
# SparseFillEmptyRows and its gradient
# ---------------------------------------------------------------------------

@register_op("SparseFillEmptyRows", inputs=("indices", "values", "dense_shape", "default_value"),
             outputs=("output_indices", "output_values", "empty_row_indicator", "reverse_index_map"),
             type_attrs={"T": ("values", "default_value")},
             shape=lambda ins, attrs: [(dtypes.int64, TensorShape([None, _dim(ins["indices"], 1)])),
                                       (ins["values"].dtype, TensorShape([None])),
                                       (dtypes.bool, TensorShape([(_const_vector(ins["dense_shape"]) or [None])[0]])),
                                       (dtypes.int64, TensorShape([_dim(ins["indices"], 0)]))])
def sparse_fill_empty_rows(indices, values, dense_shape, default_value):
    """Every row (first index) with no entry gets one, ``default_value`` at
    ``[row, 0, ..., 0]``; entries are grouped by row (in-row order kept).
    ``empty_row_indicator[r]`` says row r was empty; ``reverse_index_map[i]``
    is where input entry i went."""
    idx, vals, shape = np.asarray(indices), np.asarray(values), np.asarray(dense_shape)
    default = np.asarray(default_value)
    if idx.ndim != 2:
        raise invalid_argument(f"indices must be a matrix, saw: {_shape_str(idx.shape)}")
    if vals.ndim != 1:
        raise invalid_argument(f"values must be a vector, saw: {_shape_str(vals.shape)}")
    if shape.ndim != 1:
        raise invalid_argument(f"dense_shape must be a vector, saw: {_shape_str(shape.shape)}")
    if default.ndim != 0:
        raise invalid_argument(f"default_value must be a scalar, saw: {_shape_str(default.shape)}")
    if idx.shape[0] != vals.shape[0]:
        raise invalid_argument(f"The length of `values` ({vals.shape[0]}) must match the first dimension of "
                               f"`indices` ({idx.shape[0]}).")
    if shape.shape[0] != idx.shape[1]:
        raise invalid_argument(f"The length of `dense_shape` ({shape.shape[0]}) must match the second dimension "
                               f"of `indices` ({idx.shape[1]}).")
    rank, n = idx.shape[1], idx.shape[0]
    if rank == 0:
        raise invalid_argument("Sparse tensor has no dimensions")
    rows = int(shape[0])
    if n and rows <= 0:
        raise invalid_argument("Received SparseTensor with dense_shape[0] = 0 but indices.shape[0] = " + str(n))
    for i in range(n):
        r = int(idx[i, 0])
        if not 0 <= r < rows:
            raise invalid_argument(f"indices({i}, 0) is invalid: {r} >= {rows}")
    counts = np.bincount(idx[:, 0].astype(np.int64), minlength=rows) if n else np.zeros(rows, np.int64)
    empty = counts == 0
    per_row = np.maximum(counts, 1)
    start = np.concatenate([[0], np.cumsum(per_row)[:-1]]).astype(np.int64)
    total = int(per_row.sum()) if rows else 0
    out_idx = np.zeros((total, rank), np.int64)
    out_val = np.empty(total, dtype=vals.dtype)
    reverse = np.zeros(n, np.int64)
    filled = np.zeros(rows, np.int64)
    for i in range(n):
        r = int(idx[i, 0])
        pos = start[r] + filled[r]
        filled[r] += 1
        out_idx[pos] = idx[i]
        out_val[pos] = vals[i]
        reverse[i] = pos
    for r in np.nonzero(empty)[0]:
        out_idx[start[r], 0] = r
        out_val[start[r]] = default
    return out_idx, out_val, empty, reverse


@register_op("SparseFillEmptyRowsGrad", inputs=("reverse_index_map", "grad_values"),
             outputs=("d_values", "d_default_value"), type_attrs={"T": "grad_values"},
             shape=lambda ins, attrs: [(ins["grad_values"].dtype, ins["reverse_index_map"].shape),
                                       (ins["grad_values"].dtype, TensorShape([]))])
def sparse_fill_empty_rows_grad(reverse_index_map, grad_values):
    """``d_values[i] = grad_values[reverse_index_map[i]]``; ``d_default_value``
    sums the gradients of the entries that were added."""
    rmap, g = np.asarray(reverse_index_map), np.asarray(grad_values)
    if rmap.ndim != 1 or g.ndim != 1:
        raise invalid_argument(f"reverse_index_map and grad_values must be vectors, saw: "
                               f"{_shape_str(rmap.shape)} and {_shape_str(g.shape)}")
    if rmap.size and (rmap.min() < 0 or rmap.max() >= g.shape[0]):
        bad = int(np.nonzero((rmap < 0) | (rmap >= g.shape[0]))[0][0])
        raise invalid_argument(f"Elements in reverse index must be in [0, {g.shape[0]}) but got "
                               f"{int(rmap[bad])}")
    d_values = g[rmap.astype(np.int64)]
    visited = np.zeros(g.shape[0], bool)
    visited[rmap.astype(np.int64)] = True
    return d_values, np.asarray(g[~visited].sum(dtype=g.dtype), dtype=g.dtype)
