"""A variational autoencoder (the 2016-2017 blog style): a ``tf.layers.dense``
encoder to ``z_mean`` and ``z_log_sigma_sq``, the reparameterization with
``tf.random_normal((batch, n_z), 0, 1)`` drawn in the graph and
``tf.sqrt(tf.exp(z_log_sigma_sq))``, a sigmoid decoder, the reconstruction
loss written with ``tf.log(1e-10 + x_reconstr)`` and the KL term with
``tf.square``/``tf.exp``, ``reduce_mean`` of their sum, Adam 1e-3; after
training, ``transform`` (the encoder's means) and ``generate`` from a fed
``z`` (feeding an intermediate tensor)."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES

BATCH, N_Z = 20, 2
DATA = np.clip(IMAGES / IMAGES.max(), 0.0, 1.0).astype(np.float32)


def build(tf):
    tf.set_random_seed(101)
    x = tf.placeholder(tf.float32, [None, 64])
    h1 = tf.layers.dense(x, 24, activation=tf.nn.softplus, name="enc1")
    z_mean = tf.layers.dense(h1, N_Z, name="z_mean")
    z_log_sigma_sq = tf.layers.dense(h1, N_Z, name="z_log_sigma_sq")
    eps = tf.random_normal((BATCH, N_Z), 0, 1, dtype=tf.float32)
    z = tf.add(z_mean, tf.multiply(tf.sqrt(tf.exp(z_log_sigma_sq)), eps))
    h2 = tf.layers.dense(z, 24, activation=tf.nn.softplus, name="dec1")
    x_reconstr_mean = tf.layers.dense(h2, 64, activation=tf.nn.sigmoid, name="dec_out")
    reconstr_loss = -tf.reduce_sum(x * tf.log(1e-10 + x_reconstr_mean)
                                   + (1 - x) * tf.log(1e-10 + 1 - x_reconstr_mean), 1)
    latent_loss = -0.5 * tf.reduce_sum(1 + z_log_sigma_sq - tf.square(z_mean) - tf.exp(z_log_sigma_sq), 1)
    cost = tf.reduce_mean(reconstr_loss + latent_loss)
    optimizer = tf.train.AdamOptimizer(learning_rate=0.001).minimize(cost)
    return {"x": x, "z": z, "z_mean": z_mean, "x_reconstr_mean": x_reconstr_mean, "loss": cost,
            "train": optimizer}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses = []
        for i in range(steps):
            j = (i * BATCH) % len(DATA)
            _, cost = sess.run((h["train"], h["loss"]), feed_dict={h["x"]: DATA[j:j + BATCH]})
            losses.append(float(cost))
        means = sess.run(h["z_mean"], feed_dict={h["x"]: DATA[:BATCH]})
        generated = sess.run(h["x_reconstr_mean"], feed_dict={h["z"]: np.linspace(-1, 1, 2 * BATCH,
                                                                                dtype=np.float32).reshape(BATCH, 2)})
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess),
                "extra": [means, generated]}
