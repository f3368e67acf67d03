"""``tf.layers``: TF1's functional layers (see :mod:`ref.graph_ops.layers`)."""
from ref.graph_ops.layers import *  # noqa: F401,F403
from ref.graph_ops.layers_separable import *  # noqa: F401,F403
from ref.graph_ops.layers_3d import *  # noqa: F401,F403
from ref.graph_ops import layers as _layers, layers_separable as _separable, layers_3d as _layers_3d

from ref.keras.engine import InputSpec  # noqa: F401,E402

__all__ = list(_layers.__all__) + list(_separable.__all__) + list(_layers_3d.__all__) + ["InputSpec"]
