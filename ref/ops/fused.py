"""Two ops in one pass, as TF's grappler remapper fuses them on CPU: a compiled
plan (``ref.session.interpreter.compile_plan``) runs these in place of

* ``BiasAdd`` followed by the ``Relu`` that alone reads it:
  ``activations = max(value + bias, 0)``, the sum never stored;
* ``ReluGrad`` and the ``BiasAddGrad`` of its result:
  ``backprops = gradients * (features > 0)`` and
  ``bias_grad[c] = sum over rows of backprops[:, c]``, in one sweep of the rows
  (a matrix, or an NHWC tensor as its ``[N*H*W, C]`` rows: a conv layer's), where
  TF's ``BiasAddGrad`` also sums the rows one after the other
  (:func:`ref.ops.eigen_redux.row_after_row`; large inputs it sums in blocks);
* an LSTM cell's gates (``BasicLSTMCell``, ``LSTMCell`` without peepholes or
  clipping): ``c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)``,
  ``h' = tanh(c') * sigmoid(o)`` -- the ten ``AddV2``/``Sigmoid``/``Mul``/``Tanh``
  ops as two compiled passes around NumPy's ``exp`` (once, over the three
  sigmoids' arguments) and ``tanh`` for float64; for float32, TF's Eigen
  ``Sigmoid``/``Tanh`` (:mod:`ref.ops.eigen_math`) over each gate's tensor
  (:func:`lstm_cell`);
* that cell's gradient: the ``ConcatV2`` of its four gates' ``SigmoidGrad`` /
  ``TanhGrad`` of ``Mul``\\ s, and the gradient of ``c'`` (a ``TanhGrad`` of a
  ``Mul``, plus the one carried from the next step by ``AddN``) -- nothing but
  IEEE multiplications, subtractions and additions, so one compiled pass
  (:func:`lstm_cell_grads`).

Each gives the bits of the two kernels one after the other (``ref.ops.nn``):
the same IEEE operations in the same order -- ``max`` as NumPy's (a NaN passes,
-0 becomes +0), ``gradients * 1`` or ``gradients * 0`` (so ``inf * 0`` is
NaN, as TF's), and the bias gradient summed row after row from the first row,
as NumPy's ``add.reduce(axis=0)`` sums a C-contiguous matrix of two or more
columns (a NaN's sign and payload aside: which of two NaNs a sum passes on
is the compiler's choice of operand order, and TF promises no NaN bits). The
LSTM cell's transcendental functions are the ops' own (float64 ``Sigmoid`` is
``1 / (1 + exp(-x))`` on NumPy's ``exp``, ``Tanh`` NumPy's ``tanh``: SIMD
code whose bits a compiled loop's ``exp``/``tanh`` do not reproduce); only
its additions, negations, multiplications and the reciprocal's division -- each
one IEEE operation, correctly rounded wherever it runs -- are compiled. Anything else (other dtypes or layouts, one column, a small input
while Numba is not loaded) runs the two kernels themselves.
"""
from __future__ import annotations

import numpy as np

from ref.ops import _jit, conv, eigen_math, eigen_redux, fpenv, patch_products
from ref.ops._jit import njit, numpy_tier, run_numpy_form

_FAST = (np.dtype(np.float32), np.dtype(np.float64))


@njit(nogil=True)
def _bias_relu_rows(value, bias, out, zero):
    """out[i, j] = max(value[i, j] + bias[j], 0) (NumPy's max: NaN kept, +0 for -0)."""
    for i in range(value.shape[0]):
        for j in range(value.shape[1]):
            x = value[i, j] + bias[j]
            out[i, j] = x if not x <= zero else zero
    return out


@njit(nogil=True)
def _relu_bias_grad_rows(gradients, features, backprops, bias_grad, one, zero):
    """backprops = gradients * (features > 0); bias_grad = its rows summed in order,
    from +0 (as NumPy's and TF's sums: a column of -0 sums to +0)."""
    for i in range(gradients.shape[0]):
        for j in range(gradients.shape[1]):
            g = gradients[i, j] * (one if features[i, j] > zero else zero)
            backprops[i, j] = g
            if i == 0:
                bias_grad[j] = zero + g
            else:
                bias_grad[j] += g
    return backprops, bias_grad


def _matrix(x, channels):
    """``x`` as a C-contiguous [rows, channels] view, or None."""
    if x.__class__ is not np.ndarray or x.dtype not in _FAST or not x.flags.c_contiguous or x.ndim < 2 \
            or x.shape[-1] != channels or not x.size:
        return None
    return x.reshape(-1, channels)


def _fused_or_form(kernel, size, fused, unfused):
    """``fused()``; ``unfused()`` (the two kernels, the fused kernel's exact NumPy
    form) for a small input while Numba has not built ``kernel``."""
    if numpy_tier(kernel, size):
        return run_numpy_form(kernel, unfused)
    return fused()


def bias_relu(bias_add, relu, value, bias, data_format="NHWC"):
    """``relu(bias_add(value, bias, data_format))`` in one pass where it can be
    (``bias_add`` and ``relu``: the two ops' kernels, run as they are otherwise)."""
    def unfused():
        return relu(bias_add(value, bias, data_format=data_format))

    v = None
    if value.__class__ is np.ndarray and bias.__class__ is np.ndarray and bias.ndim == 1 \
            and (data_format == "NHWC" or value.ndim == 2) and bias.dtype == value.dtype:
        v = _matrix(value, bias.shape[0])
    if v is None:
        return unfused()

    def fused():
        out = np.empty(value.shape, value.dtype)
        _bias_relu_rows(v, bias, out.reshape(v.shape), value.dtype.type(0))
        return out

    return _fused_or_form(_bias_relu_rows, v.size, fused, unfused)


def conv_bias_relu(x, f, bias, attrs, data_format="NHWC"):
    """``Relu(BiasAdd(Conv2D(x, f, **attrs), bias, data_format))`` in one pass, or None
    where that is not done (the caller runs the three kernels): NHWC float32/64 of one
    dtype, a convolution ``ref.ops.conv`` computes in chunks of patch rows
    (``patch_products.correlates``), whose rows get ``max(row + bias, 0)`` while they
    are in cache. The convolution's bits are Conv2D's (the same chains), then the same
    two IEEE operations as ``BiasAdd`` and ``Relu``: the bits of the three ops."""
    if not (x.__class__ is np.ndarray and f.__class__ is np.ndarray and bias.__class__ is np.ndarray) \
            or x.ndim != 4 or f.ndim != 4 or bias.ndim != 1 or x.dtype not in _FAST or f.dtype != x.dtype \
            or bias.dtype != x.dtype or data_format not in ("NHWC", b"NHWC"):
        return None
    fmt, strides, padding = attrs.get("data_format", "NHWC"), attrs["strides"], attrs["padding"]
    dilations, explicit = attrs.get("dilations", (1, 1, 1, 1)), attrs.get("explicit_paddings", ())
    kh, kw, c, o = f.shape
    if fmt not in ("NHWC", b"NHWC") or x.shape[3] != c or bias.shape[0] != o or not x.size or not f.size:
        return None
    try:
        conv.check_attrs(list(strides), list(dilations), padding, list(explicit or ()), fmt, "Conv2D")
    except ValueError:
        return None
    g = conv.Geometry(x.shape[1], x.shape[2], kh, kw, strides, dilations, padding, list(explicit or ()), fmt)
    fm = np.ascontiguousarray(f).reshape(-1, o)
    if g.oh <= 0 or g.ow <= 0 or conv._pointwise(g) or not patch_products.correlates(
            x, fm, g.oh * g.ow, (kh, kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw)):
        return None
    out = np.empty((x.shape[0], g.oh, g.ow, o), x.dtype)
    conv._Images(out, x, fm, (kh, kw, g.oh, g.ow, g.sh, g.sw, g.dh, g.dw), (g.ph0, g.pw0), bias).run(
        g.oh * g.ow * kh * kw * c * o)
    return out


def _sample_bias_relu():
    """The float32 fused loops on small inputs: their background builds, while the two
    kernels each (their exact form) serve inputs of any size (``_jit.compiles_in_background``)."""
    v = np.ones((4, 8), np.float32)
    _bias_relu_rows(v, v[0].copy(), np.empty_like(v), np.float32(0))


def _sample_relu_bias_grad():
    v = np.ones((4, 8), np.float32)
    _relu_bias_grad_rows(v, v.copy(), np.empty_like(v), np.empty(8, np.float32), np.float32(1), np.float32(0))


_jit.compiles_in_background(_bias_relu_rows, _sample_bias_relu, any_size=True)
_jit.compiles_in_background(_relu_bias_grad_rows, _sample_relu_bias_grad, any_size=True)


def relu_bias_grads(relu_grad, bias_add_grad, gradients, features, data_format="NHWC"):
    """``(relu_grad(gradients, features), bias_add_grad(that, data_format))`` in
    one sweep where it can be; ``bias_add_grad`` is called with the first result
    otherwise (so its own errors are its own)."""
    def unfused():
        backprops = relu_grad(gradients, features)
        return backprops, bias_add_grad(backprops, data_format=data_format)

    g = f = None
    # [rows, channels], or NHWC with the channels last: NumPy's reduction over the
    # leading axes of a C-contiguous array coalesces them into one, so its sum is the
    # same row-after-row sum as the 2-D case (a conv layer's ReluGrad + BiasAddGrad)
    if gradients.__class__ is np.ndarray and gradients.ndim >= 2 and gradients.shape[-1] > 1 \
            and (gradients.ndim == 2 or data_format in ("NHWC", b"NHWC")) \
            and features.__class__ is np.ndarray and features.shape == gradients.shape \
            and features.dtype == gradients.dtype \
            and eigen_redux.row_after_row(gradients.size // gradients.shape[-1], gradients.shape[-1],
                                          gradients.dtype):  # (TF's blocks of rows otherwise)
        g, f = _matrix(gradients, gradients.shape[-1]), _matrix(features, gradients.shape[-1])
    if g is None or f is None:
        return unfused()

    def fused():
        backprops, bias_grad = np.empty(gradients.shape, g.dtype), np.empty(g.shape[1], g.dtype)
        t = g.dtype.type
        _relu_bias_grad_rows(g, f, backprops.reshape(g.shape), bias_grad, t(1), t(0))
        return backprops, bias_grad

    return _fused_or_form(_relu_bias_grad_rows, g.size, fused, unfused)


@njit(nogil=True)
def _lstm_in(f, bias, i, o, t, e):
    """t = f + bias; e[0] = -t, e[1] = -i, e[2] = -o (the sigmoids' arguments negated)."""
    n = f.size
    ff, ii, oo, tt, ee = f.reshape(-1), i.reshape(-1), o.reshape(-1), t.reshape(-1), e.reshape(-1)
    for k in range(n):
        x = ff[k] + bias
        tt[k] = x
        ee[k] = -x
        ee[n + k] = -ii[k]
        ee[2 * n + k] = -oo[k]


@njit(nogil=True)
def _lstm_mid(c, e, tj, m1, m2, new_c, one):
    """e <- 1 / (e + 1) (exp already applied: the three sigmoids); m1 = c * sigmoid(f + bias),
    m2 = sigmoid(i) * tanh(j), new_c = m1 + m2."""
    n = c.size
    cc, ee, jj, a, b, s = c.reshape(-1), e.reshape(-1), tj.reshape(-1), m1.reshape(-1), m2.reshape(-1), new_c.reshape(-1)
    for k in range(3 * n):
        ee[k] = one / (ee[k] + one)
    for k in range(n):
        x = cc[k] * ee[k]
        y = ee[n + k] * jj[k]
        a[k] = x
        b[k] = y
        s[k] = x + y


LSTM_OUTPUTS = ("f_biased", "sigmoid_f", "c_kept", "sigmoid_i", "tanh_j", "c_added", "new_c", "tanh_new_c",
                "sigmoid_o", "new_h")
"""What :func:`lstm_cell` returns, in order: each op of the cell's value."""


def lstm_cell(unfused, c, i, j, f, forget_bias, o):
    """The cell's ten values (:data:`LSTM_OUTPUTS`) from the state ``c``, the
    gates ``i, j, f, o`` and ``forget_bias``; ``unfused()`` (the ops' own kernels
    one after the other, returning the same ten) where the inputs are not four
    same-shaped contiguous float32/float64 arrays and a 0-d ``forget_bias`` of
    their dtype, or a small input while Numba has not built the passes."""
    x = c
    if not (x.__class__ is np.ndarray and x.dtype in _FAST and x.flags.c_contiguous and x.size
            and all(g.__class__ is np.ndarray and g.dtype == x.dtype and g.shape == x.shape and g.flags.c_contiguous
                    for g in (i, j, f, o))
            and forget_bias.__class__ is np.ndarray and forget_bias.dtype == x.dtype and forget_bias.ndim == 0):
        return unfused()
    if numpy_tier(_lstm_mid, x.size):
        return run_numpy_form(_lstm_mid, unfused)
    shape, dtype = x.shape, x.dtype
    if dtype == np.float32:  # Eigen's sigmoid and tanh, each over its own gate tensor as the ops run them
        token = fpenv.ignore_errors()  # inf * 0 is NaN, as in the Mul kernel, without a warning
        try:
            t = np.add(f, forget_bias)
            sf, si, tj = eigen_math.sigmoid(t), eigen_math.sigmoid(i), eigen_math.tanh(j)
            m1, m2 = np.multiply(c, sf), np.multiply(si, tj)
            new_c = np.add(m1, m2)
            tc, so = eigen_math.tanh(new_c), eigen_math.sigmoid(o)
            return t, sf, m1, si, tj, m2, new_c, tc, so, np.multiply(tc, so)
        finally:
            fpenv.restore_errors(token)
    t = np.empty(shape, dtype)
    e = np.empty((3,) + shape, dtype)
    _lstm_in(f, forget_bias[()], i, o, t, e)
    token = fpenv.ignore_errors()  # exp's overflow is sigmoid's 0, as in the Sigmoid kernel
    try:
        np.exp(e, out=e)
    finally:
        fpenv.restore_errors(token)
    tj = np.tanh(j)
    m1, m2, new_c = np.empty(shape, dtype), np.empty(shape, dtype), np.empty(shape, dtype)
    _lstm_mid(c, e, tj, m1, m2, new_c, dtype.type(1))
    tc = np.tanh(new_c)
    return t, e[0], m1, e[1], tj, m2, new_c, tc, e[2], np.multiply(tc, e[2])


@njit(nogil=True)
def _lstm_grad_rows(a, b, yt, carry, has_carry, carry_first, p, r, y, tanh_gate, p_d, r_d, pos, out, d, one, tail):
    """The cell's gradient, element by element (each op's IEEE operations in its order):
    ``d = [carry +] TanhGrad(yt, a * b)`` and, for each gate ``q``,
    ``out[:, pos[q]]`` = ``SigmoidGrad`` or ``TanhGrad`` of ``y[q]`` and ``p[q] * r[q]``
    (``d`` in place of ``p[q]`` / ``r[q]`` where ``p_d[q]`` / ``r_d[q]``). SigmoidGrad is
    ``m * (v * (1 - v))`` on whole packets and ``(m * v) * (1 - v)`` from flat position
    ``tail`` on (:func:`ref.ops.eigen_unary.sigmoid_grad`)."""
    rows, u = a.shape
    for i in range(rows):
        for k in range(u):
            t = a[i, k] * b[i, k]
            z = yt[i, k]
            g = t * (one - z * z)
            if has_carry:
                g = carry[i, k] + g if carry_first else g + carry[i, k]
            d[i, k] = g
            for q in range(4):
                x = g if p_d[q] else p[q][i, k]
                w = g if r_d[q] else r[q][i, k]
                m = x * w
                v = y[q][i, k]
                if tanh_gate[q]:
                    out[i, pos[q] * u + k] = m * (one - v * v)
                elif i * u + k < tail:
                    out[i, pos[q] * u + k] = m * (v * (one - v))
                else:
                    out[i, pos[q] * u + k] = (m * v) * (one - v)


def lstm_cell_grads(unfused, axis, a, b, yt, carry, carry_first, gates):
    """``(concat, d)``: an LSTM cell's gate gradients joined along axis 1 (``axis``:
    the ``ConcatV2``'s axis input) and ``d``, the gradient of its new state ``c'``
    (``[carry +] TanhGrad(yt, a * b)``, ``carry`` None when there is none); ``gates``,
    in the concat's order: ``(tanh, p, r, y)`` each, the gate's gradient being
    ``TanhGrad(y, p * r)`` (``tanh``) or ``SigmoidGrad(y, p * r)``, ``p`` or ``r``
    None for ``d``. ``unfused()`` (the ops one after the other) where the arrays are
    not same-shaped C-contiguous float32/float64 matrices or the axis is not 1 / -1."""
    arrays = [a, b, yt] + ([] if carry is None else [carry]) + [x for g in gates for x in g[1:] if x is not None]
    x0 = a
    ax = axis.reshape(-1)[0] if axis.__class__ is np.ndarray and axis.size == 1 and axis.dtype.kind in "iu" else None
    if not (x0.__class__ is np.ndarray and x0.dtype in _FAST and x0.ndim == 2 and x0.size and ax in (1, -1)
            and all(x.__class__ is np.ndarray and x.dtype == x0.dtype and x.shape == x0.shape and x.flags.c_contiguous
                    for x in arrays)):
        return unfused()
    if numpy_tier(_lstm_grad_rows, x0.size):
        return run_numpy_form(_lstm_grad_rows, unfused)
    rows, u = x0.shape
    out = np.empty((rows, 4 * u), x0.dtype)
    d = np.empty((rows, u), x0.dtype)
    p = tuple(_writable(a if g[1] is None else g[1]) for g in gates)  # tuples of one array type
    r = tuple(_writable(a if g[2] is None else g[2]) for g in gates)
    y = tuple(_writable(g[3]) for g in gates)
    flags = np.array([[g[0], g[1] is None, g[2] is None] for g in gates], np.bool_)
    _lstm_grad_rows(a, b, yt, a if carry is None else carry, carry is not None, bool(carry_first), p, r, y,
                    flags[:, 0].copy(), flags[:, 1].copy(), flags[:, 2].copy(), np.arange(4, dtype=np.int64), out, d,
                    x0.dtype.type(1), x0.size - x0.size % (8 if x0.dtype == np.float32 else 4))
    return out, d


class _Memory:
    """A read-only array's memory seen as writable (``__array_interface__`` with the
    read-only flag off), so that a tuple of arrays has one Numba type; the
    passes only read it."""

    def __init__(self, x):
        self.x = x
        face = dict(x.__array_interface__)
        face["data"] = (face["data"][0], False)
        self.__array_interface__ = face


def _writable(x):
    return x if x.flags.writeable else np.asarray(_Memory(x))
