"""``tf.layers``: TF1's functional layers (see :mod:`ref.graph_ops.layers`)."""
from ref.graph_ops.layers import *  # noqa: F401,F403
from ref.graph_ops.layers import __all__  # noqa: F401
