"""``tf.test``: ``TestCase`` and ``main`` (:mod:`ref.test_util`), the gradient checker (``compute_gradient``,
``compute_gradient_error``) comparing theoretical and numeric Jacobians.

As in TensorFlow: the theoretical Jacobian comes from ``gradients`` with a
one-hot ``grad_ys`` per output element; the numeric one from central
differences ``(y(x + delta) - y(x - delta)) / (2 delta)``. Jacobians are laid
out ``[x_size, y_size]``.
"""
from __future__ import annotations

from unittest import mock as _mock

import numpy as np

from ref.types import dtypes
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import convert_to_tensor
from ref.session import get_default_session
from ref.session.devices import gpu_count
from ref.graph_ops.control_flow_ops import placeholder
from ref.grad import gradients
from ref.test_util import TestCase, create_local_cluster, get_temp_dir, main  # noqa: F401  (tf.test.*)

mock = _mock  # tf.test.mock: unittest.mock


def _session():
    s = get_default_session()
    if s is None:
        raise ValueError("compute_gradient needs a default session (use `with tf.Session():`)")
    return s


def _dense(v, shape):
    if hasattr(v, "indices") and hasattr(v, "values"):  # IndexedSlicesValue
        out = np.zeros(shape, dtype=v.values.dtype)
        np.add.at(out, np.asarray(v.indices), v.values)
        return out
    return np.asarray(v).reshape(shape)


def _jacobians(x, x_shape, y, y_shape, x_value, delta, feeds):
    """Jacobians laid out as TF's: a complex element counts as two reals (its real
    and imaginary parts, interleaved), so a complex scalar gives 2x2."""
    sess = _session()
    x_dt, y_dt = x.dtype.base_dtype, y.dtype.base_dtype
    x_size = int(np.prod(x_shape)) * (2 if x_dt.is_complex else 1)
    y_size = int(np.prod(y_shape)) * (2 if y_dt.is_complex else 1)
    real = x_dt.real_dtype.np
    dy = placeholder(y_dt, list(y_shape))
    (g,) = gradients(y, [x], grad_ys=[dy])
    theoretical = np.zeros((x_size, y_size), dtype=real)
    if g is not None:
        dy_value = np.zeros(y_shape, dtype=y_dt.np)
        dy_flat = dy_value.reshape(-1).view(y_dt.real_dtype.np)  # real and imaginary parts, one by one
        for j in range(y_size):
            dy_flat[j] = 1
            gv = sess.run(g, {**feeds, x: x_value, dy: dy_value})
            theoretical[:, j] = np.ascontiguousarray(_dense(gv, x_shape), dtype=x_dt.np).reshape(-1).view(real)
            dy_flat[j] = 0
        if not y_size:  # TF: an empty output's gradient still runs once: x's shape, all zeros
            gv = sess.run(g, {**feeds, x: x_value, dy: dy_value})
            backprop = _dense(gv, x_shape) if hasattr(gv, "indices") else np.asarray(gv)
            if backprop.shape != x_value.shape:
                raise ValueError(f"Empty gradient has wrong shape: expected {x_value.shape}, got {backprop.shape}")
            if np.any(backprop):
                raise ValueError("Empty tensor with nonzero gradients")
    numeric = np.zeros((x_size, y_size), dtype=real)
    wide = np.complex128 if y_dt.is_complex else np.float64
    for i in range(x_size):
        plus, minus = x_value.copy(), x_value.copy()
        plus.reshape(-1).view(real)[i] += delta
        minus.reshape(-1).view(real)[i] -= delta
        yp = np.asarray(sess.run(y, {**feeds, x: plus}), dtype=wide)
        ym = np.asarray(sess.run(y, {**feeds, x: minus}), dtype=wide)
        numeric[i, :] = ((yp - ym) / (2 * delta)).reshape(-1).view(np.float64)
    return theoretical, numeric


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """(theoretical, numeric) Jacobians of ``y`` w.r.t. ``x`` (lists of pairs for a list ``x``)."""
    if init_targets is not None:
        _session().run(init_targets)
    feeds = dict(extra_feed_dict or {})
    if isinstance(x, (list, tuple)):
        # As TF: one x at a time, its point drawn in turn; the others keep their
        # graph values (TF feeds nothing else), except placeholders, which
        # TF could not run: they get their given value or a draw of their own
        # that leaves the global stream as TF's.
        inits = x_init_value or [None] * len(x)
        out = []
        for xi, si, vi in zip(x, x_shape, inits):
            others = {}
            for xj, sj, vj in zip(x, x_shape, inits):
                if xj is not xi and xj.op.type == "Placeholder":
                    others[xj] = vj if vj is not None else _random(xj, sj, np.random.RandomState(1))
            out.append(_jacobians(xi, si, y, y_shape, _init(xi, si, vi), delta, {**feeds, **others}))
        return out
    return _jacobians(x, x_shape, y, y_shape, _init(x, x_shape, x_init_value), delta, feeds)


def _random(x, shape, rng=np.random):
    """TF's default point: uniform [0, 1) from NumPy's global stream (which
    ``TestCase.setUp`` seeds, as TF's does), the imaginary part a second draw."""
    dt = x.dtype.base_dtype
    r = rng.random_sample(shape).astype(dt.np)
    if dt.is_complex:
        r.imag = rng.random_sample(shape)
    return r


def _init(x, shape, value):
    if value is None:
        return _random(x, shape)
    value = np.asarray(value, dtype=x.dtype.base_dtype.np)
    if value.shape != tuple(shape):
        raise ValueError(f"x_init_value has shape {value.shape}, expected {tuple(shape)}")
    return value


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                           extra_feed_dict=None):
    """max |theoretical - numeric| over the Jacobian entries (all pairs for a list ``x``)."""
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    if isinstance(grads, tuple):
        grads = [grads]
    error = 0.0
    for t, n in grads:
        if t.size or n.size:
            error = np.maximum(error, np.fabs(t - n).max())  # a NaN gradient makes the error NaN, as in TF
    return error


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """True when a Session has a GPU:0 (numba.cuda sees a GPU, or its simulator is on):
    ``tf.device('/gpu:0')`` then runs the ops that have GPU kernels there."""
    return gpu_count() > 0


def gpu_device_name():
    """"/device:GPU:0" when a GPU is available, else "" (TF's ``tf.test.gpu_device_name``)."""
    return "/device:GPU:0" if gpu_count() > 0 else ""


def is_built_with_cuda():
    """True, as TF's GPU-capable wheel: ref carries CUDA kernels (numba.cuda, compiled
    when first used), whether or not this machine has a GPU (:func:`is_gpu_available`)."""
    return True


def is_built_with_gpu_support():
    """As :func:`is_built_with_cuda` (ref has no ROCm kernels)."""
    return is_built_with_cuda()


def is_built_with_rocm():
    """False: ref has no ROCm kernels."""
    return False


def is_built_with_xla():
    """False: ref has no XLA compiler (``jit_compile`` requests run on the interpreter)."""
    return False


def assert_equal_graph_def(expected, actual):
    """AssertionError unless the two GraphDefs have the same nodes (by name: op,
    inputs, device and attrs), whatever their order (TF's ``assert_equal_graph_def``)."""
    def nodes(gd, which):
        if type(gd).__name__ != "GraphDef":
            raise TypeError(f"{which} must be a GraphDef, got {type(gd).__name__}")
        return {n.name: n for n in gd.node}

    want, got = nodes(expected, "expected"), nodes(actual, "actual")
    missing, extra = sorted(set(want) - set(got)), sorted(set(got) - set(want))
    if missing or extra:
        raise AssertionError(f"Graphs differ: nodes only in expected: {missing}; only in actual: {extra}")
    for name, node in want.items():
        other = got[name]
        if node.SerializeToString(deterministic=True) != other.SerializeToString(deterministic=True):
            raise AssertionError(f"Graphs differ at node {name!r}:\nexpected:\n{node}\nactual:\n{other}")
