"""NewCheckpointReader / load_checkpoint / list_variables / load_variable, the
V1 format, and the inspect-checkpoint tool, against TensorFlow."""
import os

import ml_dtypes
import numpy as np
import pytest

from ref.types import dtypes, errors
from ref.checkpoint import (BundleWriter, NewCheckpointReader, list_variables, load_checkpoint, load_variable,
                            update_checkpoint_state)
from ref.checkpoint.inspect import main as inspect_main

tf = pytest.importorskip("tensorflow")

V1_DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
             "complex64", "complex128", "bool", "string"]


def _value(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dtype == "string":
        out = np.empty(n, dtype=object)
        out[:] = [b"s%d\x00\xff" % i for i in range(n)]
        return out.reshape(shape)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("complex"):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    if dtype == "bfloat16":
        return rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape
    if want.dtype == object:
        assert got.reshape(-1).tolist() == want.reshape(-1).tolist()
    else:
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shape", [(), (3, 2)], ids=str)
@pytest.mark.parametrize("dtype", V1_DTYPES)
def test_v1_files_written_by_tf(tmp_path, dtype, shape):
    value = _value(dtype, shape)
    path = str(tmp_path / "v1.ckpt")
    tf.raw_ops.Save(filename=path, tensor_names=["x", "y/z"],
                    data=[tf.constant(value, dtype=getattr(tf, dtype)), tf.constant([1, 2], tf.int64)])
    r = NewCheckpointReader(path)
    _same(r.get_tensor("x"), value)
    assert r.get_variable_to_shape_map() == {"x": list(shape), "y/z": [2]}
    assert r.get_variable_to_dtype_map() == {"x": dtypes.as_dtype(dtype), "y/z": dtypes.int64}
    # TF lists V1 tensors in hash-map order; ref sorts them
    assert r.debug_string().splitlines() == sorted(tf.compat.v1.train.NewCheckpointReader(path).debug_string()
                                                   .splitlines())


def test_v1_slices_written_by_tf(tmp_path):
    full = np.arange(24, dtype=np.float32).reshape(6, 4)
    path = str(tmp_path / "sl")
    specs = ["6 4 0,2:-", "6 4 2,4:0,2", "6 4 2,4:2,2"]
    parts = [full[0:2], full[2:6, 0:2], full[2:6, 2:4]]
    tf.raw_ops.SaveSlices(filename=path, tensor_names=["p"] * 3, shapes_and_slices=specs, data=parts)
    r = NewCheckpointReader(path)
    _same(r.get_tensor("p"), full)
    # TF lists V1 tensors in hash-map order; ref sorts them
    assert r.debug_string().splitlines() == sorted(tf.compat.v1.train.NewCheckpointReader(path).debug_string()
                                                   .splitlines())


def test_v1_saver_sharded_pattern(tmp_path):
    g = tf.Graph()
    with g.as_default():
        tf.compat.v1.get_variable("a", initializer=np.float32([1, 2, 3]))
        tf.compat.v1.get_variable("b", initializer=np.int32(4))
        saver = tf.compat.v1.train.Saver(write_version=tf.compat.v1.train.SaverDef.V1, sharded=True)
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=1)
    assert path.endswith("-?????-of-00001")
    r = NewCheckpointReader(path)
    _same(r.get_tensor("a"), np.float32([1, 2, 3]))
    assert r.get_tensor("b") == 4
    assert load_variable(str(tmp_path), "a:0").tolist() == [1, 2, 3]


def test_v1_missing_tensor_is_tfs_not_found(tmp_path):
    """CheckpointReader.get_tensor of a V1 file: TF's NotFoundError wording."""
    path = str(tmp_path / "one")
    tf.raw_ops.SaveSlices(filename=path, tensor_names=["p"], shapes_and_slices=[""], data=[np.float32([1, 2])])
    messages = []
    for reader in (NewCheckpointReader(path), tf.compat.v1.train.NewCheckpointReader(path)):
        with pytest.raises(Exception) as info:
            reader.get_tensor("v3")
        messages.append((type(info.value).__name__, str(info.value).strip()))
    assert messages[0] == messages[1] == ("NotFoundError", "v3 not found in checkpoint file")


@pytest.fixture
def v2_dir(tmp_path):
    """A directory with two TF-style checkpoints written by ref and a state file."""
    d = str(tmp_path)
    for step in (1, 2):
        with BundleWriter(os.path.join(d, f"model.ckpt-{step}")) as w:
            w.add("dense/kernel", np.full((3, 2), step, np.float32))
            w.add("global_step", np.int64(step))
            w.add("names", np.array([b"a", b"bc"], dtype=object))
            w.add_slice("emb", (4, 2), "0,2:-", np.zeros((2, 2), np.float64))
            w.add_slice("emb", (4, 2), "2,2:-", np.ones((2, 2), np.float64))
    update_checkpoint_state(d, os.path.join(d, "model.ckpt-2"),
                            [os.path.join(d, "model.ckpt-1"), os.path.join(d, "model.ckpt-2")])
    return d


@pytest.mark.parametrize("query", ["shape_map", "dtype_map", "debug_string", "list_variables", "get_tensors",
                                   "load_variable"])
def test_v2_reader_matches_tf(v2_dir, query):
    ours, theirs = load_checkpoint(v2_dir), tf.train.load_checkpoint(v2_dir)
    if query == "shape_map":
        assert ours.get_variable_to_shape_map() == theirs.get_variable_to_shape_map()
    elif query == "dtype_map":
        assert {k: v.name for k, v in ours.get_variable_to_dtype_map().items()} == \
            {k: v.name for k, v in theirs.get_variable_to_dtype_map().items()}
    elif query == "debug_string":
        assert ours.debug_string() == theirs.debug_string()
    elif query == "list_variables":
        assert list_variables(v2_dir) == tf.train.list_variables(v2_dir)
    elif query == "get_tensors":
        for name in theirs.get_variable_to_shape_map():
            want, got = theirs.get_tensor(name), ours.get_tensor(name)
            assert type(got) is type(want)
            _same(got, want)
    else:
        assert load_variable(v2_dir, "global_step:0") == tf.train.load_variable(v2_dir, "global_step") == 2


@pytest.mark.parametrize("target,exc,match", [
    ("missing_tensor", errors.NotFoundError, "nope"),
    ("missing_file", errors.NotFoundError, "Failed to find any matching files"),
    ("empty_dir", ValueError, "Couldn't find 'checkpoint' file"),
])
def test_reader_errors(v2_dir, tmp_path, target, exc, match):
    with pytest.raises(exc, match=match):
        if target == "missing_tensor":
            load_checkpoint(v2_dir).get_tensor("nope")
        elif target == "missing_file":
            NewCheckpointReader(os.path.join(v2_dir, "absent"))
        else:
            os.makedirs(tmp_path / "empty")
            load_checkpoint(str(tmp_path / "empty"))
    assert not load_checkpoint(v2_dir).has_tensor("nope")


@pytest.mark.parametrize("args,expected", [
    ([], ["dense/kernel (DT_FLOAT) [3,2]", "global_step (DT_INT64) []", "# Total number of params: 17"]),
    (["--all_tensor_names"], ["tensor: emb (float64) [4, 2]", "tensor: names (string) [2]"]),
    (["--tensor", "global_step"], ["tensor: global_step (int64) []", "2"]),
    (["--tensor", "names"], ["[b'a' b'bc']"]),
    (["--all"], ["tensor: dense/kernel (float32) [3, 2]", "[[2. 2.]", "[[0. 0.]"]),
])
def test_inspect_checkpoint(v2_dir, capsys, args, expected):
    assert inspect_main([v2_dir, *args]) == 0
    out = capsys.readouterr().out.splitlines()
    for line in expected:
        assert line in [o.strip() for o in out]


def test_inspect_reports_problems(v2_dir, capsys):
    assert inspect_main([v2_dir, "--tensor", "nope"]) == 1
    err = capsys.readouterr().err  # the CLI: one line on stderr
    assert err.startswith("error: Tensor nope not found in checkpoint") and err.count("\n") == 1
    data = os.path.join(v2_dir, "model.ckpt-2.data-00000-of-00001")  # not a table: a data shard
    assert inspect_main([data]) == 1
    err = capsys.readouterr().err
    assert "provide the filename *prefix*" in err and err.count("\n") == 1
