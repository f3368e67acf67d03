"""``tf.metrics``: streaming metrics as ``(value, update_op)`` pairs over local variables."""
from ref.graph_ops.metrics_impl import *  # noqa: F401,F403
from ref.graph_ops.metrics_impl import __all__  # noqa: F401

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.metrics", name)
