"""``Bucketize``, ``SparseCross`` and ``SparseCrossV2`` against ``tf.raw_ops``:
buckets per input dtype (float32 boundaries, NaN), crosses of sparse and
dense string/int64 columns (hashed ids bit for bit: TF's FingerprintCat64
chain over Fingerprint64), and the run-time errors."""
import numpy as np
import pytest

from ref.ops import sparse_cross as _under_test  # noqa: F401
from ref import errors, raw_ops

tf = pytest.importorskip("tensorflow")

BOUNDARIES = [-1.5, 0., 0.1, 2.5, 3.0000001, 1e10]
X = [-5., -1.5, -1.4999999, 0., 0.1, 0.10000001, 2.5, 3., 3.0000001, 1e10, 1e11, np.nan, np.inf, -np.inf]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
@pytest.mark.parametrize("shape", [(14,), (2, 7), (0,)])
def test_bucketize_equals_tf(dtype, shape):
    x = np.array(X, np.float64)
    if np.issubdtype(dtype, np.integer):
        x = np.nan_to_num(x, nan=7, posinf=2 ** 40, neginf=-2 ** 40).clip(-2 ** 31, 2 ** 31 - 1)
    x = x.astype(dtype)[:int(np.prod(shape))].reshape(shape)
    want = tf.raw_ops.Bucketize(input=x, boundaries=BOUNDARIES).numpy()
    got = raw_ops.Bucketize(input=x, boundaries=BOUNDARIES)
    assert got.dtype == want.dtype == np.int32
    np.testing.assert_array_equal(got, want)


def test_bucketize_unsorted_boundaries_raise_as_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expected sorted boundaries"):
        tf.raw_ops.Bucketize(input=np.zeros(2, np.float32), boundaries=[1., 0.])
    with pytest.raises(errors.InvalidArgumentError, match="Expected sorted boundaries"):
        raw_ops.Bucketize(input=np.zeros(2, np.float32), boundaries=[1., 0.])


def _sparse(rows, values, width=3):
    idx = np.array([[r, c] for r, cols in enumerate(rows) for c in cols], np.int64).reshape(-1, 2)
    return idx, np.array(values, object if isinstance(values[0], bytes) else np.int64), \
        np.array([len(rows), width], np.int64)


S_STR = _sparse([[0, 1], [], [2], [0, 1, 2]], [b"a", b"bb", b"", b"x", b"\xff\x00", b"long string " * 9])
S_INT = _sparse([[0], [0, 1], [], [1]], [3, -7, 2 ** 62, 0])
S_STR2 = _sparse([[0], [0], [0, 1], [1]], [b"q", b"r", b"s", b"t", b"u"])
D_STR = np.array([[b"f", b"g"], [b"h", b"i"], [b"j", b"k"], [b"", b"m"]], object)
D_INT = np.array([[5], [-1], [9], [2 ** 40]], np.int64)

# name: (sparse inputs, dense inputs)
CROSSES = {
    "two_sparse_strings": ([S_STR, S_STR2], []),
    "sparse_and_dense_strings": ([S_STR], [D_STR]),
    "dense_only": ([], [D_STR, D_STR]),
    "ints": ([S_INT], [D_INT]),
    "mixed": ([S_STR, S_INT], [D_STR, D_INT]),
    "three": ([S_STR, S_STR2, S_INT], []),
}


def _args(name):
    sparse, dense = CROSSES[name]
    return dict(indices=[s[0] for s in sparse], values=[s[1] for s in sparse], shapes=[s[2] for s in sparse],
                dense_inputs=list(dense))


def _internal(name):
    sparse, dense = CROSSES[name]
    has_int = any(s[1].dtype != object for s in sparse) or any(d.dtype != object for d in dense)
    return tf.int64 if has_int else tf.string


def _same(got, want):
    for g, w in zip(got, want):
        w = w.numpy()
        g = np.asarray(g)
        assert g.shape == w.shape
        assert g.tolist() == w.tolist()


@pytest.mark.parametrize("hash_key", [0xDECAFCAFFE, 1, 2 ** 63 - 1, -5])
@pytest.mark.parametrize("num_buckets", [0, 1, 97, 2 ** 40])
@pytest.mark.parametrize("name", sorted(CROSSES))
def test_sparse_cross_hashed_equals_tf(name, num_buckets, hash_key):
    attrs = dict(hashed_output=True, num_buckets=num_buckets, hash_key=hash_key, out_type=tf.int64,
                 internal_type=_internal(name))
    _same(raw_ops.SparseCross(**_args(name), **attrs), tf.raw_ops.SparseCross(**_args(name), **attrs))


@pytest.mark.parametrize("name", sorted(CROSSES))
def test_sparse_cross_strings_equal_tf(name):
    attrs = dict(hashed_output=False, num_buckets=0, hash_key=0, out_type=tf.string, internal_type=_internal(name))
    _same(raw_ops.SparseCross(**_args(name), **attrs), tf.raw_ops.SparseCross(**_args(name), **attrs))
    _same(raw_ops.SparseCrossV2(**_args(name), sep="::"), tf.raw_ops.SparseCrossV2(**_args(name), sep="::"))


def test_sparse_cross_fingerprints_many_strings_equal_tf():
    rng = np.random.RandomState(26)
    words = np.array([bytes(rng.randint(0, 256, rng.randint(0, 80)).astype(np.uint8)) for _ in range(300)], object)
    dense = [words.reshape(100, 3), words[::-1].reshape(100, 3)]
    attrs = dict(indices=[], values=[], shapes=[], dense_inputs=dense, hashed_output=True, num_buckets=0,
                 hash_key=0xDECAFCAFFE, out_type=tf.int64, internal_type=tf.string)
    _same(raw_ops.SparseCross(**attrs), tf.raw_ops.SparseCross(**attrs))


BAD = {
    "batch_mismatch": dict(indices=[S_STR[0]], values=[S_STR[1]], shapes=[S_STR[2]], dense_inputs=[D_STR[:2]]),
    "values_length": dict(indices=[S_STR[0]], values=[S_STR[1][:2]], shapes=[S_STR[2]], dense_inputs=[]),
    "shape_rank": dict(indices=[S_STR[0]], values=[S_STR[1]], shapes=[np.array([4, 3, 1], np.int64)],
                       dense_inputs=[]),
    "dense_rank": dict(indices=[], values=[], shapes=[], dense_inputs=[D_STR.reshape(-1)]),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_sparse_cross_bad_inputs_raise_as_tf(name):
    attrs = dict(hashed_output=True, num_buckets=10, hash_key=1, out_type=tf.int64, internal_type=tf.string)
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError)) as want:
        tf.raw_ops.SparseCross(**BAD[name], **attrs)
    with pytest.raises(errors.InvalidArgumentError) as got:
        raw_ops.SparseCross(**BAD[name], **attrs)
    assert str(got.value).split("\n")[0] in str(want.value)
