"""``ref.raw_ops.<Name>(**kwargs)``: every registered kernel under its TensorFlow
raw-op name, called on NumPy arrays -- no graph, no session, no state.

    >>> import numpy as np, ref.raw_ops as raw
    >>> raw.AddV2(x=np.float32(1), y=np.float32(2))
    np.float32(3.0)

Training ops (``ApplyAdam``...) return the NEW ``(var, slot, ...)`` and leave
their inputs unchanged. Importing this module loads the value types, the kernel
families and the formats they need: no graph, session or optimizer class.
"""
from __future__ import annotations

import functools

from ref.ops import registry


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        opdef = registry.get(name)
    except LookupError:
        raise AttributeError(f"module 'ref.raw_ops' has no attribute '{name}'") from None
    if opdef.kernel is None:
        raise AttributeError(f"{name} has no pure kernel")
    fn = functools.partial(registry.call, name)
    fn.__name__ = name
    fn.__doc__ = opdef.kernel.__doc__
    globals()[name] = fn
    return fn


def __dir__():
    return sorted(registry.registered())
