"""TF's ``redux_functor.h`` on the CPU, in TF's order: ``ReduceOuterDimensions``, the
sum over every leading axis that ``BiasAddGrad`` makes for ``NHWC``, and
``ReduceMiddleDimensions``, its ``NCHW`` sum (:func:`reduce_middle_dims`).

The input is viewed as ``[outer, inner]`` (``inner``: the channels). With one
row it is copied. With more than ``32 * T`` channels (``T``: TF's intra-op
threads, :func:`ref.ops.eigen_reduce.pool_threads`) each channel is summed row
by row from 0 (the threads split the channels, not the rows). Otherwise the rows
are cut into ``b = min(T, outer, ceil(outer * inner / ceil(2000 / inner)))``
blocks of ``ceil(outer / b)`` rows; Eigen's ``parallelFor`` over the ``b``
blocks (cost a block: its bytes at 11/64 cycles and one cycle a value) runs
them all in one call when its cost model gives one thread, and else in runs of
``block_size`` blocks (``CalculateParallelForBlock``); each run sums its rows
row by row from 0 into the buffer of its first block, and the buffers are then
added in order, ``((buf0 + buf1) + buf2) + ...`` (a buffer no run wrote is
zeros). half and bfloat16 sum in float32 (TF's ``AccumulatorType``; ``NCHW``
reduces each row piece in half, which this module leaves to NumPy).
(Measured against tensorflow-cpu 2.21: ``tests/ops/test_eigen_redux.py``.)
"""
from __future__ import annotations

import numpy as np

from ref.ops.eigen_reduce import _tree, pool_threads

_LOAD = 11 / 64
"""Eigen's cost model's cycles to load a byte (from L2)."""


def _threads(n, cost, threads):
    """``TensorCostModel::numThreads`` for ``n`` items of ``cost`` cycles each."""
    t = int((n * cost - 100000) / 100000 + 0.9)
    return min(threads, max(1, t))


def parallel_for_runs(n, cost, threads):
    """The ``(start, limit)`` calls Eigen's ``ThreadPoolDevice::parallelFor`` makes over ``n``
    items of ``cost`` cycles each on ``threads`` threads (no alignment)."""
    if n <= 0:
        return []
    if n == 1 or threads == 1 or _threads(n, cost, threads) == 1:
        return [(0, n)]
    size_f = 1.0 / (cost / 40000)
    size = min(n, max(-(-n // (4 * threads)), int(size_f) if size_f < n else n))
    largest = min(n, 2 * size)
    count = -(-n // size)
    best = count / (-(-count // threads) * threads)
    prev = count
    while best < 1.0 and prev > 1:
        coarser = -(-n // (prev - 1))
        if coarser > largest:
            break
        coarser_count = -(-n // coarser)
        prev = coarser_count
        eff = coarser_count / (-(-coarser_count // threads) * threads)
        if eff + 0.01 >= best:
            size, count = coarser, coarser_count
            best = max(best, eff)
    return [(s, min(n, s + size)) for s in range(0, n, size)]


def _rows_in_order(x):
    """Each column of the C-contiguous ``x`` summed row by row from 0: NumPy's reduction over
    the rows of two or more columns adds row after row (its inner loop runs along a
    row); one column, NumPy's accumulate (sequential)."""
    if x.shape[0] == 0:
        return np.zeros(x.shape[1], x.dtype)
    if x.shape[1] >= 2:
        total = np.add.reduce(x, axis=0)
    else:
        total = np.add.accumulate(x, axis=0)[-1]
    return total + x.dtype.type(0)  # (0 + -0 is +0, as from 0)


def _plan(outer, inner, itemsize, threads):
    """``(blocks, rows a block, runs)`` of :func:`reduce_outer_dims`' blocked branch."""
    min_block = -(-2000 // inner)
    blocks = min(threads, outer, -(-(outer * inner) // min_block))
    per = -(-outer // blocks)
    cost = per * inner * itemsize * _LOAD + per * inner
    return blocks, per, parallel_for_runs(blocks, cost, threads)


def row_after_row(outer, inner, dtype, threads=None):
    """Whether :func:`reduce_outer_dims` of an ``[outer, inner]`` float32/float64 matrix is its
    rows summed one after the other from 0 (one run, or more channels than ``32 *
    threads``): a fused ``ReluGrad`` + ``BiasAddGrad`` sweep gives its bits then."""
    threads = pool_threads() if threads is None else threads
    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        return False
    if outer <= 1 or inner > threads * 32:
        return True
    return len(_plan(outer, inner, np.dtype(dtype).itemsize, threads)[2]) == 1


def reduce_outer_dims(x2, threads=None):
    """TF's ``ReduceOuterDimensions`` sum of the ``[outer, inner]`` matrix ``x2`` over its rows."""
    threads = pool_threads() if threads is None else threads
    dtype = x2.dtype
    acc = np.float32 if dtype.itemsize < 4 else dtype
    outer, inner = x2.shape
    if outer == 1:
        return x2.reshape(-1).copy()
    x = np.ascontiguousarray(x2, acc)
    with np.errstate(all="ignore"):
        if inner > threads * 32:
            return _rows_in_order(x).astype(dtype)
        blocks, per, runs = _plan(outer, inner, dtype.itemsize, threads)
        bufs = np.zeros((blocks, inner), acc)
        for start, limit in runs:
            bufs[start] = _rows_in_order(x[start * per:min(outer, limit * per)])
        total = bufs[0]
        for i in range(1, blocks):
            total = total + bufs[i]
    return total.astype(dtype)


def reduce_middle_dims(x3, threads=None):
    """TF's ``ReduceMiddleDimensions`` sum of ``x3`` (``[outer, middle, inner]``: NCHW's
    ``[N, C, H*W]``) over its first and last axes: the flat input cut into ``b`` blocks
    of ``ceil(size / b)`` values (``b = min(T, outer * middle, ceil(size / ceil(2000 /
    inner)))``), Eigen's ``parallelFor`` runs over them; a run reduces each piece of
    an ``inner`` row in its range (:func:`ref.ops.eigen_reduce.full`'s tree, from the
    piece's start) and adds it to its channel in the buffer of its first block; the
    buffers are then added in order."""
    threads = pool_threads() if threads is None else threads
    dtype = x3.dtype
    acc = np.float32 if dtype.itemsize < 4 else dtype
    outer, middle, inner = x3.shape
    if outer * inner == 1:
        return x3.reshape(-1).copy()
    flat = np.ascontiguousarray(x3, acc).reshape(-1)
    total = flat.size
    min_block = -(-2000 // inner)
    blocks = min(threads, outer * middle, -(-total // min_block))
    per = -(-total // blocks)
    cost = per * inner * dtype.itemsize * _LOAD + per * inner
    bufs = np.zeros((blocks, middle), acc)

    def piece(a, b):
        return _tree(np.ascontiguousarray(flat[a:b]), 0, b - a) if b > a else flat.dtype.type(0)

    with np.errstate(all="ignore"):
        for start, limit in parallel_for_runs(blocks, cost, threads):
            first, last = start * per, min(total, limit * per)
            lo, hi = -(-first // inner) * inner, (last // inner) * inner
            buf = bufs[start]
            c = first // inner % middle
            buf[c] = buf[c] + piece(first, lo)
            c = lo // inner % middle
            for i in range(lo, hi, inner):
                buf[c] = buf[c] + piece(i, i + inner)
                c = (c + 1) % middle
            buf[c] = buf[c] + piece(hi, last)
        out = bufs[0]
        for i in range(1, blocks):
            out = out + bufs[i]
    return out.astype(dtype)
