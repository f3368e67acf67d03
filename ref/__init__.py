"""ref: a reference implementation of the TensorFlow 1.x training library."""
__version__ = "0.1.0"
