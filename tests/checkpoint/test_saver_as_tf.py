"""Saver and meta graphs where TF's own unit tests pin the behaviour
(saver_test.py, meta_graph_test.py, checkpoint_utils_test.py): error classes
and messages, meta_info_def, imports below name scopes, scoped export with
unbound inputs, copy_scoped_meta_graph, collection kinds, SaveSliceInfo specs,
PartitionedVariable assigns, init_from_checkpoint's ops. Oracle:
tensorflow.compat.v1 built side by side (or NumPy for values)."""
import os
import warnings

import numpy as np
import pytest

import ref
from ref.types import errors
from ref.checkpoint import meta_graph
from ref.protos import meta_graph_pb2

tf = pytest.importorskip("tensorflow").compat.v1
tf_meta_graph = pytest.importorskip("tensorflow.python.framework.meta_graph")
tf_errors = pytest.importorskip("tensorflow.python.framework.errors_impl")


def _save_error(lib, path):
    with lib.Graph().as_default(), lib.Session() as s:
        v = lib.Variable(10.0, name="v0", use_resource=False)
        saver = lib.train.Saver({"v0": v})
        s.run(v.initializer)
        with pytest.raises(ValueError) as info:
            saver.save(s, path)
        return str(info.value)


def test_save_below_a_regular_file_is_tfs_value_error(tmp_path):
    (tmp_path / "actually_a_file").write_text("")
    ours = _save_error(ref, str(tmp_path / "actually_a_file" / "path"))
    theirs = _save_error(tf, str(tmp_path / "actually_a_file" / "path"))
    assert ours == theirs == f"Parent directory of {tmp_path / 'actually_a_file' / 'path'} doesn't exist, can't save."


@pytest.mark.parametrize("saved,restored", [([1.0, 2.0], [1.0, 2.0, 3.0]), ([[1.0, 2.0, 3.0]], [[0.0], [0.0], [0.0]])])
def test_restore_with_a_wrong_shape_is_assigns_error(tmp_path, saved, restored):
    def run(lib, err_cls):
        path = str(tmp_path / lib.__name__.split(".")[0])
        with lib.Graph().as_default(), lib.Session() as s:
            v = lib.Variable(saved, name="v", use_resource=False)
            s.run(v.initializer)
            lib.train.Saver().save(s, path)
        with lib.Graph().as_default(), lib.Session() as s:
            lib.Variable(restored, name="v", use_resource=False)
            with pytest.raises(err_cls) as info:
                lib.train.Saver().restore(s, path)
        return str(info.value.message).strip().split("\n")
    ours = run(ref, errors.InvalidArgumentError)
    theirs = run(tf, tf_errors.InvalidArgumentError)
    assert ours[0] == theirs[0]
    shapes = [line for line in theirs if line.startswith("Assign requires shapes")]
    assert shapes and any(line.startswith(shapes[0]) for line in ours)


def _stripped(lib, meta_graph_module):
    with lib.Graph().as_default():
        v0 = lib.Variable(0.0, use_resource=False)
        var = lib.Variable(10.0, use_resource=False)
        lib.add(v0, var)
        mgd = lib.train.Saver({"v0": v0}).export_meta_graph()
        return mgd.meta_info_def, meta_graph_module.stripped_op_list_for_graph(mgd.graph_def)


def test_meta_info_def_as_tf():
    ours, our_list = _stripped(ref, meta_graph)
    theirs, their_list = _stripped(tf, tf_meta_graph)
    assert ours.tensorflow_version == theirs.tensorflow_version
    assert ours.tensorflow_git_version
    names = [o.name for o in theirs.stripped_op_list.op]
    assert [o.name for o in ours.stripped_op_list.op] == names == [o.name for o in our_list.op]
    assert [o.name for o in their_list.op] == names


def _import_names(lib, import_scope):
    with lib.Graph().as_default():
        lib.Variable(1.0, name="v", use_resource=False)
        mgd = lib.train.Saver().export_meta_graph()
    with lib.Graph().as_default():
        with lib.name_scope("imported"):
            saver = lib.train.import_meta_graph(mgd, import_scope=import_scope)
        return saver.saver_def.restore_op_name, [v.name for v in lib.global_variables()]


def test_import_meta_graph_inside_a_name_scope():
    assert _import_names(ref, None) == _import_names(tf, None) == ("imported/save/restore_all", ["imported/v:0"])
    _, names = _import_names(ref, "imp")
    assert names == _import_names(tf, "imp")[1] == ["imported/imp/v:0"]


def _scoped_export(lib, meta_graph_module):
    with lib.Graph().as_default() as g:
        x = lib.placeholder(lib.float32, name="x")
        with lib.name_scope("hidden"):
            lib.multiply(x, 2.0, name="y")
        mgd, var_list = meta_graph_module.export_scoped_meta_graph(export_scope="hidden")
        return ([(n.name, list(n.input)) for n in mgd.graph_def.node],
                list(mgd.collection_def["unbound_inputs"].bytes_list.value),
                [v if isinstance(v, str) else v.decode() for v in g.get_collection("unbound_inputs")], var_list)


def test_scoped_export_marks_unbound_inputs_as_tf():
    assert _scoped_export(ref, meta_graph) == _scoped_export(tf, tf_meta_graph)


def test_unbound_inputs_must_be_mapped():
    with ref.Graph().as_default():
        a = ref.constant(1.0, shape=[2, 2])
        m = ref.matmul(a, a)
        with ref.name_scope("hidden1"):
            ref.matmul(ref.nn.relu(m), ref.constant(3.0, shape=[2, 2]))
        mgd, _ = meta_graph.export_scoped_meta_graph(export_scope="hidden1")
    with ref.Graph().as_default() as g:
        with pytest.raises(ValueError, match="Graph contains unbound inputs: \\$unbound_inputs_MatMul"):
            meta_graph.import_scoped_meta_graph(mgd, import_scope="new_hidden1")
        four = ref.constant(4.0, shape=[2, 2])
        meta_graph.import_scoped_meta_graph(mgd, import_scope="new_hidden1",
                                            input_map={"$unbound_inputs_MatMul": four})
        with ref.Session() as s:
            np.testing.assert_allclose(s.run(g.get_tensor_by_name("new_hidden1/MatMul:0")), np.full((2, 2), 24.0))


def test_copy_scoped_meta_graph(tmp_path):
    ckpt = str(tmp_path / "ckpt")
    images, weights, biases = np.ones((3, 2), np.float32), np.arange(1, 7, dtype=np.float32).reshape(2, 3), \
        np.full(3, 0.1, np.float32)
    expected = np.maximum(images @ weights + biases, 0)
    g1 = ref.Graph()
    with g1.as_default():
        with ref.name_scope("hidden1"):
            x = ref.constant(images, name="images")
            w = ref.Variable(weights, name="weights")
            b = ref.Variable(biases, name="biases")
            ref.nn.relu(ref.matmul(x, w) + b, name="relu")
        with ref.Session() as s:
            s.run(ref.global_variables_initializer())
            _, var_list = meta_graph.export_scoped_meta_graph(export_scope="hidden1")
            assert sorted(var_list) == ["biases:0", "weights:0"]
            ref.train.Saver(var_list=var_list).save(s, ckpt, write_state=False)
        with pytest.raises(ValueError, match="need to be different"):
            meta_graph.copy_scoped_meta_graph(from_scope="hidden1", to_scope="hidden1")
    g2 = ref.Graph()
    with g2.as_default():
        copied = meta_graph.copy_scoped_meta_graph(from_scope="hidden1", to_scope="new_hidden1", from_graph=g1,
                                                   to_graph=g2)
        with ref.Session() as s:
            ref.train.Saver(var_list=copied).restore(s, ckpt)
            np.testing.assert_allclose(s.run("new_hidden1/relu:0"), expected, rtol=1e-6)


def test_collection_kinds():
    from google.protobuf.any_pb2 import Any
    from ref.protos import queue_runner_pb2
    packed = Any()
    packed.Pack(queue_runner_pb2.QueueRunnerDef(queue_name="q"))
    with ref.Graph().as_default():
        ref.add_to_collection("mixed", 3)
        ref.add_to_collection("mixed", 3.5)  # an int64_list cannot hold 3.5: the collection is dropped
        ref.add_to_collection("floats", 3.5)
        ref.add_to_collection("anys", packed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mgd = meta_graph.export_scoped_meta_graph()[0]
    assert "mixed" not in mgd.collection_def
    assert list(mgd.collection_def["floats"].float_list.value) == [3.5]
    assert list(mgd.collection_def["anys"].any_list.value) == [packed]
    with ref.Graph().as_default():
        meta_graph.import_scoped_meta_graph(mgd)
        assert ref.get_collection("anys") == [packed]


@pytest.mark.parametrize("spec", ["0", "0:0", "a b", "0 0:0", "0 a,0:0:0", "0 0,a:0:0", "2 3 4 0,1:2,1:0,3", ""])
def test_save_slice_info_from_spec_as_tf(spec):
    def parse(lib):
        try:
            return lib.Variable.SaveSliceInfo.from_spec(spec).spec if spec else "empty"
        except ValueError as e:
            return str(e)
    assert parse(ref) == parse(tf)


@pytest.mark.parametrize("method,oracle", [("assign", lambda old, x: x), ("assign_add", np.add),
                                           ("assign_sub", np.subtract)])
@pytest.mark.parametrize("as_list", [False, True])
def test_partitioned_variable_assigns(method, oracle, as_list):
    start = np.arange(10, dtype=np.float32).reshape(5, 2)
    value = np.full((5, 2), 3.0, np.float32)
    with ref.Graph().as_default(), ref.Session() as s:
        pv = ref.get_variable("p", shape=[5, 2], initializer=start, partitioner=ref.fixed_size_partitioner(2))
        s.run(ref.global_variables_initializer())
        parts = [value[:3], value[3:]] if as_list else value
        out = s.run(getattr(pv, method)(parts))
        assert len(out) == 2
        np.testing.assert_array_equal(s.run(pv.as_tensor()), oracle(start, value))


def test_init_from_checkpoint_builds_tfs_ops(tmp_path):
    def op_types(lib):
        d = str(tmp_path / lib.__name__.split(".")[0])
        with lib.Graph().as_default(), lib.Session() as s:
            v = lib.get_variable("var1", [1, 10])
            s.run(v.initializer)
            lib.train.Saver().save(s, os.path.join(d, "model"))
        with lib.Graph().as_default() as g, lib.Session() as s:
            my1 = lib.Variable([[0.0] * 10], name="my1", use_resource=True)
            with lib.name_scope("init_from_checkpoint"):
                lib.train.init_from_checkpoint(d, {"var1": my1})
            s.run(lib.global_variables_initializer())
            value = s.run(my1)
            return value, sorted(op.type for op in g.get_operations() if op.name.startswith("init_from_checkpoint/"))
    (ours, our_ops), (_, their_ops) = op_types(ref), op_types(tf)
    assert our_ops == their_ops
    assert ours.shape == (1, 10)


def test_wait_for_new_checkpoint(tmp_path):
    assert ref.train.wait_for_new_checkpoint(str(tmp_path), timeout=0.2, seconds_to_sleep=0.1) is None
    with ref.Graph().as_default(), ref.Session() as s:
        v = ref.Variable(1.0)
        s.run(v.initializer)
        path = ref.train.Saver().save(s, str(tmp_path / "m"))
    assert ref.train.wait_for_new_checkpoint(str(tmp_path), timeout=0.2, seconds_to_sleep=0.1) == path
    assert list(ref.train.checkpoints_iterator(str(tmp_path), timeout=0.2)) == [path]


def test_partitioned_resource_variables_are_saved_from_their_machines_cpu():
    """TF's testResourceColocation: SaveV2's inputs sit on the variable's job, on its CPU."""
    def devices(lib):
        with lib.Graph().as_default() as g:
            with lib.device("/job:ps/device:GPU:0"):
                v = lib.get_variable("v0", shape=[10, 2], partitioner=lib.fixed_size_partitioner(num_shards=2),
                                     use_resource=True)
            lib.train.Saver({"v0": v}).build()
            save = next(op for op in g.get_operations() if op.type == "SaveV2")
            return [t.device for t in save.inputs[3:]]
    assert devices(ref) == devices(tf) == ["/job:ps/device:CPU:0"] * 2


def test_save_and_restore_through_a_file_uri(tmp_path, monkeypatch):
    """TF's testSaveToURI: ``file://`` is the local file system (nothing lands in a ``file:`` directory)."""
    monkeypatch.chdir(tmp_path)
    with ref.Graph().as_default(), ref.Session() as s:
        v = ref.Variable(10.0, name="v0")
        saver = ref.train.Saver({"v0": v})
        s.run(v.initializer)
        path = saver.save(s, "file://" + str(tmp_path / "uri"))
        assert path == str(tmp_path / "uri")
        assert sorted(os.listdir(tmp_path)) == ["checkpoint", "uri.data-00000-of-00001", "uri.index", "uri.meta"]
        s.run(v.assign(0.0))
        saver.restore(s, "file://" + path)
        assert s.run(v) == 10.0
