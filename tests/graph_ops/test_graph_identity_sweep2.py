"""GraphDef identity rows from the second sweep of ref's TF1 builders: the
builders the first sweep had no arguments for (queues, accumulators, readers,
parsing, sparse ops, einsum, pooling, norms, embedding partitions, scatter
gradients, tf.print, ...) built by hand on placeholders of known and unknown
shapes, with ``tf.gradients`` of a scalar of their output where
differentiable, under ref and under TF 2.21's ``tf.compat.v1`` (TF1
behaviour). Each row is one builder (or gradient rule) the sweep found
different and that now builds TF's graph (``_graphdef.py``: names, op types,
attrs, data inputs in order, control inputs in order (a GraphDef sorts them by name), creation order).
"""
import numpy as np
import pytest

from ref.graph_ops import array_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, fed_values, tf_v1


def _x(tf, shape=(None, 3), name="x", dtype=None):
    return tf.placeholder(dtype or tf.float32, list(shape), name=name)


def _grad(tf, y, xs):
    return tf.gradients(tf.reduce_sum(y), xs)


# -- Python arguments converted inside the op's scope, TF's int64 types --------------

def readers(tf):
    fq = tf.train.string_input_producer(["a"])
    r = tf.TextLineReader()
    r.read_up_to(fq, 3)


def read_write_file(tf):
    tf.write_file("out", tf.read_file(_x(tf, [], "f", tf.string)))


def sparse_split_transpose(tf):
    sp = tf.sparse_placeholder(tf.float32, shape=[4, 3], name="sp")
    tf.sparse_split(sp_input=sp, num_split=2, axis=0)
    tf.sparse_transpose(sp)


def decode_csv(tf):
    tf.decode_csv(_x(tf, [None], "s", tf.string), [[1.0], [0], ["a"]], field_delim=",")


def sparse_accumulator(tf):
    a = tf.SparseConditionalAccumulator(tf.float32, shape=[4, 3])
    a.apply_indexed_slices_grad(tf.IndexedSlices(_x(tf, [2, 3]), tf.constant([0, 1], tf.int64)))
    a.take_indexed_slices_grad(1)
    b = tf.ConditionalAccumulator(tf.float32, shape=[3])
    b.apply_grad(_x(tf, [3], "g"), 0)
    b.take_grad(1)


# -- names and scopes ------------------------------------------------------------------

def scalar_mul(tf):
    x = _x(tf)
    _grad(tf, tf.scalar_mul(2.0, x), [x])


def moments(tf):
    x = _x(tf)
    _grad(tf, tf.nn.moments(x, [0])[1] + tf.nn.weighted_moments(x, [0], _x(tf, [None, 1], "w"))[1], [x])
    tf.nn.sufficient_statistics(x, [0])
    tf.nn.sufficient_statistics(x, [1, 0], shift=1.0)


def verify_finite(tf):
    x = _x(tf)
    _grad(tf, tf.check_numerics(x, "bad") + tf.verify_tensor_all_finite(x, "m"), [x])


def queue_from_list(tf):
    qs = [tf.FIFOQueue(2, [tf.float32]) for _ in range(2)]
    tf.QueueBase.from_list(tf.constant(0), qs).dequeue()


def meshgrid(tf):
    a, b = _x(tf, [3], "a"), _x(tf, [None], "b")
    _grad(tf, tf.meshgrid(a, b)[0] + tf.meshgrid(a, b, indexing="ij")[1][0, 0], [a, b])


def print_v2(tf):
    x = _x(tf, [3])
    tf.print(x, "a", summarize=2)
    tf.print(x, name="p")


def pool1d(tf):
    x = _x(tf, [None, 6, 3])
    _grad(tf, tf.nn.max_pool1d(x, 2, 2, "VALID") + tf.nn.avg_pool1d(x, 2, 2, "VALID"), [x])


def nn_pool(tf):
    y = _x(tf, [None, 6, 6, 3])
    _grad(tf, tf.nn.pool(y, [2, 2], "MAX", "SAME", strides=[2, 2]), [y])
    _grad(tf, tf.nn.pool(_x(tf, [None, 6, 3], "z"), [2], "AVG", "VALID", name="p1"), [y])
    tf.nn.pool(_x(tf, [None, 4, 4, 4, 3], "v"), [2, 2, 2], "MAX", "VALID", strides=[2, 2, 2])


def decode_image(tf):
    tf.image.decode_image(_x(tf, [], "s", tf.string), channels=3)


def stateless_multinomial(tf):
    tf.random.stateless_multinomial(_x(tf, [2, 3], "l"), 4, _x(tf, [2], "s", tf.int64))


# -- gradients -------------------------------------------------------------------------

EINSUM = {
    "matmul": ("ij,jk->ik", [(None, 3), (3, 2)]),
    "reduce_one": ("ij->i", [(None, 3)]),
    "transpose": ("ij->ji", [(4, 3)]),
    "batch": ("bij,jk->bik", [(None, 2, 3), (3, 4)]),
    "ellipsis_broadcast": ("...ij,...jk->...ik", [(2, 1, 2, 3), (5, 3, 4)]),
    "ellipsis_one_side": ("...ij,jk->...ik", [(None, 2, 3), (3, 4)]),
    "reduce_two": ("ij,jk->k", [(4, 3), (3, 2)]),
    "outer": ("i,j->ij", [(3,), (4,)]),
}


def _einsum(equation, shapes):
    def snippet(tf):
        xs = [_x(tf, s, f"x{i}") for i, s in enumerate(shapes)]
        _grad(tf, tf.einsum(equation, *xs), xs)
    return snippet


def dynamic_partition(tf):
    x, p = _x(tf), _x(tf, [None], "p", tf.int32)
    parts = tf.dynamic_partition(x, p, 2)
    _grad(tf, tf.dynamic_stitch([tf.range(2), tf.range(2, 4)], parts), [x])
    _grad(tf, parts[1] * 3.0, [x])


def tensor_scatter(tf):
    t, i, u = _x(tf, [4, 3], "t"), _x(tf, [2, 1], "i", tf.int32), _x(tf, [2, 3], "u")
    _grad(tf, tf.tensor_scatter_add(t, i, u) + tf.tensor_scatter_nd_sub(t, i, u)
          + tf.tensor_scatter_nd_update(t, i, u), [t, u])


def angle(tf):
    a, b = _x(tf, name="a"), _x(tf, name="b")
    _grad(tf, tf.angle(tf.complex(a, b)) + tf.abs(tf.complex(a, b)), [a, b])


NORMS = {f"{o}_axis{a}{'_keep' if k else ''}": (o, a, k) for o in ("euclidean", 1, 2, np.inf, 3, 0.5)
         for a in (None, 1, -1) for k in (False, True)}
NORMS.update({f"matrix_{o}{a}": (o, a, False) for o in ("euclidean", "fro", 1, np.inf) for a in ((1, 2), (-1, 0))})


def _norm(ord_, axis, keepdims):
    def snippet(tf):
        x = _x(tf, (2, 4, 3) if isinstance(axis, tuple) else (None, 3))
        _grad(tf, tf.norm(x, ord=ord_, axis=axis, keepdims=keepdims), [x])
    return snippet


def embedding_div(tf):
    p = tf.get_variable("p", [10, 4], partitioner=tf.fixed_size_partitioner(3))
    i = _x(tf, [None], "i", tf.int64)
    _grad(tf, tf.nn.embedding_lookup(list(p), i, partition_strategy="div"), list(p))
    q = [_x(tf, [None, 4], "q0"), _x(tf, [3, 4], "q1")]
    tf.nn.embedding_lookup(q, tf.constant([1, 2]), partition_strategy="div")


def unconnected_zero(tf):
    x = _x(tf)
    tf.gradients(tf.reduce_sum(x), [x, _x(tf, [2], "unused")], unconnected_gradients="zero")
    tf.gradients(tf.reduce_sum(x), [_x(tf, [None], "u2")], unconnected_gradients="zero", name="g2")


def conv2d_transpose_unknown_batch(tf):
    y, k = _x(tf, [None, 6, 6, 3], "y"), _x(tf, [2, 2, 2, 3], "k")
    _grad(tf, tf.nn.conv2d_transpose(y, k, [2, 12, 12, 2], [1, 2, 2, 1]), [y, k])
    _grad(tf, tf.nn.conv2d_backprop_input([2, 6, 6, 3], _x(tf, [3, 3, 3, 2], "f"), _x(tf, [None, 6, 6, 2], "d"),
                                          [1, 1, 1, 1], "SAME"), [y])


def layer_constraint_and_reuse(tf):
    x = _x(tf)
    tf.layers.dense(x, 2, name="d")
    tf.layers.dense(x, 2, name="d", reuse=True)
    y = tf.layers.dense(x, 2, kernel_constraint=lambda w: tf.clip_by_norm(w, 1.0), bias_regularizer=tf.nn.l2_loss)
    tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(y))


def weighted_counters(tf):
    l, p, w = _x(tf, [None], "l"), _x(tf, [None], "p"), _x(tf, [None], "w")
    tf.metrics.true_positives(l > 0, p > 0, w)
    tf.metrics.false_negatives(l > 0, p > 0, 2.0)
    tf.metrics.false_positives(l > 0, p > 0)


def specificity_at_sensitivity(tf):
    tf.metrics.specificity_at_sensitivity(_x(tf, [None], "l", tf.bool), _x(tf, [None], "p"), 0.5, num_thresholds=5)


def saver_partitioned(tf):
    tf.Variable(tf.ones([2]), name="v")
    tf.get_variable("w", [4, 2], partitioner=tf.fixed_size_partitioner(2))
    tf.train.Saver()
    tf.train.Saver(sharded=True, max_to_keep=1)


def variational_dropout_rnn(tf):
    x = _x(tf, [2, 5, 3])
    cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(3), 0.5, 0.5, 0.5, variational_recurrent=True,
                                         input_size=3, dtype=tf.float32, seed=2)
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    _grad(tf, out, [x])


def batch_scatter_update(tf):
    v = tf.Variable(tf.zeros([2, 3, 5]), name="v")
    tf.batch_scatter_update(v, _x(tf, [2, 3, 2], "i", tf.int64), _x(tf, [2, 3, 2], "u"), name="b")
    w = tf.Variable(tf.zeros([5]), name="w")
    with tf.name_scope("s"):
        tf.batch_scatter_update(w, tf.constant([1, 2]), tf.constant([1., 2.]))


ROWS = {
    "readers": readers, "read_write_file": read_write_file, "sparse_split_transpose": sparse_split_transpose,
    "decode_csv": decode_csv, "sparse_accumulator": sparse_accumulator,
    "scalar_mul": scalar_mul, "moments": moments, "verify_finite": verify_finite,
    "queue_from_list": queue_from_list, "meshgrid": meshgrid, "print_v2": print_v2, "pool1d": pool1d,
    "nn_pool": nn_pool, "decode_image": decode_image, "stateless_multinomial": stateless_multinomial,
    "dynamic_partition": dynamic_partition, "tensor_scatter": tensor_scatter, "angle": angle,
    "embedding_div": embedding_div, "unconnected_zero": unconnected_zero,
    "conv2d_transpose_unknown_batch": conv2d_transpose_unknown_batch,
    "layer_constraint_and_reuse": layer_constraint_and_reuse, "weighted_counters": weighted_counters,
    "specificity_at_sensitivity": specificity_at_sensitivity, "saver_partitioned": saver_partitioned,
    "variational_dropout_rnn": variational_dropout_rnn, "batch_scatter_update": batch_scatter_update,
    **{f"einsum_{k}": _einsum(*v) for k, v in EINSUM.items()},
    **{f"norm_{k}": _norm(*v) for k, v in NORMS.items()},
}


@pytest.mark.parametrize("snippet", ROWS.values(), ids=list(ROWS))
def test_graph_is_tensorflows(snippet):
    assert_same_graph(snippet)


# -- values of the gradients ref newly builds (DynamicPartition had none) ---------------

def _partition_grad(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    p = tf.placeholder(tf.int32, [None], name="p")
    a, b = tf.dynamic_partition(x, p, 2)
    g = tf.gradients(tf.reduce_sum(a * 2.0) + tf.reduce_sum(b * b), [x])[0]
    xv = np.arange(12, dtype=np.float32).reshape(4, 3)
    return g, {x: xv, p: np.array([1, 0, 1, 0], np.int32)}


def _einsum_grad(tf):
    x = tf.placeholder(tf.float32, [2, 1, 2, 3], name="x")
    w = tf.placeholder(tf.float32, [5, 3, 4], name="w")
    gs = tf.gradients(tf.reduce_sum(tf.einsum("...ij,...jk->...ik", x, w) ** 2), [x, w])
    rng = np.random.default_rng(7)
    return gs, {x: rng.standard_normal([2, 1, 2, 3]).astype(np.float32),
                w: rng.standard_normal([5, 3, 4]).astype(np.float32)}


@pytest.mark.parametrize("snippet", [_partition_grad, _einsum_grad], ids=["dynamic_partition", "einsum_ellipsis"])
def test_gradient_values_are_tensorflows(snippet):
    import ref
    got, want = fed_values(ref, snippet), fed_values(tf_v1(), snippet)
    for g, w in zip(np.atleast_1d(got) if not isinstance(got, list) else got,
                    np.atleast_1d(want) if not isinstance(want, list) else want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def _batch_scatter(tf):
    v = tf.Variable(tf.zeros([2, 3, 5]), name="v")
    idx = np.array([[[1, 4], [0, 2], [3, 3]], [[2, 1], [0, 0], [4, 1]]])
    return [tf.batch_scatter_update(v, tf.constant(idx), tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2)))]


def test_batch_scatter_update_values_are_tensorflows():
    from _graphdef import ref_and_tf_values
    got, want = ref_and_tf_values(_batch_scatter)
    np.testing.assert_array_equal(got[0], want[0])
