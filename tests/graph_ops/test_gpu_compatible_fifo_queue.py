"""``GPUCompatibleFIFOQueue`` (TF's data_flow_ops): its queue op keeps the device in scope where a
FIFOQueue's goes to the CPU; one-at-a-time values; ``enqueue_many``/``dequeue_many`` raise; all vs TF."""
import pytest

import ref
from ref.graph_ops import data_flow_ops as _under_test  # noqa: F401


def _tf_pair():
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf
    from tensorflow.python.ops import data_flow_ops as tf_dfo
    return tf, tf_dfo


def _graph(tf, dfo, device):
    g = tf.Graph()
    with g.as_default(), tf.device(device):
        q = dfo.GPUCompatibleFIFOQueue(10, tf.float32, shapes=(3, 2))
        p = dfo.FIFOQueue(10, tf.float32)
        q.enqueue(([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],))
        q.dequeue()
    return [(op.name, op.type, op.device) for op in g.get_operations()], q.queue_ref.device, p.queue_ref.device


@pytest.mark.parametrize("device", ["/device:GPU:0", "/cpu:0", ""])
def test_graph_as_tf(device):
    tf, tf_dfo = _tf_pair()
    assert _graph(ref, _under_test, device) == _graph(tf, tf_dfo, device)


def _values(tf, dfo):
    g = tf.Graph()
    with g.as_default():
        q = dfo.GPUCompatibleFIFOQueue(10, tf.float32)
        with tf.Session(graph=g) as s:
            for x in (10.0, 20.0, 30.0):
                s.run(q.enqueue((tf.identity(tf.constant(x)),)))
            out = [float(s.run(q.dequeue())) for _ in range(3)]
        errors = []
        for call in (lambda: q.enqueue_many(([1.0],)), lambda: q.dequeue_many(2)):
            try:
                call()
            except NotImplementedError as e:
                errors.append(str(e))
            with pytest.raises(ValueError):
                dfo.GPUCompatibleFIFOQueue(10, tf.float32, shapes=(3, 2)).enqueue(([[1.0, 2.0, 3.0]],))
    return out, errors


def test_values_and_unsupported_calls_as_tf():
    tf, tf_dfo = _tf_pair()
    assert _values(ref, _under_test) == _values(tf, tf_dfo)
