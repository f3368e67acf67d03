"""GraphDef identity rows found by a systematic sweep of ref's TF1 namespaces:
every public builder of ``tf.*``, ``tf.math``, ``tf.nn``, ``tf.losses``,
``tf.metrics``, ``tf.train``, ``tf.layers``, ``tf.summary``, ``tf.image``,
``tf.sparse``, ``tf.strings``, ``tf.random`` and ``tf.initializers`` built
from typical arguments (placeholders of partly unknown shape), with
``tf.gradients`` of a scalar of its output w.r.t. its float inputs, under ref
and under TF 2.21's ``tf.compat.v1`` (TF1 behaviour). Each row is one builder
(or gradient rule) the sweep found different and that now builds TF's graph
(``_graphdef.py``: names, op types, attrs, data inputs in order, control inputs
in order (a GraphDef sorts them by name), creation order). A row still different is ``xfail(strict=True)``
naming why.
"""
import numpy as np
import pytest

from ref.graph_ops import math_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, ref_and_tf_values


def _x(tf, shape=(None, 3), name="x", dtype=None):
    return tf.placeholder(dtype or tf.float32, list(shape), name=name)


def _grad_of(build, shape=(None, 3), n=1):
    """A snippet: build(tf, *xs) and the gradient of the sum of its output w.r.t. xs."""
    def snippet(tf):
        xs = [_x(tf, shape, f"x{i}") for i in range(n)]
        tf.gradients(tf.reduce_sum(build(tf, *xs)), xs)
    return snippet


# -- gradient rules --------------------------------------------------------------

GRADIENTS = {
    "Sign": lambda tf, x: tf.sign(x),
    "Sinh": lambda tf, x: tf.sinh(x),
    "Erfinv": lambda tf, x: tf.math.erfinv(x),
    "Ndtri": lambda tf, x: tf.math.ndtri(x),
    "erfcinv": lambda tf, x: tf.math.erfcinv(x),
    "Cosh": lambda tf, x: tf.cosh(x),
    "Asin": lambda tf, x: tf.asin(x),
    "Acos": lambda tf, x: tf.math.acos(x),
    "Atan": lambda tf, x: tf.atan(x),
    "Asinh": lambda tf, x: tf.asinh(x),
    "Acosh": lambda tf, x: tf.acosh(x),
    "Atanh": lambda tf, x: tf.math.atanh(x),
    "Atan2": lambda tf, x, y: tf.atan2(x, y),
    "Xlogy": lambda tf, x, y: tf.math.xlogy(x, y),
    "Xdivy": lambda tf, x, y: tf.math.xdivy(x, y),
    "Xlog1py": lambda tf, x, y: tf.math.xlog1py(x, y),
    "MulNoNan": lambda tf, x, y: tf.math.multiply_no_nan(x, y),
    "MulNoNan_static": lambda tf, x, y: tf.math.multiply_no_nan(x, y),
    "EuclideanNorm": lambda tf, x: tf.math.reduce_euclidean_norm(x, 1),
    "EuclideanNorm_all_static": lambda tf, x: tf.math.reduce_euclidean_norm(x),
    "LogSigmoid": lambda tf, x: tf.math.log_sigmoid(x),
    "Trace": lambda tf, x: tf.trace(tf.reshape(x, [-1, 3, 3])),
    "reciprocal_no_nan": lambda tf, x: tf.math.reciprocal_no_nan(x) + tf.math.divide_no_nan(x, 2.0),
    "Tan": lambda tf, x: tf.tan(x),
    "Erf": lambda tf, x: tf.erf(x),
    "Erfc": lambda tf, x: tf.math.erfc(x),
    "FloorMod": lambda tf, x, y: tf.floormod(x, y),
    "Cumprod": lambda tf, x: tf.cumprod(x, 1),
    "Cumprod_exclusive_reverse": lambda tf, x: tf.cumprod(x, 0, exclusive=True, reverse=True),
    "Prod": lambda tf, x: tf.reduce_prod(x, 0),
    "Prod_all_keepdims": lambda tf, x: tf.reduce_prod(x, keepdims=True),
    "Pad": lambda tf, x: tf.pad(x, [[1, 1], [0, 2]]),
    "PadV2": lambda tf, x: tf.pad(x, [[1, 1], [0, 2]], constant_values=1.0),
    "BroadcastTo": lambda tf, x: tf.broadcast_to(x, [2, 4, 3]),
    "BroadcastTo_shape_tensor": lambda tf, x: tf.broadcast_to(x, tf.shape(tf.zeros([2, 4, 3]))),
}
_N_INPUTS = {"FloorMod": 2, "Atan2": 2, "Xlogy": 2, "Xdivy": 2, "Xlog1py": 2, "MulNoNan": 2, "MulNoNan_static": 2}
_STATIC = {"MulNoNan_static": (4, 3), "EuclideanNorm_all_static": (4, 3), "BroadcastTo": (4, 3), "BroadcastTo_shape_tensor": (4, 3), "Prod_all_keepdims": (4, 3)}


def clip_by_value_gradients(tf):
    x, y = _x(tf), _x(tf, (4, 3), "y")
    z = tf.saturate_cast(x, tf.float16)
    w = tf.clip_by_value(y, 0.0, tf.constant([1., 2., 3.]))
    tf.gradients(tf.reduce_sum(tf.cast(z, tf.float32)) + tf.reduce_sum(w), [x, y])


def unsorted_segment_prod_gradient(tf):
    x, ids = _x(tf), tf.placeholder(tf.int32, [4], name="ids")
    tf.gradients(tf.reduce_sum(tf.unsorted_segment_prod(x, ids, 2)), [x])


def image_gradients_gradient(tf):
    x = _x(tf, (2, 4, 4, 3))
    dy, dx = tf.image.image_gradients(x)
    tf.gradients(tf.reduce_sum(dy) + tf.reduce_sum(dx), [x])


def sampled_losses_gradients(tf):
    """sampled_softmax_loss slices its weights with a begin of stack([n, 0]): TF's
    shape inference reads it as a partial shape, so the slice is [?, 4] and the
    loss's Sub gradient reduces over statically known axes."""
    x = _x(tf, (None, 4))
    w, b = tf.get_variable("w", [10, 4]), tf.get_variable("b", [10])
    lab = tf.placeholder(tf.int64, [None, 1], name="lab")
    l1 = tf.nn.nce_loss(w, b, lab, x, 3, 10)
    l2 = tf.nn.sampled_softmax_loss(w, b, lab, x, 3, 10)
    tf.gradients(tf.reduce_sum(l1) + tf.reduce_sum(l2), [x, w, b])


def mean_iou(tf):
    labels, predictions = _x(tf, name="labels"), _x(tf, name="predictions")
    tf.metrics.mean_iou(labels, predictions, 3)
    tf.metrics.mean_iou(labels, predictions, 3, weights=tf.ones([2, 3]), name="weighted")


def ema_zero_debias(tf):
    """The debiasing variables are colocated with the average (``_class``)."""
    w = tf.Variable(tf.ones([2]), name="w")
    tf.train.ExponentialMovingAverage(0.9, zero_debias=True).apply([tf.reduce_sum(w), w])


def swish_custom_gradient(tf):
    """TF builds swish/silu as a custom gradient: forward ops outside any name scope,
    IdentityN with _gradient_op_type, TF's gradient (also w.r.t. beta)."""
    x, beta = _x(tf), tf.placeholder(tf.float32, [], name="beta")
    tf.gradients(tf.reduce_sum(tf.nn.swish(x)), [x])
    tf.gradients(tf.reduce_sum(tf.nn.silu(x, beta=beta)), [x, beta])


def scaffold_defaults(tf):
    """Scaffold's default init, ready and local-init ops (variables and resources), and
    report_uninitialized_variables' boolean_mask."""
    tf.get_variable("v", [2])
    tf.get_variable("l", [2], collections=[tf.GraphKeys.LOCAL_VARIABLES])
    tf.train.Scaffold().finalize()


# -- known leftovers (xfail, strict: they flip when fixed) -------------------------

def one_shot_iterator(tf):
    d = tf.data.Dataset.range(5).map(lambda v: v * 2).batch(2)
    d.make_one_shot_iterator().get_next()


def truncatemod(tf):
    x = _x(tf)
    tf.truncatemod(x, 0.7)
    tf.truncatemod(tf.cast(x, tf.int32), tf.constant(3))


def batch_scatter_update(tf):
    v = tf.Variable(tf.zeros([2, 4]), name="v")
    tf.batch_scatter_update(v, tf.constant([[1, 3], [0, 2]]), tf.ones([2, 2]))


def ctc_unique_labels(tf):
    tf.nn.ctc_unique_labels(tf.placeholder(tf.int32, [None, 5], name="labels"))


def image_pad_gradients(tf):
    x = _x(tf, (None, 4, 4, 3))
    y = tf.image.resize_image_with_crop_or_pad(x, 6, 6) + tf.image.resize_image_with_pad(x, 6, 6)
    tf.gradients(tf.reduce_sum(y), [x])


# -- builders ---------------------------------------------------------------------

def angle_of_real(tf):
    tf.angle(_x(tf))


def as_string(tf):
    tf.strings.as_string(_x(tf))
    tf.as_string(_x(tf, (4,), "i", tf.int32))


def single_tensor_concat(tf):
    x = _x(tf)
    tf.concat([x], 1)
    tf.concat(x, 0, name="c")


def assert_near(tf):
    tf.assert_near(_x(tf), _x(tf, name="y"))


def log_poisson_loss(tf):
    t, x = _x(tf, name="t"), _x(tf)
    tf.gradients(tf.nn.log_poisson_loss(t, x) + tf.nn.log_poisson_loss(t, x, compute_full_loss=True), [x])


def linear_cosine_decays(tf):
    gs = tf.train.get_or_create_global_step()
    tf.train.linear_cosine_decay(0.1, gs, 10)
    tf.train.noisy_linear_cosine_decay(0.1, gs, 10)


def pool2d_names(tf):
    x = _x(tf, (None, 4, 4, 3))
    tf.nn.avg_pool2d(x, 2, 2, "SAME")
    tf.nn.max_pool_v2(x, 2, 2, "SAME")
    tf.nn.avg_pool_v2(x, 2, 2, "SAME")
    tf.nn.max_pool2d(x, 2, 2, "VALID")


def layers_pooling1d(tf):
    x = _x(tf, (None, 6, 3))
    y = tf.layers.max_pooling1d(x, 2, 2) + tf.layers.average_pooling1d(x, 2, 2)
    z = tf.layers.max_pooling1d(x, 2, 1, padding="same", data_format="channels_first")
    tf.gradients([y, z], [x])


def monotone_checks(tf):
    x = _x(tf)
    tf.is_non_decreasing(x)
    tf.is_strictly_increasing(x)
    tf.math.is_non_decreasing([1, 2, 2])


def sequence_mask(tf):
    tf.sequence_mask(_x(tf, (None,), "len", tf.int32))
    tf.sequence_mask(_x(tf, (None, 2), "len2", tf.int32), 5)


def report_uninitialized_nothing(tf):
    tf.report_uninitialized_variables()


def identity_initializer(tf):
    tf.get_variable("v", [3, 3], initializer=tf.initializers.identity(2.0))
    tf.get_variable("w", [4, 3], initializer=tf.initializers.identity(), partitioner=tf.fixed_size_partitioner(2))


CASES = [(_grad_of(f, _STATIC.get(k, (None, 3)), _N_INPUTS.get(k, 1)), f"grad_{k}", None)
         for k, f in GRADIENTS.items()]
CASES += [(f, f.__name__, why) for f, why in [
    (clip_by_value_gradients, None),
    (scaffold_defaults, None),
    (swish_custom_gradient, None),
    (mean_iou, None),
    (ema_zero_debias, None),
    (unsorted_segment_prod_gradient, None),
    (image_gradients_gradient, None),
    (sampled_losses_gradients, None),
    (image_pad_gradients, None),
    (one_shot_iterator, None),
    (truncatemod, None),
    (batch_scatter_update, None),
    (ctc_unique_labels, None),
    (angle_of_real, None),
    (as_string, None),
    (single_tensor_concat, None),
    (assert_near, None),
    (log_poisson_loss, None),
    (linear_cosine_decays, None),
    (pool2d_names, None),
    (layers_pooling1d, None),
    (monotone_checks, None),
    (sequence_mask, None),
    (report_uninitialized_nothing, None),
    (identity_initializer, None),
]]


@pytest.mark.parametrize("snippet", [
    pytest.param(f, id=name, marks=[pytest.mark.xfail(reason=why, strict=True)] if why else [])
    for f, name, why in CASES])
def test_graph_def_is_tensorflows(snippet):
    assert_same_graph(snippet)


def _values(build, feeds):
    def snippet(tf):
        return build(tf)
    return snippet


VALUES = {
    "cumprod_grad_with_zero": lambda tf: tf.gradients(tf.reduce_sum(tf.cumprod(tf.constant([[2., 0., 3.], [1., 4., 5.]]), 1)),
                                                      tf.get_default_graph().get_operations()[0].outputs),
    "prod_grad_with_zero": lambda tf: tf.gradients(tf.reduce_sum(tf.reduce_prod(tf.constant([[2., 0., 3.], [1., 4., 5.]]), 0)),
                                                   tf.get_default_graph().get_operations()[0].outputs),
    "pad_grad": lambda tf: tf.gradients(tf.reduce_sum(tf.pad(tf.constant([[1., 2.], [3., 4.]]), [[1, 0], [0, 2]]) ** 2),
                                        tf.get_default_graph().get_operations()[0].outputs),
    "broadcast_to_grad": lambda tf: tf.gradients(tf.reduce_sum(tf.broadcast_to(tf.constant([[1., 2.]]), [3, 2]) ** 2),
                                                 tf.get_default_graph().get_operations()[0].outputs),
    "erf_tan_grads": lambda tf: tf.gradients(tf.reduce_sum(tf.erf(tf.constant([0.3, -1.])) + tf.tan(tf.constant([0.3, -1.]))
                                                           + tf.math.erfc(tf.constant([0.3, -1.]))),
                                             [tf.get_default_graph().get_operations()[i].outputs[0] for i in (0, 2, 4)]),
    "angle_is_monotone": lambda tf: [tf.angle(tf.constant([-1., 2.])), tf.is_non_decreasing([1, 2, 2]),
                                     tf.is_strictly_increasing([1, 2, 2]), tf.is_strictly_increasing([3])],
    "pooling1d": lambda tf: [tf.layers.max_pooling1d(tf.constant(np.arange(24, dtype=np.float32).reshape(2, 4, 3)), 2, 2),
                             tf.layers.average_pooling1d(tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4)),
                                                         2, 1, padding="same", data_format="channels_first")],
    "sequence_mask": lambda tf: tf.sequence_mask([1, 3, 0]),
    "swish_grads": lambda tf: tf.gradients(tf.reduce_sum(tf.nn.swish(tf.constant([-1.5, 0.25, 2.]), beta=tf.constant(0.7))),
                                           [tf.get_default_graph().get_operations()[i].outputs[0] for i in (0, 1)]),
    "clip_by_value_grad": lambda tf: tf.gradients(
        tf.reduce_sum(tf.clip_by_value(tf.constant([[-1., 0.5, 3.], [2., 1., 0.]]), 0.0, tf.constant([1., 2., 2.5])) ** 2),
        tf.get_default_graph().get_operations()[0].outputs),
    "unsorted_segment_prod_grad": lambda tf: tf.gradients(
        tf.reduce_sum(tf.unsorted_segment_prod(tf.constant([[1., 0.], [2., 3.], [0., 0.], [4., 5.]]), [0, 1, 0, -1], 2)),
        tf.get_default_graph().get_operations()[0].outputs),
}


SLICE_SHAPES = {  # (builder, TF's static shape)
    "begin_partial_size_minus_one": (lambda tf, x, n: tf.slice(x, tf.stack([n, 0]), [-1, -1]), [None, 4]),
    "begin_partial_size_known": (lambda tf, x, n: tf.slice(x, tf.stack([n, 1]), [2, -1]), [2, 3]),
    "size_partial": (lambda tf, x, n: tf.slice(x, [0, 0], tf.stack([n, 2])), [None, 2]),
    "size_unknown": (lambda tf, x, n: tf.slice(x, [0, 0], tf.fill([2], n)), [None, None]),
}


@pytest.mark.parametrize("build,want", SLICE_SHAPES.values(), ids=list(SLICE_SHAPES))
def test_slice_static_shape_is_tensorflows(build, want):
    import ref
    from _graphdef import tf1_behaviour, tf_v1
    tf = tf_v1()
    with tf1_behaviour(), tf.Graph().as_default():
        assert build(tf, tf.placeholder(tf.float32, [None, 4]), tf.placeholder(tf.int32, [])).shape.as_list() == want
    with ref.Graph().as_default():
        assert build(ref, ref.placeholder(ref.float32, [None, 4]), ref.placeholder(ref.int32, [])).shape.as_list() == want


@pytest.mark.parametrize("build", VALUES.values(), ids=list(VALUES))
def test_values_are_tensorflows(build):
    got, want = ref_and_tf_values(build)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
