"""``tf.math``: the math functions under their tf.math names."""
from ref.graph_ops.math_ops import *  # noqa: F401,F403
from ref.graph_ops.math_ops import __all__  # noqa: F401

# tf.math names (TF 1.13+) for ops that live under tf.nn or at the top level.
from ref.graph_ops.array_ops import (invert_permutation, segment_sum, unsorted_segment_max,  # noqa: F401,E402
                                     unsorted_segment_min, unsorted_segment_prod, unsorted_segment_sum)
from ref.graph_ops.nn_ops import (in_top_k, l2_normalize, log_softmax, softmax, softplus, softsign,  # noqa: F401,E402
                                  zero_fraction)
from ref.graph_ops.confusion_matrix import confusion_matrix  # noqa: F401,E402

__all__ = list(__all__) + ["invert_permutation", "segment_sum", "unsorted_segment_max", "unsorted_segment_min",
                           "unsorted_segment_prod", "unsorted_segment_sum", "in_top_k", "l2_normalize",
                           "log_softmax", "softmax", "softplus", "softsign", "zero_fraction", "confusion_matrix"]

from ref.graph_ops.complex_ops import angle, conj, imag, real  # noqa: F401,E402
from ref.graph_ops.functional_ops import foldl, foldr, scan  # noqa: F401,E402

from ref.graph_ops.check_ops import is_non_decreasing, is_strictly_increasing  # noqa: F401,E402
from ref.graph_ops.normalization_ops import approx_max_k, approx_min_k, top_k  # noqa: F401,E402

__all__ += ["angle", "conj", "imag", "real", "foldl", "foldr", "scan", "is_non_decreasing", "is_strictly_increasing",
            "top_k", "approx_max_k", "approx_min_k"]

from ref.graph_ops.sparse_ops import sparse_segment_mean, sparse_segment_sqrt_n, sparse_segment_sum  # noqa: F401,E402

__all__ += ["sparse_segment_mean", "sparse_segment_sqrt_n", "sparse_segment_sum"]

from ref.graph_ops.math_extras import cumulative_logsumexp, reduce_logsumexp, reduce_std, reduce_variance  # noqa: F401,E402

__all__ += ["cumulative_logsumexp", "reduce_logsumexp", "reduce_std", "reduce_variance"]

from ref.graph_ops.math_special import (digamma, lgamma, polygamma, segment_max, segment_mean,  # noqa: F401,E402
                                        segment_min, segment_prod, unsorted_segment_mean, unsorted_segment_sqrt_n,
                                        zeta)

__all__ += ["digamma", "lgamma", "polygamma", "segment_max", "segment_mean", "segment_min", "segment_prod", "unsorted_segment_mean", "unsorted_segment_sqrt_n",
            "zeta"]

from ref.graph_ops.counting_ops import bincount  # noqa: F401,E402
from ref.graph_ops.math_special import lbeta  # noqa: F401,E402
from ref.graph_ops.math_special import betainc, igamma, igammac, nextafter  # noqa: F401,E402
from ref.graph_ops import special_math_ops as special  # noqa: E402  tf.math.special
from ref.graph_ops.special_math_ops import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e  # noqa: F401,E402

__all__ += ["bincount", "lbeta", "betainc", "igamma", "igammac", "nextafter", "special", "bessel_i0", "bessel_i0e",
            "bessel_i1", "bessel_i1e"]

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.math", name)

from ref.graph_ops.math_trig import *  # noqa: F401,F403,E402
from ref.graph_ops.math_trig import __all__ as _trig_all  # noqa: E402

__all__ += list(_trig_all)

from ref.graph_ops.misc_builders import polyval  # noqa: F401,E402

__all__ += ["polyval"]
