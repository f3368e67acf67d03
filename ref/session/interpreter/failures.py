"""How a failing run is reported: a kernel's exception as TF's ``OpError`` naming
the op and the line that created it, an unfed placeholder, a dead fetch."""
from __future__ import annotations

import re

from ref.types import errors
from ref.ops.control import DEAD

KERNEL_ERRORS = (errors.OpError, ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError)
"""The exceptions a kernel call may raise that become the failing op's ``OpError``."""

# TF's run-time messages name dtypes as its C++ runtime does (DataTypeString).
_CPP_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def where(op) -> str:
    """The ``[[node name (defined at file:line) ]]`` suffix of TF's messages ('' without an op)."""
    if op is None:
        return ""
    tb = op._traceback
    at = f" (defined at {tb[0]}:{tb[1]})" if tb else ""
    return f"\n\t [[node {op.name}{at} ]]"


def op_error(e, op):
    """A kernel's exception as TF reports it: an OpError naming the op and the
    line that created it (a plain Python error becomes InvalidArgumentError; NumPy's
    broadcasting failure of two operands reads as TF's "Incompatible shapes")."""
    if isinstance(e, errors.OpError):
        return e if e.op is not None else type(e)(None, op, e.message + where(op))
    return errors.InvalidArgumentError(None, op, (_incompatible_shapes(e) or f"{e}") + where(op))


# NumPy's two wordings of a failed broadcast (ufuncs; np.broadcast / broadcast_shapes)
_UFUNC_BROADCAST = re.compile(r"operands could not be broadcast together with shapes (\([\d, ]*\)) (\([\d, ]*\)) ?$")
_BROADCAST_MISMATCH = re.compile(r"shape mismatch: objects cannot be broadcast to a single shape\.\s+Mismatch is "
                                 r"between arg 0 with shape (\([\d, ]*\)) and arg 1 with shape (\([\d, ]*\))\.$")


def _incompatible_shapes(e):
    """TF's message for two operands that do not broadcast (``Incompatible shapes:
    [2,3] vs. [4]``), when ``e`` is NumPy's broadcasting ValueError for two; else None."""
    if type(e) is not ValueError:
        return None
    m = _UFUNC_BROADCAST.match(str(e)) or _BROADCAST_MISMATCH.match(str(e))
    if m is None:
        return None
    dims = [[int(d) for d in g.strip("()").replace(" ", "").split(",") if d] for g in m.groups()]
    return "Incompatible shapes: " + " vs. ".join("[" + ",".join(map(str, d)) + "]" for d in dims)


def call(op, kernel, args, attrs):
    """``kernel(*args, **attrs)``, a failure reported as ``op``'s error."""
    try:
        return kernel(*args, **attrs)
    except KERNEL_ERRORS as e:
        raise op_error(e, op) from (None if isinstance(e, errors.OpError) else e)


def placeholder_error(op):
    """The error for running a placeholder nobody fed."""
    t = op._outputs[0]
    name = op._attrs["dtype"].name
    return errors.InvalidArgumentError(
        None, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                  f"{_CPP_DTYPE_NAMES.get(name, name)}" + (f" and shape {shape_str(t.shape)}"
                                                           if t.shape.ndims else "") + where(op))


def live(value, i):
    """A fetched value, or TF's error for a tensor on a Switch's untaken branch."""
    if value is DEAD:
        raise errors.InvalidArgumentError(None, None, f"Retval[{i}] does not have value")
    return value


def shape_str(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"
