"""Checkpoints move between ref's Saver / Checkpoint and TensorFlow's, both
ways. For each optimizer: a model trained a few steps under ref is saved; TF's
own Saver restores it (names: those TF's Saver gives the same model; values:
exactly ref's) and ``tf.train.load_checkpoint`` reads it; TF trains on, saves,
and ref restores TF's values exactly. The ``checkpoint`` state file parses in
TF's ``get_checkpoint_state``. TensorFlow is the oracle."""
import importlib
import os

import numpy as np
import pytest

import ref
from ref.checkpoint import get_checkpoint_state as ref_get_checkpoint_state
from ref.checkpoint.saver import Saver
from ref.checkpoint.trackable import Checkpoint

tf = pytest.importorskip("tensorflow")
v1 = tf.compat.v1

W0 = np.array([[0.5, -1.0], [2.0, 0.25], [-0.75, 1.5]], np.float32)
B0 = np.array([0.1, -0.2], np.float32)
X = np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 3.0]], np.float32)

OPTIMIZERS = [
    # (class name, module, kwargs; "GS" is replaced by the global step)
    ("GradientDescentOptimizer", "gradient_descent", {"learning_rate": 0.1}),
    ("MomentumOptimizer", "momentum", {"learning_rate": 0.1, "momentum": 0.9}),
    ("AdagradOptimizer", "adagrad", {"learning_rate": 0.1}),
    ("AdagradDAOptimizer", "adagrad_da", {"learning_rate": 0.1, "global_step": "GS"}),
    ("AdadeltaOptimizer", "adadelta", {"learning_rate": 1.0}),
    ("AdamOptimizer", "adam", {"learning_rate": 0.1}),
    ("RMSPropOptimizer", "rmsprop", {"learning_rate": 0.1, "centered": True, "momentum": 0.5}),
    ("FtrlOptimizer", "ftrl", {"learning_rate": 0.1}),
    ("ProximalAdagradOptimizer", "proximal_adagrad", {"learning_rate": 0.1}),
    ("ProximalGradientDescentOptimizer", "proximal_gradient_descent", {"learning_rate": 0.1}),
]


def _kwargs(kwargs, gs):
    return {k: (gs if v == "GS" else v) for k, v in kwargs.items()}


def _ref_model(cls_name, module, kwargs, use_resource=False):
    from ref.graph_ops.training_util import get_or_create_global_step
    cls = getattr(importlib.import_module(f"ref.optimizers.{module}"), cls_name)
    w = ref.Variable(W0, name="w", use_resource=use_resource)
    b = ref.Variable(B0, name="b", use_resource=use_resource)
    gs = get_or_create_global_step()
    loss = ref.reduce_sum(ref.square(ref.add(ref.matmul(X, w), b)))
    opt = cls(**_kwargs(kwargs, gs))
    return opt, opt.minimize(loss, global_step=gs), [w, b]


def _tf_model(cls_name, kwargs, use_resource=False):
    w = v1.Variable(W0, name="w", use_resource=use_resource)
    b = v1.Variable(B0, name="b", use_resource=use_resource)
    gs = v1.train.get_or_create_global_step()
    loss = v1.reduce_sum(v1.square(v1.add(v1.matmul(X, w), b)))
    opt = getattr(v1.train, cls_name)(**_kwargs(kwargs, gs))
    return opt, opt.minimize(loss, global_step=gs), [w, b]


def _values(sess, variables):
    return {v.op.name: sess.run(v) for v in variables}


@pytest.mark.parametrize("cls_name,module,kwargs", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_saver_checkpoints_move_both_ways(tmp_path, cls_name, module, kwargs):
    # ref trains 3 steps and saves
    with ref.Graph().as_default():
        _, train, _ = _ref_model(cls_name, module, kwargs)
        saver = Saver()
        with ref.Session() as sess:
            sess.run(ref.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            ref_values = _values(sess, ref.global_variables())
            ref_path = saver.save(sess, str(tmp_path / "ref" / "model"), global_step=3)
    # TF restores it: same names as TF's own Saver uses, ref's values exactly
    with tf.Graph().as_default():
        _, train, _ = _tf_model(cls_name, kwargs)
        tf_saver = v1.train.Saver()
        with v1.Session() as sess:
            tf_saver.restore(sess, ref_path)
            tf_variables = v1.global_variables()
            restored = _values(sess, tf_variables)
            for _ in range(2):
                sess.run(train)
            tf_values = _values(sess, tf_variables)
            tf_path = tf_saver.save(sess, str(tmp_path / "tf" / "model"), global_step=5)
    assert sorted(restored) == sorted(ref_values) == sorted(n for n, _ in tf.train.list_variables(ref_path))
    reader = tf.train.load_checkpoint(ref_path)
    for name, value in ref_values.items():
        np.testing.assert_array_equal(restored[name], value)
        np.testing.assert_array_equal(reader.get_tensor(name), value)
    assert v1.train.get_checkpoint_state(str(tmp_path / "ref")).model_checkpoint_path == ref_path
    # ref restores TF's checkpoint exactly
    with ref.Graph().as_default():
        _ref_model(cls_name, module, kwargs)
        with ref.Session() as sess:
            Saver().restore(sess, tf_path)
            got = _values(sess, ref.global_variables())
    assert sorted(got) == sorted(tf_values)
    for name, value in tf_values.items():
        np.testing.assert_array_equal(got[name], value)


STATE_FILES = [("absolute", False), ("relative", True)]


@pytest.mark.parametrize("case,relative", STATE_FILES, ids=[s[0] for s in STATE_FILES])
def test_state_file_parses_in_tensorflow(tmp_path, case, relative):
    with ref.Graph().as_default():
        ref.Variable(1.0, name="v")
        saver = Saver(max_to_keep=2, save_relative_paths=relative)
        with ref.Session() as sess:
            sess.run(ref.global_variables_initializer())
            for step in (1, 2, 3):
                saver.save(sess, str(tmp_path / "m"), global_step=step)
    state = v1.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == str(tmp_path / "m-3")
    assert list(state.all_model_checkpoint_paths) == [str(tmp_path / "m-2"), str(tmp_path / "m-3")]
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-3")
    assert ref_get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths == state.all_model_checkpoint_paths


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_partitioned_variables_move_both_ways(tmp_path, use_resource):
    init = np.arange(12, dtype=np.float32).reshape(6, 2)
    with ref.Graph().as_default():
        e = ref.get_variable("e", [6, 2], initializer=ref.zeros_initializer(),
                             partitioner=ref.fixed_size_partitioner(3), use_resource=use_resource)
        saver = Saver()
        with ref.Session() as sess:
            sess.run(ref.global_variables_initializer())
            sess.run([p.assign(init[2 * i:2 * i + 2]) for i, p in enumerate(e)])
            path = saver.save(sess, str(tmp_path / "m"))
    np.testing.assert_array_equal(tf.train.load_checkpoint(path).get_tensor("e"), init)
    with tf.Graph().as_default():
        te = v1.get_variable("e", [6, 2], initializer=v1.zeros_initializer(),
                             partitioner=v1.fixed_size_partitioner(2), use_resource=use_resource)
        s = v1.train.Saver()
        with v1.Session() as sess:
            s.restore(sess, path)
            np.testing.assert_array_equal(sess.run(te.as_tensor()), init)
            sess.run([p.assign(p * 2.0) for p in te])
            tf_path = s.save(sess, str(tmp_path / "t"))
    with ref.Graph().as_default():
        e = ref.get_variable("e", [6, 2], initializer=ref.zeros_initializer(),
                             partitioner=ref.fixed_size_partitioner(3), use_resource=use_resource)
        with ref.Session() as sess:
            Saver().restore(sess, tf_path)
            np.testing.assert_array_equal(sess.run(e.as_tensor()), init * 2.0)


# -- object-based checkpoints (tf.train.Checkpoint) ----------------------------------------------

def test_object_checkpoints_move_both_ways(tmp_path):
    with ref.Graph().as_default() as g:
        opt, train, (w, b) = _ref_model("AdamOptimizer", "adam", {"learning_rate": 0.1})
        ck = Checkpoint(model=w, bias=b, opt=opt)
        with ref.Session() as sess:
            sess.run(ref.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            path = ck.save(str(tmp_path / "ref" / "ckpt"), session=sess)
            want = sess.run([w, b, opt.get_slot(w, "m"), opt.get_slot(b, "v")])
    assert path == str(tmp_path / "ref" / "ckpt-1")
    with tf.Graph().as_default():
        topt, ttrain, (tw, tb) = _tf_model("AdamOptimizer", {"learning_rate": 0.1})
        tck = v1.train.Checkpoint(model=tw, bias=tb, opt=topt)
        with v1.Session() as sess:
            tck.restore(path).assert_consumed().run_restore_ops(sess)
            got = sess.run([tw, tb, topt.get_slot(tw, "m"), topt.get_slot(tb, "v")])
            assert sess.run(tck.save_counter) == 1
            sess.run(v1.train.get_global_step().initializer)  # not tracked by the Checkpoint
            sess.run(ttrain)
            tpath = tck.save(str(tmp_path / "tf" / "ckpt"), session=sess)
            twant = sess.run([tw, tb, topt.get_slot(tw, "m"), topt.get_slot(tb, "v")] +
                             list(topt._get_beta_accumulators()))
    for x, y in zip(got, want):
        np.testing.assert_array_equal(x, y)
    assert sorted(n for n, _ in tf.train.list_variables(path)) == sorted(n for n, _ in tf.train.list_variables(tpath))
    with ref.Graph().as_default() as g:
        opt, train, (w, b) = _ref_model("AdamOptimizer", "adam", {"learning_rate": 0.1})
        ck = Checkpoint(model=w, bias=b, opt=opt)
        with ref.Session() as sess:
            status = ck.restore(tpath)
            status.assert_consumed().run_restore_ops(sess)
            got = sess.run([w, b, opt.get_slot(w, "m"), opt.get_slot(b, "v"),
                            opt._get_non_slot_variable("beta1_power", g), opt._get_non_slot_variable("beta2_power", g)])
            assert sess.run(ck.save_counter) == 2
            assert ck.save(str(tmp_path / "ref" / "ckpt"), session=sess) == str(tmp_path / "ref" / "ckpt-3")
    for x, y in zip(got, twant):
        np.testing.assert_array_equal(x, y)


def test_object_checkpoint_statuses(tmp_path):
    with ref.Graph().as_default():
        w = ref.Variable(np.ones(3, np.float32), name="w")
        ck = Checkpoint(w=w)
        with ref.Session() as sess:
            ck.restore(None).initialize_or_restore(sess)
            sess.run(w.assign(w * 5.0))
            written = ck.write(str(tmp_path / "plain"), session=sess)
            named = Saver([w]).save(sess, str(tmp_path / "named"), write_meta_graph=False)
    assert written == str(tmp_path / "plain")
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in dict(tf.train.list_variables(written))
    assert not os.path.exists(tmp_path / "checkpoint") or "plain" not in (tmp_path / "checkpoint").read_text()
    with ref.Graph().as_default():
        w = ref.Variable(np.zeros(3, np.float32), name="w")
        extra = ref.Variable(np.full(2, 7.0, np.float32), name="extra")
        ck = Checkpoint(w=w, extra=extra)
        with ref.Session() as sess:
            status = ck.restore(written)
            with pytest.raises(AssertionError):
                status.assert_existing_objects_matched()
            status.assert_nontrivial_match()
            status.initialize_or_restore(sess)
            np.testing.assert_array_equal(sess.run(w), np.full(3, 5.0, np.float32))
            np.testing.assert_array_equal(sess.run(extra), np.full(2, 7.0, np.float32))
            # a name-based (Saver) checkpoint is matched by names
            sess.run(w.assign(np.zeros(3, np.float32)))
            by_name = ck.restore(named)
            with pytest.raises(AssertionError, match="extra"):
                by_name.assert_consumed()
            by_name.run_restore_ops(sess)
            np.testing.assert_array_equal(sess.run(w), np.full(3, 5.0, np.float32))
        with pytest.raises(AssertionError):
            ck.restore(None).assert_consumed()
        with pytest.raises(ValueError, match="trackable"):
            Checkpoint(x=3)


def test_saver_restores_object_based_checkpoint_by_names(tmp_path):
    with tf.Graph().as_default():
        tw = v1.Variable(np.full(2, 3.0, np.float32), name="w", use_resource=True)
        tck = v1.train.Checkpoint(model=tw)
        with v1.Session() as sess:
            sess.run(tw.initializer)
            path = tck.save(str(tmp_path / "ckpt"), session=sess)
    with ref.Graph().as_default():
        w = ref.Variable(np.zeros(2, np.float32), name="w")
        with ref.Session() as sess:
            Saver([w]).restore(sess, path)
            np.testing.assert_array_equal(sess.run(w), np.full(2, 3.0, np.float32))
