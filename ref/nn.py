"""``tf.nn``: activations, losses and helpers."""
from ref.graph_ops.nn_ops import *  # noqa: F401,F403
from ref.graph_ops.nn_ops import __all__ as _nn_all
from ref.graph_ops.math_ops import sigmoid, tanh  # noqa: F401
from ref.graph_ops.embedding_ops import embedding_lookup, embedding_lookup_sparse  # noqa: F401

__all__ = list(_nn_all) + ["sigmoid", "tanh", "embedding_lookup", "embedding_lookup_sparse"]
