"""The PTB word-level LSTM language model (the 2016-2017 tutorial's
``PTBModel``, small config shrunk): a ``MultiRNNCell`` of
``BasicLSTMCell(forget_bias=0.0)`` each wrapped in a ``DropoutWrapper``,
embeddings on ``/cpu:0`` with input dropout, the unrolled loop calling the
cell by hand under ``variable_scope("RNN")`` with ``reuse_variables()`` after
the first step, ``xw_plus_b`` logits and a sequence loss summed over steps
and divided by the batch, ``clip_by_global_norm`` of ``tf.gradients``, SGD
with a non-trainable learning-rate variable set by ``tf.assign`` from a
placeholder, a second (validation) model sharing the variables under
``reuse=True`` in another name scope, and the final LSTM state fed back as
the next step's initial state through dict fetches."""
import numpy as np

from _corpus import variable_values

VOCAB, NUM_STEPS, BATCH, SIZE, LAYERS = 24, 4, 3, 8, 2
RNG = np.random.RandomState(41)
DATA = ((np.arange(600) * 5 + RNG.randint(4, size=600)) % VOCAB).astype(np.int32)


class PTBModel:
    def __init__(self, tf, is_training, keep_prob=0.7):
        self.input_data = tf.placeholder(tf.int32, [BATCH, NUM_STEPS])
        self.targets = tf.placeholder(tf.int32, [BATCH, NUM_STEPS])

        def lstm_cell():
            return tf.nn.rnn_cell.BasicLSTMCell(SIZE, forget_bias=0.0, state_is_tuple=True,
                                                reuse=tf.get_variable_scope().reuse)

        def attn_cell():
            cell = lstm_cell()
            if is_training and keep_prob < 1:
                cell = tf.nn.rnn_cell.DropoutWrapper(cell, output_keep_prob=keep_prob)
            return cell

        cell = tf.nn.rnn_cell.MultiRNNCell([attn_cell() for _ in range(LAYERS)], state_is_tuple=True)
        self.initial_state = cell.zero_state(BATCH, tf.float32)
        with tf.device("/cpu:0"):
            embedding = tf.get_variable("embedding", [VOCAB, SIZE], dtype=tf.float32)
            inputs = tf.nn.embedding_lookup(embedding, self.input_data)
        if is_training and keep_prob < 1:
            inputs = tf.nn.dropout(inputs, keep_prob)
        outputs = []
        state = self.initial_state
        with tf.variable_scope("RNN"):
            for time_step in range(NUM_STEPS):
                if time_step > 0:
                    tf.get_variable_scope().reuse_variables()
                (cell_output, state) = cell(inputs[:, time_step, :], state)
                outputs.append(cell_output)
        output = tf.reshape(tf.concat(outputs, 1), [-1, SIZE])
        softmax_w = tf.get_variable("softmax_w", [SIZE, VOCAB], dtype=tf.float32)
        softmax_b = tf.get_variable("softmax_b", [VOCAB], dtype=tf.float32)
        logits = tf.nn.xw_plus_b(output, softmax_w, softmax_b)
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(self.targets, [-1]), logits=logits)
        self.cost = cost = tf.reduce_sum(loss) / BATCH
        self.final_state = state
        if not is_training:
            return
        self.lr = tf.Variable(0.0, trainable=False)
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(cost, tvars), 5.0)
        optimizer = tf.train.GradientDescentOptimizer(self.lr)
        self.train_op = optimizer.apply_gradients(zip(grads, tvars),
                                                  global_step=tf.train.get_or_create_global_step())
        self.new_lr = tf.placeholder(tf.float32, shape=[], name="new_learning_rate")
        self.lr_update = tf.assign(self.lr, self.new_lr)

    def assign_lr(self, session, lr_value):
        session.run(self.lr_update, feed_dict={self.new_lr: lr_value})


def build(tf):
    tf.set_random_seed(43)
    initializer = tf.random_uniform_initializer(-0.1, 0.1)
    with tf.name_scope("Train"):
        with tf.variable_scope("Model", reuse=None, initializer=initializer):
            m = PTBModel(tf, is_training=True)
    with tf.name_scope("Valid"):
        with tf.variable_scope("Model", reuse=True, initializer=initializer):
            mvalid = PTBModel(tf, is_training=False)
    return {"m": m, "mvalid": mvalid, "loss": m.cost, "train": m.train_op}


def _batch(step):
    start = (step * BATCH * NUM_STEPS) % 500
    chunk = DATA[start:start + BATCH * NUM_STEPS + 1]
    return chunk[:-1].reshape(BATCH, NUM_STEPS), chunk[1:].reshape(BATCH, NUM_STEPS)


def run_epoch(session, model, steps, offset, eval_op=None):
    costs, iters = [], 0
    state = session.run(model.initial_state)
    fetches = {"cost": model.cost, "final_state": model.final_state}
    if eval_op is not None:
        fetches["eval_op"] = eval_op
    for step in range(steps):
        x, y = _batch(step + offset)
        feed_dict = {model.input_data: x, model.targets: y}
        for i, (c, h) in enumerate(model.initial_state):
            feed_dict[c] = state[i].c
            feed_dict[h] = state[i].h
        vals = session.run(fetches, feed_dict)
        state = vals["final_state"]
        costs.append(float(vals["cost"]))
        iters += NUM_STEPS
    return costs, float(np.exp(np.sum(costs) / iters))


def train(tf, steps, workdir):
    h = build(tf)
    m, mvalid = h["m"], h["mvalid"]
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        initial = variable_values(tf, session)
        losses, perplexities = [], []
        per_epoch = steps // 2
        for epoch in range(2):
            m.assign_lr(session, 1.0 * 0.5 ** epoch)
            costs, train_ppl = run_epoch(session, m, per_epoch, epoch * per_epoch, eval_op=m.train_op)
            losses += costs
            _, valid_ppl = run_epoch(session, mvalid, 3, 100)
            perplexities += [np.float32(train_ppl), np.float32(valid_ppl), session.run(m.lr)]
        return {"initial": initial, "losses": losses, "final": variable_values(tf, session),
                "extra": perplexities}
