"""``tf.metrics``: streaming metrics as ``(value, update_op)`` pairs over local variables."""
from ref.graph_ops.metrics_impl import *  # noqa: F401,F403
from ref.graph_ops.metrics_impl import __all__  # noqa: F401
