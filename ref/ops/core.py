"""The ops every graph needs: Const, Placeholder, PlaceholderWithDefault,
Identity, NoOp."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import REQUIRED, register_op, invalid_argument
from ref.types.shapes import TensorShape, unknown_shape


def _const_shape(ins, attrs):
    return [(attrs["dtype"], TensorShape(np.shape(attrs["value"])))]


@register_op("Const", inputs=(), attrs={"value": REQUIRED, "dtype": REQUIRED}, shape=_const_shape)
def const(value, dtype):
    """Returns the constant ``value`` (a read-only array)."""
    return value


def _placeholder_shape(ins, attrs):
    shape = attrs.get("shape")
    return [(attrs["dtype"], unknown_shape() if shape is None else TensorShape(shape))]


@register_op("Placeholder", inputs=(), attrs={"dtype": REQUIRED, "shape": None}, shape=_placeholder_shape,
             stateful=True)
def placeholder(dtype, shape=None):
    """Never run: a placeholder must be fed (the Session raises InvalidArgumentError)."""
    raise invalid_argument(f"You must feed a value for placeholder tensor with dtype {dtypes.as_dtype(dtype).name}")


def _with_default_shape(ins, attrs):
    shape = attrs.get("shape")
    inp = ins["input"]
    return [(inp.dtype, inp.shape if shape is None else TensorShape(shape))]


@register_op("PlaceholderWithDefault", inputs=("input",), attrs={"shape": None}, type_attrs={"dtype": "input"},
             shape=_with_default_shape)
def placeholder_with_default(input, shape=None):
    """Passes ``input`` through unless fed."""
    return input


@register_op("Identity", inputs=("input",), type_attrs={"T": "input"}, raw_inputs=("input",))
def identity(input):
    """Returns ``input``. Given a variable it forwards the reference, as TF's
    Identity forwards the buffer: a consumer reads the value when it runs."""
    return input


@register_op("GuaranteeConst", inputs=("input",), type_attrs={"T": "input"}, stateful=True)
def guarantee_const(input):
    """Returns ``input``, promising it is constant across runs (TF keeps the op
    from being optimized away: stateful here, so the Session never folds it)."""
    return input


@register_op("NoOp", inputs=(), outputs=(), shape=lambda ins, attrs: [])
def no_op():
    """Does nothing; used for control dependencies."""
    return ()


