"""``XLAControlFlowContext`` (ref.graph_ops.control_flow_v1): TF1 while loops
built inside it differentiate with fixed-size gradient accumulators (the
product of the enclosing loops' ``maximum_iterations``; TF's ValueErrors when
a loop has none or one not known where ``gradients()`` is called), and their
gradient loops keep Shape ops in place (``BroadcastGradientArgs`` reads the
``Shape`` ops themselves). Under control flow v2 a ``maximum_iterations``
made in a sibling branch graph is TF's "must be from the same graph"
ValueError. TensorFlow on the same programs is the oracle."""
import pytest

import ref
from ref.graph_ops import control_flow_v1 as _under_test  # noqa: F401
from tests.graph_ops._graphdef import tf1_behaviour


def _modules(lib):
    if lib is ref:
        from ref.graph_ops import control_flow_v1, control_flow_util
        return control_flow_v1, control_flow_util
    from tensorflow.python.ops import control_flow_ops, control_flow_util
    return control_flow_ops, control_flow_util


def _in_xla(lib, build):
    cfo, _ = _modules(lib)
    ctx = cfo.XLAControlFlowContext()
    ctx.Enter()
    try:
        return build()
    finally:
        ctx.Exit()


def _no_maximum_iterations(lib):
    v = lib.constant(1.0)
    loop = _in_xla(lib, lambda: lib.while_loop(lambda i, _: i < 3, lambda i, x: [i + 1, x * v], [0, 1.0]))
    return lib.gradients(loop, v)


def _nested_dynamic_maximum_iterations(lib):
    v = lib.constant(1.0)

    def inner_body(i, x):
        return lib.while_loop(lambda i, _: i < 3, lambda i, j: [i + 1, j * v], [0, x], maximum_iterations=i)

    loop = _in_xla(lib, lambda: lib.while_loop(lambda i, _: i < 3, inner_body, [0, 1.0], maximum_iterations=2))
    return lib.gradients(loop, v)


def _sibling_cond_maximum_iterations(lib):
    v = lib.constant(1.0)
    holder = []

    def build():
        def make():
            holder.append(lib.placeholder(lib.int32, shape=()))
            return 1.0
        lib.cond(lib.constant(True), make, make)
        return lib.while_loop(lambda i, _: i < 3, lambda i, x: (i + 1, v * x), (0, 1.0),
                              maximum_iterations=holder[0])

    loop = _in_xla(lib, build)
    return lib.gradients(loop, v)


def _nested_known_maximum_iterations(lib):
    v = lib.constant(1.5)

    def inner_body(i, x):
        return lib.while_loop(lambda i, _: i < 3, lambda i, j: [i + 1, j * v], [0, x], maximum_iterations=2)

    loop = _in_xla(lib, lambda: lib.while_loop(lambda i, _: i < 4, inner_body, [0, 1.0], maximum_iterations=3))
    lib.gradients(loop[1], v)
    return []  # built, not run (TF marks the nested gradient's accumulators unfetchable)


def _known_maximum_iterations(lib):
    v = lib.constant(1.5)
    loop = _in_xla(lib, lambda: lib.while_loop(lambda i, _: i < 4, lambda i, x: [i + 1, x * v], [0, 2.0],
                                               maximum_iterations=3))
    return lib.gradients(loop[1], v)


ROWS = [_no_maximum_iterations, _nested_dynamic_maximum_iterations, _sibling_cond_maximum_iterations,
        _nested_known_maximum_iterations, _known_maximum_iterations]


def _outcome(lib, build):
    with lib.Graph().as_default() as g:
        try:
            grads = build(lib)
        except ValueError as e:
            return "ValueError", str(e)
        sizes = sorted(str(lib.get_static_value(op.inputs[0])) for op in g.get_operations()
                       if op.type == "StackV2")
        # (TF keeps an XLA loop's gradient of an outer tensor inside the loop: unfetchable; compare names)
        return "ok", [(t.op.type, t.name) for t in grads], sizes


@pytest.mark.parametrize("build", ROWS, ids=lambda f: f.__name__)
def test_xla_while_gradient_as_tf(build):
    tf = pytest.importorskip("tensorflow")
    with tf1_behaviour():
        want = _outcome(tf.compat.v1, build)
    got = _outcome(ref, build)
    assert got == want


def test_xla_gradient_keeps_shape_ops_in_the_gradient_loop():
    with ref.Graph().as_default() as g:
        a = ref.placeholder(ref.float32, [None, None])
        b = ref.placeholder(ref.float32, [None, None])
        out, _ = _in_xla(ref, lambda: ref.while_loop(lambda x, y: False, lambda x, y: (x + y, x + y), (a, b),
                                                     maximum_iterations=2))
        ref.gradients(out, [a])
        args = [op for op in g.get_operations() if op.type == "BroadcastGradientArgs"]
        assert args and all(t.op.type == "Shape" for op in args for t in op.inputs)


def test_v2_maximum_iterations_from_a_sibling_branch():
    tf = pytest.importorskip("tensorflow")
    messages = []
    with tf1_behaviour(), tf.Graph().as_default():
        _modules(tf)[1].ENABLE_CONTROL_FLOW_V2 = True  # tf1_behaviour restores it
        with pytest.raises(ValueError, match="must be from the same graph") as e:
            _sibling_cond_maximum_iterations(tf.compat.v1)
        messages.append(str(e.value))
    ref.compat.v1.enable_control_flow_v2()  # tests/conftest.py restores the mode
    with ref.Graph().as_default():
        with pytest.raises(ValueError, match="must be from the same graph") as e:
            _sibling_cond_maximum_iterations(ref)
        messages.append(str(e.value))
    # the same offending tensor named first
    assert [m.split(" must ")[0] for m in messages][0] == [m.split(" must ")[0] for m in messages][1]
