"""``tf.compat``: the string and path helpers of TF's ``python/util/compat``.

``ref.compat.v1`` is the TF 1.x namespace itself (``import ref as tf``);
``ref/__init__`` binds it. This package imports only ``ref.types.shapes``
(``dimension_value``, ``dimension_at_index``), so that ``import ref.raw_ops``
stays light.
"""
from __future__ import annotations

import contextlib
import datetime
import numbers
import os

from ref.types.shapes import dimension_at_index, dimension_value

__all__ = ["as_bytes", "as_text", "as_str", "as_str_any", "path_to_str", "bytes_or_text_types",
           "integral_types", "real_types", "complex_types", "v1", "forward_compatible",
           "forward_compatibility_horizon", "dimension_value", "dimension_at_index"]

bytes_or_text_types = (bytes, str)
# NumPy registers its scalar types with these ABCs (np.int32 is a numbers.Integral).
integral_types = (numbers.Integral,)
real_types = (numbers.Real,)
complex_types = (numbers.Complex,)


def as_bytes(bytes_or_text, encoding="utf-8"):
    """``bytes`` (or a ``bytearray``) unchanged as bytes; ``str`` encoded; anything else TypeError."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text, encoding="utf-8"):
    """``str`` unchanged; ``bytes`` decoded; anything else TypeError."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text


def as_str_any(value, encoding="utf-8"):
    """``as_str`` for bytes, ``str(value)`` for anything else."""
    return as_str(value, encoding) if isinstance(value, bytes) else str(value)


def path_to_str(path):
    """A path-like object as a string (other values unchanged)."""
    return os.fspath(path) if isinstance(path, os.PathLike) else path


# TF's forward-compatibility window (python/compat/compat.py): graphs may use
# ops newer than this date only once it has passed. ref builds one graph form
# for every op, so the horizon only answers ``forward_compatible``.
_horizon = [datetime.date(2026, 1, 16)]


def forward_compatible(year, month, day):
    """Whether the forward-compatibility horizon lies past ``year-month-day``."""
    return _horizon[-1] > datetime.date(year, month, day)


@contextlib.contextmanager
def forward_compatibility_horizon(year, month, day):
    """Within the block, :func:`forward_compatible` counts from ``year-month-day``."""
    _horizon.append(datetime.date(year, month, day))
    try:
        yield
    finally:
        _horizon.pop()
