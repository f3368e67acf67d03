"""init_from_checkpoint and warm_start (ref/checkpoint/warm_start.py): each
documented assignment_map / vars_to_warm_start form, row by row. Oracle: the
checkpoint's tensors (read with NumPy) for the variables the form selects, the
variables' own initial values for the others; one row cross-checked against
TensorFlow's init_from_checkpoint."""
import numpy as np
import pytest

import ref as tf
from ref.checkpoint import NewCheckpointReader
from ref.checkpoint.saver import Saver
from ref.checkpoint.warm_start import init_from_checkpoint, warm_start

OLD = {"old/a": np.arange(12, dtype=np.float32).reshape(4, 3),
       "old/b": np.arange(12, 24, dtype=np.float32).reshape(6, 2),
       "c": np.array([7.0, 8.0], np.float32), "new/a": np.full((4, 3), 3.0, np.float32),
       "new/b": np.full((6, 2), 4.0, np.float32), "new/step": np.array(9, np.int64),
       "old/step": np.array(5, np.int64)}


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("ws") / "model")
    with tf.Graph().as_default():
        variables = {name: tf.Variable(value, name=name) for name, value in OLD.items()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            Saver(variables).save(sess, path, write_meta_graph=False)
    return path


def _new_model(with_c=True):
    """new/a [4,3], new/b [6,2] in 3 parts, root/c [2], new/step (not trainable): all zeros."""
    with tf.variable_scope("new"):
        a = tf.get_variable("a", [4, 3], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [6, 2], initializer=tf.zeros_initializer(), partitioner=tf.fixed_size_partitioner(3))
        step = tf.get_variable("step", [], dtype=tf.int64, initializer=tf.zeros_initializer(), trainable=False)
    model = {"a": a, "b": b, "step": step}
    if with_c:
        with tf.variable_scope("root"):
            model["c"] = tf.get_variable("c", [2], initializer=tf.zeros_initializer())
    return model


def _run(model):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {k: sess.run(v.as_tensor() if k == "b" else v) for k, v in model.items()}


def _expect(sources, path):
    """Zeros, except each model variable listed in ``sources`` takes that checkpoint tensor."""
    reader = NewCheckpointReader(path)
    shapes = {"a": (4, 3), "b": (6, 2), "c": (2,), "step": ()}
    out = {k: np.zeros(s, np.int64 if k == "step" else np.float32) for k, s in shapes.items()}
    for k, name in sources.items():
        out[k] = reader.get_tensor(name)
    return out


ASSIGNMENT_MAPS = [
    ("scope_to_scope", lambda m: {"old/": "new/"}, {"a": "old/a", "b": "old/b", "step": "old/step"}),
    ("name_to_name", lambda m: {"old/a": "new/a"}, {"a": "old/a"}),
    ("name_to_variable", lambda m: {"old/a": m["a"]}, {"a": "old/a"}),
    ("partitioned_by_name", lambda m: {"old/b": "new/b"}, {"b": "old/b"}),
    ("partitioned_as_list", lambda m: {"old/b": list(m["b"])}, {"b": "old/b"}),
    ("partitioned_variable", lambda m: {"old/b": m["b"]}, {"b": "old/b"}),
    ("root_to_scope", lambda m: {"/": "root/"}, {"c": "c"}),
]


@pytest.mark.parametrize("case,mapping,sources", ASSIGNMENT_MAPS, ids=[r[0] for r in ASSIGNMENT_MAPS])
def test_init_from_checkpoint_forms(ckpt, case, mapping, sources):
    with tf.Graph().as_default():
        model = _new_model()
        init_from_checkpoint(ckpt, mapping(model))
        got = _run(model)
    want = _expect(sources, ckpt)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def test_init_from_checkpoint_directory_and_errors(ckpt, tmp_path):
    with tf.Graph().as_default():
        model = _new_model()
        with pytest.raises(ValueError, match="not found"):
            init_from_checkpoint(ckpt, {"old/missing": "new/a"})
        with pytest.raises(ValueError, match="doesn't match"):
            init_from_checkpoint(ckpt, {"c": model["a"]})
        with pytest.raises(ValueError, match="scope only"):
            init_from_checkpoint(ckpt, {"old/a": "new/"})
        with pytest.raises(ValueError):
            init_from_checkpoint(str(tmp_path), {"old/": "new/"})


def test_init_from_checkpoint_matches_tensorflow(ckpt):
    tf_ = pytest.importorskip("tensorflow")
    v1 = tf_.compat.v1
    with tf_.Graph().as_default():
        with v1.variable_scope("new"):
            a = v1.get_variable("a", [4, 3], initializer=v1.zeros_initializer())
            b = v1.get_variable("b", [6, 2], initializer=v1.zeros_initializer(),
                                partitioner=v1.fixed_size_partitioner(3))
        v1.train.init_from_checkpoint(ckpt, {"old/": "new/"})
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            want = {"a": sess.run(a), "b": sess.run(b.as_tensor())}
    with tf.Graph().as_default():
        model = _new_model()
        init_from_checkpoint(ckpt, {"old/": "new/"})
        got = _run(model)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])


WARM = [
    ("default_regex", lambda m: ".*", None, {"a": "new/a", "b": "new/b"}),
    ("regex", lambda m: "new/a", None, {"a": "new/a"}),
    ("regex_list_over_global", lambda m: ["new/"], None, {"a": "new/a", "b": "new/b", "step": "new/step"}),
    ("variable_list", lambda m: [m["a"], m["step"]], None, {"a": "new/a", "step": "new/step"}),
    ("prev_names", lambda m: "new/a", {"new/a": "old/a"}, {"a": "old/a"}),
    ("prev_names_partitioned", lambda m: ".*", {"new/b": "old/b"}, {"a": "new/a", "b": "old/b"}),
    ("none", lambda m: None, None, {}),
]


@pytest.mark.parametrize("case,select,prev,sources", WARM, ids=[r[0] for r in WARM])
def test_warm_start_forms(ckpt, case, select, prev, sources):
    with tf.Graph().as_default():
        model = _new_model(with_c=False)  # root/c is not in the checkpoint under its own name
        warm_start(ckpt, vars_to_warm_start=select(model), var_name_to_prev_var_name=prev)
        got = _run(model)
    want = _expect(sources, ckpt)
    for k in got:
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


def test_warm_start_errors(ckpt):
    with tf.Graph().as_default():
        _new_model()
        # vocabulary remapping is supported now (test_warm_start_vocab.py); an unknown name is TF's ValueError
        with pytest.raises(ValueError, match="var_name_to_vocab_info that were not used"):
            warm_start(ckpt, "new/a", var_name_to_vocab_info={"new/zzz": object()})
        with pytest.raises(ValueError, match="not used"):
            warm_start(ckpt, "new/a", var_name_to_prev_var_name={"new/zzz": "old/a"})
        with pytest.raises(ValueError, match="all `Variable` or all `str`"):
            warm_start(ckpt, ["new/a", 3])
