"""V1 ``Restore``/``RestoreSlice``, ``ShardedFilename``/``ShardedFilespec`` values
and RestoreV2's graph-construction checks, against TF's ``tf.raw_ops``."""
import numpy as np
import pytest

from ref.ops import io as _under_test  # noqa: F401
import ref
from ref.framework.op_def_library import apply_op

VALUES = {"w": np.arange(12, dtype=np.float32).reshape(3, 4), "n": np.array([7, 8, 9], np.int32)}


@pytest.fixture
def v1_checkpoint(tmp_path):
    """A V1 checkpoint written by TF's own ``Save`` kernel (the oracle's format)."""
    tf = pytest.importorskip("tensorflow")
    path = str(tmp_path / "model-v1")
    tf.raw_ops.Save(filename=path, tensor_names=list(VALUES), data=[tf.constant(v) for v in VALUES.values()])
    return path


# (op, name, shape_and_slice, dtype)
RESTORE_ROWS = [
    ("Restore", "w", None, np.float32),
    ("Restore", "n", None, np.int32),
    ("RestoreSlice", "w", "3 4 0,2:1,3", np.float32),
    ("RestoreSlice", "w", "", np.float32),
    ("RestoreSlice", "n", "3 1,2", np.int32),
    ("Restore", "missing", None, np.float32),        # NotFoundError
    ("Restore", "w", None, np.int32),                # InvalidArgumentError: dtype
    ("RestoreSlice", "w", "4 4 0,2:1,3", np.float32),  # InvalidArgumentError: full shape
]


def _run(module, op, path, name, spec, dtype):
    kw = dict(file_pattern=path, tensor_name=name, dt=module.as_dtype(dtype) if module is ref else dtype)
    if spec is not None:
        kw["shape_and_slice"] = spec
    try:
        return "ok", np.asarray(getattr(module.raw_ops, op)(**kw))
    except Exception as e:  # noqa: BLE001 -- the error's kind is what is compared
        return type(e).__name__, getattr(e, "message", str(e))


@pytest.mark.parametrize("op, name, spec, dtype", RESTORE_ROWS)
def test_v1_restore_as_tf(v1_checkpoint, op, name, spec, dtype):
    tf = pytest.importorskip("tensorflow")
    want = _run(tf, op, v1_checkpoint, name, spec, tf.as_dtype(dtype))
    got = _run(ref, op, v1_checkpoint, name, spec, dtype)
    assert got[0] == want[0], (got, want)
    if want[0] == "ok":
        np.testing.assert_array_equal(got[1], want[1])
        assert got[1].dtype == want[1].dtype
    else:
        assert got[1].split(";")[0].split("[[")[0].strip() in want[1], (got, want)


@pytest.mark.parametrize("op, kw", [
    ("ShardedFilename", dict(basename="foo", shard=4, num_shards=100)),
    ("ShardedFilespec", dict(basename="foo", num_shards=100)),
])
def test_sharded_names_are_bytes_as_tf(op, kw):
    tf = pytest.importorskip("tensorflow")
    want = getattr(tf.raw_ops, op)(**kw).numpy()
    got = getattr(ref.raw_ops, op)(**kw)
    assert np.asarray(got).item() == want and isinstance(np.asarray(got).item(), bytes)


# RestoreV2 in a graph: (tensor_names, shape_and_slices, n dtypes) -> output shapes or ValueError
GRAPH_ROWS = [
    (["a", "b"], ["", "3 4 0,1:-"], 2),
    (["a", "b", "c"], ["", "3 4 0,1:-"], 2),   # names and slices differ in length
    (["a", "b"], ["", "3 4 0,1:-"], 3),        # slices and outputs differ in number
]


def _graph_shapes(tf, names, specs, n):
    with tf.Graph().as_default():
        try:
            out = tf.raw_ops.RestoreV2(prefix="model", tensor_names=names, shape_and_slices=specs,
                                       dtypes=[tf.float32] * n) if tf is not ref else \
                apply_op("RestoreV2", prefix="model", tensor_names=names, shape_and_slices=specs,
                         dtypes=[ref.float32] * n)
        except ValueError:
            return "ValueError"
        return [t.shape.as_list() if t.shape.ndims is not None else None for t in out]


@pytest.mark.parametrize("names, specs, n", GRAPH_ROWS)
def test_restore_v2_graph_checks_as_tf(names, specs, n):
    tf = pytest.importorskip("tensorflow")
    assert _graph_shapes(ref, names, specs, n) == _graph_shapes(tf, names, specs, n)


@pytest.mark.parametrize("spec, shape", [("", None), ("3 4 0,1:-", [1, 4])])
def test_restore_slice_graph_shape_as_tf(spec, shape):
    tf = pytest.importorskip("tensorflow")
    with tf.Graph().as_default():
        want = tf.raw_ops.RestoreSlice(file_pattern="m", tensor_name="v", shape_and_slice=spec, dt=tf.float32).shape
    with ref.Graph().as_default():
        got = apply_op("RestoreSlice", file_pattern="m", tensor_name="v", shape_and_slice=spec, dt=ref.float32).shape
    assert (got.as_list() if got.ndims is not None else None) == (want.as_list() if want.ndims is not None else None)
    assert (want.as_list() if want.ndims is not None else None) == shape
