"""A TF 1.x training script: a one-hidden-layer network on three Gaussian blobs.

Written for TensorFlow 1.x; runs unchanged on ``ref`` with the first import
swapped (``import ref as tf``). Prints the loss every 50 steps, then the test
accuracy, and saves a checkpoint.
"""
import os
import sys
import tempfile

import numpy as np
import ref as tf

# -- data: three blobs in 2-D, generated (no download) --------------------------
rng = np.random.RandomState(0)
centers = np.array([[0.0, 2.0], [-2.0, -1.0], [2.0, -1.0]], np.float32)
labels = rng.randint(0, 3, size=600)
points = (centers[labels] + rng.normal(scale=0.8, size=(600, 2))).astype(np.float32)
onehot = np.eye(3, dtype=np.float32)[labels]
x_train, y_train, x_test, y_test = points[:500], onehot[:500], points[500:], onehot[500:]

# -- the model ---------------------------------------------------------------------
x = tf.placeholder(tf.float32, [None, 2], name="x")
y = tf.placeholder(tf.float32, [None, 3], name="y")
with tf.variable_scope("hidden"):
    w1 = tf.get_variable("w", initializer=rng.normal(scale=0.5, size=(2, 16)).astype(np.float32))
    b1 = tf.get_variable("b", [16], initializer=tf.zeros_initializer())
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
with tf.variable_scope("out"):
    w2 = tf.get_variable("w", initializer=rng.normal(scale=0.5, size=(16, 3)).astype(np.float32))
    b2 = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    logits = tf.matmul(h, w2) + b2

loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
global_step = tf.train.get_or_create_global_step()
learning_rate = tf.train.exponential_decay(0.5, global_step, decay_steps=100, decay_rate=0.5)
train_op = tf.train.MomentumOptimizer(learning_rate, momentum=0.9).minimize(loss, global_step=global_step)
correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
tf.summary.scalar("loss", loss)
summaries = tf.summary.merge_all()
saver = tf.train.Saver()

# -- training ------------------------------------------------------------------------
logdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    writer = tf.summary.FileWriter(logdir, sess.graph)
    for step in range(200):
        _, l, s = sess.run([train_op, loss, summaries], feed_dict={x: x_train, y: y_train})
        writer.add_summary(s, step)
        if step % 50 == 0:
            print(f"step {step:3d}  loss {l:.4f}")
    writer.close()
    print(f"test accuracy {sess.run(accuracy, {x: x_test, y: y_test}):.3f}")
    print("saved", os.path.basename(saver.save(sess, os.path.join(logdir, "model.ckpt"), global_step=global_step)))
