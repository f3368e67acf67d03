"""A two-network GAN as golbin's "09 - GAN" and nlintz's "11_gan" tutorials write
it: generator and discriminator weights as plain ``tf.Variable``\\ s in Python
lists, ``random_normal(stddev=0.01)`` init, the discriminator applied twice with
the same variables, losses ``-reduce_mean(log(D(x)) + log(1 - D(G(z))))`` and
``-reduce_mean(log(D(G(z))))``, and two Adam optimizers each restricted by
``var_list``; noise from a seeded NumPy generator. Both losses per step; the
generated samples are the ``extra``."""
import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES

N_NOISE, N_HIDDEN = 8, 32


def build(tf):
    tf.set_random_seed(11)
    X = tf.placeholder(tf.float32, [None, 64])
    Z = tf.placeholder(tf.float32, [None, N_NOISE])
    G_W1 = tf.Variable(tf.random_normal([N_NOISE, N_HIDDEN], stddev=0.01))
    G_b1 = tf.Variable(tf.zeros([N_HIDDEN]))
    G_W2 = tf.Variable(tf.random_normal([N_HIDDEN, 64], stddev=0.01))
    G_b2 = tf.Variable(tf.zeros([64]))
    D_W1 = tf.Variable(tf.random_normal([64, N_HIDDEN], stddev=0.01))
    D_b1 = tf.Variable(tf.zeros([N_HIDDEN]))
    D_W2 = tf.Variable(tf.random_normal([N_HIDDEN, 1], stddev=0.01))
    D_b2 = tf.Variable(tf.zeros([1]))

    def generator(noise):
        hidden = tf.nn.relu(tf.matmul(noise, G_W1) + G_b1)
        return tf.nn.sigmoid(tf.matmul(hidden, G_W2) + G_b2)

    def discriminator(inputs):
        hidden = tf.nn.relu(tf.matmul(inputs, D_W1) + D_b1)
        return tf.nn.sigmoid(tf.matmul(hidden, D_W2) + D_b2)

    G = generator(Z)
    D_gene = discriminator(G)
    D_real = discriminator(X)
    loss_D = -tf.reduce_mean(tf.log(D_real) + tf.log(1 - D_gene))
    loss_G = -tf.reduce_mean(tf.log(D_gene))
    train_D = tf.train.AdamOptimizer(0.0002).minimize(loss_D, var_list=[D_W1, D_b1, D_W2, D_b2])
    train_G = tf.train.AdamOptimizer(0.0002).minimize(loss_G, var_list=[G_W1, G_b1, G_W2, G_b2])
    return {"X": X, "Z": Z, "G": G, "loss": loss_D, "loss_G": loss_G, "train": train_D, "train_G": train_G}


def train(tf, steps, workdir):
    h = build(tf)
    rng = np.random.RandomState(4)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    initial = variable_values(tf, sess)
    losses, extra = [], []
    for i in range(steps):
        j = (i * 20) % 200
        noise = rng.normal(size=(20, N_NOISE)).astype(np.float32)
        _, loss_d = sess.run([h["train"], h["loss"]], {h["X"]: IMAGES[j:j + 20], h["Z"]: noise})
        _, loss_g = sess.run([h["train_G"], h["loss_G"]], {h["Z"]: noise})
        losses.append(float(loss_d))
        extra.append(np.float32(loss_g))
    extra.append(sess.run(h["G"], {h["Z"]: rng.normal(size=(4, N_NOISE)).astype(np.float32)}))
    final = variable_values(tf, sess)
    sess.close()
    return {"initial": initial, "losses": losses, "final": final, "extra": extra}
