"""The global step (TF's API reference ``tf.compat.v1.train.global_step``,
``get_global_step``, ``create_global_step``, ``get_or_create_global_step``,
``assert_global_step``).

The global step is a scalar int64 variable named ``global_step``, kept in the
``GraphKeys.GLOBAL_STEP`` collection (found by name ``global_step:0`` if the
collection is empty), non-trainable, initialized to 0.
"""
from __future__ import annotations

from ref.platform import tf_logging as logging

import numpy as np

from ref.types import dtypes
from ref.framework.graph import GraphKeys, Tensor, get_default_graph
from ref.graph_ops.init_ops import zeros_initializer
from ref.graph_ops.control_flow_ops import cond
from ref.graph_ops.state_ops import assign_add, is_variable_initialized
from ref.graph_ops.variable_scope import get_variable
from ref.graph_ops.variables import VariableAggregation, Variable

__all__ = ["global_step", "get_global_step", "create_global_step", "get_or_create_global_step",
           "assert_global_step"]


def global_step(sess, global_step_tensor):
    """The global step value as a Python int: ``int(sess.run(global_step_tensor))``
    (a one-element array counts, as NumPy 1's ``int()`` allowed)."""
    return int(np.asarray(sess.run(global_step_tensor)).item())


def get_global_step(graph=None):
    """The global step variable, or None if there is none (or several).

    Raises TypeError if it is not an integer Variable or Tensor."""
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) == 1:
        step = found[0]
    elif not found:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        logging.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(step)
    return step


def create_global_step(graph=None):
    """Creates ``global_step`` (int64 scalar, zeros initializer, not trainable)
    in ``graph``'s root scope. ValueError if it already exists."""
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default() as g, g.name_scope(None):
        return get_variable(GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64, initializer=zeros_initializer(),
                            trainable=False, aggregation=VariableAggregation.ONLY_FIRST_REPLICA,
                            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    """The global step, created if there is none yet."""
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


def assert_global_step(global_step_tensor):
    """TypeError unless ``global_step_tensor`` is a scalar integer Variable or Tensor."""
    if not isinstance(global_step_tensor, (Variable, Tensor)):
        raise TypeError(f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.')
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: {global_step_tensor.dtype}')
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def _get_global_step_read(graph=None):
    """The cached copy of the global step (``get_or_create_global_step_read``), or None."""
    graph = graph or get_default_graph()
    found = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if len(found) > 1:
        raise RuntimeError(f"There are multiple items in collection {GLOBAL_STEP_READ_KEY}. There should be only "
                           f"one.")
    return found[0] if found else None


def get_or_create_global_step_read(graph=None):
    """A tensor copying the global step's value (its initial value while it is
    uninitialized), created once per graph. Ops run in creation order, so
    fetching it in the same run as a later-built increment gives the value
    *before* the increment: the hooks fetch it (TF's private helper)."""
    graph = graph or get_default_graph()
    read = _get_global_step_read(graph)
    if read is not None:
        return read
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default() as g, g.name_scope(None):
        with g.name_scope(step.op.name + "/"):
            if isinstance(step, Variable):
                value = cond(is_variable_initialized(step), step.read_value, lambda: step.initial_value)
            else:
                value = step
            g.add_to_collection(GLOBAL_STEP_READ_KEY, value + 0)  # TF: named "add", as the operator names it
    return _get_global_step_read(graph)


# TF's private spelling (training_util.py), which TF's own tests use
_get_or_create_global_step_read = get_or_create_global_step_read


def _increment_global_step(increment, graph=None):
    """``assign_add(global_step, increment)`` under the ``global_step/`` name scope,
    after the global step read (TF's private helper). ValueError if there is no
    global step yet."""
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        raise ValueError("Global step tensor should be created by tf.train.get_or_create_global_step before "
                         "calling increment.")
    read = get_or_create_global_step_read(graph)
    with graph.as_default() as g, g.name_scope(None):
        with g.name_scope(step.op.name + "/"):
            with g.control_dependencies([read]):
                return assign_add(step, increment)
