"""``tf.logging``: TensorFlow's Python logger (TF's ``platform/tf_logging``).

Every message goes to the standard :mod:`logging` logger named
``"tensorflow"``, as in TensorFlow. On first use, when the root logger has no
handlers, the logger gets a stderr handler with :data:`logging.BASIC_FORMAT`
(``INFO:tensorflow:loss = 0.6931472, step = 1``); when the root logger is
configured, messages only propagate to it. The logger's own level is left
unset, so the default verbosity is the root logger's: ``WARN`` (30). Scripts
raise it with ``tf.logging.set_verbosity(tf.logging.INFO)``.

Levels are the :mod:`logging` numbers TF uses: ``DEBUG`` 10, ``INFO`` 20,
``WARN`` 30, ``ERROR`` 40, ``FATAL`` 50.
"""
from __future__ import annotations

import logging as _logging
import sys as _sys
import threading as _threading
from logging import DEBUG, ERROR, FATAL, INFO, WARN

__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "TaskLevelStatusMessage", "debug", "error", "fatal",
           "flush", "get_logger", "get_verbosity", "info", "log", "log_every_n", "log_first_n", "log_if",
           "set_verbosity", "vlog", "warn", "warning"]

_logger = None
_lock = _threading.Lock()
_counts: dict = {}


def _caller():
    """The first frame outside this module and :mod:`logging`."""
    f = _sys._getframe(1)
    while f is not None and f.f_code.co_filename in (__file__, _logging.__file__):
        f = f.f_back
    return f


def _find_caller(stack_info=False, stacklevel=1):
    """Reports the line that called ``tf.logging``, not this module (as TF's logger does)."""
    f = _caller()
    if f is None:
        return "(unknown file)", 0, "(unknown function)", None
    return f.f_code.co_filename, f.f_lineno, f.f_code.co_name, None


def get_logger():
    """The ``"tensorflow"`` :class:`logging.Logger` (configured on first call)."""
    global _logger
    if _logger is not None:
        return _logger
    with _lock:
        if _logger is None:
            logger = _logging.getLogger("tensorflow")
            logger.findCaller = _find_caller
            if not _logging.getLogger().handlers:
                interactive = hasattr(_sys, "ps1") or bool(_sys.flags.interactive)
                if interactive:  # as TF: a shell shows INFO on stdout
                    logger.setLevel(INFO)
                handler = _logging.StreamHandler(_sys.stdout if interactive else _sys.stderr)
                handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
                logger.addHandler(handler)
            _logger = logger
    return _logger


def log(level, msg, *args, **kwargs):
    """Logs ``msg % args`` at the numeric ``level``."""
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    """Logs at FATAL (50). As in TF this only logs; it does not exit."""
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    """Logs at the numeric ``level`` (TF's vlog is plain ``log``)."""
    get_logger().log(level, msg, *args, **kwargs)


def TaskLevelStatusMessage(msg):  # noqa: N802 (TF's name)
    """Logs ``msg`` at ERROR, as TF does."""
    error(msg)


def flush():
    """Not implemented in TensorFlow either (raises NotImplementedError)."""
    raise NotImplementedError()


def log_if(level, msg, condition, *args):
    """Logs ``msg % args`` at ``level`` when ``condition`` holds."""
    if condition:
        vlog(level, msg, *args)


def _next_count():
    """How many times the calling line has asked before (0 the first time)."""
    f = _caller()
    token = (f.f_code.co_filename, f.f_lineno) if f is not None else ("<unknown>", 0)
    _counts[token] = _counts.get(token, -1) + 1
    return _counts[token]


def log_every_n(level, msg, n, *args):
    """Logs the 1st, (n+1)st, (2n+1)st, ... call from the same line. Not thread-safe."""
    log_if(level, msg, not _next_count() % n, *args)


def log_first_n(level, msg, n, *args):
    """Logs only the first ``n`` calls from the same line. Not thread-safe."""
    log_if(level, msg, _next_count() < n, *args)


def get_verbosity():
    """The effective level of the ``"tensorflow"`` logger (WARN unless set)."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    """Sets the threshold below which messages are dropped."""
    get_logger().setLevel(v)
