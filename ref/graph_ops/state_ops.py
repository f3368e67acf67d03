"""TF1 functions on variables: ``tf.assign``, ``tf.assign_add``, ``tf.scatter_*``
(TF docs, "Variables" "Sparse Variable Updates"), ``tf.scatter_nd_*``,
``tf.batch_scatter_update``, ``tf.count_up_to``, ``tf.is_variable_initialized``.

A ref variable (or a ``_ref`` tensor) gets the ref op (``Assign``,
``ScatterAdd``...), whose output is the variable after the update; a resource
variable gets the ``Resource*`` op followed by a read of the new value.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.types.shapes import as_shape, unknown_shape
from ref.framework.graph import Tensor, control_dependencies, name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops import array_ops

__all__ = ["assign", "assign_add", "assign_sub", "scatter_update", "scatter_add", "scatter_sub", "scatter_mul",
           "scatter_div", "scatter_min", "scatter_max", "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub",
           "batch_scatter_update", "count_up_to", "variable_op", "variable_op_v2"]


def _is_ref(ref) -> bool:
    """A ``_ref`` tensor or a RefVariable (TF dispatches on ``ref.dtype._is_ref_dtype``);
    a ResourceVariable is updated through its handle."""
    if isinstance(ref, Tensor):
        return ref.dtype.is_ref_dtype
    return not getattr(ref, "_is_resource", False)


def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    """A VariableV2 op (the ref tensor of a new, uninitialized variable)."""
    return apply_op("VariableV2", shape=as_shape(shape), dtype=dtypes.as_dtype(dtype), container=container,
                    shared_name=shared_name, name=name)


def variable_op(shape, dtype, name="Variable", set_shape=True, container="", shared_name=""):
    """The deprecated ``Variable`` op; ``set_shape=False`` leaves its static shape unknown."""
    return apply_op("Variable", shape=as_shape(shape) if set_shape else unknown_shape(), dtype=dtypes.as_dtype(dtype),
                    container=container, shared_name=shared_name, name=name)


def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """ref = value; returns ``ref`` after the assignment (TF docs, "Variables" ``assign``)."""
    if _is_ref(ref):
        return apply_op("Assign", ref=ref, value=value, use_locking=True if use_locking is None else use_locking,
                        validate_shape=True if validate_shape is None else validate_shape, name=name or "Assign")
    return ref.assign(value, name=name)


def assign_add(ref, value, use_locking=None, name=None):
    """ref = ref + value; returns ``ref`` after the update."""
    if _is_ref(ref):
        return apply_op("AssignAdd", ref=ref, value=value, use_locking=bool(use_locking), name=name or "AssignAdd")
    return ref.assign_add(value)  # TF drops ``name`` for a resource variable


def assign_sub(ref, value, use_locking=None, name=None):
    """ref = ref - value; returns ``ref`` after the update."""
    if _is_ref(ref):
        return apply_op("AssignSub", ref=ref, value=value, use_locking=bool(use_locking), name=name or "AssignSub")
    return ref.assign_sub(value)  # TF drops ``name`` for a resource variable


def _scatter(how, ref, indices, updates, use_locking, name, kind="Scatter", handle_input="resource"):
    """``{kind}{how}`` on a ref variable, or ``Resource{kind}{how}`` (the handle fed
    as ``handle_input``) followed by a read on a resource variable."""
    if _is_ref(ref):
        op = f"{kind}{how}"
        return apply_op(op, ref=ref, indices=indices, updates=updates, use_locking=use_locking, name=name or op)
    op = f"Resource{kind}{how}"
    upd = apply_op(op, **{handle_input: ref.handle}, indices=indices,
                   updates=convert_to_tensor(updates, dtype=ref.dtype), name=name or op)
    with control_dependencies([upd]):
        return ref.read_value()


def scatter_update(ref, indices, updates, use_locking=True, name=None):
    """ref[indices[i], ...] = updates[i, ...]; with duplicate indices the last one wins."""
    return _scatter("Update", ref, indices, updates, use_locking, name)


def scatter_add(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i], ...] += updates[i, ...]; duplicate indices add up."""
    return _scatter("Add", ref, indices, updates, use_locking, name)


def scatter_sub(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i], ...] -= updates[i, ...]; duplicate indices' (negated) contributions add."""
    return _scatter("Sub", ref, indices, updates, use_locking, name)


def scatter_mul(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i], ...] *= updates[i, ...]."""
    return _scatter("Mul", ref, indices, updates, use_locking, name)


def scatter_div(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i], ...] /= updates[i, ...]."""
    return _scatter("Div", ref, indices, updates, use_locking, name)


def scatter_min(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i], ...] = min(ref[indices[i], ...], updates[i, ...])."""
    return _scatter("Min", ref, indices, updates, use_locking, name)


def scatter_max(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i], ...] = max(ref[indices[i], ...], updates[i, ...])."""
    return _scatter("Max", ref, indices, updates, use_locking, name)


def _scatter_nd(how, ref, indices, updates, use_locking, name):
    return _scatter(how, ref, indices, updates, use_locking, name, kind="ScatterNd", handle_input="ref")


def scatter_nd_update(ref, indices, updates, use_locking=True, name=None):
    """ref[indices[i]] = updates[i] with indices[i] a vector of K coordinates."""
    return _scatter_nd("Update", ref, indices, updates, use_locking, name)


def scatter_nd_add(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i]] += updates[i] with indices[i] a vector of K coordinates."""
    return _scatter_nd("Add", ref, indices, updates, use_locking, name)


def scatter_nd_sub(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i]] -= updates[i] with indices[i] a vector of K coordinates."""
    return _scatter_nd("Sub", ref, indices, updates, use_locking, name)


def scatter_nd_min(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i]] = min(ref[indices[i]], updates[i]) (TF's state_ops; no tf.* name)."""
    return _scatter_nd("Min", ref, indices, updates, use_locking, name)


def scatter_nd_max(ref, indices, updates, use_locking=False, name=None):
    """ref[indices[i]] = max(ref[indices[i]], updates[i]) (TF's state_ops; no tf.* name)."""
    return _scatter_nd("Max", ref, indices, updates, use_locking, name)


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """ref[i_1, ..., i_n, indices[i_1, ..., i_n, j]] = updates[i_1, ..., i_n, j]:
    ``scatter_update`` along the axis after the leading batch dimensions of
    ``indices`` (TF's API reference ``Variable.batch_scatter_update``)."""
    # TF: ``name_scope(name)`` (the root scope when name is None); the leading
    # coordinates are ranges broadcast against ExpandDims(indices, -1), concatenated
    # with it, for one ScatterNdUpdate
    with name_scope(name):
        indices = convert_to_tensor(indices, name="indices")
        indices_shape = array_ops.shape(indices)
        rank = indices.shape.ndims
        if rank is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = array_ops.expand_dims(indices, axis=-1)
        parts = []
        for dim in range(rank - 1):
            size = indices_shape[dim]
            shape = [1] * (rank + 1)
            shape[dim] = size
            rng = array_ops.reshape(apply_op("Range", start=0, limit=size, delta=1), shape)
            if rng.dtype.base_dtype != nd_indices.dtype:
                rng = apply_op("Cast", x=rng, DstT=nd_indices.dtype)
            parts.append(rng * array_ops.ones_like(nd_indices))
        parts.append(nd_indices)
        return scatter_nd_update(ref, array_ops.concat(parts, axis=-1), updates, use_locking=use_locking)


def count_up_to(ref, limit, name=None):
    """Increments ``ref`` until it reaches ``limit``; outputs the value before the increment."""
    if _is_ref(ref):
        return apply_op("CountUpTo", ref=ref, limit=int(limit), name=name or "CountUpTo")
    return apply_op("ResourceCountUpTo", resource=ref.handle, limit=int(limit), T=ref.dtype,
                    name=name or "ResourceCountUpTo")


def is_variable_initialized(ref, name=None):
    """A scalar bool tensor: has the variable been initialized?"""
    if _is_ref(ref):
        return apply_op("IsVariableInitialized", ref=ref, name=name or "IsVariableInitialized")
    return apply_op("VarIsInitializedOp", resource=ref.handle, name=name or "VarIsInitializedOp")
