"""GraphDefs TensorFlow writes with ``tf.cond`` (a functional ``If`` whose branches are
FunctionDefs in TF's encoding: arguments are no nodes, tensors are "node:output_arg:index")
import into ref and run to TF's values: what a TF client sends a ref master."""
import numpy as np
import pytest

import ref
from ref.framework import graph_export as _under_test  # noqa: F401  (the module these tests cover)


def _tf_graph(build):
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default() as g:
        feeds, fetches = build(tf)
        init = tf.global_variables_initializer()
        with tf.Session() as s:
            s.run(init)
            want = [s.run(fetches, {feeds: v}) for v in (True, False)]
        return g.as_graph_def().SerializeToString(), feeds.name, [t.name for t in fetches], init.name, want


def _two_outputs(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.constant([1.0, 2.0])
    a, b = tf.cond(p, lambda: (x * 2.0, tf.reduce_sum(x)), lambda: (x - 1.0, tf.reduce_prod(x)))
    return p, [a, b]


def _reads_a_variable(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    v = tf.get_variable("v", initializer=[3.0, -1.0], use_resource=True)
    out = tf.cond(p, lambda: v.read_value() + 1.0, lambda: tf.zeros([2]))
    return p, [out, tf.identity(out, name="after")]


def _nested(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.constant(5, name="x")
    out = tf.cond(p, lambda: tf.cond(tf.greater(x, 3), lambda: x * 10, lambda: x), lambda: -x)
    return p, [out]


@pytest.mark.parametrize("build", [_two_outputs, _reads_a_variable, _nested])
def test_tf_cond_imports_and_runs_to_tfs_values(build):
    from ref.protos import graph_pb2
    data, feed, fetches, init, want = _tf_graph(build)
    gd = graph_pb2.GraphDef.FromString(data)
    assert any(n.op in ("If", "StatelessIf") for n in gd.node)
    with ref.Graph().as_default(), ref.Session() as s:
        ref.import_graph_def(gd, name="")
        s.run(init)
        for value, expected in zip((True, False), want):
            got = s.run(fetches, {feed: value})
            for g, w in zip(got, expected):
                np.testing.assert_array_equal(g, w)
