"""An MLP's training steps equal TensorFlow's bit for bit: 784-128-10 (ReLU, sparse
softmax cross-entropy, mean), plain gradient descent, three steps from the same
initial values, run by ``ref`` and by TensorFlow 2.21's ``tf.compat.v1``; every
variable's bits and each step's loss equal. Its products (``[32, 784] @ [784, 128]``
and their gradients with transposes, ``[32, 128] @ [128, 10]``) cut ``k`` into
oneDNN's pieces and run narrow kernels (10 columns), so this holds only where
``ref.ops.eigen_gemm`` models TF's MatMul (AVX2 CPUs, oneDNN ops off)."""
import os

import numpy as np
import pytest

import ref
from ref.ops import eigen_gemm

SHAPES = [(32, 784, 128, 10), (50, 300, 64, 7)]  # batch, inputs, hidden, classes


def _train(tf, batch, inputs, hidden, classes, steps=3):
    rng = np.random.RandomState(4)
    x = rng.rand(batch, inputs).astype(np.float32)
    y = rng.randint(0, classes, batch).astype(np.int32)
    init = [(rng.randn(inputs, hidden) * 0.05).astype(np.float32), np.zeros(hidden, np.float32),
            (rng.randn(hidden, classes) * 0.1).astype(np.float32), np.full(classes, 0.01, np.float32)]
    graph = tf.Graph()
    with graph.as_default():
        w0, b0, w1, b1 = [tf.Variable(v) for v in init]
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(tf.constant(x), w0), b0))
        logits = tf.nn.bias_add(tf.matmul(h, w1), b1)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant(y), logits=logits))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train])[0] for _ in range(steps)]
            return np.asarray(losses, np.float32), sess.run([w0, b0, w1, b1])


@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
def test_training_equals_tensorflow(shape):
    tfm = pytest.importorskip("tensorflow")
    if not eigen_gemm.applies() or os.environ.get("TF_ENABLE_ONEDNN_OPTS", "0") != "0":
        pytest.skip("TF's MatMul order is modelled on AVX2 CPUs with oneDNN ops off only")
    want_loss, want = _train(tfm.compat.v1, *shape)
    got_loss, got = _train(ref, *shape)
    np.testing.assert_array_equal(got_loss.view(np.int32), want_loss.view(np.int32))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g, np.float32).view(np.int32), w.view(np.int32))
