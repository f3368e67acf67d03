"""``tf.version``: the TensorFlow release whose behaviour ref follows (also the
local label of ``ref.__version__``) and the GraphDef versions it writes."""
from ref.framework.versions import (GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER,  # noqa: F401
                                    GRAPH_DEF_VERSION_MIN_PRODUCER)

VERSION = "2.21.0"
GIT_VERSION = "v2.21.0"
COMPILER_VERSION = "ref: Python/NumPy/Numba"

__all__ = ["COMPILER_VERSION", "GIT_VERSION", "GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER",
           "GRAPH_DEF_VERSION_MIN_PRODUCER", "VERSION"]
