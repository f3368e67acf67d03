"""Sparse kernels (ref/ops/sparse.py): each vs ``tf.raw_ops.<Name>`` on the same
inputs (exact), vs a NumPy densify-then-compute oracle, and bad input raising
InvalidArgumentError with TF's message (checked against TF's own)."""
import functools

import numpy as np
import pytest

from ref import dtypes
from ref.types import errors
from ref.ops import registry
from tests.ops.tf_compare import distance

RNG = np.random.default_rng(11)


def raw(name):
    return functools.partial(registry.call, name)


def i64(x):
    return np.array(x, dtype=np.int64)


def f32(x):
    return np.array(x, dtype=np.float32)


def random_sparse(shape, density=0.4, dtype=np.float32, ordered=True):
    """(indices, values, shape) of a random sparse tensor, canonical order unless told."""
    mask = RNG.random(shape) < density
    idx = np.argwhere(mask).astype(np.int64).reshape(-1, len(shape))
    if not ordered:
        idx = idx[RNG.permutation(len(idx))]
    vals = RNG.integers(-5, 6, len(idx)).astype(dtype)
    return idx, vals, i64(shape)


def densify(indices, values, shape):
    """NumPy oracle: the dense tensor (repeated indices add up)."""
    out = np.zeros(tuple(shape), dtype=np.asarray(values).dtype)
    for i, v in zip(np.asarray(indices).reshape(len(values), -1), values):
        out[tuple(i)] += v
    return out


A_IDX, A_VAL, A_SHAPE = random_sparse([4, 5])
B_IDX, B_VAL, B_SHAPE = random_sparse([4, 5])
U_IDX, U_VAL, U_SHAPE = random_sparse([3, 4, 2], ordered=False)
M_IDX, M_VAL, M_SHAPE = random_sparse([3, 4, 2])
SEG_DATA = RNG.standard_normal((5, 3)).astype(np.float32)

# op -> kwargs, compared exactly with tf.raw_ops
TF_CASES = [
    ("SparseToDense", dict(sparse_indices=A_IDX, output_shape=A_SHAPE, sparse_values=A_VAL,
                           default_value=np.float32(-1))),
    ("SparseToDense", dict(sparse_indices=np.array([1, 3], np.int32), output_shape=np.array([5], np.int32),
                           sparse_values=np.int32(7), default_value=np.int32(0))),
    ("SparseToDense", dict(sparse_indices=np.array([[0, 1], [2, 0]], np.int64), output_shape=i64([3, 2]),
                           sparse_values=np.array([b"a", b"b"], dtype=object), default_value=np.array(b"z", object))),
    ("SparseReorder", dict(input_indices=U_IDX, input_values=U_VAL, input_shape=U_SHAPE)),
    ("SparseReshape", dict(input_indices=U_IDX, input_shape=U_SHAPE, new_shape=i64([4, -1]))),
    ("SparseReshape", dict(input_indices=M_IDX, input_shape=M_SHAPE, new_shape=i64([24]))),
    ("SparseConcat", dict(indices=[A_IDX, B_IDX], values=[A_VAL, B_VAL], shapes=[A_SHAPE, B_SHAPE], concat_dim=0)),
    ("SparseConcat", dict(indices=[A_IDX, B_IDX], values=[A_VAL, B_VAL], shapes=[A_SHAPE, B_SHAPE], concat_dim=1)),
    ("SparseConcat", dict(indices=[A_IDX, B_IDX, A_IDX], values=[A_VAL, B_VAL, A_VAL],
                          shapes=[A_SHAPE, B_SHAPE, A_SHAPE], concat_dim=-1)),
    ("SparseAdd", dict(a_indices=A_IDX, a_values=A_VAL, a_shape=A_SHAPE, b_indices=B_IDX, b_values=B_VAL,
                       b_shape=B_SHAPE, thresh=np.float32(0))),
    ("SparseAdd", dict(a_indices=A_IDX, a_values=A_VAL, a_shape=A_SHAPE, b_indices=B_IDX, b_values=B_VAL,
                       b_shape=B_SHAPE, thresh=np.float32(3))),
    ("SparseAdd", dict(a_indices=A_IDX, a_values=A_VAL.astype(np.int64), a_shape=A_SHAPE, b_indices=B_IDX,
                       b_values=B_VAL.astype(np.int64), b_shape=B_SHAPE, thresh=np.int64(2))),
    ("SparseTensorDenseAdd", dict(a_indices=A_IDX, a_values=A_VAL, a_shape=A_SHAPE,
                                  b=RNG.standard_normal((4, 5)).astype(np.float32))),
    ("SparseReduceSum", dict(input_indices=M_IDX, input_values=M_VAL, input_shape=M_SHAPE,
                             reduction_axes=np.array([1], np.int32))),
    ("SparseReduceSum", dict(input_indices=M_IDX, input_values=M_VAL, input_shape=M_SHAPE,
                             reduction_axes=np.array([0, -1], np.int32), keep_dims=True)),
    ("SparseReduceSum", dict(input_indices=M_IDX, input_values=M_VAL, input_shape=M_SHAPE,
                             reduction_axes=np.array([0, 1, 2], np.int32))),
    ("SparseReduceSumSparse", dict(input_indices=M_IDX, input_values=M_VAL, input_shape=M_SHAPE,
                                   reduction_axes=np.array([1], np.int32))),
    ("SparseReduceSumSparse", dict(input_indices=M_IDX, input_values=M_VAL, input_shape=M_SHAPE,
                                   reduction_axes=np.array([2], np.int32), keep_dims=True)),
    ("SparseReduceMax", dict(input_indices=M_IDX, input_values=M_VAL, input_shape=M_SHAPE,
                             reduction_axes=np.array([1], np.int32))),
    ("SparseReduceMax", dict(input_indices=M_IDX, input_values=M_VAL.astype(np.int32), input_shape=M_SHAPE,
                             reduction_axes=np.array([0, 2], np.int32), keep_dims=True)),
    ("SparseReduceMax", dict(input_indices=i64([[0, 0], [0, 2], [2, 1]]), input_values=f32([-1, -3, 2]),
                             input_shape=i64([3, 3]), reduction_axes=np.array([1], np.int32))),
    ("SparseReduceMaxSparse", dict(input_indices=M_IDX, input_values=M_VAL, input_shape=M_SHAPE,
                                   reduction_axes=np.array([-1], np.int32))),
    ("SparseSlice", dict(indices=M_IDX, values=M_VAL, shape=M_SHAPE, start=i64([1, 1, 0]), size=i64([5, 2, 1]))),
    ("SparseSlice", dict(indices=M_IDX, values=M_VAL, shape=M_SHAPE, start=i64([4, 0, 0]), size=i64([1, 1, 1]))),
    ("SparseSliceGrad", dict(backprop_val_grad=f32([1, 2]), input_indices=i64([[0], [2], [3], [5]]),
                             input_start=i64([2]), output_indices=i64([[0], [3]]))),
    ("SerializeSparse", dict(sparse_indices=A_IDX, sparse_values=A_VAL, sparse_shape=A_SHAPE)),
    ("SerializeSparse", dict(sparse_indices=i64([[0], [2]]), sparse_values=np.array([b"x", b"yz"], object),
                             sparse_shape=i64([3]))),
    ("SerializeManySparse", dict(sparse_indices=M_IDX, sparse_values=M_VAL, sparse_shape=M_SHAPE)),
    ("SparseFillEmptyRows", dict(indices=i64([[1, 0], [1, 2], [3, 1]]), values=f32([1, 2, 3]), dense_shape=i64([5, 3]),
                                 default_value=np.float32(-1))),
    ("SparseFillEmptyRows", dict(indices=U_IDX, values=U_VAL, dense_shape=U_SHAPE, default_value=np.float32(9))),
    ("SparseFillEmptyRowsGrad", dict(reverse_index_map=i64([0, 2, 3]), grad_values=f32([1, 2, 3, 4, 5]))),
] + [
    (f"SparseSegment{kind}", dict(data=SEG_DATA, indices=np.int32([0, 2, 2, 4, 1]),
                                  segment_ids=np.int64([0, 0, 2, 2, 3])))
    for kind in ("Sum", "Mean", "SqrtN")
] + [
    (f"SparseSegment{kind}WithNumSegments", dict(data=SEG_DATA, indices=np.int64([0, 2, 2, 4, 1]),
                                                 segment_ids=np.int32([0, 0, 2, 2, 3]), num_segments=np.int32(6)))
    for kind in ("Sum", "Mean", "SqrtN")
] + [
    (f"SparseSegment{kind}Grad", dict(grad=RNG.standard_normal((4, 3)).astype(np.float32),
                                      indices=np.int32([0, 2, 2, 4, 1]), segment_ids=np.int32([0, 0, 2, 2, 3]),
                                      output_dim0=np.int32(5)))
    for kind in ("Sum", "Mean", "SqrtN")
] + [
    (op, dict(sp_indices=M_IDX, sp_values=M_VAL, sp_shape=M_SHAPE, dense=dense))
    for op in ("SparseDenseCwiseMul", "SparseDenseCwiseDiv", "SparseDenseCwiseAdd")
    for dense in (RNG.uniform(1, 2, (3, 4, 2)).astype(np.float32), f32([2, 4]), RNG.uniform(1, 2, (4, 1)).astype(np.float32),
                  np.float32(3))
] + [
    ("SparseTensorDenseMatMul", dict(a_indices=A_IDX if not adj_a else A_IDX[:, ::-1].copy(), a_values=A_VAL,
                                     a_shape=A_SHAPE if not adj_a else A_SHAPE[::-1].copy(),
                                     b=RNG.standard_normal((3, 5) if adj_b else (5, 3)).astype(np.float32),
                                     adjoint_a=adj_a, adjoint_b=adj_b))
    for adj_a in (False, True) for adj_b in (False, True)
]


@pytest.mark.parametrize("op,kwargs", TF_CASES, ids=[f"{op}-{i}" for i, (op, _) in enumerate(TF_CASES)])
def test_matches_tensorflow(op, kwargs):
    tf = pytest.importorskip("tensorflow")
    assert distance(tf, op, kwargs) == 0


def test_deserialize_reads_tensorflow_strings_and_tensorflow_reads_ours():
    tf = pytest.importorskip("tensorflow")
    theirs = tf.raw_ops.SerializeManySparse(sparse_indices=M_IDX, sparse_values=M_VAL, sparse_shape=M_SHAPE).numpy()
    ours = raw("SerializeManySparse")(sparse_indices=M_IDX, sparse_values=M_VAL, sparse_shape=M_SHAPE)
    for ser in (theirs, ours):
        a = raw("DeserializeManySparse")(serialized_sparse=ser, dtype=dtypes.float32)
        b = [t.numpy() for t in tf.raw_ops.DeserializeManySparse(serialized_sparse=ser, dtype=tf.float32)]
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
        c = [t.numpy() for t in tf.raw_ops.DeserializeSparse(serialized_sparse=ser, dtype=tf.float32)]
        for x, y in zip(raw("DeserializeSparse")(serialized_sparse=ser, dtype=dtypes.float32), c):
            np.testing.assert_array_equal(x, y)


def test_deserialize_many_pads_to_the_largest_shape():
    """dense_shape = [N] + the elementwise maximum of the serialized shapes."""
    ser = np.stack([raw("SerializeSparse")(sparse_indices=i64([[0, 1]]), sparse_values=f32([1]),
                                           sparse_shape=i64([1, 5])),
                    raw("SerializeSparse")(sparse_indices=i64([[2, 0], [3, 1]]), sparse_values=f32([2, 3]),
                                           sparse_shape=i64([4, 2]))])
    idx, val, shape = raw("DeserializeManySparse")(serialized_sparse=ser, dtype=dtypes.float32)
    np.testing.assert_array_equal(idx, [[0, 0, 1], [1, 2, 0], [1, 3, 1]])
    np.testing.assert_array_equal(val, [1, 2, 3])
    np.testing.assert_array_equal(shape, [2, 4, 5])


# -- NumPy oracles ------------------------------------------------------------

def test_sparse_tensor_dense_matmul_is_dense_matmul():
    b = RNG.standard_normal((5, 3))
    out = raw("SparseTensorDenseMatMul")(a_indices=A_IDX, a_values=A_VAL.astype(np.float64), a_shape=A_SHAPE, b=b)
    np.testing.assert_allclose(out, densify(A_IDX, A_VAL.astype(np.float64), A_SHAPE) @ b, rtol=1e-12)


@pytest.mark.parametrize("axes,keep", [([0], False), ([1, 2], False), ([-1], True), ([0, 1, 2], True)])
def test_sparse_reduce_sum_is_dense_sum(axes, keep):
    out = raw("SparseReduceSum")(input_indices=M_IDX, input_values=M_VAL, input_shape=M_SHAPE,
                                 reduction_axes=np.array(axes, np.int32), keep_dims=keep)
    np.testing.assert_array_equal(out, densify(M_IDX, M_VAL, M_SHAPE).sum(axis=tuple(axes), keepdims=keep))


def test_sparse_add_is_dense_add():
    idx, val, shape = raw("SparseAdd")(a_indices=A_IDX, a_values=A_VAL, a_shape=A_SHAPE, b_indices=B_IDX,
                                       b_values=B_VAL, b_shape=B_SHAPE, thresh=np.float32(0))
    np.testing.assert_array_equal(densify(idx, val, shape), densify(A_IDX, A_VAL, A_SHAPE) + densify(B_IDX, B_VAL, B_SHAPE))
    assert (np.diff(np.ravel_multi_index(idx.T, tuple(shape))) > 0).all()  # canonical order


def test_sparse_reshape_keeps_row_major_positions():
    idx, shape = raw("SparseReshape")(input_indices=U_IDX, input_shape=U_SHAPE, new_shape=i64([2, -1]))
    np.testing.assert_array_equal(shape, [2, 12])
    np.testing.assert_array_equal(densify(idx, U_VAL, shape), densify(U_IDX, U_VAL, U_SHAPE).reshape(2, 12))


def test_sparse_concat_is_dense_concat():
    idx, val, shape = raw("SparseConcat")(indices=[A_IDX, B_IDX], values=[A_VAL, B_VAL], shapes=[A_SHAPE, B_SHAPE],
                                          concat_dim=1)
    expected = np.concatenate([densify(A_IDX, A_VAL, A_SHAPE), densify(B_IDX, B_VAL, B_SHAPE)], axis=1)
    np.testing.assert_array_equal(densify(idx, val, shape), expected)


def test_kernels_do_not_mutate_inputs():
    idx, val = U_IDX.copy(), U_VAL.copy()
    raw("SparseReorder")(input_indices=idx, input_values=val, input_shape=U_SHAPE)
    raw("SparseReshape")(input_indices=idx, input_shape=U_SHAPE, new_shape=i64([-1]))
    np.testing.assert_array_equal(idx, U_IDX)
    np.testing.assert_array_equal(val, U_VAL)


# -- bad input: InvalidArgumentError with TF's message ------------------------

STD = dict(output_shape=np.array([5]), default_value=np.float32(0))
ERROR_CASES = [
    ("SparseToDense", dict(sparse_indices=np.array([[1], [10]]), sparse_values=f32([1, 1]), **STD),
     r"indices\[1\] = \[10\] is out of bounds: need 0 <= index < \[5\]"),
    ("SparseToDense", dict(sparse_indices=np.array([[2], [1]]), sparse_values=f32([1, 1]), **STD),
     r"indices\[1\] = \[1\] is out of order"),
    ("SparseToDense", dict(sparse_indices=np.array([[1], [1]]), sparse_values=f32([1, 1]), **STD),
     r"indices\[1\] = \[1\] is repeated"),
    ("SparseToDense", dict(sparse_indices=np.array([[1], [10]]), sparse_values=f32([1, 1]), validate_indices=False,
                           **STD), r"out of bounds"),
    ("SparseToDense", dict(sparse_indices=np.array([1, 3]), sparse_values=f32([1, 2, 3]), **STD),
     r"sparse_values has incorrect shape \[3\], should be \[\] or \[2\]"),
    ("SparseToDense", dict(sparse_indices=np.array([1, 3]), sparse_values=f32([[5], [3]]), **STD),
     r"sparse_values has incorrect shape \[2,1\], should be \[\] or \[2\]"),
    ("SparseToDense", dict(sparse_indices=np.array([1, 3]), sparse_values=f32([1, 2]), output_shape=np.array([5]),
                           default_value=f32([0])), r"default_value should be a scalar"),
    ("SparseTensorDenseMatMul", dict(a_indices=i64([[5, 0]]), a_values=f32([1]), a_shape=i64([3, 4]),
                                     b=np.ones((4, 2), np.float32)), r"m \(5\) from index\[0,0\] out of bounds \(>=3\)"),
    ("SparseTensorDenseMatMul", dict(a_indices=i64([[0, 7]]), a_values=f32([1]), a_shape=i64([3, 4]),
                                     b=np.ones((4, 2), np.float32)), r"k \(7\) from index\[0,1\] out of bounds \(>=4\)"),
    ("SparseTensorDenseMatMul", dict(a_indices=i64([[0, 1]]), a_values=f32([1]), a_shape=i64([3, 4]),
                                     b=np.ones((3, 2), np.float32)),
     r"Cannot multiply A and B because inner dimension does not match: 4 vs\. 3"),
    ("SparseAdd", dict(a_indices=A_IDX, a_values=A_VAL, a_shape=A_SHAPE, b_indices=i64([[0, 0]]), b_values=f32([1]),
                       b_shape=i64([4, 6]), thresh=np.float32(0)),
     r"Operands' shapes do not match: got 5 and 6 for dimension 1"),
    ("SparseAdd", dict(a_indices=A_IDX, a_values=A_VAL, a_shape=A_SHAPE, b_indices=i64([[0, 0, 0]]),
                       b_values=f32([1]), b_shape=i64([4, 5, 1]), thresh=np.float32(0)),
     r"Input indices must have the same dimension, got 2 and 3"),
    ("SparseConcat", dict(indices=[A_IDX, B_IDX], values=[A_VAL, B_VAL], shapes=[A_SHAPE, i64([3, 5])],
                          concat_dim=1), r"Input shapes must match: expected 4 for dimension 0 but got 3 at position 1"),
    ("SparseConcat", dict(indices=[A_IDX, B_IDX], values=[A_VAL, B_VAL], shapes=[A_SHAPE, B_SHAPE], concat_dim=2),
     r"Concat dimension must be in range \[-2, 2\), got 2"),
    ("SparseReshape", dict(input_indices=M_IDX, input_shape=M_SHAPE, new_shape=i64([5, -1])),
     r"Input to reshape is a SparseTensor with 24 dense values, but the requested shape requires a multiple of 5"),
    ("SparseReshape", dict(input_indices=M_IDX, input_shape=M_SHAPE, new_shape=i64([-1, -1])),
     r"only one output dimension may be -1, not both 0 and 1"),
    ("SparseReshape", dict(input_indices=M_IDX, input_shape=M_SHAPE, new_shape=i64([5, 5])),
     r"Input to reshape is a tensor with 24 dense values, but the requested shape has 25"),
    ("SparseReduceSum", dict(input_indices=M_IDX, input_values=M_VAL, input_shape=M_SHAPE,
                             reduction_axes=np.array([3], np.int32)), r"Invalid reduction dimension 3"),
    ("SparseReduceSum", dict(input_indices=i64([[1, 2], [3, 4]]), input_values=np.int32([1, 3]),
                             input_shape=i64([2**32, 2**31]), reduction_axes=np.array([0], np.int32)), r"overflow"),
    ("SparseDenseCwiseMul", dict(sp_indices=M_IDX, sp_values=M_VAL, sp_shape=M_SHAPE, dense=f32([1, 2, 3])),
     r"SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: \[3,4,2\] vs\. \[3\]"),
    ("SparseFillEmptyRows", dict(indices=i64([[7, 0]]), values=f32([1]), dense_shape=i64([5, 3]),
                                 default_value=np.float32(0)), r"indices\(0, 0\) is invalid: 7 >= 5"),
    ("SparseSegmentSum", dict(data=SEG_DATA, indices=np.int32([0, 1]), segment_ids=np.int32([1, 0])),
     r"segment ids are not increasing"),
    ("SparseSegmentMean", dict(data=SEG_DATA, indices=np.int32([0, 5]), segment_ids=np.int32([0, 0])),
     r"Bad: indices\[1\] == 5 out of range \[0, 5\)"),
    ("SerializeManySparse", dict(sparse_indices=i64([[0]]), sparse_values=f32([1]), sparse_shape=i64([2])),
     r"should be > 1"),
]


@pytest.mark.parametrize("op,kwargs,pattern", ERROR_CASES,
                         ids=[f"{op}-{i}" for i, (op, _, _) in enumerate(ERROR_CASES)])
def test_bad_input_raises_tensorflow_error(op, kwargs, pattern):
    with pytest.raises(errors.InvalidArgumentError, match=pattern):
        registry.call(op, **kwargs)
    tf = pytest.importorskip("tensorflow")
    from tests.ops.tf_compare import tf_kwargs
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern):
        getattr(tf.raw_ops, op)(**tf_kwargs(tf, kwargs))


def test_deserialize_checks_the_requested_dtype():
    ser = raw("SerializeSparse")(sparse_indices=i64([[0]]), sparse_values=f32([1]), sparse_shape=i64([2]))
    with pytest.raises(errors.InvalidArgumentError, match="Requested SparseTensor of type int32"):
        raw("DeserializeManySparse")(serialized_sparse=ser.reshape(1, 3), dtype=dtypes.int32)
