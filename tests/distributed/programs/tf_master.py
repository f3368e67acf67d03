"""A TensorFlow process whose master drives ref tasks (run by tests/distributed/test_phase2.py).

``python tf_master.py MODE CLUSTER_JSON`` starts TensorFlow's server for ``/job:worker/task:0``
of the cluster (the other tasks are ``python -m ref server`` processes), trains a small model
with a ``tf.compat.v1`` client on that server's target, trains the same model in a local
session, and prints one JSON line ``{"local": [...], "remote": [...]}``. Modes:

* ``ps``: ``replica_device_setter``: variables on the ref ps, the step on the TF worker;
* ``split``: as ``ps``, with part of the forward pass on ``/job:worker/task:1``, a ref
  worker (it exchanges tensors with the ref ps and the TF worker by RecvTensor);
* ``monitored``: ``ps`` under ``MonitoredTrainingSession`` (chief, StopAtStepHook);
* ``partial``: ``partial_run_setup``/``partial_run`` of a step with ops on the ref ps
  (RunGraph with ``is_partial``/``is_last_partial_run``).
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
STEPS = 4


def model(mode, spec, remote):
    setter = tf.train.replica_device_setter(cluster=tf.train.ClusterSpec(spec), worker_device="/job:worker/task:0")
    with tf.device(setter if remote else None):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.get_variable("w", initializer=[[1.0], [-2.0], [0.5]])
        b = tf.get_variable("b", initializer=[0.25], use_resource=True)
        gs = tf.train.get_or_create_global_step()
    with tf.device("/job:worker/task:1" if remote and mode == "split" else None):
        h = tf.tanh(tf.matmul(x, w) + b, name="h")
    with tf.device(setter if remote else None):
        loss = tf.reduce_mean(tf.square(h - 0.5), name="loss")
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=gs)
    return x, w, b, gs, loss, train


def batch(i):
    return np.arange(6, dtype=np.float32).reshape(2, 3) / 5.0 + i


def run(mode, spec, target):
    with tf.Graph().as_default():
        x, w, b, gs, loss, train = model(mode, spec, bool(target))
        # the tasks this session uses (TF's master waits for every task of the cluster otherwise)
        filters = ["/job:ps", "/job:worker/task:0"] + (["/job:worker/task:1"] if mode == "split" else [])
        config = tf.ConfigProto(operation_timeout_in_ms=60000, device_filters=filters)
        if mode == "monitored":
            losses = []
            with tf.train.MonitoredTrainingSession(master=target, is_chief=True, config=config,
                                                   hooks=[tf.train.StopAtStepHook(last_step=STEPS)]) as s:
                while not s.should_stop():
                    losses.append(float(s.run([loss, train], {x: batch(len(losses))})[0]))
                # the session ends at the last step: read the variables through a step hook's run
            with tf.Session(target, config=config) as s:
                final = s.run([w, b, gs]) if target else None
            return losses + ([v.tolist() if hasattr(v, "tolist") else v for v in final] if final else [])
        with tf.Session(target, config=config) as s:
            s.run(tf.global_variables_initializer())
            losses = [float(s.run([loss, train], {x: batch(i)})[0]) for i in range(STEPS)]
            final = s.run([w, b, gs])
        return losses + [v.tolist() if hasattr(v, "tolist") else int(v) for v in final]


def partial(spec, target):
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0" if target else None):
            a = tf.placeholder(tf.float32, [2], name="a")
            b = tf.placeholder(tf.float32, [2], name="b")
            c = tf.placeholder(tf.float32, [2], name="c")
            r1 = tf.add(a, b, name="r1")
            r2 = tf.multiply(r1, c, name="r2")
        with tf.device("/job:worker/task:0" if target else None):
            r3 = tf.square(r2, name="r3")
        config = tf.ConfigProto(operation_timeout_in_ms=60000, device_filters=["/job:ps", "/job:worker/task:0"])
        out = []
        with tf.Session(target, config=config) as s:
            for i in range(2):
                h = s.partial_run_setup([r1, r3], [a, b, c])
                out.append(s.partial_run(h, r1, {a: [1.0, 2.0], b: [3.0, float(i)]}).tolist())
                out.append(s.partial_run(h, r3, {c: [5.0, 6.0]}).tolist())
        return out + [len(out) // 2 * 2]


def main():
    mode, spec = sys.argv[1], json.loads(sys.argv[2])
    server = tf.distribute.Server(tf.train.ClusterSpec(spec), job_name="worker", task_index=0)
    if mode == "partial":
        local, remote = partial(spec, ""), partial(spec, server.target)
    else:
        local = run(mode if mode != "monitored" else "ps", spec, "")
        remote = run(mode, spec, server.target)
    print(json.dumps({"local": local, "remote": remote}), flush=True)
    os._exit(0)  # TF's server cannot be stopped


if __name__ == "__main__":
    main()
