"""TF 2's graph ``constant`` (``op_def_library.constant_v2``: one value fills
the shape, an equal count is reshaped, any other count is TF's TypeError)
beside TF1's (``constant_v1``: pads with the last value); a GraphDef from
producer 21 or older reads a Placeholder's ``{}`` shape as any shape; and
``TensorShape._v2_behavior``. TensorFlow's ``constant_op`` and
``import_graph_def`` are the oracle."""
import numpy as np
import pytest

import ref
from ref.framework import op_def_library as _under_test  # noqa: F401
from tests.graph_ops._graphdef import tf1_behaviour

ROWS = [  # (value, dtype, shape)
    ([1, 2, 3, 4, 5, 6, 7], None, [10]),
    ([1, 2, 3, 4, 5, 6, 7], None, [5]),
    ([1, 2, 3, 4, 5, 6], None, [2, 3]),
    ([7], None, [10]),
    (3, "float32", [2, 2]),
    ([[1.0, 2.0]], None, [2]),
    ([], "int32", [0]),
    ([1, 2], None, [1, 2]),
]


def _outcome(make, value, dtype, shape, lib):
    with lib.Graph().as_default():
        try:
            c = make(value, dtype=dtype, shape=shape)
        except (TypeError, ValueError) as e:
            return type(e).__name__, str(e)
        with lib.Session() as sess:
            out = sess.run(c)
        return c.shape.as_list(), c.dtype.name, out.tolist()


@pytest.mark.parametrize("version", ["constant", "constant_v1"])
@pytest.mark.parametrize("value,dtype,shape", ROWS)
def test_constant_as_tf(version, value, dtype, shape):
    pytest.importorskip("tensorflow")
    import tensorflow as tf
    from tensorflow.python.framework import constant_op
    with tf1_behaviour():
        want = _outcome(getattr(constant_op, version), value, dtype, shape, tf.compat.v1)
    mine = {"constant": _under_test.constant_v2, "constant_v1": _under_test.constant_v1}[version]
    assert _outcome(mine, value, dtype, shape, ref) == want


_OLD_GRAPH = """
node { name: "Placeholder" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { } } } }
node { name: "add/y" op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1.0 } } } }
node { name: "add" op: "AddV2" input: "Placeholder" input: "add/y"
  attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: %d }
"""


def _import(lib, graph_pb2, producer):
    from google.protobuf import text_format
    gdef = text_format.Parse(_OLD_GRAPH % producer, graph_pb2.GraphDef())
    with lib.Graph().as_default():
        p, out = lib.import_graph_def(gdef, return_elements=["Placeholder:0", "add:0"])
        shapes = (p.shape.ndims, out.shape.ndims, p.op.get_attr("dtype").name)
        with lib.Session() as sess:
            try:
                return shapes, sess.run(out, {p: np.array([1.0, 2.0], np.float32)}).tolist()
            except ValueError:
                return shapes, "ValueError"


@pytest.mark.parametrize("producer", [21, 22, 8])
def test_old_placeholder_shape_as_tf(producer):
    tf = pytest.importorskip("tensorflow")
    from tensorflow.core.framework import graph_pb2 as tf_graph_pb2
    from ref import protos
    with tf1_behaviour():
        want = _import(tf.compat.v1, tf_graph_pb2, producer)
    assert _import(ref, protos.graph_pb2, producer) == want


def test_tensor_shape_v2_behavior_as_tf():
    tf = pytest.importorskip("tensorflow")
    with tf1_behaviour():
        want = tf.TensorShape([1])._v2_behavior
    assert ref.TensorShape([1])._v2_behavior == want is False
