"""ref.formats.tensor_util: TensorProtos as TensorFlow's runtime writes them."""
import numpy as np
import pytest

from ref import protos
from ref.formats.tensor_util import make_ndarray

STRING_CASES = [
    ("scalar", b"z"),
    ("vector", [b"a", b"bc", b""]),
    ("long", [b"x" * 200, b"y" * 20000]),  # lengths of 2 and 3 varint bytes
    ("matrix", [[b"\x00\xff", b"q"], [b"", b"rs"]]),
    ("empty", np.zeros((0, 2), object)),
]


@pytest.mark.parametrize("name,value", STRING_CASES, ids=[c[0] for c in STRING_CASES])
def test_string_tensor_content_as_tf_serializes_it(name, value):
    """TF's runtime (RunStep responses, serialize_tensor) packs a DT_STRING tensor
    into ``tensor_content``: the lengths as varints, then the bytes."""
    tf = pytest.importorskip("tensorflow")
    data = tf.io.serialize_tensor(tf.constant(value, tf.string)).numpy()
    proto = protos.tensor_pb2.TensorProto.FromString(data)
    got = make_ndarray(proto)
    want = np.array(value, dtype=object).reshape(np.shape(value))
    assert got.dtype == object and got.shape == want.shape
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("content,n", [(b"\x05ab", 1), (b"\x01\x01a", 2), (b"\x80", 1), (b"\x01ab", 1)])
def test_malformed_string_tensor_content_is_a_value_error(content, n):
    proto = protos.tensor_pb2.TensorProto(dtype=7, tensor_content=content)
    proto.tensor_shape.dim.add(size=n)
    with pytest.raises(ValueError, match="DT_STRING tensor_content"):
        make_ndarray(proto)
