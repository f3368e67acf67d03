"""What the pure functional forms share (``State`` / ``init`` / ``step`` at the end
of each algorithm module): parameter trees and hyperparameters as the graph sees them.

``step(params, grads, state, **hyperparameters) -> (new_params, new_state)`` runs
the algorithm's dense kernel on every leaf of ``params`` (a dict, list or tuple
of NumPy arrays, nested), exactly as one ``apply_gradients`` of the TF1 class
would: the same kernel, the same hyperparameter conversions, the same bits.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence, Union

import numpy as np

ArrayTree = Union[np.ndarray, Mapping[str, "ArrayTree"], Sequence["ArrayTree"]]
"""Parameters (and slots): an array, or a dict / list / tuple of them, nested."""
GradTree = Union[np.ndarray, None, Mapping[str, "GradTree"], Sequence["GradTree"]]
"""Gradients shaped like the parameters; a None leaf leaves its parameter alone."""
Hyper = Union[float, np.floating, np.ndarray, Callable[[], Any]]
"""A hyperparameter: a Python float, a NumPy scalar or 0-d array, or a callable
returning one (called each step, as TF1's optimizers call theirs)."""


def pick(structure, tree, i):
    """Element ``i`` of each tuple leaf of ``tree`` (shaped like ``structure``)."""
    if isinstance(structure, dict):
        return {k: pick(structure[k], tree[k], i) for k in structure}
    if isinstance(structure, (list, tuple)):
        return type(structure)(pick(s, t, i) for s, t in zip(structure, tree))
    return tree[i]


def apply_leaves(update, params, grads, *slot_trees):
    """``(new_params, new_slot_tree, ...)``: ``update(var, grad, *slots) -> (var,
    *slots)`` on every leaf; a None gradient leaves the variable and its slots as
    they are (as ``apply_gradients`` skips it)."""
    def one(p, g, *s):
        if g is None:
            return (p, *s)
        return update(np.asarray(p), np.asarray(g), *s)

    results = tree_map(one, params, grads, *slot_trees)
    return tuple(pick(params, results, i) for i in range(1 + len(slot_trees)))


def tree_map(fn, *trees):
    """``fn`` over matching leaves of dicts / lists / tuples of arrays (None leaves
    of the first tree pass through as None)."""
    first = trees[0]
    if isinstance(first, dict):
        return {k: tree_map(fn, *(t[k] for t in trees)) for k in first}
    if isinstance(first, (list, tuple)) and not hasattr(first, "_fields"):
        return type(first)(tree_map(fn, *leaves) for leaves in zip(*trees))
    return fn(*trees)


def leaves(tree):
    """The leaves of ``tree`` in ``tree_map`` order."""
    if isinstance(tree, dict):
        return [x for k in tree for x in leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [x for t in tree for x in leaves(t)]
    return [tree]


def hyper(value, dtype=None):
    """A hyperparameter as the graph path sees it: called if callable, converted as
    ``convert_to_tensor`` would (a Python float is float32, an int int32), then cast to
    ``dtype`` (the variable's) -- so ``learning_rate=0.1`` for a float64 variable is
    ``float64(float32(0.1))``, as in TensorFlow."""
    if callable(value):
        value = value()
    a = np.asarray(value)
    if isinstance(value, (float, int)) and not isinstance(value, (bool, np.generic)):
        a = a.astype(np.float32) if isinstance(value, float) else a.astype(np.int32)
    if dtype is not None:
        a = a.astype(np.dtype(dtype))
    return a[()]


def zeros(p):
    """Zeros shaped like the parameter ``p``, in its dtype (TF's zeros slots)."""
    return np.zeros_like(np.asarray(p))


def filled(value):
    """``p -> array of p's shape filled with value`` in ``p``'s dtype (TF's constant-initialized slots)."""
    return lambda p: np.full(np.shape(p), value, np.asarray(p).dtype)
