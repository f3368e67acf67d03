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

from ref.types import dtypes, errors
from ref.ops import philox
from ref.ops.random import (multinomial_draws, gamma_samples, poisson_samples, _multinomial_shape, _shape_of,
                            _dims)
from ref.ops.registry import REQUIRED, invalid_argument, register_op
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
             attrs={"Tseed": dtypes.int64}, type_attrs={"Tseed": "seed"}, allowed={"Tseed": _INDEX},
             shape=lambda ins, attrs: [(dtypes.uint64, TensorShape([1])), (dtypes.uint64, TensorShape([2]))])
def stateless_random_get_key_counter(seed, Tseed=dtypes.int64):
    """The Philox key and counter that ``seed`` scrambles to (module docstring)."""
    key, counter = key_counter(seed)
    return (np.array([key], np.uint64),
            np.array([counter & 0xFFFFFFFFFFFFFFFF, counter >> 64], np.uint64))


def _v1(name, sampler, doc):
    @register_op(name, inputs=("shape", "seed"), attrs={"Tseed": dtypes.int64, "dtype": dtypes.float32},
                 type_attrs={"T": "shape", "Tseed": "seed"},
                 allowed={"T": _INDEX, "Tseed": _INDEX, "dtype": _FLOATS}, shape=_seed_shape)
    def kernel(shape, seed, dtype=dtypes.float32, Tseed=dtypes.int64):
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


@register_op("StatelessMultinomial", inputs=("logits", "num_samples", "seed"),
             attrs={"Tseed": dtypes.int64, "output_dtype": dtypes.int64},
             type_attrs={"T": "logits", "Tseed": "seed"},
             allowed={"T": dtypes.REALS, "Tseed": _INDEX, "output_dtype": _INDEX},
             shape=_multinomial_shape)
def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64, Tseed=dtypes.int64):
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


_INTS = (dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64)


def _uniform_int(dims, key, counter, minval, maxval, out_dt):
    lo, hi = np.asarray(minval), np.asarray(maxval)
    if lo.ndim:
        raise invalid_argument(f"minval must be 0-D, got shape {list(lo.shape)}")
    if hi.ndim:
        raise invalid_argument(f"maxval must be 0-D, got shape {list(hi.shape)}")
    n = int(np.prod(dims, dtype=np.int64))
    if not n:
        return np.zeros(dims, out_dt.np)
    if not lo < hi:
        raise invalid_argument(f"Need minval < maxval, got {lo} >= {hi}")
    wide = out_dt.np.itemsize == 8
    bits = full_int_bits(key, counter, n, wide)
    span = (int(hi) - int(lo)) & (_U64_MASK if wide else 0xFFFFFFFF)
    mod = (bits % bits.dtype.type(span)).astype(np.uint64)
    return (mod + np.uint64(int(lo) & _U64_MASK)).astype(out_dt.np).reshape(dims)


_U64_MASK = 0xFFFFFFFFFFFFFFFF


def full_int_bits(key, counter, n, wide):
    """TF's ``UniformFullIntDistribution``: one Philox word per 32-bit value,
    ``x0 | x1 << 32`` per 64-bit value (uint32/uint64 arrays)."""
    if wide:
        w = philox.words(key, counter, 0, (n + 1) // 2).reshape(-1).astype(np.uint64)
        return (w[0::2] | (w[1::2] << np.uint64(32)))[:n]
    return philox.words(key, counter, 0, (n + 3) // 4).reshape(-1)[:n].astype(np.uint32)


def _int_shape(ins, attrs):
    return [(attrs["dtype"], _shape_of(ins["shape"]))]


@register_op("StatelessRandomUniformInt", inputs=("shape", "seed", "minval", "maxval"),
             attrs={"Tseed": dtypes.int64}, type_attrs={"T": "shape", "Tseed": "seed", "dtype": ("minval", "maxval")},
             allowed={"T": _INDEX, "Tseed": _INDEX, "dtype": _INDEX},
             shape=lambda ins, attrs: [(ins["minval"].dtype, _shape_of(ins["shape"]))])
def stateless_random_uniform_int(shape, seed, minval, maxval, Tseed=dtypes.int64):
    """Integers uniform in ``[minval, maxval)``: ``lo + x % (hi - lo)``."""
    key, counter = key_counter(seed)
    return _uniform_int(_dims(shape), key, counter, minval, maxval, dtypes.as_dtype(np.asarray(minval).dtype))


@register_op("StatelessRandomUniformIntV2", inputs=("shape", "key", "counter", "alg", "minval", "maxval"),
             type_attrs={"Tshape": "shape", "dtype": ("minval", "maxval")},
             allowed={"Tshape": _INDEX, "dtype": _INTS},
             shape=lambda ins, attrs: [(ins["minval"].dtype, _shape_of(ins["shape"]))])
def stateless_random_uniform_int_v2(shape, key, counter, alg, minval, maxval):
    """:func:`stateless_random_uniform_int` from a key and counter."""
    key, counter = _from_key_counter(key, counter, alg)
    return _uniform_int(_dims(shape), key, counter, minval, maxval, dtypes.as_dtype(np.asarray(minval).dtype))


def _full_int(dims, key, counter, dtype):
    dt = dtypes.as_dtype(dtype)
    n = int(np.prod(dims, dtype=np.int64))
    return full_int_bits(key, counter, n, dt.np.itemsize == 8).view(dt.np).reshape(dims)


@register_op("StatelessRandomUniformFullInt", inputs=("shape", "seed"),
             attrs={"Tseed": dtypes.int64, "dtype": dtypes.uint64},
             type_attrs={"T": "shape", "Tseed": "seed"},
             allowed={"T": _INDEX, "Tseed": _INTS, "dtype": _INTS}, shape=_int_shape)
def stateless_random_uniform_full_int(shape, seed, dtype=dtypes.uint64, Tseed=dtypes.int64):
    """Integers over ``dtype``'s whole range: the Philox bits themselves."""
    key, counter = key_counter(seed)
    return _full_int(_dims(shape), key, counter, dtype)


@register_op("StatelessRandomUniformFullIntV2", inputs=("shape", "key", "counter", "alg"),
             attrs={"dtype": dtypes.uint64}, type_attrs={"Tshape": "shape"},
             allowed={"Tshape": _INDEX, "dtype": _INTS}, shape=_int_shape)
def stateless_random_uniform_full_int_v2(shape, key, counter, alg, dtype=dtypes.uint64):
    """:func:`stateless_random_uniform_full_int` from a key and counter."""
    key, counter = _from_key_counter(key, counter, alg)
    return _full_int(_dims(shape), key, counter, dtype)


def _suffix_check(dims, param):
    if param.ndim > len(dims) or list(param.shape) != list(dims[len(dims) - param.ndim:]):
        raise invalid_argument("Shape passed in must end with broadcasted shape.")


def _gamma(dims, key, counter, alpha):
    alpha = np.asarray(alpha)
    _suffix_check(dims, alpha)
    if alpha.size <= 0:
        raise invalid_argument(f"Input alpha should have non-zero element count, got: {alpha.size}")
    n = int(np.prod(dims, dtype=np.int64))
    return gamma_samples(key, counter, alpha, n // alpha.size).reshape(dims)


_GAMMA_T = (dtypes.float16, dtypes.float32, dtypes.float64)
_POISSON_T = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64)


def _out_shape(ins, attrs):
    return [(ins["alpha"].dtype, _shape_of(ins["shape"]))]


@register_op("StatelessRandomGammaV2", inputs=("shape", "seed", "alpha"),
             attrs={"Tseed": dtypes.int64}, type_attrs={"T": "shape", "Tseed": "seed", "dtype": "alpha"},
             allowed={"T": _INDEX, "Tseed": _INDEX, "dtype": _GAMMA_T}, shape=_out_shape)
def stateless_random_gamma_v2(shape, seed, alpha, Tseed=dtypes.int64):
    """Gamma(``alpha``, 1) samples of shape ``shape`` (ending in ``alpha``'s shape):
    RandomGamma's sampler (:func:`ref.ops.random.gamma_samples`) from the seed's counter."""
    key, counter = key_counter(seed)
    return _gamma(_dims(shape), key, counter, alpha)


@register_op("StatelessRandomGammaV3", inputs=("shape", "key", "counter", "alg", "alpha"),
             type_attrs={"shape_dtype": "shape", "dtype": "alpha"},
             allowed={"shape_dtype": _INDEX, "dtype": _GAMMA_T}, shape=_out_shape)
def stateless_random_gamma_v3(shape, key, counter, alg, alpha):
    """:func:`stateless_random_gamma_v2` from a key and counter."""
    key, counter = _from_key_counter(key, counter, alg)
    return _gamma(_dims(shape), key, counter, alpha)


@register_op("StatelessRandomPoisson", inputs=("shape", "seed", "lam"),
             attrs={"Tseed": dtypes.int64, "dtype": REQUIRED},
             type_attrs={"T": "shape", "Tseed": "seed", "Rtype": "lam"},
             allowed={"T": _INDEX, "Tseed": _INDEX, "Rtype": _POISSON_T, "dtype": _POISSON_T},
             shape=lambda ins, attrs: [(attrs["dtype"], _shape_of(ins["shape"]))])
def stateless_random_poisson(shape, seed, lam, dtype, Tseed=dtypes.int64):
    """Poisson(``lam``) samples of shape ``shape`` (ending in ``lam``'s shape):
    RandomPoissonV2's sampler (:func:`ref.ops.random.poisson_samples`)."""
    dims, lam = _dims(shape), np.asarray(lam)
    _suffix_check(dims, lam)
    out_np = dtypes.as_dtype(dtype).np
    n = int(np.prod(dims, dtype=np.int64))
    if not n or not lam.size:
        return np.zeros(dims, out_np)
    key, counter = key_counter(seed)
    return poisson_samples(key, counter, lam, n // lam.size, out_np).reshape(dims)


@register_op("StatelessShuffle", inputs=("value", "key", "counter", "alg"), type_attrs={"T": "value"},
             shape=lambda ins, attrs: [(ins["value"].dtype, ins["value"].shape)])
def stateless_shuffle(value, key, counter, alg):
    """``value``'s first-dimension slices in RandomShuffle's order from the key and counter."""
    key, counter = _from_key_counter(key, counter, alg)
    x = np.asarray(value)
    if x.ndim == 0 or x.shape[0] <= 1:
        return np.array(x)
    return x[philox.shuffle_permutation(key, counter, x.shape[0])]


@register_op("StatelessRandomGetAlg", inputs=(), outputs=("alg",),
             shape=lambda ins, attrs: [(dtypes.int32, TensorShape([]))])
def stateless_random_get_alg():
    """The algorithm the V2 ops pick on this device: Philox (1)."""
    return np.array(_ALG_PHILOX, np.int32)


# -- a Generator's state (TF's stateful_random_ops.cc RngSkip/RngReadAndSkip) -----
# The state variable holds int64 words: Philox's 128-bit counter (low word first) then
# its key. Skipping ``delta`` samples adds ``delta * 256`` to the counter (mod 2**128):
# TF's multiplier, the counter steps one FillPhiloxRandom block may use per sample.

_RNG_ALGS = {0: "auto_select", 1: "philox", 2: "threefry", 3: "auto_select"}


def _skip_state(resource, alg, delta):
    state = np.asarray(resource)
    if state.dtype != np.int64:
        raise invalid_argument(f"dtype of RNG state variable must be int64, not {dtypes.as_dtype(state.dtype).name}")
    if state.ndim != 1:
        raise invalid_argument(f"RNG state must have one and only one dimension, not {state.ndim}")
    alg = int(np.asarray(alg))
    if alg not in (1, 3):  # auto_select is Philox on CPU
        if alg == 2:
            raise errors.UnimplementedError(None, None, "Non-XLA devices don't support the ThreeFry algorithm.")
        raise invalid_argument(f"Unsupported algorithm id: {alg}")
    if state.size < 3:
        raise invalid_argument(f"For the Philox algorithm, the size of state must be at least 3; got {state.size}")
    words = state.view(np.uint64)
    counter = (int(words[1]) << 64) | int(words[0])
    counter = (counter + ((int(np.asarray(delta).astype(np.uint64)) * 256) & 0xFFFFFFFFFFFFFFFF)) % (1 << 128)
    new = words.copy()
    new[0], new[1] = counter & 0xFFFFFFFFFFFFFFFF, counter >> 64
    return new.view(np.int64)


@register_op("RngReadAndSkip", inputs=("resource", "alg", "delta"), outputs=("value",),
             input_types={"alg": dtypes.int32, "delta": dtypes.uint64}, refs=("resource",),
             shape=lambda ins, attrs: [(dtypes.int64, TensorShape([3]))])
def rng_read_and_skip(resource, alg, delta):
    """value = the state as it was (counter words then the key); the counter advances past
    ``delta`` samples."""
    old = np.array(resource, dtype=np.int64, copy=True)
    return _skip_state(resource, alg, delta), old[:3] if old.size >= 3 else old


@register_op("RngSkip", inputs=("resource", "algorithm", "delta"), outputs=(),
             input_types={"algorithm": dtypes.int64, "delta": dtypes.int64}, refs=("resource",),
             shape=lambda ins, attrs: [])
def rng_skip(resource, algorithm, delta):
    """The counter of the state advances past ``delta`` samples."""
    return _skip_state(resource, algorithm, np.asarray(delta).astype(np.uint64))
