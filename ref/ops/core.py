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


@register_op("NoOp", inputs=(), outputs=(), shape=lambda ins, attrs: [])
def no_op():
    """Does nothing; used for control dependencies."""
    return ()


def _assert_word(v):
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.floating):
        return format(float(v), ".6g" if v.dtype.itemsize <= 4 else ".15g")
    return str(int(v)) if isinstance(v, np.bool_) else str(v)


def _assert_item(value, summarize):
    """One ``data`` entry as TF prints it in an assertion message: ``a b c...``
    (at most ``summarize`` entries, flattened; bools as 0/1)."""
    flat = np.asarray(value).reshape(-1)
    shown = flat if summarize is None or summarize < 0 else flat[:summarize]
    return " ".join(_assert_word(v) for v in shown) + ("..." if len(shown) < flat.size else "")


@register_op("Assert", inputs=("condition", "data"), outputs=(), list_inputs={"data": None},
             attrs={"summarize": 3}, stateful=True, shape=lambda ins, attrs: [])
def assert_(condition, data, summarize=3):
    """Raises InvalidArgumentError ``assertion failed: [d0] [d1] ...`` when the
    scalar bool ``condition`` is false (each ``data`` tensor shows at most
    ``summarize`` entries)."""
    if np.shape(condition) != ():
        raise invalid_argument(f"In[0] should be a scalar: {np.shape(condition)}")
    if not bool(condition):
        raise invalid_argument("assertion failed: " + " ".join(f"[{_assert_item(d, summarize)}]" for d in data))
    return ()
