"""The default-graph stack as TF's ``DefaultStack``: leaving ``as_default()`` out of order raises
AssertionError and pops nothing, leaving after a reset does nothing; an InteractiveSession enters its
graph only when given one, and a late close pops no other graph (TF's session_test ran
``testOutputPartitionGraphsDistributed`` into an empty stack after ``testInteractiveSessionNesting``)."""
import gc
import threading

import pytest

import ref
from ref.framework import graph as _under_test  # noqa: F401


def _out_of_order(tf):
    g1, g2 = tf.Graph(), tf.Graph()
    c1, c2 = g1.as_default(), g2.as_default()
    c1.__enter__()
    c2.__enter__()
    out = []
    for ctx, after in ((c1, g2), (c2, g1)):
        try:
            ctx.__exit__(None, None, None)
            out.append("ok")
        except AssertionError:
            out.append("AssertionError")
        out.append(tf.get_default_graph() is after)
    return out  # (g1's entry stays: its context already ended, with the error)


def _interactive_default_graph(tf):
    g = tf.Graph()
    out = []
    with g.as_default():
        s1 = tf.InteractiveSession()  # no graph given: the default graph, not entered again
        out.append(s1.graph is g)
        s1.close()
        out.append(tf.get_default_graph() is g)
    return out


def _interactive_deleted_late(tf):
    s1, s2 = tf.InteractiveSession(), tf.InteractiveSession()
    del s1, s2
    gc.collect()
    g = tf.Graph()
    with g.as_default():
        inner = tf.get_default_graph() is g
    return [inner]


def _interactive_explicit_graph(tf):
    g = tf.Graph()
    s = tf.InteractiveSession(graph=g)
    out = [tf.get_default_graph() is g, s.graph is g]
    s.close()
    out.append(tf.get_default_graph() is g)
    return out


CASES = [_out_of_order, _interactive_default_graph, _interactive_deleted_late, _interactive_explicit_graph]


def _in_thread(case, tf):
    """``case(tf)`` on a thread of its own (the graph stacks are per thread: what it leaves dies with it)."""
    out = {}

    def body():
        try:
            with tf.Graph().as_default():
                out["value"] = case(tf)
        except AssertionError:  # the outer graph's exit, behind an entry the case left
            out.setdefault("value", None)

    t = threading.Thread(target=body)
    t.start()
    t.join(60)
    return out.get("value")


@pytest.mark.parametrize("case", CASES, ids=[c.__name__.strip("_") for c in CASES])
def test_default_graph_stack_as_tf(case):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _in_thread(case, tf)
    assert want is not None
    assert _in_thread(case, ref) == want
