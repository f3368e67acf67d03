"""``ref.ops.eigen_gemm``: float32 ``MatMul`` with no side of 1 in the order of TF's
Eigen contraction over oneDNN's AVX2 nocopy kernels, bit for bit against
``tf.raw_ops.MatMul`` over a table of shapes in all four transpositions (Eigen's
sequential, parallel and inner-dimension-sharded paths; oneDNN's pieces of ``k``,
48-row cuts, 16- and 8-wide kernels, row remainders 1-5), on CPUs where the model
applies; and without TensorFlow: the exact ``fma`` against rational arithmetic, the
narrow kernels' sums against a scalar oracle, oneDNN's cuts, the kernels' widths and
heights, and plans worked by hand."""
import os
from fractions import Fraction

import numpy as np
import pytest

from ref import raw_ops
from ref.ops import eigen_gemm

_RNG = np.random.RandomState(11)

# (m, k, n): our rows, inner length, columns
SHAPES = [
    (7, 100, 9), (30, 20, 10), (8, 64, 8), (8, 63, 8), (20, 64, 20), (48, 64, 24), (64, 128, 64),
    (100, 200, 37), (16, 400, 16), (4, 300, 4), (32, 784, 10), (128, 256, 128), (128, 784, 256),
    (784, 128, 256), (128, 256, 10), (100, 600, 30), (64, 5000, 64), (40, 3000, 50), (500, 300, 200),
    (777, 333, 555), (1000, 64, 1000), (3, 17, 5), (2, 1000, 2), (200, 9, 300),
]
TRANSPOSES = [(False, False), (False, True), (True, False), (True, True)]
CACHES = (32 * 1024, 512 * 1024, 32 * 1024 * 1024)  # the 2-CPU AMD EPYC the model was measured on


def _x(shape):
    return np.asarray(_RNG.randn(*shape), np.float32)


@pytest.mark.parametrize("ta, tb", TRANSPOSES, ids=["ab", "abT", "aTb", "aTbT"])
@pytest.mark.parametrize("m, k, n", SHAPES, ids=[f"{m}x{k}x{n}" for m, k, n in SHAPES])
def test_equals_tensorflow(m, k, n, ta, tb):
    tf = pytest.importorskip("tensorflow")
    if not eigen_gemm.applies():
        pytest.skip("TF's oneDNN runs other kernels on this CPU (AVX-512, or no AVX2)")
    if os.environ.get("TF_ENABLE_ONEDNN_OPTS", "0") != "0":
        pytest.skip("TF's oneDNN matmul primitive (TF_ENABLE_ONEDNN_OPTS=1) is not modelled")
    a = _x((k, m) if ta else (m, k))
    b = _x((n, k) if tb else (k, n))
    want = tf.raw_ops.MatMul(a=a, b=b, transpose_a=ta, transpose_b=tb).numpy()
    got = raw_ops.MatMul(a=a, b=b, transpose_a=ta, transpose_b=tb)
    assert got.dtype == want.dtype and got.shape == want.shape == (m, n)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def _round32(x: Fraction) -> np.float32:
    """The float32 nearest to ``x``, ties to even (normal range)."""
    r = np.float32(float(x))
    cands = [r, np.nextafter(r, np.float32(np.inf)), np.nextafter(r, np.float32(-np.inf))]
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - x), int(np.array(c).view(np.int32)) & 1))
    return np.float32(best)


def _fma_oracle(a, b, c):
    return _round32(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


def test_fma_is_exact():
    """Products whose low bits decide the rounding (a double sum would round twice)."""
    rng = np.random.RandomState(3)
    a = np.float32(1 + 2.0 ** -12) * np.float32(2.0) ** rng.randint(-3, 3, 400).astype(np.float32)
    b = np.asarray(1 + rng.randint(0, 1 << 12, 400) * 2.0 ** -12, np.float32)
    c = np.asarray(rng.randn(400) * 4, np.float32)
    c[:100] = -np.float32(a[:100]) * b[:100]  # exact cancellations
    c[100:200] = np.float32(2.0 ** 14)  # ties after the first rounding
    got = eigen_gemm.fma(a, b, c)
    want = np.array([_fma_oracle(x, y, z) for x, y, z in zip(a, b, c)], np.float32)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


def _two_oracle(a, b, fused):
    """The narrow kernels' sum, element by element in Python."""
    m, k = a.shape
    n = b.shape[1]
    out = np.empty((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            acc = [np.float32(0), np.float32(0)]
            for p in range(k - k % 2):
                if fused:
                    acc[p % 2] = _fma_oracle(a[i, p], b[p, j], acc[p % 2])
                else:
                    acc[p % 2] = np.float32(acc[p % 2] + np.float32(a[i, p] * b[p, j]))
            s = np.float32(acc[0] + acc[1])
            if k % 2:
                p = k - 1
                s = _fma_oracle(a[i, p], b[p, j], s) if fused else np.float32(s + np.float32(a[i, p] * b[p, j]))
            out[i, j] = s
    return out


@pytest.mark.parametrize("fused", [True, False], ids=["fma", "mul_add"])
@pytest.mark.parametrize("m, k, n", [(1, 1, 3), (2, 7, 5), (3, 12, 4), (2, 33, 9)])
def test_two_chains(m, k, n, fused):
    a, b = _x((m, k)), _x((k, n))
    got = eigen_gemm.two_chains(a, b, fused=fused)
    np.testing.assert_array_equal(got.view(np.int32), _two_oracle(a, b, fused).view(np.int32))


@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (3, 40, 7), (6, 129, 33)])
def test_chain(m, k, n):
    a, b = _x((m, k)), _x((k, n))
    want = np.empty((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            acc = np.float32(0)
            for p in range(k):
                acc = _fma_oracle(a[i, p], b[p, j], acc)
            want[i, j] = acc
    np.testing.assert_array_equal(eigen_gemm.chain(a, b).view(np.int32), want.view(np.int32))


@pytest.mark.parametrize("size, block, over, want", [
    (264, 256, 256, [0, 132, 264]), (256, 256, 256, [0, 256]), (784, 256, 256, [0, 256, 512, 648, 784]),
    (513, 256, 256, [0, 256, 385, 513]), (128, 48, 72, [0, 48, 88, 128]), (72, 48, 72, [0, 72]),
    (73, 48, 72, [0, 37, 73]), (1, 256, 256, [0, 1]),
])
def test_dnnl_split(size, block, over, want):
    assert eigen_gemm.dnnl_split(size, block, over) == want


def test_widths_and_heights():
    """16-wide tiles, a remainder over 8 on the 16-wide kernel, 8 or fewer on the 8-wide;
    6-row groups and the remainder's own height, restarting at each block."""
    assert list(eigen_gemm.widths(20, 20)) == [16] * 16 + [8] * 4
    assert list(eigen_gemm.widths(30, 30)) == [16] * 30
    assert list(eigen_gemm.widths(40, 24)) == [16] * 16 + [8] * 8 + [16] * 16
    assert list(eigen_gemm.heights(20, 20)) == [6] * 18 + [2] * 2
    assert list(eigen_gemm.heights(128, 72)) == [6] * 72 + [6] * 54 + [2] * 2
    assert list(eigen_gemm.heights(128, 128)) == [6] * 48 + [6] * 36 + [4] * 4 + [6] * 36 + [4] * 4


@pytest.mark.parametrize("m, k, n, threads, pieces, shards", [
    # one pass, one Eigen slice of 392 (k=784: Eigen's kc 400, evened out), each cut in two by oneDNN
    (32, 784, 10, 2, [0, 196, 392, 588, 784], 1),
    # parallel: kc 264 (320 evened out over 3 slices), oneDNN halves the 264s
    (128, 784, 256, 2, [0, 132, 264, 396, 528, 784], 1),
    # small: one piece
    (30, 20, 10, 2, [0, 20], 1),
    (30, 20, 10, 1, [0, 20], 1),
])
def test_plan(m, k, n, threads, pieces, shards):
    plan = eigen_gemm.plan(m, k, n, threads, CACHES)
    assert len(plan) == shards
    assert plan[0][2] == pieces


def test_inner_dim_sharding():
    """64x5000x64 on 2 threads: k cut in blocks of round8(5000 / 2) = 2504, each its own pass."""
    plan = eigen_gemm.plan(64, 5000, 64, 2, CACHES)
    assert [(k0, k1) for k0, k1, *_ in plan] == [(0, 2504), (2504, 5000)]


def test_add_blocks_order():
    """Eigen's sums of 4 blocks: (b0 + b1) + (b2 + b3) in whole packets of 8, b0 + ((b1 +
    b2) + b3) for the flat tail; 2 or 3 blocks one after the other."""
    big, one, eps = np.float32(2.0 ** 24), np.float32(1), np.float32(-(2.0 ** 24))
    blocks = [np.full((3, 3), v, np.float32) for v in (big, one, eps, one)]
    got = eigen_gemm._add_blocks(blocks).reshape(-1)
    # packets: (2^24 + 1) + (-2^24 + 1) = 2^24 + (-2^24 + 1) = 1; tail: 2^24 + ((1 - 2^24) + 1) = 2
    assert list(got[:8]) == [1] * 8 and got[8] == 2
    got3 = eigen_gemm._add_blocks(blocks[:3]).reshape(-1)
    assert list(got3) == [0] * 9  # (2^24 + 1) - 2^24
