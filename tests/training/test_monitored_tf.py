"""MonitoredSession, its hooks, MonitoredTrainingSession and Supervisor checked
against tensorflow.compat.v1: each scenario runs the same code on both and
returns a trace (hook calls, values, errors, files written) that must agree."""
import os

import pytest
from ref.training import monitored as _under_test  # noqa: F401  (the module these tests cover)


class _Recorder:
    """A SessionRunHook factory whose hooks append their calls to ``log``."""

    def __init__(self, tf, log):
        self.tf, self.log = tf, log

    def hook(self, name, stop_after=None):
        tf, log = self.tf, self.log

        class Hook(tf.train.SessionRunHook):
            runs = 0

            def begin(self):
                log.append((name, "begin"))

            def after_create_session(self, session, coord):
                log.append((name, "after_create_session"))

            def before_run(self, run_context):
                log.append((name, "before_run"))

            def after_run(self, run_context, run_values):
                Hook.runs += 1
                log.append((name, "after_run"))
                if stop_after is not None and Hook.runs >= stop_after:
                    run_context.request_stop()

            def end(self, session):
                log.append((name, "end"))

        return Hook()


def _hook_order(tf):
    log = []
    rec = _Recorder(tf, log)
    with tf.Graph().as_default():
        c = tf.constant(1.0)
        with tf.train.MonitoredSession(hooks=[rec.hook("a"), rec.hook("b", stop_after=2)]) as sess:
            while not sess.should_stop():
                log.append(("run", float(sess.run(c))))
        log.append(("closed", sess.should_stop()))
        with tf.train.SingularMonitoredSession(hooks=[rec.hook("s")]) as sess:
            sess.run(c)
            log.append(("raw", type(sess.raw_session()).__name__))
    return log


def _counting(tf, counts):
    class Creator(tf.train.SessionCreator):
        def __init__(self):
            self._chief = tf.train.ChiefSessionCreator()

        def create_session(self):
            counts.append(1)
            return self._chief.create_session()

    return Creator()


def _step_fn_recovers(tf):
    counts, calls = [], []
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [])
        v = tf.identity(p)

        def step_fn(step_context):
            calls.append(1)
            if len(calls) == 1:
                raise tf.errors.AbortedError(None, None, "Abort")
            return step_context.run_with_hooks(fetches=v, feed_dict={p: 3.25})

        with tf.train.MonitoredSession(session_creator=_counting(tf, counts)) as sess:
            value = sess.run_step_fn(step_fn)
        with tf.train.SingularMonitoredSession() as sess:
            calls.clear()
            try:
                sess.run_step_fn(step_fn)
                singular = "no error"
            except tf.errors.AbortedError:
                singular = "AbortedError"
    return [value, len(counts), singular]


def _request_stop_without_with(tf):
    out = []
    with tf.Graph().as_default():
        tf.constant(0.0)
        sess = tf.train.MonitoredSession()
        try:
            out.append(sess.run_step_fn(lambda step_context: step_context.request_stop()))
        except StopIteration:
            out.append("StopIteration")
        out.append(sess.should_stop())
        sess.close()
        with tf.train.MonitoredSession() as sess:
            while not sess.should_stop():
                sess.run_step_fn(lambda step_context: step_context.request_stop())
                out.append("not reached")
        out.append(sess.should_stop())
    return out


def _coordinator_error(tf, error):
    """A hook makes the coordinator stop with ``error`` after the second run."""
    counts, out = [], []

    class Hook(tf.train.SessionRunHook):
        runs = 0

        def after_create_session(self, session, coord):
            self._coord = coord

        def after_run(self, run_context, run_values):
            Hook.runs += 1
            if Hook.runs == 2:
                try:  # TF's Coordinator takes the exception inside its except clause
                    raise error(tf)
                except tf.errors.OpError as e:
                    self._coord.request_stop(e)

    with tf.Graph().as_default():
        c = tf.constant(5)
        sess = tf.train.MonitoredSession(session_creator=_counting(tf, counts), hooks=[Hook()])
        for _ in range(3):
            out.append(int(sess.run(c)))
            out.append(sess.should_stop())
        try:
            sess.close()
            out.append("closed")
        except tf.errors.OpError as e:
            out.append(type(e).__name__)
    return out + [len(counts)]


def _preemption_in_before_run(tf):
    out = []

    class Hook(tf.train.SessionRunHook):
        raised = False

        def before_run(self, run_context):
            if not Hook.raised:
                Hook.raised = True
                raise tf.errors.UnavailableError(None, None, "gone")

    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        inc = tf.assign_add(gs, 1)
        counts = []
        with tf.train.MonitoredSession(session_creator=_counting(tf, counts), hooks=[Hook()]) as sess:
            out.append(int(sess.run(inc)))
        out.append(len(counts))
        Hook.raised = False
        try:
            with tf.train.SingularMonitoredSession(hooks=[Hook()]) as sess:
                sess.run(inc)
        except tf.errors.UnavailableError:
            out.append("UnavailableError")
    return out


@pytest.mark.parametrize("scenario", [
    _hook_order, _step_fn_recovers, _request_stop_without_with, _preemption_in_before_run,
    lambda tf: _coordinator_error(tf, lambda tf: tf.errors.AbortedError(None, None, "preempted")),
    lambda tf: _coordinator_error(tf, lambda tf: tf.errors.UnknownError(None, None, "fatal")),
], ids=["hook_order", "step_fn_recovers", "request_stop_without_with", "preemption_in_before_run",
        "coordinator_preemption_recovers", "coordinator_error_raised_at_close"])
def test_monitored_session_as_tf(rtf, tf1, scenario):
    assert scenario(rtf) == scenario(tf1)


def _training_session_files(tf, directory, **kwargs):
    """Trains 7 steps; returns the checkpoint steps and summary steps written."""
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        tf.summary.scalar("gs", gs)
        train = tf.assign_add(gs, 1)
        with tf.train.MonitoredTrainingSession(checkpoint_dir=directory, log_step_count_steps=None,
                                               **kwargs) as sess:
            while not sess.should_stop():
                if int(sess.run(train)) >= 7:
                    break
    ckpts = sorted(int(f.split("-")[1].split(".")[0]) for f in os.listdir(directory) if f.endswith(".index"))
    summary_steps = []
    for f in sorted(os.listdir(directory)):
        if f.startswith("events.out.tfevents"):
            for e in tf.train.summary_iterator(os.path.join(directory, f)):
                if e.HasField("summary") and any(v.tag == "gs" for v in e.summary.value):
                    summary_steps.append(int(e.step))
    return ckpts, summary_steps


@pytest.mark.parametrize("kwargs", [
    dict(save_checkpoint_steps=3, save_summaries_steps=2),
    dict(save_checkpoint_steps=4, save_summaries_steps=None, save_summaries_secs=None),
    dict(save_checkpoint_secs=None, save_checkpoint_steps=None, save_summaries_steps=5),
], ids=["ckpt3_summary2", "ckpt4_no_summaries", "no_checkpoints_summary5"])
def test_monitored_training_session_saves_as_tf(rtf, tf1, tmp_path, kwargs):
    want = _training_session_files(tf1, str(tmp_path / "tf"), **kwargs)
    got = _training_session_files(rtf, str(tmp_path / "ref"), **kwargs)
    assert got == want


def test_supervisor_non_chief_needs_placed_variables(rtf, tf1, tmp_path):
    for tf in (tf1, rtf):
        with tf.Graph().as_default():
            tf.Variable([1.0, 2.0], name="v")
            with pytest.raises(ValueError, match="When using replicas, all Variables must have their device set: "):
                tf.train.Supervisor(logdir=str(tmp_path), is_chief=False)
        with tf.Graph().as_default(), tf.device("/job:ps"):
            tf.Variable([1.0, 2.0], name="v")
            tf.train.Supervisor(logdir=str(tmp_path), is_chief=False)
