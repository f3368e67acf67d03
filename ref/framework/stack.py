"""The default-session stack, as TF's ``framework/stack.py``: ``Session.as_default``
pushes onto it (from above), ``Tensor.eval``/``Operation.run`` read it.
"""
from __future__ import annotations

import contextlib
import threading

_session_tls = threading.local()


def _session_stack():
    if not hasattr(_session_tls, "stack"):
        _session_tls.stack = []
    return _session_tls.stack


def get_default_session():
    """The innermost session entered with ``as_default()`` on this thread, or None
    (TF keeps this stack in ``framework/ops.py`` too; sessions push themselves)."""
    stack = _session_stack()
    return stack[-1] if stack else None


@contextlib.contextmanager
def default_session(session):
    """Makes ``session`` the default session inside the block (``Session.as_default``)."""
    stack = _session_stack()
    stack.append(session)
    try:
        yield session
    finally:
        stack.pop()
