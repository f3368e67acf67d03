"""GPU kernels of gathers, scatters, segment sums and resource-variable reads and
writes, in numba.cuda (issue 30): what ``embedding_lookup`` and its
``IndexedSlices`` gradient run. Device arrays in, device arrays out; registered in
:data:`ref.ops.gpu.GPU_OPS` (``ref.session.devices`` imports this module).

Indices live on the device and are not copied back to be checked, so out-of-range
indices do what TF's GPU kernels do with them (TF's API documentation of
``tf.gather``: "on GPU, if an out of bound index is found, a 0 is stored in the
corresponding output value"; its GPU scatter and unsorted-segment kernels skip
such indices): a gather writes 0, a scatter or segment sum skips the index. The
CPU kernels raise InvalidArgumentError instead.

Order: scatters and segment sums run one thread per element of a row, each going
through the indices in order, so duplicates apply one after another as on the
CPU (``np.add.at``): the same bits, deterministic (TF's GPU kernels use atomics).
"""
from __future__ import annotations

import numpy as np

from ref.ops import gpu, registry
from ref.ops._cuda import simulating

__all__ = ["gather", "resource_gather", "scatter", "unsorted_segment_sum", "read_variable", "assign_variable"]

_KERNELS: dict = {}


def _kernel(build, *key):
    k = (build, key, simulating())
    fn = _KERNELS.get(k)
    if fn is None:
        globals()["cuda"] = gpu._cuda()
        fn = _KERNELS.setdefault(k, build(*key))
    return fn


def _build_gather(T):
    def k(params, idx, out, rows, inner):
        for t in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            i = t // inner
            j = t % inner
            r = idx[i]
            out[t] = params[r * inner + j] if r >= 0 and r < rows else T(0)
    return cuda.jit(k)


def _build_scatter(T, how, scalar):
    """``how``: 0 update, 1 add, 2 sub; ``scalar``: one update value for every element."""
    def k(ref, idx, upd, rows, inner):
        for j in range(cuda.grid(1), inner, cuda.gridsize(1)):
            for i in range(idx.size):
                r = idx[i]
                if r >= 0 and r < rows:
                    u = upd if scalar else upd[i * inner + j]
                    if how == 0:
                        ref[r * inner + j] = u
                    elif how == 1:
                        ref[r * inner + j] = ref[r * inner + j] + u
                    else:
                        ref[r * inner + j] = ref[r * inner + j] - u
    return cuda.jit(k)


def _build_fill(T):
    def k(out, value):
        for t in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            out[t] = value
    return cuda.jit(k)


def _build_segment_sum(T):
    def k(data, ids, out, num, inner):
        for j in range(cuda.grid(1), inner, cuda.gridsize(1)):
            for i in range(ids.size):
                s = ids[i]
                if s >= 0 and s < num:
                    out[s * inner + j] = out[s * inner + j] + data[i * inner + j]
    return cuda.jit(k)


def _flat(d):
    return d.reshape(d.size) if d.ndim != 1 else d


def _inner(shape):
    return int(np.prod(shape[1:], dtype=np.int64)) if len(shape) > 1 else 1


def _gather_rows(params, indices, op):
    if params.ndim < 1:
        raise registry.invalid_argument(f"{op}: params must be at least 1 dimensional")
    inner = _inner(params.shape)
    out = gpu._empty(tuple(indices.shape) + tuple(params.shape[1:]), params.dtype)
    if out.size:
        _kernel(_build_gather, params.dtype.type)[gpu._launch(out.size)](_flat(params), _flat(indices), _flat(out),
                                                                         params.shape[0], inner)
    return out


def gather(params, indices, axis=None, batch_dims=0, validate_indices=True):
    """Gather / GatherV2 along axis 0 (``batch_dims`` 0); other axes have no GPU kernel here."""
    a = 0 if axis is None else int(np.asarray(axis).reshape(-1)[0])
    if a < 0:
        a += params.ndim
    if a != 0 or batch_dims:
        raise registry.invalid_argument(f"GatherV2 on the GPU takes axis 0 and batch_dims 0, got axis {a} and "
                                        f"batch_dims {batch_dims}")
    return _gather_rows(params, indices, "GatherV2")


def resource_gather(resource, indices, dtype=None, batch_dims=0, validate_indices=True):
    if batch_dims:
        raise registry.invalid_argument(f"ResourceGather on the GPU takes batch_dims 0, got {batch_dims}")
    return _gather_rows(gpu.to_device(resource), indices, "ResourceGather")


def scatter(how, op):
    code = {"Update": 0, "Add": 1, "Sub": 2}[how]

    def run(ref, indices, updates, use_locking=False):
        if ref.ndim == 0:
            raise registry.invalid_argument(f"{op}: ref must be at least 1-D, got shape []")
        want = tuple(indices.shape) + tuple(ref.shape[1:])
        scalar = gpu._scalar(updates)
        if scalar is None and tuple(updates.shape) != want:
            raise registry.invalid_argument(
                f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
                f"updates.shape {list(updates.shape)}, indices.shape {list(indices.shape)}, "
                f"params.shape {list(ref.shape)}")
        new = gpu._copy(ref)
        inner = _inner(ref.shape)
        if indices.size and inner:
            k = _kernel(_build_scatter, ref.dtype.type, code, scalar is not None)
            upd = ref.dtype.type(scalar) if scalar is not None else _flat(updates)
            k[gpu._launch(inner)](_flat(new), _flat(indices), upd, ref.shape[0], inner)
        return new

    def resource_run(resource, indices, updates):
        return run(resource, indices, updates)

    return run, resource_run


def unsorted_segment_sum(data, segment_ids, num_segments):
    num = int(np.asarray(num_segments).reshape(()))
    if num < 0:
        raise registry.invalid_argument(f"num_segments must be non-negative, got {num}")
    k_ids = segment_ids.ndim
    if tuple(data.shape[:k_ids]) != tuple(segment_ids.shape):
        raise registry.invalid_argument(f"data.shape = {list(data.shape)} does not start with segment_ids.shape "
                                        f"= {list(segment_ids.shape)}")
    inner = int(np.prod(data.shape[k_ids:], dtype=np.int64))
    out = gpu._empty((num,) + tuple(data.shape[k_ids:]), data.dtype)
    if out.size:
        T = data.dtype.type
        _kernel(_build_fill, T)[gpu._launch(out.size)](_flat(out), T(0))
        if segment_ids.size and inner:
            _kernel(_build_segment_sum, T)[gpu._launch(inner)](_flat(data), _flat(segment_ids), _flat(out), num,
                                                               inner)
    return out


def fill(dims, value):
    """Fill: a device array of shape ``dims`` (host) holding the host scalar ``value``."""
    dims = [int(d) for d in np.asarray(dims).reshape(-1)]
    v = gpu._scalar(value)
    if v is None:
        raise registry.invalid_argument("Fill on the GPU takes a host scalar value")
    dtype = np.asarray(value).dtype
    out = gpu._empty(dims, dtype)
    if out.size:
        _kernel(_build_fill, dtype.type)[gpu._launch(out.size)](_flat(out), dtype.type(v))
    return out


def zeros_like(x):
    out = gpu._empty(x.shape, x.dtype)
    if out.size:
        _kernel(_build_fill, x.dtype.type)[gpu._launch(out.size)](_flat(out), x.dtype.type(0))
    return out


def shape_n(input, out_type=None):  # noqa: A002
    """ShapeN: host int vectors (TF's GPU kernel keeps its outputs in host memory)."""
    return [gpu.shape(x, out_type) for x in input]


def read_variable(resource, dtype=None):
    """ReadVariableOp: the variable's device array itself (values are never changed in place here)."""
    return gpu.to_device(resource)


def assign_variable(resource, value, dtype=None, validate_shape=False):
    if resource is not None and validate_shape and tuple(resource.shape) != tuple(value.shape):
        raise registry.invalid_argument(f"Cannot update variable with shape {list(resource.shape)} using a Tensor "
                                        f"with shape {list(value.shape)}, shapes must be equal.")
    return gpu._copy(gpu.to_device(value))


def _update_variable(op_type, binary):
    add = gpu._binary_kernel(binary)

    def run(ref, value, use_locking=False, dtype=None):
        if tuple(ref.shape) != tuple(getattr(value, "shape", ())) and gpu._scalar(value) is None:
            raise registry.invalid_argument(f"Cannot update variable with shape {list(ref.shape)} using a Tensor "
                                            f"with shape {list(value.shape)}, shapes must be equal.")
        return add(gpu.to_device(ref), value)

    run.__name__ = op_type
    return run


_ROWS = gpu._FLOATS
gpu._register("Gather", lambda params, indices, validate_indices=True: gather(params, indices))
gpu._register("GatherV2", gather, host=("axis",))
gpu._register("ResourceGather", resource_gather, dtypes=_ROWS)
for _how in ("Update", "Add", "Sub"):
    _ref, _res = scatter(_how, f"Scatter{_how}")
    gpu._register(f"Scatter{_how}", _ref, scalars=("updates",))
    gpu._register(f"ResourceScatter{_how}", _res, scalars=("updates",))
gpu._register("UnsortedSegmentSum", unsorted_segment_sum, host=("num_segments",))
gpu._register("Fill", fill, host=("dims",), scalars=("value",))
gpu._register("ZerosLike", zeros_like)
gpu._register("ShapeN", shape_n, dtypes=None, host=("input",))
gpu._register("ReadVariableOp", read_variable)
gpu._register("AssignVariableOp", assign_variable)
gpu._register("AssignAdd", _update_variable("AssignAdd", "AddV2"), scalars=("value",))
gpu._register("AssignSub", _update_variable("AssignSub", "Sub"), scalars=("value",))
gpu._register("AssignAddVariableOp", _update_variable("AssignAddVariableOp", "AddV2"), scalars=("value",))
gpu._register("AssignSubVariableOp", _update_variable("AssignSubVariableOp", "Sub"), scalars=("value",))
