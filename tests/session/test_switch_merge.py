"""Switch and Merge (TF 1.x dataflow control flow, in imported GraphDefs): the
untaken branch is dead and does not run; Merge forwards the live input. Checked
against TensorFlow, through both evaluators."""
import numpy as np
import pytest

import ref as rtf
from ref.framework.op_def_library import apply_op
from ref.ops import control
from ref.session import interpreter


def _ref_raw(name):
    return lambda **kw: apply_op(name, **kw)


def _cond_graph(lib, raw):
    """out = Merge(Switch(x, p)[0] * 2, Switch(x, p)[1] + 10); a variable is
    read and assigned on the true branch only."""
    x = lib.placeholder(lib.float32, [None], name="x")
    p = lib.placeholder(lib.bool, [], name="p")
    v = lib.Variable(np.float32(1.0), name="v", use_resource=False)
    f, t = raw("Switch")(data=x, pred=p)
    on_false = f * 2.0
    on_true = t + 10.0 + raw("Assign")(ref=v._ref() if hasattr(v, "_ref") else v, value=v + 1.0)
    out, idx = raw("Merge")(inputs=[on_false, on_true])
    return x, p, v, f, t, out, idx


@pytest.fixture(params=["execute", "evaluate"])
def evaluator(request, monkeypatch):
    from ref.session import session as session_mod

    monkeypatch.setattr(session_mod, "_REFERENCE_EVALUATOR", request.param == "evaluate")
    return request.param


CASES = [(True, [1.0, -2.0]), (False, [1.0, -2.0]), (True, []), (False, [3.5])]


def _run(lib, raw, pred, xs):
    with lib.Graph().as_default(), lib.Session() as s:
        x, p, v, f, t, out, idx = _cond_graph(lib, raw)
        s.run(v.initializer)
        feed = {x: np.float32(xs), p: pred}
        res = s.run([out, idx], feed)
        live = f if not pred else t
        dead = t if not pred else f
        live_value = s.run(live, feed)
        with pytest.raises(lib.errors.InvalidArgumentError, match="Retval\\[0\\] does not have value"):
            s.run(dead, feed)
        return res + [live_value, s.run(v)]


@pytest.mark.parametrize("pred,xs", CASES)
def test_switch_merge_match_tensorflow(evaluator, pred, xs):
    tf = pytest.importorskip("tensorflow")
    want = _run(tf.compat.v1, lambda n: getattr(tf.raw_ops, n), pred, xs)
    got = _run(rtf, _ref_raw, pred, xs)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
        assert np.asarray(g).dtype == np.asarray(w).dtype


def test_dead_branch_reads_no_uninitialized_variable(evaluator):
    """An op on the untaken branch does not run, so it may read a variable nobody initialized."""
    with rtf.Graph().as_default(), rtf.Session() as s:
        v = rtf.Variable(np.float32(5.0), name="never_initialized")
        p = rtf.placeholder(rtf.bool, [])
        f, t = apply_op("Switch", data=rtf.constant(2.0), pred=p)
        out, idx = apply_op("Merge", inputs=[f, t * v])
        assert s.run([out, idx], {p: False}) == [2.0, 0]
        with pytest.raises(rtf.errors.FailedPreconditionError):
            s.run(out, {p: True})


def test_switch_shape_and_kernel():
    with rtf.Graph().as_default():
        f, t = apply_op("Switch", data=rtf.zeros([2, 3]), pred=rtf.constant(True))
        assert f.shape.as_list() == t.shape.as_list() == [2, 3]
        out, idx = apply_op("Merge", inputs=[f, rtf.zeros([2, 4])])
        assert out.shape.as_list() == [2, None] and idx.dtype == rtf.int32
        with pytest.raises(ValueError, match="rank 0"):
            apply_op("Switch", data=rtf.zeros([2]), pred=rtf.constant([True]))
    data = np.arange(3.0, dtype=np.float32)
    f, t = rtf.raw_ops.Switch(data=data, pred=np.bool_(True))
    assert f is interpreter.DEAD and t is data
    assert control.merge([interpreter.DEAD, data])[1] == 1
    assert control.merge([interpreter.DEAD, interpreter.DEAD]) == (interpreter.DEAD, interpreter.DEAD)
    out, idx = rtf.raw_ops.Merge(inputs=[data, data + 1])
    assert out is data and idx == 0 and idx.dtype == np.int32
