"""``ref.ops.eigen_redux``: ``BiasAddGrad`` (NHWC, and matrices) in TF's
``ReduceOuterDimensions`` order, bit for bit against ``tf.raw_ops``: one row,
channels above ``32 * threads`` (row by row), row blocks run in one call or in
parallel runs, half summed in float; NCHW's ``ReduceMiddleDimensions``; on another intra-op pool size (a TF
process of its own); ``parallel_for_runs`` and the order by hand."""
import json
import subprocess
import sys

import numpy as np
import pytest

from ref import raw_ops
from ref.ops import eigen_redux, fused, nn

_RNG = np.random.RandomState(5)

SHAPES = [(1, 7), (2, 3), (128, 10), (1000, 5), (32, 784), (20000, 10), (5000, 50), (100000, 3),
          (8, 7, 7, 16), (64, 64), (3, 65), (200, 64), (50000, 40), (400, 1000), (30, 5, 5, 100)]


def _x(shape, dtype=np.float32):
    return np.asarray(_RNG.randn(*shape) * 3, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
def test_bias_add_grad_equals_tensorflow(dtype, shape):
    tf = pytest.importorskip("tensorflow")
    x = _x(shape, dtype)
    want = tf.raw_ops.BiasAddGrad(out_backprop=x).numpy()
    got = raw_ops.BiasAddGrad(out_backprop=x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


NCHW = [(3, 10), (40, 6), (2000, 7), (2, 3, 4, 5), (8, 16, 7, 7), (32, 64, 10, 10), (4, 3, 100, 100),
        (1, 5, 30, 30), (64, 10, 3), (100, 20, 50), (2, 3, 4, 5, 6)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", NCHW, ids=[str(s) for s in NCHW])
def test_nchw_equals_tensorflow(dtype, shape):
    """NCHW: ReduceMiddleDimensions' blocks of the flat input, each row piece a tree reduction."""
    tf = pytest.importorskip("tensorflow")
    x = _x(shape, dtype)
    want = tf.raw_ops.BiasAddGrad(out_backprop=x, data_format="NCHW").numpy()
    got = raw_ops.BiasAddGrad(out_backprop=x, data_format="NCHW")
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


_CHILD = """
import json, sys, numpy as np, tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads({threads})
x = np.load(sys.argv[1])
print(json.dumps(tf.raw_ops.BiasAddGrad(out_backprop=x).numpy().view(np.int32).tolist()))
"""


@pytest.mark.parametrize("threads", [4])
def test_other_pool_sizes_equal_tensorflow(threads, tmp_path):
    pytest.importorskip("tensorflow")
    x = _x((30000, 12))
    np.save(tmp_path / "x.npy", x)
    out = subprocess.run([sys.executable, "-c", _CHILD.format(threads=threads), str(tmp_path / "x.npy")],
                         capture_output=True, text=True, check=True).stdout
    want = np.asarray(json.loads(out.strip().splitlines()[-1]), np.int32)
    got = eigen_redux.reduce_outer_dims(x, threads=threads)
    np.testing.assert_array_equal(got.view(np.int32), want)
    two = eigen_redux.reduce_outer_dims(x, threads=2)
    assert not np.array_equal(two, got)  # the pool size matters here


def test_parallel_for_runs_by_hand():
    """4 blocks of 3000 cycles: 4 * 3000 < 210000 cycles, one thread: one call. 4 blocks of
    60000 cycles on 2 threads: taskSize 1.5, block size max(ceil(4 / 8), 0) -> 1, four blocks
    at efficiency 1: four calls."""
    assert eigen_redux.parallel_for_runs(4, 3000, 2) == [(0, 4)]
    assert eigen_redux.parallel_for_runs(4, 60000, 2) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert eigen_redux.parallel_for_runs(1, 1e9, 8) == [(0, 1)]


def test_order_by_hand():
    """[20000, 10] on 2 threads: 2 blocks of 10000 rows (a block: 10000 * 10 * (4 * 11/64 + 1)
    cycles, two threads), each summed row by row from 0, then buf0 + buf1."""
    x = _x((20000, 10))
    f = np.float32
    halves = []
    for part in (x[:10000], x[10000:]):
        s = np.zeros(10, f)
        for row in part:
            s = s + row
        halves.append(s)
    want = halves[0] + halves[1]
    got = eigen_redux.reduce_outer_dims(x, threads=2)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))


@pytest.mark.parametrize("shape, threads, sequential", [
    ((128, 10), 2, True), ((20000, 10), 2, False), ((32, 784), 2, True), ((1, 5), 8, True), ((50000, 40), 2, False)])
def test_row_after_row_says_when_blocks_do_not_matter(shape, threads, sequential):
    x = _x(shape)
    assert eigen_redux.row_after_row(*shape, np.float32, threads) is sequential
    if sequential:  # then the sum is row after row from 0
        want = np.zeros(shape[1], np.float32)
        for row in x:
            want = want + row
        np.testing.assert_array_equal(eigen_redux.reduce_outer_dims(x, threads=threads), want)


def test_fused_relu_bias_grad_keeps_tensorflows_blocks():
    tf = pytest.importorskip("tensorflow")
    g, f = _x((20000, 10)), _x((20000, 10))
    back, bias = fused.relu_bias_grads(nn.relu_grad, nn.bias_add_grad, g, f)
    want = tf.raw_ops.BiasAddGrad(out_backprop=tf.raw_ops.ReluGrad(gradients=g, features=f)).numpy()
    np.testing.assert_array_equal(bias, want)
