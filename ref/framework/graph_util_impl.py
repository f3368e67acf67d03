"""``tf.graph_util`` (TF1): GraphDef surgery -- the subgraph feeding some nodes,
inference graphs without training-only nodes, variables frozen into constants.

Each function takes and returns GraphDef protos (``remove_training_nodes``
splices out ``Identity``/``StopGradient`` nodes no control edge or colocation
names and drops every ``CheckNumerics``), as TF's ``graph_util_impl``.
"""
from __future__ import annotations

import re

import numpy as np

from ref.types import dtypes
from ref.protos import graph_pb2, node_def_pb2
from ref.formats.tensor_util import make_ndarray, make_tensor_proto

__all__ = ["extract_sub_graph", "remove_training_nodes", "convert_variables_to_constants",
           "tensor_shape_from_node_def_name", "must_run_on_cpu"]

_VARIABLE_OPS = frozenset({"Assign", "AssignAdd", "AssignSub", "Queue", "ScatterAdd", "ScatterSub", "ScatterUpdate",
                           "TruncatedNormal", "Variable", "VariableV2", "VarHandleOp"})


def _node_name(name):
    """``"^x"``, ``"x:1"`` -> ``"x"``."""
    name = name[1:] if name.startswith("^") else name
    return name.split(":")[0]


def _colocated(s):
    s = s.decode() if isinstance(s, bytes) else s
    return s[len("loc:@"):] if s.startswith("loc:@") else s


def _check_graph_def(graph_def):
    if not isinstance(graph_def, graph_pb2.GraphDef) and type(graph_def).__name__ != "GraphDef":
        raise TypeError(f"graph_def must be a graph_pb2.GraphDef proto, but got type {type(graph_def)}.")


def extract_sub_graph(graph_def, dest_nodes):
    """The nodes of ``graph_def`` that ``dest_nodes`` (names) need, in their
    original order, with the library and versions."""
    _check_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be an iterable of strings.")
    inputs, order, by_name = {}, {}, {}
    for i, node in enumerate(graph_def.node):
        n = _node_name(node.name)
        by_name[n] = node
        inputs[n] = [_node_name(x) for x in node.input]
        if "_class" in node.attr:  # keep what a node is colocated with
            inputs[n] += [_colocated(s) for s in node.attr["_class"].list.s]
        order[n] = i
    for d in dest_nodes:
        assert d in by_name, f"{d} is not in graph"
    keep, todo = set(), list(dest_nodes)
    while todo:
        n = todo.pop(0)
        if n not in keep:
            keep.add(n)
            todo += inputs.get(n, [])
    out = graph_pb2.GraphDef()
    for n in sorted((k for k in keep if k in order), key=order.get):
        out.node.add().CopyFrom(by_name[n])
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def _copy_with_inputs(node, inputs):
    new = node_def_pb2.NodeDef()
    new.CopyFrom(node)
    del new.input[:]
    new.input.extend(inputs)
    return new


def remove_training_nodes(input_graph, protected_nodes=None):
    """``input_graph`` without ``CheckNumerics`` nodes and with ``Identity`` /
    ``StopGradient`` nodes spliced out (their consumers read their input),
    except those in ``protected_nodes``, named by a control input, or colocated with."""
    protected = set(protected_nodes or ())
    dropped = {n.name for n in input_graph.node if n.op == "CheckNumerics" and n.name not in protected}
    kept = [_copy_with_inputs(n, [i for i in n.input if re.sub(r"^\^", "", i) not in dropped])
            for n in input_graph.node if n.name not in dropped]
    control_targets, with_control, colocated = set(), set(), set()
    for n in kept:
        for i in n.input:
            if "^" in i:
                control_targets.add(i.replace("^", ""))
                with_control.add(n.name)
        if "_class" in n.attr:
            colocated.update(_colocated(s) for s in n.attr["_class"].list.s)
    splice = {n.name: n.input[0] for n in kept
              if n.op in ("Identity", "StopGradient") and n.name not in protected and n.name not in colocated
              and n.name not in with_control and n.name not in control_targets}
    out = graph_pb2.GraphDef()
    for n in kept:
        if n.name in splice:
            continue
        new_inputs = []
        for full in n.input:
            name = re.sub(r"^\^", "", full)
            while name in splice:
                full = splice[name]
                name = re.sub(r"^\^", "", full)
            new_inputs.append(full)
        out.node.append(_copy_with_inputs(n, new_inputs))
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names, variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """The subgraph of ``input_graph_def`` feeding ``output_node_names`` with each
    variable (``VariableV2``/``VarHandleOp``; filtered by the white/black lists)
    replaced by a ``Const`` of its value in ``sess``; a ``ReadVariableOp`` of a
    frozen handle becomes an ``Identity``."""
    sub = extract_sub_graph(input_graph_def, output_node_names)
    wanted = []
    for n in sub.node:
        if n.op in ("Variable", "VariableV2", "VarHandleOp"):
            if variable_names_whitelist is not None and n.name not in variable_names_whitelist:
                continue
            if variable_names_blacklist is not None and n.name in variable_names_blacklist:
                continue
            wanted.append(n)
    graph = sess.graph
    reads = []
    for n in wanted:
        op = graph.get_operation_by_name(n.name)
        reads.append(graph.get_tensor_by_name(n.name + ":0") if n.op != "VarHandleOp"
                     else _resource_value(graph, op))
    values = dict(zip((n.name for n in wanted), sess.run(reads) if reads else []))
    out = graph_pb2.GraphDef()
    frozen_handles = {n.name for n in wanted if n.op == "VarHandleOp"}
    for n in sub.node:
        if n.name in values:
            dtype = dtypes.as_dtype(n.attr["dtype"].type)
            c = out.node.add(name=n.name, op="Const")
            c.attr["dtype"].type = dtype.as_datatype_enum
            c.attr["value"].tensor.CopyFrom(make_tensor_proto(values[n.name], dtype=dtype))
            if n.device:
                c.device = n.device
        elif n.op == "ReadVariableOp" and _node_name(n.input[0]) in frozen_handles:
            new = out.node.add(name=n.name, op="Identity", input=list(n.input), device=n.device)
            new.attr["T"].type = n.attr["dtype"].type
        else:
            out.node.add().CopyFrom(n)
    out.library.CopyFrom(sub.library)
    out.versions.CopyFrom(sub.versions)
    return out


def _resource_value(graph, handle_op):
    for consumer in handle_op.outputs[0].consumers():
        if consumer.type == "ReadVariableOp":
            return consumer.outputs[0]
    raise ValueError(f"No ReadVariableOp reads the resource variable {handle_op.name}")


def tensor_shape_from_node_def_name(graph, input_name):
    """The static shape of the tensor ``input_name`` ("x" means "x:0") in ``graph``."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).get_shape()


def must_run_on_cpu(node, pin_variables_on_cpu=False):
    """Whether TF would pin ``node`` (an Operation or NodeDef) to the CPU: int32 and
    string constants, int32 DynamicStitch and Cast from int32 (and variable ops
    when ``pin_variables_on_cpu``)."""
    node_def = node if isinstance(node, node_def_pb2.NodeDef) else node.node_def
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    if node_def.op == "Const":
        return node_def.attr["dtype"].type in (dtypes.string.as_datatype_enum, dtypes.int32.as_datatype_enum)
    if node_def.op in ("DynamicStitch", "ParallelDynamicStitch"):
        return node_def.attr["T"].type == dtypes.int32.as_datatype_enum
    if node_def.op == "Cast":
        return node_def.attr["SrcT"].type == dtypes.int32.as_datatype_enum
    return False


def _nan_free(node):
    """A copy of NodeDef ``node`` whose NaN attr values are a canonical value
    (tensor attrs compared as arrays, NaN equal to NaN)."""
    out = node_def_pb2.NodeDef()
    out.CopyFrom(node)
    for k, v in node.attr.items():
        if v.HasField("tensor"):
            arr = make_ndarray(v.tensor)
            if arr.dtype.kind in "fc" and np.isnan(arr).any():
                out.attr[k].tensor.CopyFrom(make_tensor_proto(np.where(np.isnan(arr), np.zeros((), arr.dtype), arr)))
                out.attr[k].s = b"nan:" + np.isnan(arr).tobytes()  # where the NaNs were, kept distinct
        elif v.WhichOneof("value") == "f" and v.f != v.f:
            out.attr[k].s = b"nan"
    return out


def _nodes_equal(nodes_1, nodes_2, treat_nan_as_equal):
    a, b = {n.name: n for n in nodes_1}, {n.name: n for n in nodes_2}
    if set(a) != set(b) or len(a) != len(nodes_1) or len(b) != len(nodes_2):
        return False
    if treat_nan_as_equal:
        return all(_nan_free(a[k]) == _nan_free(b[k]) for k in a)
    # NaN equals nothing: a node holding one is unequal even to itself
    return all(a[k] == b[k] and _nan_free(a[k]) == a[k] for k in a)


def graph_defs_equal(graph_def_1, graph_def_2, treat_nan_as_equal=False):
    """Whether two GraphDefs are structurally equal (TF's ``graph_defs_equal``):
    the same NodeDefs in any order, and the same library functions in any order
    (each with the same signature, returns and NodeDefs in any order). NaN
    attr values are unequal unless ``treat_nan_as_equal``."""
    for i, g in enumerate((graph_def_1, graph_def_2), 1):
        if type(g).__name__ != "GraphDef":
            raise TypeError(f"graph_def_{i} must be a graph_pb2.GraphDef proto, but got type {type(g)}.")
    if not _nodes_equal(list(graph_def_1.node), list(graph_def_2.node), treat_nan_as_equal):
        return False
    f1 = {f.signature.name: f for f in graph_def_1.library.function}
    f2 = {f.signature.name: f for f in graph_def_2.library.function}
    if set(f1) != set(f2):
        return False
    for name, fa in f1.items():
        fb = f2[name]
        if fa.signature != fb.signature or dict(fa.ret) != dict(fb.ret) or \
                dict(fa.control_ret) != dict(fb.control_ret) or dict(fa.attr) != dict(fb.attr):
            return False
        if not _nodes_equal(list(fa.node_def), list(fb.node_def), treat_nan_as_equal):
            return False
    return True
