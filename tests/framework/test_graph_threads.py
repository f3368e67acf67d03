"""Graph mutation and export from several threads: rewiring an op (``_update_input``, control inputs)
and ``as_graph_def`` take the graph's lock, so a GraphDef taken while another thread builds a while
loop and its gradient never names an op it does not hold (TF's session_test
``testParallelRunAndParallelBuild``)."""
import threading

import pytest

import ref
from ref.framework import graph as _under_test  # noqa: F401

HOLD = 0.15


def _loop_graph():
    g = ref.Graph()
    with g.as_default():
        x = ref.placeholder(ref.float32)
        y = ref.placeholder(ref.float32)
        z = ref.while_loop(lambda a, b: a < 10, lambda a, b: (a + 1, a * b), [x, y])
        ref.gradients(z, [x, y])
        c = ref.identity(ref.constant(1.0))
    return g, x, c


MUTATIONS = {
    "update_input": lambda g, x, c: c.op._update_input(0, x),
    "add_control_input": lambda g, x, c: c.op._add_control_input(x.op),
    "remove_control_inputs": lambda g, x, c: c.op._remove_all_control_inputs(),
    "as_graph_def": lambda g, x, c: g.as_graph_def(),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_waits_for_the_graph_lock(name):
    g, x, c = _loop_graph()
    done = threading.Event()

    def work():
        MUTATIONS[name](g, x, c)
        done.set()

    with g._lock:
        t = threading.Thread(target=work, daemon=True)
        t.start()
        assert not done.wait(HOLD), "ran while another thread held the graph's lock"
    t.join(5.0)
    assert done.is_set()


def test_graph_defs_taken_while_building_import():
    """One thread builds loops and gradients; the other imports each GraphDef it takes meanwhile."""
    g = ref.Graph()
    stop = threading.Event()
    failures = []

    def build():
        with g.as_default():
            for _ in range(6):
                x = ref.placeholder(ref.float32)
                y = ref.placeholder(ref.float32)
                z = ref.while_loop(lambda a, b: a < 10, lambda a, b: (a + 1, a * b), [x, y])
                ref.gradients(z, [x, y])
        stop.set()

    t = threading.Thread(target=build, daemon=True)
    t.start()
    while not stop.is_set():
        gd = g.as_graph_def()
        try:
            with ref.Graph().as_default():
                ref.import_graph_def(gd, name="")
        except ValueError as e:
            failures.append(str(e))
    t.join(60)
    assert failures == []
