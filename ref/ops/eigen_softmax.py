"""TF's float32 softmax and cross-entropy kernels, expression by expression.

TF writes each as a few Eigen expressions over the ``[batch, classes]`` logits
(``softmax_op_functor.h``, ``xent_op.h``, ``sparse_xent_op.h``). With
``m`` the row maxima and ``b = x - m`` (IEEE), the pieces are:

* ``exp(b)`` materialised: :func:`ref.ops.eigen_math.exp` over the flattened
  matrix (packets, then the matrix's last ``size % 8`` values with ``expf``);
* ``b.exp().sum(along_class)``: the exponential computed inside the row
  reduction, so each row's packets start at its first value and its last
  ``classes % 8`` values use ``expf`` (:func:`ref.ops.eigen_math.exp_rows`),
  summed in ``InnerMostDimReducer``'s order (:func:`ref.ops.eigen_reduce.sum_rows`);
* ``.log()`` of the ``[batch]`` sums: :func:`ref.ops.eigen_math.log` over that
  vector, except in the sparse loss, where a generator takes ``logf`` of each sum.

So (``s`` the row sums, ``/`` and ``*`` IEEE, broadcast along rows):

* ``Softmax = exp(b) * reciprocal(sum_rows(exp(b)))``;
* ``LogSoftmax = b - log(sum_rows(exp_rows(b)))``;
* ``SoftmaxCrossEntropyWithLogits``: ``loss = sum_rows(labels * (log(s) - b))``,
  ``backprop = exp(b) / s - labels``, ``s = sum_rows(exp_rows(b))``;
* ``SparseSoftmaxCrossEntropyWithLogits``: ``loss = logf(s) - b[label]``,
  ``backprop = exp(b) / s - onehot(label)``; ref evaluates these expressions row
  by row in one compiled pass over each row (:func:`_sparse_rows`: the same
  operations on the same values, so the same bits, without the matrix-sized
  temporaries of one NumPy pass per expression).

Measured against tensorflow-cpu 2.21 (``tests/ops/test_eigen_softmax.py``):
``Softmax``, ``LogSoftmax``, the sparse cross-entropy and the dense one's loss
are TF's bit for bit (``Softmax``'s ``1 / s`` is Eigen's ``.inverse()`` of the
``[batch]`` sums: :func:`ref.ops.eigen_recip.reciprocal`, the CPU's ``rcpps``
estimate and one Newton step on whole packets), except that TF may evaluate
``Softmax``'s ``exp(b)`` in tiles too (below): measured on ``[256, 33]``, 2 of
8448 elements 1 ULP off. The dense cross-entropy's ``exp(b) / s - labels`` TF
evaluates in tiles, each with its own scalar tail, so a handful of its elements
take ``expf`` where ref takes the polynomial (measured within 3 ULPs). (oneDNN, on by default in TF's x86 package, also replaces
``Softmax`` with its own kernel; these are TF's kernels with
``TF_ENABLE_ONEDNN_OPTS=0``, the three others in either case.)
"""
from __future__ import annotations

import math

import numpy as np

from ref.ops import _jit, eigen_math, eigen_recip, eigen_reduce, gemm
from ref.ops._jit import njit
from ref.ops.eigen_math import PACKET, exp_packet
from ref.ops.eigen_reduce import _tree_walk
from ref.ops.libm_exp import exp as _libm_expf

_F = np.float32


def _shifted(x):
    with np.errstate(invalid="ignore"):
        return np.subtract(x, np.max(x, axis=1, keepdims=True))


def _exp_both(b):
    """``(exp_rows(b), exp(b))``: one array twice when the classes fill whole packets
    (each row's packets are then the matrix's; the callers sum it before writing over it)."""
    rows = eigen_math.exp_rows(b)
    return rows, (rows if b.shape[1] % eigen_math.PACKET == 0 else eigen_math.exp(b))


def softmax(x):
    """``exp(b) * (1 / sum_rows(exp(b)))`` for a float32 matrix."""
    b = _shifted(x)
    e = eigen_math.exp(b)
    with np.errstate(all="ignore"):
        inv = eigen_recip.reciprocal(eigen_reduce.sum_rows(e))
        return np.multiply(e, inv[:, None], out=e)


def log_softmax(x):
    """``b - log(sum_rows(exp_rows(b)))`` for a float32 matrix."""
    b = _shifted(x)
    lse = eigen_math.log(eigen_reduce.sum_rows(eigen_math.exp_rows(b)))
    with np.errstate(all="ignore"):
        return np.subtract(b, lse[:, None], out=b)


def xent(x, labels):
    """``(loss, backprop)`` of ``SoftmaxCrossEntropyWithLogits`` for float32 matrices of one shape."""
    b = _shifted(x)
    e_rows, e = _exp_both(b)
    s = eigen_reduce.sum_rows(e_rows)
    with np.errstate(all="ignore"):
        t = np.multiply(labels, np.subtract(eigen_math.log(s)[:, None], b))
        loss = eigen_reduce.sum_rows(t)
        backprop = np.subtract(np.true_divide(e, s[:, None], out=e), labels, out=e)
    return loss, backprop


@njit(nogil=True)
def _row_max(xr, acc, chk):
    """``np.max`` of the row ``xr``: the maximum, NaN if the row has one. Runs of
    ``acc.size`` values, lane by lane (vectorised; a maximum is the same in any
    order, bar the sign of a zero, which changes no output of the cross entropy:
    ``exp(+-0)`` is 1 and ``logf(s) - +-0`` the same), ``chk`` summing ``v - v``
    (NaN from a NaN or an infinity); such a row is taken again value by value."""
    n = xr.size
    w = acc.size
    runs = n // w
    m = xr[0]
    c = m - m
    if runs:
        for t in range(w):
            acc[t] = xr[t]
            chk[t] = _F(0)
        for j in range(runs):
            run = xr[j * w:j * w + w]
            for t in range(w):
                v = run[t]
                acc[t] = v if v > acc[t] else acc[t]
                chk[t] = chk[t] + (v - v)
        for t in range(w):
            m = acc[t] if acc[t] > m else m
            c = c + chk[t]
    for j in range(runs * w, n):
        v = xr[j]
        m = v if v > m else m
        c = c + (v - v)
    if c != c:  # a NaN or an infinity: value by value, the first NaN wins
        m = xr[0]
        for j in range(n):
            v = xr[j]
            if v != v:
                return v
            m = v if v > m else m
    return m


@njit(nogil=True)
def _sparse_rows(x, labels, row0, total, loss, backprop):
    """:func:`sparse_xent`'s expressions row by row, in one pass over each row's memory:
    rows ``row0 + r`` of a ``total``-value matrix (``x``, ``labels``, ``loss``,
    ``backprop`` hold those rows). Per row: ``m = max``; ``e = exp_rows(x - m)`` into
    the backprop row (packets from the row's start, its last ``n % 8`` by ``expf``);
    ``s`` the row's Eigen-order sum of it (tree above 1024 packets, split points
    counted from the matrix's start); ``loss = logf(s) - (x[label] - m)``; backprop
    ``e / s`` with ``e`` the materialised ``exp(x - m)`` (the matrix's packets: the
    values where it differs from the row's, the row tail and the matrix's last
    ``total % 8``, recomputed), then ``- 1`` at the label."""
    rows, n = x.shape
    body = total - total % PACKET
    v = n - n % PACKET
    p = np.empty((4, PACKET), np.float32)
    frames = np.empty((128, 3), np.int64)
    vals = np.empty(128, np.float32)
    acc = np.empty(4 * PACKET, np.float32)
    chk = np.empty(4 * PACKET, np.float32)
    flat = backprop.reshape(rows * n)
    one = _F(1)
    for r in range(rows):
        xr = x[r]
        er = backprop[r]
        m = _row_max(xr, acc, chk)
        for j in range(v):
            er[j] = exp_packet(xr[j] - m)
        for j in range(v, n):
            er[j] = _libm_expf(xr[j] - m)
        s = _tree_walk(flat, r * n, n, p, frames, vals, row0 * n)
        k = labels[r]
        loss[r] = _F(math.log(s)) - (xr[k] - m)
        for j in range(v):
            er[j] = er[j] / s
        o = (row0 + r) * n
        start = min(v, max(0, body - o))
        for j in range(start, n):
            b = xr[j] - m
            e = exp_packet(b) if o + j < body else _libm_expf(b)
            er[j] = e / s
        er[k] = er[k] - one
    return loss, backprop


def _sparse_rows_numpy(x, labels, row0, total, loss, backprop):
    """:func:`_sparse_rows` by the module's expressions (:func:`_sparse_pieces`) on the whole
    matrix (``row0 == 0``, ``total == x.size``)."""
    loss[:], backprop[:] = _sparse_pieces(x, labels)
    return loss, backprop


SPLIT_ELEMENTS = 1 << 16
"""Logits from which :func:`_sparse_rows`' rows are split among ``ref``'s matrix threads
(TF's kernel runs on its thread pool too)."""


class _SparseBlocks:
    """Rows ``lo:hi`` of :func:`_sparse_rows` for ``gemm.run_blocks``: a row's results are a
    function of that row, its index and the matrix's size alone (the same bits in any split)."""

    def __init__(self, x, labels, loss, backprop):
        self.x, self.labels, self.loss, self.backprop = x, labels, loss, backprop

    def into_result(self, lo, hi):
        _sparse_rows(self.x[lo:hi], self.labels[lo:hi], lo, self.x.size, self.loss[lo:hi], self.backprop[lo:hi])

    def scratch(self, lo, hi):
        loss, backprop = np.empty(hi - lo, _F), np.empty((hi - lo, self.x.shape[1]), _F)
        return _sparse_rows(self.x[lo:hi], self.labels[lo:hi], lo, self.x.size, loss, backprop)

    def store(self, lo, hi, scratch):
        self.loss[lo:hi], self.backprop[lo:hi] = scratch


def sparse_xent(x, labels):
    """``(loss, backprop)`` of ``SparseSoftmaxCrossEntropyWithLogits`` for a float32
    matrix and valid int labels: :func:`_sparse_rows` (its NumPy form while it builds;
    rows split among ``ref``'s matrix threads from :data:`SPLIT_ELEMENTS` values)."""
    rows = x.shape[0]
    loss, backprop = np.empty(rows, _F), np.empty(x.shape, _F)
    with np.errstate(all="ignore"):
        if _jit.numpy_tier(_sparse_rows, x.size):
            return _jit.run_numpy_form(_sparse_rows, _sparse_rows_numpy, x, labels, 0, x.size, loss, backprop)
        parts = min(gemm.workers(), rows)
        if parts > 1 and x.size >= SPLIT_ELEMENTS:
            gemm.run_blocks(_SparseBlocks(x, labels, loss, backprop), [rows * i // parts for i in range(parts + 1)])
            return loss, backprop
        return _sparse_rows(x, labels, 0, x.size, loss, backprop)


def _sparse_pieces(x, labels):
    """``(loss, backprop)`` of ``SparseSoftmaxCrossEntropyWithLogits`` as the module's
    expressions, one NumPy pass each."""
    b = _shifted(x)
    e_rows, e = _exp_both(b)
    s = eigen_reduce.sum_rows(e_rows)
    rows = np.arange(x.shape[0])
    with np.errstate(all="ignore"):
        loss = np.subtract(eigen_math.logf(s), b[rows, labels])
        backprop = np.true_divide(e, s[:, None], out=e)
        backprop[rows, labels] -= _F(1)
    return loss, backprop


def _sample():
    x = np.linspace(-3, 3, 30).astype(_F).reshape(3, 10)
    _sparse_rows(x, np.array([0, 4, 9], np.int64), 0, x.size, np.empty(3, _F), np.empty((3, 10), _F))


# The expressions serve every size while the row pass builds in the background.
_jit.compiles_in_background(_sparse_rows, _sample, any_size=True)
