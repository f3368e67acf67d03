"""Slot variables: the per-variable state an optimizer keeps (TF's ``slot_creator``).

TF's API reference, ``tf.compat.v1.train.Optimizer``, "Slots":
"Some optimizer subclasses, such as MomentumOptimizer and AdagradOptimizer
allocate and manage additional variables associated with the variables to
train. These are called Slots."

A slot of variable ``w`` made by optimizer ``Adam`` is created by
``get_variable("")`` inside ``variable_scope(None, default_name="w/Adam")``:
the scope name is made unique, so the first slot is ``w/Adam``, the second
``w/Adam_1`` -- the names TF's checkpoints use. Slots are global, not
trainable, colocated with their variable, resource variables exactly when the
variable is one, and a slice of a partitioned variable gets the matching
slice of the slot (``SaveSliceInfo`` ``<full name>/<slot>``).
"""
from __future__ import annotations

from ref.framework.graph import Tensor, colocate_with
from ref.graph_ops import array_ops
from ref.graph_ops.init_ops import Zeros
from ref.graph_ops.variable_scope import get_variable, get_variable_scope, variable_scope
from ref.graph_ops.resource_variable_ops import ResourceVariable
from ref.graph_ops.variables import RefVariable, Variable
from ref.types import dtypes
from ref.types.shapes import as_shape


def _is_resource(var) -> bool:
    return isinstance(var, ResourceVariable)


def _create_slot_var(primary, val, validate_shape, shape, dtype):
    scope = get_variable_scope()
    partitioner = scope.partitioner
    scope.set_partitioner(None)  # slots follow the primary's slicing, never their own
    try:
        use_resource = True if _is_resource(primary) else (False if isinstance(primary, RefVariable) else None)
        slot = get_variable("", initializer=val, trainable=False, use_resource=use_resource,
                            shape=shape if callable(val) else None, dtype=dtype, validate_shape=validate_shape)
    finally:
        scope.set_partitioner(partitioner)
    info = primary._get_save_slice_info() if isinstance(primary, Variable) else None
    if info is not None:
        real_slot_name = slot.name[len(primary.op.name + "/"):-2]
        n = slot.shape.ndims
        if n is None or n > 0:
            slot._set_save_slice_info(Variable.SaveSliceInfo(
                info.full_name + "/" + real_slot_name, info.full_shape[:n], info.var_offset[:n],
                info.var_shape[:n]))
    return slot


def _prefix(primary) -> str:
    return primary._shared_name if isinstance(primary, Variable) else primary.op.name


def _colocated(primary, colocate_with_primary):
    return colocate_with(primary.op) if colocate_with_primary else _Null()


class _Null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def create_slot(primary, val, name, colocate_with_primary=True):
    """A slot for ``primary`` initialized to the Tensor ``val``, named
    ``<primary>/<name>`` (made unique)."""
    validate_shape = val.get_shape().is_fully_defined()
    with variable_scope(None, _prefix(primary) + "/" + name):
        with _colocated(primary, colocate_with_primary):
            return _create_slot_var(primary, val, validate_shape, None, None)


def create_slot_with_initializer(primary, initializer, shape, dtype, name, colocate_with_primary=True):
    """A slot for ``primary`` of ``shape`` and ``dtype`` from ``initializer``."""
    shape = as_shape(shape)
    validate_shape = shape.is_fully_defined()
    with variable_scope(None, _prefix(primary) + "/" + name):
        with _colocated(primary, colocate_with_primary):
            return _create_slot_var(primary, initializer, validate_shape, shape,
                                    dtypes.as_dtype(dtype).base_dtype)


def create_zeros_slot(primary, name, dtype=None, colocate_with_primary=True):
    """A slot of zeros with ``primary``'s shape (and dtype unless given)."""
    dtype = (primary.dtype if dtype is None else dtypes.as_dtype(dtype)).base_dtype
    slot_shape = primary.get_shape()
    if slot_shape.is_fully_defined():
        return create_slot_with_initializer(primary, Zeros(), slot_shape, dtype, name,
                                            colocate_with_primary=colocate_with_primary)
    if isinstance(primary, Tensor):
        shape = array_ops.shape(primary)
    else:
        shape = array_ops.shape(primary.initialized_value())
    val = array_ops.zeros(shape, dtype=dtype)
    return create_slot(primary, val, name, colocate_with_primary=colocate_with_primary)
