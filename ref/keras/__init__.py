"""``tf.keras`` (also ``tf.compat.v1.keras``) in graph mode: the Keras 2
(tf_keras) layers, backend, initializers, activations, regularizers, losses,
models and optimizers as TF 2.21 with ``TF_USE_LEGACY_KERAS=1`` builds them
under ``tf.compat.v1`` with v2 behaviour disabled."""
from ref.keras import activations, backend, initializers, layers, losses, metrics, optimizers, regularizers, utils  # noqa: F401
from ref.keras import callbacks, models  # noqa: F401
from ref.keras.engine import Input  # noqa: F401
from ref.keras.models import Model, Sequential  # noqa: F401
