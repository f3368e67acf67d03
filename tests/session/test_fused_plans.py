"""A compiled plan runs BiasAdd+Relu and ReluGrad+BiasAddGrad as one kernel
each (``interpreter.rewrite``, ``ref.ops.fused``): training gives the bits
the step loop gives (traced runs take the step loop, which never fuses), an
error still names its op, and a fetched sum is not fused away."""
import numpy as np
import pytest

import ref as tf
from ref import errors
from ref.ops import _jit
from ref.session import interpreter as _under_test  # noqa: F401  (the module these tests cover)


@pytest.fixture(autouse=True)
def numba_kernels(monkeypatch):
    monkeypatch.setattr(_jit, "NUMPY_MAX", -1)  # the fused Numba kernels, not the NumPy forms


def _mlp(sizes=(6, 5, 4, 3), seed=0):
    rng = np.random.RandomState(seed)
    x = tf.placeholder(tf.float32, [None, sizes[0]], name="x")
    y = tf.placeholder(tf.float32, [None, sizes[-1]], name="y")
    h = x
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = tf.Variable(rng.randn(a, b).astype(np.float32), name=f"w{i}")
        bias = tf.Variable(rng.randn(b).astype(np.float32) * 0.1, name=f"b{i}")
        h = tf.nn.bias_add(tf.matmul(h, w), bias)
        if i < len(sizes) - 2:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    return x, y, loss, train


def _compiled_sources(sess):
    return [p.compiled.source for p in list(sess._plans.values()) if p.compiled is not None]


def test_training_gives_the_step_loops_bits():
    rng = np.random.default_rng(1)
    batches = [(rng.standard_normal((b, 6)).astype(np.float32),
                np.eye(3, dtype=np.float32)[rng.integers(0, 3, b)]) for b in (8, 8, 5, 8, 8, 3, 8)]
    results = []
    for traced in (False, True):
        g = tf.Graph()
        with g.as_default(), tf.Session() as sess:
            x, y, loss, train = _mlp()
            sess.run(tf.global_variables_initializer())
            opts = dict(options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=tf.RunMetadata()) if traced else {}
            for bx, by in batches:
                sess.run(train, {x: bx, y: by}, **opts)
            results.append([v.tobytes() for v in sess.run(tf.trainable_variables() + [loss], {x: bx, y: by})])
            if not traced:
                src = "\n".join(_compiled_sources(sess))
                assert "_bias_relu(" in src and "_relu_bias_grads(" in src
    assert results[0] == results[1]


def _convnet(seed=0):
    """A conv layer (NHWC BiasAdd + Relu), max pooling and a dense layer: the conv
    layer's ReluGrad + BiasAddGrad fuse over its [N*H*W, C] rows."""
    rng = np.random.RandomState(seed)
    x = tf.placeholder(tf.float32, [None, 8, 8, 2], name="x")
    y = tf.placeholder(tf.float32, [None, 3], name="y")
    f = tf.Variable(rng.randn(3, 3, 2, 4).astype(np.float32), name="f")
    fb = tf.Variable(rng.randn(4).astype(np.float32) * 0.1, name="fb")
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), fb))
    h = tf.reshape(tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [-1, 64])
    w = tf.Variable(rng.randn(64, 3).astype(np.float32) * 0.1, name="w")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tf.matmul(h, w)))
    return x, y, loss, tf.train.AdamOptimizer(0.05).minimize(loss)


def test_convnet_training_gives_the_step_loops_bits():
    rng = np.random.default_rng(2)
    batches = [(rng.standard_normal((b, 8, 8, 2)).astype(np.float32),
                np.eye(3, dtype=np.float32)[rng.integers(0, 3, b)]) for b in (4, 4, 3, 4)]
    results = []
    for traced in (False, True):
        g = tf.Graph()
        with g.as_default(), tf.Session() as sess:
            x, y, loss, train = _convnet()
            sess.run(tf.global_variables_initializer())
            opts = dict(options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=tf.RunMetadata()) if traced else {}
            for bx, by in batches:
                sess.run(train, {x: bx, y: by}, **opts)
            results.append([v.tobytes() for v in sess.run(tf.trainable_variables() + [loss], {x: bx, y: by})])
            if not traced:
                src = "\n".join(_compiled_sources(sess))
                assert "_bias_relu(" in src and "_relu_bias_grads(" in src
    assert results[0] == results[1]


def _wide_convnet(seed=0):
    """Two conv layers whose Conv2D + BiasAdd + Relu fuse (``fused.conv_bias_relu``:
    144 and 288 patch columns, 32 filters), max pooling, a dense layer, momentum."""
    rng = np.random.RandomState(seed)
    x = tf.placeholder(tf.float32, [None, 8, 8, 16], name="x")
    y = tf.placeholder(tf.float32, [None, 3], name="y")
    h = x
    for i, depth in enumerate((16, 32)):
        f = tf.Variable(rng.randn(3, 3, depth, 32).astype(np.float32) * 0.2, name=f"f{i}")
        fb = tf.Variable(rng.randn(32).astype(np.float32) * 0.1, name=f"fb{i}")
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, f, [1, 1, 1, 1], "SAME"), fb))
    h = tf.reshape(tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"), [-1, 512])
    w = tf.Variable(rng.randn(512, 3).astype(np.float32) * 0.1, name="w")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=tf.matmul(h, w)))
    return x, y, loss, tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)


def test_fused_conv_bias_relu_training_gives_the_step_loops_bits(monkeypatch):
    from ref.ops import fused

    ran = []
    real = fused.conv_bias_relu
    monkeypatch.setattr(fused, "conv_bias_relu", lambda *a: ran.append(real(*a)) or ran[-1])
    rng = np.random.default_rng(3)
    batches = [(rng.standard_normal((b, 8, 8, 16)).astype(np.float32),
                np.eye(3, dtype=np.float32)[rng.integers(0, 3, b)]) for b in (6, 6, 5, 6)]
    results = []
    for traced in (False, True):
        g = tf.Graph()
        with g.as_default(), tf.Session() as sess:
            x, y, loss, train = _wide_convnet()
            sess.run(tf.global_variables_initializer())
            opts = dict(options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=tf.RunMetadata()) if traced else {}
            for bx, by in batches:
                sess.run(train, {x: bx, y: by}, **opts)
            results.append([v.tobytes() for v in sess.run(tf.trainable_variables() + [loss], {x: bx, y: by})])
            if not traced:
                assert "\n".join(_compiled_sources(sess)).count("_conv_bias_relu(") == 2
    assert any(r is not None for r in ran)  # the fused kernel ran (not only the three kernels)
    assert results[0] == results[1]


def test_a_fused_convolutions_error_names_its_op():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 8, 8, None], name="x")
        f = tf.constant(np.ones((3, 3, 16, 32), np.float32))
        out = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME", name="the_conv"),
                                        tf.constant(np.ones(32, np.float32))), name="the_relu") * 2.0
        good = np.ones((2, 8, 8, 16), np.float32)
        for _ in range(3):
            got = sess.run(out, {x: good})
        assert got.shape == (2, 8, 8, 32) and got[0, 3, 3, 0] == 2 * (16 * 9 + 1)
        with pytest.raises(errors.InvalidArgumentError) as e:
            sess.run(out, {x: np.ones((2, 8, 8, 5), np.float32)})
        assert "the_conv" in str(e.value)


def test_a_bias_of_the_wrong_length_names_the_bias_add():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, None], name="x")
        b = tf.placeholder(tf.float32, [None], name="b")
        out = tf.nn.relu(tf.nn.bias_add(x, b, name="the_bias_add"), name="the_relu") * 2.0
        feed = {x: np.ones((3, 4), np.float32), b: np.arange(4, dtype=np.float32) - 1.5}
        for _ in range(3):
            np.testing.assert_array_equal(sess.run(out, feed), np.maximum(np.ones((3, 4)) + feed[b], 0) * 2)
        with pytest.raises(errors.InvalidArgumentError) as e:
            sess.run(out, {x: np.ones((3, 4), np.float32), b: np.ones(5, np.float32)})
        assert "the_bias_add" in str(e.value)


def test_a_fetched_sum_is_not_fused_away():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        pre = tf.nn.bias_add(x, tf.constant([1.0, -1.0, 0.0]))
        act = tf.nn.relu(pre)
        feed = {x: np.array([[-2.0, 0.5, 3.0], [1.0, 1.0, -1.0]], np.float32)}
        for _ in range(3):
            p, a = sess.run([pre, act], feed)
            np.testing.assert_array_equal(p, feed[x] + [1.0, -1.0, 0.0])
            np.testing.assert_array_equal(a, np.maximum(p, 0))
        assert not any("_bias_relu(" in s for s in _compiled_sources(sess))


def _lstm(cell_class, steps=3, batch=4, depth=5, units=6, seed=0):
    tf.set_random_seed(seed)
    x = tf.placeholder(tf.float32, [batch, steps, depth], name="x")
    cells = tf.nn.rnn_cell.MultiRNNCell([cell_class(units) for _ in range(2)])
    outputs, _ = tf.nn.static_rnn(cells, tf.unstack(x, axis=1), initial_state=cells.zero_state(batch, tf.float32))
    loss = tf.reduce_mean(tf.square(tf.concat(outputs, 1)))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return x, loss, train


@pytest.mark.parametrize("cell", ["BasicLSTMCell", "LSTMCell"])
def test_lstm_training_gives_the_step_loops_bits(cell):
    rng = np.random.default_rng(2)
    batches = [rng.standard_normal((4, 3, 5)).astype(np.float32) * s for s in (1, 3, 1, 10)]
    results = []
    for traced in (False, True):
        g = tf.Graph()
        with g.as_default(), tf.Session() as sess:
            x, loss, train = _lstm(getattr(tf.nn.rnn_cell, cell))
            sess.run(tf.global_variables_initializer())
            opts = dict(options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=tf.RunMetadata()) if traced else {}
            for bx in batches:
                sess.run(train, {x: bx}, **opts)
            results.append([v.tobytes() for v in sess.run(tf.trainable_variables() + [loss], {x: bx})])
            if not traced:
                src = "\n".join(_compiled_sources(sess))
                assert src.count("_lstm_cell(") == 6  # 2 layers x 3 steps, in the training plan
                assert src.count("_lstm_cell_grads(") == 6
    assert results[0] == results[1]


def test_a_fetched_lstm_gate_value_is_still_computed():
    g = tf.Graph()
    with g.as_default(), tf.Session() as sess:
        x, loss, train = _lstm(tf.nn.rnn_cell.BasicLSTMCell, steps=1)
        sess.run(tf.global_variables_initializer())
        sig = [op for op in g.get_operations() if op.type == "Sigmoid"][0].outputs[0]
        bx = np.ones((4, 1, 5), np.float32)
        for _ in range(3):  # a plan is compiled after its first runs
            got = sess.run([sig, loss], {x: bx})
        want = sess.run([sig, loss], {x: bx}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=tf.RunMetadata())
        assert "_lstm_cell(" in "\n".join(_compiled_sources(sess))
        assert [v.tobytes() for v in got] == [v.tobytes() for v in want]


def test_an_lstm_cell_error_names_its_op():
    g = tf.Graph()
    with g.as_default(), tf.Session() as sess:
        c, i, j, f, o = (tf.placeholder(tf.float32, [None, 4], name=n) for n in "cijfo")
        kept = tf.multiply(c, tf.sigmoid(f + 1.0), name="kept")
        new_h = tf.multiply(tf.tanh(kept + tf.sigmoid(i) * tf.tanh(j)), tf.sigmoid(o), name="new_h")
        ok = {t: np.ones((3, 4), np.float32) for t in (c, i, j, f, o)}
        for _ in range(3):
            want = sess.run(new_h, ok)
        assert "_lstm_cell(" in "\n".join(_compiled_sources(sess))
        traced = sess.run(new_h, ok, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                          run_metadata=tf.RunMetadata())
        assert want.tobytes() == traced.tobytes()
        bad = dict(ok)
        bad[c] = np.ones((2, 4), np.float32)
        with pytest.raises(errors.InvalidArgumentError) as e:
            sess.run(new_h, bad)
        assert e.value.op.name == "kept"
