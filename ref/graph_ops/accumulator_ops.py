"""``tf.ConditionalAccumulator`` and ``tf.SparseConditionalAccumulator``: graph
builders over the accumulator kernels of :mod:`ref.ops.accumulator` (seed
TF's API reference, ``tf.compat.v1.train.SyncReplicasOptimizer``)."""
from __future__ import annotations

from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops.math_ops import cast
from ref.types import dtypes as _dtypes
from ref.types.shapes import TensorShape, unknown_shape

__all__ = ["ConditionalAccumulator", "SparseConditionalAccumulator"]


class ConditionalAccumulator:
    """A conditional accumulator for aggregating gradients (``tf.ConditionalAccumulator``)."""

    _HANDLE_OP = "ResourceConditionalAccumulator"
    _OPS = "ResourceAccumulator"  # prefix of the NumAccumulated / SetGlobalStep ops taking its handle

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",
                 reduction_type="MEAN"):
        self._dtype = _dtypes.as_dtype(dtype)
        self._shape = TensorShape(shape) if shape is not None else unknown_shape()
        self._accumulator_ref = apply_op(self._HANDLE_OP, dtype=self._dtype, shape=self._shape,
                                         shared_name=shared_name or "", name=name,
                                         reduction_type=reduction_type)
        self._name = self._accumulator_ref.op.name.split("/")[-1]

    accumulator_ref = property(lambda self: self._accumulator_ref)
    name = property(lambda self: self._accumulator_ref.op.name)
    dtype = property(lambda self: self._dtype)

    def num_accumulated(self, name=None):
        """An int32 scalar: the gradients accumulated so far."""
        return apply_op(self._OPS + "NumAccumulated", handle=self._accumulator_ref,
                        name=name or f"{self._name}_NumAccumulated")

    def set_global_step(self, new_global_step, name=None):
        """An op setting the accumulator's global step to ``new_global_step``."""
        step = cast(convert_to_tensor(new_global_step), _dtypes.int64)
        return apply_op(self._OPS + "SetGlobalStep", handle=self._accumulator_ref, new_global_step=step, name=name)

    def apply_grad(self, grad, local_step=0, name=None):
        """An op adding ``grad`` unless ``local_step`` is older than the accumulator's global step."""
        grad = convert_to_tensor(grad, self._dtype)
        grad.shape.assert_is_compatible_with(self._shape)
        local_step = cast(convert_to_tensor(local_step), _dtypes.int64)
        return apply_op("ResourceAccumulatorApplyGradient", handle=self._accumulator_ref, local_step=local_step,
                        gradient=grad, name=name)

    def take_grad(self, num_required, name=None):
        """The average of ``num_required`` accumulated gradients (blocks until there are that many)."""
        out = apply_op("ResourceAccumulatorTakeGradient", handle=self._accumulator_ref, num_required=num_required,
                       dtype=self._dtype, name=name)
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulator):
    """A conditional accumulator for IndexedSlices gradients (``tf.SparseConditionalAccumulator``)."""

    _HANDLE_OP = "SparseConditionalAccumulator"  # TF's ref-handle ops: there is no Resource form
    _OPS = "Accumulator"

    def __init__(self, dtype, shape=None, shared_name=None, name="sparse_conditional_accumulator",
                 reduction_type="MEAN"):
        super().__init__(dtype, shape, shared_name, name, reduction_type)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """``apply_grad`` of an IndexedSlices gradient."""
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step=local_step, name=name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """An op merging the gradient (indices, values, dense shape) unless ``local_step`` is stale."""
        local_step = cast(convert_to_tensor(local_step), _dtypes.int64)
        return apply_op("SparseAccumulatorApplyGradient", handle=self._accumulator_ref, local_step=local_step,
                        gradient_indices=cast(convert_to_tensor(grad_indices), _dtypes.int64),
                        gradient_values=convert_to_tensor(grad_values, self._dtype),
                        gradient_shape=cast([] if grad_shape is None else grad_shape, _dtypes.int64), has_known_shape=grad_shape is not None,
                        name=name)

    def take_grad(self, num_required, name=None):
        """(indices, values, shape) of ``num_required`` merged gradients (blocks until there are that many)."""
        return apply_op("SparseAccumulatorTakeGradient", handle=self._accumulator_ref, num_required=num_required,
                        dtype=self._dtype, name=name)

    def take_indexed_slices_grad(self, num_required, name=None):
        """``take_grad`` as an IndexedSlices."""
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(values, indices, shape)
