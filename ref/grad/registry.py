"""Gradient rules by op type: ``RegisterGradient``, ``NotDifferentiable``.

A rule is a pure function ``(op, *output_grads) -> input_grads`` that builds
graph ops, so gradients are graphs and can be differentiated again. It returns
one gradient per input of ``op`` (None where there is none; an IndexedSlices
where the gradient is sparse).
"""
from __future__ import annotations

_RULES = {}
_NOT_DIFFERENTIABLE = set()


class RegisterGradient:
    """Decorator registering a gradient rule for an op type (``tf.RegisterGradient``)."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        if self._op_type in _RULES:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'! "
                           f"(Previous registration was in {_RULES[self._op_type].__module__})")
        _RULES[self._op_type] = fn
        return fn


def NotDifferentiable(op_type):
    """Declares that ops of ``op_type`` have no gradient (their inputs get None)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    _NOT_DIFFERENTIABLE.add(op_type)


NoGradient = NotDifferentiable


def get_rule(op_type):
    """The rule for ``op_type``; None if declared not differentiable; LookupError if unknown."""
    if op_type in _NOT_DIFFERENTIABLE:
        return None
    try:
        return _RULES[op_type]
    except KeyError:
        raise LookupError(f"No gradient defined for operation type '{op_type}'") from None


def get_gradient_function(op):
    """TF's ``ops.get_gradient_function``: the rule ``tf.gradients`` uses for ``op``
    (by its ``gradient_override_map`` type, else its own); None for an op without
    inputs or of a not-differentiable type; LookupError for a type with no rule."""
    if not op.inputs:
        return None
    op_type = op._attrs.get("_gradient_op_type", op.type)
    return get_rule(op_type.decode() if isinstance(op_type, bytes) else op_type)


def is_registered(op_type) -> bool:
    return op_type in _RULES or op_type in _NOT_DIFFERENTIABLE


def registered_rules():
    return dict(_RULES), set(_NOT_DIFFERENTIABLE)
