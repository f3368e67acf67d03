"""A tiny word-level language model in the PTB tutorial's style: an
embedding, ``static_rnn`` over ``tf.unstack``-ed steps with a
``BasicLSTMCell``, a softmax layer, the sequence loss as a mean sparse
softmax cross entropy, ``clip_by_global_norm`` of the gradients and SGD
with an exponentially decayed learning rate."""
import numpy as np

from _corpus import simple_train

VOCAB, STEPS, BATCH, HIDDEN = 20, 5, 4, 8
RNG = np.random.RandomState(2)
CORPUS = (np.arange(400) * 7 + RNG.randint(3, size=400)) % VOCAB


def build(tf):
    tf.set_random_seed(3)
    inputs = tf.placeholder(tf.int32, [BATCH, STEPS], name="inputs")
    targets = tf.placeholder(tf.int32, [BATCH, STEPS], name="targets")
    initializer = tf.random_uniform_initializer(-0.1, 0.1)
    with tf.variable_scope("Model", initializer=initializer):
        embedding = tf.get_variable("embedding", [VOCAB, HIDDEN], dtype=tf.float32)
        emb = tf.nn.embedding_lookup(embedding, inputs)
        cell = tf.nn.rnn_cell.BasicLSTMCell(HIDDEN, forget_bias=0.0, state_is_tuple=True)
        state = cell.zero_state(BATCH, tf.float32)
        steps = tf.unstack(emb, num=STEPS, axis=1)
        outputs, state = tf.nn.static_rnn(cell, steps, initial_state=state)
        output = tf.reshape(tf.concat(outputs, 1), [-1, HIDDEN])
        softmax_w = tf.get_variable("softmax_w", [HIDDEN, VOCAB], dtype=tf.float32)
        softmax_b = tf.get_variable("softmax_b", [VOCAB], dtype=tf.float32)
        logits = tf.matmul(output, softmax_w) + softmax_b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(targets, [-1]), logits=logits))
    global_step = tf.Variable(0, trainable=False, name="global_step")
    lr = tf.train.exponential_decay(1.0, global_step, 5, 0.8, staircase=True)
    tvars = tf.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 5.0)
    optimizer = tf.train.GradientDescentOptimizer(lr)
    train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=global_step)

    def feed(i):
        start = (i * BATCH * STEPS) % 300
        chunk = CORPUS[start:start + BATCH * STEPS + 1]
        return {inputs: chunk[:-1].reshape(BATCH, STEPS), targets: chunk[1:].reshape(BATCH, STEPS)}

    return {"loss": loss, "train": train_op, "feed": feed}


def train(tf, steps, workdir):
    return simple_train(tf, build(tf), steps)
