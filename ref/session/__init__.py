"""The Session: runs graphs with the interpreter in :mod:`ref.session.interpreter`."""
from ref.session.session import BaseSession, InteractiveSession, Session, get_default_session

__all__ = ["BaseSession", "Session", "InteractiveSession", "get_default_session"]
