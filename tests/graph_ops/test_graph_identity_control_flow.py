"""GraphDef identity with TensorFlow (``_graphdef.assert_same_graph``) for the
builders fixed while running TF's control-flow tests: list inputs whose first
Tensor fixes the dtype of a nested list of tensors, SparseTensor loop
variables with a ``[rank]`` (or ``[None]``) shape invariant, a loop under a
control dependency on a placeholder."""
import pytest

from ref.graph_ops import array_ops as _under_test  # noqa: F401  (the builders these tests cover)
from _graphdef import assert_same_graph


def concat_nested_list_of_tensors(tf):
    i = tf.constant(0)
    a = tf.constant([[0], [3]], dtype=tf.int64)
    return [tf.concat([a, [[i], [i]]], axis=1)]


def _sparse(tf):
    values = tf.constant([2.0, 4.0], name="values")
    indices = tf.constant([[0], [3]], dtype=tf.int64, name="indices")
    shape = tf.constant([10], dtype=tf.int64, name="dense_shape")
    return tf.constant(0), tf.SparseTensor(indices, values, dense_shape=shape)


def sparse_loop_any_rank(tf):
    i, x = _sparse(tf)

    def body(i, x):
        return [i + 1, tf.SparseTensor(tf.concat([x.indices, [[i], [i]]], axis=1), x.values * 2.0,
                                       tf.concat([x.dense_shape, [10]], axis=0))]
    _, r = tf.while_loop(lambda i, _: i < 10, body, [i, x], [i.get_shape(), tf.TensorShape([None])])
    return [r.indices, r.values, r.dense_shape]


def sparse_loop_default_invariant(tf):
    i, x = _sparse(tf)
    _, r = tf.while_loop(lambda i, _: i < 10,
                         lambda i, x: [i + 1, tf.SparseTensor(x.indices, x.values * 2.0, x.dense_shape)], [i, x])
    return [r.indices, r.values, r.dense_shape]


def loop_after_placeholder(tf):
    b = tf.placeholder(tf.bool)
    c = tf.constant(1)
    with tf.control_dependencies([b]):
        return [tf.while_loop(lambda x: x < 10, lambda x: x + c, [tf.constant(0)])]


def cond_slices_index_dtypes(tf):  # TF's testCondIndexedSlicesDifferentTypes: both indices cast to int64
    values = tf.constant([10])
    i_32 = tf.convert_to_tensor([0], name="one", dtype=tf.int32)
    i_64 = tf.convert_to_tensor([0], name="one", dtype=tf.int64)
    r = tf.cond(tf.less(1, 2), lambda: tf.IndexedSlices(values + 1, i_32), lambda: tf.IndexedSlices(values - 1, i_64))
    return [r.values, r.indices]


@pytest.mark.parametrize("snippet", [concat_nested_list_of_tensors, sparse_loop_any_rank,
                                     sparse_loop_default_invariant, loop_after_placeholder,
                                     cond_slices_index_dtypes])
def test_same_graph_as_tf(snippet):
    assert_same_graph(snippet)


@pytest.mark.parametrize("snippet", [sparse_loop_any_rank, sparse_loop_default_invariant])
def test_sparse_loop_shapes_as_tf(snippet):
    import ref
    from _graphdef import tf1_behaviour, tf_v1
    tf = tf_v1()
    with tf1_behaviour(), tf.Graph().as_default():
        want = [t.shape.as_list() if t.shape.ndims is not None else None for t in snippet(tf)]
    with ref.Graph().as_default():
        got = [t.shape.as_list() if t.shape.ndims is not None else None for t in snippet(ref)]
    assert got == want


def with_dependencies_of_python_values(tf):
    from ref.graph_ops import control_flow_ops as ref_cf
    v = tf.Variable(-1)
    x, y = tf.constant(1), tf.constant(2)
    with_deps = ref_cf.with_dependencies if tf.__name__ == "ref" else _tf_with_dependencies()
    a = lambda: with_deps([tf.assign(v, 0)], 0)  # noqa: E731
    c = lambda: with_deps([tf.assign(v, 2)], 2)  # noqa: E731
    return [tf.case(((x < y, a),), default=c, exclusive=True), with_deps([tf.assign(v, 3)], 3.0)]


def _tf_with_dependencies():
    from tensorflow.python.ops import control_flow_ops
    return control_flow_ops.with_dependencies


def test_with_dependencies_of_python_values_as_tf():
    assert_same_graph(with_dependencies_of_python_values)


def loop_over_a_reference(tf):
    x = tf.Variable(0)._ref()
    i = tf.constant(0)
    r = tf.while_loop(lambda i, x: tf.less(i, 100), lambda i, x: (i + 1, x), [i, x], parallel_iterations=5)
    return list(r)


def test_loop_over_a_reference_as_tf():
    assert_same_graph(loop_over_a_reference)


def switch_of_composites(tf):
    from ref.graph_ops import control_flow_v1 as ref_cf
    if tf.__name__ == "ref":
        switch = ref_cf.switch
    else:
        from tensorflow.python.ops import control_flow_ops
        switch = control_flow_ops.switch
    pred = tf.less(tf.constant(0), tf.constant(1))
    sl = tf.IndexedSlices(tf.constant([1, 2, 3]), tf.constant([0, 1, 2]), dense_shape=tf.constant([3]))
    st = tf.SparseTensor([[0, 1]], [2.0], [3, 3])
    (sl_f, sl_t), (st_f, st_t) = switch(sl, pred), switch(st, pred, name="sp")
    return [sl_f.values, sl_t.indices, sl_t.dense_shape, st_f.values, st_t.indices]


def test_switch_of_composites_as_tf():
    assert_same_graph(switch_of_composites)


@pytest.mark.parametrize("inputs", [(1, 2), ([1.0],), ("a",)])
def test_group_of_non_tensors_raises_as_tf(inputs):
    import ref
    from _graphdef import tf1_behaviour, tf_v1
    tf = tf_v1()
    with tf1_behaviour(), tf.Graph().as_default(), pytest.raises(TypeError) as want:
        tf.group(*inputs)
    with ref.Graph().as_default(), pytest.raises(TypeError) as got:
        ref.group(*inputs)
    assert str(got.value) == str(want.value)


def merge_of_composites(tf):
    from ref.graph_ops import control_flow_v1 as ref_cf
    if tf.__name__ == "ref":
        switch, merge = ref_cf.switch, ref_cf.merge
    else:
        from tensorflow.python.ops import control_flow_ops
        switch, merge = control_flow_ops.switch, control_flow_ops.merge
    pred = tf.convert_to_tensor(True)
    sl = tf.IndexedSlices(tf.constant([1, 2, 3, 4, 5, 6]), tf.constant([0, 2, 4, 6, 8, 10]))
    st = tf.SparseTensor([[0, 1]], [2.0], [3, 3])
    m_sl, i_sl = merge(switch(sl, pred))
    m_st, _ = merge(switch(st, pred), name="sparse_merge")
    return [m_sl.values, m_sl.indices, i_sl, m_st.indices, m_st.values, m_st.dense_shape]


def test_merge_of_composites_as_tf():
    assert_same_graph(merge_of_composites)
