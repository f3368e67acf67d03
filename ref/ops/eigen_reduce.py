"""TF's float32 ``Sum``/``Mean`` over trailing axes, in Eigen's order.

TF's reduction kernels first drop dimensions of size 1 and merge neighbouring
dimensions that are both reduced or both kept (``ReductionHelper``). When what
is left is ``[reduced]`` (every axis) or ``[kept, reduced]`` (trailing axes),
Eigen reduces each row of ``n`` values with ``InnerMostDimReducer`` (TF's x86-64
build: AVX packets of :data:`PACKET` float32 lanes, no FMA):

* rows longer than ``8 * 1024`` (``PACKET * LeafSize<float>()``) split at the
  first packet boundary (counted from the tensor's start) at or after their
  middle, and the two halves' sums are added;
* otherwise, with ``p0..p3`` packets of zeros: while 32 values are left, add the
  next four packets into ``p0, p1, p2, p3`` (lane by lane); then
  ``p0 = ((p0 + p1) + p2) + p3``; add each further whole packet into ``p0``;
  sum the last ``n % 8`` values one by one from 0 into ``s``; the row's sum is
  ``s + predux(p0)``, ``predux`` adding the packet's halves lane by lane
  (``q_i = p_i + p_{i+4}``) and then ``(q0 + q2) + (q1 + q3)``.

A full reduction (``[reduced]``) is first cut by ``FullReducer`` into as many
blocks as Eigen's cost model gives threads: ``t = int((n * c - 100000) / 100000
+ 0.9)`` clamped to ``[1, T]``, with ``c = 4 * 11 / 64 + 10 / 8`` cycles a value
(a float's load from L2, and the reducer's default cost of 10 over a packet)
and ``T`` the size of TF's intra-op thread pool (:func:`pool_threads`). With
``t > 1``, each of ``n // (n // t)`` blocks of ``n // t`` values is reduced as a
row, the values left over too, and the total is ``((rest + block_0) +
block_1) + ...``. ``Mean`` is the sum divided by the float32 count. (Measured against
tensorflow-cpu 2.21: every output equal, up to 3M values and rows of every
length; ``tests/ops/test_eigen_reduce.py``.) Other layouts (a leading reduced
axis, reduced axes between kept ones) keep NumPy's order.
"""
from __future__ import annotations

import os

import numpy as np

from ref.ops import _jit
from ref.ops._jit import njit, numpy_tier, run_numpy_form

PACKET = 8
LEAF = PACKET * 1024
"""Values of a row above which it is split in two (``LeafSize<float>`` packets)."""

_F = np.float32


@njit(inline="always")
def _leaf(x, first, n, p):
    """Eigen's non-tree inner reduction of ``x[first:first + n]`` (``p``: a [4, 8] scratch)."""
    for k in range(4):
        for lane in range(8):
            p[k, lane] = 0.0
    start = 0
    if n >= 32:
        v4 = (n // 32) * 32
        for j in range(0, v4, 32):
            for k in range(4):
                for lane in range(8):
                    p[k, lane] = p[k, lane] + x[first + j + 8 * k + lane]
        for k in range(1, 4):
            for lane in range(8):
                p[0, lane] = p[0, lane] + p[k, lane]
        start = v4
    if start <= n - 8:
        v = (n // 8) * 8
        for j in range(start, v, 8):
            for lane in range(8):
                p[0, lane] = p[0, lane] + x[first + j + lane]
        start = v
    s = np.float32(0.0)
    for j in range(start, n):
        s = s + x[first + j]
    q0 = p[0, 0] + p[0, 4]
    q1 = p[0, 1] + p[0, 5]
    q2 = p[0, 2] + p[0, 6]
    q3 = p[0, 3] + p[0, 7]
    return s + ((q0 + q2) + (q1 + q3))


@njit(nogil=True)
def _rows(x, n, out):
    """out[r] = the leaf sum of row r of the flat ``x`` (rows of ``n`` values, n <= LEAF)."""
    p = np.empty((4, 8), x.dtype)
    for r in range(out.size):
        out[r] = _leaf(x, r * n, n, p)
    return out


@njit(nogil=True)
def _one(x, first, n):
    p = np.empty((4, 8), x.dtype)
    return _leaf(x, first, n, p)


def _rows_numpy(x, n, out):
    """:func:`_rows` as NumPy passes over all rows at once (the same additions in the same order)."""
    rows = x.reshape(-1, n)
    p = np.zeros((rows.shape[0], 4, 8), _F)
    start = 0
    if n >= 32:
        v4 = (n // 32) * 32
        for j in range(0, v4, 32):
            p += rows[:, j:j + 32].reshape(-1, 4, 8)
        p[:, 0] += p[:, 1]
        p[:, 0] += p[:, 2]
        p[:, 0] += p[:, 3]
        start = v4
    acc = p[:, 0]
    if start <= n - 8:
        v = (n // 8) * 8
        for j in range(start, v, 8):
            acc += rows[:, j:j + 8]
        start = v
    s = np.zeros(rows.shape[0], _F)
    for j in range(start, n):
        s += rows[:, j]
    q = acc[:, :4] + acc[:, 4:]
    out[:] = s + ((q[:, 0] + q[:, 2]) + (q[:, 1] + q[:, 3]))
    return out


def _leaf_sum(flat, first, n):
    if numpy_tier(_one, n):
        return run_numpy_form(_one, lambda: _rows_numpy(flat[first:first + n], n, np.empty(1, _F))[0])
    return _one(flat, first, n)


def _tree(flat, first, n):
    """Eigen's tree reduction of ``flat[first:first + n]``."""
    if n <= LEAF:
        return _leaf_sum(flat, first, n)
    split = PACKET * -(-(first + -(-n // 2)) // PACKET)
    left = min(split - first, n)
    total = _tree(flat, first, left)
    if left < n:
        total = _F(total + _tree(flat, split, n - left))
    return total


_COST_PER_VALUE = 4 * 11 / 64 + 10 / 8
"""Eigen's cost model's cycles for one value of a float32 full sum (``TensorCostModel``)."""


def pool_threads() -> int:
    """TF's intra-op thread pool size, which its full reductions' blocks follow: the CPUs
    this process may run on (TF's default), or ``REF_TF_INTRA_OP_THREADS``."""
    env = os.environ.get("REF_TF_INTRA_OP_THREADS")
    if env:
        return max(1, int(env))
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _full(flat):
    """Eigen's ``FullReducer`` on a thread pool of :func:`pool_threads` threads."""
    n = flat.size
    t = int((n * _COST_PER_VALUE - 100000) / 100000 + 0.9)
    t = min(pool_threads(), max(1, t))
    if t == 1:
        return _tree(flat, 0, n)
    block = n // t
    blocks = n // block
    total = _tree(flat, blocks * block, n - blocks * block) if blocks * block < n else _F(0)
    for i in range(blocks):
        total = _F(total + _tree(flat, i * block, block))
    return total


def _simplified(shape, axes):
    """TF's ReductionHelper: ``(dims, reduce_first)`` after dropping size-1 dims and merging
    neighbours of one kind; ``dims`` alternate kept/reduced starting with reduced if
    ``reduce_first``."""
    dims, kinds = [], []
    for i, d in enumerate(shape):
        if d == 1:
            continue
        kind = i in axes
        if kinds and kinds[-1] == kind:
            dims[-1] *= d
        else:
            dims.append(d)
            kinds.append(kind)
    return dims, kinds


def row_sums(x, axes):
    """The Eigen-order sums of float32 ``x`` over ``axes`` (sorted, canonical) as a flat
    array of the kept elements in C order, or None where TF reduces in another
    layout (this module's docstring)."""
    if x.dtype != _F or x.size == 0:
        return None
    dims, kinds = _simplified(x.shape, set(axes))
    if not dims:  # every kept and reduced dimension of size 1
        return np.ascontiguousarray(x, _F).reshape(-1)[:1].copy() if axes else None
    if kinds == [True]:
        rows, n = 1, dims[0]
    elif kinds == [False, True]:
        rows, n = dims
    else:
        return None
    if rows == 1:
        return np.array([_full(np.ascontiguousarray(x).reshape(-1))], _F)
    return sum_rows(np.ascontiguousarray(x).reshape(rows, n))


def sum_rows(x):
    """The Eigen-order sum of each row of a float32 matrix (``InnerMostDimReducer``: a
    reduction along the last axis of a matrix, as TF's softmax and cross-entropy
    kernels make; no thread blocks, even for one row)."""
    rows, n = x.shape
    if n == 0:
        return np.zeros(rows, _F)
    flat = np.ascontiguousarray(x, _F).reshape(-1)
    if n > LEAF:
        return np.array([_tree(flat, r * n, n) for r in range(rows)], _F)
    out = np.empty(rows, _F)
    with np.errstate(all="ignore"):
        if numpy_tier(_rows, flat.size):
            return run_numpy_form(_rows, _rows_numpy, flat, n, out)
        return _rows(flat, n, out)


# The NumPy forms serve every size while the loops build in the background.
_jit.compiles_in_background(_rows, lambda: _rows(np.ones(40, _F), 40, np.empty(1, _F)), any_size=True)
_jit.compiles_in_background(_one, lambda: _one(np.ones(40, _F), 0, 40), any_size=True)
