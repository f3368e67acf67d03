"""Optional kernels: the ``variant`` values TF's ``cond_v2`` gradient uses to
pass a branch's intermediates out of an ``If`` (the branch that did not
compute an intermediate returns ``OptionalNone``; the gradient reads it with
``OptionalGetValue``). ref builds no Optionals itself; they come with graphs
TensorFlow wrote.
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types import dtypes
from ref.types.shapes import TensorShape


class Optional:
    """An immutable optional tuple of tensors (TF's ``OptionalVariant``)."""

    __slots__ = ("components",)
    is_variant = True

    def __init__(self, components):
        self.components = None if components is None else tuple(components)

    def __repr__(self):
        return "Optional(none)" if self.components is None else f"Optional({len(self.components)} tensors)"


def _optional(ins, attrs):
    return [(dtypes.variant, TensorShape([]))]


@register_op("OptionalNone", outputs=("optional",), shape=_optional)
def optional_none():
    """optional = an Optional holding no value."""
    return Optional(None)


@register_op("OptionalFromValue", inputs=("components",), outputs=("optional",),
             list_inputs={"components": None}, attrs={"Toutput_types": None}, shape=_optional)
def optional_from_value(components, Toutput_types=None):
    """optional = an Optional holding ``components``."""
    return Optional(components)


def _check_optional(optional, op_type):
    if not isinstance(optional, Optional):
        raise invalid_argument(f"{op_type}: input must be a scalar variant tensor holding an Optional, got "
                               f"{type(optional).__name__}")


@register_op("OptionalHasValue", inputs=("optional",), outputs=("has_value",),
             shape=lambda ins, attrs: [(dtypes.bool, TensorShape([]))])
def optional_has_value(optional):
    """has_value = whether ``optional`` holds a value."""
    _check_optional(optional, "OptionalHasValue")
    return np.bool_(optional.components is not None)


def _get_value_shape(ins, attrs):
    shapes = attrs.get("output_shapes") or [None] * len(attrs["output_types"])
    return [(d, TensorShape(s)) for d, s in zip(attrs["output_types"], shapes)]


@register_op("OptionalGetValue", inputs=("optional",), outputs=("*components",),
             attrs={"output_types": REQUIRED, "output_shapes": []}, shape=_get_value_shape)
def optional_get_value(optional, output_types, output_shapes=()):
    """components = the tensors ``optional`` holds (InvalidArgumentError if none)."""
    _check_optional(optional, "OptionalGetValue")
    if optional.components is None:
        raise invalid_argument("The optional variant does not have a value.")
    if len(optional.components) != len(output_types):
        raise invalid_argument(f"The optional holds {len(optional.components)} components but "
                               f"{len(output_types)} were expected.")
    return tuple(optional.components)
