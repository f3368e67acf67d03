"""``execute_fn_for_device`` (ref.graph_ops.switch_case_ops) and its
``DeviceIndex`` op: the branch for the type of the device the op runs on
(CPU here), else the default; the gradient flows through the branch taken.
``tf.raw_ops.DeviceIndex`` in a v1 Session is the oracle for the op; for
``execute_fn_for_device`` the rule TF documents (TF's own graph of it crashes
a v1 Session: its Case op is not lowered there), worked out per row."""
import pytest

import ref
from ref.graph_ops import switch_case_ops as _under_test  # noqa: F401
from ref.framework.op_def_library import apply_op
from tests.graph_ops._graphdef import tf1_behaviour

ROWS = [  # (device types with a branch (branch k: x * (k + 2)), device scope)
    (["CPU", "GPU"], None),
    (["gpu", "cpu"], "/cpu:0"),
    (["TPU"], "/cpu:0"),
    (["TPU", "GPU"], None),
    (["CPU"], "/device:CPU:0"),
]


def _run(lib, execute_fn_for_device, kinds, device):
    with lib.Graph().as_default():
        x = lib.constant(3.0)

        def build():
            branches = {k: (lambda k=i: x * float(k + 2)) for i, k in enumerate(kinds)}
            return execute_fn_for_device(branches, lambda: x + 100.0)

        if device:
            with lib.device(device):
                y = build()
        else:
            y = build()
        g = lib.gradients(y, x)[0]
        with lib.Session() as sess:
            return [float(v) for v in sess.run([y, g])]


@pytest.mark.parametrize("kinds,device", ROWS)
def test_execute_fn_for_device_picks_the_cpu_branch(kinds, device):
    upper = [k.upper() for k in kinds]
    k = upper.index("CPU") if "CPU" in upper else None
    want = [3.0 * (k + 2), float(k + 2)] if k is not None else [103.0, 1.0]
    assert _run(ref, _under_test.execute_fn_for_device, kinds, device) == want


def test_execute_fn_for_device_under_xla_is_the_default():
    from ref.graph_ops.control_flow_v1 import XLAControlFlowContext
    with ref.Graph().as_default() as g:
        ctx = XLAControlFlowContext()
        ctx.Enter()
        y = _under_test.execute_fn_for_device({"CPU": lambda: ref.constant(1)}, lambda: ref.constant(2))
        ctx.Exit()
        assert not [op for op in g.get_operations() if op.type == "DeviceIndex"]
        assert ref.Session().run(y) == 2


@pytest.mark.parametrize("names", [["CPU"], ["GPU", "CPU"], ["TPU"], []])
def test_device_index_as_tf(names):
    tf = pytest.importorskip("tensorflow")
    with tf1_behaviour(), tf.Graph().as_default():
        op = tf.raw_ops.DeviceIndex(device_names=names)
        want = (op.dtype.name, op.shape.as_list(), int(tf.compat.v1.Session().run(op)))
    with ref.Graph().as_default():
        op = apply_op("DeviceIndex", device_names=names)
        got = (op.dtype.name, op.shape.as_list(), int(ref.Session().run(op)))
    assert got == want
