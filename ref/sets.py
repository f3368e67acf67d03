"""``tf.sets`` (``tf.compat.v1.sets``): set_size, set_intersection, set_difference, set_union."""
from ref.graph_ops.sets_impl import *  # noqa: F401,F403
from ref.graph_ops.sets_impl import __all__  # noqa: F401

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.sets", name)
