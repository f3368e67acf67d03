"""A non-linear SVM with a Gaussian (RBF) kernel, the dual form of nfmcclure's
cookbook chapter 4: ``sq_dists`` from ``tf.reduce_sum(tf.square(x), 1)`` reshaped
to a column, ``tf.exp(tf.multiply(gamma, tf.abs(sq_dists)))``, the dual loss
``-(sum(b) - sum(K * (b^T b) * (y y^T)))`` with ``tf.negative``/``tf.subtract``,
the prediction kernel between the training batch and a grid, ``tf.sign`` of
``pred - mean``, and the accuracy as ``extra``. The book's loop: ``train_step``
run, then the loss in a run of its own (fetched together, TF's ``loss`` may read
``b`` before or after its in-place update: ``reduce_sum(b)`` feeds no gradient)."""
import numpy as np

from _corpus import variable_values

R = np.random.RandomState(12)
ANG = R.rand(60) * 2 * np.pi
RAD = np.where(np.arange(60) % 2 == 0, 1.0, 2.0) + 0.1 * R.randn(60)
XS = np.stack([RAD * np.cos(ANG), RAD * np.sin(ANG)], 1).astype(np.float32)
YS = np.where(np.arange(60) % 2 == 0, 1.0, -1.0).astype(np.float32)
BATCH = 30


def build(tf):
    tf.set_random_seed(5)
    x_data = tf.placeholder(shape=[None, 2], dtype=tf.float32)
    y_target = tf.placeholder(shape=[None, 1], dtype=tf.float32)
    prediction_grid = tf.placeholder(shape=[None, 2], dtype=tf.float32)
    b = tf.Variable(tf.random_normal(shape=[1, BATCH]))
    gamma = tf.constant(-50.0)
    dist = tf.reduce_sum(tf.square(x_data), 1)
    dist = tf.reshape(dist, [-1, 1])
    sq_dists = tf.add(tf.subtract(dist, tf.multiply(2., tf.matmul(x_data, tf.transpose(x_data)))), tf.transpose(dist))
    my_kernel = tf.exp(tf.multiply(gamma, tf.abs(sq_dists)))
    first_term = tf.reduce_sum(b)
    b_vec_cross = tf.matmul(tf.transpose(b), b)
    y_target_cross = tf.matmul(y_target, tf.transpose(y_target))
    second_term = tf.reduce_sum(tf.multiply(my_kernel, tf.multiply(b_vec_cross, y_target_cross)))
    loss = tf.negative(tf.subtract(first_term, second_term))
    rA = tf.reshape(tf.reduce_sum(tf.square(x_data), 1), [-1, 1])
    rB = tf.reshape(tf.reduce_sum(tf.square(prediction_grid), 1), [-1, 1])
    pred_sq_dist = tf.add(tf.subtract(rA, tf.multiply(2., tf.matmul(x_data, tf.transpose(prediction_grid)))),
                          tf.transpose(rB))
    pred_kernel = tf.exp(tf.multiply(gamma, tf.abs(pred_sq_dist)))
    prediction_output = tf.matmul(tf.multiply(tf.transpose(y_target), b), pred_kernel)
    prediction = tf.sign(prediction_output - tf.reduce_mean(prediction_output))
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.squeeze(prediction), tf.squeeze(y_target)), tf.float32))
    train_step = tf.train.GradientDescentOptimizer(0.002).minimize(loss)

    def feed(step):
        idx = (np.arange(BATCH) * 7 + step * 3) % 60
        return {x_data: XS[idx], y_target: YS[idx].reshape(-1, 1), prediction_grid: XS[idx]}

    return {"loss": loss, "train": train_step, "feed": feed, "extra": [accuracy, prediction_output]}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for step in range(steps):
            sess.run(h["train"], feed_dict=h["feed"](step))
            losses.append(float(sess.run(h["loss"], feed_dict=h["feed"](step))))
        extra = sess.run(h["extra"], feed_dict=h["feed"](0))
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess), "extra": extra}
