"""TF's ``control_flow_util`` predicates on TF 1.x cond/while graphs, and the
check that an op reads no tensor of a while loop it is not in. Oracle:
TensorFlow itself, on the same snippet (every predicate of every op by name;
the ValueError's message)."""
import pytest

import ref as rtf
from ref.graph_ops import control_flow_util as _under_test
from tests.graph_ops._graphdef import tf1_behaviour

PREDICATES = ("IsSwitch", "IsMerge", "IsLoopEnter", "IsLoopExit", "IsCondSwitch", "IsCondMerge", "IsLoopSwitch",
              "IsLoopMerge", "IsInWhileLoop", "IsInCond")


def _nested(tf):
    """TF's control_flow_util_test graph: a cond around a while around a cond."""
    x = tf.placeholder(tf.int32)

    def loop(x):
        def body(v):
            with tf.name_scope("NestedCond"):
                return tf.cond(tf.less(v, 100), lambda: tf.add(v, 1), lambda: tf.add(v, 2))
        with tf.name_scope("OuterWhile"):
            return tf.while_loop(lambda v: tf.less(v, 10000), body, [x])

    with tf.name_scope("OuterCond"):
        tf.cond(tf.less(x, 1000), lambda: loop(x), lambda: tf.add(x, 2))


def _constant_enter(tf):
    c = tf.constant(3.0)
    tf.while_loop(lambda i: i < 5.0, lambda i: i + c, [tf.constant(0.0)])


def _two_var_loop_with_cond(tf):
    def body(i, a):
        return i + 1, tf.cond(i > 2, lambda: a * 2.0, lambda: a)
    tf.while_loop(lambda i, a: i < 4, body, [tf.constant(0), tf.constant(1.0)])


def _gradient_of_loop(tf):
    x = tf.constant(2.0)
    y = tf.while_loop(lambda v: v < 10.0, lambda v: v * x, [x])
    tf.gradients(y, x)


GRAPHS = {
    "nested cond/while/cond": _nested,
    "loop invariant": _constant_enter,
    "cond in loop body": _two_var_loop_with_cond,
    "gradient loop": _gradient_of_loop,
}


def _predicates(tf, util, build):
    g = tf.Graph()
    with g.as_default():
        build(tf)
    return {op.name: tuple(bool(getattr(util, p)(op)) for p in PREDICATES) for op in g.get_operations()}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_predicates_as_tf(name):
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf
    from tensorflow.python.ops import control_flow_util as tf_util
    with tf1_behaviour():
        want = _predicates(tf, tf_util, GRAPHS[name])
    got = _predicates(rtf, _under_test, GRAPHS[name])
    assert got == want


def _while_tensor(tf):
    kept = []

    def body(i):
        if not kept:
            kept.append(tf.constant(1))
        return i + kept[0]
    tf.while_loop(lambda i: i < 10, body, [0])
    return kept[0]


def _outside_loop(tf):
    tf.add(1, _while_tensor(tf))


def _in_cond(tf):
    t = _while_tensor(tf)
    tf.cond(tf.less(1, 2), lambda: tf.add(1, t), lambda: tf.constant(0))


def _in_other_loop(tf):
    t = _while_tensor(tf)
    tf.while_loop(lambda i: i < 10, lambda i: tf.add(1, t), [0])


def _as_other_loop_result(tf):
    t = _while_tensor(tf)
    tf.while_loop(lambda i: i < 10, lambda i: t, [0])


def _nested_loop_reads_outer(tf):  # valid: an inner loop reads its outer loop's tensor
    def body(_):
        c = tf.constant(1)
        return tf.while_loop(lambda i: i < 3, lambda i: i + c, [0])
    tf.while_loop(lambda i: i < 5, body, [0])


def _cond_tensor_outside(tf):  # valid (the branch may not be taken at run time)
    kept = []

    def true_fn():
        kept.append(tf.constant(1))
        return kept[0]
    tf.cond(tf.less(1, 2), true_fn, lambda: tf.constant(0))
    tf.add(1, kept[0])


CHECKS = {
    "op outside the loop": _outside_loop,
    "op in a cond": _in_cond,
    "op in another loop": _in_other_loop,
    "NextIteration of another loop": _as_other_loop_result,
    "inner loop reads outer loop": _nested_loop_reads_outer,
    "cond tensor read outside": _cond_tensor_outside,
}


def _outcome(tf, build):
    with tf.Graph().as_default():
        try:
            build(tf)
        except ValueError as e:
            return str(e)
    return None


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_input_context_check_as_tf(name):
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf
    with tf1_behaviour():
        want = _outcome(tf, CHECKS[name])
    assert _outcome(rtf, CHECKS[name]) == want


def test_enable_control_flow_v2_is_the_mode():
    """``ENABLE_CONTROL_FLOW_V2`` follows ``tf.enable_control_flow_v2()``/``disable_control_flow_v2()``."""
    assert _under_test.ENABLE_CONTROL_FLOW_V2 is False
    rtf.enable_control_flow_v2()
    try:
        assert _under_test.ENABLE_CONTROL_FLOW_V2 is True
    finally:
        rtf.disable_control_flow_v2()
    assert _under_test.ENABLE_CONTROL_FLOW_V2 is False
