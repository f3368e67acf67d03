"""The TF1 names these tests use, from ref's modules (``ref/__init__`` is assembled
elsewhere) -- so one program text runs under ``ref`` and ``tf.compat.v1``."""
import importlib
import types

import ref.ops.array  # noqa: F401
import ref.ops.math  # noqa: F401
from ref.framework import graph as G
from ref.framework.op_def_library import constant
from ref.framework.random_seed import set_random_seed
from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.graph_ops import control_flow_ops, state_ops
from ref.types import errors as ref_errors
from ref.session import Session


# (by module path: ``ref`` itself exports e.g. the ``variable_scope`` class)
init_ops, partitioned, resource_variable_ops, template, training_util, variable_scope, variables = (
    importlib.import_module(f"ref.graph_ops.{m}") for m in ("init_ops", "partitioned", "resource_variable_ops",
                                                            "template", "training_util", "variable_scope",
                                                            "variables"))


def ref_namespace():
    ns = types.SimpleNamespace()
    for mod in (variables, resource_variable_ops, variable_scope, template, init_ops, partitioned, state_ops):
        for name in mod.__all__:
            setattr(ns, name, getattr(mod, name))
    ns.Graph, ns.Session, ns.GraphKeys = G.Graph, Session, G.GraphKeys
    ns.constant, ns.name_scope, ns.get_collection = constant, G.name_scope, G.get_collection
    ns.control_dependencies, ns.set_random_seed = G.control_dependencies, set_random_seed
    ns.identity, ns.group, ns.placeholder = (control_flow_ops.identity, control_flow_ops.group,
                                             control_flow_ops.placeholder)
    ns.get_default_graph, ns.TensorShape = G.get_default_graph, TensorShape
    ns.float32, ns.int32, ns.int64 = dtypes.float32, dtypes.int32, dtypes.int64
    ns.train = types.SimpleNamespace(**{n: getattr(training_util, n) for n in training_util.__all__})
    ns.errors = ref_errors
    return ns
