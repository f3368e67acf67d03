"""importer.import_nodes with inputs outside the GraphDef (how a master imports the
nodes of ExtendSession): data inputs and control inputs ("^x") through input_map."""
import pytest

import ref as tf
from ref.framework import importer


def test_control_and_data_inputs_to_existing_ops():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant([1.0, 2.0], name="a")
        b = tf.multiply(a, 3.0, name="b")
        src = tf.Graph()
        with src.as_default():
            pa = tf.placeholder(tf.float32, [2], name="a")
            pb = tf.placeholder(tf.float32, [2], name="b")
            with tf.control_dependencies([pb.op]):
                tf.add(pa, pa, name="c")
        nodes = [n for n in src.as_graph_def().node if n.name == "c"]
        assert "^b" in nodes[0].input
        created = importer.import_nodes(g, nodes, {"a:0": a, "^b": b.op}, {}, "")
    c = created["c"]
    assert c.inputs[0] is a and [op.name for op in c.control_inputs] == ["b"]
    with tf.Session(graph=g) as s:
        assert s.run(c.outputs[0]).tolist() == [2.0, 4.0]


def test_a_control_input_naming_nothing_is_still_an_error():
    g = tf.Graph()
    src = tf.Graph()
    with src.as_default():
        x = tf.constant(1.0, name="x")
        with tf.control_dependencies([x.op]):
            tf.constant(2.0, name="y")
    nodes = [n for n in src.as_graph_def().node if n.name == "y"]
    with g.as_default(), pytest.raises(ValueError, match="Unknown input node '\\^x'"):
        importer.import_nodes(g, nodes, {}, {}, "")
