"""Learning-rate schedules: graph functions and pure forms against
TensorFlow's tf.compat.v1.train.*_decay (over ranges of steps), against each
other (bit-identical), and against the spec-card oracles (hypothesis)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import ref.ops
from ref.types import dtypes
from ref.graph_ops.control_flow_ops import placeholder
from ref.framework.graph import Graph
from ref.framework.op_def_library import constant
from ref.optimizers import schedules as S
from ref.session import Session
from ref import numpy_reference as npr
from specs import schedules as cards
from ref.golden.ulp import ulp_distance

ref.ops.load_all()

STEPS = np.array([0, 1, 2, 5, 9, 10, 11, 37, 99, 100, 101, 250, 999, 1000, 4000, 2 ** 24 + 3], np.int64)
F64 = np.float64

# (function, kwargs without global_step, float32 ULP budget against TF)
CASES = [
    ("exponential_decay", dict(learning_rate=0.1, decay_steps=100, decay_rate=0.96), 2),
    ("exponential_decay", dict(learning_rate=0.1, decay_steps=100, decay_rate=0.96, staircase=True), 2),
    ("exponential_decay", dict(learning_rate=F64(0.1), decay_steps=7, decay_rate=F64(0.5)), 2),
    ("exponential_decay", dict(learning_rate=F64(0.1), decay_steps=7, decay_rate=0.96, staircase=True), 2),
    # Pow with exponents up to 200: TF's float32 pow/exp and libm's differ by a few ULP there
    ("natural_exp_decay", dict(learning_rate=0.1, decay_steps=5, decay_rate=0.5), 6),
    ("natural_exp_decay", dict(learning_rate=0.1, decay_steps=5, decay_rate=0.5, staircase=True), 6),
    ("natural_exp_decay", dict(learning_rate=F64(0.1), decay_steps=5, decay_rate=0.3), 6),
    ("inverse_time_decay", dict(learning_rate=0.1, decay_steps=1.0, decay_rate=0.5), 1),
    ("inverse_time_decay", dict(learning_rate=0.1, decay_steps=10, decay_rate=0.5, staircase=True), 1),
    ("inverse_time_decay", dict(learning_rate=F64(0.1), decay_steps=10, decay_rate=F64(0.25)), 1),
    ("polynomial_decay", dict(learning_rate=0.1, decay_steps=100), 2),
    ("polynomial_decay", dict(learning_rate=0.1, decay_steps=100, end_learning_rate=0.01, power=0.5), 2),
    ("polynomial_decay", dict(learning_rate=0.1, decay_steps=100, end_learning_rate=0.01, power=2.0,
                              cycle=True), 2),
    ("polynomial_decay", dict(learning_rate=F64(0.1), decay_steps=100, end_learning_rate=F64(0.01),
                              power=F64(0.5)), 2),
    ("cosine_decay", dict(learning_rate=0.1, decay_steps=1000), 4),
    ("cosine_decay", dict(learning_rate=0.1, decay_steps=300, alpha=0.1), 4),
    ("cosine_decay_restarts", dict(learning_rate=0.1, first_decay_steps=10), 4),
    ("cosine_decay_restarts", dict(learning_rate=0.1, first_decay_steps=10, t_mul=1.0, m_mul=0.5, alpha=0.1), 4),
    ("cosine_decay_restarts", dict(learning_rate=0.1, first_decay_steps=7, t_mul=1.5, m_mul=0.9), 4),
    ("linear_cosine_decay", dict(learning_rate=0.1, decay_steps=1000), 4),
    ("linear_cosine_decay", dict(learning_rate=0.1, decay_steps=300, num_periods=2.0, alpha=0.1, beta=0.01), 4),
    ("noisy_linear_cosine_decay", dict(learning_rate=0.1, decay_steps=1000, initial_variance=0.0), 4),
]
IDS = [f"{f}-{i}" for i, (f, _, _) in enumerate(CASES)]


def _ref_graph(fn, kw, steps, step_dtype=dtypes.int64):
    g = Graph()
    with g.as_default():
        step = placeholder(step_dtype, [])
        out = getattr(S, fn)(global_step=step, **kw)
    with Session(graph=g) as sess:
        return out, np.array([sess.run(out, {step: s}) for s in steps])


def tf_session(tf, graph):
    """A TF session without Grappler: its arithmetic optimizer rewrites ``x / c``
    into ``x * (1 / c)``, which is not the kernels' arithmetic that ref mirrors."""
    from tensorflow.core.protobuf import rewriter_config_pb2

    off = rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True)
    return tf.Session(graph=graph, config=tf.ConfigProto(graph_options=tf.GraphOptions(rewrite_options=off)))


def _tf_graph(tf, fn, kw, steps):
    g = tf.Graph()
    with g.as_default():
        step = tf.placeholder(tf.int64, [])
        out = getattr(tf.train, fn)(global_step=step, **kw)
    with tf_session(tf, g) as sess:
        return np.array([sess.run(out, {step: s}) for s in steps])


@pytest.fixture(scope="module")
def tf1():
    tf = pytest.importorskip("tensorflow")
    return tf.compat.v1


@pytest.mark.parametrize("fn,kw,budget", CASES, ids=IDS)
def test_graph_and_pure_form_agree_with_tensorflow(tf1, fn, kw, budget):
    tensor, got = _ref_graph(fn, kw, STEPS)
    want = _tf_graph(tf1, fn, kw, STEPS)
    lr = kw["learning_rate"]
    assert tensor.dtype.base_dtype.np == want.dtype == (lr.dtype if isinstance(lr, np.generic) else np.float32)
    assert tensor.shape.ndims == 0
    assert got.dtype == want.dtype
    d = ulp_distance(got, want)
    assert d.max() <= budget, f"{fn}: {d.max()} ULP at step {STEPS[d.argmax()]}: ref {got}, TF {want}"
    pure = getattr(S, fn + "_value")(global_step=STEPS, **kw)
    np.testing.assert_array_equal(pure, got)  # the same kernels, bit for bit
    assert getattr(S, fn + "_value")(global_step=STEPS[3], **kw) == got[3]


@pytest.mark.parametrize("step_dtype", [dtypes.int32, dtypes.int64, dtypes.float32])
def test_step_dtype_is_cast_to_the_learning_rate_dtype(tf1, step_dtype):
    kw = dict(learning_rate=0.1, decay_steps=10, decay_rate=0.9)
    _, got = _ref_graph("exponential_decay", kw, [0, 3, 25], step_dtype)
    g = tf1.Graph()
    with g.as_default():
        step = tf1.placeholder(step_dtype.name, [])
        out = tf1.train.exponential_decay(global_step=step, **kw)
    with tf_session(tf1, g) as sess:
        want = np.array([sess.run(out, {step: s}) for s in (0, 3, 25)])
    np.testing.assert_array_equal(got, want)


def test_noisy_linear_cosine_decay_noise_as_tensorflow(tf1):
    """The graph's N(0, 1) draw is fed (in TF and ref) so both see the same noise."""
    kw = dict(learning_rate=0.1, decay_steps=100, initial_variance=0.5, variance_decay=0.55)
    noise = [0.3, -1.2, 2.0, 0.0]
    steps = [0, 7, 50, 200]

    def run(g, out, step, sess_cls):
        rnd = [op for op in g.get_operations() if op.type == "RandomStandardNormal"][0].outputs[0]
        with sess_cls(graph=g) as sess:
            return np.array([sess.run(out, {step: s, rnd: np.float32(n)}) for s, n in zip(steps, noise)])

    g = tf1.Graph()
    with g.as_default():
        step = tf1.placeholder(tf1.int64, [])
        out = tf1.train.noisy_linear_cosine_decay(global_step=step, **kw)
    want = run(g, out, step, lambda graph: tf_session(tf1, graph))
    rg = Graph()
    with rg.as_default():
        rstep = placeholder(dtypes.int64, [])
        rout = S.noisy_linear_cosine_decay(global_step=rstep, **kw)
    got = run(rg, rout, rstep, Session)
    assert ulp_distance(got, want).max() <= 4
    pure = [S.noisy_linear_cosine_decay_value(global_step=s, noise=n, **kw) for s, n in zip(steps, noise)]
    np.testing.assert_array_equal(pure, got)


PIECEWISE = [
    (np.int64, [100, 110], [1.0, 0.5, 0.1]),
    (np.int32, [10, 20, 30], [4, 3, 2, 1]),
    (np.float32, [1.5, 2.5], [np.float64(1.0), np.float64(2.0), np.float64(3.0)]),
    (np.int64, [5], [0.1, 0.01]),
]


@pytest.mark.parametrize("x_dtype,boundaries,values", PIECEWISE)
def test_piecewise_constant_as_tensorflow(tf1, x_dtype, boundaries, values):
    xs = np.array([0, 1, 2, 5, 6, 10, 11, 20, 25, 30, 31, 99, 100, 101, 110, 111, 1000]).astype(x_dtype)
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(np.dtype(x_dtype).name, [])
        out = tf1.train.piecewise_constant(x, boundaries, values)
    with tf_session(tf1, g) as sess:
        want = np.array([sess.run(out, {x: v}) for v in xs])
    rg = Graph()
    with rg.as_default():
        rx = placeholder(dtypes.as_dtype(x_dtype), [])
        rout = S.piecewise_constant(rx, boundaries, values)
        assert S.piecewise_constant_decay is S.piecewise_constant
    with Session(graph=rg) as sess:
        got = np.array([sess.run(rout, {rx: v}) for v in xs])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(S.piecewise_constant_value(xs, boundaries, values), want)
    np.testing.assert_array_equal(want, npr.piecewise_constant(xs, boundaries, values).astype(want.dtype))


ERRORS = [
    (lambda: S.exponential_decay(0.1, None, 10, 0.9), ValueError, "global_step is required for exponential_decay"),
    (lambda: S.natural_exp_decay(0.1, None, 10, 0.9), ValueError, "global_step is required"),
    (lambda: S.inverse_time_decay(0.1, None, 10, 0.9), ValueError, "global_step is required"),
    (lambda: S.polynomial_decay(0.1, None, 10), ValueError, "global_step is required"),
    (lambda: S.cosine_decay(0.1, None, 10), ValueError, "global_step is required"),
    (lambda: S.cosine_decay_restarts(0.1, None, 10), ValueError, "global_step is required"),
    (lambda: S.linear_cosine_decay(0.1, None, 10), ValueError, "global_step is required"),
    (lambda: S.noisy_linear_cosine_decay(0.1, None, 10), ValueError, "global_step is required"),
    (lambda: S.exponential_decay_value(0.1, None, 10, 0.9), ValueError, "global_step is required"),
    (lambda: S.piecewise_constant(constant(np.float32(1)), [1, 2], [1.0, 2.0, 3.0]), ValueError,
     r"Boundaries \(int32\) must have the same dtype as x \(float32\)"),
    (lambda: S.piecewise_constant(constant(np.int64(1)), [1, 2], [1.0, 2, 3.0]), ValueError,
     r"Values must have elements all with the same dtype \(float32 vs int32\)"),
    (lambda: S.piecewise_constant(constant(np.int64(1)), [1, 2], [1.0, 2.0]), ValueError,
     "The length of boundaries should be 1 less than the length of values"),
    (lambda: S.piecewise_constant_value(1, [1, 2], [1.0, 2.0]), ValueError, "should be 1 less"),
]


@pytest.mark.parametrize("build,exc,match", ERRORS)
def test_errors(build, exc, match):
    with Graph().as_default(), pytest.raises(exc, match=match):
        build()


@pytest.mark.parametrize("fn", ["exponential_decay", "natural_exp_decay", "inverse_time_decay",
                                "polynomial_decay", "cosine_decay", "cosine_decay_restarts", "linear_cosine_decay",
                                "noisy_linear_cosine_decay", "piecewise_constant"])
def test_errors_match_tensorflow_kind(tf1, fn):
    """TF 2.21 raises ValueError too (its message: 'None values not supported.')."""
    args = (None, [1], [1.0, 2.0]) if fn == "piecewise_constant" else (0.1, None, 10) + (
        (0.9,) if fn in ("exponential_decay", "natural_exp_decay", "inverse_time_decay") else ())
    with tf1.Graph().as_default(), pytest.raises(ValueError):
        getattr(tf1.train, fn)(*args)


def test_graph_names_follow_tensorflow():
    with Graph().as_default():
        assert S.exponential_decay(0.1, 3, 10, 0.9).op.name == "ExponentialDecay"
        assert S.exponential_decay(0.1, 3, 10, 0.9, name="lr").op.name == "lr"
        assert S.inverse_time_decay(0.1, 3, 10, 0.9).op.name == "InverseTimeDecay"
        assert S.polynomial_decay(0.1, 3, 10).op.name == "PolynomialDecay"
        assert S.cosine_decay_restarts(0.1, 3, 10).op.name == "SGDRDecay"
        assert S.linear_cosine_decay(0.1, 3, 10).op.name == "LinearCosineDecay"
        assert S.cosine_decay(0.1, 3, 10).op.name.startswith("CosineDecay/")


# -- float64 (where TF cannot build the schedule) and the oracle property tests --------------

FLOAT64_ONLY_REF = [
    ("cosine_decay", dict(learning_rate=F64(0.1), decay_steps=1000, alpha=F64(0.1))),
    ("cosine_decay_restarts", dict(learning_rate=F64(0.1), first_decay_steps=10, t_mul=F64(2.0))),
    ("linear_cosine_decay", dict(learning_rate=F64(0.1), decay_steps=300, num_periods=F64(2.0),
                                 beta=F64(0.001))),  # a Python 0.001 would be cast from float32, as TF does
    ("polynomial_decay", dict(learning_rate=F64(0.1), decay_steps=100, end_learning_rate=F64(0.01),
                              power=F64(2.0), cycle=True)),
]


@pytest.mark.parametrize("fn,kw", FLOAT64_ONLY_REF)
def test_float64_where_tensorflow_fails(tf1, fn, kw):
    with tf1.Graph().as_default(), pytest.raises((TypeError, ValueError)):
        getattr(tf1.train, fn)(global_step=tf1.constant(3, tf1.int64), **kw)
    steps = STEPS[:-1]
    tensor, got = _ref_graph(fn, kw, steps)
    assert tensor.dtype == dtypes.float64 and got.dtype == np.float64
    oracle = {"cosine_decay": npr.cosine_decay, "cosine_decay_restarts": npr.cosine_decay_restarts,
              "linear_cosine_decay": npr.linear_cosine_decay, "polynomial_decay": npr.polynomial_decay}[fn]
    want = oracle(global_step=steps, **kw)
    assert np.max(np.abs(got - want) / np.spacing(kw["learning_rate"])) <= 16


def _steps_and_rate():
    return st.tuples(st.integers(0, 5000), st.integers(1, 2000), st.floats(0.01, 0.99))


ORACLE_CASES = [
    ("exponential_decay", npr.exponential_decay,
     lambda s, d, r, b: dict(decay_steps=d, decay_rate=r, staircase=b),
     "abs(step / decay_steps * np.log(decay_rate)) <= 8"),
    ("natural_exp_decay", npr.natural_exp_decay,
     lambda s, d, r, b: dict(decay_steps=d, decay_rate=r, staircase=b), "step / decay_steps <= 4"),
    ("inverse_time_decay", npr.inverse_time_decay,
     lambda s, d, r, b: dict(decay_steps=d, decay_rate=r, staircase=b), ""),
    ("polynomial_decay", npr.polynomial_decay,
     lambda s, d, r, b: dict(decay_steps=d, end_learning_rate=r * 1e-2, power=1 + 2 * r, cycle=b), ""),
    ("cosine_decay", npr.cosine_decay, lambda s, d, r, b: dict(decay_steps=d, alpha=r * b), ""),
    ("cosine_decay_restarts", npr.cosine_decay_restarts,
     lambda s, d, r, b: dict(first_decay_steps=d, t_mul=1.0 if b else 1 + 2 * r, m_mul=r, alpha=r / 2),
     "restart_boundary"),
    ("linear_cosine_decay", npr.linear_cosine_decay,
     lambda s, d, r, b: dict(decay_steps=d, num_periods=1 + 3 * r, alpha=r * b, beta=r / 100), ""),
    ("noisy_linear_cosine_decay", npr.noisy_linear_cosine_decay,
     lambda s, d, r, b: dict(decay_steps=d, initial_variance=r, variance_decay=0.55, num_periods=0.5,
                             alpha=0.0, beta=0.001, noise=2 * r - 1), ""),
]


def _rounded(kw, dtype):
    """What the kernels see: float hyperparameters in the schedule's dtype."""
    return {k: (float(np.asarray(v, dtype)) if isinstance(v, float) else v) for k, v in kw.items()}


@pytest.mark.parametrize("fn,oracle,make,condition", ORACLE_CASES, ids=[c[0] for c in ORACLE_CASES])
def test_pure_form_agrees_with_the_card_oracle(fn, oracle, make, condition):
    card = next(c for c in cards.CARDS if c.name == fn)

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(_steps_and_rate(), st.booleans(), st.sampled_from((np.float32, np.float64)),
           st.floats(1e-4, 10.0))
    def check(sdr, flag, dtype, lr):
        step, decay_steps, rate = sdr
        kw = make(step, decay_steps, rate, flag)
        kw = {k: (dtype(v) if isinstance(v, float) else v) for k, v in kw.items()}
        lr = dtype(lr)
        if condition == "restart_boundary":
            t = float(np.asarray(kw["t_mul"], dtype))
            i, frac = npr.restart_period(float(step), decay_steps, t)
            assume(1e-3 < frac < 1 - 1e-3 or (frac == 0.0 and i == 0))
        elif condition:
            env = dict(step=step, **{k: float(v) for k, v in kw.items() if not isinstance(v, bool)})
            assume(eval(condition, {"np": np}, env))
        noise = kw.pop("noise", None)
        extra = {} if noise is None else {"noise": noise}
        got = getattr(S, fn + "_value")(lr, step, **kw, **extra)
        assert got.dtype == dtype
        want = oracle(float(lr), step, **_rounded(kw, dtype), **({} if noise is None else {
            "noise": float(np.asarray(noise, dtype))}))
        budget = card.ulp if dtype == np.float32 else card.ulp64
        scale = np.spacing(np.maximum(abs(lr), abs(np.asarray(want, dtype))))
        err = abs(float(got) - float(want)) / float(scale)
        assert err <= budget, f"{fn}: {err} ULP > {budget} (got {got!r}, oracle {want!r}, {kw})"

    check()
