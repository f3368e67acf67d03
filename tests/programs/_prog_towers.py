"""Multi-GPU style towers on one device (the CIFAR-10 multi-GPU tutorial): ``tf.split`` of the batch,
``name_scope('tower_%d')`` with reused variables, ``average_gradients`` by expand_dims/concat/reduce_mean,
histogram summaries of the gradients, ``merge_all``, an int64 global step, exponential decay and an
``ExponentialMovingAverage`` applied after the update."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(71)
XS = R.randn(16, 5).astype(np.float32)
YS = R.randint(0, 3, 16).astype(np.int32)
YR = (XS @ R.randn(5, 1)).astype(np.float32)
SEG = R.randint(0, 3, (4, 6, 6)).astype(np.int32)


def _tower_loss(tf, x, y):
    h = tf.layers.dense(x, 8, activation=tf.nn.relu, name="hidden")
    logits = tf.layers.dense(h, 3, name="out")
    xent = tf.losses.sparse_softmax_cross_entropy(y, logits)
    return xent, logits


def _average_gradients(tf, tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = []
        for g, _ in grad_and_vars:
            grads.append(tf.expand_dims(g, 0))
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def build(tf):
    tf.set_random_seed(401)
    with tf.device("/cpu:0"):
        gs = tf.get_variable("global_step", [], initializer=tf.constant_initializer(0), trainable=False, dtype=tf.int64)
        lr = tf.train.exponential_decay(0.1, gs, 3, 0.7, staircase=True)
        opt = tf.train.GradientDescentOptimizer(lr)
        xs = tf.split(tf.constant(XS), 2); ys = tf.split(tf.constant(YS), 2)
        tower_grads, losses = [], []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(2):
                with tf.device("/cpu:0"):
                    with tf.name_scope("tower_%d" % i):
                        loss, _ = _tower_loss(tf, xs[i], ys[i])
                        tf.get_variable_scope().reuse_variables()
                        losses.append(loss)
                        tower_grads.append(opt.compute_gradients(loss))
        grads = _average_gradients(tf, tower_grads)
        for g, v in grads:
            tf.summary.histogram(v.op.name + "/gradients", g)
        train = opt.apply_gradients(grads, global_step=gs)
        ema = tf.train.ExponentialMovingAverage(0.9, gs)
        with tf.control_dependencies([train]):
            train = tf.group(ema.apply(tf.trainable_variables()))
        summ = tf.summary.merge_all()
    return {"loss": tf.add_n(losses) / 2.0, "train": train, "after": summ, "extra": [ema.average(tf.trainable_variables()[0]), ema.average(tf.trainable_variables()[3])]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
