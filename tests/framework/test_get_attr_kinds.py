"""``Operation.get_attr`` gives each attr kind in TF's Python type: a string
(``s``) as bytes, a list of strings as a list of bytes, ints/floats/bools and
their lists as Python values, a type as a DType. TensorFlow's ``get_attr`` on
the same v1 graph is the oracle. (``shape``, ``tensor`` and ``func`` attrs: TF
gives protos, ref its own TensorShape / array / function graph -- not checked.)"""
import pytest

import ref
from ref.framework import graph as _under_test  # noqa: F401
from tests.graph_ops._graphdef import tf1_behaviour


def _build(lib):
    v = lib.Variable(1.0, name="v", use_resource=False)
    with lib.colocate_with(v.op):
        c = lib.constant(1.0, name="c")
    with lib.container("box"):
        w = lib.Variable(2.0, name="w", use_resource=False)
    x = lib.placeholder(lib.float32, [1, 4, 4, 1])
    conv = lib.nn.conv2d(x, lib.ones([2, 2, 1, 1]), [1, 1, 1, 1], "SAME")
    pool = lib.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", data_format="NHWC")
    lrelu = lib.nn.leaky_relu(x, alpha=0.5)
    return {"v": v.op, "c": c.op, "w": w.op, "conv": conv.op, "pool": pool.op, "lrelu": lrelu.op,
            "concat": lib.concat([x, x], 0).op}


ROWS = [  # (op, attr, kind)
    ("v", "container", "s"), ("w", "container", "s"), ("v", "shared_name", "s"),
    ("conv", "padding", "s"), ("conv", "data_format", "s"), ("pool", "padding", "s"),
    ("c", "_class", "list(s)"),
    ("conv", "strides", "list(int)"), ("conv", "explicit_paddings", "list(int)"), ("pool", "ksize", "list(int)"),
    ("conv", "use_cudnn_on_gpu", "bool"), ("lrelu", "alpha", "float"), ("concat", "N", "int"),
    ("v", "dtype", "type"), ("conv", "T", "type"),
]


def _value(op, attr):
    got = op.get_attr(attr)
    if isinstance(got, list):
        return "list", [type(x).__name__ for x in got], got
    if hasattr(got, "as_datatype_enum"):  # a DType
        return "DType", got.name
    return type(got).__name__, got


@pytest.mark.parametrize("op,attr,kind", ROWS)
def test_get_attr_kind_as_tf(op, attr, kind):
    tf = pytest.importorskip("tensorflow")
    with tf1_behaviour(), tf.Graph().as_default():
        want = _value(_build(tf.compat.v1)[op], attr)
    with ref.Graph().as_default():
        got = _value(_build(ref)[op], attr)
    assert got == want


def test_missing_attr_is_value_error():
    with ref.Graph().as_default():
        op = ref.constant(1.0).op
        with pytest.raises(ValueError, match="has no attr named 'nope'"):
            op.get_attr("nope")
