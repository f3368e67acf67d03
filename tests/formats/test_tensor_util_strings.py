"""String tensors packed into ``tensor_content`` (as TF's C++ runtime writes
several strings: varint lengths, then the bytes) read back as TF reads them."""
import numpy as np
import pytest

from ref.formats.tensor_util import make_ndarray
from ref.protos import tensor_pb2


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _packed(strings, shape=None):
    p = tensor_pb2.TensorProto(dtype=7)  # DT_STRING
    for d in (shape or [len(strings)]):
        p.tensor_shape.dim.add().size = d
    p.tensor_content = b"".join(_varint(len(s)) for s in strings) + b"".join(strings)
    return p


STRINGS = {
    "names": [b"b", b"a/Min/Variable", b""],
    "long": [b"x" * 200, b"y" * 128, b"z"],
    "utf8_and_nul": ["\u00e9t\u00e9".encode(), b"\x00\x01", b""],
    "matrix": [b"a", b"bb", b"ccc", b"dddd"],
}


@pytest.mark.parametrize("case", sorted(STRINGS))
def test_packed_strings_read_back(case):
    strings = STRINGS[case]
    shape = [2, 2] if case == "matrix" else None
    got = make_ndarray(_packed(strings, shape))
    assert got.dtype == object and got.reshape(-1).tolist() == strings
    assert list(got.shape) == (shape or [len(strings)])


def test_packed_strings_from_tensorflow():
    """TF's C++ runtime packs the names a SaveV2 saves when it rewrites them."""
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default() as g:
        a = tf.constant(6.0, shape=[1, 1], name="a")
        b = tf.Variable(tf.constant(7.0, shape=[1, 1]), name="b", use_resource=False)
        tf.matmul(a, b)
        tf.train.Saver()
        out = tf.train.do_quantize_training_on_graphdef(g.as_graph_def(), 8)
    node = next(n for n in out.node if n.name == "save/SaveV2/tensor_names")
    proto = tensor_pb2.TensorProto()
    proto.ParseFromString(node.attr["value"].tensor.SerializeToString())
    assert proto.tensor_content  # packed
    assert make_ndarray(proto).tolist() == [b"b", b"a/Min/Variable", b"a/Max/Variable", b"b/read/Min/Variable",
                                            b"b/read/Max/Variable"]


@pytest.mark.parametrize("content", [b"\x05ab", b"\x01a\x01", b"\x80"])
def test_bad_packed_strings_are_value_errors(content):
    p = tensor_pb2.TensorProto(dtype=7)
    p.tensor_shape.dim.add().size = 1
    p.tensor_content = content
    with pytest.raises(ValueError):
        make_ndarray(p)
