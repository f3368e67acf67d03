"""Recurrent networks (ref/graph_ops/rnn_cell_impl.py, rnn.py) against
TensorFlow: the same graph built with ``ref`` and with ``tf.compat.v1``
(``dynamic_rnn`` and friends from TF, the cells from TF's legacy copy
``tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl``, since
``tf.compat.v1.nn.rnn_cell`` needs tf_keras under Keras 3) must give the same
variable names and shapes, bit-identical initial values under one graph seed,
and outputs, final states, gradients and training steps equal within a few
float32 ULPs of the largest magnitude (TF's sigmoid/tanh/matmul round
differently from NumPy's); checkpoints move both ways."""
import os

import numpy as np
import pytest

import ref
from ref.types import nest
from ref.graph_ops import rnn as _under_test  # noqa: F401  (the module these tests cover)

RNG = np.random.default_rng(5)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)   # [batch, time, depth]
SEQLEN = np.array([4, 2, 1], np.int32)


def _tf():
    tf = pytest.importorskip("tensorflow")
    cells = pytest.importorskip("tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl")
    return tf.compat.v1, cells, tf.nest.flatten


def _ref():
    return ref, ref.nn.rnn_cell, nest.flatten


def assert_near(actual, expected, ulps=64, msg=""):
    """|actual - expected| <= ulps float32 spacings of max|expected| (elementwise
    ULPs are meaningless where a value cancels to near zero)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, f"{msg}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{msg}: dtype {actual.dtype} != {expected.dtype}"
    scale = np.spacing(np.float32(np.max(np.abs(expected)) if expected.size else 0) or np.float32(1))
    worst = float(np.max(np.abs(actual.astype(np.float64) - expected))) if actual.size else 0.0
    assert worst <= ulps * scale, f"{msg}: off by {worst / scale:.1f} ULP of the scale {np.max(np.abs(expected))}"


CELLS = {
    "basic_rnn": lambda c: c.BasicRNNCell(6),
    "basic_rnn_relu": lambda c: c.BasicRNNCell(6, activation="relu"),
    "basic_lstm": lambda c: c.BasicLSTMCell(6),
    "basic_lstm_fb0_concat": lambda c: c.BasicLSTMCell(6, forget_bias=0.0, state_is_tuple=False),
    "lstm": lambda c: c.LSTMCell(6),
    "lstm_peep_clip_proj": lambda c: c.LSTMCell(6, use_peepholes=True, cell_clip=0.5, num_proj=4, proj_clip=0.3),
    "lstm_proj_concat": lambda c: c.LSTMCell(5, num_proj=3, state_is_tuple=False, forget_bias=0.5),
    "lstm_sharded": lambda c: c.LSTMCell(5, num_proj=3, num_unit_shards=2, num_proj_shards=3),
    "gru": lambda c: c.GRUCell(6),
    "multi": lambda c: c.MultiRNNCell([c.BasicLSTMCell(6), c.GRUCell(3), c.BasicRNNCell(2)]),
    "multi_concat": lambda c: c.MultiRNNCell([c.GRUCell(4), c.BasicRNNCell(3)], state_is_tuple=False),
    "residual": lambda c: c.ResidualWrapper(c.GRUCell(5)),
    "device": lambda c: c.DeviceWrapper(c.BasicLSTMCell(4), "/cpu:0"),
    "dropout_in_out": lambda c: c.DropoutWrapper(c.BasicLSTMCell(6), input_keep_prob=0.7, output_keep_prob=0.6,
                                                 seed=11),
    "dropout_state": lambda c: c.DropoutWrapper(c.GRUCell(6), state_keep_prob=0.5, seed=3),
    "dropout_variational": lambda c: c.DropoutWrapper(c.BasicLSTMCell(6), input_keep_prob=0.8,
                                                      output_keep_prob=0.7, state_keep_prob=0.9,
                                                      variational_recurrent=True, input_size=5,
                                                      dtype=np.float32, seed=5),
}


def _steps(kind):
    return X.shape[1]


def _parallel_iterations(kind):
    """TF runs the iterations of a while loop in parallel, so a random op in
    the body draws its samples in scheduling order; one iteration at a time
    they come in time order, as in ref (TF's rnn_cell_test does the same)."""
    return 1 if kind.startswith("dropout") else None


def _run_dynamic(lib, kind, seqlen, time_major, unknown_shape=False):
    tf, cells, flatten = lib()
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.set_random_seed(7)
        x = X[:, :_steps(kind)]
        x = x.transpose(1, 0, 2) if time_major else x
        inputs = tf.placeholder(tf.float32, [None, None, x.shape[2]] if unknown_shape else x.shape)
        cell = CELLS[kind](cells)
        lengths = np.minimum(SEQLEN, _steps(kind)) if seqlen else None
        outputs, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=lengths, dtype=tf.float32,
                                           time_major=time_major, parallel_iterations=_parallel_iterations(kind))
        loss = tf.reduce_sum(outputs * outputs) + tf.add_n([tf.reduce_sum(s) for s in flatten(state)])
        variables = tf.trainable_variables()
        grads = tf.gradients(loss, variables + [inputs])
        sess.run(tf.global_variables_initializer())
        names = [(v.name, v.shape.as_list()) for v in tf.global_variables()]
        init = sess.run(variables)
        out, st, g = sess.run([outputs, flatten(state), grads], {inputs: x})
        return names, init, out, st, g


DYNAMIC_CASES = ([(k, s, False) for k in sorted(CELLS) for s in (False, True)]
                 + [(k, s, True) for k in ("basic_lstm", "gru", "multi", "dropout_in_out") for s in (False, True)])


@pytest.mark.parametrize("kind, seqlen, time_major", DYNAMIC_CASES)
def test_dynamic_rnn_matches_tf(kind, seqlen, time_major):
    expected = _run_dynamic(_tf, kind, seqlen, time_major)
    names, init, out, st, g = _run_dynamic(_ref, kind, seqlen, time_major)
    assert names == expected[0]
    for a, b in zip(init, expected[1]):
        np.testing.assert_array_equal(a, b)
    assert_near(out, expected[2], msg="outputs")
    if seqlen:  # outputs past each sequence's length are exact zeros
        for b, n in enumerate(np.minimum(SEQLEN, _steps(kind))):
            past = out[b, n:] if not time_major else out[n:, b]
            assert not past.any()
    assert len(st) == len(expected[3])
    for i, (a, b) in enumerate(zip(st, expected[3])):
        assert_near(a, b, msg=f"state {i}")
    for i, (a, b) in enumerate(zip(g, expected[4])):  # dropout: the backward pass reuses the forward's masks
        assert_near(a, b, msg=f"gradient {i}")


@pytest.mark.parametrize("kind, seqlen", [("basic_lstm", True), ("multi", False), ("gru", True)])
def test_dynamic_rnn_unknown_batch_and_time_matches_tf(kind, seqlen):
    """Unknown batch and time: no static trip count, the state's shape is not
    fully defined, so ref's While gradient recomputes the forward states."""
    expected = _run_dynamic(_tf, kind, seqlen, False, unknown_shape=True)
    names, init, out, st, g = _run_dynamic(_ref, kind, seqlen, False, unknown_shape=True)
    assert names == expected[0]
    assert_near(out, expected[2], msg="outputs")
    for i, (a, b) in enumerate(zip(st + g, expected[3] + expected[4])):
        assert_near(a, b, msg=f"state/gradient {i}")


def _run_other(lib, which, seqlen):
    tf, cells, flatten = lib()
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.set_random_seed(3)
        inputs = tf.placeholder(tf.float32, X.shape)
        sl = SEQLEN if seqlen else None
        if which == "static":
            outputs, state = tf.nn.static_rnn(cells.BasicLSTMCell(4), tf.unstack(inputs, axis=1),
                                              sequence_length=sl, dtype=tf.float32)
            states = flatten(state)
        elif which == "bidirectional":
            (fw, bw), states = tf.nn.bidirectional_dynamic_rnn(cells.GRUCell(4), cells.BasicLSTMCell(3), inputs,
                                                               sequence_length=sl, dtype=tf.float32)
            outputs, states = [fw, bw], flatten(states)
        else:
            outputs, s_fw, s_bw = tf.nn.static_bidirectional_rnn(cells.GRUCell(4), cells.GRUCell(2),
                                                                 tf.unstack(inputs, axis=1), sequence_length=sl,
                                                                 dtype=tf.float32)
            states = [s_fw, s_bw]
        loss = tf.add_n([tf.reduce_sum(o * o) for o in flatten(outputs)] + [tf.reduce_sum(s) for s in states])
        grads = tf.gradients(loss, tf.trainable_variables())
        sess.run(tf.global_variables_initializer())
        names = [v.name for v in tf.global_variables()]
        return names, sess.run([flatten(outputs), states, grads], {inputs: X})


@pytest.mark.parametrize("seqlen", [False, True])
@pytest.mark.parametrize("which", ["static", "bidirectional", "static_bidirectional"])
def test_static_and_bidirectional_match_tf(which, seqlen):
    names, (out, st, g) = _run_other(_ref, which, seqlen)
    t_names, (t_out, t_st, t_g) = _run_other(_tf, which, seqlen)
    assert names == t_names
    for kind, ours, theirs in (("output", out, t_out), ("state", st, t_st), ("gradient", g, t_g)):
        assert len(ours) == len(theirs)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_near(a, b, msg=f"{kind} {i}")


def _train(lib, kind, optimizer, steps=3):
    tf, cells, _ = lib()
    labels = np.array([0, 2, 1])
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.set_random_seed(1)
        inputs = tf.placeholder(tf.float32, X.shape)
        cell = cells.BasicLSTMCell(8) if kind == "lstm" else cells.GRUCell(8)
        _, state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=SEQLEN, dtype=tf.float32)
        h = state.h if kind == "lstm" else state
        w = tf.get_variable("w", [8, 3])
        logits = tf.matmul(h, w)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        opt = tf.train.GradientDescentOptimizer(0.5) if optimizer == "sgd" else tf.train.AdamOptimizer(0.05)
        train = opt.minimize(loss)
        sess.run(tf.global_variables_initializer())
        losses = [sess.run([train, loss], {inputs: X})[1] for _ in range(steps)]
        return losses, sess.run(tf.trainable_variables())


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_training_steps_match_tf(kind, optimizer):
    losses, weights = _train(_ref, kind, optimizer)
    t_losses, t_weights = _train(_tf, kind, optimizer)
    assert_near(np.array(losses), np.array(t_losses), msg="losses")
    for i, (a, b) in enumerate(zip(weights, t_weights)):
        assert_near(a, b, ulps=256, msg=f"variable {i}")


def _checkpoint_graph(lib, seed):
    tf, cells, _ = lib()
    tf.set_random_seed(seed)
    inputs = tf.placeholder(tf.float32, X.shape)
    cell = cells.MultiRNNCell([cells.BasicLSTMCell(4), cells.GRUCell(3)])
    outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
    return tf, inputs, outputs


@pytest.mark.parametrize("direction", ["ref_to_tf", "tf_to_ref"])
def test_checkpoint_moves_between_ref_and_tf(direction, tmp_path):
    writer, reader = (_ref, _tf) if direction == "ref_to_tf" else (_tf, _ref)
    path = os.path.join(str(tmp_path), "model.ckpt")
    tf = writer()[0]
    with tf.Graph().as_default(), tf.Session() as sess:
        _, inputs, outputs = _checkpoint_graph(writer, 1)
        sess.run(tf.global_variables_initializer())
        saved = sess.run(outputs, {inputs: X})
        tf.train.Saver().save(sess, path)
    tf = reader()[0]
    with tf.Graph().as_default(), tf.Session() as sess:
        _, inputs, outputs = _checkpoint_graph(reader, 2)  # other initial values: the restore must replace them
        tf.train.Saver().restore(sess, path)
        restored = sess.run(outputs, {inputs: X})
    assert_near(restored, saved, msg="outputs after restore")


def test_cell_reuse_scopes_and_namespaces():
    tf = ref
    assert tf.nn.rnn_cell is tf.compat.v1.nn.rnn_cell
    assert isinstance(tf.nn.rnn_cell.BasicLSTMCell(2), tf.layers.Layer)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        cell = tf.nn.rnn_cell.GRUCell(4)
        state = cell.zero_state(2, tf.float32)
        assert state.shape.as_list() == [2, 4]
        y1, s1 = cell(x, state)
        y2, _ = cell(x, s1)  # a second call reuses the variables
        assert [v.name for v in cell.variables] == ["gru_cell/gates/kernel:0", "gru_cell/gates/bias:0",
                                                    "gru_cell/candidate/kernel:0", "gru_cell/candidate/bias:0"]
        assert len(tf.global_variables()) == 4
        other = tf.nn.rnn_cell.GRUCell(4)
        other(x, state)  # a new cell in the same scope gets a uniquified scope
        assert tf.global_variables()[4].name == "gru_cell_1/gates/kernel:0"
        lstm = tf.nn.rnn_cell.LSTMCell(3, num_proj=2, name="my_lstm")
        zero = lstm.zero_state(tf.constant(5), tf.float64)
        assert isinstance(zero, tf.nn.rnn_cell.LSTMStateTuple)
        assert zero.c.dtype == tf.float64 and zero.h.shape.as_list() == [5, 2]
        with tf.variable_scope("outer"):
            tf.nn.dynamic_rnn(lstm, tf.placeholder(tf.float64, [5, 7, 3]), dtype=tf.float64)
        assert [v.name for v in lstm.variables] == ["outer/rnn/my_lstm/kernel:0", "outer/rnn/my_lstm/bias:0",
                                                    "outer/rnn/my_lstm/projection/kernel:0"]
        assert lstm.variables[0].dtype.base_dtype == tf.float64
        assert lstm.variables[0].shape.as_list() == [3 + 2, 12]
        multi = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicRNNCell(2), tf.nn.rnn_cell.GRUCell(3)])
        multi.apply(x, multi.zero_state(2, tf.float32))
        assert [v.name for v in multi.variables] == [
            "multi_rnn_cell/cell_0/basic_rnn_cell/kernel:0", "multi_rnn_cell/cell_0/basic_rnn_cell/bias:0",
            "multi_rnn_cell/cell_1/gru_cell/gates/kernel:0", "multi_rnn_cell/cell_1/gru_cell/gates/bias:0",
            "multi_rnn_cell/cell_1/gru_cell/candidate/kernel:0", "multi_rnn_cell/cell_1/gru_cell/candidate/bias:0"]
        assert multi.trainable_variables == multi.variables


@pytest.mark.parametrize("call, error, match", [
    (lambda tf: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), tf.zeros([1, 2, 3])), ValueError, "dtype"),
    (lambda tf: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), tf.placeholder(tf.float32, [1, 2, None]),
                                  dtype=tf.float32), ValueError, "depth of inputs"),
    (lambda tf: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), tf.zeros([1, 2, 3]), sequence_length=[[1]],
                                  dtype=tf.float32), ValueError, "sequence_length"),
    (lambda tf: tf.nn.dynamic_rnn(object(), tf.zeros([1, 2, 3]), dtype=tf.float32), TypeError, "not an RNNCell"),
    (lambda tf: tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(2), tf.zeros([2, 3]), dtype=tf.float32), TypeError,
     "must be a sequence"),
    (lambda tf: tf.nn.rnn_cell.MultiRNNCell([]), ValueError, "at least one cell"),
    (lambda tf: tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(2)], state_is_tuple=False), ValueError,
     "state_is_tuple"),
    (lambda tf: tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(2), input_keep_prob=1.5), ValueError,
     "between 0 and 1"),
    (lambda tf: tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(2), variational_recurrent=True), ValueError,
     "dtype must be provided"),
])
def test_construction_errors(call, error, match):
    with ref.Graph().as_default():
        with pytest.raises(error, match=match):
            call(ref)


@pytest.mark.parametrize("shape, seq_dim, batch_dim, lengths", [
    ((3, 4), 1, 0, [4, 0, 2]),
    ((4, 3, 2), 0, 1, [1, 4, 3]),
    ((2, 3, 5), 2, 0, [5, 1]),
    ((5, 2, 3), 0, 2, [0, 5, 2]),
])
def test_reverse_sequence_matches_tf(shape, seq_dim, batch_dim, lengths):
    tf = pytest.importorskip("tensorflow")
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    expected = tf.raw_ops.ReverseSequence(input=x, seq_lengths=np.array(lengths, np.int64), seq_dim=seq_dim,
                                          batch_dim=batch_dim).numpy()
    with ref.Graph().as_default(), ref.Session() as sess:
        xt = ref.constant(x)
        y = ref.reverse_sequence(xt, np.array(lengths, np.int64), seq_axis=seq_dim, batch_axis=batch_dim)
        (dx,) = ref.gradients(y * ref.constant(np.arange(x.size, dtype=np.float32).reshape(shape)), [xt])
        got, grad = sess.run([y, dx])
    np.testing.assert_array_equal(got, expected)
    weights = np.arange(x.size, dtype=np.float32).reshape(shape)
    expected_grad = tf.raw_ops.ReverseSequence(input=weights, seq_lengths=np.array(lengths, np.int64),
                                               seq_dim=seq_dim, batch_dim=batch_dim).numpy()
    np.testing.assert_array_equal(grad, expected_grad)


def _lstm_dropout_run(**keep):
    """TF's rnn_cell_test setting: LSTMCell(3) with weights 0.5, two time-major
    steps of a batch of one, initial c = h = 0.1; keep probs "all" (a variable
    holding 1.0), "none" (1e-6) or a float."""
    tf, rc = ref, ref.nn.rnn_cell
    with tf.Graph().as_default(), tf.Session() as sess:
        probs = {"all": tf.get_variable("all", initializer=1.0), "none": tf.get_variable("none", initializer=1e-6)}
        keep = {k: probs.get(v, v) for k, v in keep.items()}
        x = tf.constant([[[2., 2., 2.]], [[1., 1., 1.]]])
        m = rc.LSTMStateTuple(*[tf.constant([[0.1, 0.1, 0.1]])] * 2)
        cell = rc.DropoutWrapper(rc.LSTMCell(3, initializer=tf.constant_initializer(0.5)), dtype=tf.float32, **keep)
        outputs, state = tf.nn.dynamic_rnn(cell, x, initial_state=m, time_major=True, scope="root")
        sess.run(tf.global_variables_initializer())
        return sess.run([outputs, state])


FULL_OUTPUT = np.array([[[0.751109] * 3], [[0.895509] * 3]], np.float32)  # TF's rnn_cell_test numbers


@pytest.mark.parametrize("keep, output, c, h", [
    (dict(input_keep_prob="all", output_keep_prob="all", state_keep_prob="all"), FULL_OUTPUT, [[1.949385] * 3],
     FULL_OUTPUT[1]),
    (dict(input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0), FULL_OUTPUT, [[1.949385] * 3],
     FULL_OUTPUT[1]),
    # state dropout never touches an LSTMStateTuple's c; h is zeroed
    (dict(input_keep_prob="all", output_keep_prob="all", state_keep_prob="none"), None, [[1.713925] * 3],
     np.zeros((1, 3))),
    (dict(input_keep_prob="all", output_keep_prob="none", state_keep_prob="all"), np.zeros((2, 1, 3)),
     [[1.949385] * 3], FULL_OUTPUT[1]),
])
def test_dropout_wrapper_keep_all_and_none(keep, output, c, h):
    outputs, state = _lstm_dropout_run(**keep)
    if output is not None:
        np.testing.assert_allclose(outputs, output, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(outputs[0], FULL_OUTPUT[0], rtol=1e-5)
        assert np.linalg.norm(outputs[1] - FULL_OUTPUT[1]) > 1e-4
    np.testing.assert_allclose(state.c, c, rtol=1e-5)
    np.testing.assert_allclose(state.h, h, rtol=1e-5, atol=1e-6)


def test_wrappers_delegate_sizes_and_zero_state():
    rc = ref.nn.rnn_cell
    cell = rc.BasicRNNCell(10)
    for wrapper in (rc.DropoutWrapper(cell), rc.ResidualWrapper(cell), rc.DeviceWrapper(cell, "/cpu:0")):
        assert wrapper.wrapped_cell is cell
        assert wrapper.state_size == 10 and wrapper.output_size == 10

    class _Cell(rc.BasicRNNCell):
        def zero_state(self, batch_size=None, dtype=None):
            return "wrapped_cell_zero_state"

    assert rc.DropoutWrapper(_Cell(10)).zero_state(10, ref.float32) == "wrapped_cell_zero_state"
