"""TF's ``resources.py``: the RESOURCES / LOCAL_RESOURCES collections of
``(handle, create, is_initialized)`` records, and the ops that initialize them
or report the uninitialized ones."""
from __future__ import annotations

import collections
import os

from ref.types import dtypes
from ref.framework.graph import GraphKeys, add_to_collection, device, get_collection, name_scope
from ref.framework.op_def_library import constant
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.control_flow_ops import group, no_op

__all__ = ["register_resource", "shared_resources", "local_resources", "report_uninitialized_resources",
           "initialize_resources"]

_Resource = collections.namedtuple("_Resource", ["handle", "create", "is_initialized"])


def register_resource(handle, create_op, is_initialized_op, is_shared=True):
    """Adds the resource to RESOURCES (``is_shared``) or LOCAL_RESOURCES."""
    add_to_collection(GraphKeys.RESOURCES if is_shared else GraphKeys.LOCAL_RESOURCES,
                      _Resource(handle, create_op, is_initialized_op))


def shared_resources():
    """The resources every task of a cluster sees (the RESOURCES collection)."""
    return get_collection(GraphKeys.RESOURCES)


def local_resources():
    """The resources of this session only (the LOCAL_RESOURCES collection)."""
    return get_collection(GraphKeys.LOCAL_RESOURCES)


def report_uninitialized_resources(resource_list=None, name="report_uninitialized_resources"):
    """A string vector: the handle names of the resources not yet initialized
    (all registered ones when ``resource_list`` is None)."""
    if resource_list is None:
        resource_list = shared_resources() + local_resources()
    with name_scope(name):
        with device(os.environ.get("TF_DEVICE_FOR_UNINITIALIZED_VARIABLE_REPORTING", "/cpu:0")):
            if not resource_list:
                return constant([], dtype=dtypes.string)
            uninitialized = math_ops.logical_not(array_ops.stack([r.is_initialized for r in resource_list]))
            names = constant([r.handle.name for r in resource_list])
            return array_ops.boolean_mask(names, uninitialized)


def initialize_resources(resource_list, name="init"):
    """One op running every resource's create op (a NoOp for none)."""
    if resource_list:
        return group(*[r.create for r in resource_list], name=name)
    return no_op(name=name)
