"""``tf.keras.layers``: the layer classes of ref.keras (graph mode)."""
from ref.keras.engine import InputLayer, InputSpec, Layer, Input  # noqa: F401
from ref.keras.layers_core import *  # noqa: F401,F403
from ref.keras.layers_conv import *  # noqa: F401,F403
from ref.keras.layers_reshaping import *  # noqa: F401,F403
from ref.keras.layers_recurrent import *  # noqa: F401,F403
from ref.keras.layers_normalization import BatchNormalization  # noqa: F401
from ref.keras import layers_conv as _conv, layers_core as _core, layers_recurrent as _recurrent, layers_reshaping as _reshaping

__all__ = ["InputLayer", "InputSpec", "Layer", "Input", "BatchNormalization"] + list(_core.__all__) + \
    list(_conv.__all__) + \
    list(_reshaping.__all__) + list(_recurrent.__all__)
