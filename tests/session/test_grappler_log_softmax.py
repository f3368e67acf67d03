"""``ref.session.interpreter.grappler.log_of_softmax``: ``Log(Softmax(x))`` runs as
TF's session runs it -- ``LogSoftmax(x)`` when the ``Log`` is the ``Softmax``'s
only reader among the ops a run needs and the ``Softmax`` is not fetched
(TF's ``LogSoftmaxStage``), ``Log`` of the ``Softmax`` otherwise (a training
step: the gradient reads the ``Softmax`` too). Each row is a fetch list over
one small classifier; the oracle is ``raw_ops.LogSoftmax`` of the logits or
``raw_ops.Log`` of ``raw_ops.Softmax``, and TF's own numbers when installed."""
import numpy as np
import pytest

import ref
from ref import raw_ops
from ref.session.interpreter import grappler as _under_test  # noqa: F401

X = np.random.RandomState(0).rand(101, 16).astype(np.float32) * 4
W0 = np.random.RandomState(1).randn(16, 5).astype(np.float32)

# name: (what to fetch besides log(h), whether the Log runs as LogSoftmax)
ROWS = {
    "log_alone": ((), True),
    "log_with_softmax_fetched": (("h",), False),
    "log_with_train_step": (("train",), False),
    "log_with_another_reader": (("h2",), False),
}


def _run(tf, extra):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 16])
        w = tf.Variable(W0)
        logits = tf.matmul(p, w)
        h = tf.nn.softmax(logits)
        lg = tf.log(h)
        handles = {"h": h, "h2": h * 2., "train": tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(lg))}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            z = s.run(logits, {p: X})
            got = s.run([lg] + [handles[e] for e in extra], {p: X})[0]
    return got, z


@pytest.mark.parametrize("name", sorted(ROWS))
def test_log_of_softmax_against_kernels(name):
    extra, fused = ROWS[name]
    got, z = _run(ref, extra)
    log_softmax = raw_ops.LogSoftmax(logits=z)
    log_of = raw_ops.Log(x=raw_ops.Softmax(logits=z))
    assert not np.array_equal(log_softmax, log_of)  # the row tells the two apart
    assert np.array_equal(got, log_softmax if fused else log_of)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_log_of_softmax_against_tensorflow(name):
    """TF's session computes the row's ``log(h)`` from its own logits as the row says
    (the logits come through a ``MatMul``, whose general products are not TF's bits
    in ref: the row's claim is checked on TF's logits, ref's on ref's above)."""
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf1
    from tensorflow.python.framework import ops as tf_ops
    extra, fused = ROWS[name]
    with tf_ops.Graph().as_default():
        want, z = _run(tf1, extra)
    assert np.array_equal(want, raw_ops.LogSoftmax(logits=z) if fused else raw_ops.Log(x=raw_ops.Softmax(logits=z)))
