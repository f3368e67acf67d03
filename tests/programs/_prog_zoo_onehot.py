"""A tabular classifier in the style of hunkim's "DeepLearningZeroToAll" lab 6
(the zoo data set): integer class ids fed as an ``int32`` column ``[None, 1]``,
turned into ``one_hot`` (shape ``[?, 1, 7]``) and reshaped to ``[-1, 7]``; the
labels are handed to ``softmax_cross_entropy_with_logits_v2`` inside a list
(``[labels]``, shape ``[1, ?, 7]``, which TF flattens to ``[?, 7]``) behind
``stop_gradient``; plain gradient descent; ``argmax`` predictions and accuracy
as ``extra``."""
import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(6)
FEATURES = RNG.randint(0, 2, size=(101, 16)).astype(np.float32)
CLASSES = (FEATURES[:, :3] @ np.array([1, 2, 3], np.float32)).astype(np.int32).reshape(-1, 1) % 7


def build(tf):
    tf.set_random_seed(777)
    X = tf.placeholder(tf.float32, [None, 16])
    Y = tf.placeholder(tf.int32, [None, 1])
    Y_one_hot = tf.reshape(tf.one_hot(Y, 7), [-1, 7])
    W = tf.Variable(tf.random_normal([16, 7]), name="weight")
    b = tf.Variable(tf.random_normal([7]), name="bias")
    logits = tf.matmul(X, W) + b
    hypothesis = tf.nn.softmax(logits)
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(
        logits=logits, labels=tf.stop_gradient([Y_one_hot])))
    train = tf.train.GradientDescentOptimizer(learning_rate=0.1).minimize(cost)
    prediction = tf.argmax(hypothesis, 1)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(prediction, tf.argmax(Y_one_hot, 1)), tf.float32))
    return {"X": X, "Y": Y, "loss": cost, "train": train, "prediction": prediction, "accuracy": accuracy}


def train(tf, steps, workdir):
    h = build(tf)
    feed = {h["X"]: FEATURES, h["Y"]: CLASSES}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for _ in range(steps):
            _, loss = sess.run([h["train"], h["loss"]], feed)
            losses.append(float(loss))
        extra = [sess.run(h["prediction"], {h["X"]: FEATURES}).tolist(), float(sess.run(h["accuracy"], feed))]
        final = variable_values(tf, sess)
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
