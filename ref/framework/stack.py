"""The default-session stack, as TF's ``framework/stack.py``: ``Session.as_default``
pushes onto it (from above), ``Tensor.eval``/``Operation.run`` read it.
"""
from __future__ import annotations

import contextlib
import threading


class DefaultStack(threading.local):
    """A per-thread stack of defaults (TF's ``DefaultStack``); with
    ``enforce_nesting`` a controller must leave in the order they entered."""

    def __init__(self):
        super().__init__()
        self.stack = []
        self._enforce_nesting = True

    def get_default(self):
        return self.stack[-1] if self.stack else None

    def reset(self):
        self.stack = []

    def is_cleared(self):
        return not self.stack

    @property
    def enforce_nesting(self):
        return self._enforce_nesting

    @enforce_nesting.setter
    def enforce_nesting(self, value):
        self._enforce_nesting = value

    @contextlib.contextmanager
    def get_controller(self, default, enforce_nesting=None):
        """Makes ``default`` the default inside the block; AssertionError (TF's
        wording) when it is left while another entered later is still there."""
        self.stack.append(default)
        try:
            yield default
        finally:
            if self.stack:  # empty after reset()
                enforce = self._enforce_nesting if enforce_nesting is None else enforce_nesting
                if enforce:
                    if self.stack[-1] is not default:
                        raise AssertionError(f"Nesting violated for default stack of {type(default)} objects")
                    self.stack.pop()
                elif default in self.stack:
                    self.stack.remove(default)


_default_session_stack = DefaultStack()


def get_default_session():
    """The innermost session entered with ``as_default()`` on this thread, or None
    (TF keeps this stack in ``framework/ops.py`` too; sessions push themselves)."""
    return _default_session_stack.get_default()


def default_session(session, enforce_nesting=None):
    """Makes ``session`` the default session inside the block (``Session.as_default``);
    ``enforce_nesting=False``: it may be left out of order (an InteractiveSession)."""
    return _default_session_stack.get_controller(session, enforce_nesting)
