"""``tf.nn``: activations, losses and helpers."""
from ref.graph_ops.nn_ops import *  # noqa: F401,F403
from ref.graph_ops.nn_ops import __all__ as _nn_all
from ref.graph_ops.math_ops import sigmoid, tanh  # noqa: F401
from ref.graph_ops.embedding_ops import embedding_lookup  # noqa: F401

__all__ = list(_nn_all) + ["sigmoid", "tanh", "embedding_lookup"]

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.nn", name)
