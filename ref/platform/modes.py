"""The TF 2.x mode switches TF1 scripts call first. ``ref`` always builds
graphs and runs them in Sessions (TF 1.x behaviour). ``enable_v2_behavior``
switches what TF's switches for graphs: TF 2's shapes, control flow v2 and
resource variables by default; it also turns on eager execution in TF, which
``ref`` does not have, so building an op outside ``with tf.Graph().as_default():``
then raises (where TF would execute it eagerly). ``disable_v2_behavior`` undoes
all of it."""
from __future__ import annotations

from ref.types import shapes

__all__ = ["control_flow_v2_enabled", "disable_control_flow_v2", "disable_eager_execution", "disable_v2_behavior",
           "enable_control_flow_v2", "enable_eager_execution", "enable_v2_behavior", "executing_eagerly",
           "enable_op_determinism", "disable_op_determinism", "is_op_determinism_enabled"]

_CONTROL_FLOW_V2 = [False]
_RESOURCE_VARIABLES = [False]  # TF's resource_variables_toggle: the default of use_resource
_EAGER_ASKED = [False]
_OP_DETERMINISM = [False]  # enable_v2_behavior was called: TF would execute eagerly outside a graph

# Whether some graph was entered with ``as_default()`` on this thread: set by
# ref.framework.graph (the layer that owns the default-graph stack) through
# register_graph_probe.
_GRAPH_ENTERED = [lambda: False]


def register_graph_probe(entered):
    """``entered()`` says whether this thread builds inside a graph it entered
    (registered from above by the graph layer)."""
    _GRAPH_ENTERED[0] = entered

_GRAPH_ONLY = ("ref runs TensorFlow 1.x graph mode only (graphs run in a tf.Session); {what} is not provided. "
               "See docs/coverage.rst (built: coverage.html, 'What ref covers').")


def disable_eager_execution():
    """No-op: ``ref`` never executes eagerly."""


def disable_v2_behavior():
    """TF 1.x behaviour (``ref``'s default: graphs, Sessions, collections). As
    TF's, it turns control flow v2 off (:func:`disable_control_flow_v2`), TF 2's
    shapes off (``shape[i]`` is a ``Dimension``:
    :func:`ref.types.shapes.disable_v2_tensorshape`) and resource variables by
    default off, and undoes :func:`enable_v2_behavior`'s eager request."""
    _CONTROL_FLOW_V2[0] = False
    _RESOURCE_VARIABLES[0] = False
    _EAGER_ASKED[0] = False
    shapes.disable_v2_tensorshape()


def executing_eagerly():
    """False, except after :func:`enable_v2_behavior` outside any
    ``Graph.as_default()`` block, where TF executes eagerly (and ``ref``
    refuses to build ops: :func:`check_graph_building`)."""
    return _EAGER_ASKED[0] and not _GRAPH_ENTERED[0]()


def check_graph_building():
    """Raises NotImplementedError where TF would execute an op eagerly (after
    :func:`enable_v2_behavior`, outside ``with tf.Graph().as_default():``);
    called by the graph for each op it builds."""
    if executing_eagerly():
        raise NotImplementedError(_GRAPH_ONLY.format(
            what="eager execution (tf.compat.v1.enable_v2_behavior turns it on in TensorFlow, so this op "
                 "would run eagerly there; build it inside `with tf.Graph().as_default():`, or call "
                 "tf.compat.v1.disable_v2_behavior())"))


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Raises NotImplementedError: ``ref`` has no eager mode."""
    raise NotImplementedError(_GRAPH_ONLY.format(what="eager execution"))


def enable_v2_behavior():
    """TF 2.x behaviour where it concerns graphs, as TF's switch: shapes index
    to ints and None (:func:`ref.types.shapes.enable_v2_tensorshape`),
    ``tf.while_loop``/``tf.cond``/TensorArray build control flow v2
    (:func:`enable_control_flow_v2`), variables are ResourceVariables unless
    ``use_resource=False``. TF also turns eager execution on: ``ref`` has none,
    so inside ``with tf.Graph().as_default():`` graphs build as in TF, and an
    op built outside one raises NotImplementedError (TF would run it eagerly).
    Tensor equality (``==`` element-wise) is an eager-only effect in TF and
    does not apply to graphs. :func:`disable_v2_behavior` undoes all of it."""
    _CONTROL_FLOW_V2[0] = True
    _RESOURCE_VARIABLES[0] = True
    _EAGER_ASKED[0] = True
    shapes.enable_v2_tensorshape()


def resource_variables_by_default():
    """Whether ``tf.Variable``/``get_variable`` create ResourceVariables when
    ``use_resource`` is not given (TF's ``resource_variables_enabled``)."""
    return _RESOURCE_VARIABLES[0]


def set_resource_variables_by_default(on):
    """TF's ``enable_resource_variables`` (True) / ``disable_resource_variables`` (False)."""
    _RESOURCE_VARIABLES[0] = bool(on)


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


def enable_op_determinism():
    """TF's ``tf.config.experimental.enable_op_determinism``: a random op must
    then be seeded -- building one with neither a graph nor an op seed raises
    RuntimeError, running one whose ``seed``/``seed2`` are both 0 raises
    InvalidArgumentError. (ref's kernels are deterministic already.)"""
    _OP_DETERMINISM[0] = True


def disable_op_determinism():
    """Undoes :func:`enable_op_determinism`."""
    _OP_DETERMINISM[0] = False


def is_op_determinism_enabled() -> bool:
    return _OP_DETERMINISM[0]
