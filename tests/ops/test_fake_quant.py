"""Fake quantization (ref/ops/fake_quant.py) against tf.raw_ops bit for bit:
ranges that nudge up, down and not at all, every bit width's edge, narrow
range, the zero range, inputs on grid points, half-steps and outside; the
builders' graphs and gradients against TF 2.21's."""
import numpy as np
import pytest

from ref.ops import fake_quant  # noqa: F401  (registers the ops)
from ref.ops import registry

RANGES = [(-6.0, 6.0), (-1.0, 1.0), (0.0, 1.0), (-0.1, 0.7), (-2.3, 0.0), (-7.3, 11.9), (0.0, 0.0), (1.5, 1.5),
          (-1e-3, 2e-3), (-100.0, 3.0)]
BITS = [(8, False), (8, True), (2, False), (4, True), (16, False), (7, False)]
_RNG = np.random.default_rng(5)
X = np.concatenate([_RNG.uniform(-12, 12, 64), np.linspace(-1, 1, 33), [0.0, -0.0, 1e-8, -1e-8]]).astype(np.float32)
X_CH = _RNG.uniform(-3, 3, (5, 3)).astype(np.float32)
G = _RNG.standard_normal(X.shape).astype(np.float32)


def _tf():
    return pytest.importorskip("tensorflow")


@pytest.mark.parametrize("bits,narrow", BITS)
@pytest.mark.parametrize("lo,hi", [r for r in RANGES if r[0] < r[1]])
def test_args_and_gradient_vs_tf(lo, hi, bits, narrow):
    tf = _tf()
    kw = dict(min=lo, max=hi, num_bits=bits, narrow_range=narrow)
    np.testing.assert_array_equal(registry.call("FakeQuantWithMinMaxArgs", inputs=X, **kw),
                                  tf.raw_ops.FakeQuantWithMinMaxArgs(inputs=X, **kw).numpy())
    np.testing.assert_array_equal(registry.call("FakeQuantWithMinMaxArgsGradient", gradients=G, inputs=X, **kw),
                                  tf.raw_ops.FakeQuantWithMinMaxArgsGradient(gradients=G, inputs=X, **kw).numpy())


@pytest.mark.parametrize("bits,narrow", BITS)
@pytest.mark.parametrize("lo,hi", RANGES)
def test_vars_and_gradient_vs_tf(lo, hi, bits, narrow):
    tf = _tf()
    kw = dict(min=np.float32(lo), max=np.float32(hi), num_bits=bits, narrow_range=narrow)
    np.testing.assert_array_equal(registry.call("FakeQuantWithMinMaxVars", inputs=X, **kw),
                                  tf.raw_ops.FakeQuantWithMinMaxVars(inputs=X, **kw).numpy())
    got = registry.call("FakeQuantWithMinMaxVarsGradient", gradients=G, inputs=X, **kw)
    want = [t.numpy() for t in tf.raw_ops.FakeQuantWithMinMaxVarsGradient(gradients=G, inputs=X, **kw)]
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(got[1:], want[1:], rtol=2e-6, atol=1e-6, equal_nan=True)  # Eigen sums in its order


@pytest.mark.parametrize("bits,narrow", BITS[:3])
def test_per_channel_and_gradient_vs_tf(bits, narrow):
    tf = _tf()
    kw = dict(min=np.float32([-1.0, 0.0, -2.3]), max=np.float32([1.0, 0.0, 0.7]), num_bits=bits,
              narrow_range=narrow)
    np.testing.assert_array_equal(registry.call("FakeQuantWithMinMaxVarsPerChannel", inputs=X_CH, **kw),
                                  tf.raw_ops.FakeQuantWithMinMaxVarsPerChannel(inputs=X_CH, **kw).numpy())
    g = G[:15].reshape(5, 3)
    got = registry.call("FakeQuantWithMinMaxVarsPerChannelGradient", gradients=g, inputs=X_CH, **kw)
    want = [t.numpy() for t in tf.raw_ops.FakeQuantWithMinMaxVarsPerChannelGradient(gradients=g, inputs=X_CH, **kw)]
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(got[1:], want[1:], rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("op,kw,match", [
    ("FakeQuantWithMinMaxArgs", dict(min=1.0, max=1.0), "min has to be smaller than max"),
    ("FakeQuantWithMinMaxArgs", dict(num_bits=1), "num_bits must be between 2 and 16"),
    ("FakeQuantWithMinMaxVars", dict(min=np.float32([0.0]), max=np.float32(1.0)), "`min` must be rank 0"),
])
def test_errors_are_tfs(op, kw, match):
    import ref
    tf = _tf()
    with pytest.raises(ref.errors.InvalidArgumentError, match=match):
        registry.call(op, inputs=X, **kw)
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        getattr(tf.raw_ops, op)(inputs=X, **kw)


def test_graphs_and_gradients_are_tensorflows():
    import sys
    import pathlib
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "graph_ops"))
    from _graphdef import assert_same_graph

    def snippet(tf):
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        lo, hi = tf.Variable(-1.0, name="lo"), tf.Variable(2.0, name="hi")
        c = tf.constant([-1.0, 0.0, -0.5]), tf.constant([1.0, 0.5, 0.5])
        y = (tf.fake_quant_with_min_max_args(x, -2.0, 3.0, num_bits=6) + tf.quantization.fake_quant_with_min_max_vars(
            x, lo, hi, narrow_range=True) + tf.fake_quant_with_min_max_vars_per_channel(x, *c))
        tf.gradients(tf.reduce_sum(y), [x, lo, hi])

    assert_same_graph(snippet)
