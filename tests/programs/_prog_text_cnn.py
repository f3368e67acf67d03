"""A CNN for sentence classification (the 2015-2016 "text CNN" blog style):
an embedding ``W`` of ``random_uniform(-1, 1)`` looked up and
``expand_dims``-ed to one channel, one conv + max-pool-over-time per filter
size in ``name_scope("conv-maxpool-%s")`` (VALID padding, ``bias_add``,
truncated-normal filters), the pooled features concatenated on axis 3 and
flattened, dropout, an output layer with ``get_variable`` (Xavier-style
``glorot_uniform_initializer``) and ``xw_plus_b``, L2 loss of the output
weights, predictions by ``argmax``, accuracy, Adam with
``compute_gradients``/``apply_gradients`` and a global step, and gradient
histogram + sparsity summaries merged with loss/accuracy summaries."""
import numpy as np

from _corpus import variable_values

SEQ, VOCAB, EMB, CLASSES, BATCH = 7, 30, 6, 2, 10
FILTER_SIZES, NUM_FILTERS = (2, 3, 4), 3
RNG = np.random.RandomState(61)
SENTENCES = RNG.randint(1, VOCAB, size=(60, SEQ)).astype(np.int32)
LABELS = np.eye(CLASSES, dtype=np.float32)[((SENTENCES[:, :3] < VOCAB // 2).sum(1) >= 2).astype(int)]


class TextCNN:
    def __init__(self, tf, l2_reg_lambda=0.1):
        self.input_x = tf.placeholder(tf.int32, [None, SEQ], name="input_x")
        self.input_y = tf.placeholder(tf.float32, [None, CLASSES], name="input_y")
        self.dropout_keep_prob = tf.placeholder(tf.float32, name="dropout_keep_prob")
        l2_loss = tf.constant(0.0)
        with tf.device("/cpu:0"), tf.name_scope("embedding"):
            self.W = tf.Variable(tf.random_uniform([VOCAB, EMB], -1.0, 1.0), name="W")
            self.embedded_chars = tf.nn.embedding_lookup(self.W, self.input_x)
            self.embedded_chars_expanded = tf.expand_dims(self.embedded_chars, -1)
        pooled_outputs = []
        for filter_size in FILTER_SIZES:
            with tf.name_scope("conv-maxpool-%s" % filter_size):
                filter_shape = [filter_size, EMB, 1, NUM_FILTERS]
                W = tf.Variable(tf.truncated_normal(filter_shape, stddev=0.1), name="W")
                b = tf.Variable(tf.constant(0.1, shape=[NUM_FILTERS]), name="b")
                conv = tf.nn.conv2d(self.embedded_chars_expanded, W, strides=[1, 1, 1, 1], padding="VALID",
                                    name="conv")
                h = tf.nn.relu(tf.nn.bias_add(conv, b), name="relu")
                pooled = tf.nn.max_pool(h, ksize=[1, SEQ - filter_size + 1, 1, 1], strides=[1, 1, 1, 1],
                                        padding="VALID", name="pool")
                pooled_outputs.append(pooled)
        num_filters_total = NUM_FILTERS * len(FILTER_SIZES)
        self.h_pool = tf.concat(pooled_outputs, 3)
        self.h_pool_flat = tf.reshape(self.h_pool, [-1, num_filters_total])
        with tf.name_scope("dropout"):
            self.h_drop = tf.nn.dropout(self.h_pool_flat, self.dropout_keep_prob)
        with tf.name_scope("output"):
            W = tf.get_variable("W", shape=[num_filters_total, CLASSES],
                                initializer=tf.glorot_uniform_initializer())
            b = tf.Variable(tf.constant(0.1, shape=[CLASSES]), name="b")
            l2_loss += tf.nn.l2_loss(W)
            l2_loss += tf.nn.l2_loss(b)
            self.scores = tf.nn.xw_plus_b(self.h_drop, W, b, name="scores")
            self.predictions = tf.argmax(self.scores, 1, name="predictions")
        with tf.name_scope("loss"):
            losses = tf.nn.softmax_cross_entropy_with_logits(logits=self.scores, labels=self.input_y)
            self.loss = tf.reduce_mean(losses) + l2_reg_lambda * l2_loss
        with tf.name_scope("accuracy"):
            correct_predictions = tf.equal(self.predictions, tf.argmax(self.input_y, 1))
            self.accuracy = tf.reduce_mean(tf.cast(correct_predictions, "float"), name="accuracy")


def build(tf):
    tf.set_random_seed(62)
    cnn = TextCNN(tf)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    optimizer = tf.train.AdamOptimizer(1e-2)
    grads_and_vars = optimizer.compute_gradients(cnn.loss)
    train_op = optimizer.apply_gradients(grads_and_vars, global_step=global_step)
    grad_summaries = []
    for g, v in grads_and_vars:
        if g is not None:
            grad_summaries.append(tf.summary.histogram("{}/grad/hist".format(v.name), g))
            grad_summaries.append(tf.summary.scalar("{}/grad/sparsity".format(v.name), tf.nn.zero_fraction(g)))
    grad_summaries_merged = tf.summary.merge(grad_summaries)
    loss_summary = tf.summary.scalar("loss", cnn.loss)
    acc_summary = tf.summary.scalar("accuracy", cnn.accuracy)
    train_summary_op = tf.summary.merge([loss_summary, acc_summary, grad_summaries_merged])
    return {"cnn": cnn, "loss": cnn.loss, "train": train_op, "global_step": global_step,
            "summary": train_summary_op}


def train(tf, steps, workdir):
    h = build(tf)
    cnn = h["cnn"]
    sess = tf.Session()
    with sess.as_default():
        writer = tf.summary.FileWriter(workdir, sess.graph)
        sess.run(tf.global_variables_initializer())
        initial = variable_values(tf, sess)
        losses, extra = [], []
        for i in range(steps):
            j = (i * BATCH) % len(SENTENCES)
            feed_dict = {cnn.input_x: SENTENCES[j:j + BATCH], cnn.input_y: LABELS[j:j + BATCH],
                         cnn.dropout_keep_prob: 0.5}
            _, step, summaries, loss, accuracy = sess.run(
                [h["train"], h["global_step"], h["summary"], cnn.loss, cnn.accuracy], feed_dict)
            writer.add_summary(summaries, step)
            losses.append(float(loss))
            extra.append((int(step), np.float32(accuracy)))
        feed_dict = {cnn.input_x: SENTENCES, cnn.input_y: LABELS, cnn.dropout_keep_prob: 1.0}
        predictions = sess.run(cnn.predictions, feed_dict)
        summary = tf.Summary.FromString(sess.run(h["summary"], feed_dict))
        tags = [v.tag for v in summary.value]
        writer.close()
        final = variable_values(tf, sess)
    sess.close()
    return {"initial": initial, "losses": losses, "final": final,
            "extra": [extra, predictions.tolist(), tags]}
