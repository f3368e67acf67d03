"""The Session: fetch structures, feeds, errors, callables, threads."""
import collections
import threading

import numpy as np
import pytest

import ref.ops.control  # noqa: F401
import ref.ops.core  # noqa: F401
from ref.types import dtypes, errors
from ref.framework import graph as G
from ref.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from ref.framework.op_def_library import constant
from ref.graph_ops.control_flow_ops import group, identity, placeholder
from ref.session import InteractiveSession, Session, get_default_session

Pair = collections.namedtuple("Pair", ["a", "b"])


@pytest.fixture
def g():
    graph = G.Graph()
    with graph.as_default():
        yield graph


def test_fetch_structures(g):
    a = constant(1.0, name="a")
    b = constant([2, 3], name="b")
    op = group(a, b)
    with Session() as s:
        out = s.run({"x": [a, (b, op)], "p": Pair(a, "b:0"), "name": "a:0"})
    assert out["x"][0] == np.float32(1.0)
    assert out["x"][1][0].tolist() == [2, 3] and out["x"][1][1] is None
    assert isinstance(out["p"], Pair) and out["p"].b.tolist() == [2, 3]
    assert out["name"] == 1.0


def test_fetch_indexed_slices(g):
    v = constant([[1.0, 2.0]])
    i = constant([3])
    s_ = IndexedSlices(v, i, constant([5, 2]))
    with Session() as s:
        out = s.run(s_)
    assert isinstance(out, IndexedSlicesValue)
    assert out.indices.tolist() == [3] and out.dense_shape.tolist() == [5, 2]


@pytest.mark.parametrize("bad", [None, 3, object()])
def test_fetch_bad_types(g, bad):
    constant(1.0)  # TF checks for an empty graph (RuntimeError) before the fetches
    with Session() as s:
        with pytest.raises(TypeError):
            s.run(bad)


def test_feeds(g):
    x = placeholder(dtypes.float32, [None, 2], name="x")
    y = identity(x)
    c = constant(5.0)
    z = identity(c)
    with Session() as s:
        assert s.run(y, {x: [[1, 2]]}).dtype == np.float32
        assert s.run(y, {"x:0": np.ones((3, 2))}).shape == (3, 2)
        assert s.run(z, {c: 7.0}) == 7.0  # any tensor is feedable
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\)"):
            s.run(y, {x: [1, 2, 3]})
        with pytest.raises(errors.InvalidArgumentError, match="You must feed a value for placeholder tensor 'x'"):
            s.run(y)
        with pytest.raises(TypeError):
            s.run(y, {x: c})


def test_error_names_op_and_source_line(g):
    x = placeholder(dtypes.float32, name="needs_feed")
    with Session() as s:
        with pytest.raises(errors.InvalidArgumentError) as info:
            s.run(x)
    assert info.value.op is x.op and info.value.error_code == errors.INVALID_ARGUMENT
    assert "test_session.py" in info.value.message


def test_closed_session(g):
    a = constant(1.0)
    s = Session()
    s.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        s.run(a)


def test_default_session_and_eval(g):
    a = constant(4.0)
    assert get_default_session() is None
    with Session() as s:
        assert get_default_session() is s
        assert a.eval() == 4.0
        group(a).run()
    with pytest.raises(ValueError):
        a.eval()
    sess = InteractiveSession()
    try:
        assert get_default_session() is sess and a.eval() == 4.0
    finally:
        sess.close()
    assert get_default_session() is None


def test_make_callable(g):
    x = placeholder(dtypes.float32, [], name="x")
    y = identity(x)
    with Session() as s:
        f = s.make_callable([y], feed_list=[x])
        assert f(3.0) == [np.float32(3.0)]
        assert f(4.0) == [np.float32(4.0)]
        with pytest.raises(errors.InvalidArgumentError):
            f()  # as in TF, the values pair with feed_list: x is left unfed


def test_concurrent_runs(g):
    x = placeholder(dtypes.float32, [], name="x")
    y = identity(identity(x))
    results = {}
    with Session() as s:
        def work(k):
            results[k] = [float(s.run(y, {x: float(k * 1000 + j)})) for j in range(200)]

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for k in range(4):
        assert results[k] == [float(k * 1000 + j) for j in range(200)]


def test_list_devices(g):
    with Session() as s:
        devs = s.list_devices()
    assert devs[0].device_type == "CPU" and devs[0].name.endswith("device:CPU:0")


def test_fetched_constant_is_writable_copy(g):
    c = constant([1.0, 2.0])
    with Session() as s:
        v = s.run(c)
        v[0] = 9.0
        assert s.run(c)[0] == 1.0


def test_fetched_values_are_never_updated_in_place_later():
    """The interpreter updates variables in place only when nothing else holds
    the stored array: a value fetched earlier must keep its numbers."""
    import ref as tf

    with tf.Graph().as_default():
        w = tf.Variable(np.ones(1000, np.float32))
        loss = tf.reduce_sum(tf.square(w))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            before = s.run(w)
            kept = before.copy()
            for _ in range(3):
                s.run(train)
            np.testing.assert_array_equal(before, kept)
            after = s.run(w)
            np.testing.assert_allclose(after, kept * 0.8 ** 3, rtol=1e-6)
            fetched_with_train = s.run([w.value(), train])[0]
            snapshot = fetched_with_train.copy()
            s.run(train)
            np.testing.assert_array_equal(fetched_with_train, snapshot)
