"""``tf.math``: the math functions under their tf.math names."""
from ref.graph_ops.math_ops import *  # noqa: F401,F403
from ref.graph_ops.math_ops import __all__  # noqa: F401
from ref.graph_ops.sparse_ops import sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum  # noqa: F401
