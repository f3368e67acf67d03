"""GraphDef export: ``Graph.as_graph_def`` and ``Operation.node_def`` (attached
here, as TF's ops.py gives them; import is ``importer``).


An op's attrs map to ``AttrValue`` by Python type (bool -> b, int -> i,
float -> f, str/bytes -> s, DType -> type, TensorShape -> shape, ndarray ->
tensor, list -> list); type attrs (``T``...) are exported as TF names them, so
graphs of ops both share import into TensorFlow.

``while_loop``/``cond`` are exported in TensorFlow's functional form, as
``while_v2``/``cond_v2`` write it, so TensorFlow imports and runs them:

* ``If`` (``Tcond``, ``Tin``, ``Tout``, ``then_branch``, ``else_branch``,
  ``output_shapes``): both branch functions take every input, each input
  once; ref's then branch reads its ``n_then_inputs``, the else branch the
  rest.
* ``While`` (``T``, ``cond``, ``body``, ``output_shapes``,
  ``parallel_iterations``) in ``while_v2``'s layout, as node
  ``<name>/While``: the loop counter and the ``maximum_iterations`` bound
  (-1: none), ref's loop variables, ref's captures (each once) as loop
  variables the body passes through, and for an accumulating While (ref's
  gradient reads each loop variable's history) one TensorList per loop
  variable the body pushes to; a ``TensorListStack`` of each final list
  stands for ref's history output. An ``IdentityN`` named ``<name>``
  forwards the loop variables, so ``<name>:k`` is ref's output ``k`` in both
  (fetches, collections), and TF's While gradient can differentiate it.
* Functions are FunctionDefs: arguments are the signature's ``input_arg``
  names, node inputs ``"node:output_arg:i"`` (output arg names from ref's op
  registry), ``ret`` and ``control_ret`` name the results.

"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes

from ref.ops import registry
from ref.types.shapes import TensorShape
from ref.framework.func_graph import FuncGraph
from ref.protos import attr_value_pb2, node_def_pb2, function_pb2, graph_pb2, op_def_pb2
from ref.formats.tensor_util import make_tensor_proto, make_ndarray
from ref.framework.graph import Graph, Operation, Tensor, control_dependencies, get_default_graph, name_scope
from ref.framework.op_def_library import GIVEN_VALUES, apply_op
from ref.framework import versions

_INTERNAL = ("_list_sizes", "output_specs", "_tf_while", "_grad_graph")
# Functions a graph holds besides its ops' bodies (Defun's library, registered by
# ref.framework.function): each ``source(graph, library)`` adds its FunctionDefs.
LIBRARY_SOURCES = []


def attr_value_proto(v, library, seen_funcs):
    a = attr_value_pb2.AttrValue()
    if type(v).__name__ == "AttrValue" and hasattr(v, "SerializeToString"):  # given as a proto (Graph._attr_scope)
        a.ParseFromString(v.SerializeToString())
    elif isinstance(v, bool) or isinstance(v, np.bool_):
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
        for k, x in getattr(v, "name_attrs", {}).items():  # e.g. tf.data's ``_tf_data_function``
            a.func.attr[k].CopyFrom(attr_value_proto(x, library, seen_funcs))
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
            elif isinstance(x, (list, tuple)) and all(d is None or isinstance(d, int) for d in x):
                # a shape given as a list of dims (list(shape) is the only list attr of lists)
                proto = lst.shape.add()
                for d in x:
                    proto.dim.add().size = -1 if d is None else d
            else:
                raise TypeError(f"Cannot export list attr element {x!r}")
    elif v is None:
        return None
    else:
        raise TypeError(f"Cannot export attr value {v!r} of type {type(v).__name__}")
    return a


def op_to_node_def(op, library=None, seen_funcs=None):
    """The NodeDef of ``op`` (a ``While``/``If`` in TensorFlow's functional form)."""
    library = library if library is not None else scratch_library()
    seen_funcs = seen_funcs if seen_funcs is not None else {}
    nds = _node_defs(op, library, seen_funcs, _graph_ref)
    # the node named as the op (a While's IdentityN; its TF While is ``<name>/While``)
    return next((nd for nd in nds if nd.name == op.name), nds[_main_index(op)])


def _main_index(op):
    """Where ``op``'s own NodeDef sits among the NodeDefs :func:`_node_defs` returns."""
    if op.type != "While":
        return 0
    return (0 if op._attrs.get("_tf_while") else 2) + 3 * len(_accumulated(op))


def _accumulated(op):
    """The loop variables whose histories a While's TF form keeps in TensorLists:
    all of them for ref's accumulating while_loop (a gradient built later reads
    them), only those something reads for a While imported from TF's form (so
    export -> import round trips do not grow the loop)."""
    if op.type != "While" or not op._attrs.get("accumulate"):
        return []
    n = op._attrs["n_loop_vars"]
    if not op._attrs.get("_tf_while"):
        return list(range(n))
    return [j for j in range(n) if op.graph._consumers.get(op._outputs[n + j])]


def _graph_ref(t):
    """A GraphDef's name for tensor ``t``: ``"op"``, ``"op:i"`` (a While's history: its TensorListStack)."""
    hist = _history_index(t)
    if hist is not None:
        return _helper_name(t.op, f"history_{hist}")
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def _helper_name(op, stem):
    """The name of a node ``op``'s functional form adds (``op/stem``, made
    unique against ``op``'s graph; the same for every caller)."""
    name, k = f"{op.name}/{stem}", 0
    while name in op.graph._ops_by_name:
        k += 1
        name = f"{op.name}/{stem}_{k}"
    return name


def _local_graph(name, arg, k):
    return name if k == 0 else f"{name}:{k}"


def _local_function(name, arg, k):
    return f"{name}:{arg}:{k}"


_graph_ref.local = _local_graph


def _history_index(t):
    """``j`` when ``t`` is the history of loop variable ``j`` of an accumulating While."""
    op = t.op
    if op.type == "While" and op._attrs.get("accumulate") and t.value_index >= op._attrs["n_loop_vars"]:
        return t.value_index - op._attrs["n_loop_vars"]
    return None


def _n(x):
    return len(x) if isinstance(x, (list, tuple)) else int(x or 0)


# TF's output args of ops ref declares with one list output ("*outputs"):
# (name, count from the attrs) in order.
_TF_OUTPUT_GROUPS = {
    "SparseSplit": lambda a: [("output_indices", a["num_split"]), ("output_values", a["num_split"]),
                              ("output_shape", a["num_split"])],
    "SdcaOptimizer": lambda a: [("out_example_state_data", 1),
                                ("out_delta_sparse_weights", _n(a.get("num_sparse_features"))),
                                ("out_delta_dense_weights", _n(a.get("num_dense_features")))],
    "ParseExampleV2": lambda a: [("sparse_indices", a["num_sparse"]), ("sparse_values", _n(a["sparse_types"])),
                                 ("sparse_shapes", a["num_sparse"]), ("dense_values", _n(a.get("Tdense"))),
                                 ("ragged_values", _n(a.get("ragged_value_types"))),
                                 ("ragged_row_splits", _n(a.get("ragged_split_types")))],
    "ParseSingleSequenceExample": lambda a: [
        ("context_sparse_indices", _n(a.get("Ncontext_sparse"))),
        ("context_sparse_values", _n(a.get("context_sparse_types"))),
        ("context_sparse_shapes", _n(a.get("Ncontext_sparse"))),
        ("context_dense_values", _n(a.get("Tcontext_dense"))),
        ("feature_list_sparse_indices", _n(a.get("Nfeature_list_sparse"))),
        ("feature_list_sparse_values", _n(a.get("feature_list_sparse_types"))),
        ("feature_list_sparse_shapes", _n(a.get("Nfeature_list_sparse"))),
        ("feature_list_dense_values", _n(a.get("feature_list_dense_types")))],
}
_TF_OUTPUT_GROUPS["ParseSequenceExampleV2"] = lambda a: [
    ("context_sparse_indices", _n(a.get("Ncontext_sparse"))),
    ("context_sparse_values", _n(a.get("context_sparse_types"))),
    ("context_sparse_shapes", _n(a.get("Ncontext_sparse"))),
    ("context_dense_values", _n(a.get("Tcontext_dense"))),
    ("context_ragged_values", _n(a.get("context_ragged_value_types"))),
    ("context_ragged_row_splits", _n(a.get("context_ragged_split_types"))),
    ("feature_list_sparse_indices", _n(a.get("Nfeature_list_sparse"))),
    ("feature_list_sparse_values", _n(a.get("feature_list_sparse_types"))),
    ("feature_list_sparse_shapes", _n(a.get("Nfeature_list_sparse"))),
    ("feature_list_dense_values", _n(a.get("feature_list_dense_types"))),
    ("feature_list_dense_lengths", _n(a.get("Nfeature_list_dense"))),
    ("feature_list_ragged_values", _n(a.get("feature_list_ragged_value_types"))),
    ("feature_list_ragged_outer_splits", _n(a.get("feature_list_ragged_split_types"))),
    ("feature_list_ragged_inner_splits", _n(a.get("feature_list_ragged_split_types")))]
_TF_OUTPUT_GROUPS["SdcaOptimizerV2"] = _TF_OUTPUT_GROUPS["SdcaOptimizer"]
_TF_OUTPUT_GROUPS["CTCBeamSearchDecoder"] = lambda a: [
    ("decoded_indices", a["top_paths"]), ("decoded_values", a["top_paths"]), ("decoded_shape", a["top_paths"]),
    ("log_probability", 1)]


def _out_arg(op, index):
    """(output arg name, index within it) of output ``index`` of ``op`` (FunctionDef naming)."""
    if op.type in _TF_OUTPUT_GROUPS:
        try:
            groups = _TF_OUTPUT_GROUPS[op.type](op._attrs)
        except (KeyError, TypeError):
            groups = []
        if sum(c for _, c in groups) == len(op._outputs):
            for name, count in groups:
                if index < count:
                    return name, index
                index -= count
    outs = op._opdef.outputs if hasattr(op, "_opdef") else registry.get(op.type).outputs
    return _out_arg_of(outs, len(op._outputs), index)


def _out_arg_of(outs, n_outputs, index):
    star = [k for k, o in enumerate(outs) if o.startswith("*")]
    if not star:
        return (outs[index] if index < len(outs) else outs[-1]), 0 if index < len(outs) else index
    p = star[0]
    size = n_outputs - (len(outs) - 1)
    if index < p:
        return outs[index], 0
    if index < p + size:
        return outs[p].lstrip("*"), index - p
    return outs[index - size + 1], 0


def _basic_node_def(op, library, seen_funcs, tref, attrs=None):
    nd = node_def_pb2.NodeDef(name=op.name, op=op.type, device=op.device)
    for t in op._inputs:
        nd.input.append(tref(t))
    for c in op._control_inputs:
        nd.input.append("^" + c.name)
    for k, v in (op._attrs if attrs is None else attrs).items():
        if k in _INTERNAL:
            continue
        given = GIVEN_VALUES.get(op) if k == "value" else None
        if given is not None:  # a constant filled from fewer values: TF's proto lists those
            av = attr_value_pb2.AttrValue()
            av.tensor.CopyFrom(make_tensor_proto(given, shape=v.shape))
        else:
            av = attr_value_proto(v, library, seen_funcs)
        if av is None:
            if k == "shape" and op.type in ("Placeholder",):
                av = attr_value_proto(TensorShape(None), library, seen_funcs)
            else:
                continue
        nd.attr[registry.TF_ATTR_NAMES.get(op.type, {}).get(k, k)].CopyFrom(av)
    return nd


def _node_defs(op, library, seen_funcs, tref):
    """The NodeDefs standing for ``op``: one, or for ``While``/``If`` the op in
    TensorFlow's functional form with the helper nodes it needs (a loop
    counter, the TensorList accumulators of an accumulating While)."""
    if op.type == "If":
        return [_if_node_def(op, library, seen_funcs, tref)]
    if op.type == "While":
        return _while_node_defs(op, library, seen_funcs, tref)
    return [_basic_node_def(op, library, seen_funcs, tref)]


def _shapes_av(shapes):
    a = attr_value_pb2.AttrValue()
    a.list.SetInParent()
    for s in shapes:
        a.list.shape.add().CopyFrom(TensorShape(s).as_proto())
    return a


def _types_av(types):
    a = attr_value_pb2.AttrValue()
    a.list.SetInParent()
    for d in types:
        a.list.type.append(dtypes.as_dtype(d).base_dtype.as_datatype_enum)
    return a


def _unique(tensors):
    """``tensors`` without repeats (first occurrence order) and each one's position in it."""
    uniq, pos = [], {}
    for t in tensors:
        if id(t) not in pos:
            pos[id(t)] = len(uniq)
            uniq.append(t)
    return uniq, [pos[id(t)] for t in tensors]


def _if_node_def(op, library, seen_funcs, tref):
    """TF's ``If``: both branches take every input (each input once, as
    ``cond_v2`` passes them); ref's then branch reads its ``n_then_inputs``,
    the else branch the rest."""
    n_then = op._attrs["n_then_inputs"]
    ins, where = _unique(op._inputs[1:])
    specs = op._attrs["output_specs"]
    types = [t.dtype.base_dtype for t in ins]
    shapes = [t.shape for t in ins]
    then_name = _add_function(op._attrs["then_branch"], library, seen_funcs, types, shapes, args=where[:n_then])
    else_name = _add_function(op._attrs["else_branch"], library, seen_funcs, types, shapes, args=where[n_then:])
    nd = node_def_pb2.NodeDef(name=op.name, op="If", device=op.device)
    nd.input.extend(tref(t) for t in [op._inputs[0]] + ins)
    nd.input.extend("^" + c.name for c in op._control_inputs)
    nd.attr["Tcond"].type = op._inputs[0].dtype.base_dtype.as_datatype_enum
    nd.attr["Tin"].CopyFrom(_types_av(types))
    nd.attr["Tout"].CopyFrom(_types_av([d for d, _ in specs]))
    nd.attr["then_branch"].func.name = then_name
    nd.attr["else_branch"].func.name = else_name
    nd.attr["output_shapes"].CopyFrom(_shapes_av([s for _, s in specs]))
    _copy_private_attrs(op, nd, library, seen_funcs)
    return nd


def _copy_private_attrs(op, nd, library, seen_funcs):
    for k, v in op._attrs.items():
        if k.startswith("_") and k not in _INTERNAL:
            av = attr_value_proto(v, library, seen_funcs)
            if av is not None:
                nd.attr[k].CopyFrom(av)


def _const_nd(name, value, device=""):
    value = np.asarray(value)
    nd = node_def_pb2.NodeDef(name=name, op="Const", device=device)
    nd.attr["dtype"].type = dtypes.as_dtype(value.dtype).as_datatype_enum
    nd.attr["value"].tensor.CopyFrom(make_tensor_proto(value))
    return nd


_COUNTER = 2  # TF's While starts with the loop counter and the maximum_iterations bound


def _while_node_defs(op, library, seen_funcs, tref):
    """TF's ``While`` laid out as ``while_v2`` lays it out: the loop counter
    and the ``maximum_iterations`` bound (-1: none), ref's loop variables,
    ref's captures (each once) as loop variables the body passes through,
    then, for an accumulating While, one TensorList per loop variable to which
    the body pushes the variable's value at the start of each iteration. The
    While is the node ``<name>/While``; an ``IdentityN`` named as ref's op
    forwards the loop variables, so ``<name>:k`` is ref's output ``k`` in both
    (fetches, collections); a TensorListStack of each final list stands for
    ref's history output.

    A While imported from TF's form (its loop counter and bound are among
    its loop variables already) goes back as it came: no counter added, no
    IdentityN, accumulators appended for the histories something reads."""
    a = op._attrs
    raw = bool(a.get("_tf_while"))
    off = 0 if raw else _COUNTER
    n, n_cc = a["n_loop_vars"], a["n_cond_captures"]
    caps, where = _unique(op._inputs[n:])
    specs = [(dtypes.as_dtype(d).base_dtype, TensorShape(s)) for d, s in a["output_specs"]]
    max_it, acc = a.get("maximum_iterations"), _accumulated(op)
    L = tref.local  # how this GraphDef or FunctionDef names a helper node's output
    inputs = [tref(t) for t in op._inputs[:n]] + [tref(t) for t in caps]
    types = [d for d, _ in specs] + [t.dtype.base_dtype for t in caps]
    shapes = [s for _, s in specs] + [t.shape for t in caps]
    if raw:
        loop, pre = op.name, []
    else:
        loop = _helper_name(op, "While")
        counter, bound = _helper_name(op, "loop_counter"), _helper_name(op, "maximum_iterations")
        pre = [_const_nd(counter, np.int32(0), op.device),
               _const_nd(bound, np.int32(-1 if max_it is None else max_it), op.device)]
        inputs = [L(counter, "output", 0), L(bound, "output", 0)] + inputs
        types = [dtypes.int32, dtypes.int32] + types
        shapes = [TensorShape([]), TensorShape([])] + shapes
    for j in acc:
        d, s = specs[j]
        base = _helper_name(op, f"accumulator_{j}")
        pre.append(_const_nd(base + "/element_shape", np.asarray(s.as_list(), np.int32), op.device))
        pre.append(_const_nd(base + "/max_num_elements", np.int32(-1), op.device))
        el = node_def_pb2.NodeDef(name=base, op="EmptyTensorList", device=op.device,
                                  input=[L(base + "/element_shape", "output", 0),
                                         L(base + "/max_num_elements", "output", 0)])
        el.attr["element_dtype"].type = d.as_datatype_enum
        el.attr["shape_type"].type = dtypes.int32.as_datatype_enum
        pre.append(el)
        inputs.append(L(base, "handle", 0))
        types.append(dtypes.variant)
        shapes.append(TensorShape([]))
    first_cap = off + n
    layout = ("while", off, n, len(caps), max_it is not None, tuple(acc))
    loop_args = list(range(off, first_cap))
    cond_name = _add_function(a["cond"], library, seen_funcs, types, shapes,
                              args=loop_args + [first_cap + w for w in where[:n_cc]], layout=layout, role="cond")
    body_name = _add_function(a["body"], library, seen_funcs, types, shapes,
                              args=loop_args + [first_cap + w for w in where[n_cc:]], layout=layout, role="body")
    nd = node_def_pb2.NodeDef(name=loop, op="While", device=op.device)
    nd.input.extend(inputs)
    nd.input.extend("^" + c.name for c in op._control_inputs)
    nd.attr["T"].CopyFrom(_types_av(types))
    nd.attr["cond"].func.name = cond_name
    nd.attr["body"].func.name = body_name
    nd.attr["output_shapes"].CopyFrom(_shapes_av(shapes))
    nd.attr["parallel_iterations"].i = int(a.get("parallel_iterations", 10))
    _copy_private_attrs(op, nd, library, seen_funcs)
    post = []
    if not raw:
        fwd = node_def_pb2.NodeDef(name=op.name, op="IdentityN", device=op.device,
                                   input=[L(loop, "output", _COUNTER + j) for j in range(n)])
        fwd.attr["T"].CopyFrom(_types_av([d for d, _ in specs]))
        post.append(fwd)
    first = len(types) - len(acc)
    for k, j in enumerate(acc):
        d, s = specs[j]
        base = _helper_name(op, f"accumulator_{j}")
        st = node_def_pb2.NodeDef(name=_helper_name(op, f"history_{j}"), op="TensorListStack", device=op.device,
                                  input=[L(loop, "output", first + k), L(base + "/element_shape", "output", 0)])
        st.attr["element_dtype"].type = d.as_datatype_enum
        st.attr["num_elements"].i = -1
        post.append(st)
    return pre + [nd] + post


def scratch_library():
    return function_pb2.FunctionDefLibrary()


def _arg_name(i):
    return f"arg{i}"


def _add_function(fg, library, seen_funcs, types=None, shapes=None, args=None, layout=None, role=None):
    """Adds FuncGraph ``fg`` to ``library`` in TF's FunctionDef encoding and
    returns its name. The function takes arguments of ``types``; ``fg``'s
    inputs are the arguments at positions ``args`` (by default all, in order).
    A While's ``cond``/``body`` (``role``) get the extra logic of ``layout``:
    the loop counter test and step, captures passed through, the pushes to the
    accumulators."""
    if types is None:
        types = [t.dtype.base_dtype for t in fg.inputs]
        shapes = [t.shape for t in fg.inputs]
    args = list(range(len(fg.inputs))) if args is None else args
    key = (id(fg), tuple(types), tuple(args), layout, role)
    if key in seen_funcs:
        return seen_funcs[key][0]
    node_names = {op.name for op in fg.get_operations()}
    taken = {f.signature.name for f in library.function} | {v[0] for v in seen_funcs.values()}
    name = fg.name.replace("/", "_")
    # TF keeps the "__" of traced functions and the "_" of a Defun's hash-named one ("_make_dataset_<hash>")
    name = name if name.startswith(("__inference_", "_make_dataset_")) else (name.strip("_") or "fn")
    base, k = name, 1
    while name in taken:
        name = f"{base}_{k}"
        k += 1
    seen_funcs[key] = (name, fg)  # keeps fg alive so its id stays its own
    arg_names = []
    for i in range(len(types)):
        a, k = _arg_name(i), 0
        while a in node_names:
            k += 1
            a = f"{_arg_name(i)}_{k}"
        arg_names.append(a)
    arg_of = {id(t): arg_names[pos] for t, pos in zip(fg.inputs, args)}

    def fref(t):
        if id(t) in arg_of:
            return arg_of[id(t)]
        hist = _history_index(t)
        if hist is not None:
            return _helper_name(t.op, f"history_{hist}") + ":tensor:0"
        out, idx = _out_arg(t.op, t.value_index)
        return f"{t.op.name}:{out}:{idx}"

    fref.local = _local_function

    fdef = function_pb2.FunctionDef()
    fdef.signature.name = name
    for i, (a, d) in enumerate(zip(arg_names, types)):
        fdef.signature.input_arg.add(name=a, type=dtypes.as_dtype(d).base_dtype.as_datatype_enum)
        if shapes is not None:
            fdef.arg_attr[i].attr["_output_shapes"].CopyFrom(_shapes_av([shapes[i]]))
    dropped = {id(t.op) for t in fg.inputs}
    arg_ops = {"^" + t.op.name for t in fg.inputs}
    for op in fg.get_operations():
        if id(op) in dropped:
            continue
        for nd in _node_defs(op, library, seen_funcs, fref):
            if any(i in arg_ops for i in nd.input):  # an argument is no node: no control edge from it
                keep = [i for i in nd.input if i not in arg_ops]
                del nd.input[:]
                nd.input.extend(keep)
            fdef.node_def.add().CopyFrom(nd)

    def fresh(stem):
        nm, k = stem, 0
        while nm in node_names or nm in arg_names:
            k += 1
            nm = f"{stem}_{k}"
        node_names.add(nm)
        return nm

    rets = [fref(t) for t in fg.outputs]
    out_types = [t.dtype.base_dtype for t in fg.outputs]
    if role is not None:
        _, off, n, n_caps, counted, acc = layout
        i32 = attr_value_pb2.AttrValue(type=dtypes.int32.as_datatype_enum)
        if role == "cond" and counted:
            less = fresh("loop_counter_less")
            fdef.node_def.add().CopyFrom(node_def_pb2.NodeDef(
                name=less, op="Less", input=[arg_names[0], arg_names[1]], attr={"T": i32}))
            both = fresh("loop_cond_and")
            fdef.node_def.add().CopyFrom(node_def_pb2.NodeDef(
                name=both, op="LogicalAnd", input=[f"{less}:z:0", rets[0]]))
            rets = [f"{both}:z:0"]
        if role == "body":
            counting = []
            if off:
                one = fresh("loop_counter_one")
                fdef.node_def.add().CopyFrom(_const_nd(one, np.int32(1)))
                step = fresh("loop_counter_add")
                fdef.node_def.add().CopyFrom(node_def_pb2.NodeDef(
                    name=step, op="AddV2", input=[arg_names[0], f"{one}:output:0"], attr={"T": i32}))
                counting = [f"{step}:z:0", arg_names[1]]
            first_cap = off + n
            rets = counting + rets + [arg_names[first_cap + k] for k in range(n_caps)]
            out_types = list(types[:off]) + out_types + list(types[first_cap:first_cap + n_caps])
            for k, j in enumerate(acc):
                push = fresh(f"accumulator_push_{j}")
                fdef.node_def.add().CopyFrom(node_def_pb2.NodeDef(
                    name=push, op="TensorListPushBack",
                    input=[arg_names[first_cap + n_caps + k], arg_names[off + j]],
                    attr={"element_dtype": attr_value_pb2.AttrValue(
                        type=dtypes.as_dtype(types[off + j]).as_datatype_enum)}))
                rets.append(f"{push}:output_handle:0")
                out_types.append(dtypes.variant)
    for i, (r, d) in enumerate(zip(rets, out_types)):
        fdef.signature.output_arg.add(name=f"output_{i}", type=dtypes.as_dtype(d).base_dtype.as_datatype_enum)
        fdef.ret[f"output_{i}"] = r
    for i, op in enumerate(fg.targets):
        fdef.signature.control_output.append(f"target_{i}")
        fdef.control_ret[f"target_{i}"] = op.name
    library.function.add().CopyFrom(fdef)
    return name


def as_graph_def(graph, from_version=None, add_shapes=False):
    """The GraphDef of ``graph`` (ops in creation order; functions in the library), taken under the
    graph's lock: ops other threads add or rewire meanwhile are wholly in or wholly out (TF's)."""
    with graph._lock:
        return _as_graph_def_locked(graph, from_version, add_shapes)


def _as_graph_def_locked(graph, from_version, add_shapes):
    gd = graph_pb2.GraphDef()
    gd.versions.CopyFrom(graph.graph_def_versions)
    seen = {}
    for op in graph.get_operations():
        if from_version is not None and op._id < from_version:
            continue
        nds = _node_defs(op, gd.library, seen, _graph_ref)
        if add_shapes:
            main = nds[_main_index(op)]
            if op.type == "While":  # TF's outputs: every loop variable; the IdentityN's: ref's loop variables
                main.attr["_output_shapes"].CopyFrom(main.attr["output_shapes"])
                n = op._attrs["n_loop_vars"]
                nds[_main_index(op) + 1].attr["_output_shapes"].CopyFrom(
                    attr_value_proto([t.shape for t in op._outputs[:n]], gd.library, seen))
            elif op._outputs:  # as TF: an op without outputs gets no _output_shapes
                main.attr["_output_shapes"].CopyFrom(attr_value_proto([t.shape for t in op._outputs], gd.library, seen))
        for nd in nds:
            _sort_control_inputs(nd)
            gd.node.add().CopyFrom(nd)
    for source in LIBRARY_SOURCES:
        source(graph, gd.library)
    return gd


def _sort_control_inputs(nd):
    """A GraphDef lists each node's control inputs sorted by the source's name, after its data inputs
    (TF's ``Graph::ToGraphDef``: "sort the control inputs for more predictable serialization"); an op's
    own ``node_def`` keeps them in the order they were added, as TF's."""
    controls = [i for i in nd.input if i.startswith("^")]
    if len(controls) > 1:
        data = [i for i in nd.input if not i.startswith("^")]
        del nd.input[:]
        nd.input.extend(data + sorted(controls, key=lambda i: i[1:].encode()))


# The framework's Graph and Operation get their proto forms from here.
def _graph_as_graph_def(self, from_version=None, add_shapes=False):
    """This graph as a GraphDef proto (TF's field numbers)."""
    return as_graph_def(self, from_version, add_shapes)


Graph.as_graph_def = _graph_as_graph_def
Operation.node_def = property(op_to_node_def, doc="The NodeDef proto of this op.")
