"""The grappler rewrites that change a result's bits, as TF's session makes them.

* ``Log(Softmax(x))`` runs as ``LogSoftmax(x)`` when the ``Log`` is the
  ``Softmax``'s only reader in the run (:func:`log_of_softmax`).
* ``ones / y`` runs as ``Reciprocal(y)`` (:func:`division_kernel`):

TF's constant folding (``ConstantFolding::SimplifyArithmeticOperations``) runs
``x / y`` -- ``x`` a constant of ones, ``y`` of the quotient's shape -- as
``Reciprocal(y)`` (``ReplaceDivisionOfOnesByReciprocal``), and float32
``Reciprocal`` is Eigen's estimate-and-Newton-step, not a correctly rounded
quotient (``ref.ops.eigen_recip``). "Of the quotient's shape" is decided on
grappler's static shapes, which treat every *fed* tensor as of unknown rank
(``assume_valid_feeds`` is off outside aggressive mode): a hand-written
``1 / (1 + exp(-x))`` is a ``Reciprocal`` after a ``MatMul`` (rank 2 whatever
its inputs) and a correctly rounded division when ``x`` is fed. (Measured
against tensorflow-cpu 2.21, oneDNN off: ``tests/session/test_grappler_reciprocal.py``.)
"""
from __future__ import annotations

import numpy as np

from ref.ops import eigen_recip
from ref.ops import nn as nn_ops

# ops whose output rank is fixed whatever their inputs' (shape functions with WithRank)
_FIXED_RANK = frozenset({"MatMul", "Conv2D", "Conv3D", "DepthwiseConv2dNative", "Conv2DBackpropInput",
                         "MaxPool", "AvgPool", "Const", "VariableV2", "Variable", "VarHandleOp",
                         "ReadVariableOp", "Shape", "Size", "Rank"})
_SOURCES = frozenset({"Placeholder", "PlaceholderV2", "PlaceholderWithDefault"})


def _rank_known(t, fed, memo):
    """Whether grappler's static shape inference knows ``t``'s rank, fed tensors unknown."""
    if t in fed:
        return False
    if t in memo:
        return memo[t]
    memo[t] = False  # cycles (loops) are unknown
    op = t.op
    static = t.shape.ndims is not None
    if op._type in _FIXED_RANK or op._type in _SOURCES:
        known = static
    elif op._type == "Reshape":
        known = static
    else:
        known = static and all(_rank_known(i, fed, memo) for i in op._inputs)
    memo[t] = known
    return known


def _ones_over(x, y):
    """``Reciprocal(y)`` when ``y`` has the quotient's shape, else the quotient."""
    y = np.asarray(y)
    x = np.asarray(x)
    if y.dtype == np.float32 and np.broadcast_shapes(x.shape, y.shape) == y.shape:
        return eigen_recip.reciprocal(y)
    return np.true_divide(x, y)


def division_kernel(op, fed, memo):
    """The kernel TF runs for ``op`` after constant folding, when it is not the
    op's own: a float32 ``RealDiv``/``Div`` of a constant of ones by a ``y``
    whose shape grappler knows to be the quotient's."""
    if op._type not in ("RealDiv", "Div") or getattr(op._attrs.get("T"), "name", None) != "float32":
        return None
    x_t, y_t = op._inputs
    if x_t in fed or x_t.op._type != "Const":
        return None
    value = np.asarray(x_t.op._attrs["value"])
    if value.size == 0 or not np.all(value == 1):
        return None
    y_shape = y_t.shape
    if y_shape.ndims is None or value.ndim > y_shape.ndims or not _rank_known(y_t, fed, memo):
        return None
    y_dims = y_shape.as_list()[y_shape.ndims - value.ndim:] if value.ndim else []
    if any(d != 1 and d != yd for d, yd in zip(value.shape, y_dims)):
        return None
    return _ones_over


def _identity(logits):
    return logits


def _log_softmax_of(x):
    return nn_ops.log_softmax(x)


def log_of_softmax(op, in_plan, fed, preserved):
    """``(softmax_kernel, log_kernel)`` when TF's arithmetic optimizer
    (``LogSoftmaxStage``) runs ``Log(Softmax(x))`` as ``LogSoftmax(Identity(x))``:
    the ``Softmax`` neither fetched nor fed and the ``Log`` its only reader among
    the ops the run needs (a training step's gradient reads it too; an
    evaluation of the loss alone does not). None otherwise."""
    if op._type != "Log":
        return None
    t = op._inputs[0]
    sm = t.op
    if sm._type != "Softmax" or t in fed or sm in preserved:
        return None
    readers = sum(1 for c in sm.graph._consumers_of(t) if c in in_plan for i in c._inputs if i is t)
    if readers != 1:
        return None
    return _identity, _log_softmax_of
