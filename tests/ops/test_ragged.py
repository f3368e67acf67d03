"""The ``RaggedTensorToTensor`` kernel against ``tf.raw_ops.RaggedTensorToTensor``:
one row per partition encoding (ROW_SPLITS chains; FIRST_DIM_SIZE with
VALUE_ROWIDS), output shape request (natural, padded, cut) and default value;
then the run-time errors (bad splits) by class."""
import numpy as np
import pytest

from ref.ops import ragged
from ref.types import errors

VALUES = np.arange(12, dtype=np.float32).reshape(6, 2)
# (name, shape, values, default, partition types, partitions)
CASES = [
    ("splits", -1, VALUES, 0.0, ["ROW_SPLITS"], [np.array([0, 2, 2, 6], np.int64)]),
    ("splits_padded", np.array([4, 5, 2], np.int64), VALUES, 9.0, ["ROW_SPLITS"], [np.array([0, 2, 2, 6], np.int64)]),
    ("splits_cut", np.array([2, 1, 2], np.int64), VALUES, 0.0, ["ROW_SPLITS"], [np.array([0, 2, 2, 6], np.int64)]),
    ("splits_partial", np.array([-1, 3, -1], np.int64), VALUES, 1.0, ["ROW_SPLITS"],
     [np.array([0, 4, 6], np.int64)]),
    ("two_levels", -1, VALUES[:, 0], -1.0, ["ROW_SPLITS", "ROW_SPLITS"],
     [np.array([0, 1, 3], np.int32), np.array([0, 2, 2, 6], np.int32)]),
    ("rowids", -1, VALUES, 0.0, ["FIRST_DIM_SIZE", "VALUE_ROWIDS"],
     [np.array(4, np.int64), np.array([0, 0, 2, 2, 2, 3], np.int64)]),
    ("default_vector", -1, VALUES, np.array([7.0, 8.0], np.float32), ["ROW_SPLITS"],
     [np.array([0, 1, 1, 6], np.int64)]),
]


def _tf(shape, values, default, types, partitions):
    tf = pytest.importorskip("tensorflow")
    return tf.raw_ops.RaggedTensorToTensor(shape=shape, values=values, default_value=np.asarray(default, values.dtype),
                                           row_partition_tensors=partitions, row_partition_types=types).numpy()


@pytest.mark.parametrize("name,shape,values,default,types,partitions", CASES, ids=[c[0] for c in CASES])
def test_matches_tf(name, shape, values, default, types, partitions):
    got = ragged.ragged_tensor_to_tensor(np.asarray(shape), values, np.asarray(default, values.dtype), partitions,
                                         types)
    want = _tf(np.asarray(shape), values, default, types, partitions)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_natural_shape_by_formula():
    got = ragged.ragged_tensor_to_tensor(np.array(-1), VALUES[:, 0], np.float32(0), [np.array([0, 2, 2, 6])],
                                         ["ROW_SPLITS"])
    np.testing.assert_array_equal(got, [[0, 2, 0, 0], [0, 0, 0, 0], [4, 6, 8, 10]])


@pytest.mark.parametrize("splits", [[1, 2, 6], [0, 3, 2, 6], [0, 2, 5]])
def test_bad_splits_raise_invalid_argument(splits):
    with pytest.raises(errors.InvalidArgumentError):
        ragged.ragged_tensor_to_tensor(np.array(-1), VALUES, np.float32(0), [np.array(splits, np.int64)],
                                       ["ROW_SPLITS"])


def test_inner_shape_change_rejected_as_tf():
    """The shape may not change the values' inner dimensions: InvalidArgumentError in both."""
    tf = pytest.importorskip("tensorflow")
    args = (np.array([3, 4, 3], np.int64), VALUES, np.float32(0), [np.array([0, 2, 2, 6], np.int64)], ["ROW_SPLITS"])
    with pytest.raises(tf.errors.InvalidArgumentError):
        _tf(args[0], args[1], args[2], args[4], args[3])
    with pytest.raises(errors.InvalidArgumentError):
        ragged.ragged_tensor_to_tensor(*args)


# RaggedTensorToSparse: (name, nested splits, dense values)
TO_SPARSE = [
    ("one_level", [np.array([0, 2, 2, 3], np.int64)], np.array([1.0, 2.0, 3.0], np.float32)),
    ("two_levels_inner_shape", [np.array([0, 1, 3], np.int64), np.array([0, 2, 2, 5], np.int64)],
     np.arange(10.0).reshape(5, 2)),
    ("int32_splits_empty", [np.array([0, 0, 0], np.int32)], np.zeros((0,), np.int64)),
    ("strings", [np.array([0, 1, 2], np.int64)], np.array([b"a", b"b"], object)),
]


@pytest.mark.parametrize("name,splits,values", TO_SPARSE, ids=[c[0] for c in TO_SPARSE])
def test_to_sparse_matches_tf(name, splits, values):
    tf = pytest.importorskip("tensorflow")
    got = ragged.ragged_tensor_to_sparse(splits, values)
    want = tf.raw_ops.RaggedTensorToSparse(rt_nested_splits=splits, rt_dense_values=values)
    for g, w in zip(got, want):
        w = w.numpy()
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


# RaggedFillEmptyRows: (name, value_rowids, values, nrows, default)
FILL = [
    ("gaps", np.array([0, 0, 2], np.int64), np.array([1.0, 2.0, 3.0], np.float32), 4, 9.0),
    ("all_empty", np.zeros(0, np.int64), np.zeros(0, np.float32), 3, -1.0),
    ("none_empty", np.array([0, 1, 1], np.int64), np.array([5, 6, 7], np.int64), 2, 0),
]


@pytest.mark.parametrize("name,rowids,values,nrows,default", FILL, ids=[c[0] for c in FILL])
def test_fill_empty_rows_matches_tf(name, rowids, values, nrows, default):
    tf = pytest.importorskip("tensorflow")
    default = np.asarray(default, values.dtype)
    got = ragged.ragged_fill_empty_rows(rowids, values, np.int64(nrows), default)
    want = tf.raw_ops.RaggedFillEmptyRows(value_rowids=rowids, values=values, nrows=np.int64(nrows),
                                          default_value=default)
    for g, w in zip(got, want):
        w = w.numpy()
        assert g.dtype == w.dtype and g.shape == w.shape, name
        np.testing.assert_array_equal(g, w)
    grad = np.arange(got[1].size, dtype=np.float32) + 1
    d_got = ragged.ragged_fill_empty_rows_grad(got[3], grad)
    d_want = tf.raw_ops.RaggedFillEmptyRowsGrad(reverse_index_map=got[3], grad_values=grad)
    for g, w in zip(d_got, d_want):
        np.testing.assert_array_equal(g, w.numpy())
        assert g.dtype == w.numpy().dtype


@pytest.mark.parametrize("rowids,nrows", [([0, 3], 2), ([-1], 2), ([0], 0)])
def test_fill_empty_rows_bad_rowids_raise_invalid_argument(rowids, nrows):
    tf = pytest.importorskip("tensorflow")
    rowids = np.array(rowids, np.int64)
    values = np.ones(rowids.size, np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.raw_ops.RaggedFillEmptyRows(value_rowids=rowids, values=values, nrows=np.int64(nrows),
                                       default_value=np.float32(0))
    with pytest.raises(errors.InvalidArgumentError):
        ragged.ragged_fill_empty_rows(rowids, values, np.int64(nrows), np.float32(0))


@pytest.mark.parametrize("splits", [[1, 2], [0, 3, 2], [0, 2, 4]])
def test_to_sparse_bad_splits_raise_invalid_argument(splits):
    tf = pytest.importorskip("tensorflow")
    values = np.arange(3.0)
    splits = [np.array(splits, np.int64)]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.raw_ops.RaggedTensorToSparse(rt_nested_splits=splits, rt_dense_values=values)
    with pytest.raises(errors.InvalidArgumentError):
        ragged.ragged_tensor_to_sparse(splits, values)
