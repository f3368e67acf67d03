"""SparseTensor (ref/framework/sparse_tensor.py), the sparse builders
(ref/graph_ops/sparse_ops.py) and sparse feeds/fetches in Session.run: each
row built in ``ref`` and in ``tensorflow.compat.v1`` and compared (static
shapes, fetched values, errors)."""
import warnings

import numpy as np
import pytest

import ref
from ref.framework.op_def_library import apply_op

SP = dict(indices=[[0, 1], [1, 0], [2, 3]], values=[1.0, 2.0, 3.0], dense_shape=[3, 4])
SP2 = dict(indices=[[0, 1], [1, 2], [2, 3]], values=[10.0, 20.0, -3.0], dense_shape=[3, 4])


def _shape(s):
    return None if s.ndims is None else s.as_list()


def _sparse_summary(x):
    """A comparable description of a built SparseTensor or Tensor."""
    if hasattr(x, "dense_shape"):
        return ("sparse", _shape(x.get_shape()), _shape(x.indices.shape), _shape(x.values.shape),
                _shape(x.dense_shape.shape), x.dtype.name)
    return ("dense", _shape(x.shape), x.dtype.name)


def _value(v):
    if hasattr(v, "dense_shape"):
        return [np.asarray(v.indices), np.asarray(v.values), np.asarray(v.dense_shape)]
    return [np.asarray(v)]


# name -> builder(tf) returning a SparseTensor or a Tensor (no feeds)
BUILDERS = {
    "constant": lambda tf: tf.SparseTensor(**SP),
    "to_dense": lambda tf: tf.sparse_tensor_to_dense(tf.SparseTensor(**SP)),
    "to_dense_default": lambda tf: tf.sparse.to_dense(tf.SparseTensor(**SP), default_value=-1.0),
    "to_dense_string": lambda tf: tf.sparse.to_dense(tf.SparseTensor([[0], [2]], ["a", "b"], [3])),
    "sparse_to_dense": lambda tf: tf.sparse_to_dense([[1, 3], [2, 0]], [3, 4], 1, -1),
    "sparse_to_dense_scalar_index": lambda tf: tf.sparse_to_dense(2, [4], 7),
    "reorder": lambda tf: tf.sparse.reorder(tf.SparseTensor([[2, 3], [0, 1], [1, 0]], [3.0, 1.0, 2.0], [3, 4])),
    "concat_0": lambda tf: tf.sparse.concat(0, [tf.SparseTensor(**SP), tf.SparseTensor(**SP2)]),
    "concat_1": lambda tf: tf.sparse_concat(1, [tf.SparseTensor(**SP), tf.SparseTensor(**SP2)]),
    "concat_expand": lambda tf: tf.sparse_concat(1, [tf.SparseTensor(**SP), tf.SparseTensor([[4, 0]], [5.0], [5, 2])],
                                                 expand_nonconcat_dim=True),
    "add": lambda tf: tf.sparse.add(tf.SparseTensor(**SP), tf.SparseTensor(**SP2)),
    "add_threshold": lambda tf: tf.sparse_add(tf.SparseTensor(**SP), tf.SparseTensor(**SP2), threshold=12.0),
    "add_dense": lambda tf: tf.sparse_add(tf.SparseTensor(**SP), tf.ones([3, 4])),
    "add_dense_first": lambda tf: tf.sparse_add(tf.ones([3, 4]), tf.SparseTensor(**SP)),
    "reshape": lambda tf: tf.sparse.reshape(tf.SparseTensor(**SP), [2, -1]),
    "reshape_3d": lambda tf: tf.sparse_reshape(tf.SparseTensor(**SP), [2, 3, 2]),
    "retain": lambda tf: tf.sparse.retain(tf.SparseTensor(**SP), [True, False, True]),
    "matmul": lambda tf: tf.sparse_tensor_dense_matmul(tf.SparseTensor(**SP), np.arange(8.0, dtype=np.float32).reshape(4, 2)),
    "matmul_adjoint": lambda tf: tf.sparse.sparse_dense_matmul(tf.SparseTensor(**SP), np.ones((3, 2), np.float32),
                                                              adjoint_a=True),
    "reduce_sum_all": lambda tf: tf.sparse_reduce_sum(tf.SparseTensor(**SP)),
    "reduce_sum_axis": lambda tf: tf.sparse.reduce_sum(tf.SparseTensor(**SP), axis=1),
    "reduce_sum_keep": lambda tf: tf.sparse_reduce_sum(tf.SparseTensor(**SP), reduction_axes=[0], keep_dims=True),
    "reduce_sum_sparse": lambda tf: tf.sparse_reduce_sum_sparse(tf.SparseTensor(**SP), axis=0),
    "reduce_max": lambda tf: tf.sparse.reduce_max(tf.SparseTensor(**SP2), axis=1),
    "reduce_max_all": lambda tf: tf.sparse_reduce_max(tf.SparseTensor(**SP2)),
    "reduce_max_sparse": lambda tf: tf.sparse.reduce_max_sparse(tf.SparseTensor(**SP2), 0, True),
    "from_dense": lambda tf: tf.sparse.from_dense(tf.constant([[0.0, 2.0], [3.0, 0.0]])),
    "identity": lambda tf: tf.identity(tf.SparseTensor(**SP)),
    "fill_empty_rows": lambda tf: tf.sparse.fill_empty_rows(tf.SparseTensor([[1, 0], [3, 2]], [1.0, 2.0], [5, 3]),
                                                            -1.0)[0],
    "fill_empty_rows_indicator": lambda tf: tf.sparse_fill_empty_rows(
        tf.SparseTensor([[1, 0], [3, 2]], [1.0, 2.0], [5, 3]), -1.0)[1],
    "transpose": lambda tf: tf.sparse.transpose(tf.SparseTensor(**SP)),
    "transpose_perm": lambda tf: tf.sparse_transpose(
        tf.SparseTensor([[0, 1, 1], [1, 0, 2]], [1.0, 2.0], [2, 3, 4]), [2, 0, 1]),
    "merge": lambda tf: tf.sparse_merge(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([4, 1, 3], tf.int64),
                                                        [2, 2]),
                                        tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0.5, 1.5, 2.5], [2, 2]), 5),
    "to_indicator": lambda tf: tf.sparse.to_indicator(
        tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([4, 1, 3], tf.int64), [2, 2]), 5),
    "mul_dense": lambda tf: tf.SparseTensor(**SP) * tf.constant([1.0, 2.0, 3.0, 4.0]),
    "div_dense": lambda tf: tf.SparseTensor(**SP) / 2.0,
    "slice": lambda tf: tf.sparse.slice(tf.SparseTensor(**SP), [1, 0], [5, 2]),
    "split_0": lambda tf: tf.sparse.split(sp_input=tf.SparseTensor(**SP), num_split=2, axis=0)[1],
    "split_1": lambda tf: tf.sparse_split(sp_input=tf.SparseTensor(**SP), num_split=3, axis=1)[2],
    "shape": lambda tf: tf.shape(tf.SparseTensor(**SP)),
    "shape_int64": lambda tf: tf.shape(tf.SparseTensor(**SP), out_type=tf.int64),
    "size": lambda tf: tf.size(tf.SparseTensor(**SP)),
    "rank": lambda tf: tf.rank(tf.SparseTensor(**SP)),
    "serialize_round_trip": lambda tf: tf.deserialize_many_sparse(
        tf.stack([tf.serialize_sparse(tf.SparseTensor(**SP)), tf.serialize_sparse(tf.SparseTensor(**SP2))]),
        tf.float32),
}


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_builder_matches_tensorflow(name):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    results = []
    for lib in (tf1, ref):
        with lib.Graph().as_default(), lib.Session() as sess:
            out = BUILDERS[name](lib)
            results.append((_sparse_summary(out), _value(sess.run(out))))
    (theirs, tv), (ours, ov) = results
    assert ours == theirs
    assert len(ov) == len(tv)
    for a, b in zip(ov, tv):
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_array_equal(a, b)


def test_sparse_tensor_attributes():
    with ref.Graph().as_default() as g:
        sp = ref.SparseTensor(**SP)
        assert sp.indices.dtype == ref.int64 and sp.dense_shape.dtype == ref.int64
        assert sp.dtype == ref.float32 and sp.op is sp.values.op and sp.graph is g
        assert sp.get_shape().as_list() == [3, 4] and sp.shape.as_list() == [3, 4]
        assert repr(sp).startswith("SparseTensor(indices=")
        assert ref.sparse.SparseTensor is ref.SparseTensor
        with pytest.raises(ValueError):
            sp.set_shape([4, 4])
        sp.set_shape([3, None])
        with ref.Session() as sess:
            v = sp.eval()
            assert isinstance(v, ref.SparseTensorValue)
            np.testing.assert_array_equal(v.indices, SP["indices"])
            again = ref.SparseTensor.from_value(v)
            assert again.get_shape().as_list() == [3, 4]


@pytest.mark.parametrize("kwargs", [
    dict(indices=[[0, 0, 0]], values=[1.0], dense_shape=[3, 4]),  # indices columns vs shape length
    dict(indices=[[0, 0]], values=[1.0, 2.0], dense_shape=[3, 4]),  # rows vs values
    dict(indices=[0, 0], values=[1.0], dense_shape=[3, 4]),  # indices not a matrix
])
def test_inconsistent_components_raise_value_error_like_tensorflow(kwargs):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf1, ref):
        with lib.Graph().as_default(), pytest.raises(ValueError):
            lib.SparseTensor(**kwargs)


@pytest.mark.parametrize("shape", [None, [3, 4], [None, 4], np.array([3, -1], np.int64)])
def test_sparse_placeholder_feed_and_fetch(shape):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    value = ref.SparseTensorValue(np.array(SP["indices"], np.int64), np.array(SP["values"], np.float32),
                                  np.array([3, 4], np.int64))
    got = []
    for lib in (tf1, ref):
        with lib.Graph().as_default(), lib.Session() as sess:
            ph = lib.sparse_placeholder(lib.float32, shape=shape, name="sp")
            dense = lib.sparse.to_dense(ph)
            summary = (_sparse_summary(ph), [o.name for o in lib.get_default_graph().get_operations()])
            as_value = sess.run([ph, dense], {ph: tuple(value)})
            as_tuple = sess.run(dense, {ph: (value.indices, value.values, value.dense_shape)})
            got.append((summary, _value(as_value[0]) + [as_value[1], as_tuple]))
    assert got[0][0] == got[1][0]
    for a, b in zip(got[0][1], got[1][1]):
        np.testing.assert_array_equal(a, b)


def test_feeding_a_sparse_tensor_with_a_wrong_value_raises():
    with ref.Graph().as_default(), ref.Session() as sess:
        ph = ref.sparse_placeholder(ref.float32)
        with pytest.raises(TypeError):
            sess.run(ph.values, {ph: np.zeros(3)})
        with pytest.raises(TypeError):
            sess.run(ph.values, {ph: ref.SparseTensor(**SP)})


def test_fetch_structures_hold_sparse_tensor_values():
    with ref.Graph().as_default(), ref.Session() as sess:
        sp = ref.SparseTensor(**SP)
        out = sess.run({"a": [sp, sp.values], "b": (sp,)})
        assert isinstance(out["a"][0], ref.SparseTensorValue) and isinstance(out["b"][0], ref.SparseTensorValue)
        np.testing.assert_array_equal(out["a"][1], SP["values"])


@pytest.mark.parametrize("pred", [True, False])
def test_cond_returns_sparse_tensors(pred):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    got = []
    for lib in (tf1, ref):
        with lib.Graph().as_default(), lib.Session() as sess:
            p = lib.placeholder(lib.bool, [])
            out = lib.cond(p, lambda: (lib.SparseTensor(**SP), lib.constant(1)),
                           lambda: (lib.SparseTensor([[2, 2]], [7.0], [3, 4]), lib.constant(2)))
            assert isinstance(out[0], lib.SparseTensor)
            v = sess.run(out, {p: pred})
            got.append((_shape(out[0].get_shape()), _value(v[0]) + [v[1]]))
    assert got[0][0] == got[1][0]
    for a, b in zip(got[0][1], got[1][1]):
        np.testing.assert_array_equal(a, b)


def test_sparse_add_requires_a_sparse_operand():
    with ref.Graph().as_default(), pytest.raises(TypeError, match="At least one input should be SparseTensor"):
        ref.sparse_add(ref.ones([2]), ref.ones([2]))


def test_sparse_reshape_static_mismatch_raises_value_error():
    tf1 = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf1, ref):
        with lib.Graph().as_default(), pytest.raises(ValueError, match="Cannot reshape a tensor with 12 elements"):
            lib.sparse_reshape(lib.SparseTensor(**SP), [5, 5])


def test_sparse_retain_mismatched_length_raises():
    tf1 = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf1, ref):
        with lib.Graph().as_default(), pytest.raises(ValueError):
            lib.sparse_retain(lib.SparseTensor(**SP), [True, False])


def test_run_time_errors_are_invalid_argument():
    with ref.Graph().as_default(), ref.Session() as sess:
        unordered = ref.SparseTensor([[2, 0], [0, 1]], [1.0, 2.0], [3, 4])
        with pytest.raises(ref.errors.InvalidArgumentError, match="is out of order"):
            sess.run(ref.sparse.to_dense(unordered))
        np.testing.assert_array_equal(sess.run(ref.sparse.to_dense(unordered, validate_indices=False)),
                                      [[0, 2, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]])


def test_gradients_flow_to_values_and_dense_operand():
    tf1 = pytest.importorskip("tensorflow").compat.v1
    got = []
    for lib in (tf1, ref):
        with lib.Graph().as_default(), lib.Session() as sess:
            v = lib.constant([1.0, 2.0, 3.0])
            b = lib.constant(np.arange(8.0, dtype=np.float32).reshape(4, 2))
            sp = lib.SparseTensor([[2, 3], [0, 1], [1, 0]], v, [3, 4])
            y = lib.reduce_sum(lib.sparse_tensor_dense_matmul(lib.sparse_reorder(sp), b) ** 2) + \
                lib.reduce_sum(lib.sparse_reduce_sum(sp, axis=0) * lib.constant([1.0, 2.0, 3.0, 4.0]))
            got.append(sess.run(lib.gradients(y, [v, b])))
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_indexed_slices_to_dense_and_fetch():
    tf1 = pytest.importorskip("tensorflow").compat.v1
    got = []
    for lib in (tf1, ref):
        with lib.Graph().as_default(), lib.Session() as sess:
            s = lib.IndexedSlices(lib.constant([[1.0, 2.0], [3.0, 4.0]]), lib.constant([2, 0]), lib.constant([3, 2]))
            fetched = sess.run(s)
            assert type(fetched).__name__ == "IndexedSlicesValue"
            got.append(sess.run(lib.convert_to_tensor(s)))
    np.testing.assert_array_equal(got[0], got[1])


def test_indexed_slices_conversion_warns_for_unknown_or_large_shapes():
    with ref.Graph().as_default():
        values = ref.placeholder(ref.float32, [None, 2])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ref.convert_to_tensor(ref.IndexedSlices(values, ref.placeholder(ref.int32, [None]),
                                                    ref.placeholder(ref.int32, [2])))
            ref.convert_to_tensor(ref.IndexedSlices(values, ref.placeholder(ref.int32, [None]),
                                                    ref.constant([100000000, 1])))
        messages = [str(x.message) for x in w]
        assert any("unknown shape" in m for m in messages)
        assert any("100000000 elements" in m for m in messages)


def test_make_callable_feeds_and_fetches_sparse_tensors():
    with ref.Graph().as_default(), ref.Session() as sess:
        ph = ref.sparse_placeholder(ref.float32, shape=[3, 4])
        doubled = ref.SparseTensor(ph.indices, ph.values * 2.0, ph.dense_shape)
        f = sess.make_callable([doubled, ref.sparse.to_dense(ph)], feed_list=[ph])
        sp, dense = f((np.array(SP["indices"]), np.array(SP["values"]), np.array(SP["dense_shape"])))
        assert isinstance(sp, ref.SparseTensorValue)
        np.testing.assert_array_equal(sp.values, np.array(SP["values"]) * 2)
        np.testing.assert_array_equal(dense, [[0, 1, 0, 0], [2, 0, 0, 0], [0, 0, 0, 3]])


def _graph_op(lib, op_type):
    """The graph builder of a raw op: ``tf.raw_ops.X`` in TF, ``apply_op("X")`` in ref."""
    if lib is ref:
        return lambda **kw: apply_op(op_type, **kw)
    return getattr(lib.raw_ops, op_type)


# Static shape errors at graph construction: ValueError in both.
STATIC_ERRORS = {
    "matmul_inner_mismatch": (lambda tf: tf.sparse_tensor_dense_matmul(tf.SparseTensor(**SP), np.ones((5, 2), np.float32)),
                              "Dimensions must be equal"),
    "deserialize_scalar": (lambda tf: _graph_op(tf, "DeserializeSparse")(serialized_sparse=tf.constant("x"),
                                                                           dtype=tf.float32),
                           "Shape must be at least rank 1"),
    "reshape_two_unknown": (lambda tf: tf.sparse_reshape(tf.SparseTensor(**SP), [-1, -1]),
                            "At most one dimension can be inferred"),
    "to_dense_shape_rank": (lambda tf: tf.sparse_to_dense([1, 3], [[5], [3]], 1, -1), "must be rank 1"),
}


@pytest.mark.parametrize("name", sorted(STATIC_ERRORS))
def test_static_errors_match_tensorflow(name):
    real = pytest.importorskip("tensorflow")
    build, pattern = STATIC_ERRORS[name]
    for lib in (real.compat.v1, ref):
        with lib.Graph().as_default(), pytest.raises(ValueError, match=pattern):
            build(lib)


def test_sparse_dense_cwise_add_gradient_is_not_implemented_as_in_tensorflow():
    real = pytest.importorskip("tensorflow")
    for lib, build in ((real.compat.v1, lambda v1, **kw: real.raw_ops.SparseDenseCwiseAdd(**kw)),
                       (ref, lambda v1, **kw: apply_op("SparseDenseCwiseAdd", **kw))):
        with lib.Graph().as_default():
            x = lib.placeholder(lib.float32, [3])
            y = build(lib, sp_indices=lib.constant([[0], [2]], lib.int64), sp_values=x[:2],
                      sp_shape=lib.constant([3], lib.int64), dense=x)
            with pytest.raises(NotImplementedError):
                lib.gradients(y, x)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [False, True])
def test_embedding_lookup_sparse_matches_tensorflow(combiner, weighted):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    got = []
    for lib in (tf1, ref):
        with lib.Graph().as_default(), lib.Session() as sess:
            params = lib.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
            where = [[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]]
            ids = lib.SparseTensor(where, lib.constant([1, 3, 3, 5, 0], lib.int64), [4, 3])
            weights = lib.SparseTensor(where, [1.0, 2.0, 0.5, 1.0, 3.0], [4, 3]) if weighted else None
            out = lib.nn.embedding_lookup_sparse(params, ids, weights, combiner=combiner)
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # TF densifies the gather-of-gather gradient silently
                (grad,) = lib.gradients(lib.reduce_sum(out * out), [params])
            got.append((out.shape.as_list(), sess.run([out, lib.convert_to_tensor(grad)])))
    assert got[0][0] == got[1][0]
    for a, b in zip(got[0][1], got[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_graph_sparse_tensor_is_not_eager_as_tf():
    """A graph SparseTensor: ``_is_eager()`` False, ``_numpy()`` TF's ValueError."""
    tf = pytest.importorskip("tensorflow").compat.v1
    seen = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            st = lib.SparseTensor(**SP)
            with pytest.raises(ValueError) as e:
                st._numpy()
            seen.append((st._is_eager(), str(e.value)))
    assert seen[0] == seen[1]
