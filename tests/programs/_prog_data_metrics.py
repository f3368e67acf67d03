"""A tf.data pipeline fed from placeholders (the 2018 "importing data"
guide's style): ``Dataset.from_tensor_slices((features_ph, labels_ph))``,
``shuffle(buffer, seed)``, ``batch``, ``repeat()`` and
``make_initializable_iterator`` whose initializer is run with the NumPy
arrays fed; a softmax regression trained by Adagrad; then an evaluation
dataset (no repeat) through a second initializable iterator read to
``OutOfRangeError``, with ``tf.metrics.accuracy`` and
``tf.metrics.mean_per_class_accuracy`` over local variables initialized by
``tf.local_variables_initializer()``, run twice with the metrics' local
variables reset in between."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, LABELS

BATCH = 20


def build(tf):
    tf.set_random_seed(77)
    features_ph = tf.placeholder(tf.float32, IMAGES.shape, name="features")
    labels_ph = tf.placeholder(tf.int64, LABELS.shape, name="labels")
    dataset = tf.data.Dataset.from_tensor_slices((features_ph, labels_ph)).shuffle(64, seed=8).batch(BATCH).repeat()
    iterator = dataset.make_initializable_iterator()
    x, y = iterator.get_next()
    with tf.variable_scope("model"):
        w = tf.get_variable("w", [64, 10], initializer=tf.glorot_uniform_initializer())
        b = tf.get_variable("b", [10], initializer=tf.zeros_initializer())

    def logits_of(inputs):
        return tf.matmul(inputs, w) + b

    loss = tf.losses.sparse_softmax_cross_entropy(labels=y, logits=logits_of(x))
    train_op = tf.train.AdagradOptimizer(0.3).minimize(loss)
    eval_data = tf.data.Dataset.from_tensor_slices((features_ph, labels_ph)).batch(32)
    eval_iterator = eval_data.make_initializable_iterator()
    ex, ey = eval_iterator.get_next()
    predictions = tf.argmax(logits_of(ex), axis=1)
    with tf.variable_scope("metrics"):
        accuracy, acc_update = tf.metrics.accuracy(labels=ey, predictions=predictions)
        per_class, per_class_update = tf.metrics.mean_per_class_accuracy(ey, predictions, 10)
    reset = tf.variables_initializer(tf.get_collection(tf.GraphKeys.LOCAL_VARIABLES, scope="metrics"))
    return {"features": features_ph, "labels": labels_ph, "iterator": iterator, "eval_iterator": eval_iterator,
            "loss": loss, "train": train_op, "accuracy": accuracy, "updates": [acc_update, per_class_update],
            "per_class": per_class, "reset": reset}


def train(tf, steps, workdir):
    h = build(tf)
    data = {h["features"]: IMAGES, h["labels"]: LABELS}
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        sess.run(h["iterator"].initializer, feed_dict=data)
        initial = variable_values(tf, sess)
        losses, evaluations = [], []
        for i in range(steps):
            _, loss = sess.run([h["train"], h["loss"]])
            losses.append(float(loss))
            if i % (steps // 2) == steps // 2 - 1:
                sess.run(h["reset"])
                sess.run(h["eval_iterator"].initializer, feed_dict=data)
                batches = 0
                while True:
                    try:
                        sess.run(h["updates"])
                        batches += 1
                    except tf.errors.OutOfRangeError:
                        break
                acc, per_class = sess.run([h["accuracy"], h["per_class"]])
                evaluations.append([batches, float(acc), float(per_class)])
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess), "extra": evaluations}
