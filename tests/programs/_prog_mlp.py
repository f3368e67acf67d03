"""A two-hidden-layer MLP in name scopes, truncated-normal weights, histogram
and scalar summaries, dropout with a ``keep_prob`` placeholder, Adam."""
from _corpus import simple_train
from _prog_logreg import IMAGES, ONE_HOT


def _layer(tf, x, n_in, n_out, name, act=None):
    with tf.name_scope(name):
        with tf.name_scope("weights"):
            w = tf.Variable(tf.truncated_normal([n_in, n_out], stddev=0.1))
            tf.summary.histogram("histogram", w)
        with tf.name_scope("biases"):
            b = tf.Variable(tf.constant(0.1, shape=[n_out]))
        with tf.name_scope("Wx_plus_b"):
            pre = tf.matmul(x, w) + b
        return act(pre, name="activation") if act else pre


def build(tf):
    tf.set_random_seed(42)
    with tf.name_scope("input"):
        x = tf.placeholder(tf.float32, [None, 64], name="x-input")
        y_ = tf.placeholder(tf.float32, [None, 10], name="y-input")
    h1 = _layer(tf, x, 64, 32, "layer1", tf.nn.relu)
    with tf.name_scope("dropout"):
        keep_prob = tf.placeholder(tf.float32)
        dropped = tf.nn.dropout(h1, keep_prob)
    h2 = _layer(tf, dropped, 32, 16, "layer2", tf.nn.relu)
    y = _layer(tf, h2, 16, 10, "layer3")
    with tf.name_scope("cross_entropy"):
        diff = tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y)
        with tf.name_scope("total"):
            cross_entropy = tf.reduce_mean(diff)
    tf.summary.scalar("cross_entropy", cross_entropy)
    with tf.name_scope("train"):
        train_step = tf.train.AdamOptimizer(0.01).minimize(cross_entropy)
    merged = tf.summary.merge_all()

    def feed(step):
        i = (step * 20) % 200
        return {x: IMAGES[i:i + 20], y_: ONE_HOT[i:i + 20], keep_prob: 0.8}

    return {"loss": cross_entropy, "train": [train_step, merged], "feed": feed}


def train(tf, steps, workdir):
    return simple_train(tf, build(tf), steps)
