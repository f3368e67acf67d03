"""What a process runs before its Numba kernels are built (an empty cache: the
background builds of ``ref.ops._jit``) has the bits of the built kernels.

*cold*: every kernel's exact NumPy form or stand-in path is taken (``numpy_tier``
True, ``ready`` False: convolutions through patch blocks and ``gemm_llvm``, max
pooling and col2im in NumPy, the fused loops unfused); *built*: the Numba kernels
(``numpy_tier`` False, ``ready`` True). Each row runs an op both ways."""
import numpy as np
import pytest

from ref.ops import _jit, fused, nn, registry

F32 = np.float32


def _mode(monkeypatch, cold):
    tier = (lambda kernel, size: True) if cold else (lambda kernel, size: False)
    monkeypatch.setattr(_jit, "numpy_tier", tier)
    monkeypatch.setattr(fused, "numpy_tier", tier)
    monkeypatch.setattr(_jit, "ready", lambda kernel: not cold)


def _data(shape, seed, special=False):
    x = np.random.RandomState(seed).standard_normal(shape).astype(F32)
    if special:  # ties, signed zeros, a NaN and infinities
        flat = x.reshape(-1)
        flat[::13] = 0.0
        flat[::29] = -0.0
        flat[::31] = flat[1]
        flat[7] = np.nan
        flat[11], flat[19] = np.inf, -np.inf
    return x


def _same(got, want):
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_array_equal(g, w)  # NaN where NaN
        finite = ~np.isnan(w)
        assert g[finite].tobytes() == w[finite].tobytes()


CONVS = [  # (input shape, filter shape, stride, padding, dilation)
    ((4, 14, 14, 32), (5, 5, 32, 64), 1, "SAME", 1),  # LeNet conv2: patch products when built
    ((2, 32, 32, 32), (3, 3, 32, 32), 1, "SAME", 1),  # VGG 3x3x32
    ((4, 28, 28, 1), (5, 5, 1, 32), 1, "SAME", 1),  # LeNet conv1: 25 patch columns
    ((3, 17, 15, 8), (3, 3, 8, 16), 2, "VALID", 1),  # strided, O > C: col2im for the input gradient
    ((2, 16, 16, 16), (3, 3, 16, 32), 1, "SAME", 2),  # dilated
    ((2, 12, 12, 24), (4, 4, 24, 8), 3, "SAME", 1),  # O < C, strided: col2im with overlaps... and gaps
]


def _conv_ops(x, f, stride, padding, dilation):
    opts = dict(strides=[1, stride, stride, 1], padding=padding, dilations=[1, dilation, dilation, 1])
    out = registry.call("Conv2D", input=x, filter=f, **opts)
    dy = _data(out.shape, 9)
    dx = registry.call("Conv2DBackpropInput", input_sizes=np.array(x.shape, np.int32), filter=f, out_backprop=dy,
                       **opts)
    df = registry.call("Conv2DBackpropFilter", input=x, filter_sizes=np.array(f.shape, np.int32), out_backprop=dy,
                       **opts)
    return out, dx, df


@pytest.mark.parametrize("xs, fs, stride, padding, dilation", CONVS)
def test_convolutions_and_their_gradients(monkeypatch, xs, fs, stride, padding, dilation):
    x, f = _data(xs, 1), _data(fs, 2)
    _mode(monkeypatch, True)
    cold = _conv_ops(x, f, stride, padding, dilation)
    _mode(monkeypatch, False)
    built = _conv_ops(x, f, stride, padding, dilation)
    _same(cold, built)


@pytest.mark.parametrize("xs, fs", [((4, 14, 14, 32), (5, 5, 32, 64)), ((2, 16, 16, 32), (3, 3, 32, 32))])
def test_conv_bias_relu_is_the_three_ops_while_its_loop_builds(monkeypatch, xs, fs):
    x, f = _data(xs, 3), _data(fs, 4)
    bias = _data((fs[3],), 5)
    opts = {"strides": [1, 1, 1, 1], "padding": "SAME"}
    _mode(monkeypatch, True)
    assert fused.conv_bias_relu(x, f, bias, opts) is None  # the caller runs the three kernels
    three = nn.relu(nn.bias_add(registry.call("Conv2D", input=x, filter=f, **opts), bias))
    _mode(monkeypatch, False)
    _same(three, fused.conv_bias_relu(x, f, bias, opts))


POOLS = [  # (input shape, window, stride, padding)
    ((4, 28, 28, 32), 2, 2, "SAME"),
    ((3, 13, 11, 5), 3, 2, "SAME"),  # overlapping windows: the gradient's sums in window order
    ((2, 9, 9, 4), 3, 1, "VALID"),
    ((2, 8, 8, 3), 2, 3, "VALID"),  # gaps between windows
]


@pytest.mark.parametrize("xs, k, s, padding", POOLS)
@pytest.mark.parametrize("special", [False, True])
def test_max_pool_and_its_gradient(monkeypatch, xs, k, s, padding, special):
    x = _data(xs, 6, special)
    opts = dict(ksize=[1, k, k, 1], strides=[1, s, s, 1], padding=padding)

    def ops():
        out = registry.call("MaxPool", input=x, **opts)
        dy = _data(out.shape, 7, special)
        return out, registry.call("MaxPoolGrad", orig_input=x, orig_output=out, grad=dy, **opts)

    _mode(monkeypatch, True)
    cold = ops()
    _mode(monkeypatch, False)
    _same(cold, ops())


@pytest.mark.parametrize("shape", [(64, 512), (20, 7, 7, 64), (3, 1000)])
@pytest.mark.parametrize("special", [False, True])
def test_fused_bias_relu_and_its_gradient(monkeypatch, shape, special):
    v, g = _data(shape, 8, special), _data(shape, 9, special)
    bias = _data(shape[-1:], 10, special)

    def ops():
        return (fused.bias_relu(nn.bias_add, nn.relu, v, bias),) + tuple(
            fused.relu_bias_grads(nn.relu_grad, nn.bias_add_grad, g, v))

    _mode(monkeypatch, True)
    cold = ops()
    _mode(monkeypatch, False)
    _same(cold, ops())
