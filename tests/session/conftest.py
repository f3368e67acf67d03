"""The TF1 namespaces the session tests share with the training-harness tests
(``rtf``: ref with the queue / input-pipeline names, ``tf1``: tensorflow.compat.v1
with reference variables); defined once, in tests/training/conftest.py."""
from tests.training.conftest import rtf, tf1  # noqa: F401
