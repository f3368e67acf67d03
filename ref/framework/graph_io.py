"""GraphDef export and import: ``Graph.as_graph_def`` and ``import_graph_def``.

An op's attrs map to ``AttrValue`` by Python type (bool -> b, int -> i,
float -> f, str/bytes -> s, DType -> type, TensorShape -> shape, ndarray ->
tensor, list -> list); type attrs (``T``...) are exported as TF names them, so
graphs of ops both share import into TensorFlow. Function bodies of
``while_loop``/``cond`` go to the graph's function library.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes, errors

from ref.ops import registry
from ref.types.shapes import TensorShape
from ref.framework.func_graph import FuncGraph
from ref.protos import attr_value_pb2, node_def_pb2, function_pb2, graph_pb2, op_def_pb2
from ref.formats.tensor_util import make_tensor_proto, make_ndarray
from ref.framework.graph import Graph, Operation, Tensor, apply_op, control_dependencies, get_default_graph, name_scope

_INTERNAL = ("_list_sizes", "output_specs")


def _attr_value(v, library, seen_funcs):
    a = attr_value_pb2.AttrValue()
    if isinstance(v, bool) or isinstance(v, np.bool_):
        a.b = bool(v)
    elif isinstance(v, (int, np.integer)):
        a.i = int(v)
    elif isinstance(v, (float, np.floating)):
        a.f = float(v)
    elif isinstance(v, str):
        a.s = v.encode()
    elif isinstance(v, bytes):
        a.s = v
    elif isinstance(v, dtypes.DType):
        a.type = v.as_datatype_enum
    elif isinstance(v, TensorShape):
        a.shape.CopyFrom(v.as_proto())
    elif isinstance(v, np.ndarray):
        a.tensor.CopyFrom(make_tensor_proto(v))
    elif isinstance(v, FuncGraph):
        a.func.name = _add_function(v, library, seen_funcs)
    elif isinstance(v, (list, tuple)):
        lst = a.list
        lst.SetInParent()  # an empty list is still a list attr (``list {}``), as TF writes it
        for x in v:
            if isinstance(x, bool):
                lst.b.append(x)
            elif isinstance(x, int):
                lst.i.append(x)
            elif isinstance(x, float):
                lst.f.append(x)
            elif isinstance(x, str):
                lst.s.append(x.encode())
            elif isinstance(x, bytes):
                lst.s.append(x)
            elif isinstance(x, dtypes.DType):
                lst.type.append(x.as_datatype_enum)
            elif isinstance(x, TensorShape):
                lst.shape.add().CopyFrom(x.as_proto())
            elif isinstance(x, np.ndarray):
                lst.tensor.add().CopyFrom(make_tensor_proto(x))
            else:
                raise TypeError(f"Cannot export list attr element {x!r}")
    elif v is None:
        return None
    else:
        raise TypeError(f"Cannot export attr value {v!r} of type {type(v).__name__}")
    return a


def op_to_node_def(op, library=None, seen_funcs=None):
    """The NodeDef of ``op``."""
    library = library if library is not None else _scratch_library()
    seen_funcs = seen_funcs if seen_funcs is not None else {}
    nd = node_def_pb2.NodeDef(name=op.name, op=op.type, device=op.device)
    for t in op._inputs:
        nd.input.append(t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}")
    for c in op._control_inputs:
        nd.input.append("^" + c.name)
    for k, v in op._attrs.items():
        if k in _INTERNAL:
            continue
        if k == "output_specs":
            continue
        av = _attr_value(v, library, seen_funcs)
        if av is None:
            if k == "shape" and op.type in ("Placeholder",):
                av = _attr_value(TensorShape(None), library, seen_funcs)
            else:
                continue
        nd.attr[k].CopyFrom(av)
    if "output_specs" in op._attrs:
        specs = op._attrs["output_specs"]
        nd.attr["output_shapes"].CopyFrom(_attr_value([TensorShape(s) for _, s in specs], library, seen_funcs))
        nd.attr["T"].CopyFrom(_attr_value([dtypes.as_dtype(d) for d, _ in specs], library, seen_funcs))
    return nd


def _scratch_library():
    return function_pb2.FunctionDefLibrary()


def _add_function(fg, library, seen_funcs):
    """Adds FuncGraph ``fg`` to ``library`` (ref's encoding: placeholders are nodes,
    argument and result names in the signature); returns its name."""
    if id(fg) in seen_funcs:
        return seen_funcs[id(fg)]
    name = fg.name.replace("/", "_").strip("_") or "fn"
    base, k = name, 1
    while any(f.signature.name == name for f in library.function):
        name = f"{base}_{k}"
        k += 1
    seen_funcs[id(fg)] = name
    fdef = function_pb2.FunctionDef()
    fdef.signature.name = name
    for t in fg.inputs:
        fdef.signature.input_arg.add(name=t.op.name, type=t.dtype.base_dtype.as_datatype_enum)
    for i, t in enumerate(fg.outputs):
        fdef.signature.output_arg.add(name=f"output_{i}", type=t.dtype.base_dtype.as_datatype_enum)
        fdef.ret[f"output_{i}"] = f"{t.op.name}:{t.value_index}"
    for op in fg.get_operations():
        fdef.node_def.add().CopyFrom(op_to_node_def(op, library, seen_funcs))
    for i, op in enumerate(fg.targets):
        fdef.control_ret[f"target_{i}"] = op.name
    library.function.add().CopyFrom(fdef)
    return name


def as_graph_def(graph, from_version=None, add_shapes=False):
    """The GraphDef of ``graph`` (ops in creation order; functions in the library)."""
    gd = graph_pb2.GraphDef()
    gd.versions.producer = 1087
    seen = {}
    for op in graph.get_operations():
        if from_version is not None and op._id < from_version:
            continue
        nd = op_to_node_def(op, gd.library, seen)
        if add_shapes:
            nd.attr["_output_shapes"].CopyFrom(_attr_value([t.shape for t in op._outputs], gd.library, seen))
        gd.node.add().CopyFrom(nd)
    return gd


# -- import ----------------------------------------------------------------------

def _from_attr(a, functions, builder):
    kind = a.WhichOneof("value")
    if kind == "s":
        return a.s.decode("utf-8", "surrogateescape")
    if kind == "i":
        return int(a.i)
    if kind == "f":
        return float(a.f)
    if kind == "b":
        return bool(a.b)
    if kind == "type":
        return dtypes.as_dtype(a.type)
    if kind == "shape":
        return TensorShape(a.shape)
    if kind == "tensor":
        arr = make_ndarray(a.tensor)
        arr.setflags(write=False)
        return arr
    if kind == "func":
        return builder(a.func.name)
    if kind == "list":
        lst = a.list
        for field, conv in (("s", lambda x: x.decode("utf-8", "surrogateescape")), ("i", int), ("f", float),
                            ("b", bool), ("type", dtypes.as_dtype), ("shape", TensorShape),
                            ("tensor", make_ndarray)):
            vals = getattr(lst, field)
            if len(vals):
                return [conv(x) for x in vals]
        return []
    return None


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None, op_dict=None,
                     producer_op_list=None):
    """Imports ``graph_def`` into the default graph under scope ``name`` ("import").

    ``input_map`` maps names in ``graph_def`` ("x:0", "x") to Tensors that replace
    them; ``return_elements`` names the Tensors/Operations to return.
    """
    if not hasattr(graph_def, "node"):
        raise TypeError("graph_def must be a GraphDef proto.")
    input_map = dict(input_map or {})
    for k in input_map:
        if not isinstance(k, str):
            raise TypeError("input_map must be a dictionary mapping strings to Tensor objects.")
    g = get_default_graph()
    # a key may name a node or an input no node produces (an export_scope's "$unbound_inputs_x")
    names = {n.name for n in graph_def.node} | {i.lstrip("^").split(":")[0] for n in graph_def.node for i in n.input}
    for k in input_map:
        base = k.lstrip("^").split(":")[0]
        if base not in names:
            raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{k}]")
    functions = {f.signature.name: f for f in graph_def.library.function}
    n_ops, names_in_use = len(g._ops), dict(g._names_in_use)
    try:
        with name_scope(name, "import", list(input_map.values())) as scope:
            created = _import_nodes(g, list(graph_def.node), input_map, functions, scope)
        return None if return_elements is None else [_return_element(created, r) for r in return_elements]
    except BaseException:
        _rollback(g, n_ops, names_in_use)  # all or nothing, as TF's import
        raise


def _return_element(created, r):
    """The imported Tensor ``"op:i"`` or Operation ``"op"`` named by ``r``."""
    if ":" in r:
        op_name, idx = r.rsplit(":", 1)
        if op_name not in created or not idx.isdigit() or int(idx) >= len(created[op_name].outputs):
            raise ValueError(f"Requested return tensor '{r}' not found in graph def")
        return created[op_name].outputs[int(idx)]
    if r not in created:
        raise ValueError(f"Requested return node '{r}' not found in graph def")
    return created[r]


def _rollback(g, n_ops, names_in_use):
    """Takes the ops a failed import added back out of ``g``."""
    with g._lock:
        for op in g._ops[n_ops:]:
            g._ops_by_name.pop(op.name, None)
            for t in op.inputs:
                users = g._consumers.get(t)
                if users and op in users:
                    users.remove(op)
        del g._ops[n_ops:]
        g._names_in_use = names_in_use


def _split_input(name):
    """``"^x"`` -> ("x", -1); ``"x:2"`` -> ("x", 2); ``"x"`` -> ("x", 0)."""
    if name.startswith("^"):
        return name[1:], -1
    op_name, sep, idx = name.rpartition(":")
    if sep and idx.isdigit():
        return op_name, int(idx)
    return name, 0


# TF op types imported as a ref op: a StatelessIf (TF's tf.cond with stateless branches) runs as If.
_IMPORT_AS = {"StatelessIf": "If"}


def _check_nodes(nodes, input_map, placeholders_as=None):
    """Validates the NodeDefs before anything is added to the graph (so a bad
    GraphDef leaves the graph as it was): unique names, known ops, inputs that
    exist, no cycle. Returns ``{name: OpDef}`` and the nodes in an order where
    every node comes after its inputs.

    Raises:
      ValueError: a duplicate or empty name, a node without an op, an input
        naming no node, a cycle (naming the nodes in it).
      NotFoundError: an op type that is not registered.
    """
    by_name, opdefs = {}, {}
    for n in nodes:
        if not n.name:
            raise ValueError("Node with an empty name in graph_def")
        if n.name in by_name:
            raise ValueError(f"Node '{n.name}' is not unique")
        by_name[n.name] = n
        if not n.op:
            raise ValueError(f"Node '{n.name}' does not specify an operation")
        try:
            opdefs[n.name] = registry.get(_IMPORT_AS.get(n.op, n.op))
        except LookupError:
            raise errors.NotFoundError(None, None, f"Op type not registered '{n.op}' (node '{n.name}')") from None
    external = set(placeholders_as or ())
    deps = {}
    for n in nodes:
        d = []
        for i in n.input:
            src, idx = _split_input(i)
            if idx >= 0 and (i in input_map or (idx == 0 and src in input_map) or f"{src}:{idx}" in input_map):
                continue
            if idx < 0 and i in input_map:  # "^x": a control input to an Operation outside the GraphDef
                continue
            if src in by_name:
                d.append(src)
            elif src not in external:
                raise ValueError(f"Node '{n.name}': Unknown input node '{i}'")
        deps[n.name] = d
    return opdefs, _topo(nodes, deps)


def _topo(nodes, deps):
    """Kahn's order (ready nodes in GraphDef order); ValueError naming a cycle."""
    pending = {n.name: len(deps[n.name]) for n in nodes}
    users = {}
    for n in nodes:
        for d in deps[n.name]:
            users.setdefault(d, []).append(n.name)
    by_name = {n.name: n for n in nodes}
    ready = [n.name for n in reversed(nodes) if pending[n.name] == 0]
    order = []
    while ready:
        name = ready.pop()
        order.append(by_name[name])
        for u in users.get(name, ()):
            pending[u] -= 1
            if pending[u] == 0:
                ready.append(u)
    if len(order) != len(nodes):
        left = {k for k, v in pending.items() if v > 0}
        # walk inputs inside the blocked set until a node repeats: that loop is a cycle
        name, path, seen = next(n.name for n in nodes if n.name in left), [], {}
        while name not in seen:
            seen[name] = len(path)
            path.append(name)
            name = next(d for d in deps[name] if d in left)
        cycle = path[seen[name]:]
        raise ValueError(f"GraphDef cannot be imported: {len(cycle)} nodes in a cycle: "
                         + " <- ".join(repr(c) for c in cycle + [cycle[0]])
                         + f" ({len(left)} nodes wait on it)")
    return order


def _distribute(n, opdef, attrs, tensors):
    """``{input name: Tensor or [Tensor]}`` from a node's flat data inputs
    (list inputs take their length from the count attr)."""
    fixed = [x for x in opdef.inputs if x not in opdef.list_inputs]
    counts = {}
    for in_name, count_attr in opdef.list_inputs.items():
        if count_attr and count_attr in attrs:
            counts[in_name] = attrs[count_attr]
    free = [x for x in opdef.list_inputs if x not in counts]
    expected = len(fixed) + sum(counts.values())
    if len(free) == 1 and len(tensors) >= expected:
        counts[free[0]] = len(tensors) - expected
        expected = len(tensors)
    if expected != len(tensors) or any(not isinstance(c, int) or c < 0 for c in counts.values()):
        raise ValueError(f"Node '{n.name}': NodeDef expected inputs ({', '.join(opdef.inputs)}"
                         + (f"; counts {counts}" if counts else "")
                         + f") do not match {len(tensors)} inputs specified; op {n.op}")
    kwargs, pos = {}, 0
    for in_name in opdef.inputs:
        if in_name in opdef.list_inputs:
            kwargs[in_name] = tensors[pos:pos + counts[in_name]]
            pos += counts[in_name]
        else:
            kwargs[in_name] = tensors[pos]
            pos += 1
    return kwargs


def _import_nodes(g, nodes, input_map, functions, scope, placeholders_as=None, building=()):
    opdefs, order = _check_nodes(nodes, input_map, placeholders_as)
    created = {}
    built_funcs = {}

    def func_builder(fname):
        if fname not in built_funcs:
            if fname not in functions:
                raise ValueError(f"Function '{fname}' is not in the graph_def's function library")
            if fname in building:
                raise ValueError(f"Function '{fname}' calls itself")
            built_funcs[fname] = _build_function(g, functions[fname], functions, building + (fname,))
        return built_funcs[fname]

    def resolve(node, ref_name):
        op_name, idx = _split_input(ref_name)
        for key in (ref_name, f"{op_name}:{idx}") + ((op_name,) if idx == 0 else ()):
            if key in input_map:
                return input_map[key]
        if placeholders_as is not None and op_name in placeholders_as:
            return placeholders_as[op_name]
        outputs = created[op_name].outputs
        if idx >= len(outputs):
            raise ValueError(f"Node '{node.name}': Connecting to invalid output {idx} of source node "
                             f"{op_name} which has {len(outputs)} outputs.")
        return outputs[idx]

    for n in order:
        opdef = opdefs[n.name]
        try:
            attrs = {k: _from_attr(v, functions, func_builder) for k, v in n.attr.items()
                     if k not in ("_output_shapes", "output_shapes", "_class")}
        except (TypeError, KeyError, IndexError, OverflowError) as e:
            raise ValueError(f"Node '{n.name}': invalid attr value: {e}") from None
        ctrl = [input_map[i] if i in input_map else created[i[1:]] for i in n.input
                if i.startswith("^") and (i in input_map or i[1:] in created)]
        tensors = [resolve(n, i) for i in n.input if not i.startswith("^")]
        kwargs = _distribute(n, opdef, attrs, tensors)
        for k, v in attrs.items():
            if k in opdef.attrs:
                kwargs[k] = v
        op_type = _IMPORT_AS.get(n.op, n.op)
        if op_type in ("While", "If"):
            shapes = _from_attr(n.attr["output_shapes"], functions, func_builder) if "output_shapes" in n.attr else []
            types = attrs.get("T", attrs.get("Tout", []))
            kwargs["output_specs"] = list(zip(types, shapes or [None] * len(types)))
            if op_type == "If" and "n_then_inputs" not in attrs:  # TF's If: both branches take every input
                kwargs["input"] = list(kwargs["input"]) * 2
                kwargs["n_then_inputs"] = len(kwargs["input"]) // 2
        try:
            with control_dependencies(ctrl), g.device(n.device or None):
                result = apply_op(op_type, name=scope + n.name + "/" if scope else n.name + "/", **kwargs)
        except (TypeError, KeyError, IndexError) as e:
            raise ValueError(f"Node '{n.name}' ({n.op}): {e}") from None
        op = result if isinstance(result, Operation) else (result.op if isinstance(result, Tensor)
                                                            else result[0].op)
        if "_class" in n.attr and n.attr["_class"].list.s:  # colocation groups, renamed with the import scope
            op._attrs["_class"] = [("loc:@" + scope + c.decode()[5:]) if scope and c.startswith(b"loc:@")
                                   else c.decode() for c in n.attr["_class"].list.s]
        created[n.name] = op
    return created


def _from_tf_encoding(fdef):
    """``fdef`` in ref's encoding when it is in TensorFlow's (a TF client's ``tf.cond``
    branches): TF's arguments are no nodes and a body names a tensor
    ``"node:output_arg:index"``; ref's arguments are Placeholder nodes and a tensor
    is ``"node:flat_index"``. ref's own FunctionDefs come back unchanged."""
    args = [a.name for a in fdef.signature.input_arg]
    names = {n.name for n in fdef.node_def}
    if all(a in names for a in args):
        return fdef
    out = function_pb2.FunctionDef()
    out.signature.CopyFrom(fdef.signature)
    by_name = {n.name: n for n in fdef.node_def}
    for i, a in enumerate(fdef.signature.input_arg):
        nd = out.node_def.add(name=a.name, op="Placeholder")
        nd.attr["dtype"].type = a.type
        shapes = fdef.arg_attr[i].attr["_output_shapes"].list.shape if i in fdef.arg_attr else ()
        if len(shapes) == 1:
            nd.attr["shape"].shape.CopyFrom(shapes[0])

    def tensor(ref_name):
        if ref_name.startswith("^") or ref_name in args:
            return ref_name
        parts = ref_name.split(":")
        if len(parts) != 3 or parts[0] not in by_name:
            raise ValueError(f"Function '{fdef.signature.name}': cannot resolve input '{ref_name}'")
        node, arg, idx = parts
        op_type = by_name[node].op
        try:
            declared = registry.get(_IMPORT_AS.get(op_type, op_type)).outputs
        except LookupError:
            raise errors.NotFoundError(None, None, f"Op type not registered '{op_type}' (node '{node}' of "
                                                   f"function '{fdef.signature.name}')") from None
        outputs = [o.lstrip("*") for o in declared]
        if arg not in outputs:
            if len(outputs) == 1:  # one output argument: whatever TF calls it
                return f"{node}:{int(idx)}"
            raise ValueError(f"Function '{fdef.signature.name}': node '{node}' has no output '{arg}'")
        k = outputs.index(arg)
        if any(o.startswith("*") for o in declared[:k]):  # a list before it would shift the index
            raise ValueError(f"Function '{fdef.signature.name}': input '{ref_name}' follows a list output")
        return f"{node}:{k + int(idx)}"
    for n in fdef.node_def:
        nd = out.node_def.add()
        nd.CopyFrom(n)
        del nd.input[:]
        nd.input.extend(tensor(i) for i in n.input)
    for k, v in fdef.ret.items():
        out.ret[k] = f"{v}:0" if v in args else tensor(v)
    for k, v in fdef.control_ret.items():
        out.control_ret[k] = v
    return out


def _build_function(outer, fdef, functions, building=()):
    """Rebuilds a FuncGraph from a FunctionDef (ref's encoding, or TensorFlow's)."""
    fdef = _from_tf_encoding(fdef)
    fg = FuncGraph(fdef.signature.name, outer)
    arg_names = [a.name for a in fdef.signature.input_arg]
    with fg.as_default():
        created = _import_nodes(fg, list(fdef.node_def), {}, functions, "", building=building)
    fg.inputs = [created[a].outputs[0] for a in arg_names]
    fg.outputs = []
    for out in fdef.signature.output_arg:
        op_name, idx = fdef.ret[out.name].rsplit(":", 1)
        fg.outputs.append(created[op_name].outputs[int(idx)])
    fg.targets = [created[v] for _, v in sorted(fdef.control_ret.items())]
    return fg


# The framework's Graph and Operation get their proto forms from here.
def _graph_as_graph_def(self, from_version=None, add_shapes=False):
    """This graph as a GraphDef proto (TF's field numbers)."""
    return as_graph_def(self, from_version, add_shapes)


Graph.as_graph_def = _graph_as_graph_def
Operation.node_def = property(op_to_node_def, doc="The NodeDef proto of this op.")
