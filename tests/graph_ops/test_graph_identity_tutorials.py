"""Graph identity for the constructs in which the second set of TF1
tutorial programs (tests/programs/test_tf1_tutorials.py) found ref building
a different GraphDef than TF 2.21 ``tf.compat.v1``: one row per bug class."""
import pytest

import ref.graph_ops  # noqa: F401  (the builders these tests cover)
from _graphdef import assert_same_graph


def _in_top_k(tf):
    """TF's wrapper opens its scope, then names the op ``name`` inside it:
    ``in_top_k/InTopKV2`` (``top/top`` when named), k converted under the op."""
    p = tf.placeholder(tf.float32, [4, 5])
    t = tf.placeholder(tf.int64, [4])
    tf.nn.in_top_k(p, t, 2)
    tf.nn.in_top_k(p, [1, 2, 3, 0], 1, name="top")
    tf.math.in_top_k(p, t, 3)


def _zero_fraction_and_count_nonzero(tf):
    """zero_fraction counts under a cond on the size (TF1 Switch/Merge here);
    count_nonzero converts its input as "input", compares with ``zeros([])``
    and skips the comparison for bool."""
    x = tf.placeholder(tf.float32, [3, 4])
    tf.nn.zero_fraction(tf.nn.relu(x))
    tf.math.zero_fraction(x, name="zf")
    tf.count_nonzero(x)
    tf.count_nonzero(x > 0, axis=1, keepdims=True, dtype=tf.int32)
    tf.count_nonzero([[1, 0], [0, 0]], 0)


def _strided_slice_grad(tf):
    """The gradient of ``x[:, t, :]``: TF builds ``Shape`` (a Const here) and
    converts the constant shape, begin, end and strides again under
    ``StridedSliceGrad``; with a dynamic shape and begin, the tensors."""
    x = tf.placeholder(tf.float32, [3, 4, 5])
    tf.gradients([x[:, 1, :], x[0, ::2]], x)
    y = tf.placeholder(tf.float32, [None, 4])
    i = tf.placeholder(tf.int32, [])
    tf.gradients(y[i:, 1:3], y)


def _concat_grad_partly_known(tf):
    """Concat's gradient with an unknown batch size: TF builds ``Shape`` for
    the first input only, stops there and uses ``ShapeN``; fully known
    shapes stay Consts."""
    xs = [tf.placeholder(tf.float32, [None, 1, 1, 3]) for _ in range(3)]
    tf.gradients(tf.concat(xs, 3), xs)
    ys = [tf.placeholder(tf.float32, [2, n]) for n in (1, 2, 3)]
    tf.gradients(tf.concat(ys, 1), ys)
    zs = [tf.placeholder(tf.float32, [2, 2]), tf.placeholder(tf.float32, [None, 2]), tf.placeholder(tf.float32, [2, 2])]
    tf.gradients(tf.concat(zs, 0), zs)


def _indexed_slices_to_dense(tf):
    """An embedding gradient (IndexedSlices) densified by a summary and by
    zero_fraction: ``unsorted_segment_sum(values, indices, dense_shape[0])``,
    the row count sliced as ``strided_slice`` (TF's ``__getitem__``)."""
    emb = tf.Variable(tf.ones([6, 2]), name="emb")
    ids = tf.placeholder(tf.int32, [None])
    (g,) = tf.gradients(tf.reduce_sum(tf.nn.embedding_lookup(emb, ids)), [emb])
    tf.summary.histogram("grad", g)
    tf.nn.zero_fraction(g)
    tf.convert_to_tensor(g, name="dense")


def _top_k(tf):
    """top_k's k converted under the op (``TopKV2/k``), int32 for a Python
    int; a tensor k used as is."""
    x = tf.placeholder(tf.float32, [3, 6])
    tf.nn.top_k(x, k=4)
    tf.nn.top_k(x, name="best")
    tf.math.top_k(x, k=tf.constant(2), sorted=False)


def _layer_regularizers(tf):
    """tf.layers weight regularizers: built under ``<weight>/Regularizer`` but
    not colocated with the variable (TF's legacy layers), once per weight
    (a reused layer adds none). (``get_variable(regularizer=)`` is not here:
    TF 2.21 builds that loss lazily, calling the regularizer once more outside
    any scope and again at each read of the collection -- not matched.)"""
    x = tf.placeholder(tf.float32, [None, 4])
    reg = lambda w: 0.01 * tf.nn.l2_loss(w)  # noqa: E731
    tf.layers.dense(x, 3, kernel_regularizer=reg, bias_regularizer=reg, name="d")
    tf.layers.dense(x, 3, kernel_regularizer=reg, name="d", reuse=True)
    tf.layers.conv2d(tf.reshape(x, [-1, 2, 2, 1]), 2, 1, kernel_regularizer=reg)
    tf.losses.get_regularization_loss()


def _static_rnn_sequence_length(tf):
    """static_rnn with sequence_length: the step index is a Python int, so
    TF's ``time >= sequence_length`` is the reflected LessEqual and
    ``time < min_sequence_length`` a Greater (static_bidirectional_rnn too);
    ``Select`` colocated with the new output; in the gradient, a Concat axis
    Const from another control-flow context is duplicated (TF's
    _ConcatGradHelper)."""
    inputs = [tf.placeholder(tf.float32, [2, 3]) for _ in range(3)]
    lengths = tf.placeholder(tf.int32, [2])
    outputs, _ = tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(4), inputs, sequence_length=lengths, dtype=tf.float32)
    # the cells' concats live in cond branches: their gradients copy the axis Const
    tf.gradients(tf.add_n(outputs), tf.trainable_variables())
    with tf.variable_scope("bi"):
        tf.nn.static_bidirectional_rnn(tf.nn.rnn_cell.BasicRNNCell(2), tf.nn.rnn_cell.BasicRNNCell(2), inputs,
                                       sequence_length=lengths, dtype=tf.float32)


def _tensordot(tf):
    """tensordot transposes only for a real permutation and reshapes only
    when the shape changes (a 2-D x 2-D contraction is one MatMul)."""
    a = tf.placeholder(tf.float32, [2, 3, 4])
    w = tf.placeholder(tf.float32, [4, 5])
    tf.tensordot(a, w, axes=[[2], [0]])
    tf.tensordot(a, w, 1)
    tf.tensordot(w, a, axes=[[0], [2]])
    tf.tensordot(tf.placeholder(tf.float32, [3, 4]), w, axes=1, name="mm")
    tf.tensordot(a, tf.placeholder(tf.float32, [3, 4, 6]), axes=[[1, 2], [0, 1]])


def _boolean_mask(tf):
    """boolean_mask takes ``shape(tensor)`` once per slice (Shape, Shape_1,
    Shape_2), static or dynamic, any axis."""
    x = tf.placeholder(tf.float32, [4, 5, 3])
    tf.boolean_mask(x, tf.placeholder(tf.bool, [4, 5]))
    tf.boolean_mask(x, tf.placeholder(tf.bool, [5]), axis=1)
    y = tf.placeholder(tf.float32, [None, 3])
    tf.boolean_mask(y, y[:, 0] > 0, name="rows")


def _piecewise_constant(tf):
    """piecewise_constant converts boundaries and values (and casts int32
    boundaries for an int64 step) before its ``PiecewiseConstant`` scope."""
    step = tf.train.get_or_create_global_step()
    tf.train.piecewise_constant(step, [3, 6], [0.1, 0.05, 0.01])
    tf.train.piecewise_constant(tf.placeholder(tf.int32, []), [2], [1.0, 0.5], name="pc")


def _decay_schedules(tf):
    """The schedules' operators as TF writes them: polynomial ``sub``/``sub_1/x``,
    inverse-time ``Add``, natural-exp ``Neg/x`` (a Python rate), cosine's
    ``mul``/``add`` chain with its numbers converted under each op."""
    step = tf.train.get_or_create_global_step()
    tf.train.polynomial_decay(0.01, step, 10, end_learning_rate=0.001, power=0.5)
    tf.train.inverse_time_decay(0.02, step, 2, 0.5, staircase=True)
    tf.train.natural_exp_decay(0.5, step, 3, 0.2)
    tf.train.cosine_decay(0.5, step, 10, alpha=0.1)
    tf.train.cosine_decay(0.5, step, 10)


ROWS = {
    "decay_schedules": _decay_schedules,
    "piecewise_constant": _piecewise_constant,
    "boolean_mask": _boolean_mask,
    "tensordot": _tensordot,
    "static_rnn_sequence_length": _static_rnn_sequence_length,
    "layer_regularizers": _layer_regularizers,
    "top_k": _top_k,
    "indexed_slices_to_dense": _indexed_slices_to_dense,
    "concat_grad_partly_known": _concat_grad_partly_known,
    "strided_slice_grad": _strided_slice_grad,
    "in_top_k": _in_top_k,
    "zero_fraction_and_count_nonzero": _zero_fraction_and_count_nonzero,
}


@pytest.mark.parametrize("snippet", [ROWS[k] for k in sorted(ROWS)], ids=sorted(ROWS))
def test_same_graph(snippet):
    assert_same_graph(snippet)
