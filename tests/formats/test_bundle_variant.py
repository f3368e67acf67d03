"""Variant tensors in a V2 checkpoint (what an iterator's saved state is):
TF's framing per element (varint length, serialized VariantTensorDataProto,
masked running crc), read and written byte for byte as TensorFlow does, and
damaged entries rejected as DataLossError before anything is allocated."""
import os

import numpy as np
import pytest

from ref import protos
from ref.types import errors
from ref.formats.bundle import BundleReader, BundleWriter, data_filename


def _proto(i):
    t = protos.tensor_pb2.TensorProto(dtype=9, int64_val=[i, i * 7])
    t.tensor_shape.dim.add(size=2)
    return protos.tensor_pb2.VariantTensorDataProto(type_name=f"test::V{i}", metadata=b"m" * i, tensors=[t])


def _variants(shape):
    n = int(np.prod(shape))
    arr = np.empty(n, dtype=object)
    arr[:] = [_proto(i) for i in range(n)]
    return arr.reshape(shape)


@pytest.mark.parametrize("shape", [(), (0,), (1,), (3,), (2, 2)])
def test_round_trip(tmp_path, shape):
    p = str(tmp_path / "m")
    with BundleWriter(p) as w:
        w.add("v", _variants(shape), "variant")
        w.add("after", np.arange(3, dtype=np.float32))
    r = BundleReader(p)
    got = r.lookup("v")
    assert got.shape == shape
    assert [g.SerializeToString() for g in got.reshape(-1)] == \
        [e.SerializeToString() for e in _variants(shape).reshape(-1)]
    np.testing.assert_array_equal(r.lookup("after"), np.arange(3, dtype=np.float32))


def test_tf_writes_ref_reads_and_rewrites_the_same_bytes(tmp_path):
    tf = pytest.importorskip("tensorflow")
    tp = str(tmp_path / "tf")
    lists = [tf.raw_ops.TensorListFromTensor(tensor=tf.constant(np.arange(k * 2, dtype=np.float32).reshape(k, 2)),
                                             element_shape=tf.constant([2])) for k in (1, 3)]
    tf.raw_ops.SaveV2(prefix=tp, tensor_names=["a", "b"], shape_and_slices=["", ""], tensors=lists)
    r = BundleReader(tp)
    a, b = r.lookup("a"), r.lookup("b")
    assert a.shape == () and a.item().type_name == "tensorflow::TensorList"
    rp = str(tmp_path / "ref")
    with BundleWriter(rp) as w:
        w.add("a", a, "variant")
        w.add("b", b, "variant")
    with open(data_filename(tp, 0, 1), "rb") as f1, open(data_filename(rp, 0, 1), "rb") as f2:
        assert f1.read() == f2.read()
    with open(tp + ".index", "rb") as f1, open(rp + ".index", "rb") as f2:
        assert f1.read() == f2.read()


def _damage(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


# (what is damaged, offset in the data file, bytes written there)
DAMAGE = [
    ("a byte of the first element", 3, b"\xff"),
    ("the first element's checksum", None, b"\x00\x00\x00\x00"),
    ("a length claiming 2**60 bytes", 0, b"\x80\x80\x80\x80\x80\x80\x80\x80\x10"),
]


@pytest.mark.parametrize("what,offset,data", DAMAGE, ids=[d[0] for d in DAMAGE])
def test_damaged_variant_is_data_loss(tmp_path, what, offset, data):
    p = str(tmp_path / "m")
    with BundleWriter(p) as w:
        w.add("v", _variants((3,)), "variant")
    if offset is None:  # just after the first element: 1 length byte + its bytes
        offset = 1 + len(_proto(0).SerializeToString())
    _damage(data_filename(p, 0, 1), offset, data)
    with pytest.raises(errors.DataLossError, match="data-00000-of-00001"):
        BundleReader(p).lookup("v")


def test_unencodable_value_is_unimplemented(tmp_path):
    arr = np.empty(1, dtype=object)
    arr[0] = object()
    with BundleWriter(str(tmp_path / "m")) as w:
        with pytest.raises(errors.UnimplementedError, match="cannot be encoded"):
            w.add("v", arr, "variant")
        assert os.path.isdir(tmp_path)
