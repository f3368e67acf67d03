"""Gradient accumulators: TF's ``ConditionalAccumulator`` resource and its kernels
(the ``tf.ConditionalAccumulator`` class is :mod:`ref.graph_ops.accumulator_ops`).

TF's API reference, ``tf.compat.v1.train.SyncReplicasOptimizer``:
"Once the gradients have been computed, push them into gradient accumulators.
Each accumulator will check the staleness and drop the stale." An accumulator
keeps a sum of gradients, a counter and a global step:

* ``AccumulatorApplyGradient(local_step, gradient)``: dropped when
  ``local_step < global_step`` (stale); otherwise ``sum += gradient``,
  ``counter += 1``. Every gradient must have the accumulator's shape.
* ``AccumulatorTakeGradient(num_required)``: blocks until ``counter >=
  num_required``; returns ``sum / counter`` (``reduction_type`` "MEAN") or
  ``sum`` ("SUM"), then resets the sum and counter and increments the global
  step.
* ``AccumulatorSetGlobalStep(new_global_step)``: sets the global step.
* ``AccumulatorNumAccumulated``: the counter.

A ``SparseConditionalAccumulator`` takes IndexedSlices (indices, values,
dense shape) and keeps TF's sparse sum (``sparse_conditional_accumulator.h``):
the first gradient is kept as given; each later one is merged into it walking
both index lists from the front (an index of one side smaller than the
other's is copied, equal indices are summed), and each kept row counts how many
gradients it summed. A take returns the indices, the rows -- each divided by
its own count for "MEAN" -- and the shape (its first dimension the
accumulator's, -1 when unknown).

Like the queues (:mod:`ref.ops.data_flow`) an accumulator is a Session resource,
keyed by ``container`` and ``shared_name`` (the op's name when empty); the
``Resource*`` op names take a resource handle, the others TF's ref handle --
both run the same kernels here. Closing the Session (or stopping the in-process
Server) cancels a blocked take (``CancelledError``); a take is bounded by the
run's deadline (:mod:`ref.ops.blocking`: a worker's RunGraph deadline) and then
fails with DeadlineExceededError saying how many gradients it holds.
"""
from __future__ import annotations

import threading

import numpy as np

from ref.types import dtypes as _dtypes, errors
from ref.ops import blocking
from ref.ops.registry import REQUIRED, fixed_rule, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_LOCK = threading.Lock()


class Accumulator:
    """The state of one conditional accumulator."""

    def __init__(self, name, dtype, shape, reduction_type):
        if reduction_type not in ("MEAN", "SUM"):
            raise invalid_argument(f"Invalid reduction_type: {reduction_type!r} (expected MEAN or SUM)")
        self.name = name
        self.dtype = _dtypes.as_dtype(dtype)
        self.shape = TensorShape(shape)
        self.reduction_type = reduction_type
        self._cv = threading.Condition()
        self._sum = None
        self._counter = 0
        self._global_step = 0
        self._torn_down = False

    def apply_gradient(self, local_step, gradient):
        grad = np.asarray(gradient)
        if grad.dtype != self.dtype.np:
            raise invalid_argument(f"Accumulator '{self.name}': gradient dtype {grad.dtype} is not "
                                   f"{self.dtype.name}")
        if not self.shape.is_compatible_with(grad.shape):
            raise invalid_argument(f"Shape mismatch: expected {self.shape}, got {list(grad.shape)}")
        with self._cv:
            if int(local_step) < self._global_step:  # stale: dropped
                return
            if self._counter == 0:
                self._sum = np.array(grad, copy=True)
            else:
                if self._sum.shape != grad.shape:
                    raise invalid_argument(f"Shape mismatch: expected {list(self._sum.shape)}, got "
                                           f"{list(grad.shape)}")
                self._sum = np.add(self._sum, grad, dtype=self.dtype.np)
            self._counter += 1
            self._cv.notify_all()

    def _take(self, num_required, collect):
        """Blocks until ``num_required`` gradients are in; returns ``collect()`` of
        them, then empties the accumulator and increments its global step."""
        num_required = int(num_required)
        if num_required <= 0:
            raise invalid_argument(f"Argument num_required must be positive, but was {num_required}")
        with self._cv:
            while self._counter < num_required:
                if self._torn_down:
                    raise errors.CancelledError(None, None, f"TakeGrad operation was cancelled ({self.name})")
                blocking.wait(self._cv, "take_grad", lambda: f"{self._counter} of {num_required} gradients for "
                              f"global step {self._global_step} (accumulator '{self.name}')")
            taken = collect()
            self._clear()
            self._counter = 0
            self._global_step += 1
        return taken

    def _clear(self):
        self._sum = None

    def take_gradient(self, num_required):
        total, count = self._take(num_required, lambda: (self._sum, self._counter))
        if self.reduction_type == "MEAN":
            return np.divide(total, np.asarray(count, dtype=self.dtype.np), dtype=self.dtype.np)
        return total

    def set_global_step(self, new_global_step):
        with self._cv:
            self._global_step = int(new_global_step)

    def num_accumulated(self):
        with self._cv:
            return self._counter

    def close(self):
        """Session teardown: a blocked take raises CancelledError."""
        with self._cv:
            self._torn_down = True
            self._cv.notify_all()


class SparseAccumulator(Accumulator):
    """The state of one sparse conditional accumulator: sorted-merge sums of IndexedSlices."""

    def __init__(self, name, dtype, shape, reduction_type):
        super().__init__(name, dtype, shape, reduction_type)
        self._indices = self._values = self._counts = None

    def _check(self, indices, values, shape, has_known_shape):
        dims = self.shape.as_list() if self.shape.ndims is not None else []
        if has_known_shape:
            if len(dims) > shape.size:
                raise invalid_argument(f"Shape mismatch: expected shape rank at least {len(dims)}, got {shape.size}")
            for i, d in enumerate(dims):
                if d is not None and d != shape[i]:
                    raise invalid_argument(f"Shape mismatch: expected shape dim {i} to be {d}, got {shape[i]}")
        if dims and dims[0] is not None:
            for i, idx in enumerate(indices):
                if idx >= dims[0]:
                    raise invalid_argument(f"Shape mismatch: index of slice {i} exceeded limits of shape; index "
                                           f"is {idx} exceeded {dims[0]}")
        if self._counter > 0:
            if self._values.ndim != values.ndim:
                raise invalid_argument(f"Shape mismatch: expected values rank {self._values.ndim}, got {values.ndim}")
            for i in range(1, values.ndim):
                if self._values.shape[i] != values.shape[i]:
                    raise invalid_argument(f"Shape mismatch: expected values dim {i} to be "
                                           f"{self._values.shape[i]}, got {values.shape[i]}")
        else:
            if len(dims) > values.ndim:
                raise invalid_argument(f"Shape mismatch: expected values rank at least {len(dims)}, got "
                                       f"{values.ndim}")
            for i in range(1, len(dims)):
                if dims[i] is not None and dims[i] != values.shape[i]:
                    raise invalid_argument(f"Shape mismatch: expected values dim {i} to be {dims[i]}, got "
                                           f"{values.shape[i]}")

    def apply_sparse(self, local_step, indices, values, shape, has_known_shape):
        indices = np.asarray(indices, np.int64)
        values = np.asarray(values)
        shape = np.asarray(shape, np.int64).reshape(-1)
        if values.dtype != self.dtype.np:
            raise invalid_argument(f"Accumulator '{self.name}': gradient dtype {values.dtype} is not "
                                   f"{self.dtype.name}")
        # TF's GetAndValidateTensorInputForApplyGrad, in its order
        if indices.ndim != 1:
            raise invalid_argument(f"Input indices should be vector but received shape: "
                                   f"[{','.join(str(d) for d in indices.shape)}]")
        if values.ndim == 0:
            raise invalid_argument("Values cannot be 0-dimensional.")
        if values.shape[0] != indices.size:
            raise invalid_argument(f"Expected {indices.size} non-empty input values, got {values.shape[0]}")
        with self._cv:
            if int(local_step) < self._global_step:  # stale: dropped
                return
            self._check(indices, values, shape, has_known_shape)
            if self._counter == 0:
                self._indices, self._values = indices.copy(), values.copy()
                self._counts = np.ones(indices.size, np.int64)
            else:
                self._merge(indices, values)
            self._counter += 1
            self._cv.notify_all()

    def _merge(self, indices, values):
        """TF's two-pointer merge of the kept (indices, rows, counts) with a new gradient."""
        ai, av, ac = self._indices, self._values, self._counts
        kept = []  # (index, row, count)
        i = j = 0
        while i < ai.size and j < indices.size:
            if ai[i] < indices[j]:
                kept.append((ai[i], av[i], ac[i]))
                i += 1
            elif ai[i] == indices[j]:
                kept.append((ai[i], np.add(av[i], values[j], dtype=self.dtype.np), ac[i] + 1))
                i += 1
                j += 1
            else:
                kept.append((indices[j], values[j], 1))
                j += 1
        kept += [(ai[k], av[k], ac[k]) for k in range(i, ai.size)]
        kept += [(indices[k], values[k], 1) for k in range(j, indices.size)]
        self._indices = np.array([k[0] for k in kept], np.int64)
        self._values = np.stack([k[1] for k in kept]).astype(self.dtype.np) if kept else av[:0]
        self._counts = np.array([k[2] for k in kept], np.int64)

    def _clear(self):
        self._indices = self._values = self._counts = None

    def take_sparse(self, num_required):
        indices, values, counts = self._take(num_required, lambda: (self._indices, self._values, self._counts))
        if self.reduction_type == "MEAN":
            scale = counts.astype(self.dtype.np).reshape((-1,) + (1,) * (values.ndim - 1))
            values = np.divide(values, scale, dtype=self.dtype.np)
        dims = self.shape.as_list() if self.shape.ndims else []
        shape = np.array([dims[0] if dims and dims[0] is not None else -1] + list(values.shape[1:]), np.int64)
        return indices, values, shape


def _accumulator(handle) -> Accumulator:
    acc = handle.item() if isinstance(handle, np.ndarray) and handle.dtype == object else handle
    if not isinstance(acc, Accumulator):
        raise invalid_argument(f"Expected an accumulator handle, got {type(acc).__name__}")
    return acc


_ATTRS = {"dtype": REQUIRED, "shape": None, "container": "", "shared_name": "", "reduction_type": "MEAN"}
_REDUCTIONS = {"reduction_type": ("MEAN", "SUM")}  # TF's attr "reduction_type: {'MEAN', 'SUM'}"


def _make(ctx, dtype, shape, container, shared_name, reduction_type, cls=Accumulator):
    shape = unknown_shape() if shape is None else TensorShape(shape)
    op_name = getattr(ctx, "op_name", None)
    if op_name is None:  # a raw-op call: a fresh private accumulator
        return cls("accumulator", dtype, shape, reduction_type)
    key = ("accumulator", container, shared_name or op_name)
    with _LOCK:
        acc = ctx.resources.get(key)
        if acc is None:
            acc = ctx.resources[key] = cls(shared_name or op_name, dtype, shape, reduction_type)
        elif acc.dtype != _dtypes.as_dtype(dtype):
            raise invalid_argument(f"Shared accumulator '{acc.name}' has dtype {acc.dtype.name}, not "
                                   f"{_dtypes.as_dtype(dtype).name}")
    return acc


@register_op("ResourceConditionalAccumulator", outputs=("handle",), attrs=dict(_ATTRS), allowed=dict(_REDUCTIONS),
             shape=fixed_rule((_dtypes.resource, TensorShape([]))), stateful=True, ctx=True)
def resource_conditional_accumulator(dtype, shape=None, container="", shared_name="", reduction_type="MEAN",
                                     ctx=None):
    """The handle of a gradient accumulator (created on first use, shared by ``shared_name``)."""
    return _make(ctx, dtype, shape, container, shared_name, reduction_type)


@register_op("ConditionalAccumulator", outputs=("handle",), attrs=dict(_ATTRS), allowed=dict(_REDUCTIONS),
             shape=fixed_rule((_dtypes.string, TensorShape([2]))), stateful=True, ctx=True)
def conditional_accumulator(dtype, shape=None, container="", shared_name="", reduction_type="MEAN", ctx=None):
    """``ResourceConditionalAccumulator`` with TF's ref-handle signature."""
    return _make(ctx, dtype, shape, container, shared_name, reduction_type)


@register_op("SparseConditionalAccumulator", outputs=("handle",), attrs=dict(_ATTRS), allowed=dict(_REDUCTIONS),
             shape=fixed_rule((_dtypes.string, TensorShape([2]))), stateful=True, ctx=True)
def sparse_conditional_accumulator(dtype, shape=None, container="", shared_name="", reduction_type="MEAN",
                                   ctx=None):
    """The handle of a sparse (IndexedSlices) gradient accumulator."""
    return _make(ctx, dtype, shape, container, shared_name, reduction_type, SparseAccumulator)


def _sparse(handle) -> SparseAccumulator:
    acc = _accumulator(handle)
    if not isinstance(acc, SparseAccumulator):
        raise invalid_argument(f"Accumulator '{acc.name}' is not a sparse accumulator")
    return acc


@register_op("SparseAccumulatorApplyGradient",
             inputs=("handle", "local_step", "gradient_indices", "gradient_values", "gradient_shape"), outputs=(),
             attrs={"has_known_shape": REQUIRED}, type_attrs={"dtype": ("gradient_values",)}, shape=fixed_rule(),
             stateful=True)
def sparse_accumulator_apply_gradient(handle, local_step, gradient_indices, gradient_values, gradient_shape,
                                      has_known_shape, dtype=None):
    """Merges an IndexedSlices gradient unless ``local_step`` is stale."""
    _sparse(handle).apply_sparse(local_step, gradient_indices, gradient_values, gradient_shape, has_known_shape)
    return ()


def _sparse_take_rule(ins, attrs):
    return [(_dtypes.int64, TensorShape([None])), (attrs["dtype"], unknown_shape()),
            (_dtypes.int64, TensorShape([None]))]


@register_op("SparseAccumulatorTakeGradient", inputs=("handle", "num_required"),
             outputs=("indices", "values", "shape"), attrs={"dtype": REQUIRED}, shape=_sparse_take_rule,
             stateful=True)
def sparse_accumulator_take_gradient(handle, num_required, dtype=None):
    """Blocks for ``num_required`` gradients; (indices, rows averaged per index, shape)."""
    return _sparse(handle).take_sparse(num_required)


def _apply_gradient(handle, local_step, gradient, dtype=None):
    """Adds ``gradient`` unless ``local_step`` < the accumulator's global step (stale)."""
    _accumulator(handle).apply_gradient(local_step, gradient)
    return ()


def _take_gradient(handle, num_required, dtype=None):
    """Blocks for ``num_required`` gradients; their mean (or sum); then resets and steps."""
    return _accumulator(handle).take_gradient(num_required)


def _set_global_step(handle, new_global_step):
    """Sets the accumulator's global step (gradients of older steps are dropped)."""
    _accumulator(handle).set_global_step(new_global_step)
    return ()


def _num_accumulated(handle):
    """The number of gradients accumulated since the last take."""
    return np.int32(_accumulator(handle).num_accumulated())


def _average_rule(ins, attrs):
    return [(attrs["dtype"], unknown_shape())]


for _prefix in ("", "Resource"):
    register_op(f"{_prefix}AccumulatorApplyGradient", inputs=("handle", "local_step", "gradient"), outputs=(),
                type_attrs={"dtype": ("gradient",)}, shape=fixed_rule(), stateful=True)(_apply_gradient)
    register_op(f"{_prefix}AccumulatorTakeGradient", inputs=("handle", "num_required"), outputs=("average",),
                attrs={"dtype": REQUIRED}, shape=_average_rule, stateful=True)(_take_gradient)
    register_op(f"{_prefix}AccumulatorSetGlobalStep", inputs=("handle", "new_global_step"), outputs=(),
                shape=fixed_rule(), stateful=True)(_set_global_step)
    register_op(f"{_prefix}AccumulatorNumAccumulated", inputs=("handle",), outputs=("num_accumulated",),
                shape=fixed_rule((_dtypes.int32, TensorShape([]))), stateful=True)(_num_accumulated)
