"""``ref.ops.eigen_softmax``: float32 ``Softmax``, ``LogSoftmax``, the sparse cross-entropy
and the dense one's loss bit for bit against ``tf.raw_ops`` (TF with oneDNN off, as the
suite runs it; ``Softmax`` within 2 ULPs on rows of :data:`LONG_ROWS`); the dense backprop within 4 ULPs (the module
docstring says why). Class counts on and off the packet width, one row and
many, rows longer than a reduction leaf, soft and one-hot labels."""
import numpy as np
import pytest

from ref import raw_ops
from ref.ops import eigen_softmax as _under_test  # noqa: F401

_RNG = np.random.RandomState(5)
# Softmax rows of several thousand classes (10001, 9000): a
# handful of elements 1-2 ULPs off TF's (measured; not the reciprocal, which
# is exact for every row count here -- the exp's or the sum's split of such rows)
LONG_ROWS = (10001, 9000)
SHAPES = [(1, 1), (1, 7), (3, 8), (64, 2), (64, 3), (64, 10), (17, 17), (5, 33), (400, 100), (8, 1000),
          (2, 10001), (4, 9000)]


def _bits(a):
    a = np.asarray(a)
    return a.view(np.int32)


def _within_ulps(got, want, ulps):
    d = np.abs(_bits(got).astype(np.int64) - _bits(want).astype(np.int64))
    assert d.max() <= ulps, int(d.max())


def _logits(shape):
    return np.asarray(_RNG.randn(*shape) * 4, np.float32)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_softmax_equals_tensorflow(op, shape):
    tf = pytest.importorskip("tensorflow")
    x = _logits(shape)
    want = getattr(tf.raw_ops, op)(logits=x).numpy()
    got = getattr(raw_ops, op)(logits=x)
    if op == "Softmax" and shape[1] in LONG_ROWS:
        _within_ulps(got, want, 2)
    else:
        np.testing.assert_array_equal(_bits(got), _bits(want))


# TF evaluates Softmax's exp(logits - max) in tiles of the [batch, classes] tensor when it is
# large, each tile with a scalar tail of expf: a handful of elements 1 ULP off, the rest equal
TILED = [(256, 33), (1000, 17), (128, 100)]


@pytest.mark.parametrize("shape", TILED, ids=str)
def test_softmax_of_larger_batches_against_tensorflow(shape):
    tf = pytest.importorskip("tensorflow")
    x = np.asarray(np.random.RandomState(shape[0]).randn(*shape) * 4, np.float32)
    want = tf.raw_ops.Softmax(logits=x).numpy()
    got = raw_ops.Softmax(logits=x)
    _within_ulps(got, want, 2)
    assert np.mean(_bits(got) == _bits(want)) >= 0.999


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("labels", ["soft", "onehot"])
def test_xent_equals_tensorflow(shape, labels):
    tf = pytest.importorskip("tensorflow")
    x = _logits(shape)
    if labels == "soft":
        y = np.asarray(_RNG.dirichlet(np.ones(shape[1]), shape[0]), np.float32)
    else:
        y = np.eye(shape[1], dtype=np.float32)[_RNG.randint(0, shape[1], shape[0])]
    want = tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=x, labels=y)
    got = raw_ops.SoftmaxCrossEntropyWithLogits(features=x, labels=y)
    np.testing.assert_array_equal(_bits(got[0]), _bits(want[0].numpy()))
    _within_ulps(got[1], want[1].numpy(), 4)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_sparse_xent_equals_tensorflow(shape):
    tf = pytest.importorskip("tensorflow")
    x = _logits(shape)
    k = _RNG.randint(0, shape[1], shape[0]).astype(np.int32)
    want = tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=k)
    got = raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=k)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(_bits(g), _bits(w.numpy()))


@pytest.mark.parametrize("shape", [(1, 11), (7, 11), (19, 5)], ids=str)
def test_softmax_is_the_documented_expression(shape):
    """Without TF: the module's formula by hand; fewer than 8 rows divide exactly
    (the sums' scalar tail), the first ``rows - rows % 8`` take ``eigen_recip``."""
    x = _logits(shape)
    b = x - x.max(axis=1, keepdims=True)
    from ref.ops import eigen_math, eigen_recip, eigen_reduce
    e = eigen_math.exp(b)
    s = eigen_reduce.sum_rows(e)
    body = shape[0] - shape[0] % 8
    inv = np.concatenate([eigen_recip.reciprocal(s)[:body], np.float32(1) / s[body:]])
    assert np.array_equal(inv[body:], eigen_recip.reciprocal(s)[body:])
    want = e * inv[:, None]
    np.testing.assert_array_equal(_bits(raw_ops.Softmax(logits=x)), _bits(want))


def _special_logits(shape, kind):
    x = _logits(shape)
    rows = _RNG.rand(shape[0]) < 0.5
    if kind == "nan":
        x[rows, _RNG.randint(0, shape[1], shape[0])[rows]] = np.nan
    elif kind == "inf":
        x[rows, _RNG.randint(0, shape[1], shape[0])[rows]] = np.inf
        x[~rows, _RNG.randint(0, shape[1], shape[0])[~rows]] = -np.inf
    elif kind == "zeros":  # the maximum a zero of either sign
        x = -np.abs(x)
        x[:, ::3] = np.where(_RNG.rand(shape[0], len(range(0, shape[1], 3))) < 0.5, -0.0, 0.0)
    elif kind == "wide":  # exp underflows, subnormal sums
        x = x * 40
    return x


@pytest.mark.skipif(__import__("os").environ.get("REF_DISABLE_JIT") == "1", reason="compares the compiled rows")
@pytest.mark.parametrize("kind", ["normal", "nan", "inf", "zeros", "wide"])
@pytest.mark.parametrize("shape", SHAPES + [(3, 16), (7, 8193), (33, 47), (9, 31)], ids=str)
def test_one_pass_rows_are_the_expressions(shape, kind):
    """_sparse_rows (max, exp, Eigen-order sum, logf, division per row) == the module's
    expressions one NumPy pass each, whole and in row blocks (the matrix's last
    size % 8 values and each row's tree split counted from the matrix's start)."""
    from ref.ops import eigen_softmax
    x = _special_logits(shape, kind)
    k = _RNG.randint(0, shape[1], shape[0]).astype(np.int64)
    want = eigen_softmax._sparse_pieces(x, k)
    rows = shape[0]
    with np.errstate(all="ignore"):
        got = eigen_softmax._sparse_rows(x, k, 0, x.size, np.empty(rows, np.float32), np.empty(shape, np.float32))
        cut = rows // 2 + 1 if rows > 1 else rows
        blocks = eigen_softmax._SparseBlocks(x, k, np.empty(rows, np.float32), np.empty(shape, np.float32))
        blocks.into_result(0, cut)
        if cut < rows:
            blocks.store(cut, rows, blocks.scratch(cut, rows))
    for g in (got, (blocks.loss, blocks.backprop)):
        for a, b in zip(g, want):
            nan = np.isnan(a) & np.isnan(b)
            assert ((_bits(a) == _bits(b)) | nan).all(), (shape, kind)
