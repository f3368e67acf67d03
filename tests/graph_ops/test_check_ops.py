"""``tf.Assert`` (the ``Assert`` kernel and its message) and
``tf.confusion_matrix``, against TensorFlow and hand-counted expectations."""
from __future__ import annotations

import numpy as np
import pytest

import ref as tf
import ref.raw_ops as raw
from ref.graph_ops import check_ops as _under_test  # noqa: F401  (the module these tests cover)

# (data, summarize, the message TF prints)
DATA = [
    ([b"weights can not be broadcast."], 3, "[weights can not be broadcast.]"),
    ([np.array([3, 2, 4], np.int32)], 3, "[3 2 4]"),
    ([np.bool_(False), np.int64(7)], 3, "[0] [7]"),
    ([np.arange(10, dtype=np.float32)], 3, "[0 1 2...]"),
    ([np.array([[0.5, 1.25]], np.float32)], 3, "[[0.5 1.25]]"),
    ([np.array([], np.int32)], 3, "[]"),
    ([np.arange(6).reshape(2, 3)], 3, "[[0 1 2]...]"),
    ([np.arange(6).reshape(2, 3)], 4, "[[0 1 2][3...]...]"),
    ([np.arange(6).reshape(2, 3)], -1, "[[0 1 2][3 4 5]]"),
    ([np.arange(8).reshape(2, 2, 2)], 5, "[[[0 1][2 3]][[4...]]...]"),
    ([np.arange(4).reshape(2, 2, 1)], 10, "[[[0][1]][[2][3]]]"),
    ([np.array([b"a", b"b"])], 3, "[a b]"),
    ([np.array([1e-7, 123456789.0], np.float32), np.array([1 / 3])], 3, "[1e-07 123456792] [0.33333333333333331]"),
]


@pytest.mark.parametrize("data,summarize,shown", DATA, ids=[s for _, _, s in DATA])
def test_assert_kernel_message(data, summarize, shown):
    args = [np.asarray(d) for d in data]
    assert raw.Assert(condition=np.bool_(True), data=args, summarize=summarize) == ()
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        raw.Assert(condition=np.bool_(False), data=args, summarize=summarize)
    assert e.value.message == "assertion failed: " + shown
    t = pytest.importorskip("tensorflow")
    with pytest.raises(t.errors.InvalidArgumentError) as e:
        t.raw_ops.Assert(condition=False, data=[t.constant(d) for d in data], summarize=summarize)
    assert f"assertion failed: {shown} [Op:Assert]" in e.value.message


def test_assert_op_in_a_graph():
    with tf.Graph().as_default(), tf.Session() as s:
        x = tf.placeholder(tf.float32, [None])
        check = tf.Assert(tf.reduce_all(x > 0), ["x must be positive:", x], summarize=2, name="positive")
        # float data: TF 1.x (and ref) guard the Assert with a cond named AssertGuard; the op is its Merge
        assert check.name == "positive/AssertGuard/Merge"
        with tf.control_dependencies([check]):
            y = tf.identity(x)
        assert s.run(y, {x: [1.0, 2.0]}).tolist() == [1.0, 2.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[x must be positive:\] "
                                                                  r"\[1 -2\.\.\.\]"):
            s.run(y, {x: [1.0, -2.0, 3.0]})


CM_CASES = [
    (dict(labels=[1, 2, 4], predictions=[2, 2, 4]), None),
    (dict(labels=[0, 1, 1, 2], predictions=[0, 2, 1, 2], num_classes=4), None),
    (dict(labels=[[0], [1], [2]], predictions=[0, 0, 2], weights=[0.5, 1.0, 2.0], dtype="float32"), None),
    (dict(labels=[0, 1], predictions=[0, 3], num_classes=3), r"`predictions` out of bound"),
    (dict(labels=[-1, 1], predictions=[0, 1]), r"`labels` contains negative values"),
]


def _cm(T, case):
    case = dict(case)
    if "dtype" in case:
        case["dtype"] = getattr(T, case["dtype"])
    with T.Graph().as_default(), T.Session() as s:
        return s.run(T.confusion_matrix(**case))


@pytest.mark.parametrize("case,error", CM_CASES)
def test_confusion_matrix(case, error):
    if error:
        with pytest.raises(tf.errors.InvalidArgumentError, match=error):
            _cm(tf, case)
        return
    ours = _cm(tf, case)
    labels = np.ravel(case["labels"])
    expected = np.zeros((ours.shape[0],) * 2)
    for i, (a, b) in enumerate(zip(labels, case["predictions"])):
        expected[a, b] += case.get("weights", [1] * len(labels))[i]
    np.testing.assert_array_equal(ours, expected)
    t = pytest.importorskip("tensorflow").compat.v1
    theirs = _cm(t, case)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


# (data builders, summarize, name): compat.v1 wraps the Assert in a cond named
# "AssertGuard" unless every data tensor is int32 or string.
GUARD_CASES = [
    (lambda T, x: ["x:", x], 2, None),                                   # float data: guarded
    (lambda T, x: ["only strings", T.constant(["a", "b"])], 3, "chk"),   # strings: bare Assert
    (lambda T, x: [T.constant([1, 2, 3, 4], T.int32)], 2, None),         # int32: bare Assert
    (lambda T, x: [T.constant([1, 2, 3, 4], T.int64)], -1, "i64"),      # int64: guarded
    (lambda T, x: [T.constant([True, False])], 3, None),                 # bool: guarded
    (lambda T, x: [7, "n"], 3, "py"),                                    # Python int -> int32: bare
]


def _guard_run(T, case):
    build, summarize, name = case
    g = T.Graph()
    with g.as_default(), T.Session() as s:
        x = T.placeholder(T.float32, [None], name="x")
        cond = T.reduce_all(x > 0)
        before = {o.name for o in g.get_operations()}
        op = T.Assert(cond, build(T, x), summarize=summarize, name=name)
        added = sorted((o.name, o.type.replace("StatelessIf", "If"), tuple(i.name for i in o.inputs))
                       for o in g.get_operations() if o.name not in before)
        s.run(op, {x: [1.0, 2.0]})
        with pytest.raises(T.errors.InvalidArgumentError) as e:
            s.run(op, {x: [-1.0, 2.0, 3.0]})
    message = [line for line in e.value.message.splitlines() if line.startswith("assertion failed")]
    return op.name, op.type, added, message


@pytest.mark.parametrize("case", GUARD_CASES)
def test_assert_guard_graph_and_error_match_tensorflow(case, monkeypatch):
    t = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops import control_flow_util  # TF 1.x cond, as compat.v1 graphs build it
    monkeypatch.setattr(control_flow_util, "ENABLE_CONTROL_FLOW_V2", False)
    assert _guard_run(tf, case) == _guard_run(t, case)


def test_assert_needs_data_like_tensorflow():
    t = pytest.importorskip("tensorflow").compat.v1
    for T in (tf, t):
        with T.Graph().as_default(), pytest.raises(ValueError, match="less than minimum 1"):
            T.Assert(T.constant(True), [])
