"""data_flow_ops.Barrier (ref/graph_ops/data_flow_ops.py over ref/ops/barrier.py)
against TF: each row runs one program under both and compares what it fetches,
the errors (kind and the kernel's message, private resource ids masked), the
static shapes of take_many, and the GraphDef the builders make."""
import re

import numpy as np
import pytest

import ref
from ref.graph_ops import data_flow_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph


def _barrier_cls(lib):
    if lib is ref:
        return _under_test.Barrier
    from tensorflow.python.ops import data_flow_ops
    return data_flow_ops.Barrier


def _run(s, fetch):
    """The fetched value, or the error's kind and first message line."""
    try:
        return s.run(fetch)
    except Exception as e:  # noqa: BLE001  (the error is the outcome compared)
        # the kernel's line: TF's message puts "Graph execution error:" and the
        # traceback before it; both put the node ("\t [[...]]") after it
        lines = [ln for ln in getattr(e, "message", str(e)).splitlines() if ln.strip() and not ln[0].isspace()]
        message = lines[-1]
        return type(e).__name__, re.sub(r"_\d+_", "_N_", message)


def docstring_order(tf, B):
    """TF's docstring example: k1, k2 share the first index; k3 comes next."""
    b = B((tf.string, tf.int32), shapes=((), ()))
    t1, t2 = b.take_many(2), b.take_many(1)
    with tf.Session() as s:
        s.run(b.insert_many(0, keys=["k1", "k2"], values=["a", "b"]))
        s.run(b.insert_many(1, keys=["k1"], values=[1]))
        s.run(b.insert_many(0, keys=["k3"], values=["c"]))
        s.run(b.insert_many(1, keys=["k3"], values=[3]))
        s.run(b.insert_many(1, keys=["k2"], values=[2]))
        return [s.run(t1), s.run(t2), [t.shape.as_list() for t in (t1[0], t1[1], *t1[2])]]


def sizes_and_shapes(tf, B):
    b = B((tf.float32, tf.int64), shapes=((2,), ()), name="B")
    t = b.take_many(2)
    with tf.Session() as s:
        sizes = [s.run([b.ready_size(), b.incomplete_size()])]
        s.run(b.insert_many(0, ["x", "y", "z"], np.arange(6, dtype=np.float32).reshape(3, 2)))
        sizes.append(s.run([b.ready_size(), b.incomplete_size()]))
        s.run(b.insert_many(1, ["z", "x"], np.array([7, 8], np.int64)))
        sizes.append(s.run([b.ready_size(), b.incomplete_size()]))
        return [sizes, s.run(t), [x.shape.as_list() for x in (t[0], t[1], *t[2])]]


def small_batch_after_close(tf, B):
    b = B(tf.float32, shapes=())
    t = b.take_many(5, allow_small_batch=True)
    with tf.Session() as s:
        s.run(b.insert_many(0, ["a", "b"], [1.0, 2.0]))
        s.run(b.close())
        return [s.run(t), _run(s, t[0]), [x.shape.as_list() for x in (t[0], t[1], *t[2])]]


def closed_barrier_errors(tf, B):
    b = B((tf.float32, tf.float32), shapes=((), ()), name="B")
    with tf.Session() as s:
        s.run(b.insert_many(0, ["a", "b"], [1.0, 2.0]))
        s.run(b.close())
        return [_run(s, b.insert_many(0, ["c"], [3.0])),        # a new key after close
                _run(s, b.insert_many(1, ["a"], [4.0])),        # completes an old key: fine
                _run(s, b.take_many(3)[0]),                     # 1 ready + 1 incomplete < 3
                _run(s, b.close()),                             # closing twice
                _run(s, b.close(cancel_pending_enqueues=True)),  # but cancelling after a close is allowed
                _run(s, b.insert_many(1, ["b"], [5.0])),        # cancelled: nothing more goes in
                _run(s, b.insert_many(1, [], [])),
                _run(s, b.incomplete_size()), _run(s, b.take_many(1)[1]), _run(s, b.take_many(1)[0])]


def insert_errors(tf, B):
    b = B((tf.float32, tf.int32), shapes=((2,), ()), name="B")
    u = B(tf.float32, name="U")  # no shapes: components are scalars
    with tf.Session() as s:
        return [_run(s, b.insert_many(1, ["a"], [1.5])),               # wrong dtype
                _run(s, b.insert_many(0, ["a"], [[1.0, 2.0, 3.0]])),   # wrong shape
                _run(s, b.insert_many(0, ["a", "b"], [[1.0, 2.0], [3.0, 4.0]])),
                _run(s, b.insert_many(0, ["b"], [[1.0, 2.0]])),        # again
                _run(s, b.incomplete_size()),
                _run(s, u.insert_many(0, ["a"], [[1.0, 2.0]])),
                _run(s, u.insert_many(0, ["a", "b"], np.zeros([2, 0], np.float32)))]


def shared_mismatch(tf, B):
    with tf.Session() as s:
        out = []
        for first, second in ((dict(types=(tf.float32,), shapes=()), dict(types=(tf.int32,), shapes=())),
                              (dict(types=(tf.float32, tf.float32), shapes=((2, 2), (8,))),
                               dict(types=(tf.float32, tf.float32))),
                              (dict(types=(tf.float32,), shapes=((2, 2),)), dict(types=(tf.float32,), shapes=((2, 5),)))):
            name = f"shared_{len(out)}"
            s.run(B(shared_name=name, **first).barrier_ref.op)
            out.append(_run(s, B(shared_name=name, **second).barrier_ref.op))
        return out


@pytest.mark.parametrize("build", [docstring_order, sizes_and_shapes, small_batch_after_close,
                                   closed_barrier_errors, insert_errors, shared_mismatch])
def test_barrier_as_tensorflow(build):
    tf = pytest.importorskip("tensorflow").compat.v1
    with tf.Graph().as_default():
        want = build(tf, _barrier_cls(tf))
    with ref.Graph().as_default():
        got = build(ref, _barrier_cls(ref))
    assert repr(got) == repr(want)


@pytest.mark.parametrize("shapes", [((1,), (0,)), ((0, 3),)], ids=["second", "first"])
def test_empty_shapes_are_rejected(shapes):
    tf = pytest.importorskip("tensorflow").compat.v1
    messages = []
    for lib in (tf, ref):
        with lib.Graph().as_default(), pytest.raises(ValueError) as info:
            _barrier_cls(lib)([lib.float32] * len(shapes), shapes=shapes)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_blocked_take_is_cancelled_by_the_deadline():
    """A take waiting for elements fails when the run's timeout passes (as ref's queues)."""
    with ref.Graph().as_default():
        b = _under_test.Barrier(ref.float32, shapes=())
        take = b.take_many(1)
        with ref.Session() as s:
            with pytest.raises(ref.errors.DeadlineExceededError):
                s.run(take[0], options=ref.RunOptions(timeout_in_ms=200))
            s.run(b.insert_many(0, ["a"], [1.0]))
            assert s.run(take[1]).tolist() == [b"a"]


def _graph(tf):
    from tensorflow.python.ops import data_flow_ops as tf_data_flow_ops
    B = _under_test.Barrier if tf is ref else tf_data_flow_ops.Barrier
    b = B((tf.float32, tf.int32), shapes=((2,), ()), shared_name="shared", name="B")
    b.insert_many(0, ["a", "b"], tf.zeros([2, 2]))
    b.insert_many(1, ["a"], [3], name="second")
    b.take_many(2)
    b.take_many(3, allow_small_batch=True)
    b.close()
    b.close(cancel_pending_enqueues=True)
    b.ready_size()
    b.incomplete_size()
    B(tf.string)


def test_barrier_graph_is_tensorflows():
    pytest.importorskip("tensorflow")
    assert_same_graph(_graph)


def _fifo_devices(tf):
    """FIFOQueue's handle goes on the CPU within the device scope (TF's
    ``ops.device("CPU")``); the other queues keep the scope's device."""
    tf.FIFOQueue(3, tf.float32, name="plain")
    with tf.device("/job:ps/task:1"):
        tf.FIFOQueue(3, tf.float32, name="on_ps")
        tf.PaddingFIFOQueue(3, [tf.float32], shapes=[[None]], name="padding")
    with tf.device("/device:GPU:0"):
        tf.FIFOQueue(3, tf.float32, name="on_gpu")


def test_fifo_queue_device_is_tensorflows():
    tf = pytest.importorskip("tensorflow").compat.v1
    devices = []
    for lib in (tf, ref):
        with lib.Graph().as_default() as g:
            _fifo_devices(lib)
            devices.append([(op.name, op.device) for op in g.get_operations()])
    assert devices[1] == devices[0]
    assert_same_graph(_fifo_devices)
