"""The dataflow executor of a partition that exchanges values with other tasks
(``ref.distributed.dataflow``): a value another task waits for is sent as soon as it
is computed -- its gate (a NoOp, an Identity) runs ahead of the partition's order --
and a value is let go after its last consumer (only the caller's ``keep`` come back).
The oracle is NumPy on the same constants."""
import numpy as np
import pytest

import ref as tf
from ref.distributed import dataflow as _under_test
from ref.session.interpreter import RunState

CHAIN = 8


def _gated_send(gate):
    """y = 2x, a chain of CHAIN adds after it, and y sent through ``gate`` (made last: the
    highest index in the partition's order)."""
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.arange(4, dtype=np.float32), name="x")
        y = tf.multiply(x, 2.0, name="y")
        c = y
        for i in range(CHAIN):
            c = tf.add(c, 1.0, name=f"c{i}")
        if gate == "identity":
            out = tf.identity(y, name="gate")
        elif gate == "tuple":  # a gradient's gate: group_deps (NoOp) + Identity with a control input
            out = tf.tuple([y])[0]
        else:
            out = y
    return g, out, c


@pytest.mark.parametrize("gate", ["none", "identity", "tuple"])
def test_a_value_for_another_task_is_sent_when_it_is_computed(gate):
    g, out, last = _gated_send(gate)
    ops = [op for op in g.get_operations()]
    graph = _under_test.DataflowGraph(ops, {}, [("key", out, [])])
    trace, sent = [], []

    def publish(key, value, is_dead):
        sent.append((key, np.array(value), len(trace), is_dead))

    env = _under_test.run(graph, {}, RunState(), {}, None, publish, trace, "test", keep=[last])
    ((key, value, ran_before, dead),) = sent
    assert key == "key" and not dead
    np.testing.assert_array_equal(value, np.arange(4, dtype=np.float32) * 2)
    chain_ops = {f"c{i}" for i in range(CHAIN)}
    assert not chain_ops & {op.name for op, *_ in trace[:ran_before]}, "the send waited for the chain"
    np.testing.assert_array_equal(env[last], np.arange(4, dtype=np.float32) * 2 + CHAIN)
    assert set(env) == {last}  # every other value was let go after its last consumer
