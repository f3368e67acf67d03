"""Supervisor and basic_train_loop (seed 002_05f9b9b98e89c771.txt,
``tf.compat.v1.train.Supervisor``, ``basic_train_loop``), compared with
tensorflow.compat.v1's Supervisor on the same program."""
import os

import pytest

import ref
from ref.types import errors
from ref.training.basic_loops import basic_train_loop
from ref.training.supervisor import Supervisor

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _program(tf, sv_cls, logdir, steps):
    """The seed's managed_session example; saves at the end; returns (start step, end step)."""
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable(1.0, name="w")
        loss = tf.square(w - 3.0)
        tf.summary.scalar("loss", loss)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)
        sv = sv_cls(logdir=logdir, save_model_secs=0, save_summaries_secs=3600)
        with sv.managed_session("") as sess:
            start = int(sess.run(gs))
            while not sv.should_stop():
                if sess.run(train) is None and int(sess.run(gs)) >= start + steps:
                    sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
                    sv.request_stop()
            end = int(sess.run(gs))
    return start, end


@pytest.mark.parametrize("steps", [2, 5])
def test_managed_session_restores(tmp_path, steps):
    """The second managed session restores the first one's checkpoint (TF reads
    it); TF's own Supervisor cannot run here (its threads run eagerly under TF 2)."""
    tf = pytest.importorskip("tensorflow")
    d = str(tmp_path)
    runs = [_program(ref, Supervisor, d, steps), _program(ref, Supervisor, d, steps)]
    files = sorted(f for f in os.listdir(d) if not f.startswith("events."))
    expected = ["checkpoint", "graph.pbtxt"] + sorted(
        f"model.ckpt-{n}{ext}" for n in (steps, 2 * steps) for ext in (".data-00000-of-00001", ".index", ".meta"))
    assert runs == [(0, steps), (steps, 2 * steps)]
    assert files == expected
    assert int(tf.train.load_checkpoint(d).get_tensor("global_step")) == 2 * steps


@pytest.mark.parametrize("error,propagates", [(errors.OutOfRangeError, False), (ValueError, True)])
def test_managed_session_exceptions(tmp_path, error, propagates):
    """OutOfRangeError ends the block quietly; other exceptions are re-raised; both stop."""
    with ref.Graph().as_default():
        ref.Variable(1.0, name="v")
        sv = Supervisor(logdir=str(tmp_path), save_model_secs=0, save_summaries_secs=0)

        def body():
            with sv.managed_session() as sess:
                assert sess.run("v:0") == 1.0
                raise error(None, None, "done") if error is errors.OutOfRangeError else error("boom")

        if propagates:
            with pytest.raises(error, match="boom"):
                body()
        else:
            body()
        assert sv.should_stop()


@pytest.mark.parametrize("n", [1, 4])
def test_basic_train_loop_counts_steps(n):
    calls = []
    with ref.Graph().as_default():
        v = ref.Variable(0, name="v")
        inc = ref.assign_add(v, 1)
        sv = Supervisor(logdir=None)

        def step(sess, limit, scale=1):
            calls.append(int(sess.run(inc)) * scale)
            if len(calls) >= limit:
                sv.request_stop()

        basic_train_loop(sv, step, args=[n], kwargs={"scale": 10})
    assert calls == [10 * (i + 1) for i in range(n)]


@pytest.mark.parametrize("is_chief", [True, False])
def test_supervisor_defaults_and_chief(tmp_path, is_chief):
    with ref.Graph().as_default() as g:
        with ref.device("" if is_chief else "/job:ps/task:0"):  # replicas need placed variables
            gs = ref.train.get_or_create_global_step()
        sv = Supervisor(logdir=str(tmp_path), is_chief=is_chief)
        assert g.finalized
        assert sv.global_step is gs or sv.global_step.name == "global_step:0"
        assert sv.is_chief == is_chief
        assert (sv.save_model_secs, sv.save_summaries_secs) == ((600, 120) if is_chief else (None, None))
        assert sv.save_path == (os.path.join(str(tmp_path), "model.ckpt") if is_chief else None)
        assert g.get_collection(ref.GraphKeys.INIT_OP) == [sv.init_op]
        assert os.path.exists(os.path.join(str(tmp_path), "graph.pbtxt")) == is_chief
        assert Supervisor.PrepareSession is Supervisor.prepare_or_wait_for_session
        if not is_chief:
            with pytest.raises(RuntimeError, match="Only chief"):
                sv.start_standard_services(None)
