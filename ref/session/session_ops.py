"""``TensorHandle``: what ``Session.run`` returns for a ``GetSessionHandle`` fetch
(TF's ``session_ops.TensorHandle``). Feeding one gives its handle string to a
``get_session_tensor`` holder, and the value it names to any other tensor."""
from __future__ import annotations

import numpy as np

from ref.graph_ops import session_ops


class TensorHandle:
    """A tensor kept in a session, by handle."""

    def __init__(self, handle, dtype, session):
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._resource_handle = None
        self._dtype = dtype
        self._session = session
        self._auto_gc_enabled = True

    def __del__(self):
        if self._auto_gc_enabled and self._session is not None:  # TF deletes it when garbage collected
            try:
                self._session._state.resources.pop(("session_tensor", self._handle), None)
            except Exception:
                pass

    def __str__(self):
        return self._handle

    @property
    def handle(self):
        """The string handle."""
        return self._handle

    def to_numpy_array(self):
        """The handle as TF feeds it: a 0-d string array."""
        return np.asarray(self._handle.encode(), dtype=object)

    def get_raw_handle(self):
        return self._handle

    def eval(self):
        """The value this handle names."""
        holder, reader = self._session._handle_op("reader", self._dtype)
        return self._session.run(reader, feed_dict={holder: self._handle})

    def delete(self):
        """Frees the value this handle names in the session."""
        self._auto_gc_enabled = False
        holder, deleter = self._session._handle_op("deleter", None)
        self._session.run(deleter, feed_dict={holder: self._handle})

    @staticmethod
    def _get_device_name(handle):
        return handle.split(";")[-1]

    @staticmethod
    def _get_reader_key(handle):
        return handle.split(";")[-1] + ";" + handle.split(";")[0]

    @staticmethod
    def _get_mover_key(feeder, handle):
        return feeder.op.name + ";" + TensorHandle._get_reader_key(handle)


def handle_op(session, kind, dtype):
    """The (holder, reader/deleter) pair a session builds once per kind and dtype."""
    key = (kind, dtype)
    ops = session._handle_ops.get(key)
    if ops is None:
        with session.graph.as_default():
            if kind == "reader":
                ops = session_ops.get_session_tensor(None, dtype)
            else:
                ops = session_ops.delete_session_tensor(None)
        session._handle_ops[key] = ops
    return ops
