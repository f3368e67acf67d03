"""A between-graph replicated TF1 training program (1 ps + N workers) for
``python -m ref cluster run -- python train.py MODE STEPS [CHECKPOINT_DIR]``.

MODE "sync": ``SyncReplicasOptimizer`` aggregating every replica's gradient (no initial
tokens; "sync-default-tokens": TF's default hook, ``replicas_to_aggregate`` of them); "async":
plain ``GradientDescentOptimizer`` updates from each replica. Each worker trains in a
``MonitoredTrainingSession`` (chief: task 0) until ``global_step`` reaches STEPS, feeding
``data(task, global_step)``; the chief prints the final variables as one JSON line.
The test imports ``data`` and ``model`` to compute the local numbers.
"""
import json
import sys
import time

import numpy as np

import ref as tf
from ref.distributed import cluster_from_env

LEARNING_RATE = 0.1


def data(task, step):
    """Worker ``task``'s batch for global step ``step``."""
    rng = np.random.RandomState(1000 * task + step)
    return rng.randn(4, 3).astype(np.float32), rng.randn(4, 1).astype(np.float32)


def model():
    """``x, y, w, b, loss`` (variables made with ``get_variable``)."""
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    y = tf.placeholder(tf.float32, [4, 1], name="y")
    w = tf.get_variable("w", initializer=np.linspace(-1, 1, 3, dtype=np.float32).reshape(3, 1))
    b = tf.get_variable("b", initializer=np.float32([0.5]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    return x, y, w, b, loss


def main(mode, steps, checkpoint_dir):
    spec, job, task = cluster_from_env()
    cluster = tf.train.ClusterSpec(spec.as_dict())
    server = tf.train.Server(cluster, job_name=job, task_index=task)
    if job == "ps":
        server.join()
    replicas = cluster.num_tasks("worker")
    chief = task == 0
    with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device=f"/job:worker/task:{task}")):
        gs = tf.train.get_or_create_global_step()
        x, y, w, b, loss = model()
        opt = tf.train.GradientDescentOptimizer(LEARNING_RATE)
        hooks = [tf.train.StopAtStepHook(last_step=steps)]
        if mode in ("sync", "sync-default-tokens"):
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=replicas, total_num_replicas=replicas)
            # num_tokens=0: no initial tokens, so every replica pushes exactly one gradient
            # per global step (with TF's default, replicas_to_aggregate tokens, a fast
            # replica may push two before a slow one pushes any: the mean depends on timing)
            hooks.append(opt.make_session_run_hook(chief, num_tokens=0) if mode == "sync" else
                         opt.make_session_run_hook(chief))
        train = opt.minimize(loss, global_step=gs)
        done = tf.Variable(0, name="workers_done", trainable=False)  # async: the chief waits for the others
        finish = tf.assign_add(done, 1)
    config = tf.ConfigProto(operation_timeout_in_ms=60000, device_filters=["/job:ps", f"/job:worker/task:{task}"])
    trained = 0
    # TF's default stop_grace_period_secs (120 s): at the end the SyncReplicas chief's queue
    # runner, blocked in take_grad for gradients that never come, is cancelled at the stop
    # (its own session is closed), so the run ends without waiting for the grace period
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=chief, checkpoint_dir=checkpoint_dir,
                                           hooks=hooks, config=config, save_summaries_steps=None,
                                           save_summaries_secs=None, log_step_count_steps=None) as sess:
        # the other workers' count before this run: a restarted cluster's PS keeps (and the
        # checkpoint restores) the last run's
        done_before = int(sess.run(done)) if chief and mode == "async" else 0
        if chief:
            print("ready", flush=True)  # restored or initialized: the others may start
        while not sess.should_stop():
            xs, ys = data(task, int(sess.run(gs)))
            if sess.should_stop():
                break
            sess.run(train, {x: xs, y: ys})
            trained += 1
        if chief and mode == "async":  # the final checkpoint (saved on close) holds every update
            deadline = time.monotonic() + 60
            with tf.Session(server.target, config=config) as s:
                while s.run(done) < done_before + replicas - 1 and time.monotonic() < deadline:
                    time.sleep(0.02)
    with tf.Session(server.target, config=config) as s:
        if not chief:
            s.run(finish)
            print("trained", trained, flush=True)
            return
        w_, b_, gs_ = s.run([w, b, gs])
    print("final", json.dumps({"w": w_.ravel().tolist(), "b": b_.tolist(), "global_step": int(gs_),
                               "trained": trained}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)
