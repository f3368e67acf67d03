"""``tf.get_session_handle``, ``tf.get_session_tensor``, ``tf.delete_session_tensor``:
keep a tensor in the session between runs and refer to it by a handle. The
handle's reader dtype is recorded on the graph, so that feeding a
:class:`ref.session.session_ops.TensorHandle` finds it."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import Tensor, colocate_with
from ref.framework.op_def_library import apply_op
from ref.graph_ops.control_flow_ops import placeholder

__all__ = ["get_session_handle", "get_session_tensor", "delete_session_tensor"]


def get_session_handle(data, name=None):
    """An op that keeps ``data``'s value in the session and outputs its handle
    (a fetch of it gives a TensorHandle)."""
    if not isinstance(data, Tensor):
        raise TypeError("`data` must be of type Tensor.")
    with colocate_with(data):
        return apply_op("GetSessionHandle", value=data, name=name or "GetSessionHandle")


def get_session_tensor(handle, dtype, name=None):
    """``(holder, tensor)``: feed a handle (or TensorHandle) to the string
    placeholder ``holder``; ``tensor`` is the value it names."""
    holder = placeholder(dtypes.string)
    holders = holder.graph.__dict__.setdefault("_handle_feeders", {})
    holders[holder.op.name] = dtypes.as_dtype(dtype)
    tensor = apply_op("GetSessionTensor", handle=holder, dtype=dtypes.as_dtype(dtype), name=name or "GetSessionTensor")
    return holder, tensor


def delete_session_tensor(handle, name=None):
    """``(holder, deleter)``: feed a handle to ``holder``; running ``deleter``
    frees the value it names."""
    holder = placeholder(dtypes.string)
    deleter = apply_op("DeleteSessionTensor", handle=holder, name=name or "DeleteSessionTensor")
    return holder, deleter
