"""GraphDef identity with TensorFlow (``_graphdef.py``) for second-order
gradients: ``tf.hessians`` (a TF1 while_loop of gradients into a TensorArray); nn kernels: max pooling with tensor ksize/strides
(``MaxPoolGradV2``'s gradient builds ``MaxPoolGradGradV2``) and batch norm
(``FusedBatchNormGradV3``'s gradient, TF's _FusedBatchNormGradGrad)."""
import pytest

import ref
from ref.framework.op_def_library import apply_op
from ref.graph_ops import nn_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph


def max_pool_v2_second_order(tf):
    x = tf.placeholder(tf.float32, [1, 4, 4, 2], name="x")
    kw = dict(input=x, ksize=tf.constant([1, 2, 2, 1]), strides=tf.constant([1, 1, 2, 1]), padding="SAME")
    y = apply_op("MaxPoolV2", **kw) if tf is ref else tf.raw_ops.MaxPoolV2(**kw)
    g = tf.gradients(tf.reduce_sum(y * y), [x])[0]
    tf.gradients(tf.reduce_sum(g * g), [x])


def _batch_norm_second_order(is_training, data_format):
    def snippet(tf):
        shape = [2, 3, 2, 2] if data_format == "NCHW" else [2, 2, 2, 3]
        x = tf.placeholder(tf.float32, shape, name="x")
        s = tf.placeholder(tf.float32, [3], name="s")
        o = tf.placeholder(tf.float32, [3], name="o")
        m = tf.placeholder(tf.float32, [3], name="m") if not is_training else None
        v = tf.placeholder(tf.float32, [3], name="v") if not is_training else None
        y = tf.nn.fused_batch_norm(x, s, o, mean=m, variance=v, is_training=is_training, data_format=data_format)[0]
        g = tf.gradients(tf.reduce_sum(y * y), [x, s])
        tf.gradients(tf.reduce_sum(g[0] * g[0]) + tf.reduce_sum(g[1]), [x, s])
    return snippet


def hessians_of_known_and_unknown_sizes(tf):  # TF1's while_loop over the gradient's elements, a TensorArray
    x = tf.placeholder(tf.float32, [3], name="x")
    m = tf.placeholder(tf.float32, [None, 2], name="m")
    y = tf.reduce_sum(x ** 3) + tf.reduce_sum(tf.matmul(m, tf.transpose(m)) ** 2)
    tf.hessians(y, [x, m])


TAPE = ("TF builds the rebuilt first-order gradient's derivative with a GradientTape in graph mode "
        "(rules run without '<op>_grad' scopes, in the tape's order); ref differentiates it with gradients()")

ROWS = [
    pytest.param(max_pool_v2_second_order, id="max_pool_v2_second_order"),
    pytest.param(hessians_of_known_and_unknown_sizes, id="hessians_of_known_and_unknown_sizes"),
    pytest.param(_batch_norm_second_order(True, "NHWC"), id="batch_norm_training_nhwc",
                 marks=pytest.mark.xfail(strict=True, reason=TAPE)),
    pytest.param(_batch_norm_second_order(False, "NCHW"), id="batch_norm_inference_nchw",
                 marks=pytest.mark.xfail(strict=True, reason=TAPE)),
]


@pytest.mark.parametrize("snippet", ROWS)
def test_same_graph_as_tf(snippet):
    assert_same_graph(snippet)
