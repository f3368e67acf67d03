"""TF's ``register_session_run_conversion_functions``: how ``Session.run`` fetches
and feeds objects of a user type (TF's ``session._REGISTERED_EXPANSIONS``).

``fetch_function(obj)`` returns ``(tensors, contract)``: the run fetches
``tensors`` and hands back ``contract(values)``. ``feed_function(obj, value)``
returns ``[(tensor, value), ...]`` the run feeds; ``feed_function_for_partial_run(obj)``
the tensors ``partial_run_setup`` may feed. A type registered already, or one a
built-in conversion covers (``SparseTensor``, ``IndexedSlices``, ``object``), is a
ValueError, as in TF.
"""
from __future__ import annotations

from ref.framework.indexed_slices import IndexedSlices
from ref.framework.sparse_tensor import SparseTensor

__all__ = ["register_session_run_conversion_functions", "expansion_for", "partial_run_feeds"]

_BUILT_IN = (SparseTensor, IndexedSlices, object)
_REGISTERED: list = []  # (type, fetch_function, feed_function, feed_function_for_partial_run), newest first


def register_session_run_conversion_functions(tensor_type, fetch_function, feed_function=None,
                                              feed_function_for_partial_run=None):
    """Makes ``Session.run`` fetch and feed ``tensor_type`` objects with these functions."""
    for known in [r[0] for r in _REGISTERED] + list(_BUILT_IN):
        if issubclass(known, tensor_type):
            raise ValueError(f"{tensor_type} has already been registered so ignore it.")
    _REGISTERED.insert(0, (tensor_type, fetch_function, feed_function, feed_function_for_partial_run))


def expansion_for(obj):
    """The registered ``(type, fetch, feed, feed_for_partial_run)`` whose type ``obj`` is, or None."""
    for entry in _REGISTERED:
        if isinstance(obj, entry[0]):
            return entry
    return None


def partial_run_feeds(obj):
    """The tensors ``partial_run_setup(feeds=[obj])`` stands for: a registered type's
    ``feed_function_for_partial_run(obj)``, else ``[obj]``."""
    entry = expansion_for(obj)
    return [obj] if entry is None or entry[3] is None else list(entry[3](obj))
