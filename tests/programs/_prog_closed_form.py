"""Linear regression three ways, in the style of nfmcclure's "TensorFlow Machine
Learning Cookbook" chapter 3: the normal equations through ``tf.matrix_inverse``,
the same through ``tf.cholesky`` + ``tf.matrix_solve`` (``L L^T x = A^T b``),
then an elastic-net regression trained by gradient descent with the book's
``tf.placeholder(shape=[None, 1], dtype=tf.float32)`` feeds, ``tf.expand_dims``
of scalar penalties and ``tf.add(tf.add(mse, e1), e2)``. The closed-form
solutions are ``extra``."""
import numpy as np

from _hooked import hooked_train

R = np.random.RandomState(31)
X_VALS = np.linspace(0, 10, 40).astype(np.float32)
Y_VALS = (X_VALS + R.normal(0, 1, 40)).astype(np.float32)
A_NP = np.column_stack([X_VALS, np.ones(40, np.float32)])
B_NP = Y_VALS.reshape(-1, 1)
X3 = R.rand(40, 3).astype(np.float32)
Y3 = (X3 @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)


def build(tf):
    tf.set_random_seed(42)
    A_tensor = tf.constant(A_NP)
    b_tensor = tf.constant(B_NP)
    tA_A = tf.matmul(tf.transpose(A_tensor), A_tensor)
    tA_A_inv = tf.matrix_inverse(tA_A)
    product = tf.matmul(tA_A_inv, tf.transpose(A_tensor))
    solution = tf.matmul(product, b_tensor)
    L = tf.cholesky(tA_A)
    tA_b = tf.matmul(tf.transpose(A_tensor), b_tensor)
    sol1 = tf.matrix_solve(L, tA_b)
    sol2 = tf.matrix_solve(tf.transpose(L), sol1)

    x_data = tf.placeholder(shape=[None, 3], dtype=tf.float32)
    y_target = tf.placeholder(shape=[None, 1], dtype=tf.float32)
    A = tf.Variable(tf.random_normal(shape=[3, 1]))
    b = tf.Variable(tf.random_normal(shape=[1, 1]))
    model_output = tf.add(tf.matmul(x_data, A), b)
    elastic_param1 = tf.constant(1.)
    elastic_param2 = tf.constant(1.)
    l1_a_loss = tf.reduce_mean(tf.abs(A))
    l2_a_loss = tf.reduce_mean(tf.square(A))
    e1_term = tf.multiply(elastic_param1, l1_a_loss)
    e2_term = tf.multiply(elastic_param2, l2_a_loss)
    loss = tf.expand_dims(tf.add(tf.add(tf.reduce_mean(tf.square(y_target - model_output)), e1_term), e2_term), 0)
    my_opt = tf.train.GradientDescentOptimizer(0.001)
    train_step = my_opt.minimize(loss)

    def feed(step):
        idx = np.arange(step * 5, step * 5 + 20) % 40
        return {x_data: X3[idx], y_target: Y3[idx]}

    return {"loss": tf.squeeze(loss), "train": train_step, "feed": feed, "extra": [solution, sol2, L]}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
