"""A small GAN on 1-D Gaussian data (2017 blog style): generator and
discriminator in ``variable_scope``s, the discriminator applied twice with
``reuse=True``, two Adam optimizers each with its own ``var_list`` from
``get_collection(TRAINABLE_VARIABLES, scope)``, alternating steps."""
import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(6)
REAL = (RNG.randn(20, 16, 1) * 0.5 + 3.0).astype(np.float32)
NOISE = RNG.uniform(-1, 1, size=(20, 16, 2)).astype(np.float32)


def _generator(tf, z):
    with tf.variable_scope("generator"):
        h = tf.layers.dense(z, 8, activation=tf.nn.leaky_relu, name="h")
        return tf.layers.dense(h, 1, name="out")


def _discriminator(tf, x, reuse=False):
    with tf.variable_scope("discriminator", reuse=reuse):
        h = tf.layers.dense(x, 8, activation=tf.tanh, name="h")
        return tf.layers.dense(h, 1, name="out")


def build(tf):
    tf.set_random_seed(8)
    x = tf.placeholder(tf.float32, [None, 1], name="x")
    z = tf.placeholder(tf.float32, [None, 2], name="z")
    fake = _generator(tf, z)
    d_real = _discriminator(tf, x)
    d_fake = _discriminator(tf, fake, reuse=True)
    d_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=d_real, labels=tf.ones_like(d_real))
                            + tf.nn.sigmoid_cross_entropy_with_logits(logits=d_fake, labels=tf.zeros_like(d_fake)))
    g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=d_fake, labels=tf.ones_like(d_fake)))
    d_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="discriminator")
    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="generator")
    d_train = tf.train.AdamOptimizer(0.01, beta1=0.5).minimize(d_loss, var_list=d_vars)
    g_train = tf.train.AdamOptimizer(0.01, beta1=0.5).minimize(g_loss, var_list=g_vars)
    return {"x": x, "z": z, "d_loss": d_loss, "g_loss": g_loss, "d_train": d_train, "g_train": g_train,
            "loss": d_loss, "train": d_train}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            feed = {h["x"]: REAL[i % 20], h["z"]: NOISE[i % 20]}
            _, dl = sess.run([h["d_train"], h["d_loss"]], feed_dict=feed)
            _, gl = sess.run([h["g_train"], h["g_loss"]], feed_dict={h["z"]: NOISE[(i + 7) % 20]})
            losses += [float(dl), float(gl)]
        return {"initial": initial, "losses": losses[:steps], "final": variable_values(tf, sess)}
