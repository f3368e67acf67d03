"""GraphDef identity with TensorFlow (``_graphdef.py``) for the linear-algebra
builders and gradients: ``tf.linalg.qr`` (real and complex) and
``triangular_solve`` gradients, ``tf.linalg.diag`` / ``diag_part`` / ``set_diag``
(the V3 ops with a band ``k``), ``tf.eye``, ``matmul``'s adjoints of complex
matrices, and the Svd gradient through ``s``, ``u`` and ``v``."""
import pytest

from ref.graph_ops import linalg_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph


def diag_builders_and_gradients(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    d = tf.placeholder(tf.float32, [2, 3], name="d")
    band = tf.linalg.diag_part(x, k=(-1, 1), padding_value=5, align="LEFT_LEFT")
    y = tf.linalg.diag(band, k=(-1, 1), num_rows=3, num_cols=4, align="LEFT_LEFT")
    z = tf.linalg.set_diag(x, d) + tf.matrix_diag(d)[:, :, :1] + tf.matrix_set_diag(x, d)
    tf.gradients([y, z, tf.matrix_diag_part(x)], [x, d])


def diag_part_of_unknown_shape_gradient(tf):
    x = tf.placeholder(tf.float64, [None, None], name="x")
    d = tf.placeholder(tf.float64, None, name="d")
    tf.gradients([tf.linalg.diag_part(x, k=1), tf.linalg.set_diag(x, d, k=(0, 1))], [x, d])


def eyes(tf):
    n = tf.placeholder(tf.int32, [], name="n")
    tf.eye(3)
    tf.eye(2, 4, batch_shape=[5], dtype=tf.float64)
    tf.eye(n, batch_shape=[2])
    tf.linalg.eye(3, 2)


def complex_matmul_adjoints(tf):
    a = tf.placeholder(tf.complex64, [3, 3], name="a")
    b = tf.placeholder(tf.complex64, [2, 3, 3], name="b")
    tf.matmul(a, a, adjoint_a=True)
    tf.matmul(a, a, adjoint_b=True, transpose_a=True)
    tf.matmul(b, b, transpose_a=True, adjoint_b=True)
    tf.matmul(tf.real(a), tf.real(a), adjoint_a=True)


def _svd(shape, full_matrices=False, dtype="float64", outputs=(0, 1, 2), compute_uv=True):
    def snippet(tf):
        x = tf.placeholder(getattr(tf, dtype), list(shape), name="x")
        r = tf.linalg.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)
        r = r if compute_uv else [r]
        ys = [r[i] for i in outputs]
        if dtype.startswith("complex"):  # a real loss (TF asks for grad_ys otherwise)
            ys = [tf.reduce_sum(tf.abs(y)) if y.dtype.is_complex else y for y in ys]
        tf.gradients(ys, [x])
    return snippet


def _qr(shape, full_matrices=False, dtype="float64"):
    def snippet(tf):
        x = tf.placeholder(getattr(tf, dtype), list(shape), name="x")
        ys = list(tf.linalg.qr(x, full_matrices=full_matrices))
        if dtype.startswith("complex"):
            ys = [tf.reduce_sum(tf.abs(y)) for y in ys]
        tf.gradients(ys, [x])
    return snippet


def triangular_solve_gradient(tf):
    a = tf.placeholder(tf.float64, [2, 3, 3], name="a")
    b = tf.placeholder(tf.float64, [2, 3, 2], name="b")
    tf.gradients(tf.linalg.triangular_solve(a, b, lower=False, adjoint=True), [a, b])


ROWS = [
    pytest.param(_qr((4, 3)), id="qr_tall"),
    pytest.param(_qr((3, 5), full_matrices=True), id="qr_wide_full"),
    pytest.param(_qr((2, 4, 3), dtype="complex128"), id="qr_complex_batched"),
    pytest.param(_qr((3, 5), dtype="complex64"), id="qr_complex_wide"),
    pytest.param(triangular_solve_gradient, id="triangular_solve_gradient"),
    pytest.param(diag_builders_and_gradients, id="diag_builders_and_gradients"),
    pytest.param(diag_part_of_unknown_shape_gradient, id="diag_part_of_unknown_shape_gradient"),
    pytest.param(eyes, id="eyes"),
    pytest.param(complex_matmul_adjoints, id="complex_matmul_adjoints"),
    pytest.param(_svd((3, 4)), id="svd_wide"),
    pytest.param(_svd((4, 3)), id="svd_tall"),
    pytest.param(_svd((2, 3, 3), dtype="float32"), id="svd_square_batched"),
    pytest.param(_svd((3, 4), full_matrices=True), id="svd_wide_full"),
    pytest.param(_svd((4, 3), full_matrices=True), id="svd_tall_full"),
    pytest.param(_svd((3, 4), dtype="complex128"), id="svd_complex"),
    pytest.param(_svd((4, 3), full_matrices=True, dtype="complex64"), id="svd_complex_tall_full"),
    pytest.param(_svd((3, 4), outputs=(1,)), id="svd_u_only"),
    pytest.param(_svd((3, 4), outputs=(0,)), id="svd_s_only_with_uv"),
    pytest.param(_svd((3, 4), outputs=(0,), compute_uv=False), id="svd_without_uv"),
]


@pytest.mark.parametrize("snippet", ROWS)
def test_same_graph_as_tf(snippet):
    assert_same_graph(snippet)
