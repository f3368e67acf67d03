"""``tf.random.stateless_*`` (TF's ``stateless_random_ops.py``): values fixed by
a shape-[2] ``seed`` alone, built as TF 2.x builds them: a
``StatelessRandomGetKeyCounter`` of the seed feeding the V2 op with algorithm 3
(auto-select), then the scale and shift; ``stateless_categorical`` /
``stateless_multinomial`` build ``StatelessMultinomial``."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.random_ops import _shape_tensor

__all__ = ["stateless_random_uniform", "stateless_random_normal", "stateless_truncated_normal",
           "stateless_categorical", "stateless_multinomial", "stateless_random_gamma", "stateless_random_poisson",
           "stateless_shuffle", "split", "fold_in"]

_PHILOX, _THREEFRY, _AUTO_SELECT = 1, 2, 3
# TF's random_ops_util.convert_alg_to_int: names, ints, or tf.random.Algorithm values.
_ALGS = {None: _AUTO_SELECT, "auto_select": _AUTO_SELECT, "philox": _PHILOX, "philox4x32_10": _PHILOX,
         "threefry": _THREEFRY, "threefry2x32_20": _THREEFRY}


def _alg_int(alg):
    value = getattr(alg, "value", alg)
    if isinstance(value, str):
        value = value.lower()
    if value in (_PHILOX, _THREEFRY, _AUTO_SELECT):
        return value
    if value not in _ALGS:
        raise ValueError(f"Argument `alg` got unsupported value {alg}. Supported values are "
                         f"{list(k for k in _ALGS if k)}.")
    return _ALGS[value]


def _key_counter_alg(seed, alg):
    alg = _alg_int(alg)
    key, counter = apply_op("StatelessRandomGetKeyCounter", seed=seed)
    return key, counter, alg


_UNIFORM_DTYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64,
                   dtypes.uint32, dtypes.uint64)


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None,
                             alg="auto_select"):
    """Values uniform in ``[minval, maxval)`` fixed by ``seed``: floats (``maxval``
    defaults to 1), integers in a range (``StatelessRandomUniformIntV2``) or over
    the whole dtype when both bounds are None (``StatelessRandomUniformFullIntV2``)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _UNIFORM_DTYPES:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are {_UNIFORM_DTYPES}.")
    if dtype.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {dtype}, argument `minval` and `maxval` must be both "
                             f"None or not None. Got `minval`={minval} and `maxval`={maxval}.")
        if minval is not None and dtype in (dtypes.uint32, dtypes.uint64):
            raise ValueError(f"Argument `dtype` got invalid value {dtype} when argument `minval` is not None. "
                             "Please don't use unsigned integers in this case.")
        return _uniform_int(shape, seed, minval, maxval, dtype, name, alg)
    if maxval is None:
        maxval = 1
    with name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
        shape_t = _shape_tensor(shape)
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        key, counter, alg = _key_counter_alg(seed, alg)
        rnd = apply_op("StatelessRandomUniformV2", shape=shape_t, key=key, counter=counter, alg=alg, dtype=dtype)
        span = apply_op("Sub", x=hi, y=lo, name="sub")
        return apply_op("AddV2", x=apply_op("Mul", x=rnd, y=span, name="mul"), y=lo, name=scope)


def _normal(op, default_name, shape, seed, mean, stddev, dtype, name, alg):
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, default_name, [shape, seed, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        key, counter, alg = _key_counter_alg(seed, alg)
        rnd = apply_op(op, shape=shape_t, key=key, counter=counter, alg=alg, dtype=dtype)
        return apply_op("AddV2", x=apply_op("Mul", x=rnd, y=stddev_t, name="mul"), y=mean_t, name=scope)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None, alg="auto_select"):
    """Samples of N(``mean``, ``stddev``^2) fixed by ``seed``."""
    return _normal("StatelessRandomNormalV2", "stateless_random_normal", shape, seed, mean, stddev, dtype, name, alg)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                               alg="auto_select"):
    """Samples of N(``mean``, ``stddev``^2) within two ``stddev`` of ``mean``, fixed by ``seed``."""
    return _normal("StatelessTruncatedNormalV2", "stateless_truncated_normal", shape, seed, mean, stddev, dtype,
                   name, alg)


def _categorical(logits, num_samples, dtype, seed):
    logits = convert_to_tensor(logits, name="logits")
    dtype = dtypes.as_dtype(dtype) if dtype else dtypes.int64
    if dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"({dtypes.int32}, {dtypes.int64}).")
    return apply_op("StatelessMultinomial", logits=logits, num_samples=num_samples, seed=seed, output_dtype=dtype)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """``num_samples`` class indices per row of ``logits``, fixed by ``seed``."""
    with name_scope(name, "stateless_categorical", [logits, seed]):
        return _categorical(logits, num_samples, dtype, seed)


def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64, name=None):
    """The TF1 name of :func:`stateless_categorical` (``output_dtype``)."""
    with name_scope(name, "stateless_multinomial", [logits, seed]):
        return _categorical(logits, num_samples, output_dtype, seed)


def _scalar_bound(t, what):
    if t.shape.ndims is not None and t.shape.ndims != 0:
        raise ValueError(f"{what} must be a scalar; got a tensor of shape {t.shape}")


def _uniform_int(shape, seed, minval, maxval, dtype, name, alg):
    with name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
        shape_t = _shape_tensor(shape)
        if minval is None:
            key, counter, alg = _key_counter_alg(seed, alg)
            return apply_op("StatelessRandomUniformFullIntV2", shape=shape_t, key=key, counter=counter, alg=alg,
                            dtype=dtype, name=scope)
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        _scalar_bound(lo, "minval")
        _scalar_bound(hi, "maxval")
        key, counter, alg = _key_counter_alg(seed, alg)
        return apply_op("StatelessRandomUniformIntV2", shape=shape_t, key=key, counter=counter, alg=alg,
                        minval=lo, maxval=hi, name=scope)


def stateless_random_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None):
    """Gamma(``alpha``, ``beta``) samples of shape ``shape``, which ends in the
    broadcast shape of ``alpha`` and ``beta``; fixed by ``seed``
    (``StatelessRandomGammaV3``, then ``max(tiny, sample / beta)``)."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "stateless_random_gamma", [shape, seed, alpha, beta]):
        shape_t = _shape_tensor(shape)
        alpha_t = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta_t = convert_to_tensor(beta if beta is not None else 1, dtype=dtype, name="beta")
        both = array_ops.broadcast_dynamic_shape(array_ops.shape(alpha_t), array_ops.shape(beta_t))
        alpha_b = array_ops.broadcast_to(alpha_t, both)
        key, counter, alg = _key_counter_alg(seed, "auto_select")
        rnd = apply_op("StatelessRandomGammaV3", shape=shape_t, key=key, counter=counter, alg=alg, alpha=alpha_b)
        return math_ops.maximum(np.finfo(dtype.as_numpy_dtype).tiny, math_ops.truediv(rnd, beta_t))


def stateless_random_poisson(shape, seed, lam, dtype=dtypes.int32, name=None):
    """Poisson(``lam``) samples of shape ``shape``, which ends in ``lam``'s shape;
    fixed by ``seed`` (``StatelessRandomPoisson``)."""
    with name_scope(name, "stateless_random_poisson", [shape, seed, lam]):
        shape_t = _shape_tensor(shape)
        return apply_op("StatelessRandomPoisson", shape=shape_t, seed=seed, lam=lam, dtype=dtypes.as_dtype(dtype))


def stateless_shuffle(value, seed, alg="auto_select", name=None):
    """``value`` shuffled along its first dimension, fixed by ``seed`` (``StatelessShuffle``)."""
    with name_scope(name, "stateless_shuffle", [value, seed]):
        key, counter, alg = _key_counter_alg(seed, alg)
        return apply_op("StatelessShuffle", value=value, key=key, counter=counter, alg=alg)


def split(seed, num=2, alg="auto_select"):
    """``num`` new seeds, shape ``[num, 2]``, from ``seed`` (full-range integers of its dtype)."""
    seed = convert_to_tensor(seed)
    return stateless_random_uniform(shape=[num, 2], seed=seed, dtype=seed.dtype, minval=None, maxval=None, alg=alg)


def fold_in(seed, data, alg="auto_select"):
    """A new seed ``[u, data]`` from ``seed`` and scalar ``data`` (``u`` a full-range integer of its dtype)."""
    data = convert_to_tensor(data)
    seed1 = stateless_random_uniform(shape=[], seed=seed, dtype=data.dtype, minval=None, maxval=None, alg=alg)
    return array_ops.stack([seed1, data])
