"""MonitoredSession, MonitoredTrainingSession, hooks and SessionManager
(seed 002_05f9b9b98e89c771.txt, ``tf.compat.v1.train.MonitoredSession``,
``MonitoredTrainingSession``, ``SessionManager``), compared with
tensorflow.compat.v1 where it runs the same program."""
import logging
import os
import time

import numpy as np

import pytest

import ref
from ref.types import errors
from ref.training import hooks as H
from ref.training import monitored as M
from ref.training.session_manager import SessionManager

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _model(tf, lr=0.1):
    gs = tf.train.get_or_create_global_step()
    w = tf.Variable(1.0, name="w")
    loss = tf.square(w - 3.0)
    tf.summary.scalar("loss", loss)
    train = tf.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs)
    return gs, w, loss, train


def _train(tf, mts, stop_hook, ckpt_dir, last_step, summary_steps):
    """Builds the model in a fresh graph and trains to ``last_step``; returns
    (runs made, global step at start)."""
    with tf.Graph().as_default():
        gs, w, loss, train = _model(tf)
        with mts(checkpoint_dir=ckpt_dir, hooks=[stop_hook(last_step=last_step)],
                 save_summaries_steps=summary_steps, log_step_count_steps=None) as sess:
            start = int(sess.run(gs))
            runs = 0
            while not sess.should_stop():
                sess.run(train)
                runs += 1
    return runs, start


def _summary_steps(tf, logdir):
    steps, logs = [], []
    for name in sorted(os.listdir(logdir)):
        if name.startswith("events.out.tfevents"):
            for e in tf.compat.v1.train.summary_iterator(os.path.join(logdir, name)):
                if e.HasField("summary"):
                    steps += [(e.step, v.tag) for v in e.summary.value]
                if e.HasField("session_log"):
                    logs.append((e.step, e.session_log.status))
    return steps, logs


@pytest.mark.parametrize("last_step,summary_steps", [(3, 1), (5, 2), (4, 100)])
def test_training_checkpoints_summaries_resume_like_tf(tmp_path, last_step, summary_steps):
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    results = {}
    for who, lib, mts, hook in [("ref", ref, M.MonitoredTrainingSession, H.StopAtStepHook),
                                ("tf", v1, v1.train.MonitoredTrainingSession, v1.train.StopAtStepHook)]:
        d = str(tmp_path / who)
        first = _train(lib, mts, hook, d, last_step, summary_steps)
        second = _train(lib, mts, hook, d, 2 * last_step, summary_steps)
        files = sorted(f for f in os.listdir(d) if not f.startswith("events."))
        reader = tf.train.load_checkpoint(d)  # TF reads ref's checkpoints
        values = {k: reader.get_tensor(k) for k in ("w", "global_step")}
        ckpt = os.path.basename(tf.train.latest_checkpoint(d))
        results[who] = (first, second, files, values, ckpt, _summary_steps(tf, d))
    r, t = results["ref"], results["tf"]
    assert r[0] == (last_step, 0) and r[1] == (last_step, last_step)  # resumed at step N
    assert r[0] == t[0] and r[1] == t[1]
    assert r[2] == t[2]
    assert r[3]["global_step"] == t[3]["global_step"] == 2 * last_step
    np.testing.assert_allclose(r[3]["w"], t[3]["w"], rtol=1e-6)
    assert r[4] == t[4] == f"model.ckpt-{2 * last_step}"
    assert r[5] == t[5]


class _Recorder(H.SessionRunHook):
    def __init__(self, log, stop_after=None):
        self.log, self.stop_after, self.runs = log, stop_after, 0

    def begin(self):
        self.log.append("begin")

    def after_create_session(self, session, coord):
        self.log.append(("after_create_session", ref.get_default_graph().finalized))

    def before_run(self, run_context):
        self.log.append("before_run")
        return H.SessionRunArgs(fetches=self.fetch) if self.fetch is not None else None

    def after_run(self, run_context, run_values):
        self.log.append(("after_run", None if run_values.results is None else float(run_values.results)))
        self.runs += 1
        if self.stop_after is not None and self.runs >= self.stop_after:
            run_context.request_stop()

    def end(self, session):
        self.log.append("end")


@pytest.mark.parametrize("runs,stop_after,fetch", [(2, None, False), (3, 3, True), (1, 1, True)])
def test_hook_call_order(runs, stop_after, fetch):
    """begin, after_create_session (graph finalized), before_run/after_run per run, end."""
    log = []
    with ref.Graph().as_default() as g:
        v = ref.Variable(2.0, name="v")
        inc = ref.assign_add(v, 1.0)
        hook = _Recorder(log, stop_after)
        hook.fetch = v.read_value() if fetch else None
        with M.MonitoredSession(hooks=[hook]) as sess:
            n = 0
            while not sess.should_stop() and n < runs:
                sess.run(inc)
                n += 1
        assert not g.finalized  # unfinalized again at close
    expected = ["begin", ("after_create_session", True)]
    for i in range(runs):
        expected += ["before_run", ("after_run", None)]
    if fetch:  # the hook's fetch runs with the caller's assign_add; the value is 2 or 3 for run 0...
        got = [x if not (isinstance(x, tuple) and x[0] == "after_run") else ("after_run", None) for x in log]
    else:
        got = log
    assert got == expected + ["end"]


@pytest.mark.parametrize("fail,expect_raise", [(True, True), (False, False)])
def test_nan_tensor_hook(fail, expect_raise):
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float32, [])
        loss = ref.identity(x)
        with M.MonitoredSession(hooks=[H.NanTensorHook(loss, fail_on_nan_loss=fail)]) as sess:
            assert sess.run(loss, feed_dict={x: 1.5}) == 1.5 and not sess.should_stop()
            if expect_raise:
                with pytest.raises(H.NanLossDuringTrainingError, match="NaN loss during training."):
                    sess.run(loss, feed_dict={x: np.nan})
            else:
                sess.run(loss, feed_dict={x: np.nan})
                assert sess.should_stop()


@pytest.mark.parametrize("every_n_iter,runs,logged_iters", [(1, 3, [0, 1, 2]), (2, 5, [0, 2, 4]), (3, 4, [0, 3])])
def test_logging_tensor_hook(caplog, every_n_iter, runs, logged_iters):
    """Logs ``tag = value`` joined by ", " in tag order every ``every_n_iter`` runs."""
    with ref.Graph().as_default():
        step = ref.Variable(0, name="step")
        inc = ref.assign_add(step, 1)
        doubled = ref.multiply(step.read_value(), 2, name="doubled")
        hook = H.LoggingTensorHook({"b_double": doubled, "a_step": step.read_value()}, every_n_iter=every_n_iter)
        with caplog.at_level(logging.INFO, logger="tensorflow"):
            with M.MonitoredSession(hooks=[hook]) as sess:
                for _ in range(runs):
                    sess.run(inc)
                    caplog.records.append(None)  # marks the end of a run
    out, it = [], 0
    for rec in caplog.records:
        if rec is None:
            it += 1
        elif rec.getMessage().startswith("a_step = "):
            out.append((it, rec.getMessage().split(" (")[0]))
    assert [i for i, _ in out] == logged_iters
    for _, msg in out:
        a, b = [int(p.split(" = ")[1]) for p in msg.split(", ")]
        # As TF (checked with tensorflow.compat.v1): ``doubled`` reads the step before
        # the run's unordered increment, the fetched read_value of the ref variable after it.
        assert b == 2 * (a - 1) and msg.split(", ")[1].startswith("b_double = ")


def test_run_step_fn_request_stop():
    """The seed's run_step_fn example: step_fn stops once v <= 4.5."""
    with ref.Graph().as_default():
        c = ref.placeholder(ref.float32)
        v = ref.add(c, 4.0)
        w = ref.add(c, 0.5)

        def step_fn(step_context):
            a = step_context.session.run(fetches=v, feed_dict={c: 0.5})
            if a <= 4.5:
                step_context.request_stop()
            return step_context.run_with_hooks(fetches=w, feed_dict={c: 0.1})

        with M.MonitoredSession() as session:
            while not session.should_stop():
                session.run_step_fn(step_fn)
            assert session.should_stop()
        with M.MonitoredSession() as session:
            with pytest.raises(ValueError, match="step_context"):
                session.run_step_fn(lambda ctx: None)


class _AbortOnce(H.SessionRunHook):
    def __init__(self, error):
        self.error, self.created, self.raised = error, 0, False

    def after_create_session(self, session, coord):
        self.created += 1

    def before_run(self, run_context):
        if not self.raised:
            self.raised = True
            raise self.error(None, None, "preempted")


@pytest.mark.parametrize("error,sessions", [(errors.AbortedError, 2), (errors.UnavailableError, 2),
                                            (errors.InternalError, None)])
def test_recovery_recreates_session(tmp_path, error, sessions):
    """AbortedError and UnavailableError of an in-process session: the session is
    re-created (restored from the checkpoint) and the run retried, as TF's
    _RecoverableSession (on a grpc:// target an UnavailableError keeps the session:
    tests/distributed/test_bounded_failures.py); other errors propagate."""
    with ref.Graph().as_default():
        v = ref.Variable(1.0, name="v")
        saver = ref.train.Saver()
        with ref.Session() as s:
            s.run(v.initializer)
            s.run(ref.assign(v, 7.0))
            saver.save(s, str(tmp_path / "m"))
        hook = _AbortOnce(error)
        creator = M.ChiefSessionCreator(checkpoint_dir=str(tmp_path), scaffold=M.Scaffold(saver=saver))
        with M.MonitoredSession(session_creator=creator, hooks=[hook]) as sess:
            if sessions:
                assert sess.run(v) == 7.0 and hook.created == sessions
            else:
                with pytest.raises(error):
                    sess.run(v)


class _AlwaysUnavailable(H.SessionRunHook):
    def before_run(self, run_context):
        raise errors.UnavailableError(None, None, "task /job:ps/replica:0/task:0 at h:1 is gone")


def test_recovery_is_bounded(monkeypatch):
    """A task that never answers: the run raises its error after RECOVERY_TIMEOUT_SECS."""
    monkeypatch.setattr(M, "RECOVERY_TIMEOUT_SECS", 1.0)
    with ref.Graph().as_default():
        v = ref.Variable(1.0, name="v")
        with M.MonitoredSession(hooks=[_AlwaysUnavailable()]) as sess:
            start = time.monotonic()
            with pytest.raises(errors.UnavailableError, match="is gone"):
                sess.run(v)
            assert 1.0 <= time.monotonic() - start < 1.0 + 2 * M._RETRY_PAUSE_SECS + 1.0


@pytest.mark.parametrize("checkpoint,init_op,expect", [
    (True, True, ("prepare", 5.0, True)),     # restored: init_op not run
    (False, True, ("prepare", 1.0, False)),   # initialized by init_op
    (False, False, ("error", None, False)),   # nothing to initialize with
])
def test_session_manager_prepare_and_recover(tmp_path, checkpoint, init_op, expect):
    with ref.Graph().as_default():
        v = ref.Variable(1.0, name="v")
        saver = ref.train.Saver()
        if checkpoint:
            with ref.Session() as s:
                s.run(ref.assign(v, 5.0))
                saver.save(s, str(tmp_path / "m"))
        sm = SessionManager(ready_op=ref.report_uninitialized_variables())
        kind, value, recovered = expect
        if kind == "error":
            with pytest.raises(RuntimeError, match="no init_op or init_fn or local_init_op"):
                sm.prepare_session("", saver=saver, checkpoint_dir=str(tmp_path))
        else:
            sess = sm.prepare_session("", init_op=ref.global_variables_initializer() if init_op else None,
                                      saver=saver, checkpoint_dir=str(tmp_path))
            assert sess.run(v) == value
        sess, ok = sm.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
        assert ok == recovered
        with pytest.raises(errors.DeadlineExceededError):
            SessionManager(ready_op=ref.report_uninitialized_variables(),
                           recovery_wait_secs=0.01).wait_for_session("", max_wait_secs=0.02)


@pytest.mark.parametrize("kw,msg", [
    ({}, "One of num_steps or last_step"), ({"num_steps": 1, "last_step": 2}, "Only one of"),
])
def test_stop_at_step_hook_args(kw, msg):
    with pytest.raises(ValueError, match=msg):
        H.StopAtStepHook(**kw)


@pytest.mark.parametrize("every_secs,every_steps,steps,expect", [
    (None, 3, [0, 1, 2, 3, 5, 6], [True, False, False, True, False, True]),
])
def test_second_or_step_timer(every_secs, every_steps, steps, expect):
    timer = H.SecondOrStepTimer(every_secs=every_secs, every_steps=every_steps)
    got = []
    for s in steps:
        t = timer.should_trigger_for_step(s)
        got.append(t)
        if t:
            timer.update_last_triggered_step(s)
    assert got == expect
