"""``tf.manip`` (TF 1.x): tensor manipulation under their tf.manip names."""
from ref.graph_ops.array_ops import gather_nd, reshape, reverse, scatter_nd, tile  # noqa: F401
from ref.graph_ops.math_special import roll  # noqa: F401
from ref.graph_ops.space_batch_ops import batch_to_space_nd, space_to_batch_nd  # noqa: F401

__all__ = ["batch_to_space_nd", "gather_nd", "reshape", "reverse", "roll", "scatter_nd", "space_to_batch_nd", "tile"]

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.manip", name)
