"""The interpreter's faster paths give what the plain ones give.

* Pure ops that only a control dependency asks for do not run, as in TF
  (grappler's dependency optimizer): no result, no error -- checked against
  TensorFlow itself, row by row.
* A plan run more than once runs as generated code (``compile_plan``): the same
  values, bit for bit, and the same errors, as the step loop and the reference
  evaluator; ``Session.run``'s and ``make_callable``'s fast paths return what the
  general path returns (types and structure).
"""
import weakref

import numpy as np
import pytest

import ref
from ref.session import interpreter
from ref.session.interpreter import executor

ONES3 = np.ones(3, np.float32)


def _dead_reshape(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    with tf.control_dependencies([tf.reshape(x, [7])]):
        y = tf.identity(x * 2.0)
    return [y], {x: ONES3}


def _dead_reshape_as_target(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    bad = tf.reshape(x, [7])
    with tf.control_dependencies([bad]):
        y = tf.identity(x * 2.0)
    return [y, bad.op], {x: ONES3}


def _check_numerics_kept(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    with tf.control_dependencies([tf.debugging.check_numerics(x, "boom")]):
        y = tf.identity(x * 2.0)
    return [y], {x: np.array([np.nan], np.float32)}


def _group_of_pure_op(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    return [tf.group(tf.reshape(x, [7]))], {x: ONES3}


def _dead_matmul_chain(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    w = tf.matmul(tf.reshape(x, [1, -1]), tf.ones([5, 1]))  # 3 != 5: would fail if it ran
    with tf.control_dependencies([tf.exp(w)]):
        q = tf.identity(x + 1.0)
    return [q], {x: ONES3}


def _tuple_gated_gradients(tf):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 7, name="w")
    loss = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w)))
    g = tf.gradients(loss, [w], gate_gradients=True)[0]  # tf.tuple also gates the (unused) x gradient
    return [g], {x: np.array([[1, -2, 3], [0.5, 4, -1]], np.float32)}


DEAD_CASES = [_dead_reshape, _dead_reshape_as_target, _check_numerics_kept, _group_of_pure_op,
              _dead_matmul_chain, _tuple_gated_gradients]


def _outcome(tf, session_cls, build, graph):
    with graph.as_default():
        fetches, feeds = build(tf)
        init = tf.global_variables_initializer()
        with session_cls(graph=graph) as s:
            s.run(init)
            try:
                return "ok", s.run(fetches, feeds)
            except Exception as e:  # noqa: BLE001 -- compared by class name
                return type(e).__name__, None


@pytest.mark.parametrize("build", DEAD_CASES, ids=lambda f: f.__name__)
def test_ops_only_control_dependencies_need_run_as_in_tf(build):
    tf = pytest.importorskip("tensorflow").compat.v1
    want_kind, want = _outcome(tf, tf.Session, build, tf.Graph())
    got_kind, got = _outcome(ref, ref.Session, build, ref.Graph())
    assert got_kind == want_kind
    for a, b in zip(got or [], want or []):
        if b is None:
            assert a is None
        else:
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_reference_evaluator_prunes_the_same_ops():
    g = ref.Graph()
    with g.as_default():
        fetches, feeds = _dead_reshape(ref)
        s = ref.Session(graph=g)
        got = interpreter.evaluate(fetches, feeds, s._state)
    np.testing.assert_array_equal(got[0], ONES3 * 2)


def _linear_model():
    x = ref.placeholder(ref.float32, [None, 4], name="x")
    w = ref.Variable(np.linspace(-1, 1, 4, dtype=np.float32).reshape(4, 1), name="w")
    logits = ref.matmul(x, w)
    loss = ref.reduce_mean(ref.nn.sigmoid_cross_entropy_with_logits(labels=ref.ones_like(logits), logits=logits))
    train = ref.train.AdamOptimizer(0.1).minimize(loss)
    return x, w, loss, train


def test_compiled_plan_matches_the_step_loop_bit_for_bit():
    batch = np.random.RandomState(0).randn(8, 4).astype(np.float32)
    results = []
    for compile_after in (1, 10 ** 9):  # compiled from the second run on / never compiled
        g = ref.Graph()
        with g.as_default():
            x, w, loss, train = _linear_model()
            old = executor.COMPILE_AFTER
            executor.COMPILE_AFTER = compile_after
            try:
                with ref.Session() as s:
                    s.run(ref.global_variables_initializer())
                    trace = [s.run([loss, train], {x: batch})[0] for _ in range(5)]
                    plans = list(s._plans.values())
                    compiled = any(p.compiled is not None for p in plans)
                    results.append((trace, s.run(w), compiled))
            finally:
                executor.COMPILE_AFTER = old
    (fast, w_fast, compiled), (slow, w_slow, never) = results
    assert compiled and not never
    assert [a.tobytes() for a in fast] == [b.tobytes() for b in slow]
    assert w_fast.tobytes() == w_slow.tobytes()


def test_compiled_plan_raises_what_the_step_loop_raises():
    def failing_run(compile_after):
        g = ref.Graph()
        with g.as_default():
            x = ref.placeholder(ref.float32, [None], name="x")
            y = ref.reshape(x, [2, 2]) * 3.0
            old = executor.COMPILE_AFTER
            executor.COMPILE_AFTER = compile_after
            try:
                with ref.Session() as s:
                    for _ in range(3):
                        s.run(y, {x: np.ones(4, np.float32)})
                    with pytest.raises(ref.errors.InvalidArgumentError) as e:
                        s.run(y, {x: np.ones(5, np.float32)})
                    assert any(p.compiled is not None for p in s._plans.values()) == (compile_after == 1)
            finally:
                executor.COMPILE_AFTER = old
        return str(e.value), e.value.op.name

    assert failing_run(1) == failing_run(10 ** 9)


def test_uninitialized_variable_in_a_compiled_plan():
    g = ref.Graph()
    with g.as_default():
        v = ref.Variable(2.0, name="v")
        y = v * 3.0
        with ref.Session() as s:
            s.run(v.initializer)
            assert [s.run(y) for _ in range(3)] == [6.0, 6.0, 6.0]
            s._state.store.values.clear()
            with pytest.raises(ref.errors.FailedPreconditionError, match="uninitialized value v"):
                s.run(y)


@pytest.mark.parametrize("fetch", ["tensor", "op", "list", "tuple", "fed_tensor", "scalar"])
def test_fast_path_returns_what_the_general_path_returns(fetch):
    g = ref.Graph()
    with g.as_default():
        x, w, loss, train = _linear_model()
        fetches = {"tensor": w.value(), "op": train, "list": [loss, train], "tuple": (train, w.value()),
                   "fed_tensor": [x, loss], "scalar": loss}[fetch]
        batch = np.ones((3, 4), np.float32)
        with ref.Session() as a, ref.Session() as b:
            a.run(ref.global_variables_initializer())
            b.run(ref.global_variables_initializer())
            for _ in range(3):
                got = a.run(fetches, {x: batch})  # the fast path from the second run on
                want = b.run(fetches, {x: [list(r) for r in batch]})  # a list feed: the general path
                assert type(got) is type(want)
                for u, v in zip(got if isinstance(got, (list, tuple)) else [got],
                                want if isinstance(want, (list, tuple)) else [want]):
                    assert type(u) is type(v)
                    if v is not None:
                        assert np.asarray(u).tobytes() == np.asarray(v).tobytes()
            call = a.make_callable(fetches, feed_list=[x])
            assert type(call(batch)) is type(got)


def test_fast_path_checks_feeds_like_the_general_path():
    g = ref.Graph()
    with g.as_default():
        x = ref.placeholder(ref.float32, [None, 2], name="x")
        y = x * 2.0
        with ref.Session() as s:
            s.run(y, {x: np.ones((1, 2), np.float32)})
            s.run(y, {x: np.ones((1, 2), np.float32)})
            with pytest.raises(ValueError, match="Cannot feed value of shape"):
                s.run(y, {x: np.ones((1, 3), np.float32)})
            np.testing.assert_array_equal(s.run(y, {x: np.ones((1, 2), np.float64)}), [[2, 2]])  # cast
            g.prevent_fetching(y.op)
            with pytest.raises(ref.errors.InaccessibleTensorError):
                s.run(y, {x: np.ones((1, 2), np.float32)})


# -- training steps: the compiled plan's lean update call -----------------------------------

OPTIMIZERS = {
    "gd": lambda: ref.train.GradientDescentOptimizer(0.1),
    "momentum": lambda: ref.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "adam": lambda: ref.train.AdamOptimizer(0.01),
    "rmsprop": lambda: ref.train.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
    "adagrad": lambda: ref.train.AdagradOptimizer(0.1),
    "adadelta": lambda: ref.train.AdadeltaOptimizer(1.0),
    "ftrl": lambda: ref.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
    "proximal_adagrad": lambda: ref.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01),
    "adagrad_da": lambda: ref.train.AdagradDAOptimizer(0.1, ref.train.get_or_create_global_step()),
}


def _logistic(dtype, optimizer):
    """The per-step floor's program (bench/step_floor.py), in ``dtype``, with ``optimizer``."""
    x = ref.placeholder(dtype, [8, 3], name="x")
    y = ref.placeholder(dtype, [8, 1], name="y")
    w = ref.Variable(np.linspace(-1, 1, 3).reshape(3, 1).astype(dtype), name="w")
    b = ref.Variable(np.zeros(1, dtype), name="b")
    logits = ref.nn.bias_add(ref.matmul(x, w), b)
    loss = ref.reduce_mean(ref.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    return x, y, OPTIMIZERS[optimizer]().minimize(loss)


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_training_steps_match_the_reference_evaluator(optimizer, dtype):
    """Every variable and slot after six steps, compiled (lean in-place updates) and
    through interpreter.evaluate (no plan, no donation): the same bits; and the
    compiled run updated the stored arrays in place."""
    rng = np.random.RandomState(1)
    batches = [(rng.randn(8, 3).astype(dtype), (rng.rand(8, 1) > 0.5).astype(dtype)) for _ in range(6)]
    finals = []
    for compiled in (True, False):
        g = ref.Graph()
        with g.as_default():
            x, y, train = _logistic(dtype, optimizer)
            with ref.Session() as s:
                s.run(ref.global_variables_initializer())
                arrays = {k: weakref.ref(v) for k, v in s._state.store.values.items() if v.dtype == dtype}
                for bx, by in batches:
                    if compiled:
                        s.run(train, {x: bx, y: by})
                    else:
                        interpreter.evaluate([], {x: bx, y: by}, s._state, [train])
                if compiled:
                    plan, = [p for p in s._plans.values() if p.compiled is not None]
                    assert "U" in plan.compiled.source  # the lean update call
                    # in place: the same arrays hold the new values (a step counter is a new int64 scalar)
                    assert all(s._state.store.values[k] is a() for k, a in arrays.items())
                finals.append({k: np.array(v) for k, v in s._state.store.values.items()})
    fast, reference = finals
    assert sorted(fast) == sorted(reference)
    for k in fast:
        assert fast[k].dtype == reference[k].dtype and fast[k].tobytes() == reference[k].tobytes(), k


def test_compiled_update_does_not_donate_a_held_array():
    """An array something else refers to is not updated in place (the general
    update runs and stores a new array); once let go, updates are in place again."""
    g = ref.Graph()
    with g.as_default():
        x, y, train = _logistic(np.float32, "gd")
        feed = {x: np.ones((8, 3), np.float32), y: np.ones((8, 1), np.float32)}
        with ref.Session() as s:
            s.run(ref.global_variables_initializer())
            for _ in range(3):
                s.run(train, feed)
            held = s._state.store.values["w"]
            copy = held.copy()
            s.run(train, feed)
            np.testing.assert_array_equal(held, copy)  # untouched
            assert s._state.store.values["w"] is not held and not np.array_equal(s._state.store.values["w"], copy)
            new = weakref.ref(s._state.store.values["w"])  # (a plain reference would hold it too)
            del held
            s.run(train, feed)
            assert s._state.store.values["w"] is new()


def _chain():
    """Three placeholders feeding reshapes at different depths of one chain."""
    a = ref.placeholder(ref.float32, [None], name="a")
    b = ref.placeholder(ref.float32, [None], name="b")
    c = ref.placeholder(ref.float32, [None], name="c")
    ra = ref.reshape(a, [2, 2], name="ra") * 2.0
    rb = ref.reshape(b, [2, 2], name="rb") + ra
    out = ref.add_n([ref.reshape(c, [2, 2], name="rc"), rb, ra], name="sum")
    return (a, b, c), out


@pytest.mark.parametrize("bad,name", [(0, "ra"), (1, "rb"), (2, "rc")])
def test_compiled_plan_names_the_op_that_failed(bad, name):
    """Which op failed comes from where the compiled function stopped: the same op
    (and message) as the step loop reports, at any depth of the plan."""
    def failing_run(compile_after):
        g = ref.Graph()
        with g.as_default():
            feeds, out = _chain()
            old = executor.COMPILE_AFTER
            executor.COMPILE_AFTER = compile_after
            try:
                with ref.Session() as s:
                    good = {t: np.ones(4, np.float32) for t in feeds}
                    for _ in range(3):
                        np.testing.assert_array_equal(s.run(out, good), np.full((2, 2), 6, np.float32))  # 1 + 3 + 2
                    with pytest.raises(ref.errors.InvalidArgumentError) as e:
                        s.run(out, {**good, feeds[bad]: np.ones(5, np.float32)})
            finally:
                executor.COMPILE_AFTER = old
        return str(e.value), e.value.op.name

    compiled, loop = failing_run(1), failing_run(10 ** 9)
    assert compiled == loop
    assert compiled[1] == name


def _two_products(bad=None):
    """x @ w twice over, independent: the pair a compiled plan runs at once
    (``interpreter.rewrite.MatMulPair``). ``bad``: which product gets a feed of the wrong
    inner size at run time (0, 1 or None)."""
    g = ref.Graph()
    with g.as_default():
        x = ref.placeholder(ref.float32, [None, None], name="x")
        w = ref.Variable(np.random.RandomState(1).standard_normal((256, 128)).astype(np.float32), name="w")
        y = ref.placeholder(ref.float32, [None, None], name="y")
        p = ref.matmul(x, w, name="first")
        q = ref.matmul(y, w, transpose_b=True, name="second")
        init = ref.global_variables_initializer()
    rng = np.random.RandomState(2)
    xv = rng.standard_normal((128, 256 if bad != 0 else 255)).astype(np.float32)
    yv = rng.standard_normal((128, 128 if bad != 1 else 127)).astype(np.float32)
    return g, init, [p, q], {x: xv, y: yv}


def test_paired_products_are_the_step_loops_bits():
    g, init, fetches, feeds = _two_products()
    with ref.Session(graph=g) as sess:
        sess.run(init)
        runs = [sess.run(fetches, feeds) for _ in range(3)]  # the second and third run compiled
        plan = next(p for p in sess._plans.values() if p.compiled is not None and len(p.steps) == 2)
        assert "_matmul_pair(" in plan.compiled.source
        want = interpreter.evaluate(fetches, feeds, sess._state)
    for got in runs:
        for a, b in zip(got, want):
            assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("bad, name", [(0, "first"), (1, "second")])
def test_a_failing_product_of_a_pair_is_named(bad, name):
    g, init, fetches, good_feeds = _two_products()
    _, _, _, bad_feeds = _two_products(bad)
    bad_feeds = {t: bad_feeds[k] for t, k in zip(good_feeds, bad_feeds)}
    with ref.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(2):
            sess.run(fetches, good_feeds)  # compiled
        with pytest.raises(ref.errors.InvalidArgumentError, match="Matrix size-incompatible") as info:
            sess.run(fetches, bad_feeds)
    assert info.value.op.name == name
