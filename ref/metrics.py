"""``tf.metrics``: streaming metrics as ``(value, update_op)`` pairs over local variables."""
from ref.graph_ops.metrics_impl import *  # noqa: F401,F403
from ref.graph_ops.metrics_impl import __all__ as _impl_all
from ref.graph_ops.metrics_at_k import *  # noqa: F401,F403
from ref.graph_ops.metrics_at_k import __all__ as _at_k_all

from ref import _coverage  # noqa: E402

__all__ = list(_impl_all) + list(_at_k_all)


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.metrics", name)
