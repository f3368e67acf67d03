"""``TemporaryVariable`` / ``DestroyTemporaryVariable`` (ref.ops.state): a
variable that lives for one ``Session.run`` in the run's step container
(``__per_step_<id>``), named ``var_name`` or the op's name. TensorFlow's
``tf.raw_ops`` in a v1 Session is the oracle: values, error kinds, messages
(the step id aside) and what a second run sees."""
import re

import numpy as np
import pytest

import ref
from ref.ops import state as _under_test  # noqa: F401
from ref.framework.op_def_library import apply_op
from tests.graph_ops._graphdef import tf1_behaviour


def _assign_then_destroy(lib, tv, dv):
    v = tv([1, 2], lib.float32, "foo")
    v = lib.assign(v, [[4.0, 5.0]])
    v = lib.assign_add(v, [[6.0, 7.0]])
    return [dv(v, "foo")]


def _destroy_other_name(lib, tv, dv):
    return [dv(tv([1, 2], lib.float32, ""), "bad")]


def _duplicate(lib, tv, dv):
    a = lib.assign(tv([1, 2], lib.float32, "dup"), [[1.0, 2.0]])
    b = lib.assign(tv([1, 2], lib.float32, "dup"), [[3.0, 4.0]])
    return [a + b]


def _destroy_twice(lib, tv, dv):
    v = lib.assign(tv([2], lib.int32, "t"), [1, 2])
    return [dv(v, "t") + dv(v, "t")]


def _not_destroyed(lib, tv, dv):  # left in the step container: gone when the step ends
    v = lib.assign(tv([3], lib.float64, "keep"), [1.0, 2.0, 3.0])
    return [v + 1.0]


def _two_names(lib, tv, dv):
    a = lib.assign(tv([2], lib.float32, "var1"), [1.0, 2.0])
    b = lib.assign(tv([2], lib.float32, "var2"), [3.0, 5.0])
    return [dv(a, "var1") * dv(b, "var2")]


def _op_name(lib, tv, dv):  # no var_name: the op's own name
    v = lib.assign(tv([1], lib.int64, ""), [7])
    return [dv(v, v.op.inputs[0].op.name)]


ROWS = [_assign_then_destroy, _destroy_other_name, _duplicate, _destroy_twice, _not_destroyed, _two_names,
        _op_name]


def _run(lib, tv, dv, build):
    with lib.Graph().as_default():
        fetches = build(lib, tv, dv)
        static = [(f.dtype.name, f.shape.as_list()) for f in fetches]
        out = []
        with lib.Session() as sess:
            for _ in range(2):  # a second run gets a new step container
                try:
                    out.append(("value", sess.run(fetches)))
                except lib.errors.OpError as e:
                    line = next(x for x in e.message.splitlines() if x.startswith("Resource"))  # TF's has a preamble
                    message = re.sub(r"__per_step_\d+", "__per_step_N", line)
                    out.append((type(e).__name__, message))
        return static, out


@pytest.mark.parametrize("build", ROWS, ids=lambda f: f.__name__)
def test_temporary_variable_as_tf(build):
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    with tf1_behaviour():
        want = _run(v1, lambda s, d, n: tf.raw_ops.TemporaryVariable(shape=s, dtype=d, var_name=n),
                    lambda r, n: tf.raw_ops.DestroyTemporaryVariable(ref=r, var_name=n), build)
    got = _run(ref, lambda s, d, n: apply_op("TemporaryVariable", shape=s, dtype=d, var_name=n),
               lambda r, n: apply_op("DestroyTemporaryVariable", ref=r, var_name=n), build)
    assert got[0] == want[0]
    for (gk, gv), (wk, wv) in zip(got[1], want[1]):
        assert gk == wk
        if gk == "value":
            for g, w in zip(gv, wv):
                np.testing.assert_array_equal(g, w)
                assert g.dtype == w.dtype
        else:
            assert gv == wv


def test_outside_a_run_there_is_no_step_container():
    with pytest.raises(ref.errors.InternalError, match="No per-step resource manager"):
        ref.raw_ops.TemporaryVariable(shape=[1], dtype=ref.float32)
