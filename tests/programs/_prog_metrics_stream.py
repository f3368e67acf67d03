"""Streaming metrics updated with the training op: accuracy, mean_iou, precision_at_thresholds, recall,
mean_absolute_error with weights, mean_per_class_accuracy and ``tf.confusion_matrix``."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(71)
XS = R.randn(16, 5).astype(np.float32)
YS = R.randint(0, 3, 16).astype(np.int32)
YR = (XS @ R.randn(5, 1)).astype(np.float32)
SEG = R.randint(0, 3, (4, 6, 6)).astype(np.int32)


def build(tf):
    tf.set_random_seed(404)
    x = tf.constant(XS); y = tf.constant(YS)
    logits = tf.layers.dense(x, 3)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    pred = tf.argmax(logits, 1, output_type=tf.int32)
    acc, acc_up = tf.metrics.accuracy(y, pred)
    miou, miou_up = tf.metrics.mean_iou(y, pred, 3)
    prob = tf.nn.softmax(logits)[:, 1]
    pos = tf.equal(y, 1)
    prec, prec_up = tf.metrics.precision_at_thresholds(pos, prob, [0.3, 0.5])
    rec, rec_up = tf.metrics.recall(pos, prob > 0.4)
    mae, mae_up = tf.metrics.mean_absolute_error(tf.cast(y, tf.float32), tf.cast(pred, tf.float32), weights=tf.ones([16]))
    pcm = tf.metrics.mean_per_class_accuracy(y, pred, 3)
    cm = tf.confusion_matrix(y, pred, num_classes=3)
    opt = tf.train.AdagradOptimizer(0.3).minimize(loss)
    train = tf.group(opt, acc_up, miou_up, prec_up, rec_up, mae_up, pcm[1])
    return {"loss": loss, "train": train, "extra": [acc, miou, prec, rec, mae, pcm[0], cm]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
