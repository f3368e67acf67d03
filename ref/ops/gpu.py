"""GPU kernels of the ops a training step runs, in numba.cuda: device arrays in,
device arrays out (DESIGN.md, "Kernels"; issue 30).

A Session places an op on ``/device:GPU:0`` when :func:`supports` says this table
has a kernel for its type and dtype (``ref.session.devices``). Such a kernel takes
the op's inputs as CUDA device arrays -- except its ``host`` inputs (shapes, axes,
multiples: TF's ``HostMemory``), which are NumPy arrays -- and returns device
arrays, so values stay on the device between ops and between steps. A 0-d host
value (a learning rate, a shape-derived divisor) is passed to a kernel as a launch
argument, not copied. Only :func:`to_device` and :func:`to_host` move data between
host and device; both count what they move in :data:`COPIES`.

Ops whose values are shapes (``Shape``, ``Size``, int32 ``FloorDiv``/``Maximum``,
``BroadcastGradientArgs``) are registered with host memory for every input and
output, as TF registers their int32 GPU kernels: they run their CPU kernel on host
values and count as placed on the GPU.

Order of operations: element-wise kernels do what the CPU kernels do, element by
element (same bits); reductions (``Sum``, ``Mean``, ``BiasAddGrad``) and the matmul's
dot products add left to right in a fixed order (deterministic, but not NumPy's
pairwise/blocked order: tests/ops/test_gpu_ops.py states the budget).

More kernels register themselves in :data:`GPU_OPS` from their own modules, which
``ref.session.devices`` imports: :mod:`ref.ops.gpu_nn` (Conv2D and its backprops,
pooling, Softmax), :mod:`ref.ops.gpu_sparse` (gathers, scatters, UnsortedSegmentSum,
Fill, resource-variable reads and writes), :mod:`ref.ops.gpu_training` (every
``Apply*``/``SparseApply*`` and ``Resource*`` update, from the CPU kernels' scalar
updates) and :mod:`ref.ops.gpu_random` (the Philox random ops, the CPU's stream).

Nothing here imports numba before the first GPU kernel runs.
"""
from __future__ import annotations

import collections
import math
import threading

import numpy as np

from ref.ops import _cuda as cuda_loops, registry
from ref.ops._cuda import simulating
from ref.ops.training.gradient_descent import gradient_descent_update

__all__ = ["COPIES", "reset_copies", "to_device", "to_host", "is_device_array", "supports", "kernel",
           "GPU_OPS", "HOST_MEMORY_OPS", "simulating"]

COPIES = collections.Counter()
"""Host<->device copies since :func:`reset_copies`: ``"host_to_device"`` and ``"device_to_host"``."""

_LOCK = threading.RLock()
_FLOATS = frozenset(("float32", "float64"))
_INTS = frozenset(("int32", "int64"))


def reset_copies():
    COPIES.clear()


def _cuda():
    from numba import cuda

    return cuda


def is_device_array(x) -> bool:
    return hasattr(x, "copy_to_host") and hasattr(x, "shape")


def to_device(x):
    """``x`` on the device (a host array is copied and counted; a device array is returned)."""
    if is_device_array(x):
        return x
    COPIES["host_to_device"] += 1
    return _cuda().to_device(np.ascontiguousarray(x))


def to_host(x):
    """``x`` on the host (a device array is copied and counted; anything else is returned)."""
    if is_device_array(x):
        COPIES["device_to_host"] += 1
        return x.copy_to_host()
    return x


def _empty(shape, dtype):
    return _cuda().device_array(tuple(int(d) for d in shape), dtype=np.dtype(dtype))


def _copy(d):
    """A new device array with ``d``'s contents (device to device: not a host copy)."""
    out = _empty(d.shape, d.dtype)
    out.copy_to_device(d)
    return out


def _launch(n):
    threads = 32 if simulating() else 256
    return max(1, min(-(-n // threads), 1024)), threads


def _scalar(x):
    """A host 0-d value as a kernel argument, else None."""
    if is_device_array(x):
        return None
    a = np.asarray(x)
    return a.reshape(()).item() if a.size == 1 and a.ndim == 0 else None


# -- kernel sources ---------------------------------------------------------------------------------
# Each kernel is written once as Python source and compiled per (name, dtype) with ``cuda.jit``.

_SOURCES = {}


def _source(name):
    def deco(fn):
        _SOURCES[name] = fn
        return fn
    return deco


_COMPILED = {}


def _compiled(name, *key):
    k = (name, key, simulating())
    fn = _COMPILED.get(k)
    if fn is None:
        with _LOCK:
            # The kernels below name ``cuda`` as a global of this module (the simulator swaps it
            # for its own inside a kernel): bound on first use, so importing this module imports no numba.
            globals()["cuda"] = _cuda()
            fn = _COMPILED.get(k)
            if fn is None:
                fn = _COMPILED.setdefault(k, _SOURCES[name](_cuda(), *key))
    return fn


_BINARY_EXPR = {"AddV2": "a + b", "Add": "a + b", "Sub": "a - b", "Mul": "a * b", "RealDiv": "a / b",
                "Maximum": "a if a >= b or b != b else b", "Minimum": "a if a <= b or b != b else b",
                "SquaredDifference": "(a - b) * (a - b)", "ReluGrad": "a if b > 0 else z",
                "Relu6Grad": "a if b > 0 and b < 6 else z", "SigmoidGrad": "(b * a) * (T(1) - a)",
                "TanhGrad": "b * (T(1) - a * a)"}
_UNARY_EXPR = {"Relu": "x if x > 0 else z", "Relu6": "z if x < 0 else (x if x < 6 else z + 6)",
               "Neg": "-x", "Square": "x * x", "Abs": "x if x >= 0 else -x", "Identity": "x",
               "Exp": "math.exp(x)", "Log": "math.log(x)", "Tanh": "math.tanh(x)", "Sqrt": "math.sqrt(x)",
               "Sigmoid": "one / (one + math.exp(-x))", "Reciprocal": "one / x"}


@_source("unary")
def _unary_source(cuda, expr, T):
    ns = {"cuda": cuda, "math": math, "T": T}
    exec(  # noqa: S102
        "def k(xin, out):\n"
        "    z = T(0)\n    one = T(1)\n"
        "    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):\n"
        f"        x = xin[i]\n        out[i] = T({expr})\n", ns)
    return cuda.jit(ns["k"])


@_source("binary")
def _binary_source(cuda, expr, T, mode):
    """``mode``: "bb" both broadcast arrays (4-d index arithmetic), "as"/"sa": one host scalar."""
    a = "xa[ia]" if mode[0] == "b" else "xa"
    b = "yb[ib]" if mode[1] == "b" else "yb"
    ns = {"cuda": cuda, "math": math, "T": T}
    exec(  # noqa: S102
        "def k(xa, yb, out, shape, sa, sb):\n"
        "    z = T(0)\n"
        "    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):\n"
        "        r = i\n        ia = 0\n        ib = 0\n"
        "        for d in range(3, -1, -1):\n"
        "            c = r % shape[d]\n            r = r // shape[d]\n"
        "            ia += c * sa[d]\n            ib += c * sb[d]\n"
        f"        a = {a}\n        b = {b}\n        out[i] = T({expr})\n", ns)
    return cuda.jit(ns["k"])


@_source("matmul")
def _matmul_source(_cu, T, tile):
    """C = op(A) @ op(B), one output element per thread, ``tile`` x ``tile`` blocks of
    A and B staged in shared memory; each dot product adds k = 0, 1, ... in order."""
    def k(a, b, c, ta, tb):
        sa = cuda.shared.array((tile, tile), T)
        sb = cuda.shared.array((tile, tile), T)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.y * tile + ty
        col = cuda.blockIdx.x * tile + tx
        m, n = c.shape[0], c.shape[1]
        kk = a.shape[0] if ta else a.shape[1]
        acc = T(0)
        for t in range((kk + tile - 1) // tile):
            ka, kb = t * tile + tx, t * tile + ty
            if row < m and ka < kk:
                sa[ty, tx] = a[ka, row] if ta else a[row, ka]
            else:
                sa[ty, tx] = T(0)
            if col < n and kb < kk:
                sb[ty, tx] = b[col, kb] if tb else b[kb, col]
            else:
                sb[ty, tx] = T(0)
            cuda.syncthreads()
            for j in range(tile):
                if t * tile + j < kk:
                    acc += sa[ty, j] * sb[j, tx]
            cuda.syncthreads()
        if row < m and col < n:
            c[row, col] = acc
    return _cu.jit(k)


@_source("reduce")
def _reduce_source(_cu, T, mean):
    """``out[i]`` = the sum over the reduced positions of output ``i``, left to right
    (row-major over the reduced axes); ``mean`` divides by their count."""
    def k(x, out, kshape, kstride, rshape, rstride, count):
        for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            base = 0
            r = i
            for d in range(3, -1, -1):
                base += (r % kshape[d]) * kstride[d]
                r = r // kshape[d]
            acc = T(0)
            for j in range(count):
                off = 0
                q = j
                for d in range(3, -1, -1):
                    off += (q % rshape[d]) * rstride[d]
                    q = q // rshape[d]
                acc += x[base + off]
            if mean:
                acc = acc / T(count)
            out[i] = acc
    return _cu.jit(k)


@_source("sparse_xent")
def _sparse_xent_source(_cu, T):
    """One thread per row: the CPU kernel's ``_sparse_xent_rows`` (max, exp-sum left
    to right, log), so the same operations in the same order."""
    def k(x, labels, loss, backprop):
        for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
            m = x[i, 0]
            for j in range(1, x.shape[1]):
                if x[i, j] > m:
                    m = x[i, j]
            s = T(0)
            for j in range(x.shape[1]):
                e = T(math.exp(x[i, j] - m))
                backprop[i, j] = e
                s += e
            ls = T(math.log(s))
            for j in range(x.shape[1]):
                p = backprop[i, j] / s
                if j == labels[i]:
                    loss[i] = ls - (x[i, j] - m)
                    p = p - T(1)
                backprop[i, j] = p
    return _cu.jit(k)


@_source("xent")
def _xent_source(_cu, T):
    """Dense labels, one thread per row: loss = sum_j y_j (log s - (x_j - m)), backprop = p - y."""
    def k(x, y, loss, backprop):
        for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
            m = x[i, 0]
            for j in range(1, x.shape[1]):
                if x[i, j] > m:
                    m = x[i, j]
            s = T(0)
            for j in range(x.shape[1]):
                e = T(math.exp(x[i, j] - m))
                backprop[i, j] = e
                s += e
            ls = T(math.log(s))
            acc = T(0)
            for j in range(x.shape[1]):
                acc += y[i, j] * (ls - (x[i, j] - m))
                backprop[i, j] = backprop[i, j] / s - y[i, j]
            loss[i] = acc
    return _cu.jit(k)


@_source("tile")
def _tile_source(_cu):
    def k(x, out, oshape, ishape, istride):
        for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            r = i
            src = 0
            for d in range(3, -1, -1):
                src += ((r % oshape[d]) % ishape[d]) * istride[d]
                r = r // oshape[d]
            out[i] = x[src]
    return _cu.jit(k)


@_source("cast")
def _cast_source(_cu, D):
    def k(x, out):
        for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            out[i] = D(x[i])
    return _cu.jit(k)


# -- op kernels -------------------------------------------------------------------------------------

def _flat(d):
    return d.reshape(d.size) if d.ndim != 1 else d


def _pad4(shape):
    shape = tuple(int(s) for s in shape)
    if len(shape) > 4:
        raise registry.invalid_argument(f"GPU kernels take at most 4 dimensions, got shape {list(shape)}")
    return (1,) * (4 - len(shape)) + shape


def _strides4(shape, out_shape):
    """Element strides of ``shape`` broadcast against the 4-d ``out_shape`` (0 where broadcast)."""
    s = _pad4(shape)
    strides, acc = [0] * 4, 1
    for d in range(3, -1, -1):
        strides[d] = 0 if s[d] == 1 and out_shape[d] != 1 else acc
        acc *= s[d]
    return tuple(strides)


def _unary_kernel(op_type):
    expr = _UNARY_EXPR[op_type]

    def run(x):
        out = _empty(x.shape, x.dtype)
        if x.size:
            k = _compiled("unary", expr, x.dtype.type)
            k[_launch(x.size)](_flat(x), _flat(out))
        return out
    return run


def _binary_kernel(op_type):
    expr = _BINARY_EXPR[op_type]

    def run(x, y):
        sx, sy = _scalar(x), _scalar(y)
        if sx is not None and sy is not None:
            raise registry.invalid_argument(f"{op_type}: both inputs are host scalars")
        dtype = (y if sx is not None else x).dtype
        xshape = () if sx is not None else x.shape
        yshape = () if sy is not None else y.shape
        shape = np.broadcast_shapes(xshape, yshape)
        out = _empty(shape, dtype)
        if out.size == 0:
            return out
        o4 = _pad4(shape)
        mode = ("s" if sx is not None else "b") + ("s" if sy is not None else "b")
        k = _compiled("binary", expr, dtype.type, mode)
        xa = dtype.type(sx) if sx is not None else _flat(x)
        yb = dtype.type(sy) if sy is not None else _flat(y)
        k[_launch(out.size)](xa, yb, _flat(out), o4, _strides4(xshape, o4), _strides4(yshape, o4))
        return out
    return run


def matmul(a, b, transpose_a=False, transpose_b=False, grad_a=False, grad_b=False):
    """MatMul: the tiled shared-memory kernel."""
    m = a.shape[1] if transpose_a else a.shape[0]
    ka = a.shape[0] if transpose_a else a.shape[1]
    kb = b.shape[1] if transpose_b else b.shape[0]
    n = b.shape[0] if transpose_b else b.shape[1]
    if ka != kb:
        raise registry.invalid_argument(f"Matrix size-incompatible: In[0]: {list(a.shape)}, In[1]: {list(b.shape)}")
    out = _empty((m, n), a.dtype)
    if m and n:
        tile = 4 if simulating() else 16
        k = _compiled("matmul", a.dtype.type, tile)
        k[((n + tile - 1) // tile, (m + tile - 1) // tile), (tile, tile)](a, b, out, bool(transpose_a),
                                                                        bool(transpose_b))
    return out


def _nhwc(data_format):
    if data_format not in ("NHWC", b"NHWC", None):
        raise registry.invalid_argument(f"GPU BiasAdd supports data_format NHWC only, got {data_format}")


def bias_add(value, bias, data_format="NHWC"):
    _nhwc(data_format)
    return _binary_kernel("AddV2")(value, bias)


def _reduce(x, axes, keep_dims, mean):
    nd = x.ndim
    axes = sorted({int(a) % nd for a in np.asarray(axes).reshape(-1)}) if nd else []
    kept = [d for d in range(nd) if d not in axes]
    strides = [1] * nd
    for d in range(nd - 2, -1, -1):
        strides[d] = strides[d + 1] * x.shape[d + 1]
    kshape = [x.shape[d] for d in kept]
    out_shape = [1 if d in axes else x.shape[d] for d in range(nd)] if keep_dims else kshape
    out = _empty(out_shape, x.dtype)
    count = int(np.prod([x.shape[d] for d in axes], dtype=np.int64))
    if out.size == 0:
        return out
    pad = lambda v, fill: (fill,) * (4 - len(v)) + tuple(int(s) for s in v)  # noqa: E731
    k = _compiled("reduce", x.dtype.type, mean)
    k[_launch(out.size)](_flat(x) if x.size else _empty((1,), x.dtype), _flat(out), pad(kshape, 1),
                         pad([strides[d] for d in kept], 0), pad([x.shape[d] for d in axes], 1),
                         pad([strides[d] for d in axes], 0), count)
    return out


def reduce_sum(input, axis, keep_dims=False):  # noqa: A002
    return _reduce(input, axis, keep_dims, False)


def reduce_mean(input, axis, keep_dims=False):  # noqa: A002
    return _reduce(input, axis, keep_dims, True)


def bias_add_grad(out_backprop, data_format="NHWC"):
    _nhwc(data_format)
    return _reduce(out_backprop, list(range(out_backprop.ndim - 1)), False, False)


def _xent_rows(source, features, labels):
    rows, classes = features.shape
    loss, backprop = _empty((rows,), features.dtype), _empty((rows, classes), features.dtype)
    if rows and classes:
        _compiled(source, features.dtype.type)[_launch(rows)](features, labels, loss, backprop)
    return loss, backprop


def sparse_softmax_cross_entropy_with_logits(features, labels):
    if features.ndim != 2 or labels.ndim != 1 or labels.shape[0] != features.shape[0]:
        raise registry.invalid_argument(f"logits and labels must have the same first dimension, got logits shape "
                                        f"{list(features.shape)} and labels shape {list(labels.shape)}")
    return _xent_rows("sparse_xent", features, labels)


def softmax_cross_entropy_with_logits(features, labels):
    if features.shape != labels.shape or features.ndim != 2:
        raise registry.invalid_argument(f"logits and labels must be same size: logits_size="
                                        f"{list(features.shape)} labels_size={list(labels.shape)}")
    return _xent_rows("xent", features, labels)


def tile(input, multiples):  # noqa: A002
    mult = [int(m) for m in np.asarray(multiples).reshape(-1)]
    oshape = [d * m for d, m in zip(input.shape, mult)]
    out = _empty(oshape, input.dtype)
    if out.size:
        o4, i4 = _pad4(oshape), _pad4(input.shape)
        _compiled("tile")[_launch(out.size)](_flat(input), _flat(out), o4, i4, _strides4(input.shape, i4))
    return out


def cast(x, DstT, Truncate=False, SrcT=None):  # noqa: N803
    dst = np.dtype(getattr(DstT, "as_numpy_dtype", DstT))
    if not is_device_array(x):  # a host-memory value (a shape-derived count): cast on the host
        return registry.get("Cast").kernel(x, DstT, Truncate, SrcT)
    out = _empty(x.shape, dst)
    if x.size:
        _compiled("cast", dst.type)[_launch(x.size)](_flat(x), _flat(out))
    return out


def reshape(tensor, shape):
    target = [int(s) for s in np.asarray(shape).reshape(-1)]
    if -1 in target:
        known = int(np.prod([s for s in target if s != -1], dtype=np.int64))
        target[target.index(-1)] = tensor.size // known if known else 0
    if int(np.prod(target, dtype=np.int64)) != tensor.size:
        raise registry.invalid_argument(f"Input to reshape is a tensor with {tensor.size} values, but the "
                                        f"requested shape has {int(np.prod(target, dtype=np.int64))}")
    return tensor.reshape(tuple(target)) if tensor.size else _empty(target, tensor.dtype)


def expand_dims(input, axis):  # noqa: A002
    a = int(np.asarray(axis).reshape(-1)[0])
    a = a + input.ndim + 1 if a < 0 else a
    return reshape(input, list(input.shape[:a]) + [1] + list(input.shape[a:]))


def shape(input, out_type=None):  # noqa: A002
    return np.asarray(input.shape, dtype=np.dtype(getattr(out_type, "as_numpy_dtype", np.int32)))


def size(input, out_type=None):  # noqa: A002
    return np.asarray(int(np.prod(input.shape, dtype=np.int64)),
                      dtype=np.dtype(getattr(out_type, "as_numpy_dtype", np.int32)))


def assign(ref, value, validate_shape=True, use_locking=True, _ref_shape=None):
    if validate_shape and ref is not None and tuple(ref.shape) != tuple(value.shape):
        raise registry.invalid_argument(f"Assign requires shapes of both tensors to match. lhs shape= "
                                        f"{list(ref.shape)} rhs shape= {list(value.shape)}")
    return _copy(to_device(value))


def apply_gradient_descent(var, alpha, delta, use_locking=False):
    """The CPU kernel's scalar ``gradient_descent_update`` looped by ``ref.ops._cuda``
    on a device copy of ``var`` (the stored array is not changed in place)."""
    if tuple(var.shape) != tuple(delta.shape):
        raise registry.invalid_argument(f"var and delta do not have the same shape{list(var.shape)} "
                                        f"{list(delta.shape)}")
    new = _copy(var)
    if new.size:
        k = cuda_loops.cuda_elementwise(gradient_descent_update, 1).compiled(1, var.dtype.type)
        k[_launch(new.size)](_flat(new), _flat(delta), var.dtype.type(_scalar(alpha)))
    return new


# -- the table --------------------------------------------------------------------------------------

GpuKernel = collections.namedtuple("GpuKernel", ["fn", "dtypes", "host", "scalars"])
"""``fn`` (the op's inputs and attrs by keyword), the dtypes it takes (of the op's first
output; None: any), the inputs it takes in host memory and those it takes as a host
0-d value (a kernel launch argument) when they are one."""

GPU_OPS: dict = {}
HOST_MEMORY_OPS = frozenset(("Shape", "Size", "Rank", "BroadcastGradientArgs", "FloorDiv", "Maximum", "Minimum",
                             "Prod", "Range", "Pack", "StridedSlice", "ConcatV2", "Sub", "AddV2", "Mul",
                             "FloorMod", "GatherV2", "Unique", "ExpandDims"))
"""Ops registered for the GPU with every int32/int64 input and output in host memory (TF's
int32 GPU kernels): they run their CPU kernel on host values."""


def _register(name, fn, dtypes=_FLOATS, host=(), scalars=()):
    GPU_OPS[name] = GpuKernel(fn, dtypes, frozenset(host), frozenset(scalars))


for _n in _UNARY_EXPR:
    _register(_n, _unary_kernel(_n))
for _n in _BINARY_EXPR:
    _register(_n, _binary_kernel(_n), scalars=("x", "y", "gradients", "features"))
_register("MatMul", matmul)
_register("BiasAdd", bias_add)
_register("BiasAddGrad", bias_add_grad)
_register("Sum", reduce_sum, host=("axis",))
_register("Mean", reduce_mean, host=("axis",))
_register("SparseSoftmaxCrossEntropyWithLogits", sparse_softmax_cross_entropy_with_logits)
_register("SoftmaxCrossEntropyWithLogits", softmax_cross_entropy_with_logits)
_register("Tile", tile, dtypes=_FLOATS | _INTS, host=("multiples",))
_register("Cast", cast, dtypes=_FLOATS, scalars=("x",))
_register("Reshape", reshape, dtypes=_FLOATS | _INTS, host=("shape",))
_register("ExpandDims", expand_dims, dtypes=_FLOATS | _INTS, host=("axis",))
_register("Shape", shape, dtypes=None)
_register("Size", size, dtypes=None)
_register("Assign", assign)
_register("ApplyGradientDescent", apply_gradient_descent, scalars=("alpha",))


def supports(op_type, dtype_name, input_dtypes=()) -> str | None:
    """Where ``op_type`` with first output dtype ``dtype_name`` runs on the GPU:
    "device" (a kernel in this table), "host" (a host-memory kernel), or None."""
    k = GPU_OPS.get(op_type)
    if op_type in HOST_MEMORY_OPS and dtype_name in _INTS and all(d in _INTS for d in input_dtypes):
        return "host"
    if k is not None and (k.dtypes is None or dtype_name in k.dtypes):
        return "device"
    return None


def kernel(op_type) -> GpuKernel:
    return GPU_OPS[op_type]
