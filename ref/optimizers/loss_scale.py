"""TF1 loss scales: ``tf.compat.v1.mixed_precision.{LossScale, FixedLossScale,
DynamicLossScale}`` (also under ``tf.compat.v1.train.experimental``).

TF's API reference, ``tf.compat.v1.mixed_precision.LossScale``: "Loss scaling
is a process that multiplies the loss by a multiplier called the loss scale,
and divides each gradient by the same multiplier." Calling a loss scale gives
the current scale as a float32 scalar Tensor; ``update(grads)`` returns
``(update_op, should_apply_gradients)``.

``DynamicLossScale`` (same reference): "Every N steps that the gradients are
finite, the loss scale is increased by some factor. However, if a NaN or Inf
gradient is found, the gradients for that step are not applied, and the loss
scale is decreased by the factor." The scale never falls below 1 and an
increase that would overflow float32 is skipped. Its state is two resource
variables per graph, ``current_loss_scale`` (float32) and ``good_steps``
(int64), which checkpoints save under those names.
"""
from __future__ import annotations

import abc

from ref.types import dtypes, nest
from ref.framework.graph import get_default_graph
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import convert_to_tensor
from ref.graph_ops import control_flow_ops, distribute_lib, math_ops
from ref.graph_ops.variables import Variable, VariableAggregation, VariableSynchronization

__all__ = ["LossScale", "FixedLossScale", "DynamicLossScale", "get"]


class LossScale(metaclass=abc.ABCMeta):
    """Base class of TF1 loss scales: ``__call__`` (the scale), ``update(grads)``, ``get_config``."""

    def __init__(self):
        self._weights = {}  # (name, graph) -> variable

    @abc.abstractmethod
    def __call__(self):
        """The current loss scale, a float32 scalar Tensor."""

    @abc.abstractmethod
    def update(self, grads):
        """``(update_op, should_apply_gradients)`` for these (unscaled) gradients; None ignored."""

    def _add_weight(self, name, initial_value, dtype=None):
        """A non-trainable resource variable of this loss scale in the default graph;
        RuntimeError if the graph already has one of that name."""
        variable = Variable(initial_value=initial_value, name=name, dtype=dtype, trainable=False,
                            use_resource=True, synchronization=VariableSynchronization.AUTO,
                            aggregation=VariableAggregation.NONE)
        key = (name, get_default_graph())
        if self._weights.get(key) is not None:
            raise RuntimeError("Duplicate variables detected. {}".format((name, key[1])))
        self._weights[key] = variable
        return variable

    def _checkpoint_dependencies(self, graph):
        """``[(name, variable)]`` of the default graph, by name (a checkpoint's children)."""
        return sorted(((n, v) for (n, g), v in self._weights.items() if g is graph), key=lambda nv: nv[0])

    @abc.abstractmethod
    def get_config(self):
        """The constructor's arguments, as a dict."""

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class FixedLossScale(LossScale):
    """A loss scale that never changes; ``update`` is a no-op that always applies."""

    def __init__(self, loss_scale_value):
        """``loss_scale_value``: a Python int or float, at least 1 (ValueError otherwise)."""
        super().__init__()
        if not isinstance(loss_scale_value, (int, float)):
            raise ValueError("loss_scale_value must be a Python int or float.")
        if loss_scale_value < 1:
            raise ValueError("loss_scale_value must be at least 1.")
        self._loss_scale_value = float(loss_scale_value)

    def __call__(self):
        return convert_to_tensor(self._loss_scale_value)

    def update(self, grads):
        del grads
        return control_flow_ops.no_op(), True

    def __repr__(self):
        return "FixedLossScale(%s)" % self._loss_scale_value

    def get_config(self):
        return {"loss_scale_value": self._loss_scale_value}


def _is_all_finite(grads):
    """A bool scalar: every value of every gradient (IndexedSlices: its values) is finite."""
    per_grad = [math_ops.reduce_all(math_ops.is_finite(g.values if isinstance(g, IndexedSlices) else g))
                for g in grads if g is not None]
    return math_ops.reduce_all(per_grad)


def _assign_if_finite(var, value):
    return control_flow_ops.cond(math_ops.is_finite(value), lambda: var.assign(value).op, control_flow_ops.no_op)


class DynamicLossScale(LossScale):
    """A loss scale raised by ``multiplier`` after ``increment_period`` finite steps in a row and
    divided by it (not below 1) on a step with a nonfinite gradient."""

    def __init__(self, initial_loss_scale=2 ** 15, increment_period=2000, multiplier=2.):
        super().__init__()
        self._initial_loss_scale = float(initial_loss_scale)
        self._increment_period = int(increment_period)
        self._multiplier = float(multiplier)
        self._current_loss_scale = self._add_weight(name="current_loss_scale", dtype=dtypes.float32,
                                                    initial_value=self._initial_loss_scale)
        self._num_good_steps = self._add_weight(name="good_steps", dtype=dtypes.int64, initial_value=0)

    @property
    def initial_loss_scale(self):
        return self._initial_loss_scale

    @property
    def increment_period(self):
        return self._increment_period

    @property
    def multiplier(self):
        return self._multiplier

    def __call__(self):
        return convert_to_tensor(self._current_loss_scale)

    def update(self, grads):
        """The update op (a ``cond`` on whether all gradients are finite, summed over the
        replicas under a strategy) and that bool as ``should_apply_gradients``."""
        grads = nest.flatten(grads)
        if distribute_lib.has_strategy():
            distribution = distribute_lib.get_cross_replica_context()

            def get_is_finite(grads):
                return math_ops.cast(_is_all_finite(grads), dtypes.float32)

            is_finite_float = distribution.extended.call_for_each_replica(get_is_finite, args=(grads,))
            reduced = distribution.reduce(distribute_lib.ReduceOp.SUM, is_finite_float, axis=None)
            is_finite = math_ops.equal(reduced, distribution.num_replicas_in_sync)
        else:
            is_finite = _is_all_finite(grads)

        def update_if_finite_grads():
            def incr_loss_scale():
                new_loss_scale = self._current_loss_scale * self._multiplier
                return control_flow_ops.group(_assign_if_finite(self._current_loss_scale, new_loss_scale),
                                              self._num_good_steps.assign(0))

            return control_flow_ops.cond(self._num_good_steps + 1 >= self._increment_period, incr_loss_scale,
                                         lambda: self._num_good_steps.assign_add(1).op)

        def update_if_not_finite_grads():
            new_loss_scale = math_ops.maximum(self._current_loss_scale / self._multiplier, 1)
            return control_flow_ops.group(self._num_good_steps.assign(0),
                                          self._current_loss_scale.assign(new_loss_scale))

        update_op = control_flow_ops.cond(is_finite, update_if_finite_grads, update_if_not_finite_grads)
        return update_op, is_finite

    def __repr__(self):
        return ("DynamicLossScale(initial_loss_scale=%s, increment_period=%s, multiplier=%s)"
                % (self.initial_loss_scale, self.increment_period, self.multiplier))

    def get_config(self):
        return {"initial_loss_scale": self.initial_loss_scale, "increment_period": self.increment_period,
                "multiplier": self.multiplier}


def get(identifier):
    """A loss scale from an int/float (fixed), ``"dynamic"``, a LossScale or None."""
    if isinstance(identifier, (int, float)):
        return FixedLossScale(identifier)
    if identifier == "dynamic":
        return DynamicLossScale()
    if isinstance(identifier, LossScale):
        return identifier
    if identifier is None:
        return None
    raise ValueError("Could not interpret loss scale identifier: %s" % identifier)
