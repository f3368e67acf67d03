"""``Model.save_weights`` / ``load_weights`` (TF's object-based checkpoint
format) against TF (tf_keras, graph mode): the same keys and object graph as
TF writes for the same trained model, and checkpoints read across: ref's by
TF, TF's by ref, giving the same weights (optimizer slots included)."""
import os
import sys

import numpy as np
import pytest

import ref
from ref.keras import saving as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "graph_ops"))
from _graphdef import tf1_behaviour, tf_v1  # noqa: E402

X = np.random.RandomState(1).randn(12, 3).astype(np.float32)
Y = np.random.RandomState(2).randn(12, 1).astype(np.float32)


def sequential(tf):
    return tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                tf.keras.layers.Dropout(0.1), tf.keras.layers.Dense(1)])


def functional_bn(tf):
    inp = tf.keras.Input(shape=(3,))
    h = tf.keras.layers.BatchNormalization()(tf.keras.layers.Dense(4, use_bias=False)(inp))
    return tf.keras.Model(inp, tf.keras.layers.Dense(1)(h))


ROWS = [(sequential, "adam"), (sequential, "sgd"), (functional_bn, "rmsprop"), (functional_bn, None)]


def _trained(tf, build, optimizer, path):
    tf.set_random_seed(4)
    model = build(tf)
    if optimizer:
        model.compile(optimizer, "mse")
        np.random.seed(0)
        model.fit(X, Y, batch_size=4, epochs=2, verbose=0)
    model.save_weights(path)
    return model.get_weights()


def _object_graph(path):
    tf = tf_v1()
    from tensorflow.core.protobuf import trackable_object_graph_pb2

    reader = tf.train.load_checkpoint(path)
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(reader.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    nodes = [([(c.local_name, c.node_id) for c in n.children], [a.checkpoint_key for a in n.attributes],
              [(s.original_variable_node_id, s.slot_name, s.slot_variable_node_id) for s in n.slot_variables])
             for n in graph.nodes]
    return sorted(reader.get_variable_to_shape_map().items()), nodes


def _loaded(tf, build, optimizer, path):
    model = build(tf)
    if optimizer:
        model.compile(optimizer, "mse")
    model.load_weights(path)
    return model.get_weights(), model.predict(X)


@pytest.mark.parametrize("build,optimizer", ROWS, ids=[f"{b.__name__}-{o}" for b, o in ROWS])
def test_checkpoints_match_and_cross_load(tmp_path, build, optimizer):
    tf = tf_v1()
    with ref.Graph().as_default():
        ref_weights = _trained(ref, build, optimizer, str(tmp_path / "ref" / "w"))
    with tf1_behaviour(), tf.Graph().as_default():
        tf_weights = _trained(tf, build, optimizer, str(tmp_path / "tf" / "w"))
    for a, b in zip(ref_weights, tf_weights):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert _object_graph(str(tmp_path / "ref" / "w")) == _object_graph(str(tmp_path / "tf" / "w"))
    with tf1_behaviour(), tf.Graph().as_default():
        by_tf = _loaded(tf, build, None, str(tmp_path / "ref" / "w"))
    with ref.Graph().as_default():
        by_ref = _loaded(ref, build, None, str(tmp_path / "tf"))  # a directory: its latest checkpoint
    for a, b in zip(by_tf[0], ref_weights):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(by_ref[0], tf_weights):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(by_ref[1], by_tf[1], rtol=1e-5, atol=1e-6)
