"""Gathering and scattering (TF's gather, gather_nd, scatter_nd and one_hot
kernels): GatherV2, Gather, GatherNd, ScatterNd, TensorScatter{Update,Add,Sub,Min,Max},
ScatterNdNonAliasingAdd, OneHot. Bad index values at
run time raise InvalidArgumentError with TF's message (``indices[1] = 7 is not
in [0, 5)``).
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import invalid_argument, register_op, shape_input
from ref.types.shapes import TensorShape, unknown_shape
from ref.ops.array import _INDEX, _check_range, _dims, _index_str, _ints, _shape_str


# ---------------------------------------------------------------------------
# Gathering and scattering: GatherV2, Gather, GatherNd, ScatterNd, OneHot
# ---------------------------------------------------------------------------



def _gather_static(params, indices, axis, batch_dims, attrs):
    p, i = _dims(params), _dims(indices)
    if p is None or i is None or axis is None:
        r = None if p is None or i is None else len(p) + len(i) - 1 - batch_dims
        return unknown_shape(r)
    if batch_dims < 0:
        batch_dims += len(i)
    if not -len(p) <= axis < len(p):
        raise ValueError(f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} but is rank {len(p)} "
                         f"for '{attrs['_op_name']}' with input shapes: {_shape_str(p)}, {_shape_str(i)}, [].")
    axis %= len(p)
    if batch_dims > axis:
        raise ValueError(f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}) for "
                         f"'{attrs['_op_name']}'")
    for k in range(batch_dims):
        if p[k] is not None and i[k] is not None and p[k] != i[k]:
            raise ValueError(f"Dimension {k} in both shapes must be equal, but are {p[k]} and {i[k]}. Shapes "
                             f"are {_shape_str(p)} and {_shape_str(i)}. for '{attrs['_op_name']}'")
    return TensorShape(p[:axis] + i[batch_dims:] + p[axis + 1:])


def _gather_v2_shape(ins, attrs):
    axis = _ints(ins["axis"].value)
    shape = _gather_static(ins["params"], ins["indices"], None if axis is None else axis[0],
                           attrs.get("batch_dims", 0), attrs)
    return [(ins["params"].dtype, shape)]


@register_op("GatherV2", inputs=("params", "indices", "axis"), attrs={"batch_dims": 0},
             type_attrs={"Tparams": "params", "Tindices": "indices", "Taxis": "axis"},
             allowed={"Tindices": (dtypes.int16,) + _INDEX, "Taxis": _INDEX}, shape=_gather_v2_shape)
def gather_v2(params, indices, axis, batch_dims=0):
    """``output[p0.., i.., p1..] = params[p0.., indices[i..], p1..]`` along ``axis``;
    the first ``batch_dims`` dimensions of params and indices are matched
    one-to-one. Out-of-range indices raise InvalidArgumentError (CPU)."""
    params, indices = np.asarray(params), np.asarray(indices)
    axis = int(np.asarray(axis).reshape(-1)[0])
    if batch_dims < 0:
        batch_dims += indices.ndim
    if not -params.ndim <= axis < params.ndim:
        raise invalid_argument(f"Expected axis in the range [{-params.ndim}, {params.ndim}), but got {axis}")
    axis %= params.ndim
    if batch_dims > axis:
        raise invalid_argument(f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).")
    if params.shape[:batch_dims] != indices.shape[:batch_dims]:
        raise invalid_argument(f"params.shape[:{batch_dims}] should equal indices.shape[:{batch_dims}] but got "
                               f"{_shape_str(params.shape)} and {_shape_str(indices.shape)}")
    _check_range("indices", indices, params.shape[axis])
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    batch = params.shape[:batch_dims]
    n = int(np.prod(batch, dtype=np.int64))
    p = params.reshape((n,) + params.shape[batch_dims:])
    i = indices.reshape((n,) + indices.shape[batch_dims:])
    parts = [np.take(p[b], i[b], axis=axis - batch_dims) for b in range(n)]
    out_shape = params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]
    if not parts:
        return np.zeros(out_shape, dtype=params.dtype)
    return np.stack(parts).reshape(out_shape)


@register_op("Gather", inputs=("params", "indices"), attrs={"validate_indices": True},
             type_attrs={"Tparams": "params", "Tindices": "indices"}, allowed={"Tindices": _INDEX},
             shape=lambda ins, attrs: [(ins["params"].dtype, _gather_static(ins["params"], ins["indices"], 0, 0,
                                                                            attrs))])
def gather(params, indices, validate_indices=True):
    """GatherV2 along axis 0 (the old op)."""
    return gather_v2(params, indices, 0)


def _gather_nd_shape(ins, attrs):
    p, i = _dims(ins["params"]), _dims(ins["indices"])
    dt = ins["params"].dtype
    if p is None or i is None or not i or i[-1] is None:
        return [(dt, unknown_shape())]
    if i[-1] > len(p):
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: {_shape_str(i)} and "
                         f"params shape: {_shape_str(p)} for '{attrs['_op_name']}'")
    return [(dt, TensorShape(i[:-1] + p[i[-1]:]))]


def _nd_positions(name, indices, shape, what, suffix="", ignore=False):
    """The leading-dims tuples of ``indices`` (shape [..., K]) as index arrays,
    after checking each row lies inside ``shape[:K]`` (``ignore``: rows outside
    are returned too, with the mask of the valid ones)."""
    idx = np.asarray(indices)
    k = idx.shape[-1]
    rows = idx.reshape(int(np.prod(idx.shape[:-1], dtype=np.int64)), k)
    bound = np.array(shape[:k], dtype=np.int64)
    bad = np.flatnonzero(((rows < 0) | (rows >= bound)).any(axis=1)) if rows.size else []
    if ignore:
        ok = np.ones(len(rows), bool)
        ok[bad] = False
        return tuple(np.where(ok, rows[:, j], 0) for j in range(k)), ok
    if len(bad):
        b = int(bad[0])
        raise invalid_argument(f"{name}{_index_str(idx.shape[:-1], b)} = [{', '.join(str(int(v)) for v in rows[b])}] "
                               f"does not index into {what} {_shape_str(shape)}{suffix}")
    return tuple(rows[:, j] for j in range(k))


@register_op("GatherNd", inputs=("params", "indices"), attrs={"bad_indices_policy": ""},
             type_attrs={"Tparams": "params", "Tindices": "indices"},
             allowed={"Tindices": (dtypes.int16,) + _INDEX}, shape=_gather_nd_shape)
def gather_nd(params, indices, bad_indices_policy=""):
    """``output[i..] = params[indices[i.., :]]``: each innermost row of
    ``indices`` (length K) selects an element or slice of ``params``. A row
    outside ``params`` is an error (``bad_indices_policy`` "", "DEFAULT" or
    "ERROR": TF's CPU kernel) or gives zeros ("IGNORE")."""
    policy = bad_indices_policy.decode() if isinstance(bad_indices_policy, bytes) else bad_indices_policy
    if policy not in ("", "DEFAULT", "ERROR", "IGNORE"):
        raise invalid_argument(f"No OpKernel was registered to support Op 'GatherNd' with these attrs: "
                               f"[bad_indices_policy=\"{policy}\"]")
    params, indices = np.asarray(params), np.asarray(indices)
    if indices.ndim == 0 or indices.shape[-1] > params.ndim:
        raise invalid_argument(f"index innermost dimension length must be <= params rank; saw: "
                               f"{indices.shape[-1] if indices.ndim else 0} vs. {params.ndim}")
    k = indices.shape[-1]
    n_result = int(np.prod(indices.shape[:-1], dtype=np.int64))
    if n_result and not params.size:
        raise invalid_argument(f"Requested more than 0 entries, but params is empty.  Params shape: "
                               f"{_shape_str(params.shape)}")
    if policy == "IGNORE" and k:
        pos, ok = _nd_positions("indices", indices, params.shape, "param shape", ignore=True)
        out = params[pos]
        out[~ok] = 0
        return np.array(out.reshape(indices.shape[:-1] + params.shape[k:]))
    if k:
        out = params[_nd_positions("indices", indices, params.shape, "param shape", ", node name: GatherNd")]
    else:  # an empty index row selects all of params
        out = np.broadcast_to(params, (n_result,) + params.shape)
    return np.array(out.reshape(indices.shape[:-1] + params.shape[k:]))


def _merge_error(a, b):
    """TF's Merge of two partial shapes: its error text, or None when they merge."""
    if len(a) != len(b):
        return f"Shapes must be equal rank, but are {len(a)} and {len(b)}"
    for k, (x, y) in enumerate(zip(a, b)):
        if x is not None and y is not None and x != y:
            return (f"Dimension {k} in both shapes must be equal, but are {x} and {y}. "
                    f"Shapes are {_shape_str(a)} and {_shape_str(b)}.")
    return None


def _count(dims):
    return None if dims is None or any(d is None for d in dims) else int(np.prod(dims, dtype=np.int64))


def scatter_nd_shape_check(i, u, dims, attrs, input_shapes):
    """TF's ScatterNdShapeHelper at graph construction: ``i``/``u``/``dims`` the
    static dims of indices, updates and the input (or output) shape (None: unknown
    rank). Raises ValueError as TF's: an empty input given indices or updates;
    indices' outer dimensions against updates'; the input's inner dimensions
    against updates' (``input_shapes`` closes the message)."""
    where = f" for '{attrs['_op_name']}' with input shapes: {input_shapes}."
    n_in = _count(dims)
    if n_in == 0 and ((_count(i) or 0) > 0 or (_count(u) or 0) > 0):
        raise ValueError("Indices and updates specified for empty input" + where)
    if i is None or u is None or not u or not i or i[-1] is None or dims is None:
        return
    outer, ix = len(i) - 1, i[-1]
    err = _merge_error(i[:outer], u[:outer]) if len(u) >= outer else \
        f"Shapes must be equal rank, but are {outer} and {len(u)}"
    if err:
        raise ValueError(f"Dimensions [0,{outer}) of indices[shape={_shape_str(i)}] = {_shape_str(i[:outer])} "
                         f"must match dimensions [0,{outer}) of updates[shape={_shape_str(u)}] = "
                         f"{_shape_str(u[:outer])}: {err}" + where)
    if ix > len(dims):
        return  # the kernel reports indices that cannot index the input
    err = _merge_error(dims[ix:], u[outer:])
    if err:
        raise ValueError(f"Dimensions [{ix},{len(dims)}) of input[shape={_shape_str(dims)}] = "
                         f"{_shape_str(dims[ix:])} must match dimensions [{outer},{len(u)}) of "
                         f"updates[shape={_shape_str(u)}] = {_shape_str(u[outer:])}: {err}" + where)


def _scatter_nd_shape(ins, attrs):
    shape = _ints(ins["shape"].value)
    dt = ins["updates"].dtype
    i, u = _dims(ins["indices"]), _dims(ins["updates"])
    out = TensorShape(shape) if shape is not None else shape_input(ins["shape"])
    scatter_nd_shape_check(i, u, out.as_list() if out.ndims is not None else None, attrs,
                           f"{_shape_str(ins['indices'].shape)}, {_shape_str(ins['updates'].shape)}, "
                           f"{_shape_str(ins['shape'].shape)}")
    return [(dt, out)]


def _check_scatter_target(shape, indices, updates, what):
    """TF's PrepareAndValidateInputs (the kernels' first checks)."""
    if len(shape) < 1:
        raise invalid_argument(f"Output must be at least 1-D, got shape: {_shape_str(shape)}")
    if (indices.size or updates.size) and int(np.prod(shape, dtype=np.int64)) == 0:
        raise invalid_argument(f"Indices and updates specified for empty {what}.  indices shape: "
                               f"{_shape_str(indices.shape)}")


@register_op("ScatterNd", inputs=("indices", "updates", "shape"), attrs={"bad_indices_policy": ""},
             type_attrs={"T": "updates", "Tindices": ("indices", "shape")},
             allowed={"Tindices": (dtypes.int16,) + _INDEX}, shape=_scatter_nd_shape)
def scatter_nd(indices, updates, shape, bad_indices_policy=""):
    """Zeros of ``shape`` plus ``updates[i..]`` added at ``indices[i.., :]``;
    duplicates add, in index order. A row outside ``shape`` is an error
    (``bad_indices_policy`` "", "DEFAULT" or "ERROR") or is skipped ("IGNORE")."""
    policy = bad_indices_policy.decode() if isinstance(bad_indices_policy, bytes) else bad_indices_policy
    if policy not in ("", "DEFAULT", "ERROR", "IGNORE"):
        raise invalid_argument(f"Unknown bad indices handling attribute: {policy}")
    indices, updates = np.asarray(indices), np.asarray(updates)
    shape = _ints(shape)
    if indices.ndim == 0:
        raise invalid_argument(f"Indices shape must have rank at least one. Found:{_shape_str(indices.shape)}")
    if updates.ndim == 0:
        raise invalid_argument(f"Updates shape must have rank at least one. Found:{_shape_str(updates.shape)}")
    _check_scatter_target(shape, indices, updates, "output")
    k = indices.shape[-1]
    if updates.shape != indices.shape[:-1] + tuple(shape[k:]):
        raise invalid_argument(f"Dimensions [{indices.ndim - 1},{updates.ndim}) of updates[shape="
                               f"{_shape_str(updates.shape)}] must match dimensions [{k},{len(shape)}) of "
                               f"output[shape={_shape_str(shape)}]")
    flat = updates.reshape((int(np.prod(indices.shape[:-1], dtype=np.int64)),) + tuple(shape[k:]))
    if policy == "IGNORE" and k:
        pos, ok = _nd_positions("indices", indices, shape, "shape", ignore=True)
        pos, flat = tuple(p[ok] for p in pos), flat[ok]
    else:
        pos = _nd_positions("indices", indices, shape, "shape")
    # strings: "" is the zero and + concatenates (TF's string ScatterNd)
    out = np.full(shape, b"", dtype=object) if updates.dtype == object else np.zeros(shape, dtype=updates.dtype)
    if k == 0:
        for row in flat:
            out += row
        return out
    np.add.at(out, pos, flat)
    return out


_TENSOR_SCATTER = {"Update": lambda old, u: u, "Add": np.add, "Sub": np.subtract, "Min": np.minimum,
                   "Max": np.maximum}


def _tensor_scatter(tensor, indices, updates, how, op_type):
    """A copy of ``tensor`` with ``updates[i..]`` combined (``how``) into the element or
    slice at ``indices[i.., :]``, in index order (TF's TensorScatter* kernels)."""
    tensor, indices = np.asarray(tensor), np.asarray(indices)
    updates = np.asarray(updates, dtype=tensor.dtype)
    if indices.ndim == 0:
        raise invalid_argument(f"Indices shape must have rank at least one. Found:{_shape_str(indices.shape)}")
    if (indices.size or updates.size) and tensor.size == 0:  # TensorScatterOp's own check, before the common ones
        raise invalid_argument("Indices and updates specified for empty output shape")
    _check_scatter_target(tensor.shape, indices, updates, "output")
    k = indices.shape[-1]
    if k > tensor.ndim:
        raise invalid_argument(f"Dimensions [0,{indices.ndim}) of indices[shape={_shape_str(indices.shape)}] "
                               f"must index into tensor[shape={_shape_str(tensor.shape)}]")
    want = indices.shape[:-1] + tensor.shape[k:]
    if updates.shape != want:
        raise invalid_argument(f"Dimensions [{indices.ndim - 1},{updates.ndim}) of updates[shape="
                               f"{_shape_str(updates.shape)}] must match dimensions [{k},{tensor.ndim}) of "
                               f"input[shape={_shape_str(tensor.shape)}]")
    pos = _nd_positions("indices", indices, tensor.shape, "shape")
    out = tensor.copy()
    rows = updates.reshape((int(np.prod(indices.shape[:-1], dtype=np.int64)),) + tensor.shape[k:])
    combine = _TENSOR_SCATTER[how]
    for i in range(rows.shape[0]):
        at = tuple(int(p[i]) for p in pos)
        out[at] = combine(out[at], rows[i])
    return out


def _tensor_scatter_shape(first):
    def rule(ins, attrs):
        t = ins[first]
        scatter_nd_shape_check(_dims(ins["indices"]), _dims(ins["updates"]), _dims(t), attrs,
                               f"{_shape_str(t.shape)}, {_shape_str(ins['indices'].shape)}, "
                               f"{_shape_str(ins['updates'].shape)}")
        return [(t.dtype, t.shape)]
    return rule


def _declare_tensor_scatter(how):
    op_type = f"TensorScatter{how}"

    def kernel(tensor, indices, updates, bad_indices_policy=""):
        return _tensor_scatter(tensor, indices, updates, how, op_type)

    kernel.__name__ = f"tensor_scatter_{how.lower()}"
    kernel.__doc__ = (f"A copy of ``tensor`` whose element or slice at ``indices[i.., :]`` is combined "
                      f"({how.lower()}) with ``updates[i..]``, for each i in order; updates.shape = "
                      "indices.shape[:-1] + tensor.shape[K:].")
    register_op(op_type, inputs=("tensor", "indices", "updates"), attrs={"bad_indices_policy": ""},
                type_attrs={"T": ("tensor", "updates"), "Tindices": "indices"},
                allowed={"Tindices": (dtypes.int16,) + _INDEX}, shape=_tensor_scatter_shape("tensor"))(kernel)
    return kernel


tensor_scatter_update = _declare_tensor_scatter("Update")
tensor_scatter_add = _declare_tensor_scatter("Add")
tensor_scatter_sub = _declare_tensor_scatter("Sub")
tensor_scatter_min = _declare_tensor_scatter("Min")
tensor_scatter_max = _declare_tensor_scatter("Max")


@register_op("ScatterNdNonAliasingAdd", inputs=("input", "indices", "updates"), attrs={"bad_indices_policy": ""},
             type_attrs={"T": ("input", "updates"), "Tindices": "indices"}, allowed={"Tindices": _INDEX},
             shape=_tensor_scatter_shape("input"))
def scatter_nd_non_aliasing_add(input, indices, updates, bad_indices_policy=""):
    """``input`` plus ``updates[i..]`` added at ``indices[i.., :]`` (a new tensor:
    TensorScatterAdd under its older name)."""
    return _tensor_scatter(input, indices, updates, "Add", "ScatterNdNonAliasingAdd")


def _one_hot_shape(ins, attrs):
    dims, depth = _dims(ins["indices"]), _ints(ins["depth"].value)
    d = None if depth is None else depth[0]
    dt = ins["on_value"].dtype
    if dims is None:
        return [(dt, unknown_shape())]
    axis = attrs.get("axis", -1)
    if not -1 <= axis <= len(dims):
        raise ValueError(f"Expected axis to be -1 or between [0, {len(dims) + 1}).  But received: {axis}")
    axis = len(dims) if axis == -1 else axis
    return [(dt, TensorShape(dims[:axis] + [d] + dims[axis:]))]


@register_op("OneHot", inputs=("indices", "depth", "on_value", "off_value"), attrs={"axis": -1},
             type_attrs={"T": ("on_value", "off_value"), "TI": "indices"},
             allowed={"TI": (dtypes.uint8, dtypes.int8) + _INDEX}, shape=_one_hot_shape)
def one_hot(indices, depth, on_value, off_value, axis=-1):
    """``on_value`` where ``indices[i..] == j`` along the new dimension ``axis``
    of size ``depth``, ``off_value`` elsewhere (indices outside [0, depth) give
    an all-off row)."""
    indices = np.asarray(indices)
    depth = int(np.asarray(depth))
    if depth < 0:
        raise invalid_argument(f"depth must be non-negative, got: {depth}")
    if np.ndim(on_value) or np.ndim(off_value):
        raise invalid_argument("on_value and off_value must be scalars")
    r = indices.ndim
    if not -1 <= axis <= r:
        raise invalid_argument(f"Expected axis to be -1 or between [0, {r + 1}).  But received: {axis}")
    axis = r if axis == -1 else axis
    hot = indices[..., None] == np.arange(depth)
    hot = np.moveaxis(hot, -1, axis)
    on, off = np.asarray(on_value), np.asarray(off_value)
    return np.where(hot, on, off).astype(on.dtype)
