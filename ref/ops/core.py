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
    """One element as TF's SummarizeValue prints it: floats in the shortest
    round-tripping ``%g`` (6 then 9 digits for float32, 15 then 17 for float64)."""
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.floating):
        short, long_ = (6, 9) if v.dtype.itemsize <= 4 else (15, 17)
        text = format(float(v), f".{short}g")
        return text if np.isnan(v) or v.dtype.type(text) == v else format(float(v), f".{long_}g")
    return str(int(v)) if isinstance(v, np.bool_) else str(v)


def _summarize(value, summarize):
    """TF's ``Tensor::SummarizeValue``: the first ``summarize`` elements (all when
    negative), nested ``[...]`` per inner dimension, ``...`` where cut off."""
    arr = np.asarray(value)
    flat = arr.reshape(-1)
    limit = flat.size if summarize is None or summarize < 0 else min(flat.size, summarize)
    out, index = [], [0]

    def one_dim(dim):
        if index[0] >= limit:
            return
        if dim == arr.ndim - 1:
            for i in range(arr.shape[dim]):
                if index[0] >= limit:
                    if dim != 0:
                        out.append("...")
                    return
                out.append((" " if i else "") + _assert_word(flat[index[0]]))
                index[0] += 1
            return
        for _ in range(arr.shape[dim]):
            opened = index[0] < limit
            if opened:
                out.append("[")
            one_dim(dim + 1)
            if index[0] < limit or opened:
                out.append("]")

    if arr.ndim > 1:
        one_dim(0)
    else:
        out.extend((" " if i else "") + _assert_word(flat[i]) for i in range(limit))
    return "".join(out) + ("..." if limit < flat.size else "")


@register_op("Assert", inputs=("condition", "data"), outputs=(), list_inputs={"data": None},
             attrs={"summarize": 3}, stateful=True, shape=lambda ins, attrs: [])
def assert_(condition, data, summarize=3):
    """Raises InvalidArgumentError ``assertion failed: [d0] [d1] ...`` when the
    scalar bool ``condition`` is false (each ``data`` tensor shows at most
    ``summarize`` entries)."""
    if np.shape(condition) != ():
        raise invalid_argument(f"In[0] should be a scalar: {np.shape(condition)}")
    if not bool(condition):
        raise invalid_argument("assertion failed: " + " ".join(f"[{_summarize(d, summarize)}]" for d in data))
    return ()
