"""The ops a gradient rule builds record the forward op as their ``_original_op``
(TF's gradients_util builds each rule under ``graph._original_op(op)``); which
gradient op points at which forward op is compared with TF's."""
import pytest

import ref
from ref.grad import gradients as _under_test  # noqa: F401


def _matmul_bias(tf):
    inp = tf.constant(1.0, shape=[4, 5], name="in")
    w = tf.constant(1.0, shape=[5, 3], name="w")
    h = tf.nn.bias_add(tf.matmul(inp, w, name="xw"), tf.constant(1.0, shape=[3], name="b"), name="h")
    return tf.gradients(h, [w, inp])


def _chain(tf):
    x = tf.constant([1.0, 2.0], name="x")
    y = tf.square(tf.sin(x, name="s"), name="sq")
    return tf.gradients(tf.reduce_sum(y, name="total"), x)


ROWS = [("matmul_bias", _matmul_bias), ("chain", _chain)]


def _origins(lib, build):
    with lib.Graph().as_default() as g:
        build(lib)
        return {op.name: (op._original_op.name if op._original_op is not None else None)
                for op in g.get_operations() if op.name.startswith("gradients/")}


@pytest.mark.parametrize("case,build", ROWS, ids=[r[0] for r in ROWS])
def test_gradient_ops_original_op_as_tf(case, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "graph_ops"))
    from _graphdef import tf1_behaviour
    with tf1_behaviour():
        want = _origins(tf, build)
    assert _origins(ref, build) == want
