"""The TensorArrayV3 kernels on their own (``ref/ops/tensor_array.py``): a
table of op sequences on one run's array and its gradient array, each
checked against a NumPy expression of what TF's ``tensor_array.h`` rules
give (aggregating gradient writes, zeros for unwritten elements of a known
shape, the split/concat lengths, dynamic growth)."""
import numpy as np
import pytest

from ref.types import dtypes, errors
from ref.types.shapes import TensorShape
from ref.ops import tensor_array as K

A = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
B = np.array([[5.0, 6.0], [7.0, 8.0]], np.float32)
V = np.arange(12, dtype=np.float32).reshape(6, 2)


def _new(size, element_shape=None, **kw):
    handle, flow = K.tensor_array_v3(np.int32(size), dtypes.float32, tensor_array_name="ta",
                                     element_shape=TensorShape(element_shape), **kw)
    assert flow.dtype == np.float32 and flow == 0
    return handle


def _grad_aggregates():
    fwd = _new(3, identical_element_shapes=True)
    f = np.float32(0)
    for i, x in enumerate((A, B)):
        K.tensor_array_write_v3(fwd, np.int32(i), x, f)
    g, _ = K.tensor_array_grad_v3(fwd, f, source="gradients")
    g_again, _ = K.tensor_array_grad_v3(fwd, f, source="gradients")
    assert g_again is g  # one gradient array per source
    K.tensor_array_write_v3(g, np.int32(0), A, f)
    K.tensor_array_write_v3(g, np.int32(0), B, f)
    return [K.tensor_array_read_v3(g, np.int32(0), f, dtypes.float32),
            K.tensor_array_read_v3(g, np.int32(1), f, dtypes.float32)], [A + B, np.zeros_like(B)]


def _separate_sources():
    fwd = _new(1)
    K.tensor_array_write_v3(fwd, np.int32(0), A, np.float32(0))
    g1, _ = K.tensor_array_grad_v3(fwd, np.float32(0), source="gradients")
    g2, _ = K.tensor_array_grad_v3(fwd, np.float32(0), source="gradients_1")
    K.tensor_array_write_v3(g1, np.int32(0), A, np.float32(0))
    K.tensor_array_write_v3(g2, np.int32(0), B, np.float32(0))
    return [K.tensor_array_read_v3(g, np.int32(0), np.float32(0), dtypes.float32) for g in (g1, g2)], [A, B]


def _split_concat():
    ta = _new(3)
    K.tensor_array_split_v3(ta, V, np.array([1, 3, 2], np.int64), np.float32(0))
    value, lengths = K.tensor_array_concat_v3(ta, np.float32(0), dtypes.float32)
    return [value, lengths], [V, np.array([1, 3, 2], np.int64)]


def _split_grad_concat():
    """A gradient array concatenates the forward's split size (its marked size)."""
    fwd = _new(2)
    K.tensor_array_split_v3(fwd, V[:4], np.array([2, 2], np.int64), np.float32(0))
    g, _ = K.tensor_array_grad_v3(fwd, np.float32(0), source="gradients")
    K.tensor_array_write_v3(g, np.int32(1), V[2:4], np.float32(0))
    value, lengths = K.tensor_array_concat_v3(g, np.float32(0), dtypes.float32)
    return [value, lengths], [np.concatenate([np.zeros((2, 2), np.float32), V[2:4]]), np.array([2, 2], np.int64)]


def _scatter_gather_dynamic():
    ta = _new(0, dynamic_size=True)
    K.tensor_array_scatter_v3(ta, np.array([4, 1], np.int32), np.stack([A[0], A[1]]), np.float32(0))
    size = K.tensor_array_size_v3(ta, np.float32(0))
    got = K.tensor_array_gather_v3(ta, np.array([4, 1], np.int32), np.float32(0), dtypes.float32)
    return [size, got], [np.int32(5), np.stack([A[0], A[1]])]


def _unwritten_known_shape_reads_zeros():
    ta = _new(3, [2, 2])
    return [K.tensor_array_gather_v3(ta, np.array([2, 0], np.int32), np.float32(0), dtypes.float32)], \
        [np.zeros((2, 2, 2), np.float32)]


def _read_many_without_clearing():
    ta = _new(1, clear_after_read=False)
    K.tensor_array_write_v3(ta, np.int32(0), A, np.float32(0))
    return [K.tensor_array_read_v3(ta, np.int32(0), np.float32(0), dtypes.float32) for _ in range(2)], [A, A]


ROWS = {f.__name__.strip("_"): f for f in [_grad_aggregates, _separate_sources, _split_concat, _split_grad_concat,
                                            _scatter_gather_dynamic, _unwritten_known_shape_reads_zeros,
                                            _read_many_without_clearing]}


@pytest.mark.parametrize("row", sorted(ROWS))
def test_kernels_follow_tensor_array_rules(row):
    got, want = ROWS[row]()
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


def test_closed_array_rejects_reads():
    ta = _new(1)
    K.tensor_array_close_v3(ta)
    with pytest.raises(errors.InvalidArgumentError, match="has already been closed"):
        K.tensor_array_size_v3(ta, np.float32(0))


def _read_wrong_dtype():
    ta = _new(1)
    K.tensor_array_write_v3(ta, np.int32(0), A, np.float32(0))
    K.tensor_array_read_v3(ta, np.int32(0), np.float32(0), dtypes.float64)


def _write_wrong_dtype():
    K.tensor_array_write_v3(_new(1), np.int32(0), A.astype(np.float16), np.float32(0))


def _split_scalar_lengths():
    K.tensor_array_split_v3(_new(3), V[:3, 0], np.int64(1), np.float32(0))


def _gather_matrix_indices():
    K.tensor_array_gather_v3(_new(3, [2, 2]), np.zeros((1, 1), np.int32), np.float32(0), dtypes.float32)


# TF's kernel messages (tensor_array_ops.cc): C++ type names, and "but" in the indices check only.
ERRORS = [(_read_wrong_dtype, "TensorArray dtype is float but Op requested dtype double."),
          (_write_wrong_dtype, "TensorArray dtype is float but Op is trying to write dtype half."),
          (_split_scalar_lengths, "Expected lengths to be a vector, received shape: []"),
          (_gather_matrix_indices, "Expected indices to be a vector, but received shape: [1,1]")]


@pytest.mark.parametrize("build,message", ERRORS, ids=[b.__name__.strip("_") for b, _ in ERRORS])
def test_kernel_error_messages_as_tf(build, message):
    with pytest.raises(errors.InvalidArgumentError) as e:
        build()
    assert e.value.message == message
