"""ref: a reference implementation of the TensorFlow 1.x training library.

``import ref as tf`` gives the TF 1.x graph API (also ``ref.compat.v1``);
``ref.raw_ops.<Name>`` gives every kernel as a pure function on NumPy arrays.

The TF 1.x names live in :mod:`ref._v1`; this module serves them on first
attribute access, the way TensorFlow's own top-level module loads lazily, so
that ``import ref.raw_ops`` loads the kernels and nothing of the graph,
session or training layers.
"""
import importlib as _importlib
import pkgutil as _pkgutil
import sys as _sys

__version__ = "0.1.0+tf2.21.0"  # ref's release, then (PEP 440 local label) the TF release whose behaviour it follows

from ref import compat  # noqa: E402  (imports only ref.types.shapes)
from ref import _coverage  # noqa: E402  (the message for a TF name ref does not provide)

compat.v1 = _sys.modules[__name__]
_SUBMODULES = frozenset(m.name for m in _pkgutil.iter_modules(__path__))


def _load():
    """Binds every public name of :mod:`ref._v1` here (once)."""
    namespace = _importlib.import_module("ref._v1")
    globals().update({k: v for k, v in vars(namespace).items() if not k.startswith("_")})
    return namespace


def __getattr__(name):
    if name.startswith("__") and name != "__all__":
        raise AttributeError(name)
    if name in _SUBMODULES:  # ``from ref import protos`` imports just that module
        return _importlib.import_module(f"{__name__}.{name}")
    namespace = _load()
    if name == "__all__":
        return sorted(k for k in vars(namespace) if not k.startswith("_"))
    try:
        return globals()[name]
    except KeyError:
        raise _coverage.miss("tf", name) from None


def __dir__():
    _load()
    return sorted(globals())
