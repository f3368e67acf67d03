"""fully_connected_feed (the 2016 "TensorFlow Mechanics 101" style):
``inference`` with name-scoped hidden layers of
``tf.Variable(truncated_normal(stddev=1/sqrt(n)), name='weights')``,
``loss`` by ``sparse_softmax_cross_entropy_with_logits`` on ``to_int64``
labels, ``training`` with a scalar summary and a non-trainable global step,
``evaluation`` by ``in_top_k``; the loop writes merged summaries through a
``FileWriter`` (with the graph) and flushes, saves a checkpoint every few
steps (``max_to_keep`` trims old ones), evaluates, then restores the latest
checkpoint into a fresh session. What comes back besides the trajectory:
the eval counts, the checkpoint files and state, the variables listed in
the checkpoint and the scalar summaries read back from the event file."""
import glob
import math
import os

import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, LABELS

PIXELS, CLASSES, HIDDEN1, HIDDEN2, BATCH = 64, 10, 16, 12, 20


def inference(tf, images, hidden1_units, hidden2_units):
    with tf.name_scope("hidden1"):
        weights = tf.Variable(tf.truncated_normal([PIXELS, hidden1_units], stddev=1.0 / math.sqrt(float(PIXELS))),
                              name="weights")
        biases = tf.Variable(tf.zeros([hidden1_units]), name="biases")
        hidden1 = tf.nn.relu(tf.matmul(images, weights) + biases)
    with tf.name_scope("hidden2"):
        weights = tf.Variable(tf.truncated_normal([hidden1_units, hidden2_units],
                                                  stddev=1.0 / math.sqrt(float(hidden1_units))), name="weights")
        biases = tf.Variable(tf.zeros([hidden2_units]), name="biases")
        hidden2 = tf.nn.relu(tf.matmul(hidden1, weights) + biases)
    with tf.name_scope("softmax_linear"):
        weights = tf.Variable(tf.truncated_normal([hidden2_units, CLASSES],
                                                  stddev=1.0 / math.sqrt(float(hidden2_units))), name="weights")
        biases = tf.Variable(tf.zeros([CLASSES]), name="biases")
        logits = tf.matmul(hidden2, weights) + biases
    return logits


def loss_fn(tf, logits, labels):
    labels = tf.to_int64(labels)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
    return tf.reduce_mean(cross_entropy, name="xentropy_mean")


def training(tf, loss, learning_rate):
    tf.summary.scalar("loss", loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(tf, logits, labels):
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))


def build(tf):
    tf.set_random_seed(17)
    images_placeholder = tf.placeholder(tf.float32, shape=(BATCH, PIXELS))
    labels_placeholder = tf.placeholder(tf.int32, shape=(BATCH,))
    logits = inference(tf, images_placeholder, HIDDEN1, HIDDEN2)
    loss = loss_fn(tf, logits, labels_placeholder)
    train_op = training(tf, loss, 0.1)
    eval_correct = evaluation(tf, logits, labels_placeholder)
    summary = tf.summary.merge_all()
    return {"images": images_placeholder, "labels": labels_placeholder, "loss": loss, "train": train_op,
            "eval_correct": eval_correct, "summary": summary}


def _feed(h, step):
    j = (step * BATCH) % len(IMAGES)
    return {h["images"]: IMAGES[j:j + BATCH], h["labels"]: LABELS[j:j + BATCH].astype(np.int32)}


def _do_eval(sess, h):
    return int(sum(sess.run(h["eval_correct"], feed_dict=_feed(h, k)) for k in range(len(IMAGES) // BATCH)))


def train(tf, steps, workdir):
    h = build(tf)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver(max_to_keep=2)
    sess = tf.Session()
    summary_writer = tf.summary.FileWriter(workdir, sess.graph)
    sess.run(init)
    initial = variable_values(tf, sess)
    losses, evals = [], []
    checkpoint_file = os.path.join(workdir, "model.ckpt")
    for step in range(steps):
        feed_dict = _feed(h, step)
        _, loss_value = sess.run([h["train"], h["loss"]], feed_dict=feed_dict)
        losses.append(float(loss_value))
        if step % 3 == 0:
            summary_str = sess.run(h["summary"], feed_dict=feed_dict)
            summary_writer.add_summary(summary_str, step)
            summary_writer.flush()
        if (step + 1) % 4 == 0 or (step + 1) == steps:
            saver.save(sess, checkpoint_file, global_step=step)
            evals.append(_do_eval(sess, h))
    final = variable_values(tf, sess)
    summary_writer.close()
    sess.close()
    with tf.Session() as sess2:
        state = tf.train.get_checkpoint_state(workdir)
        saver.restore(sess2, state.model_checkpoint_path)
        evals.append(_do_eval(sess2, h))
        restored = variable_values(tf, sess2)
    assert all(np.array_equal(restored[k], final[k]) for k in final)
    scalars = []
    for path in sorted(glob.glob(os.path.join(workdir, "events.out.tfevents.*"))):
        for event in tf.train.summary_iterator(path):
            for value in event.summary.value:
                scalars.append((int(event.step), value.tag, np.float32(value.simple_value)))
    extra = [evals, sorted(os.path.basename(p) for p in glob.glob(os.path.join(workdir, "model.ckpt*"))),
             os.path.basename(state.model_checkpoint_path),
             [os.path.basename(p) for p in state.all_model_checkpoint_paths],
             sorted((n, tuple(s)) for n, s in tf.train.list_variables(workdir)), scalars]
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
