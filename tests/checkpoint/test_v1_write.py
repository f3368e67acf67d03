"""Writing V1 checkpoints (Saver(write_version=SaverDef.V1)): SaveSlices,
ShardedFilespec and ref/formats/tensor_slice_writer.py. Oracles: the bytes
TensorFlow's own V1 saver writes for the same variables, TF restoring ref's
files, and the checkpoint helpers of TF's checkpoint_management_test."""
import glob
import os

import numpy as np
import pytest

import ref
from ref.checkpoint import checkpoint_management as cm

tf = pytest.importorskip("tensorflow").compat.v1

V1, V2 = 1, 2

VARIABLES = [
    ("scalar", lambda: {"v": np.float32(1.5)}),
    ("matrix-int32", lambda: {"w": np.array([[2, 3], [4, -5]], np.int32)}),
    ("float16", lambda: {"h": np.array([1, 2.5], np.float16)}),
    ("float64-bool-int64", lambda: {"d": np.array([0.1, -2.0]), "b": np.array([True, False]),
                                    "i": np.array([2 ** 40], np.int64)}),
    ("several", lambda: {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "z": np.int8(-3)}),
]


def _save_v1(lib, path, values, partitioned=False, sharded=False):
    with lib.Graph().as_default(), lib.Session() as s:
        if partitioned:
            p = lib.get_variable("p", initializer=lib.zeros_initializer(), shape=values["p"].shape,
                                 partitioner=lib.fixed_size_partitioner(2), use_resource=False)
        else:
            for name, value in values.items():
                lib.Variable(value, name=name, use_resource=False)
        s.run(lib.global_variables_initializer())
        if partitioned:
            s.run(p.assign(values["p"]))
        with pytest.warns(DeprecationWarning) if lib is ref else _nothing():
            saver = lib.train.Saver(write_version=V1, sharded=sharded)
        return saver.save(s, path, write_meta_graph=False, write_state=False)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("name,values", VARIABLES, ids=[v[0] for v in VARIABLES])
def test_v1_file_bytes_equal_tensorflows(tmp_path, name, values):
    ours = _save_v1(ref, str(tmp_path / "ref"), values())
    theirs = _save_v1(tf, str(tmp_path / "tf"), values())
    with open(ours, "rb") as a, open(theirs, "rb") as b:
        assert a.read() == b.read()


def test_partitioned_v1_bytes_equal_tensorflows(tmp_path):
    values = {"p": np.arange(12, dtype=np.float32).reshape(6, 2)}
    ours = _save_v1(ref, str(tmp_path / "ref"), values, partitioned=True)
    theirs = _save_v1(tf, str(tmp_path / "tf"), values, partitioned=True)
    with open(ours, "rb") as a, open(theirs, "rb") as b:
        assert a.read() == b.read()


def test_sharded_v1_names_and_tensorflow_restores_it(tmp_path):
    with ref.Graph().as_default(), ref.Session(config=ref.ConfigProto(device_count={"CPU": 2})) as s:
        with ref.device("/cpu:0"):
            v0 = ref.Variable(111, name="v0")
        with ref.device("/cpu:1"):
            v1 = ref.Variable(222, name="v1")
        s.run(ref.global_variables_initializer())
        with pytest.warns(DeprecationWarning):
            saver = ref.train.Saver({"v0": v0, "v1": v1}, sharded=True, write_version=V1)
        path = saver.save(s, str(tmp_path / "s1"))
    assert path == str(tmp_path / "s1") + "-?????-of-00002"
    assert sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "s1*"))) == \
        ["s1-00000-of-00002", "s1-00001-of-00002", "s1.meta"]
    with tf.Graph().as_default(), tf.Session() as s:
        a = tf.Variable(0, name="v0", use_resource=False)
        b = tf.Variable(0, name="v1", use_resource=False)
        tf.train.Saver({"v0": a, "v1": b}).restore(s, path)
        assert s.run([a, b]) == [111, 222]


@pytest.mark.parametrize("sharded", [False, True])
@pytest.mark.parametrize("version", [V2, V1])
def test_checkpoint_helpers_for_both_formats(tmp_path, sharded, version):
    """TF's SaverUtilsTest: checkpoint_exists, latest_checkpoint, get_checkpoint_mtimes, remove_checkpoint."""
    with ref.Graph().as_default(), ref.Session() as s:
        v = ref.Variable(1.0, name="v")
        s.run(v.initializer)
        with warnings_allowed():
            saver = ref.train.Saver(sharded=sharded, write_version=version)
        path = str(tmp_path / f"{sharded}-{version}")
        assert not cm.checkpoint_exists(path)
        prefix = saver.save(s, path)
        assert cm.checkpoint_exists(prefix)
        assert cm.latest_checkpoint(str(tmp_path)) == prefix
        assert len(cm.get_checkpoint_mtimes([prefix])) == 1
        s.run(v.assign(5.0))
        saver.restore(s, prefix)
        assert s.run(v) == 1.0
        cm.remove_checkpoint(prefix, version)
        assert not cm.checkpoint_exists(prefix)


class warnings_allowed:
    def __enter__(self):
        import warnings
        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore", DeprecationWarning)

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_v1_stripped_op_list_as_tf():
    def names(lib):
        with lib.Graph().as_default():
            v0 = lib.Variable(0.0, use_resource=False)
            lib.add(v0, lib.Variable(10.0, use_resource=False))
            with warnings_allowed():
                mgd = lib.train.Saver({"v0": v0}, write_version=V1).export_meta_graph()
            return [o.name for o in mgd.meta_info_def.stripped_op_list.op]
    assert names(ref) == names(tf)
