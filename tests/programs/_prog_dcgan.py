"""A DCGAN-style GAN (2017-2018 blog style) on 4x4 "images": generator and
discriminator written with ``tf.get_variable`` under
``variable_scope(..., reuse=tf.AUTO_REUSE)`` (the discriminator called on
real and fake inputs), ``tf.layers.batch_normalization(training=True)``
whose moving-average updates run through ``UPDATE_OPS`` control
dependencies, leaky ReLU as ``tf.maximum(alpha * x, x)``, the losses written
with ``tf.log`` of sigmoid outputs, noise drawn in the graph with
``tf.random_uniform``, two Adam optimizers each with ``var_list`` from
``get_collection(TRAINABLE_VARIABLES, scope=...)``, and the generator's
samples fetched at the end."""
import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(51)
REAL = np.tanh(RNG.randn(64, 16) + np.linspace(-1, 1, 16)).astype(np.float32)
BATCH, Z_DIM = 16, 4


def _dense(tf, x, n_out, name, stddev=0.3, bias=True):
    # No bias before a batch norm: its gradient is zero up to rounding, which
    # Adam would scale up to full steps (noise, not a difference to compare).
    with tf.variable_scope(name):
        w = tf.get_variable("w", [x.get_shape()[-1], n_out], initializer=tf.random_normal_initializer(stddev=stddev))
        if not bias:
            return tf.matmul(x, w)
        b = tf.get_variable("b", [n_out], initializer=tf.constant_initializer(0.0))
        return tf.matmul(x, w) + b


def _lrelu(tf, x, alpha=0.2):
    return tf.maximum(alpha * x, x)


def generator(tf, z):
    with tf.variable_scope("G", reuse=tf.AUTO_REUSE):
        h = _dense(tf, z, 12, "h0", bias=False)
        h = tf.nn.relu(tf.layers.batch_normalization(h, training=True, name="bn0"))
        return tf.nn.tanh(_dense(tf, h, 16, "out"))


def discriminator(tf, x):
    with tf.variable_scope("D", reuse=tf.AUTO_REUSE):
        h = _lrelu(tf, _dense(tf, x, 12, "h0"))
        h = _lrelu(tf, tf.layers.batch_normalization(_dense(tf, h, 8, "h1", bias=False), training=True, name="bn1"))
        logits = _dense(tf, h, 1, "out")
        return tf.nn.sigmoid(logits), logits


def build(tf):
    tf.set_random_seed(52)
    x = tf.placeholder(tf.float32, [BATCH, 16], name="real_images")
    z = tf.random_uniform([BATCH, Z_DIM], -1.0, 1.0, name="z")
    G = generator(tf, z)
    D_real, _ = discriminator(tf, x)
    D_fake, _ = discriminator(tf, G)
    eps = 1e-8
    d_loss = -tf.reduce_mean(tf.log(D_real + eps) + tf.log(1.0 - D_fake + eps))
    g_loss = -tf.reduce_mean(tf.log(D_fake + eps))
    d_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="D")
    g_vars = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="G")
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        d_optim = tf.train.AdamOptimizer(0.0002 * 10, beta1=0.5).minimize(d_loss, var_list=d_vars)
        g_optim = tf.train.AdamOptimizer(0.0002 * 10, beta1=0.5).minimize(g_loss, var_list=g_vars)
    return {"x": x, "G": G, "d_loss": d_loss, "g_loss": g_loss, "d_optim": d_optim, "g_optim": g_optim,
            "loss": d_loss, "train": d_optim}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            batch = REAL[(i * BATCH) % 64:(i * BATCH) % 64 + BATCH]
            _, d = sess.run([h["d_optim"], h["d_loss"]], feed_dict={h["x"]: batch})
            _, g = sess.run([h["g_optim"], h["g_loss"]], feed_dict={h["x"]: batch})
            losses.append(float(d) + float(g))
        samples = sess.run(h["G"])
        # D's batch-norm moving statistics are left out of the comparison: both
        # calls of D (real, fake) put an update of the same variables in
        # UPDATE_OPS, and TF runs the two in no fixed order (each reads the
        # reference variable when it runs). Training mode never reads them.
        final = {k: v for k, v in variable_values(tf, sess).items() if not k.startswith("D/bn1/moving_")}
        return {"initial": initial, "losses": losses, "final": final, "extra": [samples]}
