"""Convolution builders and a few gradients make TF's GraphDef and TF's values:
``tf.nn.conv1d`` (the Conv2D takes the scope's name, TF 2.x), the ``Conv1D``
layer's ``conv1d/Conv1D`` scope, ``depthwise_conv2d``/``separable_conv2d``'s
space-to-batch prelude (filter Shape, dilation_rate), the separable layers
(``depthwise_kernel``, ``pointwise_kernel``), the ``Conv2DTranspose`` layer as
Keras' backend builds it without a GPU (NHWC transposes for channels_first,
the ``output_shape[0]`` slice), ``TopKV2``'s gradient (int32 indices, TF's
node order, the folded shape of ``ind_2d``) and
``weighted_cross_entropy_with_logits``' argument order."""
import numpy as np
import pytest

from ref.graph_ops import conv_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, ref_and_tf_values

R = np.random.RandomState(3)
SEQ = R.rand(4, 9, 3).astype(np.float32)
IMG = R.rand(2, 7, 6, 3).astype(np.float32)


def _loss_and_grads(t, out):
    loss = t.reduce_sum(t.square(out))
    return [loss] + [g for g in t.gradients(loss, t.trainable_variables()) if g is not None]


SNIPPETS = {
    "nn_conv1d": lambda t: _loss_and_grads(t, t.nn.conv1d(t.constant(SEQ), t.Variable(t.ones([3, 3, 5])), 1,
                                                          "SAME")),
    "nn_convolution_1d": lambda t: _loss_and_grads(t, t.nn.convolution(t.constant(SEQ),
                                                                       t.Variable(t.ones([2, 3, 4])), "VALID")),
    "layers_conv1d": lambda t: _loss_and_grads(t, t.layers.conv1d(t.constant(SEQ), 4, 3, padding="same",
                                                                  activation=t.nn.relu)),
    "depthwise_conv2d": lambda t: _loss_and_grads(t, t.nn.depthwise_conv2d(
        t.constant(IMG), t.Variable(t.ones([3, 3, 3, 2]) * 0.1), [1, 1, 1, 1], "SAME")),
    "separable_conv2d": lambda t: _loss_and_grads(t, t.nn.separable_conv2d(
        t.constant(IMG), t.Variable(t.ones([3, 3, 3, 2]) * 0.1), t.Variable(t.ones([1, 1, 6, 4]) * 0.2),
        [1, 1, 1, 1], "VALID")),
    "layers_separable_conv2d": lambda t: _loss_and_grads(t, t.layers.separable_conv2d(
        t.constant(IMG), 5, 3, padding="same", depth_multiplier=2, activation=t.nn.relu)),
    "layers_separable_conv1d": lambda t: _loss_and_grads(t, t.layers.separable_conv1d(t.constant(SEQ), 4, 2)),
    "layers_conv2d_transpose_same": lambda t: _loss_and_grads(t, t.layers.conv2d_transpose(
        t.constant(IMG), 4, 3, strides=2, padding="same")),
    "layers_conv2d_transpose_valid_dynamic": lambda t: _loss_and_grads(t, t.layers.conv2d_transpose(
        t.placeholder_with_default(IMG, [None, None, None, 3]), 2, 3, strides=2)),
    "layers_conv2d_transpose_channels_first": lambda t: _loss_and_grads(t, t.layers.conv2d_transpose(
        t.constant(IMG.transpose(0, 3, 1, 2)), 2, 3, strides=2, data_format="channels_first")),
    "top_k_gradient": lambda t: t.gradients(t.reduce_sum(t.nn.top_k(t.Variable(IMG[0, :, :, 0]), k=3)[0] ** 2),
                                            t.trainable_variables()),
    "weighted_cross_entropy": lambda t: _loss_and_grads(t, t.nn.weighted_cross_entropy_with_logits(
        labels=t.constant((SEQ[:, :, 0] > 0.5).astype(np.float32)), logits=t.Variable(SEQ[:, :, 1] - 0.5),
        pos_weight=2.0)),
}


# Keras' backend asks a session for the devices the first time a process builds a
# channels_first transposed convolution, which adds IsVariableInitialized nodes
# and an init NoOp to that one graph: TF's GraphDef there depends on the process'
# history, so that row compares values only.
GRAPH_ROWS = [n for n in SNIPPETS if n != "layers_conv2d_transpose_channels_first"]


@pytest.mark.parametrize("name", GRAPH_ROWS)
def test_graph_def(name):
    assert_same_graph(SNIPPETS[name])


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_values(name):
    got, want = ref_and_tf_values(SNIPPETS[name], seed=5)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-5)


# -- reductions built from elementary ops (TF's math_ops) ---------------------------

REDUCTIONS = {
    "reduce_logsumexp": lambda t, x: t.reduce_logsumexp(x, 1),
    "reduce_logsumexp_all": lambda t, x: t.reduce_logsumexp(x),
    "reduce_logsumexp_keepdims": lambda t, x: t.math.reduce_logsumexp(x, axis=[0], keepdims=True),
    "reduce_logsumexp_inf": lambda t, x: t.reduce_logsumexp(t.concat([x, -np.inf * t.ones([4, 1])], 1),
                                                            reduction_indices=1),
    "reduce_variance": lambda t, x: t.math.reduce_variance(x, 0),
    "reduce_std": lambda t, x: t.math.reduce_std(x, axis=1, keepdims=True),
}


def _reduction(fn):
    def snippet(t):
        x = t.Variable(SEQ[:, :, 0] * 30.0)
        y = fn(t, x)
        return [y] + t.gradients(t.reduce_sum(y * y), [x])
    return snippet


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_graph_def(name):
    assert_same_graph(_reduction(REDUCTIONS[name]))


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_values(name):
    got, want = ref_and_tf_values(_reduction(REDUCTIONS[name]))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
