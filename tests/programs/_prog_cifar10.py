"""A CIFAR-10-style model (the 2016 multi-GPU tutorial's cifar10.py, small):
variables made by ``tf.get_variable`` under ``tf.device('/cpu:0')``, weight
decay ``multiply(l2_loss(var), wd)`` added to a 'losses' collection and
summed by ``tf.add_n(tf.get_collection('losses'))``; conv, ``bias_add``,
max_pool 3x3/2, ``tf.nn.lrn``; activation histograms and ``zero_fraction``
sparsity summaries (names cleaned of ':0' and spaces); an
``ExponentialMovingAverage`` of the losses under the gradient step's control
dependencies, ``exponential_decay`` staircase, gradient histograms, an EMA of
every trainable variable after ``apply_gradients`` and ``train_op =
tf.no_op(name='train')``. Also returned: the moving averages and the
merged summaries' scalar values of the last step."""
import re

import numpy as np

from _corpus import variable_values

RNG = np.random.RandomState(31)
IMAGES = RNG.rand(48, 12, 12, 3).astype(np.float32)
LABELS = (IMAGES[:, :6, :6, 0].mean((1, 2)) * 10).astype(np.int32) % 5
BATCH, CLASSES = 8, 5


def _activation_summary(tf, x):
    tensor_name = re.sub("tower_[0-9]*/", "", x.op.name)
    tf.summary.histogram(tensor_name + "/activations", x)
    tf.summary.scalar(tensor_name + "/sparsity", tf.nn.zero_fraction(x))


def _variable_on_cpu(tf, name, shape, initializer):
    with tf.device("/cpu:0"):
        var = tf.get_variable(name, shape, initializer=initializer, dtype=tf.float32)
    return var


def _variable_with_weight_decay(tf, name, shape, stddev, wd):
    var = _variable_on_cpu(tf, name, shape, tf.truncated_normal_initializer(stddev=stddev, dtype=tf.float32))
    if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss")
        tf.add_to_collection("losses", weight_decay)
    return var


def inference(tf, images):
    with tf.variable_scope("conv1") as scope:
        kernel = _variable_with_weight_decay(tf, "weights", shape=[3, 3, 3, 8], stddev=5e-2, wd=None)
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME")
        biases = _variable_on_cpu(tf, "biases", [8], tf.constant_initializer(0.0))
        pre_activation = tf.nn.bias_add(conv, biases)
        conv1 = tf.nn.relu(pre_activation, name=scope.name)
        _activation_summary(tf, conv1)
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME", name="pool1")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")
    with tf.variable_scope("conv2") as scope:
        kernel = _variable_with_weight_decay(tf, "weights", shape=[3, 3, 8, 8], stddev=5e-2, wd=None)
        conv = tf.nn.conv2d(norm1, kernel, [1, 1, 1, 1], padding="SAME")
        biases = _variable_on_cpu(tf, "biases", [8], tf.constant_initializer(0.1))
        pre_activation = tf.nn.bias_add(conv, biases)
        conv2 = tf.nn.relu(pre_activation, name=scope.name)
        _activation_summary(tf, conv2)
    norm2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm2")
    pool2 = tf.nn.max_pool(norm2, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME", name="pool2")
    with tf.variable_scope("local3") as scope:
        reshape = tf.reshape(pool2, [images.get_shape().as_list()[0], -1])
        dim = reshape.get_shape()[1].value
        weights = _variable_with_weight_decay(tf, "weights", shape=[dim, 24], stddev=0.04, wd=0.004)
        biases = _variable_on_cpu(tf, "biases", [24], tf.constant_initializer(0.1))
        local3 = tf.nn.relu(tf.matmul(reshape, weights) + biases, name=scope.name)
        _activation_summary(tf, local3)
    with tf.variable_scope("local4") as scope:
        weights = _variable_with_weight_decay(tf, "weights", shape=[24, 16], stddev=0.04, wd=0.004)
        biases = _variable_on_cpu(tf, "biases", [16], tf.constant_initializer(0.1))
        local4 = tf.nn.relu(tf.matmul(local3, weights) + biases, name=scope.name)
        _activation_summary(tf, local4)
    with tf.variable_scope("softmax_linear") as scope:
        weights = _variable_with_weight_decay(tf, "weights", [16, CLASSES], stddev=1 / 16.0, wd=None)
        biases = _variable_on_cpu(tf, "biases", [CLASSES], tf.constant_initializer(0.0))
        softmax_linear = tf.add(tf.matmul(local4, weights), biases, name=scope.name)
        _activation_summary(tf, softmax_linear)
    return softmax_linear


def loss_fn(tf, logits, labels):
    labels = tf.cast(labels, tf.int64)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits, name="cross_entropy_per_example")
    cross_entropy_mean = tf.reduce_mean(cross_entropy, name="cross_entropy")
    tf.add_to_collection("losses", cross_entropy_mean)
    return tf.add_n(tf.get_collection("losses"), name="total_loss")


def _add_loss_summaries(tf, total_loss):
    loss_averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
    losses = tf.get_collection("losses")
    loss_averages_op = loss_averages.apply(losses + [total_loss])
    for l in losses + [total_loss]:
        tf.summary.scalar(l.op.name + " (raw)", l)
        tf.summary.scalar(l.op.name, loss_averages.average(l))
    return loss_averages_op


def train_op_fn(tf, total_loss, global_step):
    lr = tf.train.exponential_decay(0.1, global_step, 4, 0.5, staircase=True)
    tf.summary.scalar("learning_rate", lr)
    loss_averages_op = _add_loss_summaries(tf, total_loss)
    with tf.control_dependencies([loss_averages_op]):
        opt = tf.train.GradientDescentOptimizer(lr)
        grads = opt.compute_gradients(total_loss)
    apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
    for var in tf.trainable_variables():
        tf.summary.histogram(var.op.name, var)
    for grad, var in grads:
        if grad is not None:
            tf.summary.histogram(var.op.name + "/gradients", grad)
    variable_averages = tf.train.ExponentialMovingAverage(0.9999, global_step)
    with tf.control_dependencies([apply_gradient_op]):
        variables_averages_op = variable_averages.apply(tf.trainable_variables())
    with tf.control_dependencies([variables_averages_op]):
        train_op = tf.no_op(name="train")
    return train_op


def build(tf):
    tf.set_random_seed(33)
    global_step = tf.train.get_or_create_global_step()
    with tf.device("/cpu:0"):
        images = tf.placeholder(tf.float32, [BATCH, 12, 12, 3], name="images")
        labels = tf.placeholder(tf.int32, [BATCH], name="labels")
    logits = inference(tf, images)
    loss = loss_fn(tf, logits, labels)
    train_op = train_op_fn(tf, loss, global_step)
    summary_op = tf.summary.merge_all()

    def feed(i):
        j = (i * BATCH) % len(IMAGES)
        return {images: IMAGES[j:j + BATCH], labels: LABELS[j:j + BATCH]}

    return {"loss": loss, "train": train_op, "summary": summary_op, "feed": feed}


def train(tf, steps, workdir):
    h = build(tf)
    with tf.Session(config=tf.ConfigProto(log_device_placement=False)) as sess:
        sess.run(tf.global_variables_initializer())
        initial = {k: v for k, v in variable_values(tf, sess).items() if "ExponentialMovingAverage" not in k
                   and "avg" not in k}
        losses = []
        for step in range(steps):
            _, loss_value = sess.run([h["train"], h["loss"]], feed_dict=h["feed"](step))
            losses.append(float(loss_value))
        summary = tf.Summary()
        summary.ParseFromString(sess.run(h["summary"], feed_dict=h["feed"](steps)))
        # The averages' own scalars are left out: the summary run also runs
        # the loss EMA (the gradients wait on it), and whether a summary reads
        # the reference variable before or after that update is unordered in TF.
        scalars = [(v.tag, np.float32(v.simple_value)) for v in summary.value
                   if v.WhichOneof("value") == "simple_value" and not v.tag.endswith("_1")]
        histos = [(v.tag, v.histo.num, np.float32(v.histo.min), np.float32(v.histo.max), len(v.histo.bucket))
                  for v in summary.value if v.WhichOneof("value") == "histo"]
        return {"initial": initial, "losses": losses, "final": variable_values(tf, sess),
                "extra": [scalars, histos]}
