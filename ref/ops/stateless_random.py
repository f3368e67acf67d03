"""Stateless random ops: the same ``seed`` (a shape-[2] int32/int64 tensor) gives
the same values in every run and Session (TF's ``stateless_random_ops.cc`` and
``stateless_random_ops_v2.cc``).

**Seed to key and counter** (TF's ``GenerateKey``): the two seeds, widened to
uint64 (int32 sign-extended), form the counter ``(seed0 lo, seed0 hi, seed1 lo,
seed1 hi)``; one Philox-4x32-10 block under key ``(0x3ec8f720, 0x02461e29)``
gives words ``m0..m3``; the key becomes ``(m0, m1)`` and the counter
``(0, 0, m2, m3)``. ``StatelessRandomGetKeyCounter`` returns them as uint64
tensors: key ``[m0 | m1 << 32]``, counter ``[0, m2 | m3 << 32]``; the V2 ops take
them (algorithm 1, Philox, or 3, auto-select, which is Philox on CPU).

From key and counter the samplers are those of the stateful ops, without
reservation (:mod:`ref.ops.philox`): uniform, normal, truncated normal, and
Multinomial's draws.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops import philox
from ref.ops.random import multinomial_draws, _multinomial_shape, _shape_of, _dims
from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape

_INDEX = (dtypes.int32, dtypes.int64)
_FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_SCRAMBLE_KEY = 0x02461E29_3EC8F720
_ALG_PHILOX, _ALG_AUTO = 1, 3


def key_counter(seed):
    """``(key, counter)`` as the ints :mod:`ref.ops.philox` takes, from a shape-[2] seed."""
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise invalid_argument(f"seed must have shape [2], not {list(seed.shape)}")
    s0, s1 = (int(v) & 0xFFFFFFFFFFFFFFFF for v in seed.astype(np.int64))
    m = [int(x) for x in philox.words(_SCRAMBLE_KEY, s0 | (s1 << 64), 0, 1)[0]]
    return m[0] | (m[1] << 32), (m[2] | (m[3] << 32)) << 64


def _from_key_counter(key, counter, alg):
    key, counter, alg = np.asarray(key), np.asarray(counter), int(np.asarray(alg))
    if alg not in (_ALG_PHILOX, _ALG_AUTO):
        raise invalid_argument(f"Unsupported algorithm id: {alg}")
    if key.shape != (1,):
        raise invalid_argument(f"key must have shape [1], not {list(key.shape)}. "
                               "(Note that batched keys are not supported yet.)")
    if counter.ndim != 1 or counter.size < 2:
        raise invalid_argument(f"counter must be a vector with at least 2 elements, got shape {list(counter.shape)}")
    c = counter.astype(np.uint64)
    return int(key.astype(np.uint64)[0]), int(c[0]) | (int(c[1]) << 64)


def _seed_shape(ins, attrs):
    return [(attrs["dtype"], _shape_of(ins["shape"]))]


@register_op("StatelessRandomGetKeyCounter", inputs=("seed",), outputs=("key", "counter"),
             type_attrs={"Tseed": "seed"}, allowed={"Tseed": _INDEX},
             shape=lambda ins, attrs: [(dtypes.uint64, TensorShape([1])), (dtypes.uint64, TensorShape([2]))])
def stateless_random_get_key_counter(seed):
    """The Philox key and counter that ``seed`` scrambles to (module docstring)."""
    key, counter = key_counter(seed)
    return (np.array([key], np.uint64),
            np.array([counter & 0xFFFFFFFFFFFFFFFF, counter >> 64], np.uint64))


def _v1(name, sampler, doc):
    @register_op(name, inputs=("shape", "seed"), attrs={"dtype": dtypes.float32},
                 type_attrs={"T": "shape", "Tseed": "seed"},
                 allowed={"T": _INDEX, "Tseed": _INDEX, "dtype": _FLOATS}, shape=_seed_shape)
    def kernel(shape, seed, dtype=dtypes.float32):
        dims = _dims(shape)
        key, counter = key_counter(seed)
        n = int(np.prod(dims, dtype=np.int64))
        return sampler(key, counter, n, dtypes.as_dtype(dtype)).reshape(dims)
    kernel.__doc__ = doc
    kernel.__name__ = kernel.__qualname__ = "stateless_" + sampler.__name__
    return kernel


def _v2(name, sampler, doc):
    @register_op(name, inputs=("shape", "key", "counter", "alg"), attrs={"dtype": dtypes.float32},
                 type_attrs={"Tshape": "shape"},
                 allowed={"Tshape": _INDEX, "dtype": _FLOATS}, shape=_seed_shape)
    def kernel(shape, key, counter, alg, dtype=dtypes.float32):
        dims = _dims(shape)
        key, counter = _from_key_counter(key, counter, alg)
        n = int(np.prod(dims, dtype=np.int64))
        return sampler(key, counter, n, dtypes.as_dtype(dtype)).reshape(dims)
    kernel.__doc__ = doc
    kernel.__name__ = kernel.__qualname__ = "stateless_" + sampler.__name__ + "_v2"
    return kernel


_U, _N, _T = ("Samples of U[0, 1) in ``dtype``.", "Samples of N(0, 1) in ``dtype``.",
              "Samples of N(0, 1) re-drawn outside ``[-2, 2]``.")
stateless_random_uniform = _v1("StatelessRandomUniform", philox.uniform, _U)
stateless_random_normal = _v1("StatelessRandomNormal", philox.normal, _N)
stateless_truncated_normal = _v1("StatelessTruncatedNormal", philox.truncated_normal, _T)
stateless_random_uniform_v2 = _v2("StatelessRandomUniformV2", philox.uniform, _U)
stateless_random_normal_v2 = _v2("StatelessRandomNormalV2", philox.normal, _N)
stateless_truncated_normal_v2 = _v2("StatelessTruncatedNormalV2", philox.truncated_normal, _T)


@register_op("StatelessMultinomial", inputs=("logits", "num_samples", "seed"), attrs={"output_dtype": dtypes.int64},
             type_attrs={"T": "logits", "Tseed": "seed"},
             allowed={"T": dtypes.REALS, "Tseed": _INDEX, "output_dtype": _INDEX},
             shape=_multinomial_shape)
def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64):
    """Multinomial's draws from the seed's key and counter."""
    logits = np.asarray(logits)
    n = int(np.asarray(num_samples))
    if logits.ndim != 2:
        raise invalid_argument(f"logits should be a matrix, got shape {list(logits.shape)}")
    if n < 0:
        raise invalid_argument(f"num_samples should be nonnegative, got {n}")
    if logits.shape[1] == 0 and logits.shape[0] and n:
        raise invalid_argument("num_classes should be positive, got 0")
    key, counter = key_counter(seed)
    return multinomial_draws(logits, n, key, counter, output_dtype)
