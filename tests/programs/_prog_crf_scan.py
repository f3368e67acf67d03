"""A linear-chain CRF without tf.contrib: the forward algorithm in log space with ``tf.scan`` and
``reduce_logsumexp`` over masked time steps, the gold path score by ``gather``, Viterbi maxima by a second
``scan``."""
from _hooked import hooked_train
from _inputs61 import SEQ, TAGS, SLEN


def build(tf):
    tf.set_random_seed(303)
    NT = 4
    x = tf.constant(SEQ); tags = tf.constant(TAGS); lens = tf.constant(SLEN)
    w = tf.get_variable("w", [5, NT]); trans = tf.get_variable("transitions", [NT, NT])
    unary = tf.reshape(tf.matmul(tf.reshape(x, [-1, 5]), w), [3, 7, NT])
    mask = tf.sequence_mask(lens, 7, dtype=tf.float32)
    # forward algorithm (log-space) with tf.scan over time-major inputs
    un_t = tf.transpose(unary, [1, 0, 2]); m_t = tf.transpose(mask)

    def fwd(alpha, inp):
        u, m = inp
        scores = tf.expand_dims(alpha, 2) + tf.expand_dims(trans, 0) + tf.expand_dims(u, 1)
        new = tf.reduce_logsumexp(scores, axis=1)
        m = tf.expand_dims(m, 1)
        return m * new + (1.0 - m) * alpha

    alphas = tf.scan(fwd, (un_t[1:], m_t[1:]), initializer=un_t[0])
    log_z = tf.reduce_logsumexp(alphas[-1], axis=1)
    # score of the gold path
    flat = tf.reshape(unary, [-1, NT])
    idx = tf.range(3 * 7) * NT + tf.reshape(tags, [-1])
    un_score = tf.reduce_sum(tf.reshape(tf.gather(tf.reshape(flat, [-1]), idx), [3, 7]) * mask, 1)
    pairs = tags[:, :-1] * NT + tags[:, 1:]
    tr_score = tf.reduce_sum(tf.gather(tf.reshape(trans, [-1]), pairs) * mask[:, 1:], 1)
    loss = tf.reduce_mean(log_z - un_score - tr_score)
    # viterbi best-last-tag via scan with max
    def vit(delta, u):
        return tf.reduce_max(tf.expand_dims(delta, 2) + tf.expand_dims(trans, 0), axis=1) + u
    deltas = tf.scan(vit, un_t[1:], initializer=un_t[0])
    best = tf.argmax(deltas[-1], axis=1)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    return {"loss": loss, "train": train, "extra": best}


def train(tf, steps, workdir):
    return hooked_train(tf, build(tf), steps)
