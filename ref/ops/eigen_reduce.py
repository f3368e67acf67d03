"""TF's float32/float64 ``Sum``/``Mean``/``Prod`` (and the sums of ``L2Loss``,
``EuclideanNorm``) in Eigen's order.

TF's reduction kernels first drop dimensions of size 1 and merge neighbouring
dimensions that are both reduced or both kept (``ReductionHelper``), then take
one of these paths (TF's x86-64 build: AVX packets of :data:`PACKET` float32 or
4 float64 lanes, no FMA; products as sums with ``*`` and identity 1):

* ``[kept, reduced]`` (trailing axes) and ``[reduced]``: each row of ``n`` values
  by ``InnerMostDimReducer``:

  - sums (not products: ``ProdReducer`` is declared exactly associative) of rows
    longer than ``lanes * 1024`` (``LeafSize``) split at the first packet
    boundary (counted from the tensor's start) at or after their middle, and
    the two halves' results are added;
  - otherwise, with ``p0..p3`` packets of identities: while ``4 * lanes`` values
    are left, combine the next four packets into ``p0, p1, p2, p3`` (lane by
    lane); then ``p0 = ((p0 + p1) + p2) + p3``; combine each further whole
    packet into ``p0``; the last ``n % lanes`` values one by one from the
    identity into ``s``; the row's result is ``s + predux(p0)``, ``predux``
    halving the packet lane by lane (``q_i = p_i + p_{i+lanes/2}``) down to
    one lane (float32: ``(q0 + q2) + (q1 + q3)``; float64: ``q0 + q1``);

* ``[reduced, kept]`` and ``[kept, reduced, kept]`` (a leading or middle axis):
  outputs in packets of ``lanes`` (counted over the flat output) that lie in one
  row of the innermost kept dimension by ``InnerMostDimPreserver``: from 16
  reduced rows on, four accumulators take rows ``j % 4`` up to the last multiple
  of 4, are combined ``((a0 + a1) + a2) + a3`` and the remaining rows are
  added to that; fewer rows, one after the other; every other output (the
  last ``n % lanes``, packets straddling a row) by ``GenericDimReducer``: its
  values one after the other from the identity;
* ``[reduced, kept, reduced]``: each output by ``GenericDimReducer``: for each
  index of the last reduced dimension, for each of the first, in that order;
* more dimensions: TF transposes the kept dimensions first and reduces the
  rows of the copy as ``[kept, reduced]``.

A full reduction (``[reduced]``) is first cut by ``FullReducer`` into as many
blocks as Eigen's cost model gives threads: ``t = int((n * c - 100000) / 100000
+ 0.9)`` clamped to ``[1, T]``, with ``c`` (:func:`value_cost`) the cycles a
value: its loads at 11/64 a byte plus the reducer's default cost of 10 and
any element-wise operations, over a packet; ``T`` the size of TF's intra-op
thread pool (:func:`pool_threads`). With ``t > 1``, each of ``n // (n // t)``
blocks of ``n // t`` values is reduced as a row, the values left over too,
and the total is ``((rest + block_0) + block_1) + ...``. ``Mean`` is the sum
divided by the count in the input's type. (Measured against tensorflow-cpu
2.21: every output equal; ``tests/ops/test_eigen_reduce.py``.) Other dtypes keep
NumPy's order.
"""
from __future__ import annotations

import os

import numpy as np

from ref.ops import _jit
from ref.ops._jit import njit, numpy_tier, run_numpy_form

PACKET = 8
LEAF = PACKET * 1024
"""Values of a float32 row above which it is split in two (``LeafSize<float>`` packets)."""

_F = np.float32
_LANES = {np.dtype(np.float32): 8, np.dtype(np.float64): 4}
"""AVX packet lanes (``Packet8f``, ``Packet4d``) of the dtypes this module reduces."""


@njit(inline="always")
def _op(a, b, mul):
    return a * b if mul else a + b


@njit(nogil=True)
def _runs(y, runs, q, mul):
    """q[t] = q[t] (+ or *) y[j * w + t] for each run j of ``w = q.size`` values, in order (a
    function of its own and a view per run: LLVM vectorises it over t)."""
    w = q.size
    if mul:
        for j in range(runs):
            run = y[j * w:j * w + w]
            for t in range(w):
                q[t] = q[t] * run[t]
    else:
        for j in range(runs):
            run = y[j * w:j * w + w]
            for t in range(w):
                q[t] = q[t] + run[t]


@njit(inline="always")
def _leaf(x, first, n, p, mul):
    """Eigen's non-tree inner reduction of ``x[first:first + n]`` (``p``: a [4, lanes]
    scratch; ``mul``: products, else sums). The four packets are one flat run of
    ``4 * lanes`` accumulators, each combined with its own value of the next run, so
    the loop vectorises (lane by lane, the same operations in the same order)."""
    lanes = p.shape[1]
    w = 4 * lanes
    q = p.reshape(w)
    y = x[first:first + n]  # indices from 0: no negative-index wrap in the loops
    one = 1.0 if mul else 0.0
    for t in range(w):
        q[t] = one
    s = q[0]  # the identity, in x's type
    start = 0
    if n >= w:
        v4 = (n // w) * w
        _runs(y, v4 // w, q, mul)
        for k in range(1, 4):
            for lane in range(lanes):
                q[lane] = _op(q[lane], q[lanes * k + lane], mul)
        start = v4
    if start <= n - lanes:
        v = (n // lanes) * lanes
        for j in range(start, v, lanes):
            for lane in range(lanes):
                q[lane] = _op(q[lane], y[j + lane], mul)
        start = v
    for j in range(start, n):
        s = _op(s, y[j], mul)
    half = lanes // 2
    while half >= 1:  # predux: the packet's halves lane by lane, down to one lane
        for lane in range(half):
            q[lane] = _op(q[lane], q[lane + half], mul)
        half //= 2
    return _op(s, q[0], mul)


@njit(nogil=True)
def _rows(x, n, out):
    """out[r] = the leaf sum of row r of the flat float32 ``x`` (rows of ``n`` values, n <= LEAF)."""
    p = np.empty((4, 8), x.dtype)
    for r in range(out.size):
        out[r] = _leaf(x, r * n, n, p, False)
    return out


@njit(nogil=True)
def _leaves(x, n, lanes, mul, out):
    """out[r] = the leaf reduction of row r of the flat ``x``, any dtype and reducer."""
    p = np.empty((4, lanes), x.dtype)
    for r in range(out.size):
        out[r] = _leaf(x, r * n, n, p, mul)
    return out


@njit(nogil=True)
def _one(x, first, n):
    p = np.empty((4, 8), x.dtype)
    return _leaf(x, first, n, p, False)


def _rows_numpy(x, n, out, mul=False):
    """:func:`_leaves` as NumPy passes over all rows at once (the same operations in the same order)."""
    dt = x.dtype
    lanes = _LANES[dt]
    op = np.multiply if mul else np.add
    rows = x.reshape(-1, n)
    p = np.full((rows.shape[0], 4, lanes), 1 if mul else 0, dt)
    start = 0
    if n >= 4 * lanes:
        v4 = (n // (4 * lanes)) * (4 * lanes)
        for j in range(0, v4, 4 * lanes):
            op(p, rows[:, j:j + 4 * lanes].reshape(-1, 4, lanes), out=p)
        for k in (1, 2, 3):
            op(p[:, 0], p[:, k], out=p[:, 0])
        start = v4
    acc = p[:, 0]
    if start <= n - lanes:
        v = (n // lanes) * lanes
        for j in range(start, v, lanes):
            op(acc, rows[:, j:j + lanes], out=acc)
        start = v
    s = np.full(rows.shape[0], 1 if mul else 0, dt)
    for j in range(start, n):
        op(s, rows[:, j], out=s)
    while acc.shape[1] > 1:
        h = acc.shape[1] // 2
        acc = op(acc[:, :h], acc[:, h:])
    out[:] = op(s, acc[:, 0])
    return out


def _leaf_rows(flat, n, mul, out):
    """Leaf reductions of the rows of ``n`` values of ``flat`` into ``out``."""
    if flat.dtype == _F and not mul:
        if numpy_tier(_rows, flat.size):
            return run_numpy_form(_rows, _rows_numpy, flat, n, out)
        return _rows(flat, n, out)
    if numpy_tier(_leaves, flat.size):
        return run_numpy_form(_leaves, _rows_numpy, flat, n, out, mul)
    return _leaves(flat, n, _LANES[flat.dtype], mul, out)


@njit(inline="always")
def _tree_walk(x, first, n, p, frames, vals, base):
    """Eigen's tree sum of ``x[first:first + n]`` (leaves of 1024 packets of ``p.shape[1]``
    lanes, each split at the first packet boundary at or after its middle, counted
    from the tensor's start, which is ``base`` values before ``x[0]``) without
    recursion: ``frames`` a stack of (first, n, stage), ``vals`` the sums still to add."""
    lanes = p.shape[1]
    leaf = lanes * 1024
    if n <= leaf:
        return _leaf(x, first, n, p, False)
    frames[0, 0], frames[0, 1], frames[0, 2] = first, n, 0
    top, nv = 1, 0
    while top > 0:
        top -= 1
        f, m, stage = frames[top, 0], frames[top, 1], frames[top, 2]
        if m <= leaf:
            vals[nv] = _leaf(x, f, m, p, False)
            nv += 1
            continue
        split = lanes * -(-(base + f + -(-m // 2)) // lanes) - base
        left = min(split - f, m)
        if stage == 0:  # the left half first, then come back
            frames[top, 0], frames[top, 1], frames[top, 2] = f, m, 1
            frames[top + 1, 0], frames[top + 1, 1], frames[top + 1, 2] = f, left, 0
            top += 2
        elif stage == 1:
            if left < m:  # then the right half, then come back to add them
                frames[top, 0], frames[top, 1], frames[top, 2] = f, m, 2
                frames[top + 1, 0], frames[top + 1, 1], frames[top + 1, 2] = split, m - left, 0
                top += 2
        else:
            nv -= 1
            vals[nv - 1] = vals[nv - 1] + vals[nv]
    return vals[0]


@njit(nogil=True)
def tree_sum(x, first, n, lanes):
    """Eigen's tree sum of ``x[first:first + n]`` (``x`` flat float32 or float64, ``lanes``
    its packet): :func:`_tree`'s compiled loop."""
    p = np.empty((4, lanes), x.dtype)
    frames = np.empty((128, 3), np.int64)
    vals = np.empty(128, x.dtype)
    return _tree_walk(x, first, n, p, frames, vals, 0)


@njit(nogil=True)
def _tree_rows(x, n, lanes, out):
    """out[r] = the tree sum of row r of the flat ``x`` (rows of ``n`` values)."""
    p = np.empty((4, lanes), x.dtype)
    frames = np.empty((128, 3), np.int64)
    vals = np.empty(128, x.dtype)
    for r in range(out.size):
        out[r] = _tree_walk(x, r * n, n, p, frames, vals, 0)
    return out


def _tree_numpy(flat, first, n, mul=False):
    """:func:`_tree` by recursion, its leaves by :func:`_leaf_rows` (the compiled tree's form)."""
    lanes = _LANES[flat.dtype]
    if n <= lanes * 1024 or mul:
        return _leaf_rows(flat[first:first + n], n, mul, np.empty(1, flat.dtype))[0]
    split = lanes * -(-(first + -(-n // 2)) // lanes)
    left = min(split - first, n)
    total = _tree_numpy(flat, first, left, mul)
    if left < n:
        right = _tree_numpy(flat, split, n - left, mul)
        total = total * right if mul else total + right
    return total


def _tree_rows_numpy(flat, n, lanes, out):
    out[:] = [_tree_numpy(flat, r * n, n) for r in range(out.size)]
    return out


def _tree(flat, first, n, mul=False):
    """Eigen's tree reduction of ``flat[first:first + n]`` (a leaf of 1024 packets); none for
    products (``ProdReducer`` is declared exactly associative)."""
    lanes = _LANES[flat.dtype]
    if n <= lanes * 1024 or mul:
        return _leaf_rows(flat[first:first + n], n, mul, np.empty(1, flat.dtype))[0]
    if numpy_tier(tree_sum, n):
        return run_numpy_form(tree_sum, _tree_numpy, flat, first, n)
    return flat.dtype.type(tree_sum(flat, first, n, lanes))  # a NumPy scalar of x's type, as the form's


_COST_PER_VALUE = 4 * 11 / 64 + 10 / 8
"""Eigen's cost model's cycles for one value of a float32 full sum (``TensorCostModel``)."""


def value_cost(dtype, ops=0, loads=1):
    """Eigen's cost model's cycles a value of a full reduction of ``dtype``: ``loads`` loads
    from L2 (11/64 a byte; an expression's every leaf counts), the reducer's default
    cost (10) and ``ops`` element-wise operations of cost 1 on it, the two last over a
    packet (L2Loss's ``square() * 0.5``: ops=2; EuclideanNorm's ``in * in.conjugate()``:
    two leaves, one product)."""
    dtype = np.dtype(dtype)
    return loads * dtype.itemsize * 11 / 64 + (10 + ops) / _LANES[dtype]


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


def full(flat, mul=False, cost=None):
    """Eigen's ``FullReducer`` of the flat ``flat`` on a thread pool of :func:`pool_threads`
    threads (``cost``: cycles a value, :func:`value_cost` by default)."""
    n = flat.size
    cost = value_cost(flat.dtype) if cost is None else cost
    t = int((n * cost - 100000) / 100000 + 0.9)
    t = min(pool_threads(), max(1, t))
    if t == 1:
        return _tree(flat, 0, n, mul)
    block = n // t
    blocks = n // block
    if blocks * block < n:
        total = _tree(flat, blocks * block, n - blocks * block, mul)
    else:
        total = flat.dtype.type(1 if mul else 0)
    for i in range(blocks):
        part = _tree(flat, i * block, block, mul)
        total = total * part if mul else total + part
    return total


_full = full


@njit(inline="always")
def _column(x, first, stride, r, mul, scratch):
    scratch[0] = 1.0 if mul else 0.0
    s = scratch[0]
    for j in range(r):
        s = _op(s, x[first + j * stride], mul)
    return s


@njit(inline="always")
def _row_into(acc, k, x, row, k2n, mul):
    """acc[k] = acc[k] (+ or *) x[row:row + k2n], the branch taken once a row."""
    if mul:
        for c in range(k2n):
            acc[k, c] = acc[k, c] * x[row + c]
    else:
        for c in range(k2n):
            acc[k, c] = acc[k, c] + x[row + c]


@njit(nogil=True)
def _middle(x, k1n, r, k2n, lanes, mul, out):
    """``x`` a flat [k1n, r, k2n] -> out[k1n * k2n], reduced over its middle axis: output
    packets inside one row of k2n by ``InnerMostDimPreserver`` (four accumulators of
    rows j % 4 from 16 rows on), other outputs column by column. (Row by row over
    every column, then the other outputs again: the same operations a column
    meets, in its order, through contiguous rows.)"""
    n = k1n * k2n
    one_ = np.empty(1, x.dtype)
    one = 1.0 if mul else 0.0
    acc = np.empty((4, k2n), x.dtype)
    r4 = (r // 4) * 4 if r >= 16 else 0
    for k1 in range(k1n):
        for k in range(4):
            for c in range(k2n):
                acc[k, c] = one
        base = k1 * r * k2n
        for j in range(r4):
            _row_into(acc, j % 4, x, base + j * k2n, k2n, mul)
        if r4:
            for k in range(1, 4):
                for c in range(k2n):
                    acc[0, c] = _op(acc[0, c], acc[k, c], mul)
        for j in range(r4, r):
            _row_into(acc, 0, x, base + j * k2n, k2n, mul)
        for c in range(k2n):
            out[k1 * k2n + c] = acc[0, c]
    # outputs outside whole packets (straddling a row, or the last n % lanes): column by column
    for o in range(n):
        packet = (o // lanes) * lanes
        if packet + lanes > n or packet % k2n + lanes - 1 >= k2n:
            k1 = o // k2n
            out[o] = _column(x, k1 * r * k2n + (o - k1 * k2n), k2n, r, mul, one_)
    return out


def _middle_numpy(x, k1n, r, k2n, lanes, mul, out):
    """:func:`_middle` as NumPy passes over whole rows (the same operations in the same order)."""
    op = np.multiply if mul else np.add
    v = x.reshape(k1n, r, k2n)
    r4 = (r // 4) * 4 if r >= 16 else 0
    a0 = np.full((k1n, k2n), 1 if mul else 0, x.dtype)
    if r4:
        acc = np.full((4, k1n, k2n), 1 if mul else 0, x.dtype)
        for j in range(0, r4, 4):
            op(acc, v[:, j:j + 4].transpose(1, 0, 2), out=acc)
        a0 = acc[0]
        for k in (1, 2, 3):
            op(a0, acc[k], out=a0)
    for j in range(r4, r):
        op(a0, v[:, j], out=a0)
    out[:] = a0.reshape(-1)
    n = k1n * k2n
    o = np.arange(n)
    packet = (o // lanes) * lanes
    other = o[(packet + lanes > n) | (packet % k2n + lanes - 1 >= k2n)]
    if other.size:  # outside whole packets: column by column, from the identity
        cols = v[other // k2n, :, other % k2n]  # [len(other), r]
        seq = np.full(other.size, 1 if mul else 0, x.dtype)
        for j in range(r):
            op(seq, cols[:, j], out=seq)
        out[other] = seq
    return out


@njit(nogil=True)
def _outer(x, r1, k, r2, mul, out):
    """``x`` a flat [r1, k, r2] -> out[k] reduced over axes 0 and 2 (``GenericDimReducer``:
    for each j2, for each j0, in that order)."""
    for c in range(k):
        s = _column(x, 0, 1, 0, mul, out[c:c + 1])  # the identity, in x's type
        for j2 in range(r2):
            for j0 in range(r1):
                s = _op(s, x[(j0 * k + c) * r2 + j2], mul)
        out[c] = s
    return out


def _outer_numpy(x, r1, k, r2, mul, out):
    """:func:`_outer` with NumPy's accumulate (strictly sequential) over the values in its order."""
    op = np.multiply if mul else np.add
    seq = x.reshape(r1, k, r2).transpose(2, 0, 1).reshape(r2 * r1, k)
    out[:] = op.accumulate(seq, axis=0)[-1]
    return out


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


def reduce(x, axes, mul=False, cost=None):
    """The Eigen-order sums (products with ``mul``) of float32/float64 ``x`` over ``axes``
    (sorted, canonical) as a flat array of the kept elements in C order, in the
    layout TF's ``ReductionHelper`` gives (this module's docstring); None for
    other dtypes, empty inputs and no reduced axis. ``cost``: a full reduction's
    cycles a value (:func:`value_cost`; more where ``x`` stands for an expression)."""
    if x.dtype not in _LANES or x.size == 0:
        return None
    dims, kinds = _simplified(x.shape, set(axes))
    if not dims:  # every kept and reduced dimension of size 1
        return np.ascontiguousarray(x).reshape(-1)[:1].copy() if axes else None
    if True not in kinds:
        return None
    flat = np.ascontiguousarray(x).reshape(-1)
    with np.errstate(all="ignore"):
        if kinds == [True]:
            return np.array([full(flat, mul, cost)], x.dtype)
        if kinds == [False, True]:
            return reduce_rows(flat.reshape(dims), mul)
        if kinds in ([True, False], [False, True, False]):
            k1n, r, k2n = ([1] + dims) if len(dims) == 2 else dims
            args = (k1n, r, k2n, _LANES[x.dtype], mul, np.empty(k1n * k2n, x.dtype))
            if k2n >= 512:  # wide rows: NumPy's passes over them beat the loop
                return _middle_numpy(flat, *args)
            return _run(_middle, _middle_numpy, flat, *args)
        if kinds == [True, False, True]:
            return _run(_outer, _outer_numpy, flat, *dims, mul, np.empty(dims[1], x.dtype))
        # TF transposes the kept dimensions first and reduces the rows of the copy
        kept = [i for i, k in enumerate(kinds) if not k]
        red = [i for i, k in enumerate(kinds) if k]
        moved = flat.reshape(dims).transpose(kept + red)
        rows = int(np.prod([dims[i] for i in kept]))
        return reduce_rows(np.ascontiguousarray(moved).reshape(rows, -1), mul)


def _run(loop, form, flat, *args):
    if numpy_tier(loop, flat.size):
        return run_numpy_form(loop, form, flat, *args)
    return loop(flat, *args)


def row_sums(x, axes):
    """:func:`reduce`'s sums (TF's ``Sum``, ``Mean``'s numerator)."""
    return reduce(x, axes)


def reduce_rows(x, mul=False):
    """The Eigen-order sum (product with ``mul``) of each row of a float32/float64 matrix
    (``InnerMostDimReducer``: a reduction along the last axis of a matrix; no thread
    blocks, even for one row)."""
    rows, n = x.shape
    if n == 0:
        return np.full(rows, 1 if mul else 0, x.dtype)
    flat = np.ascontiguousarray(x).reshape(-1)
    if n > _LANES[x.dtype] * 1024 and not mul:
        with np.errstate(all="ignore"):
            return _run(_tree_rows, _tree_rows_numpy, flat, n, _LANES[x.dtype], np.empty(rows, x.dtype))
    with np.errstate(all="ignore"):
        return _leaf_rows(flat, n, mul, np.empty(rows, x.dtype))


def sum_rows(x):
    """:func:`reduce_rows`' sums of a float32 matrix (as TF's softmax and cross-entropy
    kernels reduce)."""
    return reduce_rows(np.asarray(x, _F))


def _sample():
    """Small calls of every loop, for each dtype and reducer (their background builds)."""
    for dt in (np.float32, np.float64):
        for mul in (False, True):
            x = np.ones(40, dt)
            _leaves(x, 40, _LANES[np.dtype(dt)], mul, np.empty(1, dt))
            _middle(x, 2, 4, 5, _LANES[np.dtype(dt)], mul, np.empty(10, dt))
            _outer(x, 2, 4, 5, mul, np.empty(4, dt))
        y = np.ones(9000, dt)
        tree_sum(y, 0, 9000, _LANES[np.dtype(dt)])
        _tree_rows(y, 9000, _LANES[np.dtype(dt)], np.empty(1, dt))


# The NumPy forms serve every size while the loops build in the background.
_jit.compiles_in_background(_rows, lambda: _rows(np.ones(40, _F), 40, np.empty(1, _F)), any_size=True)
_jit.compiles_in_background(_one, lambda: _one(np.ones(40, _F), 0, 40), any_size=True)
_jit.compiles_in_background(_leaves, _sample, any_size=True)
_jit.compiles_in_background(_middle, _sample, any_size=True)
_jit.compiles_in_background(_outer, _sample, any_size=True)
_jit.compiles_in_background(tree_sum, _sample, any_size=True)
_jit.compiles_in_background(_tree_rows, _sample, any_size=True)
