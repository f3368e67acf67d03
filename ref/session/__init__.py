"""The Session: runs graphs with the interpreter in :mod:`ref.session.interpreter`."""
from ref.session.session import BaseSession, InteractiveSession, Session, get_default_session
from ref.session import eager_call  # noqa: F401 -- registers how EagerPyFunc runs its function (eagerly)

__all__ = ["BaseSession", "Session", "InteractiveSession", "get_default_session"]
