"""GraphDef identity, static shapes and values against TensorFlow for the
builders the fourth program set (``tests/programs/test_tf1_user_programs2.py``)
found building something other than TF's: shape tensors known only in part
(``tf.fill([tf.shape(x)[0], 1], 0)`` is ``[?, 1]``: TF's shape refiner reads the
packed dimensions for every op taking a shape input), the ``BatchMatMulV2``
gradient (no reduction when the batch shapes are known and equal, else
``BroadcastGradientArgs`` of ``shape[:-2]``), ``polynomial_decay(cycle=True)``
(Python numbers converted in the ops' scopes), ``list(type)`` attrs
(``PyFunc``'s ``Tin``, ``Print``'s ``U``, ``IdentityN``'s ``T``),
``FusedBatchNormV3`` with an epsilon under 1.001e-5 (TF 2.x keeps it),
``conv2d_transpose`` (its ``output_shape`` converted as the op's
``input_sizes``; ``[batch, 4, 4, 4]`` is ``[?, 4, 4, 4]``),
``sparse_tensor_dense_matmul`` (the op inside its name scope; a sparse ``b``),
``AdagradDA``'s ``global_step + 1`` (``add``), ``Dataset.from_generator``'s
int32 dummy element, and the namedtuples of multi-output ops
(``tf.nn.top_k(x).indices``) with ``tf.while_loop`` calling ``cond``
and ``body`` with a namedtuple's fields, as TF does; a ``tf.layers`` object
called again re-enters the name scope of its first call (``proj/BiasAdd_1``
inside a while loop or another scope); the ``UnsortedSegmentMax``/``Min``
gradient drops negative ids as TF's (``_GatherDropNegatives``); ``tf.linspace``
is TF 2.x's ``linspace_nd`` op for op (``BroadcastArgs`` of constant shapes
folds, as TF's shape refiner evaluates it)."""
import numpy as np
import pytest

from ref.graph_ops import array_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1

import ref


def shape_tensors_known_in_part(tf):
    x = tf.placeholder(tf.float32, [None, 6], name="x")
    n = tf.shape(x)[0]
    return [tf.fill([n, 1], 0), tf.broadcast_to(1.0, [n, 3]), tf.random_normal([n, 2]),
            tf.random_uniform([n, 2]), tf.random_uniform([n, 2], maxval=5, dtype=tf.int32),
            tf.truncated_normal(tf.stack([n, 3])), tf.scatter_nd([[0]], [[1.0, 2.0]], [n, 2]),
            tf.sparse_to_dense([[0, 0]], [n, 4], 1.0), tf.random_gamma([n, 2], 1.0),
            tf.random_poisson(1.0, [n, 2]), tf.random.stateless_normal([n, 3], seed=[1, 2]),
            tf.zeros(tf.concat([[2], tf.shape(x)[1:]], 0))]


def conv_transpose_of_dynamic_batch(tf):
    z = tf.placeholder(tf.float32, [None, 8], name="z")
    batch = tf.shape(z)[0]
    h = tf.reshape(z, [-1, 2, 2, 2])
    a = tf.nn.conv2d_transpose(h, tf.ones([3, 3, 4, 2]), output_shape=tf.stack([batch, 4, 4, 4]), strides=[1, 2, 2, 1])
    b = tf.nn.conv2d_transpose(h, tf.ones([3, 3, 3, 2]), [batch, 4, 4, 3], [1, 2, 2, 1], name="listed")
    c = tf.nn.conv2d_transpose(h, [[[[1.0, 2.0]]]], [batch, 2, 2, 1],
                               [1, 1, 1, 1])
    d = tf.reshape(tf.nn.bias_add(a, tf.ones([4])), tf.shape(a))
    return [a, b, c, d] + tf.gradients(tf.reduce_sum(d) + tf.reduce_sum(b), [z])


def while_loop_over_namedtuple(tf):
    x = tf.placeholder(tf.float32, [1, 3], name="x")
    top = tf.nn.top_k(x, 2)
    state = tf.nn.rnn_cell.LSTMStateTuple(tf.ones([2]), tf.zeros([2]))
    a = tf.while_loop(lambda v, i: v[0, 0] < 10.0, lambda v, i: tf.nn.top_k(v * 2 + 1, 2), top)
    b = tf.while_loop(lambda c, h: tf.reduce_sum(c) < 9.0, lambda c, h: tf.nn.rnn_cell.LSTMStateTuple(c * 2, h + c),
                      state, maximum_iterations=5)
    return list(a) + list(b)


def layer_objects_called_again(tf):
    x = tf.placeholder(tf.float32, [None, 4, 4, 3], name="x")
    layers = [tf.layers.Conv2D(2, 3, padding="same", name="c"), tf.layers.BatchNormalization(name="bn"),
              tf.layers.Dense(3), tf.layers.Conv2DTranspose(2, 3), tf.layers.MaxPooling2D(2, 2),
              tf.layers.Flatten(), tf.layers.Dropout(0.5)]
    outs = []
    for scope in (None, "outer", None):
        with tf.name_scope(scope):
            h = layers[0](x)
            h = layers[3](layers[1](h, training=True))
            h = layers[6](layers[5](layers[4](h)), training=True)
            outs.append(layers[2](h))
    proj = tf.layers.Dense(3, name="proj")
    flat = tf.reshape(x, [-1, 48])
    _, loop = tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, proj(tf.concat([v, flat[:, 3:]], 1))),
                            [0, proj(flat)])
    outs.append(loop)
    return outs + tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs]), [x])


def segment_min_max_gradients(tf):
    data = tf.placeholder(tf.float32, [None, 2], name="data")
    ids = tf.constant([0, 2, -1, 2, 0])
    outs = [tf.unsorted_segment_max(data, ids, 3), tf.unsorted_segment_min(data, ids, 4),
            tf.unsorted_segment_sum(data, ids, 3)]
    return outs + tf.gradients([tf.reduce_sum(o * o) for o in outs], [data])


def linspaces(tf):
    n = tf.placeholder_with_default(5, [], name="n")
    return [tf.linspace(-1.0, 1.0, 8), tf.lin_space(0.0, 3.0, n, name="dyn"),
            tf.linspace([0.0, 1.0], [2.0, 5.0], 4, axis=1),
            tf.linspace(tf.constant([[0.0], [1.0]]), [2.0, 5.0, 7.0], 3, axis=-1), tf.linspace(2.0, 3.0, 1)]


def batch_matmul_gradients(tf):
    a = tf.placeholder(tf.float32, [None, 2, 3, 4], name="a")
    b = tf.placeholder(tf.float32, [None, 2, 4, 5], name="b")
    c = tf.ones([2, 3, 4]) * 2.0
    d = tf.ones([4, 5])
    e = tf.ones([1, 3, 4])
    f = tf.ones([2, 4, 5])
    outs = [tf.matmul(a, b), tf.matmul(a, a, transpose_b=True), tf.matmul(c, d), tf.matmul(e, f), tf.matmul(c, f)]
    return tf.gradients([tf.reduce_sum(o) for o in outs], [a, b, c, d, e, f])


def polynomial_decay_cycle(tf):
    step = tf.train.get_or_create_global_step()
    return [tf.train.polynomial_decay(0.1, step, 4, end_learning_rate=0.001, power=2.0, cycle=True),
            tf.train.polynomial_decay(0.1, step, tf.constant(3.0), cycle=True, name="tensor_steps"),
            tf.train.polynomial_decay(0.1, step, 5)]


def list_type_attrs(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    i = tf.constant([1, 2])
    a = tf.py_func(lambda u, v: u, [x, i], tf.float32)
    b = tf.py_func(lambda u: (u, u), [x], [tf.float32, tf.float32], stateful=False, name="two")
    c = tf.Print(x, [x, i, "s"], message="m")
    return [a, c] + list(b) + list(tf.identity_n([x, i]))


def small_epsilon_fused_batch_norm(tf):
    x = tf.placeholder(tf.float32, [2, 3, 3, 4], name="x")
    y = tf.layers.batch_normalization(x, epsilon=1e-5, training=True, fused=True)
    z = tf.nn.fused_batch_norm(x, tf.ones([4]), tf.zeros([4]), epsilon=1e-8)[0]
    return tf.gradients(tf.reduce_sum(y * z), [x])


def sparse_dense_matmul(tf):
    sp = tf.SparseTensor([[0, 1], [1, 0], [2, 2]], [1.0, 2.0, 3.0], [3, 3])
    w = tf.get_variable("w", [3, 2])
    v = tf.get_variable("v", [3, 3])
    outs = [tf.sparse_tensor_dense_matmul(sp, w), tf.sparse_tensor_dense_matmul(sp, w, adjoint_a=True, name="adj"),
            tf.sparse_tensor_dense_matmul(v, sp), tf.sparse_tensor_dense_matmul(v, sp, adjoint_a=True),
            tf.sparse_tensor_dense_matmul(v, sp, adjoint_b=True)]
    return outs + tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs[:2]]), [w])


def adagrad_da(tf):
    w = tf.get_variable("w", [3], initializer=tf.ones_initializer())
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdagradDAOptimizer(0.1, step).minimize(tf.reduce_sum(w * w), global_step=step)
    with tf.control_dependencies([train]):
        return [tf.identity(w)]


def from_generator_pipeline(tf):
    def gen():
        for k in range(6):
            yield np.full([2], k, np.float32), np.int32(k)

    ds = tf.data.Dataset.from_generator(gen, (tf.float32, tf.int32), (tf.TensorShape([2]), tf.TensorShape([])))
    it = ds.batch(2).make_initializable_iterator()
    tf.add_to_collection("inits", it.initializer)
    return list(it.get_next())


ROWS = [
    pytest.param(shape_tensors_known_in_part, id="shape_tensors_known_in_part"),
    pytest.param(batch_matmul_gradients, id="batch_matmul_gradients"),
    pytest.param(while_loop_over_namedtuple, id="while_loop_over_namedtuple"),
    pytest.param(layer_objects_called_again, id="layer_objects_called_again"),
    pytest.param(segment_min_max_gradients, id="segment_min_max_gradients"),
    pytest.param(linspaces, id="linspaces"),
    pytest.param(conv_transpose_of_dynamic_batch, id="conv_transpose_of_dynamic_batch"),
    pytest.param(polynomial_decay_cycle, id="polynomial_decay_cycle"),
    pytest.param(list_type_attrs, id="list_type_attrs"),
    pytest.param(small_epsilon_fused_batch_norm, id="small_epsilon_fused_batch_norm"),
    pytest.param(sparse_dense_matmul, id="sparse_dense_matmul"),
    pytest.param(adagrad_da, id="adagrad_da"),
    pytest.param(from_generator_pipeline, id="from_generator_pipeline"),
]


@pytest.mark.parametrize("snippet", ROWS)
def test_same_graph_as_tf(snippet):
    assert_same_graph(snippet)


def _static_shapes(lib, snippet):
    with (tf1_behaviour() if lib is not ref else _null()), lib.Graph().as_default():
        return [t.shape.as_list() if t.shape.ndims is not None else None for t in snippet(lib)]


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("snippet", [shape_tensors_known_in_part, batch_matmul_gradients,
                                     conv_transpose_of_dynamic_batch])
def test_same_static_shapes_as_tf(snippet):
    assert _static_shapes(ref, snippet) == _static_shapes(tf_v1(), snippet)


def _values(lib, snippet, feeds, steps=1):
    is_ref = lib is ref
    with (_null() if is_ref else tf1_behaviour()), lib.Graph().as_default():
        lib.set_random_seed(3)
        outs = snippet(lib)
        graph = lib.get_default_graph()
        feed = {graph.get_tensor_by_name(k): v for k, v in feeds.items()}
        with lib.Session() as s:
            s.run([lib.global_variables_initializer(), lib.local_variables_initializer()])
            s.run(lib.get_collection("inits"))
            return [s.run(outs, feed_dict=feed) for _ in range(steps)]


_RS = np.random.RandomState(5)
VALUE_ROWS = [
    pytest.param(batch_matmul_gradients, {"a:0": _RS.randn(2, 2, 3, 4).astype(np.float32),
                                          "b:0": _RS.randn(2, 2, 4, 5).astype(np.float32)}, 1,
                 id="batch_matmul_gradients"),
    pytest.param(while_loop_over_namedtuple, {"x:0": np.array([[1.0, 3.0, 2.0]], np.float32)}, 1,
                 id="while_loop_over_namedtuple"),
    pytest.param(conv_transpose_of_dynamic_batch, {"z:0": _RS.randn(3, 8).astype(np.float32)}, 1,
                 id="conv_transpose_of_dynamic_batch"),
    pytest.param(lambda tf: polynomial_decay_cycle(tf) + [tf.assign_add(tf.train.get_global_step(), 1)], {}, 9,
                 id="polynomial_decay_cycle"),
    pytest.param(list_type_attrs, {"x:0": np.arange(6, dtype=np.float32).reshape(2, 3)}, 1, id="list_type_attrs"),
    pytest.param(small_epsilon_fused_batch_norm, {"x:0": (1 + 1e-3 * _RS.randn(2, 3, 3, 4)).astype(np.float32)}, 1,
                 id="small_epsilon_fused_batch_norm"),
    pytest.param(sparse_dense_matmul, {}, 1, id="sparse_dense_matmul"),
    pytest.param(linspaces, {}, 1, id="linspaces"),
    pytest.param(layer_objects_called_again, {"x:0": _RS.rand(2, 4, 4, 3).astype(np.float32)}, 1,
                 id="layer_objects_called_again"),
    pytest.param(segment_min_max_gradients, {"data:0": np.array([[1, 5], [2, 2], [9, 9], [2, 7], [1, 0]],
                                                                np.float32)}, 1, id="segment_min_max_gradients"),
    pytest.param(adagrad_da, {}, 4, id="adagrad_da"),
    pytest.param(from_generator_pipeline, {}, 3, id="from_generator_pipeline"),
]


@pytest.mark.parametrize("snippet,feeds,steps", VALUE_ROWS)
def test_same_values_as_tf(snippet, feeds, steps):
    got = _values(ref, snippet, feeds, steps)
    want = _values(tf_v1(), snippet, feeds, steps)
    for g_step, w_step in zip(got, want):
        assert len(g_step) == len(w_step)
        for g, w in zip(g_step, w_step):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-5)


def _fields(lib, build):
    with (_null() if lib is ref else tf1_behaviour()), lib.Graph().as_default():
        result = build(lib)
        return type(result).__name__, getattr(type(result), "_fields", None)


@pytest.mark.parametrize("build", [
    pytest.param(lambda tf: tf.nn.top_k(tf.constant([[1.0, 3.0, 2.0]]), 2), id="top_k"),
    pytest.param(lambda tf: tf.unique(tf.constant([1, 1, 2])), id="unique"),
    pytest.param(lambda tf: tf.unique_with_counts(tf.constant([1, 1, 2])), id="unique_with_counts"),
    pytest.param(lambda tf: tf.nn.max_pool_with_argmax(tf.ones([1, 2, 2, 1]), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
                 id="max_pool_with_argmax"),
    pytest.param(lambda tf: tf.nn.moments(tf.ones([2, 3]), [0]), id="moments_plain_tuple"),
    pytest.param(lambda tf: tf.nn.fused_batch_norm(tf.ones([1, 2, 2, 3]), tf.ones([3]), tf.zeros([3])),
                 id="fused_batch_norm_plain_tuple"),
])
def test_multi_output_results_as_tf(build):
    """Ops of several outputs return TF's namedtuple (its generated wrapper's,
    named after the op with the op def's output names); TF's Python functions
    that build a tuple themselves return a plain tuple."""
    assert _fields(ref, build) == _fields(tf_v1(), build)
