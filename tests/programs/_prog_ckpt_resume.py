"""Checkpointing mid-training and resuming (the 2017 "save and restore"
posts' style): ``tf.train.get_or_create_global_step``, a two-layer network,
``tf.train.Saver(max_to_keep=2)`` saving every few steps with
``global_step=``; the training is interrupted, a new graph is built, and
``tf.train.get_checkpoint_state(dir)`` gives ``model_checkpoint_path`` (and
``all_model_checkpoint_paths``, two kept) which a fresh Saver restores
before training continues from the restored global step;
``tf.train.latest_checkpoint`` and the kept files are compared too."""
import os

import numpy as np

from _corpus import variable_values
from _prog_logreg import IMAGES, ONE_HOT

BATCH = 16


def build(tf):
    tf.set_random_seed(5150)
    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.float32, [None, 10], name="y")
    global_step = tf.train.get_or_create_global_step()
    hidden = tf.layers.dense(x, 24, activation=tf.nn.tanh, name="hidden")
    logits = tf.layers.dense(hidden, 10, name="logits")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=global_step)

    def feed(step):
        s = (step * BATCH) % 192
        return {x: IMAGES[s:s + BATCH], y: ONE_HOT[s:s + BATCH]}

    return {"loss": loss, "train": train_op, "global_step": global_step, "feed": feed}


def train(tf, steps, workdir):
    half = steps // 2
    ckpt_dir = os.path.join(workdir, "ckpt")
    losses = []
    h = build(tf)
    saver = tf.train.Saver(max_to_keep=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        for i in range(half):
            _, loss = sess.run([h["train"], h["loss"]], feed_dict=h["feed"](i))
            losses.append(float(loss))
            if i % 2 == 1:
                saver.save(sess, os.path.join(ckpt_dir, "model.ckpt"), global_step=h["global_step"])
        kept = [os.path.basename(p) for p in saver.last_checkpoints]
    with tf.Graph().as_default():
        h = build(tf)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            ckpt = tf.train.get_checkpoint_state(ckpt_dir)
            assert ckpt and ckpt.model_checkpoint_path
            saver.restore(sess, ckpt.model_checkpoint_path)
            start = int(sess.run(h["global_step"]))
            for i in range(start, start + steps - half):
                _, loss = sess.run([h["train"], h["loss"]], feed_dict=h["feed"](i))
                losses.append(float(loss))
            final = variable_values(tf, sess)
            state = [os.path.basename(ckpt.model_checkpoint_path),
                     [os.path.basename(p) for p in ckpt.all_model_checkpoint_paths],
                     os.path.basename(tf.train.latest_checkpoint(ckpt_dir)), kept, start,
                     sorted(f for f in os.listdir(ckpt_dir) if f.endswith(".index"))]
    return {"initial": initial, "losses": losses, "final": final, "extra": state}
