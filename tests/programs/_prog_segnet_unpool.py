"""SegNet-style encoder/decoder: ``tf.nn.max_pool_with_argmax`` keeps the
argmax, the decoder unpools with ``tf.scatter_nd`` on the flattened indices
(the well-known ``unpool`` helper of public SegNet ports: ``tf.ones_like``,
``tf.range``, ``tf.stack``, ``tf.reshape``), ``tf.pad`` in ``REFLECT`` and
``SYMMETRIC`` mode before the convolutions, ``tf.image.resize_bilinear`` of
the logits, ``tf.image.crop_and_resize`` crops and a
``weighted_cross_entropy_with_logits`` (``targets=``, ``pos_weight=``) loss;
RMSProp with momentum."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(8)
IMGS = R.rand(2, 8, 8, 3).astype(np.float32)
MASK = (IMGS.mean(3, keepdims=True) > 0.5).astype(np.float32)


def unpool(tf, pool, ind, ksize=(1, 2, 2, 1)):
    input_shape = tf.shape(pool)
    output_shape = [input_shape[0], input_shape[1] * ksize[1], input_shape[2] * ksize[2], input_shape[3]]
    flat_input_size = tf.reduce_prod(input_shape)
    flat_output_shape = [output_shape[0], output_shape[1] * output_shape[2] * output_shape[3]]
    pool_ = tf.reshape(pool, [flat_input_size])
    batch_range = tf.reshape(tf.range(tf.cast(output_shape[0], tf.int64), dtype=ind.dtype),
                             shape=[input_shape[0], 1, 1, 1])
    b = tf.ones_like(ind) * batch_range
    b1 = tf.reshape(b, [flat_input_size, 1])
    ind_ = tf.reshape(ind, [flat_input_size, 1])
    ind_ = tf.concat([b1, ind_], 1)
    ret = tf.scatter_nd(ind_, pool_, shape=tf.cast(flat_output_shape, tf.int64))
    return tf.reshape(ret, output_shape)


def build(tf):
    tf.set_random_seed(88)
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    m = tf.placeholder(tf.float32, [None, 8, 8, 1])
    xp = tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], "REFLECT")
    w1 = tf.Variable(tf.truncated_normal([3, 3, 3, 4], stddev=0.1))
    h = tf.nn.relu(tf.nn.conv2d(xp, w1, [1, 1, 1, 1], "VALID"))
    pool, argmax = tf.nn.max_pool_with_argmax(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    up = unpool(tf, pool, argmax)
    up = tf.reshape(up, [-1, 8, 8, 4])
    upp = tf.pad(up, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="SYMMETRIC")
    w2 = tf.Variable(tf.truncated_normal([3, 3, 4, 1], stddev=0.1))
    logits = tf.nn.conv2d(upp, w2, [1, 1, 1, 1], "VALID")
    small = tf.image.resize_bilinear(tf.nn.avg_pool(logits, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [8, 8])
    loss = tf.reduce_mean(tf.nn.weighted_cross_entropy_with_logits(targets=m, logits=logits + 0.5 * small,
                                                                   pos_weight=2.0))
    crops = tf.image.crop_and_resize(logits, [[0.0, 0.0, 0.5, 0.5], [0.25, 0.1, 0.9, 0.8]], [0, 1], [3, 3])
    train = tf.train.RMSPropOptimizer(0.01, momentum=0.9).minimize(loss)
    return {"loss": loss, "train": train, "feed": lambda s: {x: IMGS, m: MASK}, "extra": [crops, small]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
