"""The global step (seed 002 ``tf.compat.v1.train.global_step``,
``get_global_step``, ``create_global_step``, ``get_or_create_global_step``,
``assert_global_step``).

The global step is a scalar int64 variable named ``global_step``, kept in the
``GraphKeys.GLOBAL_STEP`` collection (found by name ``global_step:0`` if the
collection is empty), non-trainable, initialized to 0.
"""
from __future__ import annotations

from ref.platform import tf_logging as logging

from ref.types import dtypes
from ref.framework.graph import GraphKeys, Tensor, get_default_graph
from ref.graph_ops.init_ops import zeros_initializer
from ref.graph_ops.variable_scope import get_variable
from ref.graph_ops.variables import VariableAggregation, Variable

__all__ = ["global_step", "get_global_step", "create_global_step", "get_or_create_global_step",
           "assert_global_step"]


def global_step(sess, global_step_tensor):
    """The global step value as a Python int: ``int(sess.run(global_step_tensor))``."""
    return int(sess.run(global_step_tensor))


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
