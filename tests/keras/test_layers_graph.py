"""GraphDef identity of ``tf.keras.layers`` called on TF1 tensors: each row
builds one snippet under ref and under TF 2.21's ``tf.compat.v1`` with
tf_keras (Keras 2, v2 behaviour off) and compares the GraphDefs node for node
(names, ops, attrs, inputs, creation order: ``tests/graph_ops/_graphdef.py``)."""
import os
import sys

import pytest

from ref.keras import layers as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import assert_same_graph  # noqa: E402


def _x(tf, shape=(None, 3), name="x", dtype=None):
    return tf.placeholder(dtype or tf.float32, list(shape), name=name)


def dense_stack(tf):
    x = _x(tf)
    y = tf.keras.layers.Dense(4, activation="relu")(x)
    tf.keras.layers.Dense(2, use_bias=False, kernel_initializer="he_normal")(y)
    tf.keras.layers.Dense(2, name="head", activation=tf.nn.softmax)(y)


def dense_rank3(tf):
    tf.keras.layers.Dense(5, activation="tanh")(_x(tf, (2, 4, 3)))


def dense_called_twice(tf):
    layer = tf.keras.layers.Dense(3)
    layer(_x(tf))
    layer(_x(tf, name="x2"))
    tf.keras.layers.Dense(3)(_x(tf, name="x3"))


def conv_pool(tf):
    x = _x(tf, (None, 8, 8, 3))
    y = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")(x)
    y = tf.keras.layers.MaxPooling2D()(y)
    y = tf.keras.layers.AveragePooling2D(2, 1, padding="same")(y)
    tf.keras.layers.GlobalAveragePooling2D()(y)
    tf.keras.layers.GlobalMaxPooling2D()(y)
    tf.keras.layers.Flatten()(y)


def conv1d_pool1d(tf):
    x = _x(tf, (2, 10, 3))
    y = tf.keras.layers.Conv1D(4, 3, strides=2, activation="relu")(x)
    tf.keras.layers.MaxPooling1D(2)(y)


def conv_transpose(tf):
    x = _x(tf, (None, 5, 5, 3))
    tf.keras.layers.Conv2DTranspose(2, 3, strides=2, padding="same")(x)
    tf.keras.layers.Conv2DTranspose(2, (3, 2))(x)


def zero_padding(tf):
    x = _x(tf, (2, 4, 4, 3))
    tf.keras.layers.ZeroPadding2D()(x)
    tf.keras.layers.ZeroPadding2D(((1, 0), (2, 3)))(x)


def dropout_learning_phase(tf):
    x = _x(tf)
    tf.keras.layers.Dropout(0.5)(x)
    tf.keras.layers.Dropout(0.3)(x, training=True)
    tf.keras.layers.Dropout(0.3)(x, training=False)


def batch_norm_fused(tf):
    tf.keras.layers.BatchNormalization()(_x(tf, (2, 4, 4, 3)))


def batch_norm_fused_training(tf):
    tf.keras.layers.BatchNormalization(momentum=0.9)(_x(tf, (2, 4, 4, 3)), training=True)


def batch_norm_unfused(tf):
    tf.keras.layers.BatchNormalization()(_x(tf, (4, 3)))
    tf.keras.layers.BatchNormalization(axis=1)(_x(tf, (4, 3), name="y"), training=True)


def activations_reshape(tf):
    x = _x(tf, (None, 6))
    tf.keras.layers.Activation("sigmoid")(x)
    tf.keras.layers.LeakyReLU()(x)
    tf.keras.layers.LeakyReLU(0.1)(x)
    tf.keras.layers.ReLU()(x)
    tf.keras.layers.Reshape((2, 3))(x)
    tf.keras.layers.Reshape((-1, 2))(x)
    tf.keras.layers.Lambda(lambda t: t * 2.0)(x)


def embedding(tf):
    ids = tf.placeholder(tf.int32, [None, 5], name="ids")
    tf.keras.layers.Embedding(10, 4)(ids)
    tf.keras.layers.Embedding(10, 2)(tf.placeholder(tf.float32, [None, 5], name="fids"))


def merges(tf):
    a, b = _x(tf, name="a"), _x(tf, name="b")
    tf.keras.layers.Concatenate()([a, b])
    tf.keras.layers.concatenate([a, b], axis=0)
    tf.keras.layers.Add()([a, b, a])
    tf.keras.layers.add([a, b])


def regularized(tf):
    layer = tf.keras.layers.Dense(2, kernel_regularizer=tf.keras.regularizers.l2(0.01),
                                  bias_regularizer=tf.keras.regularizers.l1_l2(0.1, 0.2),
                                  activity_regularizer=tf.keras.regularizers.l1(0.01))
    layer(_x(tf))
    layer.losses


def input_layer(tf):
    inp = tf.keras.layers.Input(shape=(3,))
    tf.keras.layers.Dense(2)(inp)
    tf.keras.Input(shape=(4, 4, 1), name="img")


def sequence_layers(tf):
    x = _x(tf, (None, 5, 3))
    tf.keras.layers.GlobalAveragePooling1D()(x)
    tf.keras.layers.GlobalMaxPooling1D(keepdims=True)(x)
    tf.keras.layers.Permute((2, 1))(x)
    tf.keras.layers.RepeatVector(4)(_x(tf, (None, 3), name="v"))


def upsampling_cropping(tf):
    x = _x(tf, (None, 4, 5, 3))
    tf.keras.layers.UpSampling2D((2, 3))(x)
    tf.keras.layers.UpSampling2D(interpolation="bilinear")(_x(tf, (2, None, None, 3), name="u"))
    tf.keras.layers.UpSampling2D(data_format="channels_first")(x)
    tf.keras.layers.Cropping2D(((1, 0), (2, 1)))(x)
    tf.keras.layers.Cropping2D(1)(x)
    tf.keras.layers.Cropping2D(((0, 1), (1, 0)))(x)
    tf.keras.layers.Cropping2D(((1, 1), (0, 0)), data_format="channels_first")(x)


def time_distributed(tf):
    tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2))(_x(tf, (None, 6, 3)))
    tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(4, activation="relu"))(_x(tf, (None, None, 3), name="v"))
    tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(3))(_x(tf, (None, 2, 4, 3), name="w"))


def simple_rnn(tf):
    x = _x(tf, (None, 4, 3))
    tf.keras.layers.SimpleRNN(2)(x)
    tf.keras.layers.SimpleRNN(3, activation="relu", return_sequences=True, go_backwards=True)(x)


def lstm(tf):
    x = _x(tf, (2, 5, 3))
    tf.keras.layers.LSTM(2)(x)
    tf.keras.layers.LSTM(3, return_sequences=True, return_state=True, use_bias=False)(x)


def gru(tf):
    x = _x(tf, (None, None, 3))
    tf.keras.layers.GRU(2, go_backwards=True)(x)
    tf.keras.layers.GRU(3, return_state=True, recurrent_activation="sigmoid")(x)


def stacked_recurrent(tf):
    x = _x(tf, (None, 4, 3))
    h = tf.keras.layers.LSTM(4, return_sequences=True)(x)
    h = tf.keras.layers.GRU(3, return_sequences=True)(h)
    tf.keras.layers.SimpleRNN(2)(h)


def recurrent_dropout(tf):
    x = _x(tf, (None, 4, 3))
    tf.keras.layers.SimpleRNN(2, dropout=0.5, recurrent_dropout=0.25)(x)
    tf.keras.layers.LSTM(2, dropout=0.2)(x)
    tf.keras.layers.GRU(2, recurrent_dropout=0.4)(x, training=True)
    tf.keras.layers.LSTM(2, dropout=0.3, recurrent_dropout=0.3, return_sequences=True)(x, training=False)


def masking_into_rnn(tf):
    m = tf.keras.layers.Masking(-1.0)(_x(tf, (None, 4, 3)))
    h = tf.keras.layers.LSTM(2, return_sequences=True)(m)
    tf.keras.layers.GRU(2, go_backwards=True, dropout=0.2)(h)


def embedding_mask_into_rnn(tf):
    ids = tf.placeholder(tf.int32, [None, 4], name="ids")
    e = tf.keras.layers.Embedding(5, 3, mask_zero=True)(ids)
    h = tf.keras.layers.SimpleRNN(2, return_sequences=True, return_state=True)(e)
    d = tf.keras.layers.Dense(2)(h[0])  # (Dense carries the mask on)
    tf.keras.layers.LSTM(3, recurrent_dropout=0.3)(d)


ROWS = [simple_rnn, lstm, gru, stacked_recurrent, recurrent_dropout, masking_into_rnn, embedding_mask_into_rnn, upsampling_cropping, time_distributed, sequence_layers, dense_stack, dense_rank3, dense_called_twice, conv_pool, conv1d_pool1d, conv_transpose, zero_padding,
        dropout_learning_phase, batch_norm_fused, batch_norm_fused_training, batch_norm_unfused,
        activations_reshape, embedding, merges, regularized, input_layer]


@pytest.mark.parametrize("snippet", ROWS, ids=[f.__name__ for f in ROWS])
def test_same_graph_as_tf(snippet):
    assert_same_graph(snippet)
