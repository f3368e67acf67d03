"""``tf.losses.*`` with weights and every ``Reduction``: log_loss, cosine_distance, mean_pairwise_squared_error,
absolute_difference (NONE, outside the collection), softmax/sigmoid cross-entropy with label smoothing,
mean_squared_error with zero weights; ``get_total_loss``."""
from _hooked import hooked_train
from _inputs61 import XS, YS, W8


def build(tf):
    tf.set_random_seed(302)
    x = tf.constant(XS)
    h = tf.layers.dense(x, 4, activation=tf.nn.elu, name="h")
    p = tf.nn.sigmoid(h[:, 0])
    l1 = tf.losses.log_loss(tf.cast(YS > 0, tf.float32), p, weights=tf.constant(W8), reduction=tf.losses.Reduction.MEAN)
    u = tf.nn.l2_normalize(h[:, 1:], axis=1)
    v = tf.nn.l2_normalize(tf.constant(XS), axis=1)
    l2 = tf.losses.cosine_distance(v, u, axis=1, reduction=tf.losses.Reduction.SUM)
    l3 = tf.losses.mean_pairwise_squared_error(tf.constant(XS), h[:, 1:], weights=2.0)
    l4 = tf.losses.absolute_difference(tf.constant(XS[:, :1]), h[:, :1], weights=tf.constant(W8[:, None]),
                                       reduction=tf.losses.Reduction.NONE, loss_collection=None)
    onehot = tf.one_hot(tf.cast(YS > 0, tf.int32), 2)
    l5 = tf.losses.softmax_cross_entropy(onehot, h[:, :2], label_smoothing=0.1, weights=tf.constant(W8))
    l6 = tf.losses.sigmoid_cross_entropy(onehot, h[:, 2:], label_smoothing=0.2, reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE)
    l7 = tf.losses.mean_squared_error(tf.constant(XS[:, :2]), h[:, :2], weights=tf.constant([[0.0], [1.0]] * 8),
                                      reduction=tf.losses.Reduction.SUM_OVER_NONZERO_WEIGHTS)
    total = tf.losses.get_total_loss(add_regularization_losses=False)
    loss = total + tf.reduce_mean(l4) + 0.0 * (l1 + l2 + l3 + l5 + l6 + l7)
    train = tf.train.AdamOptimizer(0.02).minimize(loss)
    return {"loss": loss, "train": train, "extra": [l1, l2, l3, l5, l6, l7]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
