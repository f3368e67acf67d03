"""V2 bundles (ref/formats/bundle.py) against TensorFlow: files written by
ref are read by TF and vice versa, byte-identical where TF is deterministic;
corruption is reported, never turned into wrong values."""
import hashlib
import os

import ml_dtypes
import numpy as np
import pytest

from ref.types import errors
from ref.checkpoint import BundleReader, BundleWriter, merge_bundles
from ref.formats.slices import TensorSlice, decode_tensor_name_slice, encode_tensor_name_slice

tf = pytest.importorskip("tensorflow")

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "complex64", "complex128", "bool", "string"]
SHAPES = [(), (0, 3), (2, 3, 4)]


def _value(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "string":
        items = [bytes(rng.integers(0, 256, size=int(rng.integers(0, 9))).astype(np.uint8)) for _ in range(n)]
        out = np.empty(n, dtype=object)
        out[:] = items
        return out.reshape(shape)
    if dtype == "bool":
        return (rng.random(shape) > 0.5)
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype == "bfloat16":
        return rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    if dtype.startswith(("float",)):
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def _tf_dtype(dtype):
    return getattr(tf, dtype)


def _assert_same(got, want):
    got = np.asarray(got)
    assert got.shape == want.shape
    if want.dtype == object:
        assert got.reshape(-1).tolist() == want.reshape(-1).tolist()
    else:
        assert got.dtype == want.dtype
        assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_ref_writes_tf_reads(tmp_path, dtype, shape):
    value = _value(dtype, shape)
    prefix = str(tmp_path / "ckpt")
    with BundleWriter(prefix) as w:
        w.add("v", value)
    _assert_same(tf.train.load_checkpoint(prefix).get_tensor("v"), value)
    (restored,) = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=["v"], shape_and_slices=[""],
                                        dtypes=[_tf_dtype(dtype)])
    _assert_same(restored.numpy(), value)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_tf_writes_ref_reads_byte_identical(tmp_path, dtype, shape):
    value = _value(dtype, shape, seed=1)
    tf_prefix, ref_prefix = str(tmp_path / "tf"), str(tmp_path / "ref")
    tf.raw_ops.SaveV2(prefix=tf_prefix, tensor_names=["a/v", "b"], shape_and_slices=["", ""],
                      tensors=[tf.constant(value, dtype=_tf_dtype(dtype)), tf.constant([1.0, 2.0])])
    with BundleReader(tf_prefix) as r:
        _assert_same(r.lookup("a/v"), value)
        dt, sh = r.lookup_dtype_and_shape("a/v")
        assert (dt.name, sh) == (dtype, shape)
    with BundleWriter(ref_prefix) as w:
        w.add("a/v", value)
        w.add("b", np.array([1.0, 2.0], np.float32))
    for suffix in (".index", ".data-00000-of-00001"):
        with open(tf_prefix + suffix, "rb") as f1, open(ref_prefix + suffix, "rb") as f2:
            assert f1.read() == f2.read(), suffix


def test_many_keys_multi_block_index_identical_to_tf(tmp_path):
    """3000 long names with shared prefixes and random tails: the index spans
    several 256 KiB data blocks."""
    names = [f"model/layer_{i // 100:03d}/head_{i:05d}/" + hashlib.sha256(b"%d" % i).hexdigest() * 2
             for i in range(3000)]
    values = [np.array(i, np.int32) for i in range(3000)]
    tf.raw_ops.SaveV2(prefix=str(tmp_path / "tf"), tensor_names=names, shape_and_slices=[""] * len(names),
                      tensors=values)
    with BundleWriter(str(tmp_path / "ref")) as w:
        for n, v in zip(names, values):
            w.add(n, v)
    index = (tmp_path / "ref.index").read_bytes()
    assert len(index) > 262144 + 100000
    assert index == (tmp_path / "tf.index").read_bytes()
    reader = tf.train.load_checkpoint(str(tmp_path / "ref"))
    assert sorted(reader.get_variable_to_shape_map()) == sorted(names)
    r = BundleReader(str(tmp_path / "tf"))
    assert [r.lookup(names[i]).item() for i in (0, 1234, 2999)] == [0, 1234, 2999]


def test_tf_graph_saver_read_by_ref(tmp_path):
    g = tf.Graph()
    with g.as_default():
        a = tf.compat.v1.get_variable("scope/a", initializer=np.arange(12, dtype=np.float32).reshape(3, 4))
        b = tf.compat.v1.get_variable("b", initializer=np.int64(7))
        s = tf.compat.v1.get_variable("s", initializer=tf.constant([b"x", b"yz"]), dtype=tf.string)
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=3)
            want = sess.run({"scope/a": a, "b": b, "s": s})
    r = BundleReader(path)
    assert [n for n, _, _ in r.variables()] == ["b", "s", "scope/a"]
    for name, v in want.items():
        _assert_same(r.lookup(name), np.asarray(v) if not isinstance(v, np.ndarray) or v.dtype != object else v)


PARTS = [  # full shape, slice specs that tile it
    ((6, 4), ["0,2:-", "2,2:-", "4,2:-"]),
    ((5, 6), ["-:0,3", "-:3,3"]),
    ((4, 6), ["0,2:0,3", "0,2:3,3", "2,2:0,3", "2,2:3,3"]),
    ((7,), ["0,3", "3,4"]),
]


@pytest.mark.parametrize("shape,specs", PARTS)
@pytest.mark.parametrize("dtype", ["float32", "int64", "string"])
def test_slices_tf_writes_ref_assembles(tmp_path, shape, specs, dtype):
    full = _value(dtype, shape, seed=2)
    prefix = str(tmp_path / "tf")
    sas = [" ".join(map(str, shape)) + " " + s for s in specs]
    parts = [full[TensorSlice.parse(s).index(shape)] for s in specs]
    tf.raw_ops.SaveV2(prefix=prefix, tensor_names=["p"] * len(specs), shape_and_slices=sas,
                      tensors=[tf.constant(p, dtype=_tf_dtype(dtype)) for p in parts])
    r = BundleReader(prefix)
    _assert_same(r.lookup("p"), full)
    assert [str(s) for s in r.lookup_tensor_slices("p")] == specs
    assert [n for n, _, _ in r.variables()] == ["p"]
    _assert_same(r.lookup_slice("p", specs[-1]), parts[-1])
    inner = ":".join(f"{d // 3},{max(1, d - d // 3 - d // 4)}" for d in shape)  # crosses saved slices
    _assert_same(r.lookup_slice("p", inner), full[TensorSlice.parse(inner).index(shape)])


@pytest.mark.parametrize("shape,specs", PARTS)
def test_slices_ref_writes_tf_assembles(tmp_path, shape, specs):
    full = _value("float64", shape, seed=3)
    prefix = str(tmp_path / "ref")
    with BundleWriter(prefix) as w:
        for s in specs:
            w.add_slice("p", shape, s, full[TensorSlice.parse(s).index(shape)])
    _assert_same(tf.train.load_checkpoint(prefix).get_tensor("p"), full)
    sas = " ".join(map(str, shape)) + " " + specs[0]
    (part,) = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=["p"], shape_and_slices=[sas], dtypes=[tf.float64])
    _assert_same(part.numpy(), full[TensorSlice.parse(specs[0]).index(shape)])
    # the slices were keyed exactly as TF keys them
    tf_prefix = str(tmp_path / "tf")
    tf.raw_ops.SaveV2(prefix=tf_prefix, tensor_names=["p"] * len(specs),
                      shape_and_slices=[" ".join(map(str, shape)) + " " + s for s in specs],
                      tensors=[full[TensorSlice.parse(s).index(shape)] for s in specs])
    assert (tmp_path / "ref.index").read_bytes() == (tmp_path / "tf.index").read_bytes()


def test_partitioned_variable_saver(tmp_path):
    g = tf.Graph()
    with g.as_default():
        v = tf.compat.v1.get_variable("emb", shape=(10, 4), partitioner=tf.compat.v1.fixed_size_partitioner(3))
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            want = sess.run(tf.concat(list(v), 0))
            path = saver.save(sess, str(tmp_path / "model.ckpt"))
    r = BundleReader(path)
    _assert_same(r.lookup("emb"), want)
    assert [str(s) for s in r.lookup_tensor_slices("emb")] == ["0,4:0,4", "4,3:0,4", "7,3:0,4"]


@pytest.mark.parametrize("name,spec", [("a", ""), ("scope/w", "-:-"), ("x\x00y\xff", "0,2:5,1"),
                                       ("big", "70000,100:-"), ("neg", "-")])
def test_slice_key_round_trip(name, spec):
    sl = TensorSlice.parse(spec)
    assert decode_tensor_name_slice(encode_tensor_name_slice(name, sl)) == (name, sl)


@pytest.mark.parametrize("value,expected", [  # OrderedCode signed numbers (ordered_code.cc comments)
    (0, "80"), (-1, "7f"), (63, "bf"), (-64, "40"), (64, "c040"), (-0x800, "3800"), (0x424242, "f0424242"),
])
def test_signed_num_increasing(value, expected):
    from ref.formats import slices
    out = bytearray()
    slices._write_signed_num_increasing(out, value)
    assert out.hex() == expected
    assert slices._read_signed_num_increasing(bytes(out), 0) == (value, len(out))


def test_merge_bundles_read_by_tf(tmp_path):
    a, b = str(tmp_path / "part0"), str(tmp_path / "part1")
    with BundleWriter(a) as w:
        w.add("x", np.arange(3, dtype=np.int32))
        w.add_slice("p", (4,), "0,2", np.array([1.0, 2.0]))
    with BundleWriter(b) as w:
        w.add("y", np.array([b"s"], dtype=object))
        w.add_slice("p", (4,), "2,2", np.array([3.0, 4.0]))
    merged = str(tmp_path / "merged")
    merge_bundles([a, b], merged)
    assert sorted(os.listdir(tmp_path)) == ["merged.data-00000-of-00002", "merged.data-00001-of-00002",
                                           "merged.index"]
    r = tf.train.load_checkpoint(merged)
    _assert_same(r.get_tensor("x"), np.arange(3, dtype=np.int32))
    assert r.get_tensor("y").tolist() == [b"s"]
    _assert_same(r.get_tensor("p"), np.array([1.0, 2.0, 3.0, 4.0]))


def test_tf_sharded_saver_read_by_ref(tmp_path):
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            v0 = tf.compat.v1.get_variable("v0", initializer=np.float32([1, 2]))
        with tf.device("/cpu:1"):
            v1 = tf.compat.v1.get_variable("v1", initializer=np.int32([3]))
        saver = tf.compat.v1.train.Saver(sharded=True)
        with tf.compat.v1.Session(config=tf.compat.v1.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model.ckpt"))
    del v0, v1
    r = BundleReader(path)
    assert r.num_shards == 2
    _assert_same(r.lookup("v0"), np.float32([1, 2]))
    _assert_same(r.lookup("v1"), np.int32([3]))


# -- failures -------------------------------------------------------------------
def _good(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with BundleWriter(prefix) as w:
        w.add("f", np.arange(1000, dtype=np.float32))
        w.add("s", np.array([b"hello", b"world"], dtype=object))
    return prefix


def _flip(path, offset):
    data = bytearray(open(path, "rb").read())
    data[offset] ^= 0x04
    open(path, "wb").write(bytes(data))


def _truncate(path, size):
    data = open(path, "rb").read()
    open(path, "wb").write(data[:size])


@pytest.mark.parametrize("damage,which,tensor", [
    ("flip", "data", "f"),          # a bit inside a float tensor
    ("flip", "data_end", "s"),      # a bit inside the string bytes
    ("flip", "data_lengths", "s"),  # a string length byte
    ("truncate", "data", "f"),
    ("truncate", "data_tail", "s"),
    ("flip", "index", None),
    ("truncate", "index", None),
])
def test_corruption_is_data_loss_naming_file(tmp_path, damage, which, tensor):
    prefix = _good(tmp_path)
    data = prefix + ".data-00000-of-00001"
    index = prefix + ".index"
    if which == "data":
        _flip(data, 2000) if damage == "flip" else _truncate(data, 2000)
    elif which == "data_end":
        _flip(data, os.path.getsize(data) - 2)
    elif which == "data_lengths":
        _flip(data, 4000)
    elif which == "data_tail":
        _truncate(data, os.path.getsize(data) - 3)
    elif which == "index":
        _flip(index, 20) if damage == "flip" else _truncate(index, os.path.getsize(index) - 60)
    target = index if which == "index" else data
    with pytest.raises(errors.DataLossError, match=os.path.basename(target)):
        r = BundleReader(prefix)
        r.lookup(tensor)
    # TF agrees the file is bad
    with pytest.raises(tf.errors.OpError):
        tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=[tensor or "f"], shape_and_slices=[""],
                             dtypes=[tf.string if tensor == "s" else tf.float32])


def test_missing_tensor_and_missing_files(tmp_path):
    prefix = _good(tmp_path)
    r = BundleReader(prefix)
    with pytest.raises(errors.NotFoundError, match="nope"):
        r.lookup("nope")
    assert not r.contains("nope") and r.contains("f")
    r.close()
    with pytest.raises(errors.NotFoundError, match="other.index"):
        BundleReader(str(tmp_path / "other"))
    os.remove(prefix + ".data-00000-of-00001")
    with pytest.raises(errors.NotFoundError, match="data-00000-of-00001"):
        BundleReader(prefix).lookup("f")


def test_failed_write_leaves_previous_checkpoint(tmp_path):
    prefix = _good(tmp_path)
    before = {p: open(os.path.join(tmp_path, p), "rb").read() for p in os.listdir(tmp_path)}
    with pytest.raises(TypeError):
        with BundleWriter(prefix) as w:
            w.add("f", np.zeros(5, np.float32))
            w.add("bad", np.array([object()], dtype=object))
    after = {p: open(os.path.join(tmp_path, p), "rb").read() for p in os.listdir(tmp_path)}
    assert after == before  # no temp files left, the old checkpoint untouched
    _assert_same(BundleReader(prefix).lookup("f"), np.arange(1000, dtype=np.float32))


@pytest.mark.parametrize("call", ["duplicate", "header", "slice_shape"])
def test_writer_rejects(tmp_path, call):
    with BundleWriter(str(tmp_path / "c")) as w:
        w.add("a", np.zeros(2))
        with pytest.raises(errors.InvalidArgumentError):
            if call == "duplicate":
                w.add("a", np.zeros(2))
            elif call == "header":
                w.add("", np.zeros(2))
            else:
                w.add_slice("p", (4, 2), "0,2:-", np.zeros((3, 2)))


@pytest.mark.parametrize("alignment", [1, 8, 64])
def test_data_alignment_read_by_tf(tmp_path, alignment):
    prefix = str(tmp_path / "c")
    with BundleWriter(prefix, data_alignment=alignment, fsync=True) as w:
        w.add("a", np.arange(3, dtype=np.int8))
        w.add("b", np.arange(5, dtype=np.float64))
    r = BundleReader(prefix)
    assert [e.offset for _, e in r.entries()] == [0, 3 if alignment == 1 else alignment]
    _assert_same(tf.train.load_checkpoint(prefix).get_tensor("b"), np.arange(5, dtype=np.float64))
