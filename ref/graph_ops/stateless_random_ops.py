"""``tf.random.stateless_*`` (TF's ``stateless_random_ops.py``): values fixed by
a shape-[2] ``seed`` alone, built as TF 2.x builds them: a
``StatelessRandomGetKeyCounter`` of the seed feeding the V2 op with algorithm 3
(auto-select), then the scale and shift; ``stateless_categorical`` /
``stateless_multinomial`` build ``StatelessMultinomial``."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops.random_ops import _shape_tensor

__all__ = ["stateless_random_uniform", "stateless_random_normal", "stateless_truncated_normal",
           "stateless_categorical", "stateless_multinomial"]

_AUTO_SELECT = 3
_ALGS = {None: _AUTO_SELECT, "auto_select": _AUTO_SELECT, _AUTO_SELECT: _AUTO_SELECT}


def _key_counter_alg(seed, alg):
    if isinstance(alg, str):
        alg = alg.lower()
    if alg not in _ALGS:
        raise ValueError(f"Argument `alg` got unsupported value {alg}. ref supports only 'auto_select' "
                         "(Philox on CPU).")
    key, counter = apply_op("StatelessRandomGetKeyCounter", seed=seed)
    return key, counter, _ALGS[alg]


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None,
                             alg="auto_select"):
    """Floats uniform in ``[minval, maxval)`` (``maxval`` defaults to 1) fixed by ``seed``."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64):
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. ref's stateless_random_uniform takes "
                         "float16, bfloat16, float32 or float64.")
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
    with name_scope(name, "stateless_random_multinomial", [logits, seed]):
        return _categorical(logits, num_samples, output_dtype, seed)
