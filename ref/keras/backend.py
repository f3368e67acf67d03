"""``tf.keras.backend`` in graph mode (tf_keras, Keras 2, under TF1 behaviour).

Per-graph state, as tf_keras keeps it: the layer-name counters
(``unique_object_name``: ``dense``, ``dense_1``, ...), the learning phase (a
``keras_learning_phase`` ``placeholder_with_default(False)`` made once per
graph at the root name scope, or a fixed 0/1 after ``set_learning_phase``),
the variables Keras made (which ``get_session`` initializes when they are not
yet), and the Keras session (the default session if there is one, else one
``Session`` per graph).
"""
from __future__ import annotations

import collections
import contextlib
import re
import threading
import weakref

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.framework.graph import get_default_graph, name_scope, reset_default_graph
from ref.framework.stack import get_default_session
from ref.framework.op_def_library import constant as _constant, convert_to_tensor
from ref.graph_ops import array_ops, clip_ops, control_flow_ops, math_ops, state_ops, variables
from ref.session import Session

__all__ = ["get_session", "set_session", "clear_session", "learning_phase", "set_learning_phase",
           "learning_phase_scope", "floatx", "set_floatx", "epsilon", "set_epsilon", "image_data_format",
           "set_image_data_format", "get_uid", "reset_uids", "placeholder", "get_value", "set_value",
           "batch_get_value", "batch_set_value", "eval", "get_graph", "name_scope", "manual_variable_initialization",
           "int_shape", "dtype", "is_keras_tensor", "track_variable", "cast_to_floatx", "mean", "sum", "max", "min",
           "square", "sqrt", "exp", "log", "abs", "clip", "dot", "concatenate", "reshape", "shape", "cast",
           "constant", "variable", "stop_gradient", "function", "ndim"]

_CONFIG = {"floatx": "float32", "epsilon": 1e-7, "image_data_format": "channels_last"}
_UIDS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # graph -> {(namespace, name): count}
_PHASES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # graph -> placeholder or 0/1
_VARIABLES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # graph -> [variable]
_INITIALIZED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # graph -> {id(variable)}
_ASSIGNS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # graph -> {id(var): (placeholder, op)}
_SESSION = threading.local()
_MANUAL_INIT = [False]


def floatx():
    """The default float type name (``"float32"``)."""
    return _CONFIG["floatx"]


def set_floatx(value):
    if value not in {"float16", "bfloat16", "float32", "float64"}:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {{'float16', 'bfloat16', 'float32', "
                         f"'float64'}}")
    _CONFIG["floatx"] = str(value)


def epsilon():
    """The fuzz factor of numeric expressions (``1e-7``)."""
    return _CONFIG["epsilon"]


def set_epsilon(value):
    _CONFIG["epsilon"] = value


def image_data_format():
    """``"channels_last"`` (the default) or ``"channels_first"``."""
    return _CONFIG["image_data_format"]


def set_image_data_format(data_format):
    if data_format not in {"channels_last", "channels_first"}:
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. "
                         f"Received: data_format={data_format}")
    _CONFIG["image_data_format"] = str(data_format)


def cast_to_floatx(x):
    return np.asarray(x, dtype=floatx())


def get_graph():
    return get_default_graph()


def _uid_map():
    graph = get_default_graph()
    if graph not in _UIDS:
        _UIDS[graph] = collections.defaultdict(int)
    return _UIDS[graph]


def get_uid(prefix=""):
    """1, 2, ... for successive calls with ``prefix`` in the default graph."""
    uids = _uid_map()
    uids[("", prefix)] += 1
    return uids[("", prefix)]


def reset_uids():
    _UIDS.clear()


def unique_object_name(name, zero_based=False):
    """``name`` made unique in the default graph: ``name``, ``name_1``, ...
    (``zero_based``) or ``name_1``, ``name_2``, ..."""
    uids = _uid_map()
    number = uids[("", name)]
    uids[("", name)] += 1
    if zero_based:
        return f"{name}_{number}" if number else name
    return f"{name}_{number + 1}"


def to_snake_case(name):
    """Keras' class name to layer name: ``Conv2D`` -> ``conv2d``, ``LeakyReLU`` -> ``leaky_re_lu``."""
    s = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    s = re.sub("([a-z])([A-Z])", r"\1_\2", s).lower()
    return s if s[0] != "_" else "private" + s


def learning_phase():
    """The graph's learning phase: 0/1 once set, else the bool placeholder
    ``keras_learning_phase`` (default False), made once per graph."""
    graph = get_default_graph()
    if graph not in _PHASES:
        with name_scope(""):
            _PHASES[graph] = control_flow_ops.placeholder_with_default(False, shape=(), name="keras_learning_phase")
    return _PHASES[graph]


def set_learning_phase(value):
    """Fixes the default graph's learning phase to 0 (test) or 1 (train)."""
    if value not in {0, 1}:
        raise ValueError("Expected learning phase to be 0 or 1.")
    _PHASES[get_default_graph()] = value


@contextlib.contextmanager
def learning_phase_scope(value):
    if value not in {0, 1}:
        raise ValueError("Expected learning phase to be 0 or 1.")
    graph = get_default_graph()
    saved = _PHASES.get(graph)
    _PHASES[graph] = value
    try:
        yield
    finally:
        if saved is None:
            del _PHASES[graph]
        else:
            _PHASES[graph] = saved


def manual_variable_initialization(value):
    _MANUAL_INIT[0] = bool(value)


def track_variable(v):
    """Registers a variable Keras made, for :func:`get_session` to initialize."""
    _VARIABLES.setdefault(v.graph, []).append(v)


def _initialize_variables(session):
    graph = session.graph
    done = _INITIALIZED.setdefault(graph, set())
    candidates = [v for v in _VARIABLES.get(graph, []) if id(v) not in done]
    if not candidates:
        return
    with graph.as_default():
        flags = session.run([state_ops.is_variable_initialized(v) for v in candidates])
        done.update(id(v) for v in candidates)
        missing = [v for f, v in zip(flags, candidates) if not f]
        if missing:
            session.run(variables.variables_initializer(missing))


def get_session(op_input_list=()):
    """The default session if any, else Keras' own session of the default
    graph (made on first use); Keras' variables not yet initialized are."""
    session = get_default_session()
    if session is None:
        session = getattr(_SESSION, "session", None)
        if session is None or session.graph is not get_default_graph():
            _SESSION.session = session = Session()
    if not _MANUAL_INIT[0]:
        _initialize_variables(session)
    return session


def set_session(session):
    """Makes ``session`` Keras' session."""
    _SESSION.session = session


def clear_session():
    """A new default graph, the name counters and learning phases reset, Keras' session closed."""
    session = getattr(_SESSION, "session", None)
    if session is not None:
        session.close()
    _SESSION.session = None
    reset_default_graph()
    reset_uids()
    _PHASES.clear()


def placeholder(shape=None, ndim=None, dtype=None, sparse=False, name=None, ragged=False):
    if sparse or ragged:
        raise NotImplementedError("ref.keras placeholders are dense")
    if not shape and ndim:
        shape = (None,) * ndim
    return control_flow_ops.placeholder(dtype or floatx(), shape=shape, name=name)


def int_shape(x):
    try:
        return tuple(TensorShape(x.shape).as_list())
    except ValueError:
        return None


def dtype(x):
    return x.dtype.base_dtype.name


def is_keras_tensor(x):
    from_history = _keras_history_of(x)
    return from_history is not None


_HISTORY: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # tensor -> (layer, node, index)


def _keras_history_of(x):
    try:
        return _HISTORY.get(x)
    except TypeError:
        return None


keras_history = _keras_history_of


def set_keras_history(x, history):
    _HISTORY[x] = history


_MASKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # tensor -> its Keras mask (``_keras_mask``)


def keras_mask(x):
    """The mask a layer attached to ``x`` (TF's ``x._keras_mask``), or None."""
    try:
        return _MASKS.get(x)
    except TypeError:
        return None


def set_keras_mask(x, mask):
    try:
        if mask is None:
            _MASKS.pop(x, None)
        else:
            _MASKS[x] = mask
    except TypeError:
        pass


def batch_get_value(tensors):
    return get_session(tensors).run(list(tensors)) if tensors else []


def get_value(x):
    return get_session((x,)).run(x)


def eval(x):  # noqa: A001  (Keras' name)
    return get_value(x)


def batch_set_value(tuples):
    """Assigns NumPy values to variables through one cached placeholder and
    assign op per variable (Keras' graph-mode ``batch_set_value``)."""
    tuples = list(tuples)
    if not tuples:
        return
    graph = get_default_graph()
    cache = _ASSIGNS.setdefault(graph, {})
    ops, feed = [], {}
    with graph.as_default():
        for x, value in tuples:
            base = x.dtype.base_dtype
            value = np.asarray(value, dtype=base.as_numpy_dtype)
            if id(x) not in cache:
                ph = control_flow_ops.placeholder(base, shape=TensorShape([None] * value.ndim))
                cache[id(x)] = (x, ph, x.assign(ph))
            _, ph, op = cache[id(x)]
            ops.append(op)
            feed[ph] = value
    get_session().run(ops, feed_dict=feed)


def set_value(x, value):
    batch_set_value([(x, value)])


def as_dtype(value):
    return dtypes.as_dtype(value)


# -- the tensor functions Keras' backend serves (thin wrappers over the TF1 builders) --------------

def _bool_to_floatx(x):
    x = convert_to_tensor(x)
    return math_ops.cast(x, floatx()) if x.dtype.base_dtype == dtypes.bool else x


def mean(x, axis=None, keepdims=False):
    return math_ops.reduce_mean(_bool_to_floatx(x), axis, keepdims)


def sum(x, axis=None, keepdims=False):  # noqa: A001  (Keras' name)
    return math_ops.reduce_sum(x, axis, keepdims)


def max(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_max(x, axis, keepdims)


def min(x, axis=None, keepdims=False):  # noqa: A001
    return math_ops.reduce_min(x, axis, keepdims)


def square(x):
    return math_ops.square(x)


def sqrt(x):
    """sqrt(max(x, 0))."""
    x = convert_to_tensor(x)
    return math_ops.sqrt(math_ops.maximum(x, _constant(0.0, dtype=x.dtype.base_dtype)))


def exp(x):
    return math_ops.exp(x)


def log(x):
    return math_ops.log(x)


def abs(x):  # noqa: A001
    return math_ops.abs(x)


def clip(x, min_value, max_value):
    """x clipped to [min_value, max_value] (max below min: min; None: no upper bound)."""
    x = convert_to_tensor(x)
    if max_value is not None and max_value < min_value:
        max_value = min_value
    if max_value is None:
        max_value = np.inf
    base = x.dtype.base_dtype
    return clip_ops.clip_by_value(x, _constant(min_value, dtype=base), _constant(max_value, dtype=base))


def ndim(x):
    return convert_to_tensor(x).shape.ndims


def dot(x, y):
    """``matmul`` for rank 2; higher ranks contract x's last axis with y's second to last (Keras' dot)."""
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    if x.shape.ndims is not None and (x.shape.ndims > 2 or y.shape.ndims > 2):
        return math_ops.tensordot(x, y, [[x.shape.ndims - 1], [y.shape.ndims - 2]])
    return math_ops.matmul(x, y)


def concatenate(tensors, axis=-1):
    if axis < 0:
        rank = ndim(tensors[0])
        axis = axis % rank if rank else 0
    return array_ops.concat(list(tensors), axis)


def reshape(x, shape):
    return array_ops.reshape(x, shape)


def shape(x):
    return array_ops.shape(x)


def cast(x, dtype):
    return math_ops.cast(x, dtype)


def constant(value, dtype=None, shape=None, name=None):
    return _constant(value, dtype=dtype or floatx(), shape=shape, name=name)


def variable(value, dtype=None, name=None, constraint=None):
    """A resource variable holding ``value`` (floatx unless ``dtype``), initialized by Keras' session."""
    v = variables.Variable(np.asarray(value, dtype=dtypes.as_dtype(dtype or floatx()).as_numpy_dtype), name=name,
                           constraint=constraint, use_resource=True)
    track_variable(v)
    return v


def stop_gradient(variables_):
    if isinstance(variables_, (list, tuple)):
        return [array_ops.stop_gradient(v) for v in variables_]
    return array_ops.stop_gradient(variables_)


def function(inputs, outputs, updates=None, name=None, **kwargs):
    """``f([values]) -> [outputs]``: one run of Keras' session with the inputs fed, the updates run after the
    outputs are computed."""
    inputs, outputs = list(inputs), list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    updates_op = None
    if updates:
        with get_default_graph().as_default(), control_flow_ops.control_dependencies(outputs[:1]):
            updates_op = control_flow_ops.group(*[u if not isinstance(u, tuple) else state_ops.assign(*u)
                                                  for u in updates])

    def run(values):
        feed = dict(zip(inputs, values))
        fetched = get_session().run(outputs + ([updates_op] if updates_op is not None else []), feed)
        return fetched[:len(outputs)]

    return run
