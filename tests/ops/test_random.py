"""Random kernels (ref/ops/random.py) and TF1 random functions (ref/graph_ops/random_ops.py).

Tests here check statistics with fixed seeds (mean, std, bounds), determinism
(same seeds, same values in every Session), that successive runs of one op
differ (as in TF), and static shapes/dtypes against tensorflow.compat.v1. The
Philox ops' values are compared with TensorFlow's bit for bit in
test_philox.py; RandomGamma's, RandomPoissonV2's and the stateless ops' in
tests/graph_ops/test_random_draws.py.
"""
import numpy as np
import pytest

import ref.ops

ref.ops.load_all()

from ref.types import dtypes, errors  # noqa: E402

from ref.ops import registry
from ref.framework import graph as G  # noqa: E402
from ref.framework.random_seed import set_random_seed  # noqa: E402
from ref.graph_ops import random_ops  # noqa: E402
from ref.ops.context import RawContext  # noqa: E402
from ref.session import Session  # noqa: E402

N = 20000


def draw(name, seed=(1, 2), **kwargs):
    return registry.call(name, ctx=RawContext(*seed), seed=seed[0], seed2=seed[1], **kwargs)


def _check_stats(x, mean, std, lo, hi):
    x = np.asarray(x, np.float64)
    assert abs(x.mean() - mean) < 5 * std / np.sqrt(x.size) + 1e-12
    assert abs(x.std() - std) < 0.05 * std
    assert x.min() >= lo and x.max() <= hi


SHAPE = np.array([N], np.int32)
TRUNC_STD = 0.8796256610342398  # std of N(0,1) truncated to [-2, 2]

STAT_CASES = [
    ("RandomStandardNormal", dict(shape=SHAPE, dtype=dtypes.float32), np.float32, 0.0, 1.0, -7, 7),
    ("RandomStandardNormal", dict(shape=SHAPE, dtype=dtypes.float64), np.float64, 0.0, 1.0, -7, 7),
    ("RandomStandardNormal", dict(shape=SHAPE, dtype=dtypes.float16), np.float16, 0.0, 1.0, -7, 7),
    ("TruncatedNormal", dict(shape=SHAPE, dtype=dtypes.float32), np.float32, 0.0, TRUNC_STD, -2, 2),
    ("RandomUniform", dict(shape=SHAPE, dtype=dtypes.float32), np.float32, 0.5, np.sqrt(1 / 12), 0, np.nextafter(
        np.float32(1), np.float32(0))),
    ("RandomUniform", dict(shape=SHAPE, dtype=dtypes.bfloat16), dtypes.bfloat16.np, 0.5, np.sqrt(1 / 12), 0,
     0.999),
    ("RandomUniformInt", dict(shape=SHAPE, minval=np.int64(-3), maxval=np.int64(5)), np.int64, 0.5,
     np.sqrt((8 ** 2 - 1) / 12), -3, 4),
    ("RandomGamma", dict(shape=SHAPE, alpha=np.float32(4.0)), np.float32, 4.0, 2.0, 0, np.inf),
    ("RandomGamma", dict(shape=SHAPE, alpha=np.float64(0.5)), np.float64, 0.5, np.sqrt(0.5), 0, np.inf),
    ("RandomPoissonV2", dict(shape=SHAPE, rate=np.float32(3.0)), np.int64, 3.0, np.sqrt(3.0), 0, np.inf),
    ("RandomPoissonV2", dict(shape=SHAPE, rate=np.float64(30.0), dtype=dtypes.float32), np.float32, 30.0,
     np.sqrt(30.0), 0, np.inf),
]


@pytest.mark.parametrize("name,kwargs,np_dtype,mean,std,lo,hi", STAT_CASES, ids=[c[0] for c in STAT_CASES])
def test_kernel_statistics(name, kwargs, np_dtype, mean, std, lo, hi):
    x = draw(name, **kwargs)
    assert x.dtype == np.dtype(np_dtype) and x.shape == (N,)
    _check_stats(x, mean, std, lo, hi)
    assert np.array_equal(x, draw(name, **kwargs))  # same seeds, same values
    assert not np.array_equal(x, draw(name, seed=(1, 3), **kwargs))


def test_shuffle_is_a_permutation_of_rows():
    x = np.arange(40, dtype=np.int32).reshape(20, 2)
    y = draw("RandomShuffle", value=x)
    assert sorted(map(tuple, y.tolist())) == sorted(map(tuple, x.tolist()))
    assert not np.array_equal(x, y)
    assert np.array_equal(draw("RandomShuffle", value=np.float32(3)), np.float32(3))


def test_multinomial_frequencies_follow_softmax():
    logits = np.log(np.array([[0.1, 0.6, 0.3], [1.0, 0.0, 0.0]], np.float32))
    s = draw("Multinomial", logits=logits, num_samples=np.int32(N))
    assert s.dtype == np.int64 and s.shape == (2, N)
    freq = np.bincount(s[0], minlength=3) / N
    assert np.abs(freq - [0.1, 0.6, 0.3]).max() < 0.02
    assert (s[1] == 0).all()  # -inf logits are never drawn
    s32 = draw("Multinomial", logits=logits, num_samples=np.int32(3), output_dtype=dtypes.int32)
    assert s32.dtype == np.int32
    none = draw("Multinomial", logits=np.full((1, 2), -np.inf, np.float32), num_samples=np.int32(4))
    assert none.tolist() == [[2, 2, 2, 2]]  # TF's CPU kernel: num_classes for an all -inf row


BAD = [
    ("RandomUniformInt", dict(shape=np.array([2], np.int32), minval=np.int32(5), maxval=np.int32(5)),
     "Need minval < maxval, got 5 >= 5"),
    ("Multinomial", dict(logits=np.zeros(3, np.float32), num_samples=np.int32(1)), "logits should be a matrix"),
    ("Multinomial", dict(logits=np.zeros((1, 3), np.float32), num_samples=np.int32(-1)),
     "num_samples should be nonnegative"),
    ("RandomStandardNormal", dict(shape=np.array([-1], np.int32), dtype=dtypes.float32), "must be >= 0"),
]


@pytest.mark.parametrize("name,kwargs,message", BAD, ids=[c[0] for c in BAD])
def test_bad_input(name, kwargs, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        draw(name, **kwargs)


# random_uniform over ints: (shape, minval, maxval) -> graph-construction ValueError or run-time outcome, as TF
UNIFORM_INT_ROWS = {
    "minval_vector": ([1000], [1, 2], 3),
    "maxval_vector": ([1000], 1, [2, 3]),
    "maxval_matrix": ([4], 1, [[2]]),
    "degenerate_empty": ([10, 0], 0, 0),
    "degenerate": ([10, 1], 0, 0),
    "reversed": ([3], 5, 2),
}


@pytest.mark.parametrize("row", sorted(UNIFORM_INT_ROWS))
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_uniform_int_bounds_as_tensorflow(row, dtype):
    import ref

    tf = pytest.importorskip("tensorflow").compat.v1
    shape, lo, hi = UNIFORM_INT_ROWS[row]
    outcomes = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            try:
                out = lib.random_uniform(shape, minval=lo, maxval=hi, dtype=getattr(lib, dtype), seed=1)
            except ValueError as e:
                outcomes.append(("ValueError", str(e).split(" for '")[0]))
                continue
            with lib.Session() as s:
                try:
                    outcomes.append(("shape", s.run(out).shape))
                except lib.errors.OpError as e:
                    lines = [ln for ln in e.message.splitlines() if ln.strip() and not ln[0].isspace()]
                    outcomes.append((type(e).__name__, lines[-1]))
    assert outcomes[1] == outcomes[0]


def test_every_random_op_is_exercised():
    import ref.raw_ops

    mine = {n for n, d in registry.registered().items() if d.kernel.__module__ == "ref.ops.random"}
    # RandomGammaGrad is deterministic: checked against tf.raw_ops in tests/grad/test_random_grad.py
    covered = {c[0] for c in STAT_CASES} | {"RandomShuffle", "Multinomial", "RandomGammaGrad"}
    assert mine == covered
    assert mine <= set(dir(ref.raw_ops))


# ---------------------------------------------------------------------------
# Graph functions: seeds, sessions, static shapes
# ---------------------------------------------------------------------------

FUNCS = [
    ("random_normal", lambda r: r.random_normal([3, 4], mean=2.0, stddev=0.5, seed=5)),
    ("truncated_normal", lambda r: r.truncated_normal([3, 4], stddev=2.0, dtype="float64", seed=5)),
    ("random_uniform", lambda r: r.random_uniform([3, 4], seed=5)),
    ("random_uniform_range", lambda r: r.random_uniform([2], minval=-1.0, maxval=3.0, seed=5)),
    ("random_uniform_int", lambda r: r.random_uniform([5], minval=2, maxval=9, dtype="int64", seed=5)),
    ("random_shuffle", lambda r: r.random_shuffle(np.arange(6), seed=5)),
    ("multinomial", lambda r: r.multinomial(np.zeros((2, 4), np.float32), 7, seed=5)),
    ("categorical", lambda r: r.categorical(np.zeros((2, 4), np.float32), 7, dtype="int32", seed=5)),
    ("random_gamma", lambda r: r.random_gamma([3], [1.0, 2.0], beta=2.0, seed=5)),
]


def _ref_run(fn, graph_seed=None, runs=2):
    g = G.Graph()
    with g.as_default():
        if graph_seed is not None:
            set_random_seed(graph_seed)
        t = fn(random_ops)
        with Session() as s:
            return t, [s.run(t) for _ in range(runs)]


@pytest.mark.parametrize("fn", [f for _, f in FUNCS], ids=[n for n, _ in FUNCS])
def test_seeded_function_determinism_and_static_shape(fn):
    t1, (a1, b1) = _ref_run(fn)
    t2, (a2, b2) = _ref_run(fn)
    assert np.array_equal(a1, a2) and np.array_equal(b1, b2)  # same seeds: same values in a new Session
    assert not np.array_equal(a1, b1)  # successive runs differ
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default():
        want = fn(tf.random if fn is FUNCS[7][1] else tf)
        assert t1.shape.as_list() == want.shape.as_list()
        assert t1.dtype.name == want.dtype.name
        assert t1.op.type == want.op.type and t1.op.name == want.op.name
        with tf.Session() as s:
            v = s.run(want)
    assert a1.shape == v.shape and a1.dtype == v.dtype


def test_graph_seed_without_op_seed_is_deterministic():
    fn = lambda r: r.random_normal([50])  # noqa: E731
    _, (a, _) = _ref_run(fn, graph_seed=3, runs=2)
    _, (b, _) = _ref_run(fn, graph_seed=3, runs=2)
    _, (c, _) = _ref_run(fn, graph_seed=4, runs=2)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_unseeded_ops_differ_between_sessions():
    _, (a, _) = _ref_run(lambda r: r.random_uniform([50]))
    _, (b, _) = _ref_run(lambda r: r.random_uniform([50]))
    assert not np.array_equal(a, b)


def test_function_statistics():
    _, (x, _) = _ref_run(lambda r: r.truncated_normal([N], mean=1.0, stddev=3.0, seed=1))
    _check_stats(x, 1.0, 3.0 * TRUNC_STD, 1.0 - 6.0, 1.0 + 6.0)
    _, (u, _) = _ref_run(lambda r: r.random_uniform([N], minval=-2.0, maxval=6.0, seed=1))
    _check_stats(u, 2.0, 8 / np.sqrt(12), -2.0, 6.0)


def test_integer_uniform_needs_maxval():
    with G.Graph().as_default():
        with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
            random_ops.random_uniform([2], dtype=dtypes.int32)


# edge parameters of RandomGamma / RandomPoissonV2, as TF's kernels treat them
GAMMA_POISSON_EDGE_ROWS = {
    "gamma_alpha_zero": lambda lib: lib.random_gamma([6], alpha=[0.0, 0.5], seed=345),
    "gamma_alpha_zero_f64": lambda lib: lib.random_gamma([4], alpha=0.0, dtype=lib.float64, seed=7),
    "gamma_empty_alpha": lambda lib: lib.random_gamma([5], alpha=np.ones([2, 0, 3]), beta=np.ones([3])),
    "gamma_empty_shape": lambda lib: lib.random_gamma([0], alpha=[1.0, 2.0]),
    "poisson_inf_rate": lambda lib: lib.random_poisson(shape=[3], lam=[np.inf, 2.0], seed=11),
    "poisson_inf_rate_int": lambda lib: lib.random_poisson(shape=[2], lam=np.inf, dtype=lib.int32, seed=11),
}


@pytest.mark.parametrize("row", sorted(GAMMA_POISSON_EDGE_ROWS))
def test_gamma_poisson_edges_as_tensorflow(row):
    import ref

    tf = pytest.importorskip("tensorflow").compat.v1
    got = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            lib.set_random_seed(1)
            out = GAMMA_POISSON_EDGE_ROWS[row](lib)
            with lib.Session() as s:
                got.append(s.run(out))
    assert got[1].dtype == got[0].dtype and got[1].shape == got[0].shape
    np.testing.assert_array_equal(got[1], got[0])
