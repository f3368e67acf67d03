"""tf.test.compute_gradient without ``x_init_value``: the point is TF's, drawn
uniform [0, 1) from NumPy's global stream (real part, then imaginary part), one
x at a time for a list of xs, the other xs keeping their graph values. With the
same seed ref evaluates at TF's point, so the Jacobians are TF's (kinks
included: an elu gradient checked near 0 is where the two would differ)."""
import numpy as np
import pytest

import ref.grad  # noqa: F401  (the package these tests cover)
import ref


def _elu_grad(tf, xs):
    dummy = tf.constant([[3, 1, -1, -2], [9, 8, 7, 6]], dtype=tf.float32)
    return tf.gradients(tf.nn.elu(xs[0]), xs[0], grad_ys=dummy)[0]


def _selu_grad(tf, xs):
    dummy = tf.constant([[3, 1, -1, -2], [9, 8, 7, 6]], dtype=tf.float32)
    return tf.gradients(tf.nn.selu(xs[0]), xs[0], grad_ys=dummy)[0]


# name: (x values, dtype, y builder, whether x is passed as a list)
CASES = {
    "elu_grad_wrt_inputs": ([[[-2, -1, 1, 3], [5, 7, 8, 9]]], "float32", _elu_grad, False),
    "selu_grad_wrt_inputs": ([[[-2, -1, 1, 3], [5, 7, 8, 9]]], "float32", _selu_grad, False),
    "complex_mul": ([11 - 13j], "complex64", lambda tf, xs: tf.constant(5 + 7j, tf.complex64) * xs[0], False),
    "complex_conj": ([11 - 13j], "complex64", lambda tf, xs: tf.conj(xs[0]), False),
    "relu_kink": ([[0.5, -0.5, 2.0]], "float32", lambda tf, xs: tf.nn.relu(xs[0] - 0.5), False),
    "two_xs_in_turn": ([[1.0, 2.0], [3.0, -4.0]], "float32", lambda tf, xs: tf.abs(xs[0] - 0.4) * xs[1], True),
    "complex_and_real": ([[1 + 1j], [2.0]], None, lambda tf, xs: xs[0] * tf.complex(xs[1], 0.0), True),
}


def _jacobians(lib, values, dtype, build, as_list):
    with lib.Graph().as_default(), lib.Session():
        xs = [lib.constant(v, dtype or ("complex64" if np.iscomplexobj(v) else "float32")) for v in values]
        y = build(lib, xs)
        shapes = [x.shape.as_list() for x in xs]
        np.random.seed(87654321)
        if as_list:
            return lib.test.compute_gradient(xs, shapes, y, y.shape.as_list())
        return [lib.test.compute_gradient(xs[0], shapes[0], y, y.shape.as_list())]


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_point_is_tensorflows(name):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _jacobians(tf, *CASES[name])
    got = _jacobians(ref, *CASES[name])
    assert len(got) == len(want)
    for (rt, rn), (tt, tn) in zip(got, want):
        np.testing.assert_allclose(rt, tt, rtol=1e-6, atol=1e-6)
        # a float32 ulp of y (~2.4e-7 near 2) over 2 * delta: rounding of the kernels, not the point
        np.testing.assert_allclose(rn, tn, rtol=1e-6, atol=3e-4)


def test_draws_follow_the_global_stream():
    with ref.Graph().as_default(), ref.Session():
        x = ref.constant([0.0, 0.0, 0.0])
        np.random.seed(5)
        _, numeric = ref.test.compute_gradient(x, [3], x * x, [3])
    np.random.seed(5)
    point = np.random.random_sample(3).astype(np.float32)
    np.testing.assert_allclose(np.diag(numeric), 2 * point, rtol=1e-2)
