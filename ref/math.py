"""``tf.math``: the math functions under their tf.math names."""
from ref.graph_ops.math_ops import *  # noqa: F401,F403
from ref.graph_ops.math_ops import __all__  # noqa: F401
from ref.graph_ops.complex_ops import angle, conj, imag, real  # noqa: F401,E402
from ref.graph_ops.functional_ops import foldl, foldr, scan  # noqa: F401,E402
