"""``tf.compat.v1.mixed_precision.MixedPrecisionLossScaleOptimizer`` (also
``tf.compat.v1.train.experimental.MixedPrecisionLossScaleOptimizer``).

TF's API reference: "This optimizer wraps another optimizer and applies loss
scaling to it via a `LossScale`. Loss scaling is applied whenever gradients
are computed, such as through `minimize()`." ``compute_gradients`` multiplies
the loss by the scale and divides each gradient by it; ``apply_gradients``,
with a dynamic scale, updates the scale and applies the gradients only when
they are all finite (the wrapped optimizer's update inside a ``cond``, in the
cross-replica context of the current strategy, as TF's ``merge_call``).
"""
from __future__ import annotations

from ref.framework.indexed_slices import IndexedSlices
from ref.framework.tensor_util import constant_value
from ref.framework.tensor import Tensor
from ref.graph_ops import control_flow_ops, distribute_lib, math_ops
from ref.optimizers import loss_scale as loss_scale_module
from ref.optimizers.optimizer import Optimizer

__all__ = ["MixedPrecisionLossScaleOptimizer"]


def _smart_cond(pred, true_fn, false_fn):
    """A Python bool or constant picks a branch; another bool Tensor builds a ``cond``."""
    if isinstance(pred, Tensor):
        value = constant_value(pred)
        if value is None:
            return control_flow_ops.cond(pred, true_fn, false_fn)
        pred = bool(value)
    return true_fn() if pred else false_fn()


class MixedPrecisionLossScaleOptimizer(Optimizer):
    """An Optimizer applying ``loss_scale`` (a LossScale, a number, or ``"dynamic"``) to ``opt``."""

    def __init__(self, opt, loss_scale):
        if not isinstance(opt, Optimizer):
            raise ValueError('"opt" must be an instance of Optimizer, but got: %s' % type(opt))
        self._optimizer = opt
        super().__init__(opt._use_locking, opt.get_name())
        self._loss_scale = loss_scale_module.get(loss_scale)
        if self._loss_scale is None:
            raise ValueError("loss_scale cannot be None")

    def _checkpoint_dependencies(self, graph):
        """A checkpoint's children: the wrapped optimizer and the loss scale (TF's names)."""
        return [("base_optimizer", self._optimizer), ("loss_scale", self._loss_scale)]

    def _doing_dynamic_loss_scaling(self):
        return isinstance(self._loss_scale, loss_scale_module.DynamicLossScale)

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """The wrapped optimizer's gradients of ``loss * scale``, each divided by the scale."""
        loss = self._scale_loss(loss)
        grads_and_vars = self._optimizer.compute_gradients(
            loss=loss, var_list=var_list, gate_gradients=gate_gradients, aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        grads = [g for g, _ in grads_and_vars]
        variables = [v for _, v in grads_and_vars]
        return list(zip(self._unscale_grads(grads), variables))

    def _scale_loss(self, loss):
        loss_scale = self._loss_scale()
        if callable(loss):
            def new_loss():
                loss_val = loss()
                return loss_val * math_ops.cast(loss_scale, loss_val.dtype)
            return new_loss
        return loss * math_ops.cast(loss_scale, loss.dtype)

    def _unscale_grads(self, grads):
        reciprocal = 1 / self._loss_scale()
        return [None if g is None else self._scale_grad(g, reciprocal) for g in grads]

    @staticmethod
    def _scale_grad(grad, loss_scale_reciprocal):
        if isinstance(grad, IndexedSlices):
            return IndexedSlices(grad.values * loss_scale_reciprocal, grad.indices, grad.dense_shape)
        return grad * loss_scale_reciprocal

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The wrapped optimizer's update; with a dynamic scale, an op that updates the scale and
        applies the gradients only if all are finite (``global_step`` is then not incremented
        either). ValueError in a cross-replica context."""
        if distribute_lib.in_cross_replica_context():
            raise ValueError("apply_gradients() must be called in a replica context.")
        if not self._doing_dynamic_loss_scaling():
            return self._optimizer.apply_gradients(grads_and_vars, global_step, name)
        replica_context = distribute_lib.get_replica_context()
        return replica_context.merge_call(self._distributed_apply, args=(tuple(grads_and_vars), global_step, name))

    def _distributed_apply(self, distribution, grads_and_vars, global_step=None, name=None):
        name = name if name is not None else self.get_name()
        grads = [g for g, _ in grads_and_vars]
        loss_scale_update_op, should_apply_grads = self._loss_scale.update(grads)

        def apply_fn():
            update_ops = distribution.extended.call_for_each_replica(
                self._optimizer.apply_gradients, args=(grads_and_vars, global_step, name + "-wrapped"))
            return distribution.group(update_ops)

        maybe_apply_op = _smart_cond(should_apply_grads, apply_fn, control_flow_ops.no_op)
        return control_flow_ops.group(maybe_apply_op, loss_scale_update_op, name=name)

    def _apply_sparse(self, grad, var):
        raise RuntimeError("This function should never be called")

    def _apply_dense(self, grad, var):
        raise RuntimeError("This function should never be called")

    def _resource_apply_sparse(self, grad, handle, indices):
        raise RuntimeError("This function should never be called")

    def _resource_apply_dense(self, grad, handle):
        raise RuntimeError("This function should never be called")

    def variables(self):
        """The wrapped optimizer's variables, then the loss scale's."""
        return self._optimizer.variables() + list(self._loss_scale._weights.values())

