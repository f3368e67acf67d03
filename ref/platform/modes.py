"""The TF 2.x mode switches TF1 scripts call first: ``ref`` always builds
graphs and runs them in Sessions (TF 1.x behaviour), so turning eager
execution or v2 behaviour *off* is a no-op and asking for either raises."""
from __future__ import annotations

from ref.types import shapes

__all__ = ["control_flow_v2_enabled", "disable_control_flow_v2", "disable_eager_execution", "disable_v2_behavior",
           "enable_control_flow_v2", "enable_eager_execution", "enable_v2_behavior", "executing_eagerly"]

_CONTROL_FLOW_V2 = [False]

_GRAPH_ONLY = ("ref runs TensorFlow 1.x graph mode only (graphs run in a tf.Session); {what} is not provided. "
               "See docs/coverage.rst (built: coverage.html, 'What ref covers').")


def disable_eager_execution():
    """No-op: ``ref`` never executes eagerly."""


def disable_v2_behavior():
    """TF 1.x behaviour (``ref`` always has it: graphs, Sessions, collections);
    as in TF, it also turns control flow v2 off (:func:`disable_control_flow_v2`)
    and TF 2's shapes off (``shape[i]`` is a ``Dimension``: :func:`ref.types.shapes.disable_v2_tensorshape`)."""
    _CONTROL_FLOW_V2[0] = False
    shapes.disable_v2_tensorshape()


def executing_eagerly():
    """False: ops build graph nodes; a Session runs them."""
    return False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Raises NotImplementedError: ``ref`` has no eager mode."""
    raise NotImplementedError(_GRAPH_ONLY.format(what="eager execution"))


def enable_v2_behavior():
    """Raises NotImplementedError: ``ref`` has no TF 2.x mode."""
    raise NotImplementedError(_GRAPH_ONLY.format(what="TF 2.x behaviour"))


def enable_control_flow_v2():
    """A differentiable ``tf.while_loop`` builds the functional ``While`` op
    (off by default, as in TF compat.v1 with v2 behaviour disabled): its
    gradient is a ``While`` too, and higher derivatives work."""
    _CONTROL_FLOW_V2[0] = True


def disable_control_flow_v2():
    """The default: ``tf.while_loop`` builds TF 1.x's dataflow loop
    (Enter/Merge/Switch/LoopCond/NextIteration/Exit), differentiated as TF 1.x
    does (a gradient loop reading stacks of forward values; second-order
    gradients of it raise TypeError, as in TF). ``tf.cond`` and loops with
    ``back_prop=False`` build TF 1.x's dataflow form either way; bodies of
    functions (dataset functions, function graphs) build ``While``/``If``."""
    _CONTROL_FLOW_V2[0] = False


def control_flow_v2_enabled():
    """Whether a differentiable ``tf.while_loop`` builds the functional ``While``
    (False unless :func:`enable_control_flow_v2` was called)."""
    return _CONTROL_FLOW_V2[0]
