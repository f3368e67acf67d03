"""``tf.RaggedTensor`` and ``tf.ragged`` in TF1 graphs against TensorFlow 2.21's
``tf.compat.v1`` (graph mode): each row builds one ragged tensor (or a tensor
derived from one) with the same code under ``ref`` and under TF and compares
what ``Session.run`` returns (RaggedTensorValue lists and ragged rank, row
splits dtype, SparseTensorValue or array) and the static shape; then the
errors by class, again against TF."""
import numpy as np
import pytest

from ref.graph_ops import ragged_tensor as _under_test  # noqa: F401

tf_mod = pytest.importorskip("tensorflow")
tf1 = tf_mod.compat.v1


def _libs():
    """(name, tf module, ragged namespace + fill_empty_rows from ragged_array_ops)."""
    import types
    import ref
    from ref.graph_ops import ragged_array_ops
    from tensorflow.python.ops.ragged import ragged_array_ops as tf_ragged_array_ops
    ns = lambda public, arrays: types.SimpleNamespace(  # noqa: E731
        **{k: getattr(public, k) for k in ("constant", "map_flat_values")}, fill_empty_rows=arrays.fill_empty_rows)
    return [("ref", ref, ns(ref.ragged, ragged_array_ops)), ("tf", tf1, ns(tf_mod.ragged, tf_ragged_array_ops))]


def _sparse(tf):
    return tf.SparseTensor([[0, 0], [0, 1], [2, 0], [3, 0], [3, 1], [3, 2]], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [5, 4])


RT = lambda tf, rg: rg.constant([[[1, 2], [3]], [], [[4], [5, 6], []]])  # noqa: E731
# name -> builder(tf, ragged namespace) -> a RaggedTensor, Tensor or SparseTensor
CASES = {
    "constant_2d": lambda tf, rg: rg.constant([[1, 2], [3], []]),
    "constant_3d": RT,
    "constant_inner_shape": lambda tf, rg: rg.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1),
    "constant_float_int32_splits": lambda tf, rg: rg.constant([[1.5], [], [2.0, 3.0]], dtype=tf.float32,
                                                              row_splits_dtype=tf.int32),
    "constant_empty_rows": lambda tf, rg: rg.constant([[], []]),
    "constant_strings": lambda tf, rg: rg.constant([[b"a"], [b"b", b"c"]]),
    "from_row_splits": lambda tf, rg: tf.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 1, 1, 4]),
    "from_value_rowids": lambda tf, rg: tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 0, 2]),
    "from_value_rowids_nrows": lambda tf, rg: tf.RaggedTensor.from_value_rowids([1, 2, 3], [0, 0, 2], nrows=5),
    "from_row_lengths": lambda tf, rg: tf.RaggedTensor.from_row_lengths([1, 2, 3], [2, 0, 1]),
    "from_row_starts": lambda tf, rg: tf.RaggedTensor.from_row_starts([1, 2, 3], [0, 2, 2]),
    "from_row_limits": lambda tf, rg: tf.RaggedTensor.from_row_limits([1, 2, 3], [2, 2, 3]),
    "from_uniform_row_length": lambda tf, rg: tf.RaggedTensor.from_uniform_row_length(rg.constant([[1], [2, 3],
                                                                                                   [], [4]]), 2),
    "from_nested_row_splits": lambda tf, rg: tf.RaggedTensor.from_nested_row_splits([1, 2, 3, 4],
                                                                                    [[0, 1, 2], [0, 3, 4]]),
    "from_nested_row_lengths": lambda tf, rg: tf.RaggedTensor.from_nested_row_lengths([1, 2, 3, 4],
                                                                                      [[1, 1], [3, 1]]),
    "from_nested_value_rowids": lambda tf, rg: tf.RaggedTensor.from_nested_value_rowids([1, 2, 3, 4],
                                                                                        [[0, 1], [0, 0, 0, 1]]),
    "from_tensor": lambda tf, rg: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]]),
    "from_tensor_padding": lambda tf, rg: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0], [0, 0, 0]],
                                                                      padding=0),
    "from_tensor_lengths": lambda tf, rg: tf.RaggedTensor.from_tensor([[1, 2, 0], [3, 0, 0]], lengths=[1, 3]),
    "from_tensor_ragged_rank_2": lambda tf, rg: tf.RaggedTensor.from_tensor(np.arange(12).reshape(2, 3, 2),
                                                                            ragged_rank=2),
    "from_tensor_inner_padding": lambda tf, rg: tf.RaggedTensor.from_tensor(
        [[[1, 1], [0, 0]], [[2, 2], [3, 0]]], padding=[0, 0]),
    "from_sparse": lambda tf, rg: tf.RaggedTensor.from_sparse(_sparse(tf)),
    "from_sparse_int32": lambda tf, rg: tf.RaggedTensor.from_sparse(_sparse(tf), row_splits_dtype=tf.int32),
    "to_sparse": lambda tf, rg: RT(tf, rg).to_sparse(),
    "to_sparse_inner": lambda tf, rg: rg.constant([[[1, 2]], [], [[3, 4], [5, 6]]], ragged_rank=1).to_sparse(),
    "to_tensor": lambda tf, rg: RT(tf, rg).to_tensor(default_value=-1),
    "value_rowids": lambda tf, rg: RT(tf, rg).value_rowids(),
    "value_rowids_of_sparse": lambda tf, rg: tf.RaggedTensor.from_sparse(_sparse(tf)).value_rowids(),
    "nested_value_rowids": lambda tf, rg: list(RT(tf, rg).nested_value_rowids()),
    "row_lengths": lambda tf, rg: RT(tf, rg).row_lengths(),
    "row_lengths_axis2": lambda tf, rg: RT(tf, rg).row_lengths(axis=2),
    "nested_row_lengths": lambda tf, rg: list(RT(tf, rg).nested_row_lengths()),
    "row_starts_limits": lambda tf, rg: [RT(tf, rg).row_starts(), RT(tf, rg).row_limits()],
    "nrows": lambda tf, rg: RT(tf, rg).nrows(),
    "bounding_shape": lambda tf, rg: RT(tf, rg).bounding_shape(),
    "bounding_shape_axis": lambda tf, rg: RT(tf, rg).bounding_shape(axis=1),
    "with_flat_values": lambda tf, rg: RT(tf, rg).with_flat_values(tf.constant([1.0, 2, 3, 4, 5, 6]) * 2),
    "with_row_splits_dtype": lambda tf, rg: RT(tf, rg).with_row_splits_dtype(tf.int32),
    "getitem_row": lambda tf, rg: RT(tf, rg)[2],
    "getitem_negative_row": lambda tf, rg: RT(tf, rg)[-3],
    "getitem_rows": lambda tf, rg: RT(tf, rg)[1:],
    "getitem_rows_negative": lambda tf, rg: RT(tf, rg)[:-1],
    "getitem_row_then_inner": lambda tf, rg: RT(tf, rg)[0, 0],
    "map_flat_values": lambda tf, rg: rg.map_flat_values(tf.square, rg.constant([[1.0, 2.0], [3.0]])),
    "fill_empty_rows": lambda tf, rg: list(rg.fill_empty_rows(rg.constant([[1, 2], [], [3], []]), 9)),
    "placeholder_default": lambda tf, rg: rg.constant([[1]]),
}


def _run(lib, builder):
    name, tf, rg = lib
    g = tf.Graph()
    with g.as_default():
        out = builder(tf, rg)
        sess_cls = tf.Session
        with sess_cls(graph=g) as sess:
            value = sess.run(out)
    return out, value


def _plain(v):
    if hasattr(v, "to_list"):  # a RaggedTensorValue
        return ("ragged", v.to_list(), len(v.nested_row_splits), v.row_splits.dtype.name)
    if hasattr(v, "dense_shape"):
        return ("sparse", v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist())
    if isinstance(v, list):
        return [_plain(x) for x in v]
    v = np.asarray(v)
    return ("array", v.tolist(), v.dtype.name)


def _static(t):
    if isinstance(t, list):
        return [_static(x) for x in t]
    shape = getattr(t, "shape", None)
    return None if shape is None or not hasattr(shape, "as_list") or shape.ndims is None else shape.as_list()


# Rows whose TF static shape comes from TF's C++ shape inference evaluating a
# constant subgraph (a row of a constant ragged tensor, rows counted by a
# kernel): ref infers shapes without running kernels, so there its shape only
# has to be compatible (less known, never different).
FOLDED = {"getitem_row", "getitem_negative_row", "getitem_row_then_inner", "fill_empty_rows"}


def _compatible(a, b):
    if isinstance(a, list) and a and isinstance(a[0], list):
        return all(_compatible(x, y) for x, y in zip(a, b)) and len(a) == len(b)
    return a is None or b is None or (len(a) == len(b) and all(x is None or y is None or x == y
                                                               for x, y in zip(a, b)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tf(case):
    (ref_lib, tf_lib) = _libs()
    got_t, got = _run(ref_lib, CASES[case])
    want_t, want = _run(tf_lib, CASES[case])
    assert _plain(got) == _plain(want)
    if case in FOLDED:
        assert _compatible(_static(got_t), _static(want_t))
    else:
        assert _static(got_t) == _static(want_t)
    assert _kind(got_t) == _kind(want_t)


def _kind(t):
    if isinstance(t, list):
        return [_kind(x) for x in t]
    name = type(t).__name__
    return name if name in ("RaggedTensor", "SparseTensor") else "Tensor"


def test_constant_value_matches_tf():
    import ref
    for pylist, kw in [([[1, 2], [3]], {}), ([[[1.0], [2.0]], []], {"row_splits_dtype": "int32"}),
                       ([[[1, 2]], [[3, 4]]], {"ragged_rank": 1}), ([1, 2], {})]:
        got = ref.ragged.constant_value(pylist, **kw)
        want = tf1.ragged.constant_value(pylist, **kw)
        assert _plain(got) == _plain(want), pylist


ERRORS = {
    "private_constructor": lambda tf, rg: tf.RaggedTensor(values=[1], row_splits=[0, 1]),
    "validate_not_bool": lambda tf, rg: tf.RaggedTensor.from_row_splits([1], [0, 1], validate=1),
    "float_splits": lambda tf, rg: tf.RaggedTensor.from_row_splits([1], [0.0, 1.0]),
    "mixed_depth": lambda tf, rg: rg.constant([[1, [2]]]),
    "inconsistent_inner": lambda tf, rg: rg.constant([[[1, 2]], [[3]]], ragged_rank=1),
    "ragged_rank_too_deep": lambda tf, rg: rg.constant([[1]], ragged_rank=3),
    "negative_ragged_rank": lambda tf, rg: rg.constant([[1]], ragged_rank=-1),
    "from_tensor_both": lambda tf, rg: tf.RaggedTensor.from_tensor([[1]], lengths=[1], padding=0),
    "from_tensor_rank1": lambda tf, rg: tf.RaggedTensor.from_tensor([1, 2]),
    "from_sparse_rank3": lambda tf, rg: tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1])),
    "from_sparse_dense": lambda tf, rg: tf.RaggedTensor.from_sparse(tf.constant([[1]])),
    "to_list_in_graph": lambda tf, rg: rg.constant([[1]]).to_list(),
    "as_bool": lambda tf, rg: bool(rg.constant([[1]])),
    "fill_empty_rows_dense": lambda tf, rg: rg.fill_empty_rows(tf.constant([[1]]), 0),
}


def _error(lib, builder):
    name, tf, rg = lib
    with tf.Graph().as_default():
        try:
            builder(tf, rg)
        except Exception as e:  # noqa: BLE001 -- the class is what the row compares
            return type(e).__name__
    return None


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_tf(case):
    ref_lib, tf_lib = _libs()
    want = _error(tf_lib, ERRORS[case])
    assert want is not None
    assert _error(ref_lib, ERRORS[case]) == want


def test_validate_checks_run_time_splits():
    """validate=True: bad splits fed at run time raise InvalidArgumentError, as in TF."""
    import ref
    for lib in (ref, tf1):
        with lib.Graph().as_default():
            splits = lib.placeholder(lib.int64, [None])
            rt = lib.RaggedTensor.from_row_splits([1, 2, 3], splits)
            with lib.Session() as sess:
                with pytest.raises(lib.errors.InvalidArgumentError):
                    sess.run(rt, {splits: [0, 2, 1, 3]})
                assert sess.run(rt, {splits: [0, 2, 3]}).to_list() == [[1, 2], [3]]


def test_from_sparse_not_right_ragged_fails_at_run_time():
    """A SparseTensor with a gap in a row is no RaggedTensor: TF's Assert fires."""
    import ref
    for lib in (ref, tf1):
        with lib.Graph().as_default():
            st = lib.SparseTensor([[0, 0], [1, 1]], [1, 2], [2, 2])
            rt = lib.RaggedTensor.from_sparse(st)
            with lib.Session() as sess:
                with pytest.raises(lib.errors.InvalidArgumentError, match="not right-ragged"):
                    sess.run(rt)
