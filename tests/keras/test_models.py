"""``tf.keras.Sequential`` and the functional ``tf.keras.Model`` against TF
(tf_keras, graph mode): the GraphDef node for node (construction, calls on
new tensors in the model's scope, the deferred build), the model's
structure (layer names, inputs, outputs, trainable variables, weights) and
``summary()``'s text."""
import os
import sys

import numpy as np
import pytest

import ref
from ref.keras import models as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1  # noqa: E402


def sequential_with_input_shape(tf):
    m = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                             tf.keras.layers.Dropout(0.2), tf.keras.layers.Dense(2, activation="softmax")])
    m(tf.placeholder(tf.float32, [None, 3], name="x"))
    return m


def sequential_deferred(tf):
    m = tf.keras.Sequential()
    m.add(tf.keras.layers.Conv2D(2, 3, activation="relu"))
    m.add(tf.keras.layers.Flatten())
    m.add(tf.keras.layers.Dense(3))
    m(tf.placeholder(tf.float32, [None, 5, 5, 1], name="x"))
    return m


def functional_two_branches(tf):
    inp = tf.keras.Input(shape=(4,), name="features")
    a = tf.keras.layers.Dense(3, activation="tanh")(inp)
    b = tf.keras.layers.Dense(3)(inp)
    merged = tf.keras.layers.concatenate([a, b])
    out = tf.keras.layers.Dense(1, activation="sigmoid", name="score")(tf.keras.layers.add([merged, merged]))
    m = tf.keras.Model(inputs=inp, outputs=out)
    m(tf.placeholder(tf.float32, [None, 4], name="x"))
    return m


def functional_batch_norm(tf):
    inp = tf.keras.layers.Input(shape=(6, 6, 2))
    y = tf.keras.layers.BatchNormalization()(tf.keras.layers.Conv2D(3, 3)(inp))
    y = tf.keras.layers.GlobalAveragePooling2D()(tf.keras.layers.ReLU()(y))
    return tf.keras.Model(inp, tf.keras.layers.Dense(2)(y))


def nested_sequential(tf):
    inner = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,))], name="inner")
    outer = tf.keras.Sequential([inner, tf.keras.layers.Dense(1)])
    outer(tf.placeholder(tf.float32, [None, 2], name="x"))
    return outer


ROWS = [sequential_with_input_shape, sequential_deferred, functional_two_branches, functional_batch_norm,
        nested_sequential]


@pytest.mark.parametrize("build", ROWS, ids=[f.__name__ for f in ROWS])
def test_same_graph_as_tf(build):
    assert_same_graph(build)


def _structure(tf, build):
    m = build(tf)
    lines = []
    m.summary(print_fn=lines.append)
    return ([la.name for la in m.layers], [t.name for t in m.inputs], [t.name for t in m.outputs],
            [v.name for v in m.trainable_variables], [v.name for v in m.weights],
            [v.name for v in m.non_trainable_weights], m.count_params(), lines, m.name)


@pytest.mark.parametrize("build", ROWS, ids=[f.__name__ for f in ROWS])
def test_structure_and_summary_match_tf(build):
    tf = tf_v1()
    with ref.Graph().as_default():
        got = _structure(ref, build)
    with tf1_behaviour(), tf.Graph().as_default():
        want = _structure(tf, build)
    assert got[:7] == want[:7]
    assert got[7] == want[7], "\n".join(got[7]) + "\n---\n" + "\n".join(want[7])
    assert got[8] == want[8]


def custom_layer_and_subclassed_model(tf):
    class Scale(tf.keras.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape):
            self.w = self.add_weight("w", shape=[int(input_shape[-1]), self.units], initializer="random_normal")
            self.b = self.add_weight("b", shape=[self.units], initializer="zeros", trainable=False)

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(3, activation="relu")
            self.scale = Scale(2)

        def call(self, inputs):
            return self.scale(self.hidden(inputs))

    net = Net()
    y = net(tf.placeholder(tf.float32, [None, 4], name="x"))
    return net, y


def test_custom_layer_and_subclassed_model_match_tf():
    tf = tf_v1()

    def snippet(lib):
        custom_layer_and_subclassed_model(lib)

    assert_same_graph(snippet)

    def values(lib):
        lib.set_random_seed(2)
        net, y = custom_layer_and_subclassed_model(lib)
        names = ([la.name for la in net.layers], [v.name for v in net.trainable_weights],
                 [v.name for v in net.non_trainable_weights], net.name)
        with lib.Session() as s:
            s.run(lib.global_variables_initializer())
            return names, s.run(y, {y.op.graph.get_tensor_by_name("x:0"): np.ones((2, 4), np.float32)})

    with ref.Graph().as_default():
        got = values(ref)
    with tf1_behaviour(), tf.Graph().as_default():
        want = values(tf)
    assert got[0] == want[0]
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


def sequential_built_explicitly(tf):
    m = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="relu"), tf.keras.layers.Dense(1)])
    m.build((None, 3))
    m(tf.placeholder(tf.float32, [None, 3], name="x"))
    return m


def test_explicit_build_matches_tf():
    assert_same_graph(sequential_built_explicitly)
