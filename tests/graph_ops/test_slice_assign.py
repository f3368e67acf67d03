"""``v[...].assign(x)``: StridedSliceAssign / ResourceStridedSliceAssign, against TF."""
import numpy as np
import pytest

import ref
import ref.raw_ops as raw
from ref.graph_ops import array_ops as _under_test  # noqa: F401  (the module these tests cover)

INIT = np.arange(24, dtype=np.float32).reshape(4, 6)

# (slice built from a variable, value)
CASES = [
    ("row", lambda v: v[1], np.full(6, -1, np.float32)),
    ("rows", lambda v: v[1:3], np.ones((2, 6), np.float32)),
    ("broadcast", lambda v: v[1:3, ::2], np.float32(7)),
    ("column", lambda v: v[:, 2], np.arange(4, dtype=np.float32)),
    ("strided", lambda v: v[::-2, 1:5:3], np.array([[1, 2], [3, 4]], np.float32)),
    ("ellipsis_newaxis", lambda v: v[..., None, 0], np.array([[5], [6], [7], [8]], np.float32)),
    ("empty", lambda v: v[2:2], np.zeros((0, 6), np.float32)),
]


def _run(lib, use_resource, make_slice, value):
    with lib.Graph().as_default(), lib.Session() as s:
        v = lib.get_variable("v", initializer=INIT, use_resource=use_resource)
        upd = make_slice(v).assign(value)
        s.run(lib.global_variables_initializer())
        out = s.run(upd)
        return np.asarray(out), s.run(v), upd.op.name, upd.op.type


@pytest.mark.parametrize("use_resource", [False, True])
@pytest.mark.parametrize("case,make_slice,value", CASES, ids=[c[0] for c in CASES])
def test_matches_tensorflow(case, make_slice, value, use_resource):
    tf = pytest.importorskip("tensorflow").compat.v1
    ours = _run(ref, use_resource, make_slice, value)
    theirs = _run(tf, use_resource, make_slice, value)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])
    if not use_resource:  # the resource form returns a read: names differ by TF's lazy-read plumbing
        assert ours[2:] == theirs[2:]


@pytest.mark.parametrize("use_resource", [False, True])
def test_numpy_oracle(use_resource):
    expect = INIT.copy()
    expect[1:3, ::2] = 7
    _, after, _, _ = _run(ref, use_resource, lambda v: v[1:3, ::2], np.float32(7))
    np.testing.assert_array_equal(after, expect)


def test_bad_broadcast_is_invalid_argument():
    with pytest.raises(ref.errors.InvalidArgumentError, match=r"Cannot broadcast input shape \[3\] into final "
                                                                r"shape \[2,6\]"):
        raw.TensorStridedSliceUpdate(input=INIT, begin=[1], end=[3], strides=[1], value=np.ones(3, np.float32))


def test_raw_kernels_are_pure():
    x = INIT.copy()
    out = raw.TensorStridedSliceUpdate(input=x, begin=[0], end=[1], strides=[1], value=np.float32(-1))
    np.testing.assert_array_equal(x, INIT)
    assert (out[0] == -1).all() and (out[1:] == INIT[1:]).all()
    tf = pytest.importorskip("tensorflow")
    theirs = tf.raw_ops.TensorStridedSliceUpdate(input=INIT, begin=[0], end=[1], strides=[1], value=np.float32(-1))
    np.testing.assert_array_equal(out, theirs.numpy())


def test_only_slices_of_variables_assign():
    with ref.Graph().as_default():
        t = ref.constant(INIT)
        with pytest.raises(AttributeError):
            t[1].assign(1.0)
