"""Orthogonal convolution initializers against TF 2.21's init_ops: the same
values for the same seeds (same random draws, same QR up to float rounding),
and TF's errors for bad shapes."""
import numpy as np
import pytest

from ref.graph_ops import init_ops_conv as _under_test  # noqa: F401
import ref

CASES = [  # (class name, shape, gain)
    ("ConvolutionDeltaOrthogonal", (3, 4, 5), 1.0),
    ("ConvolutionDeltaOrthogonal", (3, 3, 2, 4), 2.0),
    ("ConvolutionDeltaOrthogonal", (2, 3, 3, 4, 4), 0.5),
    ("ConvolutionOrthogonal1D", (1, 3, 4), 1.0),
    ("ConvolutionOrthogonal1D", (4, 3, 5), 1.5),
    ("ConvolutionOrthogonal2D", (3, 3, 2, 4), 1.0),
    ("ConvolutionOrthogonal2D", (1, 1, 2, 2), 2.0),
    ("ConvolutionOrthogonal3D", (2, 2, 2, 3, 3), 1.0),
]


def _values(lib_init_ops, lib, name, shape, gain):
    with lib.Graph().as_default():
        lib.set_random_seed(4)
        init = getattr(lib_init_ops, name)(gain=gain, seed=7)
        t = init(shape)
        with lib.Session() as sess:
            return sess.run(t)


@pytest.mark.parametrize("name, shape, gain", CASES, ids=[f"{c[0]}-{'x'.join(map(str, c[1]))}" for c in CASES])
def test_values_are_tensorflows(name, shape, gain):
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.ops import init_ops as tf_init_ops
    got = _values(_under_test, ref, name, shape, gain)
    want = _values(tf_init_ops, tf.compat.v1, name, shape, gain)
    assert got.shape == want.shape == shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # the defining property: the kernel's spatial sum of W^T W is gain^2 I (a norm-preserving convolution)
    flat = got.reshape(-1, shape[-2], shape[-1])
    gram = sum(w @ w.T for w in flat)
    np.testing.assert_allclose(gram, gain ** 2 * np.eye(shape[-2]), atol=1e-4)


ERRORS = [
    ("ConvolutionDeltaOrthogonal", (3, 3), "must be at least three-dimensional and at most five-dimensional"),
    ("ConvolutionDeltaOrthogonal", (3, 5, 4), "cannot be greater than out_filters"),
    ("ConvolutionOrthogonal1D", (3, 3, 2, 2), "must be three-dimensional"),
    ("ConvolutionOrthogonal2D", (3, 2, 2, 2), "must be equal"),
    ("ConvolutionOrthogonal3D", (3, 3, 3, 4, 2), "cannot be greater than out_filters"),
]


@pytest.mark.parametrize("name, shape, fragment", ERRORS, ids=[f"{e[0]}-{'x'.join(map(str, e[1]))}" for e in ERRORS])
def test_errors_are_tensorflows(name, shape, fragment):
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.ops import init_ops as tf_init_ops
    for lib, mod in ((ref, _under_test), (tf.compat.v1, tf_init_ops)):
        with lib.Graph().as_default(), pytest.raises(ValueError, match=fragment):
            getattr(mod, name)(seed=1)(shape)
