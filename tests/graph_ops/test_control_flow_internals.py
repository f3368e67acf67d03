"""TF 1.x control-flow building blocks under TF's internal names
(``_Identity``, ``_Enter``, ``exit``, ``_NextIteration``, ``switch``/``merge``
results) on references and composite tensors, and runs of graphs built from
them. Oracle: TensorFlow itself (the ops built: type, dtype; the fetched
values)."""
import numpy as np
import pytest

import ref as rtf
from ref.framework.op_def_library import apply_op
from ref.graph_ops import control_flow_v1 as _under_test
from ref.graph_ops import while_v1
from tests.graph_ops._graphdef import tf1_behaviour


def _internals(lib):
    """TF's private names and ref's public ones for the same builders."""
    if lib is rtf:
        return dict(identity=_under_test.identity_or_ref, enter=while_v1.enter_frame, exit=while_v1.exit_,
                    next_iteration=while_v1.next_iteration, switch=_under_test.switch,
                    switch_ref=_under_test.switch_ref_or_tensor, merge=_under_test.merge,
                    variable_v2=lambda **kw: apply_op("VariableV2", **kw))
    from tensorflow.python.ops import control_flow_ops as c, gen_state_ops
    return dict(variable_v2=gen_state_ops.variable_v2, identity=c._Identity, enter=c._Enter, exit=c.exit, next_iteration=c._NextIteration,
                switch=c.switch, switch_ref=c._SwitchRefOrTensor, merge=c.merge)


def _ref_identity(tf, f):
    return f["identity"](tf.Variable(7))


def _ref_enter(tf, f):
    return f["enter"](tf.Variable(7), "foo_1", is_constant=True)


def _enter_no_ref(tf, f):
    return f["enter"](tf.Variable(7), "foo_1", use_ref=False)


def _sparse_identity(tf, f):
    return f["identity"](tf.SparseTensor([[0, 5]], ["x"], [10, 10]))


def _sparse_enter_exit(tf, f):
    return f["exit"](f["enter"](tf.SparseTensor([[0, 5]], ["x"], [10, 10]), "foo_1"))


def _sparse_next_iteration(tf, f):
    return f["next_iteration"](tf.SparseTensor([[0, 5]], [1.0], [10, 10]))


def _indexed_slices_identity(tf, f):
    return f["identity"](tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([2]), tf.constant([4, 1])))


def _switch_ref(tf, f):
    return f["switch_ref"](tf.Variable(7)._ref(), tf.constant(True))


BUILDS = {
    "_Identity of a variable": _ref_identity,
    "_Enter of a variable": _ref_enter,
    "_Enter use_ref=False": _enter_no_ref,
    "_Identity of a SparseTensor": _sparse_identity,
    "_Enter/exit of a SparseTensor": _sparse_enter_exit,
    "_NextIteration of a SparseTensor": _sparse_next_iteration,
    "_Identity of IndexedSlices": _indexed_slices_identity,
    "_SwitchRefOrTensor of a reference": _switch_ref,
}


def _ops_built(lib, build):
    g = lib.Graph()
    with g.as_default():
        before = len(g.get_operations())
        out = build(lib, _internals(lib))
        kinds = type(out).__name__.replace("SymbolicTensor", "Tensor")
        ops = [(op.name, op.type, tuple(t.dtype.name for t in op.outputs)) for op in g.get_operations()[before:]]
    return kinds, ops


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_builds_as_tf(name):
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf
    with tf1_behaviour():
        want = _ops_built(tf, BUILDS[name])
    assert _ops_built(rtf, BUILDS[name]) == want


def _switch_merge_fields(tf, f):
    out_f, out_t = f["switch"](tf.constant(1.0), tf.constant(True))
    s = f["switch"](tf.constant(1.0), tf.constant(True))
    m = f["merge"]([out_f, out_t])
    return s._fields, m._fields, m.output.op.type, m.value_index.dtype.name


def test_switch_and_merge_results_are_named_as_tf():
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf
    with tf1_behaviour(), tf.Graph().as_default():
        want = _switch_merge_fields(tf, _internals(tf))
    with rtf.Graph().as_default():
        assert _switch_merge_fields(rtf, _internals(rtf)) == want


# -- runs -----------------------------------------------------------------------------

def _run_assign_through_ref_identity(tf, f):
    v = f["identity"](tf.Variable(7))
    op = tf.assign(v, 9)
    out = tf.tuple([v], control_inputs=[op])[0]
    return out, {}, [tf.global_variables_initializer()]


def _run_uninitialized_ref_identity(tf, f):
    v = f["variable_v2"](shape=[1], dtype=tf.float32, name="v")
    v_f, v_t = f["switch_ref"](v, tf.is_variable_initialized(v))
    v_f_op = f["identity"](v_f)
    v_t_op = f["identity"](v_t)
    with tf.control_dependencies([v_f_op]):
        assign_v = tf.assign(v, [1.0])
    with tf.control_dependencies([v_t_op]):
        orig_v = tf.identity(v)
    return f["merge"]([assign_v, orig_v]).output, {}, []


def _run_loop_after_fed_placeholder(tf, f):
    b = tf.placeholder(tf.bool)
    c = tf.constant(1)
    with tf.control_dependencies([b]):
        r = tf.while_loop(lambda x: x < 10, lambda x: x + c, [tf.constant(0)])
    return r, {b: True}, []


def _run_enter_assign_exit(tf, f):
    v = tf.Variable(7)
    enter_v = f["enter"](v, "foo_1", is_constant=True)
    enter_nine = f["enter"](tf.constant(9), "foo_1")
    op = tf.assign(enter_v, enter_nine)
    return f["exit"](tf.tuple([enter_v], control_inputs=[op])[0]), {}, [tf.global_variables_initializer()]


def _run_loop_over_a_reference(tf, f):
    x = tf.Variable(5)._ref()
    r = tf.while_loop(lambda i, x: tf.less(i, 10), lambda i, x: (i + 1, x), [tf.constant(0), x])
    assert r[1].dtype == x.dtype  # the reference is carried through the loop (RefEnter/RefMerge/RefSwitch)
    return r[1], {}, [tf.global_variables_initializer()]


RUNS = {
    "loop carrying a reference": _run_loop_over_a_reference,
    "assign through RefIdentity": _run_assign_through_ref_identity,
    "uninitialized reference through RefSwitch/RefIdentity": _run_uninitialized_ref_identity,
    "loop with a control input on a fed placeholder": _run_loop_after_fed_placeholder,
    "assign to a RefEnter, then Exit": _run_enter_assign_exit,
}


def _value(lib, build):
    with lib.Graph().as_default():
        fetch, feeds, init = build(lib, _internals(lib))
        with lib.Session() as sess:
            for op in init:
                sess.run(op)
            return np.asarray(sess.run(fetch, feeds))


@pytest.mark.parametrize("name", sorted(RUNS))
def test_runs_as_tf(name):
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf
    with tf1_behaviour():
        want = _value(tf, RUNS[name])
    got = _value(rtf, RUNS[name])
    assert got.dtype == want.dtype and np.array_equal(got, want)
