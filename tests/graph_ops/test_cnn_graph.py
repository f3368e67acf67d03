"""tf.nn convolution, pooling, normalization and top_k builders: the same
graph built with ``ref`` and with ``tensorflow.compat.v1`` (values, static
shapes, gradients), within a ULP budget on inputs that do not cancel."""
import numpy as np
import pytest

import ref
from ref.golden.ulp import ulp_distance
from ref.graph_ops import nn_ops as _under_test  # noqa: F401  (the module these tests cover)

RNG = np.random.default_rng(11)
X = RNG.uniform(0.5, 1.5, (2, 8, 7, 3)).astype(np.float32)
W = RNG.uniform(0.5, 1.5, (3, 3, 3, 4)).astype(np.float32)
WT = RNG.uniform(0.5, 1.5, (3, 3, 4, 3)).astype(np.float32)
WD = RNG.uniform(0.5, 1.5, (2, 2, 3, 2)).astype(np.float32)
W1 = RNG.uniform(0.5, 1.5, (3, 7, 5)).astype(np.float32)

# (id, build(tf, x) -> output); x is a [2, 8, 7, 3] float32 placeholder.
CASES = [
    ("conv2d-same", lambda tf, x: tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")),
    ("conv2d-valid-stride2", lambda tf, x: tf.nn.conv2d(x, W, strides=2, padding="VALID")),
    ("conv2d-stride-pair", lambda tf, x: tf.nn.conv2d(x, W, strides=[2, 1], padding="SAME")),
    ("conv2d-dilated", lambda tf, x: tf.nn.conv2d(x, W, [1, 1, 1, 1], "VALID", dilations=[1, 2, 2, 1])),
    ("conv2d-explicit", lambda tf, x: tf.nn.conv2d(x, W, [1, 1, 1, 1], [[0, 0], [1, 2], [2, 0], [0, 0]])),
    ("conv2d-filters-kw", lambda tf, x: tf.nn.conv2d(x, filters=W, strides=1, padding="SAME", name="c")),
    ("conv2d_transpose", lambda tf, x: tf.nn.conv2d_transpose(x, WT, [2, 16, 14, 4], [1, 2, 2, 1], "SAME")),
    ("conv2d_transpose-valid", lambda tf, x: tf.nn.conv2d_transpose(x, WT, [2, 10, 9, 4], [1, 1, 1, 1], "VALID")),
    ("depthwise", lambda tf, x: tf.nn.depthwise_conv2d(x, WD, [1, 1, 1, 1], "SAME")),
    ("depthwise-stride", lambda tf, x: tf.nn.depthwise_conv2d(x, WD, [1, 2, 2, 1], "VALID")),
    ("depthwise-rate", lambda tf, x: tf.nn.depthwise_conv2d(x, WD, [1, 1, 1, 1], "VALID", rate=[2, 2])),
    ("depthwise_native", lambda tf, x: tf.nn.depthwise_conv2d_native(x, WD, [1, 1, 1, 1], "SAME")),
    ("conv1d", lambda tf, x: tf.nn.conv1d(tf.reshape(x, [2, 24, 7]), W1, 1, "SAME")),
    ("conv1d-stride-valid", lambda tf, x: tf.nn.conv1d(tf.reshape(x, [2, 24, 7]), W1, 2, "VALID")),
    ("max_pool", lambda tf, x: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")),
    ("max_pool-int-ksize", lambda tf, x: tf.nn.max_pool(x, 3, 2, "VALID")),
    ("avg_pool", lambda tf, x: tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], "SAME")),
    ("avg_pool-valid", lambda tf, x: tf.nn.avg_pool(x, [1, 2, 3, 1], [1, 2, 1, 1], "VALID")),
    ("max_pool_v2", lambda tf, x: tf.nn.max_pool_v2(x, 2, [2, 1], "SAME")),
    ("avg_pool_v2", lambda tf, x: tf.nn.avg_pool_v2(x, [3, 2], 1, "VALID")),
    ("max_pool1d", lambda tf, x: tf.nn.max_pool1d(tf.reshape(x, [2, 24, 7]), 3, 2, "SAME")),
    ("avg_pool1d", lambda tf, x: tf.nn.avg_pool1d(tf.reshape(x, [2, 24, 7]), 2, 1, "VALID")),
    ("max_pool_with_argmax", lambda tf, x: tf.nn.max_pool_with_argmax(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")[0]),
    ("conv-relu-pool", lambda tf, x: tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, W, [1, 1, 1, 1], "SAME") - 6.0),
                                                    [1, 2, 2, 1], [1, 2, 2, 1], "VALID")),
    ("batch_normalization", lambda tf, x: tf.nn.batch_normalization(
        x, tf.constant([1.0, 0.9, 1.1]), tf.constant([0.5, 0.6, 0.7]), tf.constant([3.0, 3.5, 4.0]),
        tf.constant([1.0, 2.0, 0.5]), 1e-3)),
    ("fused_batch_norm-infer", lambda tf, x: tf.nn.fused_batch_norm(
        x, tf.constant([1.0, 2.0, 0.5]), tf.constant([3.0, 3.5, 4.0]), mean=tf.constant([1.0, 0.9, 1.1]),
        variance=tf.constant([0.5, 0.6, 0.7]), is_training=False)[0]),
    ("separable_conv2d", lambda tf, x: tf.nn.separable_conv2d(x, WD, W[:1, :1].repeat(2, axis=2), [1, 1, 1, 1],
                                                              "SAME")),
    ("weighted_moments", lambda tf, x: tf.nn.weighted_moments(x, [0, 1, 2], tf.constant(X[:1, :, :, :1] + 1.0))[1]),
    ("sufficient_statistics", lambda tf, x: tf.nn.normalize_moments(*tf.nn.sufficient_statistics(
        x, [1, 2], shift=tf.constant(1.0)))[0]),
    ("batch_norm_with_global_normalization", lambda tf, x: tf.nn.batch_norm_with_global_normalization(
        x, tf.constant([1.0, 0.9, 1.1]), tf.constant([0.5, 0.6, 0.7]), tf.constant([3.0, 3.5, 4.0]),
        tf.constant([1.0, 2.0, 0.5]), 1e-3, True)),
    ("lrn", lambda tf, x: tf.nn.local_response_normalization(x, depth_radius=1, bias=2.0, alpha=0.5, beta=0.75)),
    ("lrn-default", lambda tf, x: tf.nn.lrn(x)),
    ("top_k-values", lambda tf, x: tf.nn.top_k(tf.reshape(x, [2, -1]), k=5)[0]),
]

NO_TF_GRADIENT = {"conv2d-dilated"}  # TF's CPU backprop kernels take no dilations (ref's do: test_cnn_ops)
GRAD_BUDGET = 16  # ULPs: window sums in another order, then a few products


def _run(lib, build, want_grad=True):
    with lib.Graph().as_default():
        x = lib.placeholder(lib.float32, X.shape)
        y = build(lib, x)
        fetch = [y]
        if want_grad:
            fetch.append(lib.gradients(lib.reduce_sum(y * y), x)[0])
        with lib.Session() as sess:
            return y.shape.as_list(), y.dtype.name, sess.run(fetch, {x: X})


@pytest.mark.parametrize("rid,build", CASES, ids=[c[0] for c in CASES])
def test_builder_vs_tf_compat_v1(rid, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    grad = rid not in NO_TF_GRADIENT
    shape, dtype, (got, *got_grad) = _run(ref, build, grad)
    tshape, tdtype, (want, *want_grad) = _run(tf, build, grad)
    assert shape == tshape and dtype == tdtype
    assert got.shape == want.shape
    assert ulp_distance(got, want).max() <= GRAD_BUDGET, rid
    for g, w in zip(got_grad, want_grad):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6 * np.abs(w).max())


def test_fused_batch_norm_training_vs_tf():
    tf = pytest.importorskip("tensorflow").compat.v1
    scale, offset = np.float32([1.0, 2.0, 0.5]), np.float32([3.0, 3.5, 4.0])

    def build(lib):
        x = lib.placeholder(lib.float32, X.shape)
        s, o = lib.constant(scale), lib.constant(offset)
        y, m, v = lib.nn.fused_batch_norm(x, s, o, epsilon=1e-3)
        gx, gs, go = lib.gradients(lib.reduce_sum(y * y * lib.constant(X)), [x, s, o])
        return x, [y, m, v, gx, gs, go]

    outs = []
    for lib in (ref, tf):
        with lib.Graph().as_default():
            x, fetch = build(lib)
            assert [t.shape.as_list() for t in fetch[:3]] == [[2, 8, 7, 3], [3], [3]]
            with lib.Session() as sess:
                outs.append(sess.run(fetch, {x: X}))
    for a, e in zip(*outs):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5 * np.abs(e).max())


def test_top_k_indices_and_gradient_vs_tf():
    tf = pytest.importorskip("tensorflow").compat.v1
    v = np.float32([[3, 1, 3, 2, 5], [0, 0, 1, 0, 1]])
    outs = []
    for lib in (ref, tf):
        with lib.Graph().as_default():
            x = lib.constant(v)
            vals, idx = lib.nn.top_k(x, 3)
            g = lib.gradients(lib.reduce_sum(vals * lib.constant([[1.0, 2.0, 3.0]])), x)[0]
            with lib.Session() as sess:
                outs.append(sess.run([vals, idx, g]))
    for a, e in zip(*outs):
        np.testing.assert_array_equal(a, e)


ERRORS = [
    ("conv2d-bad-padding-list", lambda tf: tf.nn.conv2d(tf.zeros([1, 4, 4, 3]), tf.zeros([2, 2, 3, 1]), 1,
                                                        [[0, 0], [1, 1]]), ValueError),
    ("conv2d-depth", lambda tf: tf.nn.conv2d(tf.zeros([1, 4, 4, 3]), tf.zeros([2, 2, 2, 1]), 1, "SAME"), ValueError),
    ("conv2d-rank", lambda tf: tf.nn.conv2d(tf.zeros([4, 4, 3]), tf.zeros([2, 2, 3, 1]), 1, "SAME"), ValueError),
    ("conv2d-too-big", lambda tf: tf.nn.conv2d(tf.zeros([1, 2, 2, 3]), tf.zeros([3, 3, 3, 1]), 1, "VALID"),
     ValueError),
    ("strides-len", lambda tf: tf.nn.conv2d(tf.zeros([1, 4, 4, 3]), tf.zeros([2, 2, 3, 1]), [1, 1, 1], "SAME"),
     ValueError),
    ("fused-infer-no-mean", lambda tf: tf.nn.fused_batch_norm(tf.zeros([1, 2, 2, 3]), tf.ones([3]), None,
                                                              is_training=False), ValueError),
    ("top_k-too-big", lambda tf: tf.nn.top_k(tf.zeros([2, 3]), 4), ValueError),
    ("transpose-channels", lambda tf: tf.nn.conv2d_transpose(tf.zeros([1, 4, 4, 3]), tf.zeros([2, 2, 5, 2]),
                                                             [1, 4, 4, 5], 1), ValueError),
]


@pytest.mark.parametrize("rid,build,exc", ERRORS, ids=[e[0] for e in ERRORS])
def test_construction_errors_like_tf(rid, build, exc):
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (ref, tf):
        with lib.Graph().as_default():
            with pytest.raises(exc):
                build(lib)


def test_graph_def_round_trip_into_tf_and_ref():
    """List attrs (strides, ksize, explicit_paddings, dilations) survive
    as_graph_def: TF imports ref's GraphDef and computes the same values."""
    tf = pytest.importorskip("tensorflow").compat.v1
    with ref.Graph().as_default() as g:
        x = ref.placeholder(ref.float32, X.shape, name="x")
        y = ref.nn.conv2d(x, W, 1, [[0, 0], [1, 1], [2, 0], [0, 0]], dilations=[1, 1, 1, 1])
        y = ref.nn.max_pool(y, 2, 2, "SAME")
        y = ref.nn.avg_pool(y, 2, 1, "SAME")
        y = ref.nn.depthwise_conv2d(y, WD[:, :, :1, :].repeat(4, axis=2), [1, 1, 1, 1], "SAME")
        y = ref.nn.fused_batch_norm(y, ref.ones([8]), ref.zeros([8]))[0]
        y = ref.identity(ref.nn.top_k(ref.reshape(ref.nn.lrn(y), [2, -1]), 3)[0], name="out")
        gd = g.as_graph_def()
        with ref.Session() as sess:
            want = sess.run(y, {x: X})
    with ref.Graph().as_default():
        ref.import_graph_def(gd, name="")
        with ref.Session() as sess:
            np.testing.assert_array_equal(sess.run("out:0", {"x:0": X}), want)
    with tf.Graph().as_default():
        tf.import_graph_def(tf.GraphDef.FromString(gd.SerializeToString()), name="")
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run("out:0", {"x:0": X}), want, rtol=1e-5)
