"""``tf.losses``: weighted, reduced losses collected in ``GraphKeys.LOSSES``."""
from ref.graph_ops.losses_impl import *  # noqa: F401,F403
from ref.graph_ops.losses_impl import __all__  # noqa: F401
