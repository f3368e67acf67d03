"""``tf.distributions`` against TensorFlow 2.21 ``tf.compat.v1.distributions``:
each family's graph (construction, sample, densities, cdfs, statistics, KL,
``validate_args`` checks) node for node, and the fetched values -- random draws
included -- for the same graph seed; formulas from the modules' docstrings as
NumPy oracles; TF's errors for bad arguments."""
import math

import numpy as np
import pytest

from ref.graph_ops.distributions import normal as _under_test  # noqa: F401
from _graphdef import assert_same_graph, fetched_values, tf_v1


def _normal(tf):
    d = tf.distributions
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    n = d.Normal(loc=tf.zeros([3]), scale=[1., 2., 3.])
    m = d.Normal(loc=1., scale=0.5)
    return [n.sample(), n.sample([2, 4]), n.log_prob(x), n.prob(x), n.cdf(x), n.log_cdf(x), n.survival_function(x),
            n.log_survival_function(x), n.entropy(), n.mean(), n.stddev(), n.variance(), n.mode(),
            n.quantile([0.1, 0.5, 0.99]), d.kl_divergence(n, m), n.cross_entropy(m), m.sample(5, seed=2),
            n.batch_shape_tensor(), n.event_shape_tensor(), n.is_scalar_batch()]


def _normal_fixed(tf):
    d = tf.distributions
    n = d.Normal(loc=[0., 1.], scale=[1., 2.])
    v = np.array([[-12., 0.3], [6., 9.]], np.float32)  # both tails of log_ndtr's three pieces
    return [n.log_prob(v), n.cdf(v), n.log_cdf(v), n.log_survival_function(v), n.quantile([0.001, 0.9]),
            n.sample(3), d.Normal(0., 1., allow_nan_stats=False).kl_divergence(d.Normal(1., 2.))]


def _uniform(tf):
    u = tf.distributions.Uniform(low=[0., 1.], high=3.)
    return [u.sample(3), u.prob([[0.5, 2.5], [4., -1.]]), u.cdf([[0.5, 2.5]]), u.entropy(), u.mean(),
            u.variance(), u.stddev(), u.log_prob(1.5), u.range()]


def _bernoulli(tf):
    d = tf.distributions
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    b = d.Bernoulli(logits=x)
    bp = d.Bernoulli(probs=[0.2, 0.7, 0.5])
    return [b.sample(2), b.log_prob([1, 0, 1]), b.entropy(), b.mean(), b.variance(), b.mode(),
            bp.log_prob(tf.constant([[1, 0, 1]])), d.kl_divergence(bp, d.Bernoulli(probs=0.5)), bp.prob(1),
            bp.sample(4, seed=3)]


def _categorical(tf):
    d = tf.distributions
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    c = d.Categorical(logits=x)
    cp = d.Categorical(probs=[[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    return [c.sample(4), c.log_prob([0, 2]), c.entropy(), c.mode(), cp.sample(), cp.cdf([1, 2]), cp.prob([2, 0]),
            d.kl_divergence(cp, d.Categorical(logits=[[0., 0., 0.], [1., 2., 3.]])), c.batch_shape_tensor(),
            c.sample(tf.constant([2, 2])), d.Categorical(logits=[0.1, 0.5], dtype=tf.int64).sample(3)]


def _gamma_exponential(tf):
    d = tf.distributions
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    g = d.Gamma(concentration=[0.5, 3.], rate=2.)
    e = d.Exponential(rate=[1., 4.])
    return [g.sample(3), g.log_prob(x), g.prob(x), g.cdf(tf.abs(x)), e.cdf(tf.abs(x)), g.entropy(), g.mean(), g.variance(), g.stddev(), g.mode(),
            d.kl_divergence(g, d.Gamma(concentration=2., rate=[1., .5])), g.sample(seed=4),
            e.sample(2), e.log_prob(x), e.log_survival_function(x), e.mean(), e.entropy(), e.mode()]


def _laplace(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    l = tf.distributions.Laplace(loc=[0., 1.], scale=1.5)
    return [l.sample(4), l.log_prob(x), l.prob(x), l.cdf(x), l.log_cdf(x), l.log_survival_function(x), l.entropy(),
            l.mean(), l.stddev(), l.mode(), l.variance()]


def _beta_dirichlet(tf):
    d = tf.distributions
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    b = d.Beta(concentration1=[0.5, 2.], concentration0=3.)
    di = d.Dirichlet([[1., 2., 3.], [0.5, 0.5, 4.]])
    return [b.sample(3), b.sample(2, seed=7), b.log_prob(tf.sigmoid(x)), d.Beta(2., 3.).cdf([0.2, 0.7]), d.Beta(0.5, 3.).log_cdf(tf.sigmoid(x)), b.entropy(), b.mean(), b.variance(),
            b.mode(), d.kl_divergence(b, d.Beta(2., [1., 4.])), b.stddev(),
            di.sample(2), di.log_prob([[0.2, 0.3, 0.5]]), di.entropy(), di.mean(), di.variance(), di.covariance(),
            d.kl_divergence(di, d.Dirichlet([2., 2., 2.])), di.prob([0.1, 0.1, 0.8])]


def _student_t_multinomial(tf):
    d = tf.distributions
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    t = d.StudentT(df=[1.5, 5.], loc=0.5, scale=2.)
    m = d.Multinomial(total_count=[4., 6.], probs=[[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])
    m2 = d.Multinomial(total_count=3., logits=[0.1, 0.2, -0.3])
    return [t.sample(3), t.log_prob(x), t.prob(x), d.StudentT(3., 0.5, 2.).cdf([0.5, -1.]), d.StudentT(1.5, 0., 1.).log_cdf(x), t.entropy(), t.mean(), t.variance(), t.stddev(), t.mode(),
            t.sample(2, seed=3), m.log_prob([[1., 1., 2.], [3., 2., 1.]]), m.prob([[0., 0., 4.], [6., 0., 0.]]),
            m.mean(), m.variance(), m.covariance(), m2.sample(4, seed=1), m2.log_prob([1., 1., 1.])]


def _validated(tf):
    d = tf.distributions
    return [d.Normal(tf.zeros([2]), 1., validate_args=True).log_prob(1.),
            d.Bernoulli(probs=0.3, validate_args=True).log_prob(1),
            d.Categorical(probs=[0.2, 0.8], validate_args=True).log_prob(1),
            d.Uniform(0., [1., 2.], validate_args=True).sample(),
            d.Gamma(2., 3., validate_args=True).log_prob(0.5),
            d.Multinomial(2., probs=[0.5, 0.5], validate_args=True).log_prob([1., 1.]),
            d.Beta(2., 3., validate_args=True, allow_nan_stats=False).mode()]


def _unknown_shapes(tf):
    d = tf.distributions
    loc = tf.placeholder(tf.float32, None, name="loc")
    logits = tf.placeholder(tf.float32, [None, None], name="logits")
    n = d.Normal(loc, 1.)
    c = d.Categorical(logits=logits)
    k = tf.placeholder(tf.int32, [None], name="k")
    return [n.sample(k), n.batch_shape_tensor(), c.sample(2), c.log_prob([0]), c.event_size, c.mode(),
            n.is_scalar_batch(), d.Normal(loc, 1.).sample(tf.constant(3))]


_FEEDS = {"x": np.array([[0.1, -1.0, 2.0], [1.5, 0.3, -0.2]], np.float32)}

ROWS = [pytest.param(f, id=f.__name__.strip("_")) for f in (
    _normal, _normal_fixed, _uniform, _bernoulli, _categorical, _gamma_exponential, _laplace, _beta_dirichlet,
    _student_t_multinomial, _validated, _unknown_shapes)]


@pytest.mark.parametrize("snippet", ROWS)
def test_same_graph_as_tf(snippet):
    assert_same_graph(lambda tf: snippet(tf) and None)


def _fed(snippet):
    """The snippet with its placeholder ``x`` (if any) fed: values to compare."""
    def run(tf):
        outs = snippet(tf)
        g = tf.get_default_graph()
        names = {op.name for op in g.get_operations()}
        feeds = {g.get_tensor_by_name("x:0"): _FEEDS["x"][:, :g.get_tensor_by_name("x:0").shape[1]]} \
            if "x" in names else {}
        return outs, feeds
    return run


def _values(lib, snippet, seed):
    import contextlib
    from _graphdef import tf1_behaviour
    is_ref = lib.__name__.startswith("ref")
    with (contextlib.nullcontext() if is_ref else tf1_behaviour()), lib.Graph().as_default():
        lib.set_random_seed(seed)
        outs, feeds = _fed(snippet)(lib)
        with lib.Session() as s:
            return s.run(outs, feeds)


@pytest.mark.parametrize("snippet", [r for r in ROWS if r.id not in ("unknown_shapes",)])
def test_values_equal_tensorflows(snippet):
    import ref
    tf = tf_v1()
    got, want = _values(ref, snippet, 11), _values(tf, snippet, 11)
    for i, (g, w) in enumerate(zip(got, want)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype, (i, g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, equal_nan=True, err_msg=f"output {i}")


# -- NumPy oracles (formulas of the modules' docstrings) --------------------------------


def test_densities_follow_their_formulas():
    import ref as tf
    x = np.array([-1.5, 0.2, 2.5])
    with tf.Graph().as_default(), tf.Session() as s:
        d = tf.distributions
        normal, laplace = d.Normal(0.5, 2.), d.Laplace(0.5, 2.)
        bern, expo = d.Bernoulli(logits=0.3), d.Exponential(1.5)
        got = s.run([normal.log_prob(x), normal.cdf(x), laplace.log_prob(x), laplace.cdf(x),
                     bern.log_prob([0, 1]), expo.log_prob(np.abs(x)), normal.entropy(), d.kl_divergence(normal, d.Normal(0., 1.))])
    z = (x - 0.5) / 2.
    erf = np.vectorize(math.erf)
    p = 1 / (1 + np.exp(-0.3))
    want = [-z ** 2 / 2 - math.log(math.sqrt(2 * math.pi) * 2.), 0.5 * (1 + erf(z / math.sqrt(2))),
            -np.abs(z) - math.log(4.), 0.5 + 0.5 * np.sign(z) * (1 - np.exp(-np.abs(z))),
            [math.log(1 - p), math.log(p)], math.log(1.5) - 1.5 * np.abs(x),
            0.5 * math.log(2 * math.pi * math.e * 4.), 0.125 + 0.5 * (4. - 1 - math.log(4.))]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


# -- errors as TF's -----------------------------------------------------------------------


def _errors(tf):
    d = tf.distributions
    out = []
    for build in (lambda: d.Bernoulli(logits=[0.], probs=[0.5]),
                  lambda: d.Bernoulli(),
                  lambda: d.Categorical(logits=[1.]).log_prob(0) if False else d.Categorical(logits=[1.], validate_args=True),
                  lambda: d.Normal(0., 1.).sample([[1, 2]]),
                  lambda: d.kl_divergence(d.Normal(0., 1.), d.Bernoulli(probs=0.5)),
                  lambda: d.Normal(1, 2.),
                  lambda: d.Bernoulli(logits=[1, 2])):
        try:
            build()
            out.append(None)
        except Exception as e:  # noqa: BLE001 -- the kind is the assertion
            out.append(type(e).__name__)
    return out


def test_errors_are_tensorflows():
    import ref
    tf = tf_v1()
    from _graphdef import tf1_behaviour
    with ref.Graph().as_default():
        got = _errors(ref)
    with tf1_behaviour(), tf.Graph().as_default():
        want = _errors(tf)
    assert got == want
    assert got[:2] == ["ValueError", "ValueError"]


def test_register_kl_twice_is_a_value_error_and_nearest_pair_wins():
    import ref as tf
    d = tf.distributions

    class MyNormal(d.Normal):
        pass

    @d.RegisterKL(MyNormal, d.Normal)
    def _kl(a, b, name=None):
        return tf.constant(7.)

    with pytest.raises(ValueError, match="already been registered"):
        d.RegisterKL(MyNormal, d.Normal)(_kl)
    with tf.Graph().as_default(), tf.Session() as s:
        mine, nearest, base = s.run([d.kl_divergence(MyNormal(0., 1.), d.Normal(0., 1.)),
                                     d.kl_divergence(MyNormal(0., 1.), MyNormal(0., 1.)),
                                     d.kl_divergence(d.Normal(0., 1.), MyNormal(0., 1.))])
    # (MyNormal, MyNormal) has no entry: (MyNormal, Normal) is one step up, (Normal, Normal) two
    assert (mine, nearest, base) == (7., 7., 0.)
