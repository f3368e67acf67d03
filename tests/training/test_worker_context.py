"""The distribute coordinator's worker context against TF's
(``tensorflow.python.distribute.distribute_coordinator._WorkerContext``): its
view of a cluster (chief, master target, worker count) and how a
MonitoredTrainingSession made inside it picks its hooks and session creator
from the strategy's ``should_checkpoint`` / ``should_save_summary`` /
``experimental_should_init``."""
import os
import types

import pytest

from ref.training import distribute_coordinator as _under_test  # noqa: F401
from tests.graph_ops._graphdef import tf1_behaviour

tensorflow = pytest.importorskip("tensorflow")


def _ref():
    import ref
    from ref.graph_ops import distribute_lib
    from ref.training import distribute_coordinator
    return ref, distribute_coordinator, distribute_lib


def _tf():
    from tensorflow.python.distribute import distribute_coordinator, distribute_coordinator_context
    return tensorflow.compat.v1, distribute_coordinator, distribute_coordinator_context


def _strategy(should_init=True, should_checkpoint=None, should_save_summary=None):
    return types.SimpleNamespace(extended=types.SimpleNamespace(
        experimental_between_graph=False, experimental_should_init=should_init,
        should_checkpoint=should_checkpoint, should_save_summary=should_save_summary))


CLUSTER = {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"], "ps": ["host3:2222"]}
NO_CHIEF = {"worker": ["host1:2222", "host2:2222"]}

# (cluster spec, task type, task id)
CONTEXT_ROWS = {
    "local": (None, None, None),
    "chief": (CLUSTER, "chief", 0),
    "worker_1": (CLUSTER, "worker", 1),
    "worker_0_no_chief": (NO_CHIEF, "worker", 0),
    "worker_1_no_chief": (NO_CHIEF, "worker", 1),
    "evaluator": (CLUSTER, "evaluator", 0),
    "no_task_type": (CLUSTER, None, None),
}


def _context_view(backend, cluster, task_type, task_id):
    tf, dc, dcc = backend()
    cluster = tf.train.ClusterSpec(cluster) if cluster else None
    ctx = dc._WorkerContext(_strategy(), cluster, task_type, task_id)
    with ctx:
        inside = dcc.get_current_worker_context() is ctx
        with pytest.raises(ValueError, match="cannot run distribute coordinator"):
            with dc._WorkerContext(_strategy(), None, None, None):
                pass
    return (ctx.is_chief, ctx.master_target, ctx.num_workers, ctx.distributed_mode, inside,
            dcc.get_current_worker_context())


@pytest.mark.parametrize("row", sorted(CONTEXT_ROWS))
def test_worker_context_view_matches_tf(row):
    assert _context_view(_ref, *CONTEXT_ROWS[row]) == _context_view(_tf, *CONTEXT_ROWS[row])


# (strategy flags, MonitoredTrainingSession keywords, steps)
SESSION_ROWS = {
    "summaries_on": (dict(should_save_summary=True), dict(save_summaries_steps=5, log_step_count_steps=2), 6),
    "summaries_off": (dict(should_save_summary=False), dict(save_summaries_steps=5, log_step_count_steps=2), 6),
    "checkpoint_on": (dict(should_checkpoint=True, should_save_summary=False), dict(save_checkpoint_steps=4), 5),
    "checkpoint_off": (dict(should_checkpoint=False, should_save_summary=True), dict(save_checkpoint_steps=4), 5),
    "worker_creator": (dict(should_init=False, should_checkpoint=True), dict(save_checkpoint_steps=4), 0),
}


def _session_program(backend, flags, kwargs, steps, logdir):
    tf, dc, _ = backend()
    ctx = dc._WorkerContext(_strategy(**flags), None, None, None)
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        inc = tf.assign_add(step, 1)
        tf.summary.scalar("twice", inc * 2)
        with ctx:
            if not flags.get("should_init", True):  # a worker's creator waits for the chief
                creator = ctx.session_creator(None, max_wait_secs=0)
                return [type(creator).__name__]
            with tf.train.MonitoredTrainingSession(checkpoint_dir=logdir, **kwargs) as sess:
                for _ in range(steps):
                    sess.run(inc)
    if not os.path.isdir(logdir):
        return ["(no directory)"]
    files = sorted(f.split(".")[0] if f.startswith("events") else f for f in os.listdir(logdir))
    return [f for f in files if not f.startswith("model.ckpt") or f.endswith(".index")]


@pytest.mark.parametrize("row", sorted(SESSION_ROWS))
def test_monitored_training_session_in_worker_context_matches_tf(row, tmp_path):
    got = _session_program(_ref, *SESSION_ROWS[row], str(tmp_path / "ref"))
    with tf1_behaviour():
        want = _session_program(_tf, *SESSION_ROWS[row], str(tmp_path / "tf"))
    assert got == want
