"""The frames executor (ref.session.interpreter.frames): TF 1.x control flow built by
TensorFlow (compat.v1 graphs: Switch/Merge, Enter/Exit/NextIteration/LoopCond),
imported as a GraphDef and run by ref, through both evaluators, against
TensorFlow's values."""
import numpy as np
import pytest

import ref as rtf
from ref.session.interpreter import frames as _under_test  # noqa: F401  (the executor these tests cover)
from ref.protos import graph_pb2


@pytest.fixture(autouse=True)
def _tf1_control_flow(monkeypatch):
    try:
        from tensorflow.python.ops import control_flow_util
    except ImportError:
        return
    monkeypatch.setattr(control_flow_util, "ENABLE_CONTROL_FLOW_V2", False)


@pytest.fixture(params=["execute", "evaluate"])
def evaluator(request, monkeypatch):
    from ref.session import session as session_mod
    monkeypatch.setattr(session_mod, "_REFERENCE_EVALUATOR", request.param == "evaluate")
    return request.param


def _nested_loops(tf):
    n = tf.placeholder(tf.int32, [], name="n")

    def body(i, s):
        _, t = tf.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t * 2 + j), [0, s])
        return i + 1, t
    tf.identity(tf.while_loop(lambda i, s: i < n, body, [0, 1])[1], name="out")


def _cond_in_loop(tf):
    n = tf.placeholder(tf.int32, [], name="n")
    x = tf.placeholder(tf.float32, [3], name="x")

    def body(i, v):
        return i + 1, tf.cond(tf.equal(i % 3, 0), lambda: v * x, lambda: v + 1.0)
    tf.identity(tf.while_loop(lambda i, v: i < n, body, [0, x])[1], name="out")


def _loop_in_cond(tf):
    n = tf.placeholder(tf.int32, [], name="n")
    p = tf.placeholder(tf.bool, [], name="p")
    tf.identity(tf.cond(p, lambda: tf.while_loop(lambda i: i < n, lambda i: i + 3, [0]),
                        lambda: tf.constant(-7)), name="out")


def _variable_in_loop(tf):
    n = tf.placeholder(tf.int32, [], name="n")
    v = tf.Variable(np.float32(1.0), name="v", use_resource=False)

    def body(i, acc):
        with tf.control_dependencies([tf.assign_add(v, 2.0)]):
            return i + 1, acc + tf.identity(v)
    # one iteration at a time: TF's reads of the variable race with later iterations' updates otherwise
    _, acc = tf.while_loop(lambda i, acc: i < n, body, [0, 0.0], parallel_iterations=1)
    tf.identity(acc, name="out")


def _tensor_loop(tf):  # a loop variable whose shape grows, and a maximum_iterations bound
    n = tf.placeholder(tf.int32, [], name="n")
    _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: [i + 1, tf.concat([v, v[-1:] * 2], 0)],
                         [0, tf.constant([1, 3])], shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])],
                         maximum_iterations=6)
    tf.identity(v, name="out")


def _grad_loop_cond_loop(tf):  # TF's stack-based gradient of a loop in a cond in a loop, its branch untaken at i = 0
    n = tf.placeholder(tf.int32, [], name="n")
    x = tf.placeholder(tf.float32, [3], name="x")

    def body(i, v):
        def inner():
            return tf.while_loop(lambda j, y: j < 3, lambda j, y: (j + 1, y + v * x), [0, tf.zeros_like(v)])[1]
        return i + 1, tf.cond(i > 0, inner, lambda: v * 2.0)
    y = tf.while_loop(lambda i, v: i < n, body, [0, x])[1]
    tf.identity(tf.gradients(tf.reduce_sum(y * y), x)[0], name="out")


def _grad_cond_loop_cond(tf):  # a cond in a loop in a cond; each inner branch taken in some iteration
    n = tf.placeholder(tf.int32, [], name="n")
    x = tf.placeholder(tf.float32, [3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")

    def loop():
        return tf.while_loop(lambda i, v: i < n,
                             lambda i, v: (i + 1, tf.cond(tf.equal(i % 2, 0), lambda: v * x, lambda: v * 0.5 + x)),
                             [0, x])[1]
    y = tf.cond(p, loop, lambda: x * x)
    tf.identity(tf.gradients(tf.reduce_sum(y), x)[0], name="out")


GRAPHS = [_nested_loops, _cond_in_loop, _loop_in_cond, _variable_in_loop, _tensor_loop, _grad_loop_cond_loop,
          _grad_cond_loop_cond]
FEEDS = [{"n:0": 0}, {"n:0": 1}, {"n:0": 4}, {"n:0": 9, "p:0": False}]


def _tf_graph_def(build):
    tf = pytest.importorskip("tensorflow").compat.v1
    g = tf.Graph()
    with g.as_default():
        build(tf)
        init = [v.initializer.name for v in tf.global_variables()]
    return g, init


def _feeds(names, feeds):
    out = {"x:0": np.float32([1.5, -2.0, 0.25]), "p:0": True}
    out.update(feeds)
    return {k: v for k, v in out.items() if k.split(":")[0] in names}


@pytest.mark.parametrize("feeds", FEEDS, ids=["n0", "n1", "n4", "n9_false"])
@pytest.mark.parametrize("build", GRAPHS, ids=[b.__name__.strip("_") for b in GRAPHS])
def test_imported_tf1_control_flow_matches_tensorflow(build, feeds, evaluator):
    tf = pytest.importorskip("tensorflow").compat.v1
    g, init = _tf_graph_def(build)
    names = {n.name for n in g.as_graph_def().node}
    feed = _feeds(names, feeds)
    with tf.Session(graph=g) as s:
        s.run(init)
        want = [s.run("out:0", feed), s.run("out:0", feed)]  # twice: state carried between runs
    gd = graph_pb2.GraphDef.FromString(g.as_graph_def().SerializeToString())
    with rtf.Graph().as_default(), rtf.Session() as s:
        rtf.import_graph_def(gd, name="")
        s.run(init)
        got = [s.run("out:0", feed), s.run("out:0", feed)]
    for w, r in zip(want, got):
        np.testing.assert_array_equal(np.asarray(r), np.asarray(w))


def test_dead_branch_of_untaken_cond_does_not_run_its_loop(evaluator):
    """A loop on an untaken branch never runs its body: a variable it updates keeps its value."""
    def build(tf):
        p = tf.placeholder(tf.bool, [], name="p")
        v = tf.Variable(np.float32(0.0), name="v", use_resource=False)

        def loop():
            def body(i):
                with tf.control_dependencies([tf.assign_add(v, 1.0)]):
                    return i + 1
            return tf.while_loop(lambda i: i < 3, body, [0])
        tf.identity(tf.cond(p, loop, lambda: tf.constant(5)), name="out")
    g, init = _tf_graph_def(build)
    gd = graph_pb2.GraphDef.FromString(g.as_graph_def().SerializeToString())
    with rtf.Graph().as_default() as rg, rtf.Session() as s:
        rtf.import_graph_def(gd, name="")
        s.run(init)
        assert s.run("out:0", {"p:0": False}) == 5
        assert s.run(rg.get_tensor_by_name("v:0")) == 0.0
        assert s.run("out:0", {"p:0": True}) == 3
        assert s.run(rg.get_tensor_by_name("v:0")) == 3.0



def _forward_order(parallel_iterations, n=8):
    """The order a differentiated TF 1.x loop runs its body's Sin ("S") and the
    two StackPushV2 of each iteration ("P") that save values for its gradient."""
    with rtf.Graph().as_default():
        x = rtf.constant(0.5)
        _, y = rtf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, rtf.sin(y) * x), [rtf.constant(0), x],
                              parallel_iterations=parallel_iterations)
        (g,) = rtf.gradients(y, x)
        with rtf.Session() as s:
            md = rtf.RunMetadata()
            value = s.run(g, options=rtf.RunOptions(trace_level=rtf.RunOptions.FULL_TRACE), run_metadata=md)
    names = [n.node_name for d in md.step_stats.dev_stats for n in d.node_stats]
    return value, "".join("S" if n == "while/Sin" else "P" for n in names if n == "while/Sin" or "StackPushV2" in n)


def _in_flight(order):
    """The most iterations started (Sin ran) whose two pushes had not both run."""
    started = pushes = most = 0
    for c in order:
        started += c == "S"
        pushes += c == "P"
        most = max(most, started - pushes // 2)
    return most


@pytest.mark.parametrize("parallel_iterations", [1, 2, 3, 10])
def test_parallel_iterations_bounds_the_iterations_in_flight(parallel_iterations):
    """parallel_iterations caps the iterations of a loop running at once (TF's
    executor holds back NextIteration values until the oldest iteration is
    done; TF's documented meaning), so a differentiated loop saves each
    iteration's values before starting iterations past the window; the order
    stays deterministic and the gradient is the NumPy oracle's."""
    value, order = _forward_order(parallel_iterations)
    assert order.count("S") == 8 and order.count("P") == 16
    assert _in_flight(order) <= parallel_iterations
    if parallel_iterations >= 8:  # a wide window holds nothing back
        assert _in_flight(order) == 8
    if parallel_iterations == 1:
        assert order == "SPP" * 8
    assert _forward_order(parallel_iterations) == (value, order)
    y, d = np.float32(0.5), np.float32(1.0)  # y' = sin(y) x with y0 = x: dy'/dx = cos(y) x dy/dx + sin(y)
    for _ in range(8):
        y, d = np.sin(y) * 0.5, np.cos(y) * 0.5 * d + np.sin(y)
    np.testing.assert_allclose(value, d, rtol=1e-5)


def _counter(tf):
    return tf.while_loop(lambda i: i < 37, lambda i: i + 1, [tf.constant(0)]), 37


def _scaled_counter_gradient(tf):
    x0 = tf.constant(1.0)
    _, x = tf.while_loop(lambda i, x: i < 50, lambda i, x: (i + 1, x * 1.0001 + 0.5), [tf.constant(0), x0],
                         parallel_iterations=3)
    x_np, g_np = np.float32(1.0), np.float32(1.0)
    for _ in range(50):
        x_np, g_np = x_np * np.float32(1.0001) + np.float32(0.5), g_np * np.float32(1.0001)
    return [x, tf.gradients(x, x0)[0]], [x_np, g_np]


def _rnn_cell_loop(tf):
    rng = np.random.RandomState(3)
    w_np, x_np = rng.randn(4, 4).astype(np.float32) * 0.5, rng.randn(2, 4).astype(np.float32)
    w = tf.Variable(w_np, use_resource=False)  # read through a Ref inside the loop
    _, h = tf.while_loop(lambda i, h: i < 6, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + x_np)),
                         [tf.constant(0), tf.zeros([2, 4])])
    h_np = np.zeros((2, 4), np.float32)
    for _ in range(6):
        h_np = np.tanh(h_np @ w_np + x_np)
    return h, h_np


def _random_draws_in_loop(tf):
    tf.set_random_seed(5)

    def body(i, acc):
        a = tf.random_uniform([3], seed=1)
        b = tf.random_normal([3], seed=2)
        return i + 1, acc + a * 10.0 + b
    return tf.while_loop(lambda i, acc: i < 5, body, [tf.constant(0), tf.zeros([3])])[1], None


@pytest.mark.parametrize("build", [_counter, _scaled_counter_gradient, _rnn_cell_loop, _random_draws_in_loop],
                         ids=lambda b: b.__name__.strip("_"))
def test_untraced_and_traced_runs_agree_bit_for_bit(build, evaluator):
    """The executor's loop runs plain kernels and Identity in place (no trace);
    a traced run takes the general path: both give the same bits, run after run
    from a fresh session (the same order of stateful draws), and the NumPy
    oracle's values where there is one."""
    def run(traced):
        with rtf.Graph().as_default():
            fetches, expected = build(rtf)
            with rtf.Session() as s:
                s.run(rtf.global_variables_initializer())
                if traced:
                    opts = rtf.RunOptions(trace_level=rtf.RunOptions.FULL_TRACE)
                    return s.run(fetches, options=opts, run_metadata=rtf.RunMetadata()), expected
                return s.run(fetches), expected
    plain, expected = run(False)
    traced, _ = run(True)
    again, _ = run(False)
    for a, b, c in zip(np.atleast_1d(plain), np.atleast_1d(traced), np.atleast_1d(again)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        np.testing.assert_array_equal(np.asarray(a), np.asarray(c))
    if expected is not None:
        np.testing.assert_allclose(np.asarray(plain, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                                   rtol=1e-5)


# -- TF's BuildControlFlowInfo: an op fed from two frames is an InvalidArgumentError at run time --------
def _two_frames(tf, raw):
    data = tf.placeholder(tf.float32, shape=[], name="data")
    return raw.Enter(data=data, frame_name="foo_1") + raw.Enter(data=data, frame_name="foo_2"), data


def _enter_from_two_frames(tf, raw):  # an Enter whose inputs come from different frames
    data = tf.placeholder(tf.float32, shape=[], name="data")
    inner = raw.Enter(data=data, frame_name="outer")
    return raw.Enter(data=inner + data, frame_name="inner"), data


def _same_frame(tf, raw):  # two Enters into one frame: allowed
    data = tf.placeholder(tf.float32, shape=[], name="data")
    return raw.Exit(data=raw.Enter(data=data, frame_name="f") * raw.Enter(data=data, frame_name="f")), data


FRAME_ROWS = [(_two_frames, "has inputs from different frames"),
              (_enter_from_two_frames, "has inputs from different frames"), (_same_frame, None)]


@pytest.mark.parametrize("build,error", FRAME_ROWS, ids=lambda r: getattr(r, "__name__", None))
def test_inputs_from_different_frames_as_tf(build, error, evaluator):
    tf = pytest.importorskip("tensorflow")
    from ref.framework.op_def_library import apply_op

    class _RefRaw:
        def __getattr__(self, op_type):
            return lambda **kw: apply_op(op_type, **kw)

    for lib, raw in ((tf.compat.v1, tf.raw_ops), (rtf, _RefRaw())):
        with lib.Graph().as_default(), lib.Session() as sess:
            out, data = build(lib, raw)
            if error is None:
                assert sess.run(out, {data: 3.0}) == 9.0
            else:
                with pytest.raises(lib.errors.InvalidArgumentError, match=error):
                    sess.run(out, {data: 1.0})
