"""The TF 2.x mode switches TF1 scripts call first: ``ref`` always builds
graphs and runs them in Sessions (TF 1.x behaviour), so turning eager
execution or v2 behaviour *off* is a no-op and asking for either raises."""
from __future__ import annotations

__all__ = ["disable_eager_execution", "disable_v2_behavior", "enable_eager_execution", "enable_v2_behavior",
           "executing_eagerly"]

_GRAPH_ONLY = ("ref runs TensorFlow 1.x graph mode only (graphs run in a tf.Session); {what} is not provided. "
               "See docs/coverage.rst (built: coverage.html, 'What ref covers').")


def disable_eager_execution():
    """No-op: ``ref`` never executes eagerly."""


def disable_v2_behavior():
    """No-op: ``ref`` always has TF 1.x behaviour (graphs, Sessions, collections)."""


def executing_eagerly():
    """False: ops build graph nodes; a Session runs them."""
    return False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Raises NotImplementedError: ``ref`` has no eager mode."""
    raise NotImplementedError(_GRAPH_ONLY.format(what="eager execution"))


def enable_v2_behavior():
    """Raises NotImplementedError: ``ref`` has no TF 2.x mode."""
    raise NotImplementedError(_GRAPH_ONLY.format(what="TF 2.x behaviour"))
