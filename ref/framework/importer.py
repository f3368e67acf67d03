"""GraphDef import (TF's ``framework/importer.py``): ``import_graph_def``.

Import takes TF's form (``If``/``StatelessIf``/``While``/``StatelessWhile``
and their FunctionDefs) back to ref's ops, whose functions then take every
input (an imported While exports again as it came), and still reads ref's
earlier encoding (placeholder nodes for
arguments, ``n_loop_vars``/``n_then_inputs`` attrs).
"""
from __future__ import annotations

import contextlib

from ref.types import dtypes, errors

from ref.ops import registry
from ref.framework import versions
from ref.types.shapes import TensorShape, unknown_shape
from ref.framework.func_graph import FuncGraph
from ref.protos import node_def_pb2
from ref.formats.tensor_util import make_ndarray
from ref.framework.graph import Operation, Tensor, control_dependencies, get_default_graph, name_scope
from ref.framework.graph_export import _TF_OUTPUT_GROUPS
from ref.framework.op_def_library import apply_op, convert_to_tensor


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
        raise TypeError("Argument `graph_def` must be a GraphDef proto.")
    if input_map is not None and not isinstance(input_map, dict):
        raise TypeError(f"Argument `input_map` must be a dictionary. Obtained {type(input_map).__name__}")
    input_map = dict(input_map or {})
    if not all(isinstance(k, (str, bytes)) for k in input_map):
        raise TypeError(f"All keys for argument `input_map` must be strings. Obtained keys: {list(input_map)}")
    input_map = {k.decode() if isinstance(k, bytes) else k: v for k, v in input_map.items()}
    if return_elements is not None:
        if not all(isinstance(r, (str, bytes)) for r in return_elements):
            raise TypeError(f"Argument `return_elements` must be a list of strings. Obtained {return_elements}.")
        return_elements = [r.decode() if isinstance(r, bytes) else r for r in return_elements]
        for r in return_elements:
            _parse_tensor_name(r)
    g = get_default_graph()
    # a key may name a node or an input no node produces (an export_scope's "$unbound_inputs_x")
    names = {n.name for n in graph_def.node} | {i.lstrip("^").split(":")[0] for n in graph_def.node for i in n.input}
    for k in input_map:
        base = k.lstrip("^").split(":")[0]
        if base not in names:
            raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{k}]")
    _check_versions(graph_def.versions)
    functions = _Library((f.signature.name, f) for f in graph_def.library.function)
    functions.gradients = {gd.function_name: gd.gradient_func for gd in graph_def.library.gradient}
    n_ops, names_in_use = len(g._ops), dict(g._names_in_use)
    try:
        with name_scope(name, "import", list(input_map.values())) as scope:
            if not all(isinstance(v, Tensor) for v in input_map.values()):
                if name == "":
                    raise ValueError("tf.import_graph_def() requires a non-empty `name` if `input_map` contains "
                                     "non-Tensor values. Try calling tf.convert_to_tensor() on `input_map` values "
                                     "before calling tf.import_graph_def().")
                with name_scope("_inputs"):
                    input_map = {k: convert_to_tensor(v) for k, v in input_map.items()}
            created = import_nodes(g, list(graph_def.node), input_map, functions, scope, top=True,
                                   producer=graph_def.versions.producer)
        missing = [k for k in input_map if not k.startswith("^") and _split_input(k)[0] in created
                   and _split_input(k)[1] >= len(created[_split_input(k)[0]].outputs)]
        if missing:  # a typo, as TF treats it
            raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(missing)}]")
        v = graph_def.versions  # an empty graph takes the GraphDef's; else TF keeps the older producer
        if n_ops == 0:
            g._graph_def_versions = (v.producer, v.min_consumer)
        else:
            g._graph_def_versions = (min(g._graph_def_versions[0], v.producer),
                                     max(g._graph_def_versions[1], graph_def.versions.min_consumer))
        return None if return_elements is None else [_return_element(created, r) for r in return_elements]
    except BaseException:
        _rollback(g, n_ops, names_in_use)  # all or nothing, as TF's import
        raise


class _Library(dict):
    """A GraphDef's functions by name; ``gradients``: function -> its gradient function."""

    def __init__(self, *args):
        super().__init__(*args)
        self.gradients = {}


def _check_versions(v):
    """TF's version gate on a GraphDef (ValueError, worded as TF's)."""
    tf_v = versions.TF_VERSION
    if v.producer < versions.GRAPH_DEF_VERSION_MIN_PRODUCER:
        raise ValueError(f"GraphDef producer version {v.producer} below min producer "
                         f"{versions.GRAPH_DEF_VERSION_MIN_PRODUCER} supported by TensorFlow {tf_v}.  "
                         "Please regenerate your graph.")
    if v.min_consumer > versions.GRAPH_DEF_VERSION:
        raise ValueError(f"GraphDef min consumer version {v.min_consumer} above current version "
                         f"{versions.GRAPH_DEF_VERSION} for TensorFlow {tf_v}.  Please upgrade TensorFlow.")
    if versions.GRAPH_DEF_VERSION in v.bad_consumers:
        raise ValueError(f"GraphDef disallows consumer version {versions.GRAPH_DEF_VERSION}.  "
                         "Please upgrade TensorFlow: this version is likely buggy.")


def _parse_tensor_name(name):
    """TF's ``_ParseTensorName``: ``"op:i"`` -> (op, i), ``"op"`` -> (op, 0); ValueError otherwise."""
    parts = name.split(":")
    if len(parts) == 2:
        try:
            return parts[0], int(parts[1])
        except ValueError:
            raise ValueError(f"Cannot convert {name!r} to a tensor name. Second component of the name following "
                             f"the `:` should be an int. Got {parts[1]}.") from None
    if len(parts) == 1:
        return name, 0
    raise ValueError(f"Cannot convert '{name}' to a tensor name. Tensor names should not contain more than 1 `:`. "
                     f"Obtained {len(parts) - 1}")


def _return_element(created, r):
    """The imported Tensor ``"op:i"`` or Operation ``"op"`` named by ``r``."""
    if ":" in r:
        op_name, idx = _parse_tensor_name(r)
        if op_name not in created:
            raise ValueError(f"Requested return tensor '{r}' not found in graph def")
        n_out = len(created[op_name].outputs)
        if idx >= n_out:
            raise ValueError(f"Invalid return output {idx} of node '{op_name}', which has {n_out} output(s)")
        return created[op_name].outputs[idx]
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



def _check_nodes(nodes, input_map, placeholders_as=None, functions=None):
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
            opdefs[n.name] = registry.get(_ALIASES.get(n.op, n.op))
        except LookupError:
            if n.op in (functions or {}) and FUNCTION_CALLS:
                opdefs[n.name] = None  # a call of a library function (TF1 Defun)
                continue
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
                if _is_back_edge(n, by_name[src]):
                    continue  # a while loop's NextIteration -> Merge: connected after both exist
                d.append(src)
            elif src not in external:
                raise ValueError(f"Node '{n.name}': Unknown input node '{i}'")
        deps[n.name] = d
    return opdefs, _topo(nodes, deps)


def _is_back_edge(node, src):
    """Whether ``node`` reads ``src`` over a TF 1.x while loop's back edge."""
    return node.op in ("Merge", "RefMerge") and src.op in ("NextIteration", "RefNextIteration")


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
        raise ValueError(f"Node '{n.name}': NodeDef expected inputs "
                         f"'{', '.join(_type_string(d) for d in _expected_types(opdef, attrs, counts))}' "
                         f"do not match {len(tensors)} inputs specified; op {n.op}")
    kwargs, pos = {}, 0
    for in_name in opdef.inputs:
        if in_name in opdef.list_inputs:
            kwargs[in_name] = tensors[pos:pos + counts[in_name]]
            pos += counts[in_name]
        else:
            kwargs[in_name] = tensors[pos]
            pos += 1
    return kwargs


def _type_string(d):
    """TF's DataTypeString: ``float`` for float32, ``double`` for float64; a name for an unknown type."""
    if isinstance(d, str):
        return d
    name = _TF_TYPE_NAMES.get(d.base_dtype.name, d.base_dtype.name)
    return name + "_ref" if d.is_ref_dtype else name


_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _expected_types(opdef, attrs, counts):
    """The dtype each flat input of a node takes, from the op's fixed input types
    and the node's type attrs (an input whose type is unknown: its name)."""
    member = {m: a for a, ms in opdef.type_attrs.items() for m in ms}
    out = []
    for in_name in opdef.inputs:
        d = opdef.input_types.get(in_name)
        if d is None:
            d = attrs.get(member.get(in_name))
        if d is not None and in_name in opdef.refs and not isinstance(d, list):
            d = dtypes.as_dtype(d)._as_ref
        n = counts.get(in_name, 1) if in_name in opdef.list_inputs else 1
        if isinstance(d, list):
            out.extend(d[:n] + [in_name] * (n - len(d)))
        else:
            out.extend([in_name if d is None else d] * n)
    return out


def _check_input_types(n, opdef, attrs, kwargs, op_name):
    """TF's import check: each input's dtype is the one the op's signature and
    the node's type attrs expect (ValueError as TF's importer words it)."""
    counts = {k: len(v) for k, v in kwargs.items() if k in opdef.list_inputs and isinstance(v, list)}
    flat = [t for in_name in opdef.inputs
            for t in (kwargs[in_name] if in_name in opdef.list_inputs else [kwargs[in_name]])]
    for i, (t, want) in enumerate(zip(flat, _expected_types(opdef, attrs, counts))):
        if isinstance(want, str) or not isinstance(t, Tensor) or t.dtype.base_dtype == dtypes.resource:
            continue
        want = dtypes.as_dtype(want)
        got = t.dtype
        if got.base_dtype != want.base_dtype or (want.is_ref_dtype and not got.is_ref_dtype):
            raise ValueError(f"Input {i} of node {op_name} was passed {_type_string(got)} from {t.name} "
                             f"incompatible with expected {_type_string(want)}.")


def _refine_shapes(n, op):
    """TF's import merges a node's ``_output_shapes`` into the inferred shapes
    (ValueError, worded as TF's, where they contradict)."""
    shapes = n.attr["_output_shapes"].list.shape
    if len(shapes) < len(op.outputs) and op.type not in ("While", "If"):  # ref's keep extra outputs
        raise ValueError(f"Node '{op.name}' has {len(op.outputs)} outputs but the _output_shapes attribute "
                         f"specifies shapes for {len(shapes)} outputs")
    for i, t in enumerate(op.outputs[:len(shapes)]):
        given = TensorShape(shapes[i])
        if not t.shape.is_compatible_with(given):
            raise ValueError(f"Node '{op.name}' has an _output_shapes attribute inconsistent with the GraphDef for "
                             f"output #{i}: Shapes {t.shape} and {given} are not compatible")
        t.set_shape(given)


def _scopes_of(op_names):
    """Every name scope an op name lies in (``"a/b/c"``: ``"a"``, ``"a/b"``)."""
    out = set()
    for name in op_names:
        parts = name.split("/")
        out.update("/".join(parts[:k]) for k in range(1, len(parts)))
    return out


def _unused_name(g, name, scopes):
    """``name``, or ``name_1``, ``name_2``... when an op of the graph has it or an
    existing op lies in a scope of that name (TF's import uniquifies a clash)."""
    if name not in g._ops_by_name and name not in scopes:
        return name
    i = 1
    while f"{name}_{i}" in g._ops_by_name or f"{name}_{i}" in scopes:
        i += 1
    return f"{name}_{i}"


def _colocation_names(n):
    cls = n.attr["_class"].list.s if "_class" in n.attr else []
    return [c.decode()[5:] for c in cls if c.startswith(b"loc:@")]


def _place_colocated(nodes, created, new_names):
    """TF's import: an op colocated with others takes the device of the first of
    them that has one (its own device and the device functions give way)."""
    for n in nodes:
        others = [c for c in _colocation_names(n) if c != n.name]
        if not others:
            continue
        op = created[n.name]
        op._set_device(next((created[c].device for c in others if c in created and created[c].device), ""))


def import_nodes(g, nodes, input_map, functions, scope, placeholders_as=None, building=(), top=False,
                 producer=None):
    """Adds ``nodes`` to ``g`` under ``scope``; ``top``: a GraphDef's own nodes (not a
    function body), named, placed and colocated as TF's ``import_graph_def``.
    ``producer``: the GraphDef's producer version (up to 21 a Placeholder's
    ``{}`` shape meant any shape; TF's shape function reads the version, the
    attr stays as written)."""
    opdefs, order = _check_nodes(nodes, input_map, placeholders_as, functions)
    if top:
        names = {n.name for n in nodes}
        for n in nodes:
            for c in _colocation_names(n):
                if c not in names:
                    raise ValueError(f"Node '{n.name}' expects to be colocated with unknown node '{c}'")
    new_names = {}
    # list(): a copy taken at once, while another thread may be adding ops to the graph
    scopes = _scopes_of(list(g._ops_by_name)) if top else set()
    by_name = {n.name: n for n in nodes}
    back_edges = []  # (Merge node, input position, NextIteration input name)
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
        if opdef is None:  # a call of a library function: built by ref.framework.function
            ctrl = [input_map[i] if i in input_map else created[i[1:]] for i in n.input
                    if i.startswith("^") and (i in input_map or i[1:] in created)]
            tensors = [resolve(n, i) for i in n.input if not i.startswith("^")]
            full = scope + n.name
            if top:
                full = new_names[n.name] = _unused_name(g, full, scopes)
            with control_dependencies(ctrl), g.device(n.device or None):
                created[n.name] = FUNCTION_CALLS[0](g, functions, n, tensors, full)
            continue
        try:
            attrs = {registry.FROM_TF_ATTR_NAMES.get(n.op, {}).get(k, k): _from_attr(v, functions, func_builder)
                     for k, v in n.attr.items() if k not in ("_output_shapes", "_class")
                     and (k != "output_shapes" or k in opdef.attrs)}  # a While's/If's: their output_specs
        except (TypeError, KeyError, IndexError, OverflowError) as e:
            raise ValueError(f"Node '{n.name}': invalid attr value: {e}") from None
        ctrl = [input_map[i] if i in input_map else created[i[1:]] for i in n.input
                if i.startswith("^") and (i in input_map or i[1:] in created)]
        data = [i for i in n.input if not i.startswith("^")]
        later = [k for k, i in enumerate(data) if n.op in ("Merge", "RefMerge") and _split_input(i)[0] not in created
                 and i not in input_map and _split_input(i)[0] in by_name and
                 _is_back_edge(n, by_name[_split_input(i)[0]])]
        first = next((k for k in range(len(data)) if k not in later), None)
        # a back edge reads the Merge's entering input until its NextIteration exists (as TF's builder)
        tensors = [resolve(n, data[first if k in later else k]) for k in range(len(data))]
        back_edges.extend((n.name, k, data[k]) for k in later)
        kwargs = _distribute(n, opdef, attrs, tensors)
        for k, v in attrs.items():
            if k in opdef.attrs:
                kwargs[k] = v
        op_type = _ALIASES.get(n.op, n.op)
        _check_input_types(n, opdef, attrs, kwargs, scope + n.name)
        if op_type in ("While", "If"):
            kwargs = _functional_kwargs(n, op_type, attrs, kwargs, tensors, functions, func_builder)
        full = scope + n.name
        if top:
            full = new_names[n.name] = _unused_name(g, full, scopes)
            colocated = any(c != n.name for c in _colocation_names(n))
            # colocated: placed after all exist; else the node's device inside the caller's
            placement = g.device(None) if colocated else (g.device(n.device) if n.device else contextlib.nullcontext())
        else:
            placement = g.device(n.device or None)
        try:
            with control_dependencies(ctrl), placement:
                result = apply_op(op_type, name=full + "/", **kwargs)
        except (TypeError, KeyError, IndexError) as e:
            raise ValueError(f"Node '{n.name}' ({n.op}): {e}") from None
        op = result if isinstance(result, Operation) else (result.op if isinstance(result, Tensor)
                                                            else result[0].op)
        if top and "_output_shapes" in n.attr:
            _refine_shapes(n, op)
        if "_class" in n.attr and n.attr["_class"].list.s and not top:  # colocation groups, renamed with the scope
            op._attrs["_class"] = [("loc:@" + scope + c.decode()[5:]) if scope and c.startswith(b"loc:@")
                                   else c.decode() for c in n.attr["_class"].list.s]
        if producer is not None and producer <= 21 and op_type == "Placeholder" and op.outputs[0].shape.ndims == 0:
            op.outputs[0]._shape = unknown_shape()
        if op_type == "While" and "n_loop_vars" not in attrs:
            op._attrs["_tf_while"] = True  # (not exported) see _accumulated
        created[n.name] = op
    for merge_name, k, src in back_edges:
        created[merge_name]._update_input(k, resolve(by_name[merge_name], src))
    if top:
        for n in nodes:
            if "_class" in n.attr and n.attr["_class"].list.s:  # colocation groups, renamed as the nodes were
                created[n.name]._attrs["_class"] = [
                    f"loc:@{new_names[c.decode()[5:]]}" if c.startswith(b"loc:@") else c.decode()
                    for c in n.attr["_class"].list.s]
        _place_colocated(nodes, created, new_names)
    return created


_ALIASES = {"StatelessIf": "If", "StatelessWhile": "While"}
# ``call(graph, functions, node_def, input_tensors, name) -> Operation`` for a node
# whose op is a function of the library (registered by ref.framework.function)
FUNCTION_CALLS = []


def _functional_kwargs(n, op_type, attrs, kwargs, tensors, functions, func_builder):
    """The ``apply_op`` arguments of an imported ``While``/``If``. TF's form
    (no ``n_loop_vars``/``n_then_inputs``) becomes a ref op whose functions
    take every input: a While with all inputs as loop variables, an If whose
    two branches each get the whole input list."""
    shapes = _from_attr(n.attr["output_shapes"], functions, func_builder) if "output_shapes" in n.attr else []
    if op_type == "While" and "n_loop_vars" not in attrs:
        types = attrs.get("T", [t.dtype.base_dtype for t in tensors])
        shapes = shapes if len(shapes) == len(types) else [t.shape for t in tensors]
        specs = list(zip(types, shapes))
        # as ref's while_loop with back_prop: the While keeps its loop variables' histories
        # for the gradient (extra outputs after TF's) when they can stack
        return {"input": list(tensors), "cond": attrs["cond"], "body": attrs["body"], "n_loop_vars": len(tensors),
                "parallel_iterations": attrs.get("parallel_iterations", 10), "output_specs": specs,
                "accumulate": _can_accumulate(specs)}
    if op_type == "If" and "n_then_inputs" not in attrs:
        types = attrs.get("Tout", [])
        if len(shapes) != len(types):
            outs = attrs["then_branch"].outputs
            shapes = [t.shape for t in outs] if len(outs) == len(types) else [TensorShape(None)] * len(types)
        ins = list(tensors[1:])
        return {"cond": tensors[0], "input": ins + ins, "then_branch": attrs["then_branch"],
                "else_branch": attrs["else_branch"], "n_then_inputs": len(ins),
                "output_specs": list(zip(types, shapes))}
    kwargs = dict(kwargs)
    kwargs["output_specs"] = list(zip(attrs.get("T", []), shapes))
    return kwargs


def _can_accumulate(specs):
    return all(((d.is_numpy_compatible and d != dtypes.string and not d.is_ref_dtype and d != dtypes.resource)
                or d == dtypes.variant) and TensorShape(sh).is_fully_defined() for d, sh in specs)


def _build_function(outer, fdef, functions, building=()):
    """Rebuilds a FuncGraph from a FunctionDef: TF's encoding (arguments named
    by the signature, inputs ``"node:output_arg:i"``), or ref's earlier one
    (a placeholder node per argument, inputs ``"node:i"``)."""
    node_names = {nd.name for nd in fdef.node_def}
    arg_names = [a.name for a in fdef.signature.input_arg]
    if arg_names and all(a in node_names for a in arg_names) or (not arg_names and _legacy_refs(fdef)):
        return _build_legacy_function(outer, fdef, functions, building)
    fg = FuncGraph(fdef.signature.name, outer)
    args = {}
    with fg.as_default():
        for i, a in enumerate(fdef.signature.input_arg):
            shape = TensorShape(None)
            if i in fdef.arg_attr and "_output_shapes" in fdef.arg_attr[i].attr:
                shp = fdef.arg_attr[i].attr["_output_shapes"].list.shape
                if len(shp) == 1:
                    shape = TensorShape(shp[0])
            if not a.type:
                raise ValueError(f"Function '{fdef.signature.name}': argument '{a.name}' has no concrete type")
            args[a.name] = fg.add_argument(dtypes.as_dtype(a.type), shape, a.name)
        by_name = {nd.name: nd for nd in fdef.node_def}
        nodes = []
        for nd in fdef.node_def:
            c = node_def_pb2.NodeDef()
            c.CopyFrom(nd)
            del c.input[:]
            c.input.extend(_flat_input(fdef, by_name, args, i, functions) for i in nd.input)
            nodes.append(c)
        created = import_nodes(fg, nodes, {}, functions, "", placeholders_as=args, building=building)
    fg.outputs = []
    for out in fdef.signature.output_arg:
        r = fdef.ret[out.name]
        if r in args:
            fg.outputs.append(args[r])
        else:
            op_name, idx = _split_input(_flat_input(fdef, by_name, args, r, functions))
            fg.outputs.append(created[op_name].outputs[idx])
    fg.targets = [created[fdef.control_ret[k]] for k in fdef.signature.control_output if k in fdef.control_ret]
    return fg


def _legacy_refs(fdef):
    """Whether ``fdef``'s references are ref's earlier ``"node:i"`` form."""
    return all(v.count(":") == 1 for v in fdef.ret.values())


def _flat_input(fdef, by_name, args, ref_name, functions=None):
    """A FunctionDef input (``"arg"``, ``"node:out:i"``, ``"^node"``) as
    ``"node:flat_index"`` (or the argument's name)."""
    if ref_name.startswith("^") or ref_name in args:
        return ref_name
    parts = ref_name.split(":")
    if len(parts) == 2 and parts[1].isdigit():  # already flat
        return ref_name
    if len(parts) != 3 or not parts[2].isdigit() or parts[0] not in by_name:
        raise ValueError(f"Function '{fdef.signature.name}': invalid input '{ref_name}'")
    node, out, k = parts[0], parts[1], int(parts[2])
    called = (functions or {}).get(by_name[node].op)
    if called is not None:  # a call of a library function: its signature's output args
        names = [a.name for a in called.signature.output_arg]
        if out not in names:
            raise ValueError(f"Function '{fdef.signature.name}': node '{node}' has no output named '{out}'")
        return f"{node}:{names.index(out) + k}"
    try:
        outs = registry.get(_ALIASES.get(by_name[node].op, by_name[node].op)).outputs
    except LookupError:
        raise errors.NotFoundError(None, None, f"Op type not registered '{by_name[node].op}' "
                                               f"(node '{node}')") from None
    if by_name[node].op in _TF_OUTPUT_GROUPS:
        attrs = {a: _from_attr(v, {}, lambda f: None) for a, v in by_name[node].attr.items()}
        try:
            groups = _TF_OUTPUT_GROUPS[by_name[node].op](attrs)
        except (KeyError, TypeError):
            groups = []
        offset = 0
        for name, count in groups:
            if name == out:
                return f"{node}:{offset + k}"
            offset += count
    names = [o.lstrip("*") for o in outs]
    if out in names:
        p = names.index(out)
        star = [j for j, o in enumerate(outs) if o.startswith("*")]
        if star and star[0] < p:
            raise ValueError(f"Function '{fdef.signature.name}': cannot place output '{out}' of node '{node}' "
                             f"after a list output")
        return f"{node}:{p + k}"
    if len(outs) == 1:  # TF names this op's only output differently
        return f"{node}:{k}"
    raise ValueError(f"Function '{fdef.signature.name}': node '{node}' ({by_name[node].op}) has no output "
                     f"named '{out}'")


def _build_legacy_function(outer, fdef, functions, building=()):
    """Rebuilds a FuncGraph from ref's earlier FunctionDef encoding."""
    fg = FuncGraph(fdef.signature.name, outer)
    arg_names = [a.name for a in fdef.signature.input_arg]
    with fg.as_default():
        created = import_nodes(fg, list(fdef.node_def), {}, functions, "", building=building)
    fg.inputs = [created[a].outputs[0] for a in arg_names]
    fg.outputs = []
    for out in fdef.signature.output_arg:
        op_name, idx = fdef.ret[out.name].rsplit(":", 1)
        fg.outputs.append(created[op_name].outputs[int(idx)])
    fg.targets = [created[v] for _, v in sorted(fdef.control_ret.items())]
    return fg
