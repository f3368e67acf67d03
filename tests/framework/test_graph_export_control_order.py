"""A GraphDef lists a node's control inputs sorted by name after its data inputs (TF's
``Graph::ToGraphDef``); ``Operation.node_def`` keeps the order they were added in."""
import contextlib

import pytest

from ref.framework import graph_export as _under_test  # noqa: F401
import ref
from tests.graph_ops._graphdef import tf1_behaviour


def _deps_added_out_of_order(tf):
    a = tf.constant(1.0, name="zeta")
    b = tf.constant(2.0, name="alpha")
    c = tf.constant(3.0, name="mid/x")
    with tf.control_dependencies([a, b, c]):
        tf.identity(a, name="out")


def _group_of_updates(tf):
    v = tf.Variable(1.0, name="v")
    w = tf.Variable(2.0, name="w")
    tf.group(tf.assign(w, 3.0), tf.assign(v, 4.0), name="g")


def _adam_finish(tf):
    x = tf.Variable(tf.ones([3, 4]))
    tf.train.AdamOptimizer(0.1).minimize(tf.reduce_sum(x * x))


def _dense_gradients_tuples(tf):
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.layers.dense(x, 3, activation=tf.nn.relu)
    tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_mean(tf.square(y)))


def _added_later(tf):
    a = tf.constant(1.0, name="b_second")
    b = tf.constant(2.0, name="a_first")
    out = tf.identity(tf.constant(0.0, name="c"), name="out")
    out.op._add_control_input(a.op)
    out.op._add_control_input(b.op)


BUILDERS = [_deps_added_out_of_order, _group_of_updates, _adam_finish, _dense_gradients_tuples, _added_later]


def _inputs(lib, build):
    with (contextlib.nullcontext() if lib is ref else tf1_behaviour()), lib.Graph().as_default() as g:
        build(lib)
    return [(n.name, list(n.input)) for n in g.as_graph_def().node]


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_control_inputs_sorted_by_name(build):
    for name, inputs in _inputs(ref, build):
        controls = [i for i in inputs if i.startswith("^")]
        assert controls == sorted(controls), name
        assert inputs[len(inputs) - len(controls):] == controls, name  # after the data inputs


def test_node_def_keeps_the_order_added():
    with ref.Graph().as_default() as g:
        _added_later(ref)
    assert list(g.get_operation_by_name("out").node_def.input) == ["c", "^b_second", "^a_first"]
    assert [list(n.input) for n in g.as_graph_def().node if n.name == "out"] == [["c", "^a_first", "^b_second"]]
    with ref.Graph().as_default() as g:
        _deps_added_out_of_order(ref)
    assert [list(n.input) for n in g.as_graph_def().node if n.name == "out"] == [["zeta", "^alpha", "^mid/x"]]


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_inputs_as_tf(build):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _inputs(ref, build) == _inputs(tf, build)
