"""``tf.logging``: the "tensorflow" logger, TF's levels and format, the
counting helpers, and the training messages that go through it (compared with
TensorFlow where it is installed)."""
from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ref as tf
from ref.platform import tf_logging as _under_test  # noqa: F401  (the module these tests cover)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name,value", [("DEBUG", 10), ("INFO", 20), ("WARN", 30), ("ERROR", 40), ("FATAL", 50)])
def test_levels_are_tensorflows_numbers(name, value):
    assert getattr(tf.logging, name) == value


def test_the_logger_is_named_tensorflow():
    assert tf.get_logger() is logging.getLogger("tensorflow")
    assert tf.logging.get_logger() is tf.get_logger()


@pytest.mark.parametrize("call,level,text", [
    (lambda: tf.logging.debug("d %d", 1), logging.DEBUG, "d 1"),
    (lambda: tf.logging.info("i %s", "x"), logging.INFO, "i x"),
    (lambda: tf.logging.warn("w"), logging.WARNING, "w"),
    (lambda: tf.logging.warning("w2"), logging.WARNING, "w2"),
    (lambda: tf.logging.error("e %.1f", 2.5), logging.ERROR, "e 2.5"),
    (lambda: tf.logging.fatal("f"), logging.CRITICAL, "f"),
    (lambda: tf.logging.log(tf.logging.INFO, "l"), logging.INFO, "l"),
    (lambda: tf.logging.vlog(tf.logging.ERROR, "v %d", 3), logging.ERROR, "v 3"),
    (lambda: tf.logging.log_if(tf.logging.INFO, "yes", True), logging.INFO, "yes"),
    (lambda: tf.logging.TaskLevelStatusMessage("status"), logging.ERROR, "status"),
])
def test_each_function_logs_at_its_level(caplog, call, level, text):
    with caplog.at_level(logging.DEBUG, logger="tensorflow"):
        call()
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [("tensorflow", level, text)]
    assert caplog.records[0].pathname == __file__  # the caller's line, not tf_logging's


def test_log_if_false_logs_nothing(caplog):
    with caplog.at_level(logging.DEBUG, logger="tensorflow"):
        tf.logging.log_if(tf.logging.INFO, "no", False)
    assert caplog.records == []


@pytest.mark.parametrize("helper,n,calls,logged", [
    ("log_every_n", 3, 7, [0, 3, 6]), ("log_every_n", 1, 3, [0, 1, 2]),
    ("log_first_n", 2, 5, [0, 1]), ("log_first_n", 0, 2, []),
])
def test_counting_helpers_count_per_call_site(caplog, helper, n, calls, logged):
    # A call site is (file, line): each case compiles its loop under its own file name.
    site = compile(f"for i in range({calls}):\n    tf.logging.{helper}(tf.logging.INFO, 'call %d', {n}, i)\n",
                   f"<{helper}-{n}-{calls}>", "exec")
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        exec(site, {"tf": tf})
    assert [r.getMessage() for r in caplog.records] == [f"call {i}" for i in logged]


def test_set_verbosity_filters_and_get_verbosity_reports(caplog):
    before = tf.logging.get_verbosity()
    try:
        tf.logging.set_verbosity(tf.logging.ERROR)
        assert tf.logging.get_verbosity() == 40
        tf.logging.warning("dropped")
        tf.logging.error("kept")
        assert [r.getMessage() for r in caplog.records if r.name == "tensorflow"] == ["kept"]
    finally:
        tf.logging.set_verbosity(before)


def test_flush_is_not_implemented_as_in_tensorflow():
    with pytest.raises(NotImplementedError):
        tf.logging.flush()


_SCRIPT = """
import sys
{imp}
print(tf.logging.get_verbosity())
tf.logging.info("hidden")
tf.logging.warning("shown %d", 1)
tf.logging.set_verbosity(tf.logging.INFO)
tf.logging.info("loss = %s, step = %s", np.float32(0.6931472), 1)
"""


def _run(imp):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, "-c", "import numpy as np\n" + _SCRIPT.format(imp=imp)], cwd=ROOT,
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout, [line for line in out.stderr.splitlines() if ":tensorflow:" in line]


def test_fresh_process_defaults_to_warn_with_tensorflows_format():
    stdout, stderr = _run("import ref as tf")
    assert stdout.strip() == "30"
    assert stderr == ["WARNING:tensorflow:shown 1", "INFO:tensorflow:loss = 0.6931472, step = 1"]


def test_fresh_process_matches_tensorflow():
    pytest.importorskip("tensorflow")
    assert _run("import ref as tf") == _run("import tensorflow.compat.v1 as tf")


def _hook_messages(tf1, caplog, build):
    """The tensorflow logger's INFO messages while a MonitoredSession runs three
    steps with the hooks ``build(tf1)`` returns."""
    caplog.clear()
    with tf1.Graph().as_default():
        hooks, fetch = build(tf1)
        with caplog.at_level(logging.INFO, logger="tensorflow"):
            with tf1.train.MonitoredSession(hooks=hooks) as sess:
                for _ in range(3):
                    sess.run(fetch)
    return [re.sub(r" \(\d+\.\d{3} sec\)$", " (T sec)", r.getMessage()) for r in caplog.records
            if r.name == "tensorflow"]


def _logging_hook(tf1):
    x = tf1.placeholder_with_default(np.float32([0.5, 0.25]), [2])
    loss = tf1.identity(x[0] + np.float32(0.1931472), name="loss")
    steps = tf1.constant([1, 2], name="steps")
    return [tf1.train.LoggingTensorHook({"loss": loss, "vec": x, "steps": steps}, every_n_iter=2)], loss


def test_logging_tensor_hook_prints_values_as_tensorflow(caplog):
    msgs = _hook_messages(tf, caplog, _logging_hook)
    assert [m for m in msgs if m.startswith("loss")] == [
        "loss = 0.6931472, steps = [1 2], vec = [0.5  0.25]",
        "loss = 0.6931472, steps = [1 2], vec = [0.5  0.25] (T sec)"]
    t = pytest.importorskip("tensorflow").compat.v1
    theirs = _hook_messages(t, caplog, _logging_hook)
    assert [m for m in msgs if m.startswith("loss")] == [m for m in theirs if m.startswith("loss")]


def test_step_counter_hook_reports_global_step_per_second(caplog, tmp_path):
    def build(t):
        step = t.train.get_or_create_global_step()
        return [t.train.StepCounterHook(every_n_steps=1, output_dir=str(tmp_path))], t.assign_add(step, 1)
    msgs = _hook_messages(tf, caplog, build)
    rates = [m for m in msgs if m.startswith("global_step/sec: ")]
    assert rates and all(float(m.split(": ")[1]) > 0 for m in rates)


def test_saver_restore_logs_the_checkpoint(caplog, tmp_path):
    with tf.Graph().as_default(), tf.Session() as s:
        v = tf.Variable(1.0, name="v")
        saver = tf.train.Saver()
        s.run(v.initializer)
        path = saver.save(s, str(tmp_path / "model"))
        with caplog.at_level(logging.INFO, logger="tensorflow"):
            saver.restore(s, path)
    assert f"Restoring parameters from {path}" in [r.getMessage() for r in caplog.records]


def _session_messages(T, caplog, logdir, kind):
    """INFO messages of one Supervisor or MonitoredTrainingSession run (three
    steps; no timed services), with the directory and the varying parts
    (rates, TF's deprecation notices) taken out."""
    caplog.clear()
    with T.Graph().as_default():
        step = T.train.get_or_create_global_step()
        w = T.Variable(1.0, name="w")
        train = T.train.GradientDescentOptimizer(0.1).minimize(T.square(w), global_step=step)
        with caplog.at_level(logging.INFO, logger="tensorflow"):
            if kind == "supervisor":
                sv = T.train.Supervisor(logdir=logdir, save_model_secs=0, save_summaries_secs=0)
                with sv.managed_session() as s:
                    for _ in range(3):
                        s.run(train)
                    sv.saver.save(s, sv.save_path, global_step=step)
            else:
                with T.train.MonitoredTrainingSession(checkpoint_dir=logdir, save_checkpoint_steps=2,
                                                      save_summaries_steps=None, save_summaries_secs=None,
                                                      log_step_count_steps=None) as s:
                    for _ in range(3):
                        s.run(train)
    keep = ("Running", "Done running", "Starting", "Restoring", "Create", "Graph was", "Calling", "Saving")
    return [r.getMessage().replace(logdir, "DIR") for r in caplog.records
            if r.name == "tensorflow" and r.getMessage().startswith(keep)]


SESSION_MESSAGES = {
    "supervisor": [
        ["Running local_init_op.", "Done running local_init_op.", "Starting standard services.",
         "Starting queue runners."],
        ["Restoring parameters from DIR/model.ckpt-3", "Running local_init_op.", "Done running local_init_op.",
         "Starting standard services.", "Starting queue runners."]],
    "monitored": [
        ["Create CheckpointSaverHook.", "Graph was finalized.", "Running local_init_op.",
         "Done running local_init_op.", "Calling checkpoint listeners before saving checkpoint 0...",
         "Saving checkpoints for 0 into DIR/model.ckpt.", "Calling checkpoint listeners after saving checkpoint 0...",
         "Calling checkpoint listeners before saving checkpoint 2...",
         "Saving checkpoints for 2 into DIR/model.ckpt.", "Calling checkpoint listeners after saving checkpoint 2...",
         "Calling checkpoint listeners before saving checkpoint 3...",
         "Saving checkpoints for 3 into DIR/model.ckpt.", "Calling checkpoint listeners after saving checkpoint 3..."],
        ["Create CheckpointSaverHook.", "Graph was finalized.", "Restoring parameters from DIR/model.ckpt-3",
         "Running local_init_op.", "Done running local_init_op.",
         "Calling checkpoint listeners before saving checkpoint 3...",
         "Saving checkpoints for 3 into DIR/model.ckpt.", "Calling checkpoint listeners after saving checkpoint 3...",
         "Calling checkpoint listeners before saving checkpoint 5...",  # every 2 steps from the restored 3
         "Saving checkpoints for 5 into DIR/model.ckpt.", "Calling checkpoint listeners after saving checkpoint 5...",
         "Calling checkpoint listeners before saving checkpoint 6...",
         "Saving checkpoints for 6 into DIR/model.ckpt.",
         "Calling checkpoint listeners after saving checkpoint 6..."]],
}


@pytest.mark.parametrize("kind", sorted(SESSION_MESSAGES))
def test_session_messages_are_tensorflows(caplog, tmp_path, kind):
    ours = [_session_messages(tf, caplog, str(tmp_path / "ref"), kind) for _ in range(2)]  # fresh, then restored
    assert ours == SESSION_MESSAGES[kind]
    t = pytest.importorskip("tensorflow").compat.v1
    assert ours == [_session_messages(t, caplog, str(tmp_path / "tf"), kind) for _ in range(2)]


def test_import_meta_graph_without_variables_says_no_saver(caplog, tmp_path):
    with tf.Graph().as_default():
        tf.constant(1.0, name="c")
        path = str(tmp_path / "g.meta")
        tf.train.export_meta_graph(path)
    with tf.Graph().as_default(), caplog.at_level(logging.INFO, logger="tensorflow"):
        assert tf.train.import_meta_graph(path) is None
    assert "Saver not created because there are no variables in the graph to restore" in [
        r.getMessage() for r in caplog.records]
