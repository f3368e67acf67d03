"""WGAN-GP (the 2017 "improved WGAN training" ports' style): a leaky-ReLU
critic applied to real, fake and interpolated points under one
``variable_scope(reuse=True)``, ``alpha = random_uniform([tf.shape(real)[0], 1])``,
the gradient penalty from ``tf.gradients(critic(interp), [interp])`` (second
order through the critic when the critic trains), two Adam optimizers
(``beta1=0.5, beta2=0.9``) with ``var_list``s filtered by name, the generator
step after each critic step."""
import numpy as np

from _hooked import hooked_train

def _critic(tf, x, reuse):
    with tf.variable_scope("critic", reuse=reuse):
        h = tf.layers.dense(x, 8, activation=lambda t: tf.nn.leaky_relu(t, 0.2), name="h")
        return tf.layers.dense(h, 1, name="out")


def build(tf):
    tf.set_random_seed(205)
    real = tf.placeholder(tf.float32, [None, 2]); z = tf.placeholder(tf.float32, [None, 3])
    with tf.variable_scope("generator"):
        fake = tf.layers.dense(tf.layers.dense(z, 8, activation=tf.nn.relu), 2)
    d_real = _critic(tf, real, False); d_fake = _critic(tf, fake, True)
    alpha = tf.random_uniform(shape=[tf.shape(real)[0], 1], minval=0.0, maxval=1.0)
    interp = real + alpha * (fake - real)
    grads = tf.gradients(_critic(tf, interp, True), [interp])[0]
    slopes = tf.sqrt(tf.reduce_sum(tf.square(grads), reduction_indices=[1]))
    gp = tf.reduce_mean((slopes - 1.0) ** 2)
    d_loss = tf.reduce_mean(d_fake) - tf.reduce_mean(d_real) + 10.0 * gp
    g_loss = -tf.reduce_mean(d_fake)
    t_vars = tf.trainable_variables()
    d_vars = [v for v in t_vars if v.name.startswith("critic")]
    g_vars = [v for v in t_vars if v.name.startswith("generator")]
    d_train = tf.train.AdamOptimizer(1e-3, beta1=0.5, beta2=0.9).minimize(d_loss, var_list=d_vars)
    g_train = tf.train.AdamOptimizer(1e-3, beta1=0.5, beta2=0.9).minimize(g_loss, var_list=g_vars)
    rs = np.random.RandomState(9)
    return {"loss": d_loss, "train": d_train, "after": g_train, "extra": gp,
            "feed": lambda s: {real: rs.randn(6, 2).astype(np.float32) + 2, z: rs.randn(6, 3).astype(np.float32)}}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
