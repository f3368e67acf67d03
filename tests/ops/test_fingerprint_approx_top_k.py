"""``ApproxTopK`` against ``tf.raw_ops`` (its CPU kernel: exact top-k; TF's
NotFoundError where it has no CPU kernel). ``Fingerprint`` against ``tf.raw_ops``: byte for byte on numbers of several
dtypes and ranks, strings one and several to a row, empty batches; TF's
InvalidArgumentError for a bad method or a scalar ``data``. (CumulativeLogsumexp's
value rows live in tests/ops/math_cases.py.)"""
import numpy as np
import pytest

from ref.ops import strings as _under_test  # noqa: F401
from ref.ops import top_k as _top_k  # noqa: F401
from ref.ops import registry
from ref.types import errors

S = np.array
CASES = [
    ("int32-2d", np.arange(12, dtype=np.int32).reshape(3, 4)),
    ("float32-column", np.float32([[1.5], [2.5]])),
    ("int64-3d", np.arange(24, dtype=np.int64).reshape(2, 3, 4)),
    ("float64-empty", np.zeros((0, 3), np.float64)),
    ("bool", np.array([True, False, True])),
    ("uint8-long-rows", np.arange(3 * 300, dtype=np.uint8).reshape(3, 300)),
    ("strings-one-per-row", S([b"a", b"hello world", b""], object)),
    ("strings-several-per-row", S([[b"a", b"bc"], [b"", b"x" * 100]], object)),
]


@pytest.mark.parametrize("rid,data", CASES, ids=[c[0] for c in CASES])
def test_fingerprint_is_tensorflows(rid, data):
    tf = pytest.importorskip("tensorflow")
    got = registry.call("Fingerprint", data=data, method=S(b"farmhash64", object))
    want = tf.raw_ops.Fingerprint(data=data, method="farmhash64").numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


ERRORS = [
    ("bad-method", np.int32([1, 2]), b"md5", "Unsupported fingerprint method: md5"),
    ("scalar-data", np.int32(1), b"farmhash64", "`data` should have at least one dimension"),
]


@pytest.mark.parametrize("rid,data,method,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_fingerprint_errors_as_tf(rid, data, method, match):
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.raw_ops.Fingerprint(data=data, method=method)
    with pytest.raises(errors.InvalidArgumentError, match=match):
        registry.call("Fingerprint", data=data, method=S(method, object))


RNG = np.random.default_rng(5)
APPROX = [
    ("float32-ties", np.float32([[3, 1, 4, 1, 5, 9, 2, 6], [5, 3, 5, 8, 9, 7, 9, 3]]), 3),
    ("float16-3d", RNG.normal(size=(2, 3, 7)).astype(np.float16), 4),
    ("k0", RNG.normal(size=(4, 5)).astype(np.float32), 0),
]


@pytest.mark.parametrize("rid,x,k", APPROX, ids=[a[0] for a in APPROX])
def test_approx_top_k_is_tensorflows(rid, x, k):
    tf = pytest.importorskip("tensorflow")
    got = registry.call("ApproxTopK", input=x, k=k)
    want = tf.raw_ops.ApproxTopK(input=x, k=k)
    for g, w in zip(got, want):
        w = w.numpy()
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("attrs", [{"is_max_k": False}, {"reduction_dimension": 0}])
def test_approx_top_k_without_cpu_kernel_as_tf(attrs):
    tf = pytest.importorskip("tensorflow")
    x = np.float32([[3, 1], [4, 1]])
    with pytest.raises(tf.errors.NotFoundError):
        tf.raw_ops.ApproxTopK(input=x, k=1, **attrs)
    with pytest.raises(errors.NotFoundError, match="ApproxTopK"):
        registry.call("ApproxTopK", input=x, k=1, **attrs)
