"""Tensors kept in the session between runs (TF's ``GetSessionHandle``,
``GetSessionTensor``, ``DeleteSessionTensor``): a handle is a string naming a
value in the session's store, ``"<op name>;<id>;<device>"``."""
from __future__ import annotations

import itertools

import numpy as np

from ref.ops.registry import REQUIRED, fixed_rule, invalid_argument, register_op
from ref.types import dtypes
from ref.types.shapes import TensorShape, unknown_shape

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_IDS = itertools.count()


def _key(handle):
    h = handle.decode() if isinstance(handle, bytes) else str(handle)
    return ("session_tensor", h), h


@register_op("GetSessionHandle", inputs=("value",), outputs=("handle",), type_attrs={"T": ("value",)},
             shape=fixed_rule((dtypes.string, TensorShape([]))), stateful=True, ctx=True)
def get_session_handle(value, ctx=None):
    """Keeps ``value`` in the session; returns its handle."""
    handle = f"{ctx.op_name};{next(_IDS)};{DEVICE}"
    ctx.resources[_key(handle)[0]] = np.asarray(value)
    return np.asarray(handle.encode(), dtype=object)


def _get_shape(ins, attrs):
    return [(attrs["dtype"], unknown_shape())]


@register_op("GetSessionTensor", inputs=("handle",), outputs=("value",), attrs={"dtype": REQUIRED},
             shape=_get_shape, stateful=True, ctx=True)
def get_session_tensor(handle, dtype=None, ctx=None):
    """The value kept under ``handle``."""
    key, h = _key(np.asarray(handle).reshape(-1)[0])
    if key not in ctx.resources:
        raise invalid_argument(f"The tensor with handle '{h}' is not in the session store.")
    return ctx.resources[key]


@register_op("DeleteSessionTensor", inputs=("handle",), outputs=(), shape=fixed_rule(), stateful=True, ctx=True)
def delete_session_tensor(handle, ctx=None):
    """Forgets the value kept under ``handle``."""
    key, h = _key(np.asarray(handle).reshape(-1)[0])
    if ctx.resources.pop(key, None) is None:
        raise invalid_argument(f"The tensor with handle '{h}' is not in the session store.")
    return ()
