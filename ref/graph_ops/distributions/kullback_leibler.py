"""``tf.distributions.kl_divergence`` and ``RegisterKL``: KL(a || b) looked up by
the pair of classes, the registered pair nearest in both method resolution
orders winning (TF's ``kullback_leibler.py``); ``cross_entropy = H[a] + KL(a || b)``."""
from __future__ import annotations

import inspect

from ref.framework.graph import control_dependencies, name_scope
from ref.graph_ops import control_flow_ops, logging_ops, math_ops

__all__ = ["RegisterKL", "kl_divergence", "cross_entropy"]

_DIVERGENCES = {}


def _registered_kl(type_a, type_b):
    best, best_distance = None, None
    for i, parent_a in enumerate(inspect.getmro(type_a)):
        for j, parent_b in enumerate(inspect.getmro(type_b)):
            candidate = _DIVERGENCES.get((parent_a, parent_b))
            if not best or (candidate and i + j < best_distance):
                best, best_distance = candidate, i + j
    return best


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """``KL(distribution_a || distribution_b)``; with ``allow_nan_stats=False`` a NaN
    in the result fails an ``Assert`` at run time."""
    kl_fn = _registered_kl(type(distribution_a), type(distribution_b))
    if kl_fn is None:
        raise NotImplementedError(
            f"No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type {type(distribution_b).__name__}")
    with name_scope("KullbackLeibler"):
        kl_t = kl_fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl_t
        kl_t = control_flow_ops.identity(kl_t, name="kl")
        message = (f"KL calculation between {distribution_a.name} and {distribution_b.name} returned NaN values "
                   f"(and was called with allow_nan_stats=False). Values:")
        check = logging_ops.Assert(math_ops.logical_not(math_ops.reduce_any(math_ops.is_nan(kl_t))), [message, kl_t])
        with control_dependencies([check]):
            return control_flow_ops.identity(kl_t, name="checked_kl")


def cross_entropy(ref, other, allow_nan_stats=True, name=None):
    with name_scope(name, "cross_entropy"):
        return ref.entropy() + kl_divergence(ref, other, allow_nan_stats=allow_nan_stats)


class RegisterKL:
    """Decorator: ``@RegisterKL(A, B)`` makes ``fn(a, b, name=None)`` the KL of an ``A``
    and a ``B``; a pair registers once."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _DIVERGENCES:
            raise ValueError(f"KL({self._key[0].__name__} || {self._key[1].__name__}) has already been registered "
                             f"to: {_DIVERGENCES[self._key]}")
        _DIVERGENCES[self._key] = kl_fn
        return kl_fn
