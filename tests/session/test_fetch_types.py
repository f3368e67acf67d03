"""What ``Session.run`` hands back, and how it rejects bad fetches and feeds,
compared with tensorflow.compat.v1 case by case: a 0-d fetch is a NumPy scalar
(``bytes`` for strings), higher ranks are ndarrays, a fed tensor gives back the
fed array, an Operation gives None; errors have TF's class and message."""
import collections

import numpy as np
import pytest
from ref.session import session as _under_test  # noqa: F401  (the module these tests cover)

Pair = collections.namedtuple("Pair", ["a", "b"])


def _same(got, want, where="fetch"):
    """``got`` has ``want``'s Python/NumPy types all the way down, and its values."""
    assert type(got) is type(want), f"{where}: {type(got).__name__} != {type(want).__name__} ({got!r} vs {want!r})"
    if isinstance(want, np.ndarray):
        assert got.dtype == want.dtype and got.shape == want.shape, (where, got, want)
        assert got.tolist() == want.tolist(), (where, got, want)
    elif isinstance(want, dict):
        assert list(got) == list(want), where
        for k in want:
            _same(got[k], want[k], f"{where}[{k!r}]")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    elif isinstance(want, float) and np.isnan(want):
        assert np.isnan(got)
    else:
        assert got == want, (where, got, want)


def _consts(tf):
    return {
        "float32": tf.constant(np.float32(2.5)), "float64": tf.constant(np.float64(2.5)),
        "float16": tf.constant(np.float16(1.5)), "int32": tf.constant(3), "int64": tf.constant(np.int64(3)),
        "uint8": tf.constant(np.uint8(7)), "int8": tf.constant(np.int8(-7)), "bool": tf.constant(True),
        "complex64": tf.constant(np.complex64(1 + 2j)), "string": tf.constant(b"abc"),
        "vector": tf.constant([1.0, 2.0]), "matrix_int": tf.constant([[1, 2]]),
        "strings": tf.constant([b"a", b"bc"]), "empty": tf.constant(np.zeros((0, 2), np.float32)),
    }


# Each case builds fetches in a graph and returns what running them gives.
def _run_consts(tf, s):
    return s.run(_consts(tf))


def _run_variable(tf, s):
    v = tf.Variable(1.5, name="v")
    w = tf.Variable([1, 2], name="w")
    s.run(tf.global_variables_initializer())
    # one run each: TF does not order a variable's read against an update in the same run
    return [s.run([v, w, v.value()]), s.run(v.initializer), s.run(tf.assign_add(v, 1.0)), s.run(w.read_value())]


def _run_structures(tf, s):
    a = tf.constant(1.0, name="a")
    b = tf.constant([2, 3], name="b")
    op = tf.group(a, b)
    return s.run({"x": [a, (b, op)], "p": Pair(a, "b:0"), "name": "a:0", "op_name": op.name})


class _Names(list):
    pass


def _run_containers(tf, s):
    attr = pytest.importorskip("attr")

    @attr.s
    class Sample:
        x = attr.ib()
        y = attr.ib()

    a, b = tf.constant(1.5), tf.constant([1, 2])
    out = s.run([collections.defaultdict(int, {"a": a}), _Names([a, b]), Sample(a, {"b": b})])
    assert out[0].default_factory is int
    return [dict(out[0]), out[1], (type(out[2]).__name__, out[2].x, out[2].y)]


def _run_fed(tf, s):
    p = tf.placeholder(tf.float32, [], name="p")
    q = tf.placeholder(tf.int32, [None], name="q")
    fed = np.array([4, 5], np.int32)
    out = s.run([p, p * 2.0, q, q + 1], {p: 3.0, q: fed})
    assert out[2] is fed  # TF hands the fed array itself back
    return out


def _run_feed_conversions(tf, s):
    i = tf.placeholder(tf.int32, [], name="i")
    b = tf.placeholder(tf.bool, [], name="b")
    f = tf.placeholder(tf.float32, [2], name="f")
    return s.run([i, i + 1, b, f, f * 1.0], {i: 1.7, b: 1, f: [1, 2]})


def _run_callable(tf, s):
    p = tf.placeholder(tf.float32, [], name="p")
    c = tf.constant(7)
    return [s.make_callable(c)(), s.make_callable(p * 2.0, [p])(1.5), s.make_callable([c, {"p": p}], [p])(2.0),
            s.make_callable(c.op)(), s.make_callable(p, feed_list=[p])(np.float32(4.0))]


def _run_eval_and_op_run(tf, s):
    c = tf.constant(np.int64(9))
    return [c.eval(), tf.constant(True).eval(), tf.no_op().run(), tf.constant([b"x"]).eval()]


def _run_summary(tf, s):
    summ = tf.summary.scalar("loss", tf.constant(0.25))
    value = s.run(summ)
    parsed = tf.summary.Summary.FromString(value)
    return [value, parsed.value[0].tag, float(parsed.value[0].simple_value)]


@pytest.mark.parametrize("case", [_run_consts, _run_variable, _run_structures, _run_containers, _run_fed, _run_feed_conversions,
                                  _run_callable, _run_eval_and_op_run, _run_summary],
                         ids=lambda f: f.__name__[5:])
def test_fetched_values_have_tf_types(rtf, tf1, case):
    with tf1.Graph().as_default(), tf1.Session() as s:
        want = case(tf1, s)
    with rtf.Graph().as_default(), rtf.Session() as s:
        got = case(rtf, s)
    _same(got, want)


def _hooked_results(tf):
    """What hooks see (SessionRunValues.results) and MonitoredSession.run returns."""
    seen = []

    class Hook(tf.train.SessionRunHook):
        def before_run(self, run_context):
            return tf.train.SessionRunArgs({"step": gs, "names": names})

        def after_run(self, run_context, run_values):
            seen.append(run_values.results)

    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        names = tf.constant([b"a", b"b"])
        train = tf.assign_add(gs, 1)
        with tf.train.MonitoredSession(hooks=[Hook()]) as sess:
            out = [sess.run(train), sess.run([gs, train.op]), sess.run_step_fn(lambda step_context: step_context
                                                                               .run_with_hooks(gs))]
    return out, seen


def test_monitored_session_and_hooks_get_tf_types(rtf, tf1):
    _same(_hooked_results(rtf), _hooked_results(tf1))


# -- errors -------------------------------------------------------------------

def _bad_calls(tf):
    """(name, call) pairs run against one graph and session."""
    g = tf.get_default_graph()
    p = tf.placeholder(tf.float32, [2], name="p")
    s_ph = tf.placeholder(tf.string, [], name="s_ph")
    i = tf.placeholder(tf.int32, [], name="i")
    c = tf.constant(1.0, name="c")
    blocked = tf.constant(2.0, name="blocked")
    hidden = tf.constant(3.0, name="hidden")
    g.prevent_feeding(blocked)
    g.prevent_fetching(hidden.op)
    other = tf.Graph()
    with other.as_default():
        foreign = tf.constant(0.0, name="foreign")
    s = tf.get_default_session()
    return [
        ("missing op name", lambda: s.run("not_an_op")),
        ("missing tensor name", lambda: s.run("not_an_op:0")),
        ("output index out of range", lambda: s.run("c:1")),
        ("None", lambda: s.run(None)),
        ("None in a list", lambda: s.run([c, None])),
        ("int fetch", lambda: s.run(3)),
        ("foreign tensor", lambda: s.run(foreign)),
        ("unfetchable", lambda: s.run(hidden)),
        ("feed shape", lambda: s.run(p, {p: [1.0, 2.0, 3.0]})),
        ("feed rank", lambda: s.run(p, {p: [[1.0, 2.0]]})),
        ("feed None", lambda: s.run(p, {p: None})),
        ("feed strings to float", lambda: s.run(p, {p: ["a", "b"]})),
        ("feed int overflow", lambda: s.run(i, {i: 2 ** 40})),
        ("feed a Tensor", lambda: s.run(c, {p: c})),
        ("feed key missing", lambda: s.run(c, {"nope:0": 1.0})),
        ("feed key op name", lambda: s.run(c, {"p": [1.0, 2.0]})),
        ("feed key Operation", lambda: s.run(c, {p.op: [1.0, 2.0]})),
        ("feed key int", lambda: s.run(c, {3: 1.0})),
        ("feed key foreign", lambda: s.run(c, {foreign: 1.0})),
        ("unfeedable", lambda: s.run(blocked * 2.0, {blocked: 5.0})),
        ("placeholder unfed", lambda: s.run(s_ph)),
        ("feed_list not a list", lambda: s.make_callable(c, feed_list=p)),
    ]


def _outcomes(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session():
        for name, call in _bad_calls(tf):
            try:
                call()
                out[name] = ("no error", "")
            except Exception as e:  # noqa: BLE001 - the class is what is compared
                message = e.message if hasattr(e, "message") and isinstance(e, tf.errors.OpError) else str(e)
                out[name] = (type(e).__name__, message)
    return out


_MESSAGE_EXACT = {"missing op name", "missing tensor name", "output index out of range", "None",
                  "None in a list", "int fetch", "feed shape", "feed rank", "feed None", "feed strings to float",
                  "feed int overflow", "feed key missing", "feed key op name", "feed key Operation", "feed key int",
                  "unfeedable", "unfetchable", "foreign tensor", "feed key foreign", "feed a Tensor"}


def test_bad_fetches_and_feeds_raise_tf_errors(rtf, tf1):
    want = _outcomes(tf1)
    got = _outcomes(rtf)
    for name in want:
        assert got[name][0] == want[name][0], (name, got[name], want[name])
        if name in _MESSAGE_EXACT:
            assert got[name][1] == want[name][1], name
        else:  # TF's run-time messages add graph-debug text around ours: our first line is in TF's
            first = got[name][1].splitlines()[0]
            assert first and first in want[name][1], (name, got[name], want[name])


def test_empty_graph_and_closed_session(rtf, tf1):
    for tf in (tf1, rtf):
        with tf.Graph().as_default():
            s = tf.Session()
            with pytest.raises(RuntimeError, match="The Session graph is empty"):
                s.run([])
            tf.constant(1.0)
            s.close()
            with pytest.raises(RuntimeError, match="Attempted to use a closed Session"):
                s.run("Const:0")


# (fed value, shape): fetching a fed string tensor hands back np.asarray(fed, dtype=object),
# the very object when it already is an object array; str elements stay str.
FED_STRINGS = [
    (lambda: np.array([b"a", b"bc"], dtype=object), [None]),
    (lambda: np.array(["x", "yy"]), [None]),
    (lambda: [b"a", "b"], [None]),
    (lambda: np.array([b"q", b"rr"]), [None]),
    (lambda: b"abc", []),
    (lambda: "abc", []),
    (lambda: np.array(b"x", dtype=object), []),
]


def _fetch_fed_string(T, make, shape):
    with T.Graph().as_default(), T.Session() as s:
        p = T.placeholder(T.string, shape)
        fed = make()
        got = s.run(p, {p: fed})
        joined = s.run(T.identity(p), {p: fed})
        return got, got is fed, joined


@pytest.mark.parametrize("make,shape", FED_STRINGS)
def test_fetching_a_fed_string_tensor_returns_the_fed_value(make, shape):
    import ref
    tf = pytest.importorskip("tensorflow").compat.v1
    got, same, joined = _fetch_fed_string(ref, make, shape)
    want, want_same, want_joined = _fetch_fed_string(tf, make, shape)
    _same(got, want)
    assert same == want_same
    _same(joined, want_joined)  # the kernels still see bytes
