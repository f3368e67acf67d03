"""State kernels (ref/ops/state.py) as pure raw ops: against a sequential NumPy
oracle (duplicates applied one after another, in index order) and against
TensorFlow's resource kernels run eagerly."""
import numpy as np
import pytest

import ref.ops.state  # noqa: F401
from ref.ops import state as ref_state
from ref.types import errors
from ref.ops.registry import call

F32 = np.float32


def oracle_scatter(ref, indices, updates, how):
    out = ref.copy()
    upd = np.broadcast_to(updates, indices.shape + ref.shape[1:])
    for i, ix in np.ndenumerate(indices):
        row = upd[i]
        if how == "Update":
            out[ix] = row
        elif how == "Add":
            out[ix] = out[ix] + row
        elif how == "Sub":
            out[ix] = out[ix] - row
        elif how == "Mul":
            out[ix] = out[ix] * row
        elif how == "Div":
            out[ix] = (np.trunc(out[ix] / row).astype(out.dtype) if out.dtype.kind == "i" else out[ix] / row)
        elif how == "Min":
            out[ix] = np.minimum(out[ix], row)
        elif how == "Max":
            out[ix] = np.maximum(out[ix], row)
    return out


_rng = np.random.default_rng(7)
REF = _rng.standard_normal((5, 3)).astype(F32)
DUP = np.array([3, 0, 3, 3, 1])
UPD = _rng.standard_normal((5, 3)).astype(F32)
INTREF = np.array([[7, -7], [9, 8], [-9, 5]], np.int32)
INTIDX = np.array([0, 2, 0])
INTUPD = np.array([[2, 2], [2, -2], [3, 3]], np.int32)

SCATTER_CASES = [(how, ref, idx, upd) for how in ("Update", "Add", "Sub", "Mul", "Div", "Min", "Max")
                 for ref, idx, upd in ((REF, DUP, UPD), (INTREF, INTIDX, INTUPD))] + [
    ("Add", REF, np.array([[1, 1], [4, 1]]), _rng.standard_normal((2, 2, 3)).astype(F32)),  # rank-2 indices
    ("Update", REF, np.array(2), _rng.standard_normal(3).astype(F32)),  # scalar index
    ("Add", REF, DUP, np.float32(1.5)),  # scalar updates broadcast
]


@pytest.mark.parametrize("how,ref,indices,updates", SCATTER_CASES,
                         ids=[f"{c[0]}-{c[1].dtype}-{np.ndim(c[2])}-{np.ndim(c[3])}" for c in SCATTER_CASES])
def test_scatter_matches_sequential_oracle(how, ref, indices, updates):
    before = ref.copy()
    got = call(f"Scatter{how}", ref=ref, indices=indices, updates=updates)
    np.testing.assert_array_equal(got, oracle_scatter(ref, indices, updates, how))
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(ref, before)  # pure: input untouched
    res = call(f"ResourceScatter{how}", resource=ref, indices=indices, updates=updates)
    np.testing.assert_array_equal(res, got)


# distinct indices (the gathered, whole-rows path), with NaN, -0.0 and infinities in
# the variable and the updates, float32/float64/int32: the sequential oracle's bits
_WIDE = _rng.standard_normal((40, 6)).astype(F32)
_WIDE[3, 1], _WIDE[7, 0], _WIDE[11, 2] = np.nan, -0.0, np.inf
_WUPD = _rng.standard_normal((5, 6)).astype(F32)
_WUPD[0, 1], _WUPD[1, 0], _WUPD[2, 3] = 0.0, np.nan, -np.inf
_WIDX = np.array([3, 7, 11, 0, 39])
DISTINCT_CASES = [(how, ref, idx, upd) for how in ("Add", "Sub", "Mul", "Div", "Min", "Max")
                  for ref, idx, upd in ((_WIDE, _WIDX, _WUPD),
                                        (_WIDE.astype(np.float64), _WIDX[::-1], _WUPD.astype(np.float64)),
                                        (np.arange(24, dtype=np.int32).reshape(8, 3), np.array([[5, 1], [0, 7]]),
                                         np.arange(1, 13, dtype=np.int32).reshape(2, 2, 3)))]


@pytest.mark.parametrize("how,ref,indices,updates", DISTINCT_CASES,
                         ids=[f"{c[0]}-{c[1].dtype}" for c in DISTINCT_CASES])
def test_scatter_distinct_indices_bits(how, ref, indices, updates):
    want = oracle_scatter(ref, indices, updates, how)
    got = call(f"Scatter{how}", ref=ref, indices=indices, updates=updates)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    buf = ref.copy()  # the Session's donated buffer: updated in place
    assert ref_state._scatter(buf, indices, updates, how, f"Scatter{how}", out=(buf,)) is buf
    np.testing.assert_array_equal(buf.view(np.uint8), want.view(np.uint8))


# repeated indices (each row's k-th occurrence applied in round k; the compiled
# row loop for Add/Sub), NaN/-0.0/inf, int32 wrapping: the sequential oracle's bits
_DUPIDX = np.array([3, 7, 3, 11, 3, 7, 0, 39, 39])
_DUPUPD = _rng.standard_normal((9, 6)).astype(F32)
_DUPUPD[0, 1], _DUPUPD[2, 0], _DUPUPD[4, 3], _DUPUPD[5, 5] = 0.0, np.nan, -np.inf, -0.0
_BIG = np.full((4, 2), 2**31 - 2, np.int32)
DUPLICATE_CASES = [(how, ref, idx, upd) for how in ("Add", "Sub", "Mul", "Div", "Min", "Max")
                   for ref, idx, upd in ((_WIDE, _DUPIDX, _DUPUPD),
                                         (_WIDE.astype(np.float64), _DUPIDX[::-1], _DUPUPD.astype(np.float64)),
                                         (_BIG, np.array([[1, 1], [3, 1]]), np.full((2, 2, 2), 3, np.int32)),
                                         (_BIG.astype(np.int64), np.array([0, 0, 0]), np.full((3, 2), 2**62, np.int64)),
                                         (_WIDE[:, 1].copy(), _DUPIDX, _DUPUPD[:, 0].copy()))]  # 1-D: a bias


@pytest.mark.parametrize("tier", ["numpy", "compiled"])
@pytest.mark.parametrize("how,ref,indices,updates", DUPLICATE_CASES,
                         ids=[f"{c[0]}-{c[1].dtype}" for c in DUPLICATE_CASES])
def test_scatter_repeated_indices_bits(how, ref, indices, updates, tier, monkeypatch):
    monkeypatch.setattr(ref_state._jit, "numpy_tier", lambda kernel, size: tier == "numpy")
    with np.errstate(all="ignore"):
        want = oracle_scatter(ref, indices, updates, how)
    got = call(f"Scatter{how}", ref=ref, indices=indices, updates=updates)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    buf = ref.copy()  # the Session's donated buffer: updated in place
    assert ref_state._scatter(buf, indices, updates, how, f"Scatter{how}", out=(buf,)) is buf
    np.testing.assert_array_equal(buf.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("how", ["Update", "Add", "Sub", "Mul", "Div", "Min", "Max"])
def test_scatter_matches_tensorflow(how):
    tf = pytest.importorskip("tensorflow")
    for ref, idx, upd in ((REF, DUP, UPD), (INTREF, INTIDX, INTUPD)):
        v = tf.Variable(ref)
        getattr(tf.raw_ops, f"ResourceScatter{how}")(resource=v.handle, indices=idx, updates=upd)
        np.testing.assert_array_equal(call(f"Scatter{how}", ref=ref, indices=idx, updates=upd), v.numpy())


ND_CASES = [
    ("Update", np.zeros((3, 2), F32), np.array([[0, 1], [2, 0], [0, 1]]), np.array([1., 2., 3.], F32)),
    ("Add", np.ones((3, 2), F32), np.array([[0, 1], [2, 0], [0, 1]]), np.array([1., 2., 3.], F32)),
    ("Sub", np.ones((3, 2), F32), np.array([[1], [1]]), np.array([[1., 2.], [3., 4.]], F32)),
    ("Min", np.ones((3, 2), F32), np.array([[0, 1], [2, 0], [0, 1]]), np.array([0., 2., -3.], F32)),
    ("Max", np.ones((3, 2), F32), np.array([[1], [1], [0]]), np.array([[0., 2.], [3., -4.], [5., 0.]], F32)),
]


@pytest.mark.parametrize("how,ref,indices,updates", ND_CASES, ids=[c[0] for c in ND_CASES])
def test_scatter_nd(how, ref, indices, updates):
    tf = pytest.importorskip("tensorflow")
    v = tf.Variable(ref)
    getattr(tf.raw_ops, f"ResourceScatterNd{how}")(ref=v.handle, indices=indices, updates=updates)
    got = call(f"ScatterNd{how}", ref=ref, indices=indices, updates=updates)
    np.testing.assert_array_equal(got, v.numpy())
    np.testing.assert_array_equal(call(f"ResourceScatterNd{how}", ref=ref, indices=indices, updates=updates), got)


BAD = [
    ("ScatterUpdate", dict(ref=REF, indices=np.array([0, 5]), updates=UPD[:2]), r"indices\[1\] = 5 is not in \[0, 5\)"),
    ("ScatterAdd", dict(ref=REF, indices=np.array([-1]), updates=UPD[:1]), r"indices\[0\] = -1 is not in \[0, 5\)"),
    ("ScatterAdd", dict(ref=REF, indices=np.array([0, 1]), updates=UPD[:3]),
     r"Must have updates.shape = indices.shape \+ params.shape\[1:\] or updates.shape = \[\], got updates.shape "
     r"\[3,3\], indices.shape \[2\], params.shape \[5,3\]"),
    ("ScatterNdUpdate", dict(ref=REF, indices=np.array([[5, 0]]), updates=np.array([1.], F32)),
     r"indices\[0\] = \[5, 0\] does not index into shape \[5,3\]"),
    ("Assign", dict(ref=np.zeros(2, F32), value=np.ones(3, F32)),
     r"Assign requires shapes of both tensors to match. lhs shape= \[2\] rhs shape= \[3\]"),
    ("AssignAdd", dict(ref=np.zeros(2, F32), value=np.ones((2, 1), F32)), r"lhs shape= \[2\] rhs shape= \[2,1\]"),
]


@pytest.mark.parametrize("op,kwargs,message", BAD, ids=[b[0] + str(i) for i, b in enumerate(BAD)])
def test_bad_input_is_invalid_argument(op, kwargs, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        call(op, **kwargs)


ASSIGN_CASES = [
    ("Assign", dict(ref=np.zeros(2, F32), value=np.array([1., 2.], F32)), np.array([1., 2.], F32)),
    ("Assign", dict(ref=None, value=np.array([1., 2.], F32)), np.array([1., 2.], F32)),  # uninitialized ref
    ("Assign", dict(ref=np.zeros(2, F32), value=np.ones(3, F32), validate_shape=False), np.ones(3, F32)),
    ("AssignAdd", dict(ref=np.array([1., 2.], F32), value=np.array([.5, .5], F32)), np.array([1.5, 2.5], F32)),
    ("AssignSub", dict(ref=np.array([1, 2]), value=np.array([3, 3])), np.array([-2, -1])),
    ("AssignVariableOp", dict(resource=None, value=np.array([4.], F32)), np.array([4.], F32)),
    ("AssignAddVariableOp", dict(resource=np.array([4.], F32), value=np.array([1.], F32)), np.array([5.], F32)),
    ("AssignSubVariableOp", dict(resource=np.array([4.], F32), value=np.array([1.], F32)), np.array([3.], F32)),
]


@pytest.mark.parametrize("op,kwargs,expected", ASSIGN_CASES, ids=[f"{c[0]}{i}" for i, c in enumerate(ASSIGN_CASES)])
def test_assign_family(op, kwargs, expected):
    got = call(op, **kwargs)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype


@pytest.mark.parametrize("value,limit,expected", [(0, 3, (1, 0)), (2, 3, (3, 2)), (3, 3, None), (7, 3, None)])
def test_count_up_to(value, limit, expected):
    """Seed 003: outputs the value before the increment; OutOfRangeError at the limit."""
    ref = np.int32(value)
    if expected is None:
        with pytest.raises(errors.OutOfRangeError, match=f"Reached limit of {limit}"):
            call("CountUpTo", ref=ref, limit=limit)
    else:
        new, old = call("CountUpTo", ref=ref, limit=limit)
        assert (int(new), int(old)) == expected


@pytest.mark.parametrize("op,arg", [("IsVariableInitialized", "ref"), ("VarIsInitializedOp", "resource")])
@pytest.mark.parametrize("value,expected", [(None, False), (np.zeros(2, F32), True)])
def test_is_initialized(op, arg, value, expected):
    unchanged, out = call(op, **{arg: value})
    assert unchanged is None and bool(out) is expected


@pytest.mark.parametrize("indices,batch_dims", [(np.array([2, 0, 2]), 0), (np.array([[1], [0], [2], [1], [0]]), 1)])
def test_resource_gather(indices, batch_dims):
    tf = pytest.importorskip("tensorflow")
    v = tf.Variable(REF)
    want = tf.raw_ops.ResourceGather(resource=v.handle, indices=indices, dtype=tf.float32, batch_dims=batch_dims)
    got = call("ResourceGather", resource=REF, indices=indices, dtype=None, batch_dims=batch_dims)
    np.testing.assert_array_equal(got, want.numpy())


def test_resource_gather_nd():
    tf = pytest.importorskip("tensorflow")
    v = tf.Variable(REF)
    idx = np.array([[0, 1], [4, 2]])
    want = tf.raw_ops.ResourceGatherNd(resource=v.handle, indices=idx, dtype=tf.float32)
    np.testing.assert_array_equal(call("ResourceGatherNd", resource=REF, indices=idx, dtype=None), want.numpy())
