"""Neural-network ops: activations, softmax and cross-entropy, bias add,
L2 loss, in-top-k, and the gradient kernels TF has as ops.

Each kernel writes TF's functor (``relu_op_functor.h``, ``softplus_op.h``,
``softmax_op_functor.h``, ``xent_op.h``, ``sparse_xent_op.h``) in the same
operation order, so rational arithmetic rounds as TF's does. Softmax and the
cross-entropies compute, per row, ``m = max(x)``, ``e = exp(x - m)``,
``s = sum(e)``, then TF's combination. float32 inputs go through TF's Eigen
expressions bit for bit (:mod:`ref.ops.eigen_softmax`); other dtypes use
NumPy's vectorised exp and pairwise sums (softmax) or Numba row loops with
sums left to right (the cross-entropies), a few ULPs from ``tf.raw_ops``
(budgets in ``tests/ops/tf_budgets.py``).
"""
from __future__ import annotations

import math

import numpy as np

from ref.types import dtypes
from ref.ops import _jit, eigen_reduce, eigen_redux, eigen_softmax, eigen_unary, gemm, gemm_llvm
from ref.ops._jit import njit
from ref.ops.libm_exp import exp as _exp
from ref.ops.registry import broadcast_shapes, invalid_argument, register_op, unary_shape
from ref.types.shapes import TensorShape, unknown_shape

_F = dtypes.FLOATS
_REAL = dtypes.REALS
_INDEX = (dtypes.int32, dtypes.int64)

SELU_SCALE = eigen_unary.SELU_SCALE
SELU_SCALE_ALPHA = eigen_unary.SELU_SCALE_ALPHA
_EIGEN_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float16), np.dtype(dtypes.bfloat16.as_numpy_dtype)})


def _c(value, like):
    """A 0-d constant in ``like``'s dtype (never a float64 Python scalar)."""
    return np.asarray(value, dtype=np.asarray(like).dtype)


def _activation(name, allowed=_F, attrs=None):
    return register_op(name, inputs=("features",), outputs=("activations",), attrs=attrs,
                       type_attrs={"T": "features"}, allowed={"T": allowed}, shape=unary_shape)


def _activation_grad(name, second="features", allowed=_F, attrs=None):
    return register_op(name, inputs=("gradients", second), outputs=("backprops",), attrs=attrs,
                       type_attrs={"T": ("gradients", second)}, allowed={"T": allowed},
                       shape=_same_shape("gradients", second))


def _same_shape(a, b):
    def rule(ins, attrs):
        sa, sb = ins[a].shape, ins[b].shape
        if not sa.is_compatible_with(sb):
            raise ValueError(f"Shapes {sa} and {sb} are incompatible for '{attrs.get('_op_name')}': "
                             f"{a} and {b} must have the same shape")
        return [(ins[a].dtype, sa.merge_with(sb))]

    return rule


def _check_same(a, b, what):
    if np.shape(a) != np.shape(b):
        raise invalid_argument(f"{what}: gradients and features must be the same shape: "
                               f"{list(np.shape(a))} vs {list(np.shape(b))}")


# ---------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------

@_activation("Relu", allowed=_REAL)
def relu(features):
    """activations = max(features, 0)."""
    x = np.asarray(features)
    if x.dtype.kind == "f" and x.size >= 256:
        # NumPy's maximum against a zero array of x's shape runs its vector loop (against a
        # broadcast scalar it does not): same bits, a few times faster.
        zeros = np.zeros(x.shape, x.dtype)
        return np.maximum(x, zeros, out=zeros)
    return np.maximum(x, _c(0, x))


@_activation("Relu6", allowed=_REAL)
def relu6(features):
    """activations = min(max(features, 0), 6)."""
    return np.minimum(np.maximum(features, _c(0, features)), _c(6, features))


@_activation("Elu")
def elu(features):
    """activations = exp(x) - 1 where x < 0, else x. TF computes ``exp(x) - 1``
    (not ``expm1``), so ``Elu(-1e-30) == 0`` in float32 (float32, float16, bfloat16:
    Eigen's ``exp``, :func:`ref.ops.eigen_unary.elu`)."""
    x = np.asarray(features)
    if x.dtype in _EIGEN_FLOATS:
        return eigen_unary.elu(x)
    with np.errstate(over="ignore"):
        return np.where(x < 0, np.subtract(np.exp(x), _c(1, x)), x)


@_activation("Selu")
def selu(features):
    """activations = scale_alpha * (exp(x) - 1) where x < 0, else scale * x
    (scale = 1.0507009873554805, scale_alpha = scale * 1.6732632423543772; float32, float16,
    bfloat16: Eigen's ``exp``, :func:`ref.ops.eigen_unary.selu`)."""
    x = np.asarray(features)
    if x.dtype in _EIGEN_FLOATS:
        return eigen_unary.selu(x)
    with np.errstate(over="ignore"):
        neg = np.multiply(_c(SELU_SCALE_ALPHA, x), np.subtract(np.exp(x), _c(1, x)))
    return np.where(x < 0, neg, np.multiply(x, _c(SELU_SCALE, x)))


@_activation("Softplus")
def softplus(features):
    """activations = log1p(exp(x)), TF's thresholded form: with
    ``t = log(eps) + 2`` it is x where x > -t, exp(x) where x < t (float32, float16,
    bfloat16: Eigen's ``exp`` and ``log1p``, :func:`ref.ops.eigen_unary.softplus`)."""
    x = np.asarray(features)
    if x.dtype in _EIGEN_FLOATS:
        return eigen_unary.softplus(x)
    threshold = _c(math.log(np.finfo(x.dtype).eps) + 2, x)
    with np.errstate(over="ignore"):
        e = np.exp(x)
        mid = np.log1p(e)
    return np.where(x > -threshold, x, np.where(x < threshold, e, mid))


@_activation("Softsign")
def softsign(features):
    """activations = x / (|x| + 1)."""
    x = np.asarray(features)
    return np.true_divide(x, np.add(np.absolute(x), _c(1, x)))


@_activation("LeakyRelu", attrs={"alpha": 0.2})
def leaky_relu(features, alpha=0.2):
    """activations = x where x > 0, else alpha * x."""
    x = np.asarray(features)
    return np.where(x > 0, x, np.multiply(x, _c(np.float32(alpha), x)))  # a float attr is float32 in TF


# ---------------------------------------------------------------------------
# Activation gradients
# ---------------------------------------------------------------------------

@_activation_grad("ReluGrad", allowed=_REAL)
def relu_grad(gradients, features):
    """backprops = gradients * (features > 0)."""
    _check_same(gradients, features, "ReluGrad")
    g = np.asarray(gradients)
    return np.multiply(g, np.greater(features, 0).astype(g.dtype))


@_activation_grad("Relu6Grad", allowed=_REAL)
def relu6_grad(gradients, features):
    """backprops = gradients * (0 < features < 6)."""
    _check_same(gradients, features, "Relu6Grad")
    g = np.asarray(gradients)
    inside = np.greater(features, 0) & np.less(features, 6)
    return np.multiply(g, inside.astype(g.dtype))


@_activation_grad("EluGrad", second="outputs")
def elu_grad(gradients, outputs):
    """backprops = (outputs + 1) * gradients where outputs < 0, else gradients."""
    _check_same(gradients, outputs, "EluGrad")
    y = np.asarray(outputs)
    return np.where(y < 0, np.multiply(np.add(y, _c(1, y)), gradients), gradients)


@_activation_grad("SeluGrad", second="outputs")
def selu_grad(gradients, outputs):
    """backprops = gradients * (outputs + scale_alpha) where outputs < 0, else gradients * scale."""
    _check_same(gradients, outputs, "SeluGrad")
    y = np.asarray(outputs)
    return np.where(y < 0, np.multiply(gradients, np.add(y, _c(SELU_SCALE_ALPHA, y))),
                    np.multiply(gradients, _c(SELU_SCALE, y)))


@_activation_grad("SoftplusGrad")
def softplus_grad(gradients, features):
    """backprops = gradients / (exp(-features) + 1)."""
    _check_same(gradients, features, "SoftplusGrad")
    x = np.asarray(features)
    with np.errstate(over="ignore"):
        return np.true_divide(gradients, np.add(np.exp(np.negative(x)), _c(1, x)))


@_activation_grad("SoftsignGrad")
def softsign_grad(gradients, features):
    """backprops = gradients / (|features| + 1) ** 2."""
    _check_same(gradients, features, "SoftsignGrad")
    x = np.asarray(features)
    d = np.add(np.absolute(x), _c(1, x))
    return np.true_divide(gradients, np.multiply(d, d))


@_activation_grad("LeakyReluGrad", attrs={"alpha": 0.2})
def leaky_relu_grad(gradients, features, alpha=0.2):
    """backprops = gradients where features > 0, else gradients * alpha."""
    _check_same(gradients, features, "LeakyReluGrad")
    g = np.asarray(gradients)
    return np.where(np.greater(features, 0), g, np.multiply(g, _c(np.float32(alpha), g)))


# ---------------------------------------------------------------------------
# Softmax and cross-entropy: row loops
# ---------------------------------------------------------------------------

@njit(inline="always")
def _row_max(x, i):
    """max_j x[i, j] as the loop ``m = x[i, 0]; m = x[i, j] if x[i, j] > m`` gives it
    (a NaN never replaces the running maximum; x[i, 0] NaN gives NaN), on eight
    chains of such steps over interleaved columns for a long row: each chain ends
    at the largest value of its columns, so the largest of the chains is the
    loop's value -- the same bits unless it is a zero (-0.0 == +0.0: the loop
    keeps the first zero it met), when the loop itself runs."""
    n = x.shape[1]
    m = x[i, 0]
    if n >= 32:
        m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = m
        j = 1
        while j + 8 <= n:
            v = x[i, j]
            if v > m0:
                m0 = v
            v = x[i, j + 1]
            if v > m1:
                m1 = v
            v = x[i, j + 2]
            if v > m2:
                m2 = v
            v = x[i, j + 3]
            if v > m3:
                m3 = v
            v = x[i, j + 4]
            if v > m4:
                m4 = v
            v = x[i, j + 5]
            if v > m5:
                m5 = v
            v = x[i, j + 6]
            if v > m6:
                m6 = v
            v = x[i, j + 7]
            if v > m7:
                m7 = v
            j += 8
        for q in range(j, n):
            if x[i, q] > m0:
                m0 = x[i, q]
        for v in (m1, m2, m3, m4, m5, m6, m7):
            if v > m0:
                m0 = v
        if m0 != 0:
            return m0
    for j in range(1, n):
        if x[i, j] > m:
            m = x[i, j]
    return m


@njit(inline="always")
def _max_exp_sums(x, i0, i1, zero, e, ms, ss):
    """For rows ``i0 <= i < i1`` (at most 4): ``ms[i - i0]`` = m = max_j x[i, j],
    ``e[i, j]`` = exp(x[i, j] - m) (``libm_exp.exp``: libm's function in a loop that
    vectorises), ``ss[i - i0]`` = sum_j e[i, j] left to right -- four rows' sums in
    one loop, each its own chain of additions in column order."""
    for i in range(i0, i1):
        m = _row_max(x, i)
        ms[i - i0] = m
        for j in range(x.shape[1]):
            e[i, j] = _exp(x[i, j] - m)
    if i1 - i0 == 4:
        s0 = s1 = s2 = s3 = zero
        for j in range(x.shape[1]):
            s0 += e[i0, j]
            s1 += e[i0 + 1, j]
            s2 += e[i0 + 2, j]
            s3 += e[i0 + 3, j]
        ss[0], ss[1], ss[2], ss[3] = s0, s1, s2, s3
        return
    for i in range(i0, i1):
        s = zero
        for j in range(x.shape[1]):
            s += e[i, j]
        ss[i - i0] = s


@njit(nogil=True)
def _xent_rows(x, labels, loss, backprop, zero):
    ms, ss = np.empty(4, backprop.dtype), np.empty(4, backprop.dtype)
    for i0 in range(0, x.shape[0], 4):
        i1 = min(i0 + 4, x.shape[0])
        _max_exp_sums(x, i0, i1, zero, backprop, ms, ss)
        for i in range(i0, i1):
            m, s = ms[i - i0], ss[i - i0]
            ls = math.log(s)
            acc = zero
            for j in range(x.shape[1]):
                acc += labels[i, j] * (ls - (x[i, j] - m))
            for j in range(x.shape[1]):
                backprop[i, j] = backprop[i, j] / s - labels[i, j]
            loss[i] = acc
    return loss, backprop


@njit(nogil=True)
def _sparse_xent_rows(x, labels, loss, backprop, zero):
    one = zero + 1
    n = x.shape[1]
    ms, ss = np.empty(4, backprop.dtype), np.empty(4, backprop.dtype)
    for i0 in range(0, x.shape[0], 4):
        i1 = min(i0 + 4, x.shape[0])
        _max_exp_sums(x, i0, i1, zero, backprop, ms, ss)
        for i in range(i0, i1):
            m, s = ms[i - i0], ss[i - i0]
            ls = math.log(s)
            for j in range(n):
                backprop[i, j] = backprop[i, j] / s
            k = labels[i]
            if 0 <= k < n:
                loss[i] = ls - (x[i, k] - m)
                backprop[i, k] = backprop[i, k] - one
    return loss, backprop


def _row_max_sum_numpy(x, exp, zero):
    """:func:`_row_max_exp_sum` for all rows at once: the same comparisons (a NaN
    never replaces the running maximum), libm's ``exp``, the sum left to right."""
    if x.shape[1] <= 64:
        m = x[:, 0].copy()
        for j in range(1, x.shape[1]):
            col = x[:, j]
            m = np.where(col > m, col, m)
    else:  # the same maximum without a pass per column: a NaN first keeps NaN, later NaNs
        # never win (fmax), and a zero maximum is the row's first zero (later ones are not >)
        m = np.fmax.reduce(x, axis=1)
        m = np.where(np.isnan(x[:, 0]), x[:, 0], m)
        zero_max = np.flatnonzero(m == 0)
        if zero_max.size:
            rows = x[zero_max]
            m[zero_max] = rows[np.arange(zero_max.size), np.argmax(rows == 0, axis=1)]
    shifted = x - m[:, None]
    e = exp(shifted)
    # left to right from +0, as the kernel: accumulate adds in order (+0 + e0 is e0: e is never -0)
    s = np.add.accumulate(e, axis=1)[:, -1] if x.shape[1] else np.full(x.shape[0], zero)
    return shifted, e, s


def _libm(name, x):
    """libm's ``name`` over an array like ``x``: element by element through ``ctypes`` for
    a small ``x`` (:data:`_jit.NUMPY_MAX`), else in one compiled loop
    (``gemm_llvm.libm``: the same calls, the same bits); None if there is neither."""
    if x.size > _jit.NUMPY_MAX:
        try:
            return gemm_llvm.libm(name, x.dtype)
        except Exception:  # noqa: BLE001 -- no llvmlite build here: the kernel serves
            return None
    return _jit.libm(name, x.dtype)


def _xent_rows_numpy(x, labels, loss, backprop, zero):
    """:func:`_xent_rows` in NumPy, the same operations in the same order (see ref.ops._jit)."""
    exp, log = _libm("exp", x), _libm("log", x)
    with np.errstate(all="ignore"):
        shifted, e, s = _row_max_sum_numpy(x, exp, zero)
        ls = log(s)
        acc = np.full(x.shape[0], zero)
        for j in range(x.shape[1]):
            acc = acc + labels[:, j] * (ls - shifted[:, j])
        loss[:] = acc
        backprop[:] = e / s[:, None] - labels
    return loss, backprop


def _sparse_xent_rows_numpy(x, labels, loss, backprop, zero):
    """:func:`_sparse_xent_rows` in NumPy, the same operations in the same order."""
    exp, log = _libm("exp", x), _libm("log", x)
    rows = np.arange(x.shape[0])
    with np.errstate(all="ignore"):
        shifted, e, s = _row_max_sum_numpy(x, exp, zero)
        ls = log(s)
        p = e / s[:, None]
        loss[:] = ls - shifted[rows, labels]
        p[rows, labels] = p[rows, labels] - (zero + 1)
        backprop[:] = p
    return loss, backprop


XENT_SPLIT_ELEMENTS = 1 << 16
"""Logits from which a cross entropy's rows are split among ``ref``'s matrix
threads (a 400 x 10,000 language-model softmax: ~4 ms of ``exp`` a step)."""


class _XentRows:
    """Rows ``lo:hi`` of a cross-entropy row kernel ``kernel(x, labels, loss,
    backprop, zero)``, for ``gemm.run_blocks``: every row is a function of its own
    row of ``x`` and ``labels`` alone, so the rows split among threads give the
    bits of one call over all of them."""

    def __init__(self, kernel, x, labels, loss, backprop, zero):
        self.kernel, self.x, self.labels, self.loss, self.backprop, self.zero = \
            kernel, x, labels, loss, backprop, zero

    def into_result(self, lo, hi):
        self.kernel(self.x[lo:hi], self.labels[lo:hi], self.loss[lo:hi], self.backprop[lo:hi], self.zero)

    def scratch(self, lo, hi):
        loss = np.empty(hi - lo, self.loss.dtype)
        backprop = np.empty((hi - lo,) + self.backprop.shape[1:], self.backprop.dtype)
        self.kernel(self.x[lo:hi], self.labels[lo:hi], loss, backprop, self.zero)
        return loss, backprop

    def store(self, lo, hi, scratch):
        self.loss[lo:hi], self.backprop[lo:hi] = scratch


def _sample_xent(kernel, labels):
    """A float32 ``kernel`` (softmax cross entropy's rows) on small inputs, labels of
    ``labels``' dtype and shape: its background build, once its libm form has spent
    its budget (``_jit.compiles_in_background``)."""
    def sample():
        x = np.zeros((2, 4), np.float32)
        kernel(x, labels, np.empty(2, np.float32), np.empty((2, 4), np.float32), np.float32(0))

    return sample


# (any size: past NUMPY_MAX the form's exp and log are gemm_llvm.libm's loops, a 400 x 10,000
# language-model softmax ~0.1 s -- not the seconds of the kernel's compile on a first step)
_jit.compiles_in_background(_xent_rows, _sample_xent(_xent_rows, np.zeros((2, 4), np.float32)), any_size=True)
_jit.compiles_in_background(_sparse_xent_rows, _sample_xent(_sparse_xent_rows, np.zeros(2, np.int64)),
                            any_size=True)


def _run_xent(kernel, form, x, labels, loss, backprop, zero):
    """``kernel(x, ...)``, or its NumPy ``form`` while Numba has not built it (float32:
    any size, its build in the background; else up to ``_jit.NUMPY_MAX`` elements);
    rows split among ``ref``'s matrix threads from ``XENT_SPLIT_ELEMENTS``."""
    if (x.dtype == np.float32 or x.size <= _jit.NUMPY_MAX) and _jit.numpy_tier(kernel, x.size) \
            and _libm("exp", x) is not None:
        return _jit.run_numpy_form(kernel, form, x, labels, loss, backprop, zero)
    n = x.shape[0]
    parts = min(gemm.workers(), n)
    if parts > 1 and x.size >= XENT_SPLIT_ELEMENTS:
        gemm.run_blocks(_XentRows(kernel, x, labels, loss, backprop, zero), [n * i // parts for i in range(parts + 1)])
        return loss, backprop
    return kernel(x, labels, loss, backprop, zero)


def _compute_dtype(x):
    """Numba computes float16 and bfloat16 rows in float32 (rounded back at the end)."""
    return np.dtype(np.float32) if x.dtype == np.float16 or x.dtype == dtypes.bfloat16.np else x.dtype


def _softmax(logits, log):
    """Row-wise over the last axis in x's dtype: NumPy's SIMD ``exp`` and
    pairwise row sums (3x faster here than a scalar Numba loop)."""
    x = np.asarray(logits)
    if x.ndim < 1:
        raise invalid_argument(f"logits must have >= 1 dimension, got {list(x.shape)}")
    if x.size == 0:
        return x.copy()
    if x.dtype == np.float32:  # TF's Eigen expressions (ref.ops.eigen_softmax)
        rows = np.ascontiguousarray(x).reshape(-1, x.shape[-1])
        out = eigen_softmax.log_softmax(rows) if log else eigen_softmax.softmax(rows)
        return out.reshape(x.shape)
    shifted = np.subtract(x, np.max(x, axis=-1, keepdims=True))
    e = np.exp(shifted)
    s = np.add.reduce(e, axis=-1, keepdims=True, dtype=x.dtype)
    if log:
        return np.subtract(shifted, np.log(s), out=shifted)
    return np.multiply(e, np.true_divide(_c(1, x), s), out=e)


def _softmax_shape(ins, attrs):
    s = ins["logits"].shape
    if s.ndims == 0:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{attrs.get('_op_name')}' "
                         f"with input shapes: [].")
    return [(ins["logits"].dtype, s)]


@register_op("Softmax", inputs=("logits",), outputs=("softmax",), type_attrs={"T": "logits"},
             allowed={"T": _F}, shape=_softmax_shape)
def softmax(logits):
    """softmax = exp(x - m) * (1 / sum(exp(x - m))) along the last axis, m = max(x)."""
    return _softmax(logits, log=False)


@register_op("LogSoftmax", inputs=("logits",), outputs=("logsoftmax",), type_attrs={"T": "logits"},
             allowed={"T": _F}, shape=_softmax_shape)
def log_softmax(logits):
    """logsoftmax = (x - m) - log(sum(exp(x - m))) along the last axis, m = max(x)."""
    return _softmax(logits, log=True)


def _xent_shape(ins, attrs):
    f, l = ins["features"].shape, ins["labels"].shape
    name = attrs.get("_op_name")
    for s, n in ((f, "features"), (l, "labels")):
        if s.ndims is not None and s.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.ndims} for '{name}' ({n}) "
                             f"with input shapes: {f}, {l}.")
    both = broadcast_shapes(f, l, name) if f.ndims is not None and l.ndims is not None else unknown_shape(2)
    dt = ins["features"].dtype
    return [(dt, TensorShape([both[0]])), (dt, both)]


@register_op("SoftmaxCrossEntropyWithLogits", inputs=("features", "labels"), outputs=("loss", "backprop"),
             type_attrs={"T": ("features", "labels")}, allowed={"T": _F}, shape=_xent_shape)
def softmax_cross_entropy_with_logits(features, labels):
    """Per row, with m = max(x), s = sum(exp(x - m)):
    loss = sum(labels * (log(s) - (x - m))), backprop = exp(x - m) / s - labels
    (TF's ``xent_op.h``; labels broadcast against features)."""
    x, y = np.asarray(features), np.asarray(labels)
    if x.ndim != 2 or y.ndim != 2:
        raise invalid_argument(f"logits and labels must be 2-D, got {list(x.shape)} and {list(y.shape)}")
    try:
        shape = x.shape if x.shape == y.shape else np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise invalid_argument(f"logits and labels must be broadcastable: logits_size={list(x.shape)} "
                               f"labels_size={list(y.shape)}") from None
    ct = _compute_dtype(x)
    xs = x if x.shape == shape and x.dtype == ct and x.flags.c_contiguous else \
        np.ascontiguousarray(np.broadcast_to(x, shape), dtype=ct)
    ys = y if y.shape == shape and y.dtype == ct and y.flags.c_contiguous else \
        np.ascontiguousarray(np.broadcast_to(y, shape), dtype=ct)
    loss, backprop = np.empty(shape[0], ct), np.empty(shape, ct)
    if shape[1] == 0:
        return np.full(shape[0], np.nan if shape[0] else 0, x.dtype), backprop.astype(x.dtype)
    if x.dtype == np.float32 and shape[0]:  # TF's Eigen expressions (ref.ops.eigen_softmax)
        return eigen_softmax.xent(xs, ys)
    _run_xent(_xent_rows, _xent_rows_numpy, xs, ys, loss, backprop, ct.type(0))
    return loss.astype(x.dtype, copy=False), backprop.astype(x.dtype, copy=False)


def _sparse_xent_shape(ins, attrs):
    f, l = ins["features"].shape, ins["labels"].shape
    name = attrs.get("_op_name")
    if f.ndims is not None and f.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {f.ndims} for '{name}' with input shapes: {f}, {l}.")
    if l.ndims is not None and l.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {l.ndims} for '{name}' with input shapes: {f}, {l}.")
    batch = f[0] if f.ndims is not None else None
    if l.ndims is not None and f.ndims is not None and not f[:1].is_compatible_with(l):
        raise ValueError(f"Dimensions must be equal, but are {f[0]} and {l[0]} for '{name}' "
                         f"with input shapes: {f}, {l}.")
    if batch is None and l.ndims is not None:
        batch = l[0]
    dt = ins["features"].dtype
    return [(dt, TensorShape([batch])), (dt, f if f.ndims is not None else unknown_shape(2))]


@register_op("SparseSoftmaxCrossEntropyWithLogits", inputs=("features", "labels"), outputs=("loss", "backprop"),
             type_attrs={"T": "features", "Tlabels": "labels"}, allowed={"T": _F, "Tlabels": _INDEX},
             shape=_sparse_xent_shape)
def sparse_softmax_cross_entropy_with_logits(features, labels):
    """Per row, with m = max(x), s = sum(exp(x - m)) and k = labels[i]:
    loss = log(s) - (x[k] - m), backprop = exp(x - m) / s - onehot(k).
    A label outside [0, num_classes) is InvalidArgumentError."""
    x, k = np.asarray(features), np.asarray(labels)
    dims = lambda a: "[" + ",".join(str(d) for d in a.shape) + "]"  # noqa: E731  (TF's DebugString)
    if x.ndim != 2:
        raise invalid_argument(f"logits must be 2-D, but got shape {dims(x)}")
    if k.ndim != 1:
        raise invalid_argument(f"labels must be 1-D, but got shape {dims(k)}")
    if k.shape[0] != x.shape[0]:
        raise invalid_argument(f"logits and labels must have the same first dimension, got logits shape "
                               f"{dims(x)} and labels shape {dims(k)}")
    classes = x.shape[1]
    if classes == 0:
        raise invalid_argument(f"Must have at least one class, but got logits shape {dims(x)}")
    bad = (k < 0) | (k >= classes)
    if np.any(bad):
        raise invalid_argument(f"Received a label value of {int(k[bad][0])} which is outside the valid range of "
                               f"[0, {classes}).  Label values: {' '.join(str(int(v)) for v in k)}")
    ct = _compute_dtype(x)
    xs = np.ascontiguousarray(x, dtype=ct)
    loss, backprop = np.empty(x.shape[0], ct), np.empty(x.shape, ct)
    if x.size and x.dtype == np.float32:  # TF's Eigen expressions (ref.ops.eigen_softmax)
        return eigen_softmax.sparse_xent(xs, np.asarray(k, dtype=np.int64))
    if x.size:
        _run_xent(_sparse_xent_rows, _sparse_xent_rows_numpy, xs, np.ascontiguousarray(k, dtype=np.int64), loss,
                  backprop, ct.type(0))
    return loss.astype(x.dtype, copy=False), backprop.astype(x.dtype, copy=False)


# ---------------------------------------------------------------------------
# Bias add, L2 loss, in-top-k
# ---------------------------------------------------------------------------

def _channel_axis(ndim, data_format):
    if data_format in (b"NCHW", "NCHW") and ndim >= 3:
        return 1
    return ndim - 1


def _bias_add_shape(ins, attrs):
    v, b = ins["value"].shape, ins["bias"].shape
    name = attrs.get("_op_name")
    fmt = attrs.get("data_format", "NHWC")
    if v.ndims is not None and v.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {v.ndims} for '{name}' "
                         f"with input shapes: {v}, {b}.")
    if b.ndims is not None and b.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {b.ndims} for '{name}' with input shapes: {v}, {b}.")
    if v.ndims is None or b.ndims is None:
        return [(ins["value"].dtype, v)]
    c = _channel_axis(v.ndims, fmt)
    if v[c] is not None and b[0] is not None and v[c] != b[0]:
        raise ValueError(f"Dimensions must be equal, but are {v[c]} and {b[0]} for '{name}' "
                         f"with input shapes: {v}, {b}.")
    dims = v.as_list()
    dims[c] = dims[c] if dims[c] is not None else b[0]
    return [(ins["value"].dtype, TensorShape(dims))]


def _bias_add(value, bias, data_format):
    v, b = np.asarray(value), np.asarray(bias)
    if v.ndim == 2 and b.ndim == 1 and v.shape[1] == b.shape[0]:  # [batch, channels]: the common case
        return np.add(v, b)
    if v.ndim < 2:
        raise invalid_argument(f"Input tensor must be at least 2D: {list(v.shape)}")
    if b.ndim != 1:
        raise invalid_argument(f"Biases must be 1D: {list(b.shape)}")
    c = _channel_axis(v.ndim, data_format)
    if v.shape[c] != b.shape[0]:
        raise invalid_argument(f"Must provide as many biases as the channel dimension of the input tensor: "
                               f"{list(b.shape)} vs. {list(v.shape)}")
    return np.add(v, b.reshape((-1,) + (1,) * (v.ndim - 1 - c)))


@register_op("BiasAdd", inputs=("value", "bias"), attrs={"data_format": "NHWC"},
             type_attrs={"T": ("value", "bias")}, allowed={"T": dtypes.NUMBERS}, shape=_bias_add_shape)
def bias_add(value, bias, data_format="NHWC"):
    """output = value + bias along the channel axis (last for NHWC, 1 for NCHW)."""
    return _bias_add(value, bias, data_format)


@register_op("BiasAddV1", inputs=("value", "bias"), type_attrs={"T": ("value", "bias")},
             allowed={"T": dtypes.NUMBERS}, shape=_bias_add_shape)
def bias_add_v1(value, bias):
    """output = value + bias along the last axis."""
    return _bias_add(value, bias, "NHWC")


def _bias_add_grad_shape(ins, attrs):
    s = ins["out_backprop"].shape
    if s.ndims is None:
        return [(ins["out_backprop"].dtype, TensorShape([None]))]
    if s.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims} for "
                         f"'{attrs.get('_op_name', 'BiasAddGrad')}' (op: 'BiasAddGrad') with input shapes: {s}.")
    return [(ins["out_backprop"].dtype, TensorShape([s[_channel_axis(s.ndims, attrs.get("data_format"))]]))]


@register_op("BiasAddGrad", inputs=("out_backprop",), attrs={"data_format": "NHWC"},
             type_attrs={"T": "out_backprop"}, allowed={"T": dtypes.NUMBERS}, shape=_bias_add_grad_shape)
def bias_add_grad(out_backprop, data_format="NHWC"):
    """output[c] = sum of out_backprop over every axis but the channel axis, in TF's order
    for float types (:mod:`ref.ops.eigen_redux`): NHWC's ``ReduceOuterDimensions``,
    NCHW's ``ReduceMiddleDimensions`` (float32/float64; half there in NumPy's order)."""
    g = np.asarray(out_backprop)
    if g.ndim < 2:
        raise invalid_argument(f"Input tensor must be at least 2D: {list(g.shape)}")
    nchw = data_format in ("NCHW", b"NCHW")
    c = 1 if nchw else g.ndim - 1
    if g.size and nchw and g.dtype in (np.float32, np.float64):
        return eigen_redux.reduce_middle_dims(g.reshape(g.shape[0], g.shape[1], -1))
    if g.size and not nchw and g.dtype.kind == "f":
        return eigen_redux.reduce_outer_dims(np.ascontiguousarray(g).reshape(-1, g.shape[-1]))
    axes = tuple(a for a in range(g.ndim) if a != c)
    return np.add.reduce(g, axis=axes, dtype=g.dtype)


@register_op("L2Loss", inputs=("t",), type_attrs={"T": "t"}, allowed={"T": _F},
             shape=lambda ins, attrs: [(ins["t"].dtype, TensorShape([]))])
def l2_loss(t):
    """output = sum(t * t * 0.5) (TF's form of sum(t ** 2) / 2; float32/float64 summed as
    Eigen's full reduction of that two-operation expression, :mod:`ref.ops.eigen_reduce`)."""
    x = np.asarray(t)
    y = np.multiply(x, x, out=np.empty(x.shape, x.dtype))
    np.multiply(y, _c(0.5, x), out=y)  # the same two roundings, one temporary (the LM's [200, 10000] clip)
    if x.dtype in (np.float32, np.float64) and y.size:
        return np.asarray(eigen_reduce.full(y.reshape(-1), cost=eigen_reduce.value_cost(x.dtype, 2)))
    return np.asarray(np.add.reduce(y, axis=None, dtype=x.dtype))


def _in_top_k_shape(ins, attrs):
    p, t = ins["predictions"].shape, ins["targets"].shape
    name = attrs.get("_op_name")
    if p.ndims is not None and p.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {p.ndims} for '{name}' with input shapes: {p}, {t}.")
    if t.ndims is not None and t.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {t.ndims} for '{name}' with input shapes: {p}, {t}.")
    batch = p[0] if p.ndims is not None else (t[0] if t.ndims is not None else None)
    return [(dtypes.bool, TensorShape([batch]))]


@register_op("InTopKV2", inputs=("predictions", "targets", "k"), outputs=("precision",),
             type_attrs={"T": ("targets", "k")}, allowed={"T": _INDEX}, shape=_in_top_k_shape)
def in_top_k_v2(predictions, targets, k):
    """precision[i] = fewer than k classes score strictly higher than
    predictions[i, targets[i]]; False for an out-of-range target or a
    non-finite target score."""
    p, t = np.asarray(predictions), np.asarray(targets)
    k = int(np.asarray(k))
    if p.ndim != 2 or t.ndim != 1 or p.shape[0] != t.shape[0]:
        raise invalid_argument(f"First dimension of predictions {p.shape[0] if p.ndim else 0} must match "
                               f"length of targets {t.shape[0] if t.ndim else 0}")
    classes = p.shape[1]
    valid = (t >= 0) & (t < classes)
    rows = np.arange(p.shape[0])
    target_score = p[rows, np.where(valid, t, 0)] if classes else np.zeros(p.shape[0], p.dtype)
    higher = np.sum(p > target_score[:, None], axis=1)
    return valid & np.isfinite(target_score) & (higher < k)


# -- data format permutations (TF's kernels/data_format_ops) -------------------

def _format_check(src_format, dst_format):
    """TF's construction checks: lengths 4 or 5 and ``dst_format`` a permutation of ``src_format``."""
    src = src_format.decode() if isinstance(src_format, bytes) else src_format
    dst = dst_format.decode() if isinstance(dst_format, bytes) else dst_format
    if len(src) not in (4, 5):
        raise invalid_argument(f"Source format must be of length 4 or 5, received src_format = {src}")
    if len(dst) not in (4, 5):
        raise invalid_argument(f"Destination format must be of length 4 or 5, received dst_format = {dst}")
    if len(src) != len(dst) or len(set(src)) != len(src) or sorted(src) != sorted(dst):
        raise invalid_argument(f"Destination and source format must determine a permutation, got {src} and {dst}")
    return src, dst


@register_op("DataFormatDimMap", inputs=("x",), outputs=("y",), attrs={"src_format": "NHWC", "dst_format": "NCHW"},
             type_attrs={"T": "x"}, allowed={"T": _INDEX}, shape=unary_shape)
def data_format_dim_map(x, src_format="NHWC", dst_format="NCHW"):
    """y = the index in ``dst_format`` of the dimension ``src_format[x]``; x in [-n, n)
    counts from the end when negative (n = the format's length)."""
    src, dst = _format_check(src_format, dst_format)
    n = len(src)
    table = np.array([dst.index(c) for c in src], dtype=np.asarray(x).dtype)
    x_mod = np.fmod(np.asarray(x) + n, n)  # C's remainder, as TF: values below -n fall to the last entry
    return np.where((x_mod >= 0) & (x_mod < n - 1), table[np.clip(x_mod, 0, n - 1)], table[n - 1])


@register_op("DataFormatVecPermute", inputs=("x",), outputs=("y",),
             attrs={"src_format": "NHWC", "dst_format": "NCHW"}, type_attrs={"T": "x"}, allowed={"T": _INDEX},
             shape=unary_shape)
def data_format_vec_permute(x, src_format="NHWC", dst_format="NCHW"):
    """The rows of x (one per dimension of ``src_format``, or per spatial dimension
    when x has n - 2 rows) reordered as ``dst_format`` orders those dimensions."""
    src, dst = _format_check(src_format, dst_format)
    x = np.asarray(x)
    shape = "[" + ",".join(map(str, x.shape)) + "]"  # TF's TensorShape::DebugString
    if x.ndim not in (1, 2):
        raise invalid_argument(f"input must be a vector or 2D tensor, but got shape {shape}")
    full, spatial = len(src), len(src) - 2
    if x.shape[0] not in (spatial, full):
        what = "1D input" if x.ndim == 1 else "First dimension of 2D input"
        raise invalid_argument(f"{what} must be of size {spatial} or {full}, but got shape {shape}")
    if x.ndim == 2 and x.shape[1] != 2:
        raise invalid_argument(f"Second dimension of 2D input must be of size 2, but got shape {shape}")
    if x.shape[0] == spatial:
        keep = "HW" if spatial == 2 else "DHW"
        src, dst = [c for c in src if c in keep], [c for c in dst if c in keep]
        if len(src) != spatial or len(dst) != spatial:
            letters = "H and W" if spatial == 2 else "D, H and W"
            raise invalid_argument(f"Format specifier must contain {letters} for 2D case")
    y = np.empty_like(x)
    for i, c in enumerate(src):
        y[dst.index(c)] = x[i]
    return y


# -- isotonic regression (TF's kernels/isotonic_regression_op.cc) ----------------

_ISOTONIC_OUT = {dtypes.int8: dtypes.float32, dtypes.int16: dtypes.float32, dtypes.int32: dtypes.float64,
                 dtypes.int64: dtypes.float64}


@njit
def _pava_rows(x, out, seg):
    """Pool-adjacent-violators on each row of ``x`` (already in the output dtype): a pool
    is pushed per column and merged into the one before while its mean is the larger
    (the non-increasing fit); a merged pool's value is its sum over its count."""
    rows, n = x.shape
    sums = np.empty(n, x.dtype)
    counts = np.empty(n, x.dtype)  # the count in the sum's dtype: the mean is sum / count in that dtype
    means = np.empty(n, x.dtype)
    starts = np.empty(n, np.int64)
    for r in range(rows):
        top = -1
        for c in range(n):
            top += 1
            sums[top] = x[r, c]
            counts[top] = 1
            means[top] = x[r, c]
            starts[top] = c
            while top > 0 and means[top] > means[top - 1]:
                sums[top - 1] += sums[top]
                counts[top - 1] += counts[top]
                means[top - 1] = sums[top - 1] / counts[top - 1]
                top -= 1
        for p in range(top + 1):
            stop = starts[p + 1] if p < top else n
            for c in range(starts[p], stop):
                out[r, c] = means[p]
                seg[r, c] = p


def _isotonic_shape(ins, attrs):
    s = ins["input"].shape
    return [(dtypes.as_dtype(attrs["output_dtype"]), s), (dtypes.int32, s)]


@register_op("IsotonicRegression", inputs=("input",), outputs=("output", "segments"),
             attrs={"output_dtype": dtypes.float32}, type_attrs={"T": "input"}, allowed={"T": _REAL},
             shape=_isotonic_shape)
def isotonic_regression(input, output_dtype=dtypes.float32):
    """The non-increasing least-squares fit of each row (the last axis) of ``input``
    and each element's pool index (0, 1, ... along the row). TF's CPU kernels: a float
    input in its own dtype, int8/int16 in float32, int32/int64 in float64."""
    x = np.asarray(input)
    in_dt, out_dt = dtypes.as_dtype(x.dtype), dtypes.as_dtype(output_dtype)
    if _ISOTONIC_OUT.get(in_dt, in_dt) != out_dt:
        raise invalid_argument(f"No OpKernel was registered to support Op 'IsotonicRegression' with these "
                               f"attrs: T={in_dt.name}, output_dtype={out_dt.name}")
    shape = x.shape
    n = shape[-1] if shape else 1
    flat = x.reshape(-1, n).astype(out_dt.np) if n else x.reshape(0, 0).astype(out_dt.np)
    out = np.empty(flat.shape, out_dt.np)
    seg = np.empty(flat.shape, np.int32)
    if out_dt in (dtypes.float32, dtypes.float64):
        _pava_rows(flat, out, seg)
    else:  # half, bfloat16: NumPy scalars round each operation to the dtype, as Eigen's half types
        _pava_rows.py_func(flat, out, seg)
    return out.reshape(shape), seg.reshape(shape)
