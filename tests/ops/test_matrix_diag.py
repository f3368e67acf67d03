"""The banded diagonal kernels (``ref/ops/matrix_diag.py``: ``MatrixDiagV3``,
``MatrixDiagPartV3``, ``MatrixSetDiagV3``) against ``tf.raw_ops``: every
alignment, single diagonals and bands, wide, tall and square matrices, the
inferred and given matrix sizes, and TF's InvalidArgument cases."""
import numpy as np
import pytest

from ref.types.errors import InvalidArgumentError
from ref.ops import matrix_diag as kernels

RNG = np.random.default_rng(3)
SHAPES = [(2, 3, 4), (4, 3), (3, 3), (1, 2, 5)]
BANDS = [0, 1, -1, (-1, 1), (0, 2), (-2, 0), (1, 1)]
ROWS = [(shape, k, align) for shape in SHAPES for k in BANDS for align in kernels.ALIGNS
        if all(-shape[-2] < d < shape[-1] or d == 0 for d in np.reshape(k, -1))]


def _tf_raw():
    return pytest.importorskip("tensorflow").raw_ops


@pytest.mark.parametrize("shape,k,align", ROWS)
def test_part_set_and_diag_equal_tf(shape, k, align):
    raw = _tf_raw()
    x = RNG.standard_normal(shape).astype(np.float32)
    want = raw.MatrixDiagPartV3(input=x, k=k, padding_value=7.0, align=align).numpy()
    got = kernels.matrix_diag_part_v3(x, np.int32(k), np.float32(7.0), align)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(kernels.matrix_set_diag_v3(x, want * 2, np.int32(k), align),
                                  raw.MatrixSetDiagV3(input=x, diagonal=want * 2, k=k, align=align).numpy())
    m, n = shape[-2:]
    for rows, cols in ((-1, -1), (m, n), (m, -1), (-1, n)):
        try:
            expected = raw.MatrixDiagV3(diagonal=want, k=k, num_rows=rows, num_cols=cols, padding_value=1.0,
                                        align=align).numpy()
        except Exception as e:  # noqa: BLE001 - TF's error kind is compared below
            with pytest.raises(InvalidArgumentError):
                kernels.matrix_diag_v3(want, np.int32(k), rows, cols, np.float32(1.0), align)
            assert type(e).__name__ == "InvalidArgumentError"
            continue
        got = kernels.matrix_diag_v3(want, np.int32(k), rows, cols, np.float32(1.0), align)
        assert got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("call,match", [
    (lambda: kernels.matrix_diag_part_v3(np.zeros((2, 3)), np.int32([1, 0]), 0.0, "RIGHT_LEFT"),
     "lower_diag_index must not be larger than upper_diag_index"),
    (lambda: kernels.matrix_diag_part_v3(np.zeros((2, 3)), np.int32([0, 3]), 0.0, "RIGHT_LEFT"),
     "upper_diag_index is out of bound"),
    (lambda: kernels.matrix_set_diag_v3(np.zeros((2, 3)), np.zeros(3), np.int32(0), "RIGHT_LEFT"),
     "diagonal must have shape"),
    (lambda: kernels.matrix_diag_v3(np.zeros((3, 2)), np.int32([0, 1]), -1, -1, 0.0, "RIGHT_LEFT"),
     "number of diagonals"),
])
def test_invalid_arguments(call, match):
    with pytest.raises(InvalidArgumentError, match=match):
        call()


def test_bool_and_int_padding_through_the_builders():
    import ref as tf

    with tf.Graph().as_default():
        b = tf.linalg.diag(tf.constant([True, False]))
        i = tf.linalg.diag_part(tf.constant(np.arange(6, dtype=np.int64).reshape(2, 3)), k=(0, 1), padding_value=-1)
        with tf.Session() as sess:
            got_b, got_i = sess.run([b, i])
    np.testing.assert_array_equal(got_b, [[True, False], [False, False]])
    np.testing.assert_array_equal(got_i, [[1, 5], [0, 4]])
