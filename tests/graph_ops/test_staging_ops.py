"""Staging areas (``StagingArea``, ``MapStagingArea`` ordered and not): a table of put/get/peek/
size/clear programs run in ref and in TF 1.x graphs (values and sizes equal), TF's errors (removed
components, a non-scalar key, peek index), and the blocking bounds (capacity, memory limit: a put past
them waits until a get makes room)."""
import threading

import numpy as np
import pytest

from ref.graph_ops import staging_ops as _under_test  # noqa: F401


def _libs():
    import ref
    libs = [(ref.compat.v1, _under_test)]
    try:
        tf = pytest.importorskip("tensorflow")
        from tensorflow.python.ops import data_flow_ops
        libs.append((tf.compat.v1, data_flow_ops))
    except pytest.skip.Exception:
        pass
    return libs


def _fifo(lib, mod):
    x = lib.placeholder(lib.int32)
    area = mod.StagingArea([lib.int32, lib.float32], shapes=[[], [2]])
    put = area.put([x, lib.cast(lib.stack([x, 2 * x]), lib.float32)])
    i = lib.placeholder(lib.int32)
    return x, put, {"get": area.get(), "peek": area.peek(i), "size": area.size(), "clear": area.clear()}, i


def _map(ordered):
    def build(lib, mod):
        k, x = lib.placeholder(lib.int64), lib.placeholder(lib.float32)
        area = mod.MapStagingArea([lib.float32, lib.float32, lib.float32], names=["a", "b", "c"], ordered=ordered)
        parts = {"ab": area.put(k, {"a": x, "b": 2 * x}), "c": area.put(k, {"c": 3 * x})}
        g = lib.placeholder(lib.int64)
        ops = {"get_a": area.get(g, ["a"]), "get_bc": area.get(g, ["b", "c"]), "peek": area.peek(g),
               "pop": area.get(), "size": area.size(), "isize": area.incomplete_size(), "clear": area.clear()}
        return (k, x, g), parts, ops
    return build


FIFO_PROGRAMS = [  # steps: ("put", x) or (op name, peek index)
    [("put", 1), ("put", 2), ("size", 0), ("peek", 1), ("get", 0), ("size", 0), ("get", 0), ("size", 0)],
    [("put", 5), ("put", 6), ("put", 7), ("clear", 0), ("size", 0), ("put", 8), ("peek", 0), ("get", 0)],
]

MAP_PROGRAMS = [  # steps: ("ab"|"c", key, x) puts; (op, key) reads
    [("ab", 3, 1.0), ("size", 0), ("isize", 0), ("c", 3, 1.0), ("size", 0), ("isize", 0), ("peek", 3),
     ("get_a", 3), ("size", 0), ("get_bc", 3), ("size", 0)],
    [("ab", 9, 1.0), ("c", 9, 1.0), ("ab", 2, 2.0), ("c", 2, 2.0), ("ab", 5, 3.0), ("c", 5, 3.0), ("pop", 0),
     ("size", 0), ("clear", 0), ("size", 0), ("isize", 0)],
]


def _run_fifo(lib, mod, program):
    out = []
    with lib.Graph().as_default():
        x, put, ops, i = _fifo(lib, mod)
        with lib.Session() as sess:
            for op, v in program:
                if op == "put":
                    sess.run(put, {x: v})
                else:
                    r = sess.run(ops[op], {i: v})
                    out.append(None if r is None else [np.asarray(t).tolist() for t in r]
                               if isinstance(r, list) else np.asarray(r).tolist())
    return out


def _norm(r):
    if isinstance(r, dict):
        return {k: np.asarray(v).tolist() for k, v in r.items()}
    if isinstance(r, (list, tuple)):
        return [_norm(v) for v in r]
    return None if r is None else np.asarray(r).tolist()


def _run_map(lib, mod, program, ordered):
    out = []
    with lib.Graph().as_default():
        (k, x, g), parts, ops = _map(ordered)(lib, mod)
        with lib.Session() as sess:
            for step in program:
                if step[0] in parts:
                    sess.run(parts[step[0]], {k: step[1], x: step[2]})
                else:
                    out.append(_norm(sess.run(ops[step[0]], {g: step[1]})))
    return out


@pytest.mark.parametrize("program", FIFO_PROGRAMS)
def test_staging_area_programs_as_tf(program):
    results = [_run_fifo(lib, mod, program) for lib, mod in _libs()]
    assert any(r is not None for r in results[0])
    for r in results[1:]:
        assert r == results[0]


@pytest.mark.parametrize("ordered", [False, True])
@pytest.mark.parametrize("program", MAP_PROGRAMS)
def test_map_staging_area_programs_as_tf(program, ordered):
    results = [_run_map(lib, mod, program, ordered) for lib, mod in _libs()]
    if ordered and ("pop", 0) in program:  # the smallest key first
        assert any(r == [2, {"a": 2.0, "b": 4.0, "c": 6.0}] for r in results[0])
    for r in results[1:]:
        assert r == results[0]


ERRORS = [  # (build(lib, mod, gen) -> (fetch, feed), message)
    ("removed", "Tensor at index '0' for key '0' has already been removed."),
    ("peek_index", "index must be scalar"),
    ("bad_key", "key must be an int64 scalar"),
    ("twice", "was already initialized"),
]


def _error_case(lib, mod, case):
    if case == "peek_index":
        area = mod.StagingArea([lib.int32])
        return [area.peek([])], None
    area = mod.MapStagingArea([lib.float32, lib.float32])
    if case == "bad_key":
        return [area.peek(lib.constant([[1, 2, 3]], lib.int64))], None
    if case == "twice":
        put = area.put(0, [lib.constant(1.0)], [0])
        return [put, put], None
    put = area.put(0, [lib.constant(1.0), lib.constant(2.0)], [0, 1])
    _, get0 = area.get(0, [0])
    return [put, get0, get0], None


@pytest.mark.parametrize("case,message", ERRORS)
def test_errors_as_tf(case, message):
    for lib, mod in _libs():
        with lib.Graph().as_default():
            fetches, _ = _error_case(lib, mod, case)
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError, match=message):
                for f in fetches:
                    sess.run(f)


BOUNDS = [  # (kwargs, item bytes, puts that fit)
    ({"capacity": 2}, 4, 2),
    ({"capacity": 3}, 4, 3),
    ({"memory_limit": 1000}, 400, 2),
]


@pytest.mark.parametrize("kind", ["fifo", "map"])
@pytest.mark.parametrize("kwargs,nbytes,fit", BOUNDS)
def test_put_waits_for_room(kind, kwargs, nbytes, fit):
    """The put past the bound blocks until a get frees room (ref only: the bound is timing)."""
    import ref
    tf = ref.compat.v1
    with tf.Graph().as_default():
        x, key = tf.placeholder(tf.uint8), tf.placeholder(tf.int64)
        if kind == "fifo":
            area = _under_test.StagingArea([tf.uint8], **kwargs)
            put, get = area.put([x]), area.get()
        else:
            area = _under_test.MapStagingArea([tf.uint8], ordered=True, **kwargs)
            put, get = area.put(key, [x], [0]), area.get()
        done = []
        with tf.Session() as sess:
            def producer():
                for i in range(fit + 1):
                    sess.run(put, {x: np.full(nbytes, i, np.uint8), key: i})
                    done.append(i)
            t = threading.Thread(target=producer, daemon=True)
            t.start()
            t.join(1.0)
            assert len(done) == fit and sess.run(area.size()) == fit
            first = sess.run(get)
            t.join(5.0)
            assert len(done) == fit + 1
            values = first[1] if kind == "map" else first
            assert np.all(np.asarray(values[0]) == 0)


def test_memory_limit_smaller_than_item():
    import ref
    tf = ref.compat.v1
    with tf.Graph().as_default():
        area = _under_test.StagingArea([tf.uint8], memory_limit=10)
        put = area.put([tf.zeros([11], tf.uint8)])
        with tf.Session() as sess, pytest.raises(tf.errors.ResourceExhaustedError, match="memory limit of '10'"):
            sess.run(put)
