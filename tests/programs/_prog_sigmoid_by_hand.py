"""Backpropagation written out by hand in the style of hunkim's
"DeepLearningZeroToAll" lab 9-7: a one-layer classifier on 16 binary features
with the logistic function spelled ``1 / (1 + exp(-x))`` (after a ``MatMul``
TF's grappler runs that division as ``Reciprocal``), the sigmoid
cross-entropy summed by hand, its derivative chained manually and applied with
``assign_sub``; the first predictions and logits and the final ``argmax`` accuracy
as ``extra``."""
import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(97)
FEATURES = RNG.randint(0, 2, size=(101, 16)).astype(np.float32)
CLASSES = (FEATURES[:, :3] @ np.array([1, 2, 3], np.float32)).astype(np.int32).reshape(-1, 1) % 7


def build(tf):
    tf.set_random_seed(777)
    X = tf.placeholder(tf.float32, [None, 16])
    y = tf.placeholder(tf.int32, [None, 1])
    target = tf.cast(tf.reshape(tf.one_hot(y, 7), [-1, 7]), tf.float32)
    W = tf.Variable(tf.random_normal([16, 7]), name="weight")
    b = tf.Variable(tf.random_normal([7]), name="bias")

    def sigma(x):
        return 1. / (1. + tf.exp(-x))

    layer = tf.matmul(X, W) + b
    y_pred = sigma(layer)
    loss = tf.reduce_sum(-target * tf.log(y_pred) - (1. - target) * tf.log(1. - y_pred))
    d_loss = (y_pred - target) / (y_pred * (1. - y_pred) + 1e-7)
    d_layer = d_loss * (sigma(layer) * (1. - sigma(layer)))
    d_W = tf.matmul(tf.transpose(X), d_layer)
    d_b = tf.reduce_sum(d_layer, axis=0)
    lr = 0.01
    train = [tf.assign_sub(W, lr * d_W), tf.assign_sub(b, lr * d_b)]
    prediction = tf.argmax(y_pred, 1)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(prediction, tf.argmax(target, 1)), tf.float32))
    return {"X": X, "y": y, "loss": loss, "train": train, "accuracy": accuracy, "y_pred": y_pred, "layer": layer}


def train(tf, steps, workdir):
    h = build(tf)
    feed = {h["X"]: FEATURES, h["y"]: CLASSES}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        first_pred, first_layer = sess.run([h["y_pred"], h["layer"]], feed)
        losses = []
        for _ in range(steps):
            sess.run(h["train"], feed)
            loss, acc = sess.run([h["loss"], h["accuracy"]], feed)
            losses.append(float(loss))
        extra = [first_pred.tolist(), float(acc), first_layer.tolist()]
        final = variable_values(tf, sess)
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
