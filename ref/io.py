"""``tf.io``: TFRecord files (as ``tf.python_io``) and ``tf.io.gfile``."""
from ref.python_io import *  # noqa: F401,F403
from ref.python_io import __all__ as _records
from ref.platform import gfile  # noqa: F401

__all__ = list(_records) + ["gfile"]

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.io", name)
