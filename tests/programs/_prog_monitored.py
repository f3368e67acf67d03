"""Training under ``tf.train.MonitoredTrainingSession`` (the 2017-2018
distributed-MNIST style, one worker): a global step from
``get_or_create_global_step``, a softmax regression with
``tf.layers.dense``, ``tf.losses.sparse_softmax_cross_entropy``, RMSProp,
a ``StopAtStepHook``, a checkpoint directory (the session initializes and
saves; summaries every few steps), the loop ``while not
mon_sess.should_stop()``; then a plain ``Session`` restores the latest
checkpoint and evaluates. Also returned: the steps seen, the checkpoint
state and the restored global step and accuracy."""
import glob
import os

import numpy as np

from _prog_logreg import IMAGES, LABELS

BATCH = 20


def build(tf):
    tf.set_random_seed(71)
    global_step = tf.train.get_or_create_global_step()
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    logits = tf.layers.dense(x, 10, name="softmax")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)
    tf.summary.scalar("loss", loss)
    train_op = tf.train.RMSPropOptimizer(0.01).minimize(loss, global_step=global_step)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    return {"x": x, "y": y, "loss": loss, "train": train_op, "accuracy": accuracy, "global_step": global_step}


def train(tf, steps, workdir):
    h = build(tf)
    trainable = tf.trainable_variables() + [h["global_step"]]
    hooks = [tf.train.StopAtStepHook(last_step=steps)]
    losses, seen = [], []
    with tf.train.MonitoredTrainingSession(checkpoint_dir=workdir, hooks=hooks, save_checkpoint_steps=5,
                                           save_summaries_steps=3, log_step_count_steps=None) as mon_sess:
        first = {h["x"]: IMAGES[:BATCH], h["y"]: LABELS[:BATCH]}  # the summary hook runs with each call
        initial = {v.op.name: np.array(val) for v, val in zip(trainable, mon_sess.run(trainable, first))}
        i = 0
        while not mon_sess.should_stop():
            j = (i * BATCH) % len(IMAGES)
            _, loss, step = mon_sess.run([h["train"], h["loss"], h["global_step"]],
                                         feed_dict={h["x"]: IMAGES[j:j + BATCH], h["y"]: LABELS[j:j + BATCH]})
            losses.append(float(loss))
            seen.append(int(step))
            i += 1
    state = tf.train.get_checkpoint_state(workdir)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, state.model_checkpoint_path)
        final = {v.op.name: np.array(val) for v, val in zip(trainable, sess.run(trainable))}
        acc = sess.run(h["accuracy"], {h["x"]: IMAGES, h["y"]: LABELS})
    written = []
    for path in sorted(glob.glob(os.path.join(workdir, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(path):
            written += [(int(event.step), v.tag, np.float32(v.simple_value)) for v in event.summary.value
                        if v.tag == "loss"]
    # Only the first summary is compared: the hook decides the later steps from
    # the global step fetched in the same run as its increment, a read TF
    # orders either way (two TF runs gave steps 3, 6, 9 and 3, 5, 7, 10).
    written = written[:1]
    checkpoints = sorted(os.path.basename(p) for p in glob.glob(os.path.join(workdir, "model.ckpt-*.index")))
    return {"initial": initial, "losses": losses, "final": final,
            "extra": [seen, os.path.basename(state.model_checkpoint_path), int(final["global_step"]),
                      np.float32(acc), written, checkpoints]}
