"""Values of ``tf.keras.layers`` against TF (tf_keras, graph mode): the same
snippet run under ref and under TF with one graph seed, so the initial
weights, the dropout masks and the layer outputs agree; plus the Keras
backend (session, weights, learning phase, updates) on one layer."""
import os
import sys

import numpy as np
import pytest

import ref
from ref.keras import backend as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import ref_and_tf_values, tf1_behaviour, tf_v1  # noqa: E402

RNG = np.random.RandomState(0)
X2 = RNG.randn(4, 3).astype(np.float32)
X4 = RNG.randn(2, 6, 6, 3).astype(np.float32)
X3 = RNG.randn(2, 7, 3).astype(np.float32)


def dense(tf):
    y = tf.keras.layers.Dense(4, activation="relu")(tf.constant(X2))
    return [y, tf.keras.layers.Dense(2, kernel_initializer="he_normal", activation="softmax")(y)]


def dense_rank3(tf):
    return tf.keras.layers.Dense(2, bias_initializer="ones")(tf.constant(X3))


def conv_stack(tf):
    y = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")(tf.constant(X4))
    y = tf.keras.layers.MaxPooling2D()(y)
    z = tf.keras.layers.Conv2DTranspose(2, 3, strides=2)(y)
    return [y, z, tf.keras.layers.GlobalAveragePooling2D()(y), tf.keras.layers.GlobalMaxPooling2D()(z),
            tf.keras.layers.Flatten()(tf.keras.layers.AveragePooling2D(2, 1)(y)),
            tf.keras.layers.ZeroPadding2D(((1, 0), (0, 2)))(y)]


def conv1d(tf):
    y = tf.keras.layers.Conv1D(3, 2, activation="tanh", kernel_initializer="lecun_uniform")(tf.constant(X3))
    return [y, tf.keras.layers.MaxPooling1D(2)(y)]


def dropout_training(tf):
    return tf.keras.layers.Dropout(0.5)(tf.constant(X4), training=True)


def batch_norm_training(tf):
    bn = tf.keras.layers.BatchNormalization(momentum=0.5)
    y = bn(tf.constant(X4), training=True)
    with tf.control_dependencies(bn.updates):
        return [y, tf.identity(bn.moving_mean), tf.identity(bn.moving_variance)]


def batch_norm_unfused_training(tf):
    bn = tf.keras.layers.BatchNormalization(momentum=0.5)
    y = bn(tf.constant(X2), training=True)
    with tf.control_dependencies(bn.updates):
        return [y, tf.identity(bn.moving_mean), tf.identity(bn.moving_variance)]


def batch_norm_inference(tf):
    return tf.keras.layers.BatchNormalization(beta_initializer="ones")(tf.constant(X4))


def misc(tf):
    x = tf.constant(X2)
    return [tf.keras.layers.LeakyReLU()(x), tf.keras.layers.ReLU()(x), tf.keras.layers.Activation("elu")(x),
            tf.keras.layers.Reshape((3, 1))(x), tf.keras.layers.Lambda(lambda t: t * 3.0)(x),
            tf.keras.layers.Concatenate()([x, x]), tf.keras.layers.add([x, x, x]),
            tf.keras.layers.Embedding(5, 2)(tf.constant([[0, 4], [2, 2]])),
            tf.keras.layers.RepeatVector(3)(x), tf.keras.layers.Permute((2, 1))(tf.constant(X3)),
            tf.keras.layers.GlobalAveragePooling1D()(tf.constant(X3)),
            tf.keras.layers.GlobalMaxPooling1D()(tf.constant(X3)),
            tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.RandomNormal(seed=3))(x),
            tf.keras.layers.Dense(2, kernel_initializer="truncated_normal")(x)]


def reshaping(tf):
    x = tf.constant(X4)
    return [tf.keras.layers.UpSampling2D((2, 3))(x), tf.keras.layers.UpSampling2D(interpolation="bilinear")(x),
            tf.keras.layers.UpSampling2D(data_format="channels_first")(x),
            tf.keras.layers.Cropping2D(((1, 2), (0, 3)))(x), tf.keras.layers.Cropping2D(1)(x),
            tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(4, activation="tanh"))(tf.constant(X3)),
            tf.keras.layers.TimeDistributed(tf.keras.layers.Conv2D(2, 3))(tf.reshape(x, [1, 2, 6, 6, 3]))]


def recurrent(tf):
    x = tf.constant(X3)
    out = [tf.keras.layers.SimpleRNN(4)(x), tf.keras.layers.SimpleRNN(3, return_sequences=True)(x),
           tf.keras.layers.LSTM(4)(x), tf.keras.layers.LSTM(2, return_sequences=True, return_state=True)(x),
           tf.keras.layers.GRU(3)(x), tf.keras.layers.GRU(2, return_sequences=True, go_backwards=True)(x)]
    return [t for o in out for t in (o if isinstance(o, list) else [o])]


def regularizer_losses(tf):
    layer = tf.keras.layers.Dense(3, kernel_regularizer=tf.keras.regularizers.l1_l2(0.1, 0.2),
                                  activity_regularizer="l2")
    layer(tf.constant(X2))
    return layer.losses


ROWS = [dense, dense_rank3, conv_stack, conv1d, dropout_training, batch_norm_training, batch_norm_unfused_training,
        batch_norm_inference, misc, reshaping, recurrent, regularizer_losses]


@pytest.mark.parametrize("snippet", ROWS, ids=[f.__name__ for f in ROWS])
def test_values_match_tf(snippet):
    got, want = ref_and_tf_values(snippet, seed=7)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-6)


def _recurrent_names(tf):
    x = tf.placeholder(tf.float32, [None, 5, 2])
    layers = [tf.keras.layers.SimpleRNN(3), tf.keras.layers.LSTM(3), tf.keras.layers.GRU(2, return_state=True),
              tf.keras.layers.LSTM(3, return_sequences=True)]
    outs = [layer(x) for layer in layers]
    return ([v.name for layer in layers for v in layer.weights],
            [[t.shape.as_list() for t in (o if isinstance(o, list) else [o])] for o in outs],
            [layer.name for layer in layers])


def test_recurrent_weight_names_and_shapes_match_tf():
    tf = tf_v1()
    with ref.Graph().as_default():
        got = _recurrent_names(ref)
    with tf1_behaviour(), tf.Graph().as_default():
        want = _recurrent_names(tf)
    assert got == want


def _backend_program(tf):
    """(outputs under learning phase 0 / 1, weights before and after set_weights, names)."""
    K = tf.keras.backend
    x = tf.placeholder(tf.float32, [None, 3])
    dense = tf.keras.layers.Dense(2, name="d")
    drop = tf.keras.layers.Dropout(0.9)
    y = drop(dense(x))
    sess = K.get_session()
    before = dense.get_weights()
    dense.set_weights([np.ones((3, 2), np.float32), np.array([1.0, -1.0], np.float32)])
    after = dense.get_weights()
    test = sess.run(y, {x: X2})
    train = sess.run(y, {x: X2, K.learning_phase(): True})
    names = [v.name for v in dense.trainable_weights] + [tf.keras.layers.Dense(1).name, drop.name]
    return before, after, test, train, names, K.floatx(), K.epsilon(), K.image_data_format()


def test_backend_session_weights_learning_phase():
    tf = tf_v1()
    with ref.Graph().as_default():
        ref.set_random_seed(1)
        got = _backend_program(ref)
    with tf1_behaviour(), tf.Graph().as_default():
        tf.set_random_seed(1)
        want = _backend_program(tf)
    for g, w in zip(got[0], want[0]):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-6)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-6)  # same seed: the same dropout mask
    assert got[4:] == want[4:]


def test_to_categorical_matches_tf():
    pytest.importorskip("tensorflow")
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    import tf_keras

    for y, n in (([0, 2, 1, 2], None), (np.array([[1], [3]]), 5), ([[0, 1], [1, 0]], 3)):
        want = tf_keras.utils.to_categorical(y, n)
        got = ref.keras.utils.to_categorical(y, n)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


INITIALIZERS = ["glorot_uniform", "glorot_normal", "he_normal", "he_uniform", "lecun_normal", "lecun_uniform",
                "random_normal", "random_uniform", "truncated_normal", "orthogonal", "ones", "zeros", "identity"]


@pytest.mark.parametrize("name", INITIALIZERS)
def test_initializer_by_name_matches_tf(name):
    def snippet(tf):
        shape = (3, 3)
        by_name = tf.keras.layers.Dense(3, kernel_initializer=name)
        by_name(tf.constant(X2[:, :3]))
        cls = {"random_normal": "RandomNormal", "random_uniform": "RandomUniform", "truncated_normal":
               "TruncatedNormal"}.get(name)
        out = [by_name.kernel]
        if cls:
            out.append(tf.keras.layers.Dense(3, kernel_initializer=getattr(tf.keras.initializers, cls)(seed=1))(
                tf.constant(np.ones(shape, np.float32))))
        return out

    got, want = ref_and_tf_values(snippet, seed=5)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)


ACTIVATIONS = ["relu", "sigmoid", "tanh", "softmax", "linear", "elu", "selu", "softplus", "softsign", "exponential",
               "hard_sigmoid", "swish"]


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_activation_by_name_matches_tf(name):
    def snippet(tf):
        x = tf.constant(X2 * 3.0)
        return [tf.keras.layers.Activation(name)(x), getattr(tf.keras.activations, name)(x)]

    got, want = ref_and_tf_values(snippet)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-7)


def _phase_program(tf):
    K = tf.keras.backend
    K.set_learning_phase(1)
    x = tf.constant(X4)
    y = tf.keras.layers.Dropout(0.5)(x)
    bn = tf.keras.layers.BatchNormalization()
    z = bn(x)
    graph = tf.get_default_graph()
    ops = [op.type for op in graph.get_operations()]
    sess = K.get_session()
    with tf.control_dependencies(bn.updates):
        mean = tf.identity(bn.moving_mean)
    values = sess.run([y, z, mean])
    K.set_learning_phase(0)
    return K.learning_phase(), "Switch" in ops, len(bn.updates), values


def test_fixed_learning_phase_matches_tf():
    tf = tf_v1()
    with ref.Graph().as_default():
        ref.set_random_seed(3)
        got = _phase_program(ref)
    with tf1_behaviour(), tf.Graph().as_default():
        tf.set_random_seed(3)
        want = _phase_program(tf)
    assert got[:3] == want[:3]
    for g, w in zip(got[3], want[3]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_clear_session_resets_names_and_graph():
    """TF's ``clear_session`` docstring: ten Dense layers, then ``dense_10``; after
    ``clear_session()`` a new default graph, and the next Dense is ``dense`` again."""
    K = ref.keras.backend
    K.clear_session()
    layers = [ref.keras.layers.Dense(10) for _ in range(10)]
    assert [la.name for la in layers][-1] == "dense_9"
    assert ref.keras.layers.Dense(10).name == "dense_10"
    graph = ref.get_default_graph()
    K.clear_session()
    assert ref.get_default_graph() is not graph
    assert ref.keras.layers.Dense(10).name == "dense"
    K.clear_session()


def _backend_functions(tf):
    K = tf.keras.backend
    x = tf.constant(X2)
    b = tf.constant(X2 > 0)
    v = K.variable(np.arange(6).reshape(3, 2), name="kv")
    f = K.function([x], [K.sum(x, 1)])
    return [K.mean(x, 0), K.mean(b), K.sum(x, keepdims=True), K.max(x, 1), K.min(x), K.square(x), K.sqrt(x),
            K.exp(x), K.log(K.abs(x)), K.clip(x, -0.5, 0.5), K.clip(x, 0.2, None), K.dot(x, v),
            K.dot(tf.constant(X3), tf.constant(X2[:3, :2])), K.concatenate([x, x]), K.reshape(x, (2, 6)),
            K.shape(x), K.cast(x, "float16"), K.constant(2, shape=(2,)), K.stop_gradient(x) * 2.0,
            tf.constant(f([X2 * 2.0])[0]), tf.constant(np.int32(K.ndim(x)))]


def test_backend_functions_match_tf():
    got, want = ref_and_tf_values(_backend_functions)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
