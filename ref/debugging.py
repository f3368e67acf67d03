"""``tf.debugging``: assertions, numeric checks and printing."""
from ref.graph_ops.check_ops import *  # noqa: F401,F403
from ref.graph_ops.check_ops import __all__ as _check_all
from ref.graph_ops.logging_ops import Assert  # noqa: F401
from ref.graph_ops.shape_checks import assert_shapes  # noqa: F401
from ref.graph_ops.array_ops import check_numerics  # noqa: F401
from ref.graph_ops.array_ops import verify_tensor_all_finite as assert_all_finite  # noqa: F401  (TF1's name)
from ref.graph_ops.math_ops import is_finite, is_inf, is_nan  # noqa: F401

__all__ = list(_check_all) + ["Assert", "assert_shapes", "check_numerics", "assert_all_finite", "is_finite", "is_inf", "is_nan"]
