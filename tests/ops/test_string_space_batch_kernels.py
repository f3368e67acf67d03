"""The kernels the fifth program set added, against ``tf.raw_ops`` (eager):
``StringLength`` / ``StringLower`` / ``StringUpper`` / ``StringStrip`` /
``ReduceJoin`` and ``SpaceToBatchND`` / ``BatchToSpaceND`` -- values, shapes
and dtypes bit for bit, and the error kind TF raises for bad input."""
import numpy as np
import pytest

from ref import errors
from ref.ops import registry, space_depth as _under_test  # noqa: F401
from ref.ops import strings as _strings  # noqa: F401

WORDS = np.array([["Hello ", " wORLD\t", ""], ["\xe9t\xc9".encode(), b"x y", b"\n"]], dtype=object)
X = np.arange(2 * 6 * 4 * 3, dtype=np.float32).reshape(2, 6, 4, 3)

CASES = [
    ("StringLength", dict(input=WORDS)),
    ("StringLength", dict(input=WORDS, unit="UTF8_CHAR")),
    ("StringLower", dict(input=WORDS)),
    ("StringLower", dict(input=WORDS, encoding="utf-8")),
    ("StringUpper", dict(input=WORDS)),
    ("StringUpper", dict(input=WORDS, encoding="utf-8")),
    ("StringStrip", dict(input=WORDS)),
    ("ReduceJoin", dict(inputs=WORDS, reduction_indices=np.array([1, 0], np.int32))),
    ("ReduceJoin", dict(inputs=WORDS, reduction_indices=np.array([0, 1], np.int32), separator="|")),
    ("ReduceJoin", dict(inputs=WORDS, reduction_indices=np.array([-1], np.int32), keep_dims=True)),
    ("ReduceJoin", dict(inputs=WORDS, reduction_indices=np.array([], np.int32))),
    ("ReduceJoin", dict(inputs=np.zeros((2, 0), dtype=object), reduction_indices=np.array([1], np.int32),
                        separator=",")),
    ("SpaceToBatchND", dict(input=X, block_shape=np.array([2, 2], np.int32),
                            paddings=np.array([[0, 0], [1, 1]], np.int32))),
    ("SpaceToBatchND", dict(input=X, block_shape=np.array([3], np.int64), paddings=np.array([[0, 3]], np.int64))),
    ("SpaceToBatchND", dict(input=X, block_shape=np.array([1, 2, 3], np.int32),
                            paddings=np.array([[0, 0], [0, 0], [1, 2]], np.int32))),
    ("BatchToSpaceND", dict(input=np.concatenate([X, X]), block_shape=np.array([2, 2], np.int32),
                            crops=np.array([[1, 0], [0, 3]], np.int32))),
    ("BatchToSpaceND", dict(input=X, block_shape=np.array([2], np.int32), crops=np.array([[0, 1]], np.int32))),
]

ERRORS = [
    ("ReduceJoin", dict(inputs=WORDS, reduction_indices=np.array([1, -1], np.int32)), errors.InvalidArgumentError),
    ("ReduceJoin", dict(inputs=WORDS, reduction_indices=np.array([2], np.int32)), errors.OutOfRangeError),
    ("SpaceToBatchND", dict(input=X, block_shape=np.array([4], np.int32), paddings=np.array([[0, 1]], np.int32)),
     errors.InvalidArgumentError),
    ("BatchToSpaceND", dict(input=X, block_shape=np.array([3], np.int32), crops=np.array([[0, 0]], np.int32)),
     errors.InvalidArgumentError),
]


def _tf():
    return pytest.importorskip("tensorflow")


def _ref(op, kw):
    opdef = registry.get(op)
    return opdef.kernel(**kw)


@pytest.mark.parametrize("op, kw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_against_tf(op, kw):
    want = getattr(_tf().raw_ops, op)(**kw).numpy()
    want = np.array(want, dtype=object) if isinstance(want, bytes) else want  # a scalar string: bytes
    got = np.asarray(_ref(op, kw))
    assert got.shape == want.shape
    if want.dtype == object:
        assert got.tolist() == want.tolist()
    else:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("op, kw, kind", ERRORS, ids=[f"{c[0]}-{i}" for i, c in enumerate(ERRORS)])
def test_errors(op, kw, kind):
    tf = _tf()
    with pytest.raises(getattr(tf.errors, kind.__name__)):
        getattr(tf.raw_ops, op)(**kw)
    with pytest.raises(kind):
        _ref(op, kw)
