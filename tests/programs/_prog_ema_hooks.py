"""Training under ``MonitoredTrainingSession`` with explicit hooks (the 2018
``tf.train`` guides' style): ``StopAtStepHook(num_steps=...)``, a
``CheckpointSaverHook`` with its own ``Saver``, a ``SummarySaverHook`` of
``merge_all``, an ``ExponentialMovingAverage(0.9, num_updates=global_step)``
applied under the optimizer's control dependency; then evaluation in a new
graph that restores the moving averages into the model's variables through
``Saver(ema.variables_to_restore())``. Returned: the steps seen, the
summaries written and the restored (averaged) variables and loss."""
import glob
import os

import numpy as np

R = np.random.RandomState(91)
XS = R.randn(24, 4).astype(np.float32)
YS = (XS @ np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32) + 0.3).astype(np.float32)


def _model(tf):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    h = tf.layers.dense(x, 5, activation=tf.nn.tanh, name="hidden")
    pred = tf.layers.dense(h, 1, name="out")
    return x, y, tf.losses.mean_squared_error(y, pred)


def build(tf):
    tf.set_random_seed(92)
    global_step = tf.train.get_or_create_global_step()
    x, y, loss = _model(tf)
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("out_kernel", tf.trainable_variables()[2])
    opt = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, global_step=global_step)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=global_step)
    with tf.control_dependencies([opt]):
        train_op = ema.apply(tf.trainable_variables())
    return {"x": x, "y": y, "loss": loss, "train": train_op, "global_step": global_step,
            "summary": tf.summary.merge_all(), "ema": ema,
            "feed": lambda s: {x: XS[(s % 3) * 8:(s % 3) * 8 + 8], y: YS[(s % 3) * 8:(s % 3) * 8 + 8]}}


def train(tf, steps, workdir):
    h = build(tf)
    tracked = tf.trainable_variables() + [h["global_step"]]
    saver = tf.train.Saver(max_to_keep=2)
    hooks = [tf.train.StopAtStepHook(num_steps=steps),
             tf.train.CheckpointSaverHook(workdir, save_steps=3, saver=saver),
             tf.train.SummarySaverHook(save_steps=2, output_dir=workdir, summary_op=h["summary"])]
    losses, seen = [], []
    with tf.train.MonitoredTrainingSession(hooks=hooks, save_checkpoint_secs=None, save_summaries_steps=None,
                                           log_step_count_steps=None) as sess:
        initial = {v.op.name: np.array(val) for v, val in zip(tracked, sess.run(tracked, h["feed"](0)))}
        i = 0
        while not sess.should_stop():
            _, loss, step = sess.run([h["train"], h["loss"], h["global_step"]], h["feed"](i))
            losses.append(float(loss))
            seen.append(int(step))
            i += 1
    written = []
    for path in sorted(glob.glob(os.path.join(workdir, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(path):
            written += [(int(event.step), v.tag) for v in event.summary.value]
    latest = tf.train.latest_checkpoint(workdir)
    with tf.Graph().as_default():
        _model(tf)
        x, y = "x:0", "y:0"
        ema = tf.train.ExponentialMovingAverage(0.9)
        mapping = ema.variables_to_restore()
        restore = tf.train.Saver(mapping)
        with tf.Session() as s:
            restore.restore(s, latest)
            g = tf.get_default_graph()
            final = {v.op.name: np.array(val) for v, val in zip(tf.trainable_variables(),
                                                                 s.run(tf.trainable_variables()))}
            averaged_loss = s.run(g.get_tensor_by_name("mean_squared_error/value:0"), {x: XS, y: YS})
        restored_names = sorted((k, v.op.name) for k, v in mapping.items())
    return {"initial": initial, "losses": losses, "final": final,
            "extra": [seen, sorted(set(written)), os.path.basename(latest), float(averaged_loss),
                      restored_names]}
