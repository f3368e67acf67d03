"""TF1 random functions (``tf.random_normal``, ``tf.truncated_normal``,
``tf.random_uniform``, ``tf.random_shuffle``, ``tf.multinomial``, ...) built on
the ops of :mod:`ref.ops.random`, with TF's graph-level/op-level seed rules
(``ref.framework.random_seed.get_seed``): the same graph seed and op seed give the same values
in every Session; values differ from TensorFlow's (see ``ref.ops.random``).

Each function builds the ops TF builds, under TF's names: e.g.
``random_normal`` is ``random_normal/RandomStandardNormal`` times ``stddev``
plus ``mean``, the last op named ``random_normal``.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.random_seed import get_seed
from ref.types.shapes import Dimension
from ref.graph_ops.array_ops import broadcast_dynamic_shape, broadcast_static_shape, broadcast_to, shape as shape_of

__all__ = ["random_normal", "truncated_normal", "random_uniform", "random_shuffle", "multinomial", "categorical",
           "random_gamma", "random_poisson"]

_FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _shape_tensor(shape):
    """The 1-D int shape tensor for ``shape`` (an empty list is int32)."""
    dtype = None  # a TensorShape converts as TF converts one (ValueError when partially known)
    if isinstance(shape, (tuple, list)):
        if not shape:
            dtype = dtypes.int32
        else:
            shape = tuple(d.value if isinstance(d, Dimension) else d for d in shape)
    return convert_to_tensor(shape, dtype=dtype, name="shape")


def _seeds(seed):
    """``(seed, seed2)`` attrs: TF's get_seed, with None meaning 0 (unseeded)."""
    s1, s2 = get_seed(seed)
    return int(s1 or 0), int(s2 or 0)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples of N(``mean``, ``stddev``^2) of ``shape``."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "random_normal", [shape, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        s1, s2 = _seeds(seed)
        rnd = apply_op("RandomStandardNormal", shape=shape_t, dtype=dtype, seed=s1, seed2=s2)
        mul = apply_op("Mul", x=rnd, y=stddev_t, name="mul")
        return apply_op("AddV2", x=mul, y=mean_t, name=scope)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples of N(``mean``, ``stddev``^2) of ``shape``, re-drawn when more than
    two standard deviations from the mean."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "truncated_normal", [shape, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        s1, s2 = _seeds(seed)
        rnd = apply_op("TruncatedNormal", shape=shape_t, dtype=dtype, seed=s1, seed2=s2)
        mul = apply_op("Mul", x=rnd, y=stddev_t, name="mul")
        return apply_op("AddV2", x=mul, y=mean_t, name=scope)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples uniform in [``minval``, ``maxval``) of ``shape``; ``maxval``
    defaults to 1 for floats and is required for int32/int64."""
    dtype = dtypes.as_dtype(dtype)
    accepted = _FLOATS + (dtypes.int32, dtypes.int64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are {accepted}.")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape_t = _shape_tensor(shape)
        # [0, 1) floats need neither bound (TF tests the Python values).
        minval_is_zero = isinstance(minval, int) and not isinstance(minval, bool) and minval == 0
        maxval_is_one = isinstance(maxval, int) and not isinstance(maxval, bool) and maxval == 1
        if not minval_is_zero or not maxval_is_one or dtype.is_integer:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        s1, s2 = _seeds(seed)
        if dtype.is_integer:
            return apply_op("RandomUniformInt", shape=shape_t, minval=minval, maxval=maxval, seed=s1, seed2=s2,
                            name=scope)
        rnd = apply_op("RandomUniform", shape=shape_t, dtype=dtype, seed=s1, seed2=s2)
        if minval_is_zero:
            return rnd if maxval_is_one else apply_op("Mul", x=rnd, y=maxval)
        span = apply_op("Sub", x=maxval, y=minval, name="sub")
        return apply_op("AddV2", x=apply_op("Mul", x=rnd, y=span, name="mul"), y=minval, name=scope)


def random_shuffle(value, seed=None, name=None):
    """``value`` shuffled along its first dimension."""
    s1, s2 = _seeds(seed)
    return apply_op("RandomShuffle", value=value, seed=s1, seed2=s2, name=name or "RandomShuffle")


def _multinomial(logits, num_samples, dtype, seed):
    logits = convert_to_tensor(logits, name="logits")
    dtype = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    if dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"{(dtypes.int32, dtypes.int64)}.")
    s1, s2 = _seeds(seed)
    return apply_op("Multinomial", logits=logits, num_samples=num_samples, seed=s1, seed2=s2, output_dtype=dtype)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """``num_samples`` class indices per row of ``logits`` ([batch, classes]),
    drawn with probabilities ``softmax(logits)``."""
    with name_scope(name, "multinomial", [logits]):
        return _multinomial(logits, num_samples, output_dtype, seed)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """The newer name of :func:`multinomial` (``dtype`` for the indices)."""
    with name_scope(name, "categorical", [logits]):
        return _multinomial(logits, num_samples, dtype, seed)


def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples of Gamma(``alpha``, rate ``beta``) of shape ``shape + broadcast(alpha, beta).shape``,
    floored at the dtype's smallest normal number (as TF)."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "random_gamma", [shape, alpha, beta]):
        shape_t = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        alpha = convert_to_tensor(alpha, name="alpha", dtype=dtype)
        beta = convert_to_tensor(beta if beta is not None else 1, name="beta", dtype=dtype)
        target = broadcast_dynamic_shape(shape_of(alpha), shape_of(beta))
        alpha_b = broadcast_to(alpha, target)
        alpha_b.set_shape(broadcast_static_shape(alpha.shape, beta.shape))  # TF folds BroadcastArgs
        s1, s2 = _seeds(seed)
        sample = apply_op("RandomGamma", shape=shape_t, alpha=alpha_b, seed=s1, seed2=s2)
        tiny = np.asarray(np.finfo(dtype.np).tiny, dtype.np)
        return apply_op("Maximum", x=tiny, y=apply_op("RealDiv", x=sample, y=beta, name="truediv"))


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None):
    """``shape`` samples of each Poisson(``lam``): shape ``shape + lam.shape``
    (``RandomPoissonV2``, TF's argument order: rates first)."""
    with name_scope(name, "random_poisson", [lam, shape]):
        shape_t = convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        s1, s2 = _seeds(seed)
        return apply_op("RandomPoissonV2", shape=shape_t, rate=lam, dtype=dtypes.as_dtype(dtype), seed=s1, seed2=s2)
