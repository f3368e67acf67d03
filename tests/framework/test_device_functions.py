"""Device functions see the op about to be created as TF's do: ``op.node_def``
(its ``op``, ``name``, ``device``), ``op.type``, ``op.device``; the devices the
ops end with compared with TF's (``tensorflow.compat.v1`` graphs)."""
import pytest

import ref
from ref.framework import graph as _under_test  # noqa: F401


def _pin_variables_to_cpu(op):
    if op.device:
        return op.device
    return "/cpu:0" if op.node_def.op in ("Variable", "VariableV2") else op.device


def _by_node_def_name(op):
    return "/job:ps" if op.node_def.name.startswith("w") else ""


def _gpu_for_matmul(op):
    return "/device:GPU:0" if op.type == "MatMul" else op.device


def _variables(tf, fn):
    g = tf.get_default_graph()
    tf.Variable(1.0, name="a")
    with g.device(fn):
        tf.Variable(2.0, name="b")
        with g.device("/job:worker"):
            tf.Variable(3.0, name="c")
    tf.constant(1.0, name="d")


def _nested(tf, fn):
    g = tf.get_default_graph()
    with g.device("/job:worker/task:1"):
        with g.device(fn):
            w = tf.constant([[1.0]], name="w")
            tf.matmul(w, w, name="mm")
            tf.constant(2.0, name="x")


ROWS = [
    ("pin_variables", _variables, _pin_variables_to_cpu),
    ("node_def_name", _nested, _by_node_def_name),
    ("op_type", _nested, _gpu_for_matmul),
    ("pin_nested", _nested, _pin_variables_to_cpu),
]


def _devices(lib, build, fn):
    with lib.Graph().as_default() as g:
        build(lib, fn)
        return {op.name: op.device for op in g.get_operations()}


@pytest.mark.parametrize("case,build,fn", ROWS, ids=[r[0] for r in ROWS])
def test_device_functions_as_tf(case, build, fn):
    tf = pytest.importorskip("tensorflow").compat.v1
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "graph_ops"))
    from _graphdef import tf1_behaviour
    with tf1_behaviour():
        want = _devices(tf, build, fn)
    assert _devices(ref, build, fn) == want
