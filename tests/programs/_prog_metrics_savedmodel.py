"""Streaming evaluation and export (2017-2018 style): ``tf.layers.dense``
with a ``kernel_regularizer``, ``tf.losses.softmax_cross_entropy`` with
``label_smoothing`` plus ``tf.losses.get_regularization_loss()`` (the total
from ``tf.losses.get_total_loss``), Adam; ``tf.metrics.accuracy``,
``tf.metrics.mean``, ``tf.metrics.precision``/``recall``/``auc`` on one
class, their update ops run batch by batch after
``tf.local_variables_initializer()``; then ``tf.saved_model.simple_save`` of
the inputs/outputs, and ``tf.saved_model.loader.load`` into a fresh graph
with the tensor names from the signature to predict again."""
import os

import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, LABELS, ONE_HOT

BATCH = 25


def build(tf):
    tf.set_random_seed(131)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.float32, [None, 10], name="y")
    hidden = tf.layers.dense(x, 16, activation=tf.nn.relu, name="hidden",
                             kernel_regularizer=lambda w: 0.01 * tf.nn.l2_loss(w))
    logits = tf.layers.dense(hidden, 10, name="logits")
    tf.losses.softmax_cross_entropy(onehot_labels=y, logits=logits, label_smoothing=0.1)
    loss = tf.losses.get_total_loss()
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss)
    probs = tf.nn.softmax(logits, name="probs")
    labels = tf.argmax(y, 1)
    predictions = tf.argmax(logits, 1)
    is_three, pred_three = tf.equal(labels, 3), tf.equal(predictions, 3)
    metrics = {
        "accuracy": tf.metrics.accuracy(labels=labels, predictions=predictions),
        "mean_loss": tf.metrics.mean(loss),
        "precision": tf.metrics.precision(labels=is_three, predictions=pred_three),
        "recall": tf.metrics.recall(labels=is_three, predictions=pred_three),
        "auc": tf.metrics.auc(labels=is_three, predictions=probs[:, 3], num_thresholds=50),
    }
    return {"x": x, "y": y, "loss": loss, "train": train_op, "probs": probs, "metrics": metrics}


def train(tf, steps, workdir):
    h = build(tf)
    export_dir = os.path.join(workdir, "export")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            j = (i * BATCH) % len(IMAGES)
            _, loss = sess.run([h["train"], h["loss"]], {h["x"]: IMAGES[j:j + BATCH], h["y"]: ONE_HOT[j:j + BATCH]})
            losses.append(float(loss))
        sess.run(tf.local_variables_initializer())
        names = sorted(h["metrics"])
        updates = [h["metrics"][n][1] for n in names]
        for j in range(0, len(IMAGES), 40):
            sess.run(updates, {h["x"]: IMAGES[j:j + 40], h["y"]: ONE_HOT[j:j + 40]})
        values = sess.run([h["metrics"][n][0] for n in names])
        final = variable_values(tf, sess)
        probs = sess.run(h["probs"], {h["x"]: IMAGES[:10]})
        tf.saved_model.simple_save(sess, export_dir, inputs={"x": h["x"]}, outputs={"probs": h["probs"]})
    with tf.Graph().as_default() as graph:
        with tf.Session() as sess:
            meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export_dir)
            signature = meta.signature_def[tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
            x_name, probs_name = signature.inputs["x"].name, signature.outputs["probs"].name
            loaded = sess.run(graph.get_tensor_by_name(probs_name), {graph.get_tensor_by_name(x_name): IMAGES[:10]})
    assert np.array_equal(loaded, probs)
    return {"initial": initial, "losses": losses, "final": final,
            "extra": [names, [np.float32(v) for v in values], probs, [x_name, probs_name],
                      sorted(os.listdir(export_dir))]}
