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
  ``backprop = exp(b) / s - onehot(label)``.

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

import numpy as np

from ref.ops import eigen_math, eigen_recip, eigen_reduce

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


def sparse_xent(x, labels):
    """``(loss, backprop)`` of ``SparseSoftmaxCrossEntropyWithLogits`` for a float32
    matrix and valid int labels."""
    b = _shifted(x)
    e_rows, e = _exp_both(b)
    s = eigen_reduce.sum_rows(e_rows)
    rows = np.arange(x.shape[0])
    with np.errstate(all="ignore"):
        loss = np.subtract(eigen_math.logf(s), b[rows, labels])
        backprop = np.true_divide(e, s[:, None], out=e)
        backprop[rows, labels] -= _F(1)
    return loss, backprop
