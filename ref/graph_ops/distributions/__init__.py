"""``tf.distributions`` (TF 1.x's probability distributions, deprecated in TF for
TensorFlow Probability but still in ``tf.compat.v1``), built as TF's
``tensorflow/python/ops/distributions`` builds them."""
