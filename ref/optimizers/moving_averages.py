"""Exponential moving averages: ``tf.train.ExponentialMovingAverage`` and
``assign_moving_average`` (TF docs, "Training", "Moving
Averages").

The seed's update, one ``AssignSub`` per shadow variable::

    shadow_variable -= (1 - decay) * (shadow_variable - variable)

"mathematically equivalent to" ``shadow_variable = decay * shadow_variable +
(1 - decay) * variable``. TF's exact form: ``AssignSub(shadow, (shadow -
value) * (1 - decay))`` with ``1 - decay`` computed in float32 (the decay is a
float32 tensor) and cast to the variable's dtype. With ``num_updates`` the
decay is ``min(decay, (1 + num_updates) / (10 + num_updates))`` (float32).

Zero debiasing (TF, not in the seeds; Adam's bias correction, Kingma & Ba
section 3): ``assign_moving_average(..., zero_debias=True)`` keeps a
``biased`` average started at 0 and a ``local_step`` counter next to the
shadow ``v`` and sets::

    biased -= (biased - value) * (1 - decay)
    local_step += 1
    v = biased / (1 - decay ** local_step)

``ExponentialMovingAverage(zero_debias=True)`` debiases only the averages of
Tensors (whose shadows start at 0); Variables' shadows start at the
variable's initial value and are never debiased.
"""
from __future__ import annotations

import numbers

from ref.framework.graph import (GraphKeys, add_to_collection, colocate_with, control_dependencies, get_default_graph,
                                name_scope)
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import math_ops, state_ops
from ref.graph_ops.control_flow_ops import group
from ref.graph_ops.init_ops import zeros_initializer
from ref.graph_ops.variable_scope import get_variable, get_variable_scope, variable_scope
from ref.graph_ops.variables import (Variable, global_variables, moving_average_variables,
                                     trainable_variables)
from ref.optimizers import slots
from ref.types import dtypes

__all__ = ["ExponentialMovingAverage", "assign_moving_average", "weighted_moving_average"]

_FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _one_minus(decay):
    """``1.0 - decay``: Python arithmetic for a Python number (then a float32
    constant), else a ``Sub`` op."""
    if isinstance(decay, numbers.Number):
        return convert_to_tensor(1.0 - decay, name="decay")
    return apply_op("Sub", x=1.0, y=convert_to_tensor(decay), name="sub")


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """``variable -= (variable - value) * (1 - decay)``; returns the updated value.

    With ``zero_debias`` the average is debiased as the module docstring shows
    (``<variable>/biased`` and ``<variable>/local_step`` are created next to
    ``variable``). ``decay`` is cast to ``variable``'s dtype."""
    with name_scope(name, "AssignMovingAvg", [variable, value, decay]) as scope:
        decay = _one_minus(decay)
        var_dtype = variable.dtype.base_dtype
        if decay.dtype.base_dtype != var_dtype:
            decay = apply_op("Cast", x=decay, DstT=var_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)  # TF's operators


def weighted_moving_average(value, decay, weight, truediv=True, collections=None, name=None):
    """``moving_average(value * weight) / moving_average(weight)`` (TF's
    ``training/moving_averages.py``): two non-trainable variables
    ``<scope>/value_x_weight`` and ``<scope>/weight``, zero-initialized, each
    updated by ``assign_moving_average`` without debiasing; the result is their
    quotient, named after the variable scope ("WeightedMovingAvg"), true
    division unless ``truediv`` is False (then the dtypes' division)."""
    if collections is None:
        collections = [GraphKeys.GLOBAL_VARIABLES]
    with variable_scope(name, "WeightedMovingAvg", [value, weight, decay]) as scope:
        value_x_weight_var = get_variable("value_x_weight", shape=value.get_shape(), dtype=value.dtype,
                                          initializer=zeros_initializer(), trainable=False, collections=collections)
        weight_var = get_variable("weight", shape=weight.get_shape(), dtype=weight.dtype,
                                  initializer=zeros_initializer(), trainable=False, collections=collections)
        numerator = assign_moving_average(value_x_weight_var, apply_op("Mul", x=value, y=weight), decay,
                                          zero_debias=False)
        denominator = assign_moving_average(weight_var, weight, decay, zero_debias=False)
        return (math_ops.truediv if truediv else math_ops.divide)(numerator, denominator, name=scope.name)


def _unique_in_scope(name):
    """``name``, or ``name_1``, ``name_2``... if the variable scope already has it."""
    scope = get_variable_scope()
    if scope.reuse:
        return name
    taken = {v.op.name for v in scope.global_variables()}
    full = f"{scope.name}/{name}"
    if full not in taken:
        return name
    i = 1
    while f"{full}_{i}" in taken:
        i += 1
    return f"{name}_{i}"


def _zero_debias(unbiased_var, value, decay):
    dtype = unbiased_var.dtype.base_dtype
    with variable_scope(unbiased_var.name[:-len(":0")], values=[unbiased_var, value, decay]):
        with control_dependencies(None), colocate_with(unbiased_var):  # TF: colocate_vars_with(unbiased_var)
            biased = get_variable(_unique_in_scope("biased"), initializer=zeros_initializer(),
                                  shape=unbiased_var.get_shape(), dtype=dtype, trainable=False)
            local_step = get_variable(_unique_in_scope("local_step"), shape=[], dtype=dtype,
                                      initializer=zeros_initializer(), trainable=False)
    update_biased = state_ops.assign_sub(biased, (biased - value) * decay)  # TF's operators, TF's names
    update_local_step = state_ops.assign_add(local_step, 1)
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(unbiased_var, update_biased / bias_factor,
                            name=get_default_graph().get_name_scope() + "/")


class ExponentialMovingAverage:
    """Maintains moving averages of variables (and tensors) in shadow variables
    named ``<var>/<name>`` (``<var>/ExponentialMovingAverage`` by default).

    ``decay``: float, the decay (typically 0.999, 0.9999...). ``num_updates``:
    optional count of updates (e.g. the global step); the decay then is
    ``min(decay, (1 + num_updates) / (10 + num_updates))``. ``zero_debias``:
    debias the averages of Tensors. ``name``: prefix of the ops ``apply``
    adds and suffix of the shadow variables' names."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}   # id(var) -> shadow variable
        self._averaged = {}   # id(var) -> var (keeps the key alive)

    @property
    def name(self):
        return self._name

    def apply(self, var_list=None):
        """Creates a shadow variable for each Variable or Tensor of ``var_list``
        (default: the trainable variables) and returns an op that updates them
        all. Shadows of Variables start at the variable's initial value and are
        added to ``GraphKeys.MOVING_AVERAGE_VARIABLES`` (the variable is);
        shadows of Tensors start at 0. Shadows are not trainable.

        TypeError unless every entry is half, bfloat16, float or double;
        ValueError if an entry is already averaged (or listed twice)."""
        var_list = trainable_variables() if var_list is None else list(var_list)
        seen = set()
        for var in var_list:
            if var.dtype.base_dtype not in _FLOATS:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if id(var) in self._averages or id(var) in seen:
                raise ValueError(f"Moving average already computed for: {var.name}")
            seen.add(id(var))
        debiased = set()
        for var in var_list:
            with control_dependencies(None):
                if isinstance(var, Variable):
                    avg = slots.create_slot(var, var.initialized_value(), self._name, colocate_with_primary=True)
                    add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    avg = slots.create_zeros_slot(var, self._name, colocate_with_primary=var.op.type in (
                        "Variable", "VariableV2", "VarHandleOp"))
                    if self._zero_debias:
                        debiased.add(id(avg))
            self._averages[id(var)] = avg
            self._averaged[id(var)] = var

        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = convert_to_tensor(self._num_updates)
                if num_updates.dtype.base_dtype != dtypes.float32:
                    num_updates = apply_op("Cast", x=num_updates, DstT=dtypes.float32, name="num_updates")
                ratio = (1.0 + num_updates) / (10.0 + num_updates)
                decay = apply_op("Minimum", x=decay, y=ratio)
            updates = [assign_moving_average(self._averages[id(var)], var, decay,
                                             zero_debias=id(self._averages[id(var)]) in debiased)
                       for var in var_list]
            return group(*updates, name=scope)

    def average(self, var):
        """The shadow Variable of ``var``, or None if ``var`` is not averaged."""
        return self._averages.get(id(var))

    def average_name(self, var):
        """The name of ``var``'s shadow variable: the existing one's, or the name
        ``apply`` would give it (``<var op name>/<name>``, made unique).
        Callable whether or not ``apply`` has run."""
        if id(var) in self._averages:
            return self._averages[id(var)].op.name
        return get_default_graph().unique_name(var.name[:-len(":0")] + "/" + self._name, mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None):
        """{restore name: variable}: every variable of ``moving_avg_variables``
        (default: the trainable variables and the moving-average variables)
        under its average name, whether or not it is averaged; every other
        global variable under its own name (e.g. ``global_step``)."""
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        unique = list({id(v): v for v in moving_avg_variables}.values())
        name_map = {self.average_name(v): v for v in unique}
        names = {v.name for v in unique}
        for v in global_variables():
            if v.name not in names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
