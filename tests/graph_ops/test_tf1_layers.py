"""tf.layers (ref/graph_ops/layers.py): TF1's variable names, scopes and
collections; initial weights bit-identical with the TF graph that TF1's
layers build (variable_scope + get_variable with the default glorot_uniform
initializer -- TF 2.21 ships no tf.compat.v1.layers under Keras 3); forward
values against the same ``tf.nn`` graph in TensorFlow; batch-norm moving
averages against their formula."""
import numpy as np
import pytest

import ref
from ref.graph_ops import layers as _under_test  # noqa: F401  (the module these tests cover)

RNG = np.random.default_rng(21)
X4 = RNG.uniform(-1, 1, (2, 6, 5, 3)).astype(np.float32)
X2 = RNG.uniform(-1, 1, (4, 3)).astype(np.float32)


def _names(variables):
    return [v.name for v in variables]


def test_variable_names_uniquified_and_collections():
    tf = ref
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        a = tf.layers.dense(x, 4)
        b = tf.layers.dense(a, 2, use_bias=False)
        c = tf.layers.dense(b, 2, name="fc")
        d = tf.layers.batch_normalization(c, training=True)
        e = tf.layers.conv2d(tf.placeholder(tf.float32, [None, 5, 5, 1]), 2, 3)
        assert _names(tf.global_variables()) == [
            "dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "fc/kernel:0", "fc/bias:0",
            "batch_normalization/gamma:0", "batch_normalization/beta:0", "batch_normalization/moving_mean:0",
            "batch_normalization/moving_variance:0", "conv2d/kernel:0", "conv2d/bias:0"]
        assert "batch_normalization/moving_mean:0" not in _names(tf.trainable_variables())
        assert len(tf.trainable_variables()) == 9
        assert [u.name for u in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == [  # Operations, as in TF
            "batch_normalization/AssignMovingAvg", "batch_normalization/AssignMovingAvg_1"]
        assert a.op.name == "dense/BiasAdd" and b.op.name == "dense_1/MatMul" and c.op.name == "fc/BiasAdd"
        assert e.op.name == "conv2d/BiasAdd" and e.shape.as_list() == [None, 3, 3, 2]
        assert d.shape.as_list() == [None, 2]


def test_reuse_shares_variables_and_name_conflicts_raise():
    tf = ref
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        y1 = tf.layers.dense(x, 4, name="shared")
        y2 = tf.layers.dense(x, 4, name="shared", reuse=True)
        assert len(tf.global_variables()) == 2
        with pytest.raises(ValueError, match="shared/kernel"):
            tf.layers.dense(x, 4, name="shared")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b = sess.run([y1, y2], {x: X2})
        np.testing.assert_array_equal(a, b)


def test_construction_errors():
    tf = ref
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="last dimension"):
            tf.layers.dense(tf.placeholder(tf.float32, [2, None]), 3)
        with pytest.raises(ValueError, match="padding"):
            tf.layers.conv2d(tf.zeros([1, 4, 4, 1]), 1, 2, padding="full")
        with pytest.raises(ValueError, match="data_format"):
            tf.layers.max_pooling2d(tf.zeros([1, 4, 4, 1]), 2, 2, data_format="NHWC")


def _tf_initial_weights(tf, shapes, seed):
    """TF1 layer weights: per layer, kernel by the scope's default (glorot_uniform), bias zeros."""
    with tf.Graph().as_default():
        tf.set_random_seed(seed)
        out = []
        for scope, kshape in shapes:
            with tf.variable_scope(scope):
                out.append(tf.get_variable("kernel", kshape))
                out.append(tf.get_variable("bias", kshape[-1:], initializer=tf.zeros_initializer()))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(out)


def test_initial_weights_bit_identical_with_tf():
    v1 = pytest.importorskip("tensorflow").compat.v1
    tf = ref
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        x = tf.placeholder(tf.float32, [None, 6, 5, 3])
        h = tf.layers.conv2d(x, 4, (3, 2))
        h = tf.layers.dense(tf.layers.flatten(h), 5)
        tf.layers.dense(h, 2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(tf.global_variables())
    want = _tf_initial_weights(v1, [("conv2d", [3, 2, 3, 4]), ("dense", [64, 5]), ("dense_1", [5, 2])], 7)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_forward_matches_tf_nn_graph():
    v1 = pytest.importorskip("tensorflow").compat.v1
    tf = ref
    with tf.Graph().as_default():
        x = tf.constant(X4)
        y = tf.layers.conv2d(x, 4, 3, strides=(1, 2), padding="same", activation=tf.nn.relu)
        y = tf.layers.max_pooling2d(y, 2, 1)
        y = tf.layers.average_pooling2d(y, (2, 2), (2, 1), padding="same")
        y = tf.layers.dense(tf.layers.flatten(y), 3, activation=tf.nn.tanh)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            weights = sess.run(tf.global_variables())
            got = sess.run(y)
    with v1.Graph().as_default():
        k1, b1, k2, b2 = (v1.constant(w) for w in weights)
        h = v1.nn.relu(v1.nn.bias_add(v1.nn.conv2d(v1.constant(X4), k1, [1, 1, 2, 1], "SAME"), b1))
        h = v1.nn.max_pool(h, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
        h = v1.nn.avg_pool(h, [1, 2, 2, 1], [1, 2, 1, 1], "SAME")
        h = v1.nn.tanh(v1.nn.bias_add(v1.matmul(v1.reshape(h, [2, -1]), k2), b2))
        with v1.Session() as sess:
            want = sess.run(h)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fused_input", [True, False], ids=["4d-fused", "2d-moments"])
def test_batch_normalization_training_and_moving_averages(fused_input):
    tf = ref
    x_val = X4 if fused_input else X2
    n = x_val.size // x_val.shape[-1]
    with tf.Graph().as_default():
        x = tf.constant(x_val)
        training = tf.placeholder_with_default(True, [])
        y = tf.layers.batch_normalization(x, momentum=0.9, epsilon=1e-3, training=training)
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        mm, mv = tf.global_variables()[2:4]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            y_train = sess.run(y)
            sess.run(updates)
            mean, var = sess.run([mm, mv])
            y_infer = sess.run(y, {training: False})
    axes = tuple(range(x_val.ndim - 1))
    m, v = x_val.mean(axes, dtype=np.float64), x_val.var(axes, dtype=np.float64)
    np.testing.assert_allclose(y_train, (x_val - m) / np.sqrt(v + 1e-3), rtol=1e-4, atol=1e-5)
    # fused: TF's FusedBatchNormV3 returns the Bessel-corrected variance; the moments path the biased one
    v_upd = v * n / (n - 1) if fused_input else v
    np.testing.assert_allclose(mean, 0.1 * m, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(var, 0.9 + 0.1 * v_upd, rtol=1e-5)
    np.testing.assert_allclose(y_infer, (x_val - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-5)


def test_batch_normalization_inference_has_no_updates_channels_first():
    tf = ref
    with tf.Graph().as_default():
        x = tf.constant(X4.transpose(0, 3, 1, 2).copy())
        y = tf.layers.batch_normalization(x, axis=1, training=False, beta_initializer=tf.constant_initializer(0.5))
        assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(y)
    np.testing.assert_allclose(got, X4.transpose(0, 3, 1, 2) / np.sqrt(1 + 1e-3) + 0.5, rtol=1e-6, atol=1e-7)


def test_dropout_layer_is_tf_dropout_bit_for_bit():
    v1 = pytest.importorskip("tensorflow").compat.v1
    x_val = RNG.uniform(0.5, 1.5, (20, 30)).astype(np.float32)
    with ref.Graph().as_default():
        ref.set_random_seed(4)
        x = ref.constant(x_val)
        train = ref.layers.dropout(x, rate=0.4, training=True)
        keep = ref.layers.dropout(x, rate=0.4)  # training=False: identity
        with ref.Session() as sess:
            got, same = sess.run([train, keep])
    with v1.Graph().as_default():
        v1.set_random_seed(4)
        want = v1.nn.dropout(v1.constant(x_val), rate=0.4)
        with v1.Session() as sess:
            want = sess.run(want)
    np.testing.assert_array_equal(same, x_val)
    np.testing.assert_array_equal(got, want)


def test_dense_rank3_contracts_last_axis():
    tf = ref
    x_val = RNG.uniform(-1, 1, (2, 5, 3)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5, 3])
        y = tf.layers.dense(x, 4, activation=tf.nn.relu, bias_initializer=tf.constant_initializer(0.25))
        assert y.shape.as_list() == [None, 5, 4]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got, kernel = sess.run([y, tf.global_variables()[0]], {x: x_val})
    np.testing.assert_allclose(got, np.maximum(x_val @ kernel + 0.25, 0), rtol=1e-6, atol=1e-7)


def test_layer_objects_share_their_variables():
    tf = ref
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        dense = tf.layers.Dense(3, activation=tf.nn.relu, name="shared_fc")
        y1, y2 = dense(x), dense(x)
        other = tf.layers.Dense(2)
        z = other(y1)
        bn = tf.layers.BatchNormalization(momentum=0.5)
        out = bn(z, training=True)
        pooled = tf.layers.MaxPooling2D(2, 2)(tf.zeros([1, 4, 4, 1]))
        dropped = tf.layers.Dropout(0.5)(out)  # training=False: identity
        assert dense.name == "shared_fc" and other.name == "dense" and bn.name == "batch_normalization"
        assert _names(dense.variables) == ["shared_fc/kernel:0", "shared_fc/bias:0"]
        assert _names(bn.trainable_variables) == ["batch_normalization/gamma:0", "batch_normalization/beta:0"]
        assert _names(bn.non_trainable_variables) == ["batch_normalization/moving_mean:0",
                                                      "batch_normalization/moving_variance:0"]
        assert [u.name for u in bn.updates] == ["batch_normalization/AssignMovingAvg",
                                                   "batch_normalization/AssignMovingAvg_1"]
        assert len(tf.global_variables()) == 8 and pooled.shape.as_list() == [1, 2, 2, 1]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            a, b, c, d = sess.run([y1, y2, out, dropped], {x: X2})
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(c, d)


@pytest.mark.parametrize("strides, padding, placeholder_shape", [
    ((2, 2), "same", [2, 6, 5, 3]),
    ((2, 1), "valid", [2, 6, 5, 3]),
    ((3, 2), "valid", [None, None, None, 3]),
    ((1, 1), "same", [None, 6, None, 3]),
])
def test_conv2d_transpose_matches_tf_nn_graph(strides, padding, placeholder_shape):
    """Kernel [kh, kw, filters, in_channels] with TF's initial values; output
    size in * stride (+ max(k - stride, 0) for "valid"); forward as TF's
    conv2d_transpose + bias_add."""
    v1 = pytest.importorskip("tensorflow").compat.v1
    tf = ref
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, placeholder_shape)
        layer = tf.layers.Conv2DTranspose(4, (3, 2), strides=strides, padding=padding, activation=tf.nn.relu)
        y = layer(x)
        assert [v.name for v in layer.variables] == ["conv2d_transpose/kernel:0", "conv2d_transpose/bias:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(layer.variables[1], [0.1, -0.2, 0.3, 0.0]))
            weights = sess.run(layer.variables)
            got = sess.run(y, {x: X4})
    out_h = 6 * strides[0] + (max(3 - strides[0], 0) if padding == "valid" else 0)
    out_w = 5 * strides[1] + (max(2 - strides[1], 0) if padding == "valid" else 0)
    static = [placeholder_shape[0], out_h if placeholder_shape[1] else None,
              out_w if placeholder_shape[2] else None, 4]
    assert y.shape.as_list() == static
    assert got.shape == (2, out_h, out_w, 4)
    np.testing.assert_array_equal(weights[0], _tf_initial_weights(v1, [("conv2d_transpose", [3, 2, 4, 3])], 3)[0])
    with v1.Graph().as_default():
        k, b = (v1.constant(w) for w in weights)
        h = v1.nn.conv2d_transpose(v1.constant(X4), k, [2, out_h, out_w, 4], [1, *strides, 1], padding.upper())
        with v1.Session() as sess:
            want = sess.run(v1.nn.relu(v1.nn.bias_add(h, b)))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
