"""TF1 control flow and grouping: while_loop, cond, group, tuple, no_op,
identity, with_dependencies -- plus placeholder and friends.

Outside function bodies ``cond`` builds TF 1.x's Switch/Merge graph
(:mod:`ref.graph_ops.control_flow_v1`) and ``while_loop`` TF 1.x's
Enter/Merge/Switch/LoopCond/NextIteration/Exit loop
(:mod:`ref.graph_ops.while_v1`, differentiated by
:mod:`ref.grad.control_flow_state`), as TF's compat.v1 does with v2 behaviour
disabled. Inside a function body, or after ``tf.enable_control_flow_v2()``
for a differentiable loop, they build the functional ``If``/``While``
(differentiable by ref.grad.control_grad). ``tf.case`` is
:mod:`ref.graph_ops.control_flow_case`."""
from __future__ import annotations

from typing import Any

import numpy as np

from ref.types import dtypes, nest
from ref.platform import modes
from ref.framework.func_graph import FuncGraph
from ref.framework.graph import (
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    device,
    get_default_graph,
    name_scope,
)
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, convert_to_tensor, constant
from ref.framework.tensor_util import constant_value
from ref.framework.sparse_tensor import SparseTensor
from ref.types.shapes import TensorShape, as_shape, unknown_shape
from ref.graph_ops.tensor_array_ops import TensorArray
from ref.graph_ops.control_flow_v1 import cond_v1
from ref.graph_ops.while_v1 import while_loop_v1
from ref.graph_ops import control_flow_util  # noqa: F401 -- installs the graph's input-context check

__all__ = ["while_loop", "cond", "group", "tuple", "no_op", "identity", "with_dependencies",
           "placeholder", "placeholder_with_default"]

_tuple = tuple


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    """A tensor whose value is fed to each ``Session.run`` (``tf.placeholder``).

    Args:
        dtype: the element type: a ``tf.DType`` (``tf.float32``) or its name
            (``"float32"``).
        shape: the static shape a fed value must have: a list with ``None`` for
            a dimension of any size (``[None, 3]``: any number of rows of 3), or
            ``None`` (the default) for any shape at all.
        name: the op's name (default ``"Placeholder"``, made unique in the graph).

    Returns:
        The placeholder's output ``Tensor``. Running anything that depends on
        it without feeding it raises InvalidArgumentError naming the
        placeholder; a fed value is converted to ``dtype`` and must match
        ``shape`` (ValueError otherwise).

    >>> import numpy as np, ref as tf
    >>> with tf.Graph().as_default():
    ...     x = tf.placeholder(tf.float32, [None, 3], name="x")
    ...     print(x)
    ...     with tf.Session() as sess:
    ...         print(sess.run(tf.reduce_sum(x), feed_dict={x: np.ones((2, 3))}))
    Tensor("x:0", shape=(?, 3), dtype=float32)
    6.0
    """
    return apply_op("Placeholder", dtype=dtypes.as_dtype(dtype),
                    shape=None if shape is None else as_shape(shape), name=name or "Placeholder")


def placeholder_with_default(input, shape, name=None):
    """``input`` unless fed; ``shape`` may be less specific than ``input``'s."""
    return apply_op("PlaceholderWithDefault", input=input, shape=as_shape(shape),
                    name=name or "PlaceholderWithDefault")


# composite tensor class -> identity of it (registered from above: ragged_tensor's RaggedTensor)
IDENTITY_COMPOSITES: dict[type, Any] = {}


def identity(input, name=None):
    """A tensor with the same value as ``input`` (a snapshot for variables); a
    composite tensor's components each through an Identity (TF)."""
    composite = IDENTITY_COMPOSITES.get(type(input))
    if composite is not None:
        return composite(input, name)
    if isinstance(input, IndexedSlices):
        return IndexedSlices(identity(input.values, name), input.indices, input.dense_shape)
    if isinstance(input, SparseTensor):  # TF: every component, the result again a SparseTensor
        out = SparseTensor(identity(input.indices, name), identity(input.values, name),
                           identity(input.dense_shape, name))
        out.set_shape(input.shape)
        return out
    return apply_op("Identity", input=input, name=name or "Identity")


def no_op(name=None):
    return apply_op("NoOp", name=name or "NoOp")


def group(*inputs, **kwargs):
    """An op that runs all ``inputs`` (``tf.group``); ``name`` keyword only."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Unknown keyword arguments: {', '.join(kwargs)}")
    ops = []
    for x in nest.flatten(list(inputs)):
        if x is None:
            continue
        if not hasattr(x, "device") and not hasattr(x, "_as_graph_element") and \
                not isinstance(x, (IndexedSlices, SparseTensor)):
            raise TypeError(f"'inputs' should be zero or more (nested) Tensors. Received '{x}' with type "
                            f"'{type(x)}'.")
        if hasattr(x, "_handle") and hasattr(x, "op") and not isinstance(x, (Tensor, Operation)):
            x = x.op  # TF's control_dependencies: a resource variable or an update's result is its op, not a read
        elif hasattr(x, "_as_graph_element") and not isinstance(x, (Tensor, Operation)):
            x = x._as_graph_element()
        if isinstance(x, IndexedSlices):
            x = x.values
        if isinstance(x, SparseTensor):
            ops.extend(t.op for t in (x.indices, x.values, x.dense_shape))
            continue
        ops.append(x.op if isinstance(x, Tensor) else x)
    # TF groups by device: one NoOp (on that device) per device, then a root NoOp over them
    by_device = {}
    for op in ops:
        by_device.setdefault(op.device, []).append(op)
    with name_scope(name, "group_deps", ops) as scope:
        if len(by_device) <= 1:
            dev = next(iter(by_device), None)
            with control_dependencies(ops), device(dev):
                return no_op(name=scope)
        per_device = []
        for dev in sorted(by_device):
            with control_dependencies(by_device[dev]), device(dev):
                per_device.append(no_op())
        with control_dependencies(per_device):
            return no_op(name=scope)


def tuple(tensors, name=None, control_inputs=None):
    """Tensors with the same values as ``tensors``, each available only once all are."""
    with name_scope(name, "tuple", tensors) as scope:
        gating = [t.op if isinstance(t, Tensor) else (t.values.op if isinstance(t, IndexedSlices) else t)
                  for t in tensors if t is not None]
        if control_inputs:
            for c in control_inputs:
                if isinstance(c, Tensor):
                    c = c.op
                elif not isinstance(c, Operation):
                    raise TypeError(f"Control input must be an Operation, a Tensor, or IndexedSlices: {c}")
                gating.append(c)
        gate = group(*gating)
        out = []
        for t in tensors:  # each an Identity named control_dependency[_N], as TF's
            if t is None:
                out.append(None)
            elif isinstance(t, IndexedSlices):
                out.append(IndexedSlices(with_dependencies([gate], t.values), t.indices, t.dense_shape))
            else:
                out.append(with_dependencies([gate], t))
        return out


def with_dependencies(dependencies, output_tensor, name=None):
    """``output_tensor`` computed only after ``dependencies`` have run."""
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        if isinstance(output_tensor, Operation):
            with control_dependencies(dependencies):
                return group(output_tensor, name=scope)
        coloc = output_tensor.values if isinstance(output_tensor, IndexedSlices) else output_tensor
        if not isinstance(coloc, (Tensor, SparseTensor)) and not hasattr(coloc, "op"):
            coloc = convert_to_tensor(coloc)  # TF colocates with the value converted (a Const) ...
        with colocate_with(coloc), control_dependencies(dependencies):
            if not isinstance(output_tensor, (Tensor, IndexedSlices, SparseTensor)):
                output_tensor = convert_to_tensor(output_tensor)  # ... and converts it again under the deps
            return identity(output_tensor, name=scope)


# ---------------------------------------------------------------------------
# while_loop
# ---------------------------------------------------------------------------

def _build_body(graph_name, fn, args, outer):
    """Traces ``fn`` on placeholders for ``args`` in a new FuncGraph."""
    fg = FuncGraph(graph_name, outer)
    with fg.as_default():
        phs = [fg.add_argument(a.dtype.base_dtype, a.shape, f"arg{i}") for i, a in enumerate(args)]
        result = fn(phs)
    return fg, phs, result


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """Repeats ``body`` while ``cond`` is true (``tf.while_loop``, TF1 semantics).

    ``loop_vars`` may be any nested structure; ``shape_invariants`` relaxes the
    static shapes a loop variable may take across iterations.
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    if not nest.is_nested(loop_vars) and not loop_vars:
        raise ValueError("No loop variables provided")
    if shape_invariants is not None:
        shape_invariants = _invariants_of_specs(loop_vars, shape_invariants)
    if not get_default_graph()._building_function and \
            not any(isinstance(v, (SparseTensor, IndexedSlices)) for v in nest.flatten(loop_vars)) and \
            (not back_prop or not modes.control_flow_v2_enabled()):
        # TF 1.x dataflow loop (Enter/Merge/Switch/NextIteration/Exit), differentiated by
        # ref.grad.control_flow_state's gradient loop: the default (compat.v1 with v2 behaviour
        # disabled); a differentiable loop builds a functional While only after
        # tf.enable_control_flow_v2(). TensorArrays in a TF 1.x loop are TensorArrayV3 ones,
        # whose float flows the loop carries (ref.grad.tensor_array_grad).
        return while_loop_v1(cond, body, loop_vars, shape_invariants=shape_invariants,
                             parallel_iterations=parallel_iterations, back_prop=back_prop, swap_memory=swap_memory,
                             name=name, maximum_iterations=maximum_iterations,
                             return_same_structure=return_same_structure)
    if any(isinstance(v, (SparseTensor, IndexedSlices)) for v in nest.flatten(loop_vars)):
        return _composite_while_loop(cond, body, loop_vars, shape_invariants, return_same_structure,
                                     parallel_iterations=parallel_iterations, back_prop=back_prop,
                                     swap_memory=swap_memory, name=name, maximum_iterations=maximum_iterations)
    outer = get_default_graph()
    with name_scope(name, "while", nest.flatten(loop_vars)) as scope:
        arrays = [v if isinstance(v, TensorArray) else None for v in nest.flatten(loop_vars)]
        flat = [convert_to_tensor(_flow(v)) for v in nest.flatten(loop_vars)]
        if shape_invariants is not None:
            nest.assert_same_structure(loop_vars, shape_invariants)
            invariants = [TensorShape([]) if ta is not None else as_shape(s)
                          for ta, s in zip(arrays, nest.flatten(shape_invariants))]
            for v, s in zip(flat, invariants):
                if not s.is_compatible_with(v.shape):
                    raise ValueError(f"The shape invariant specified for {v.name} is not compatible with the "
                                     f"initial shape of the loop variable. It enters the loop with shape "
                                     f"{v.shape}, but the specified shape invariant is {s}.")
        else:
            invariants = [v.shape for v in flat]
        structure = loop_vars
        args = [_Arg(v.dtype, s) for v, s in zip(flat, invariants)]

        def cond_fn(phs):
            return cond(*_as_args(structure, _as_arrays(arrays, phs)))

        def body_fn(phs):
            out = body(*_as_args(structure, _as_arrays(arrays, phs)))
            out = out if nest.is_nested(out) else [out]
            # TF's while_v2: the body's result nests as the loop variables (nest's ValueError)
            nest.assert_same_structure(out, structure if nest.is_nested(structure) else [structure])
            return nest.map_structure(_flow, out)

        cond_g, _, pred = _build_body(scope + "cond", cond_fn, args, outer)
        with cond_g.as_default():
            pred = convert_to_tensor(pred)
            if pred.dtype.base_dtype != dtypes.bool:
                raise TypeError(f"While loop condition must return a bool, got {pred}")
            if pred.shape.ndims not in (None, 0):
                raise ValueError(f"Shape must be rank 0 but is rank {pred.shape.ndims} for the while loop "
                                 f"condition {pred.name}")
        cond_g.outputs = [pred]
        body_g, _, out = _build_body(scope + "body", body_fn, args, outer)
        out_flat = nest.flatten(out)
        if len(out_flat) != len(flat):
            raise ValueError(f"body must return the same structure as loop_vars: {len(flat)} loop variables, "
                             f"body returned {len(out_flat)}")
        with body_g.as_default():
            out_t = [convert_to_tensor(o) for o in out_flat]
        for v, o, s in zip(flat, out_t, invariants):
            if o.dtype.base_dtype != v.dtype.base_dtype:
                raise TypeError(f"Loop variable {v.name} enters the loop with type {v.dtype.base_dtype.name}, "
                                f"but has type {o.dtype.base_dtype.name} after one iteration.")
            if not s.is_compatible_with(o.shape) or (s.ndims is not None and o.shape.ndims is not None and
                                                     not _more_specific(o.shape, s)):
                raise ValueError(f"Input tensor `{v.name}` enters the loop with shape {v.shape}, but has shape "
                                 f"{o.shape} after one iteration. To allow the shape to vary across iterations, "
                                 "use the `shape_invariants` argument of tf.while_loop to specify a less-specific "
                                 "shape.")
        body_g.outputs = out_t
        recorded = _record_random_draws(cond_g, body_g, flat, invariants, back_prop)
        flat_all = flat + [r[1] for r in recorded]
        invariants = invariants + [r[2] for r in recorded]
        inputs = flat_all + cond_g.external_captures + body_g.external_captures
        if maximum_iterations is not None:
            _assert_same_graph(outer, flat[0] if flat else None, maximum_iterations)
            mi = constant_value(convert_to_tensor(maximum_iterations))
            if mi is None:
                raise ValueError("maximum_iterations must be known at graph construction in ref's while_loop")
            maximum_iterations = int(mi)
        specs = [(v.dtype.base_dtype, s) for v, s in zip(flat_all, invariants)]
        with control_dependencies(_control_captures(cond_g, body_g)):
            outs = apply_op("While", input=inputs, cond=cond_g, body=body_g, n_loop_vars=len(flat_all),
                            n_cond_captures=len(cond_g.captures), maximum_iterations=maximum_iterations,
                            parallel_iterations=parallel_iterations, output_specs=specs,
                            accumulate=back_prop and can_accumulate(specs), name=scope)
        outs = list(outs)[:len(flat)]
        if not back_prop:  # TF: no gradient flows through the loop
            outs = [apply_op("StopGradient", input=t) if t.dtype.is_floating or t.dtype.is_complex else t
                    for t in outs]
        outs = _as_arrays(arrays, outs)
    # TF packs the exits like the body's result and unpacks a single exit value.
    packed = nest.pack_sequence_as(out, outs)
    if not return_same_structure and len(outs) == 1:
        return outs[0]
    return packed


def async_noop(name=None):
    """TF's ``while_v2.async_noop``: a functional ``While`` on one bool, False, whose
    cond returns it and whose body passes it on -- it never iterates, and TF runs
    it as an asynchronous kernel, so ops waiting on it (a control input) start on
    other threads. Returns the While op (not in the ``tf`` namespace, as in TF)."""
    outer = get_default_graph()
    with name_scope(name, "async_noop") as scope:
        init = constant(False, name="cond_init_value")
        args = [_Arg(dtypes.bool, TensorShape([]))]
        cond_g, _, pred = _build_body(scope + "cond_graph", lambda phs: phs[0], args, outer)
        cond_g.outputs = [pred]
        body_g, _, out = _build_body(scope + "body_graph", lambda phs: phs[0], args, outer)
        body_g.outputs = [out]
        outs = apply_op("While", input=[init], cond=cond_g, body=body_g, n_loop_vars=1, n_cond_captures=0,
                        maximum_iterations=None, parallel_iterations=10, output_specs=[(dtypes.bool, TensorShape([]))],
                        accumulate=False, name=scope)
    return (outs[0] if isinstance(outs, (list, _tuple)) else outs).op


def _invariants_of_specs(loop_vars, shape_invariants):
    """TF's ``_shape_invariant_to_type_spec`` for TypeSpec invariants (a
    ``tf.TensorSpec`` or ``SparseTensorSpec``: an object with a ``value_type``):
    the spec must describe its loop variable -- its kind, dtype and a
    compatible shape -- else TypeError; it then stands for the variable's
    shape (a SparseTensor's: the shape of its ``dense_shape``, ``[rank]``)."""
    try:
        nest.assert_same_structure(loop_vars, shape_invariants)
    except (ValueError, TypeError):
        return shape_invariants  # the builders below give the structure error

    def one(v, inv):
        kind = getattr(inv, "value_type", None)
        if kind is None or isinstance(inv, TensorShape):
            return inv
        if kind is SparseTensor:
            if not isinstance(v, SparseTensor) or v.values.dtype.base_dtype != inv.dtype.base_dtype:
                raise TypeError(f"TypeSpec {inv!r} is not compatible with {v!r}")
            return TensorShape([inv.shape.ndims])
        if isinstance(v, (SparseTensor, IndexedSlices, TensorArray)) or hasattr(v, "flat_values") or (
                isinstance(v, Tensor) and (v.dtype.base_dtype != inv.dtype.base_dtype or
                                           not inv.shape.is_compatible_with(v.shape))):
            raise TypeError(f"TypeSpec {inv!r} is not compatible with {v!r}")
        return inv.shape

    return nest.map_structure(one, loop_vars, shape_invariants)


# Stateful random ops whose draws the While gradient must see again.
_RANDOM_OPS = ("RandomUniform", "RandomStandardNormal", "TruncatedNormal")


def _record_random_draws(cond_g, body_g, flat, invariants, back_prop):
    """Makes each float draw of a random op in ``body_g`` an extra, trailing
    loop variable (zeros on entry, the draw after each iteration), so that a
    While that keeps its history for the gradient keeps the draws too: the
    gradient then reuses iteration ``k``'s draw (as TF's accumulators do)
    instead of drawing again. Only when every loop variable and draw has a
    fully defined shape (the While can accumulate). Sets
    ``body_g.recorded_draws`` to ``[(loop variable index, draw tensor)]``;
    returns ``[(draw, initial zeros, shape)]``."""
    body_g.recorded_draws = []
    if not back_prop:
        return []
    draws = [t for op in body_g.get_operations() if op.type in _RANDOM_OPS for t in op.outputs
             if t.dtype.base_dtype.is_floating and t.shape.is_fully_defined()]
    specs = [(v.dtype.base_dtype, s) for v, s in zip(flat, invariants)]
    if not draws or not can_accumulate(specs):
        return []
    recorded = []
    n = len(flat)
    for i, t in enumerate(draws):
        zeros = constant(np.zeros(t.shape.as_list(), t.dtype.base_dtype.as_numpy_dtype))
        for fg in (cond_g, body_g):  # the extra argument sits after the loop variables, before the captures
            fg.add_argument(t.dtype.base_dtype, t.shape, f"draw{i}")
            fg.inputs.insert(n + i, fg.inputs.pop())
        body_g.recorded_draws.append((n + i, t))
        recorded.append((t, zeros, t.shape))
    body_g.outputs = list(body_g.outputs) + draws
    return recorded


def _composite_while_loop(cond, body, loop_vars, shape_invariants, return_same_structure, **kwargs):
    """``while_loop`` over SparseTensor / IndexedSlices loop variables, carried
    as their component tensors. As in compat.v1 (TF's type specs), a
    SparseTensor's ``indices``/``values`` may change their number of entries
    (shapes ``[None, rank]``, ``[None]``); its shape invariant is the dense
    shape. An IndexedSlices keeps its ``values`` shape unless its invariant
    (the ``values`` shape) relaxes it."""
    leaves = nest.flatten(loop_vars)
    if shape_invariants is not None:
        nest.assert_same_structure(loop_vars, shape_invariants)
        inv_leaves = nest.flatten(shape_invariants)
    else:
        inv_leaves = [None] * len(leaves)
    comps, comp_inv, kinds = [], [], []
    for v, inv in zip(leaves, inv_leaves):
        if isinstance(v, SparseTensor):
            if inv is None:
                inv = v.get_shape()
            else:  # TF: the invariant is the shape of dense_shape, [rank] (rank None: any)
                inv = as_shape(inv)
                if inv.ndims is not None and inv.ndims != 1:
                    raise ValueError(f"Expected a shape with 1 dimension. Obtained: {inv} which has {inv.ndims} "
                                     "dimensions.")
                inv = unknown_shape(inv.as_list()[0] if inv.ndims == 1 else None)
            rank = inv.ndims
            if not inv.is_compatible_with(v.get_shape()):
                raise ValueError(f"The shape invariant specified for {v.values.name} is not compatible with the "
                                 f"initial shape of the loop variable. It enters the loop with shape "
                                 f"{v.get_shape()}, but the specified shape invariant is {inv}.")
            comps += [v.indices, v.values, v.dense_shape]
            comp_inv += [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]
            kinds.append(("sparse", inv))
        elif isinstance(v, IndexedSlices):
            values_inv = as_shape(inv) if inv is not None else v.values.shape
            parts = [v.values, v.indices] + ([v.dense_shape] if v.dense_shape is not None else [])
            comps += parts
            comp_inv += [values_inv, TensorShape([values_inv.as_list()[0] if values_inv.ndims else None])
                         if inv is not None else v.indices.shape]
            if v.dense_shape is not None:
                comp_inv.append(v.dense_shape.shape)
            kinds.append(("slices", len(parts)))
        else:
            v = v if isinstance(v, TensorArray) else convert_to_tensor(v)
            comps.append(v)
            comp_inv.append(TensorShape([]) if isinstance(v, TensorArray) else
                            (as_shape(inv) if inv is not None else v.shape))
            kinds.append(None)

    def rebuild(flat):
        out, i = [], 0
        for kind in kinds:
            if kind is None:
                out.append(flat[i])
                i += 1
            elif kind[0] == "sparse":
                st = SparseTensor(flat[i], flat[i + 1], flat[i + 2])
                if kind[1].ndims is not None:  # TF rebuilds it from its spec: the invariant is its static shape
                    st.set_shape(kind[1])
                out.append(st)
                i += 3
            else:
                n = kind[1]
                out.append(IndexedSlices(flat[i], flat[i + 1], flat[i + 2] if n == 3 else None))
                i += n
        return out

    def components(result):
        result = result if nest.is_nested(result) else [result]
        try:
            nest.assert_same_structure(loop_vars if nest.is_nested(loop_vars) else [loop_vars], result)
        except (ValueError, TypeError) as e:
            raise ValueError(f"body must return the same structure as loop_vars: {e}") from None
        flat = []
        for kind, r in zip(kinds, nest.flatten(result)):
            if kind is None:
                if isinstance(r, (SparseTensor, IndexedSlices)):
                    raise TypeError(f"Loop variable enters the loop as a Tensor but the body returns {r!r}")
                flat.append(r)
            elif kind[0] == "sparse":
                if not isinstance(r, SparseTensor):
                    raise TypeError(f"Loop variable enters the loop as a SparseTensor but the body returns {r!r}")
                flat += [r.indices, r.values, r.dense_shape]
            else:
                if not isinstance(r, IndexedSlices):
                    raise TypeError(f"Loop variable enters the loop as an IndexedSlices but the body returns {r!r}")
                flat += [r.values, r.indices] + ([r.dense_shape] if kind[1] == 3 else [])
        return flat

    def flat_cond(*flat):
        return cond(*_as_args(loop_vars, rebuild(flat)))

    def flat_body(*flat):
        return components(body(*_as_args(loop_vars, rebuild(flat))))

    outs = while_loop(flat_cond, flat_body, comps, shape_invariants=comp_inv, return_same_structure=True,
                      **kwargs)
    outs = rebuild(list(outs))
    if not return_same_structure and len(outs) == 1:
        return outs[0]
    return nest.pack_sequence_as(loop_vars, outs)


def _control_captures(*graphs):
    """The outer ops the bodies' ``control_dependencies`` named: the functional
    op runs after them (TF: control inputs of the While/If)."""
    out = []
    for g in graphs:
        out.extend(op for op in g.control_captures if op not in out)
    return out


def _flow(v):
    """A TensorArray loop variable travels as its flow (TF's while_loop does the same)."""
    return v.flow if isinstance(v, TensorArray) else v


def _as_arrays(arrays, tensors):
    """``tensors`` with the flows of TensorArray loop variables made TensorArrays again."""
    return [ta._with_flow(t) if ta is not None else t for ta, t in zip(arrays, tensors)]


def can_accumulate(specs) -> bool:
    """Whether a While over loop variables ``specs`` can keep its history for the
    gradient (``ref.ops.control``): every loop variable numeric, bool or a
    variant (a TensorArray's list) with a fully defined shape invariant, so the
    iterations stack. Otherwise the
    gradient recomputes the forward values it needs."""
    return all(((d.is_numpy_compatible and d != dtypes.string and not d.is_ref_dtype and d != dtypes.resource)
                or d == dtypes.variant) and TensorShape(sh).is_fully_defined() for d, sh in specs)


def _more_specific(shape, invariant):
    return all(i is None or s == i for s, i in zip(shape.as_list(), invariant.as_list())) and \
        len(shape) == len(invariant)


class _Arg:
    def __init__(self, dtype, shape):
        self.dtype, self.shape = dtype, shape


def _as_args(structure, phs):
    if nest.is_nested(structure):
        packed = nest.pack_sequence_as(structure, phs)
        if isinstance(structure, (list, _tuple)) and not hasattr(structure, "_fields"):
            return list(packed)
        return [packed]
    return [phs[0]]


# ---------------------------------------------------------------------------
# cond
# ---------------------------------------------------------------------------

def _assert_same_graph(graph, original, item):
    """TF's ValueError for a tensor ``item`` of a graph that neither is nor
    encloses ``graph`` (a tensor made inside another cond branch or loop body)."""
    g = getattr(item, "graph", None)
    if g is None or g is graph:
        return
    inner = graph
    while inner is not None and inner is not g:
        inner = getattr(inner, "outer_graph", None)
    if inner is None:
        raise ValueError(f"{item} must be from the same graph as {original} (graphs are {g} and {graph}).")


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``; only the taken branch runs."""
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    outer = get_default_graph()
    if isinstance(pred, bool):
        raise TypeError("'pred' must not be a Python bool.")
    if not outer._building_function and not modes.control_flow_v2_enabled():
        # TF 1.x: Switch/Merge; in a function body or with control flow v2, If (TF's cond_v2)
        return cond_v1(pred, true_fn, false_fn, strict=strict, name=name)
    return cond_v2(pred, true_fn, false_fn, name=name)


def cond_v2(pred, true_fn, false_fn, name="cond"):
    """TF's ``cond_v2.cond_v2``: the branches as function graphs of one ``If``
    op (and, in a TF1 graph, an Identity of each output), in any mode."""
    outer = get_default_graph()
    with name_scope(name, "cond", [pred]) as scope:
        pred = convert_to_tensor(pred)
        if pred.dtype.base_dtype != dtypes.bool:
            raise TypeError(f"pred must be a bool tensor, got {pred.dtype.name}")
        if pred.shape.ndims not in (None, 0):
            raise ValueError(f"pred must be a scalar, got shape {pred.shape}")
        then_g, _, then_out = _build_body(scope + "true", lambda phs: true_fn(), [], outer)
        else_g, _, else_out = _build_body(scope + "false", lambda phs: false_fn(), [], outer)
        for t in else_g.foreign_captures:  # TF's cond_v2 verify_captures
            g = t.graph
            while g is not None and g is not then_g:
                g = getattr(g, "outer_graph", None)
            if g is then_g:
                raise ValueError(f"Tensor {t.name} in true_fn is accessed from false_fn.")
        arrays = [v if isinstance(v, TensorArray) else None for v in nest.flatten(then_out)]
        then_out, else_out = nest.map_structure(_flow, then_out), nest.map_structure(_flow, else_out)
        if then_out is None or else_out is None:
            raise ValueError("true_fn and false_fn must return a value (use tf.no_op for effects only)")
        try:
            nest.assert_same_structure(then_out, else_out, check_types=True)
        except (ValueError, TypeError) as e:
            _branch_mismatch(then_out, else_out, str(e))
        t_leaves, f_leaves = nest.flatten(then_out), nest.flatten(else_out)
        for i, (a, b) in enumerate(zip(t_leaves, f_leaves)):
            if isinstance(a, SparseTensor) != isinstance(b, SparseTensor):
                raise TypeError(f"Outputs of true_fn and false_fn must both be SparseTensors or neither: "
                                f"{a!r} and {b!r}")
            if isinstance(a, IndexedSlices) != isinstance(b, IndexedSlices):
                raise TypeError(f"Cannot reconcile tf.cond {i}-th outputs:\n  branches returned: {[a, b]}")
        t_flat, f_flat = _expand_sparse(t_leaves), _expand_sparse(f_leaves)
        _match_indices_dtypes(t_leaves, f_leaves, t_flat, f_flat, then_g, else_g)
        specs, t_ts, f_ts = [], [], []
        for a, b in zip(t_flat, f_flat):
            with then_g.as_default():
                a = _as_output(a, then_g)
            with else_g.as_default():
                b = _as_output(b, else_g)
            if a.dtype.base_dtype != b.dtype.base_dtype:
                _branch_mismatch(then_out, else_out, f"{a} and {b} have different types")
            specs.append((a.dtype.base_dtype, a.shape.most_specific_compatible_shape(b.shape)))
            t_ts.append(a)
            f_ts.append(b)
        then_g.outputs, else_g.outputs = t_ts, f_ts
        with control_dependencies(_control_captures(then_g, else_g)):
            outs = apply_op("If", cond=pred, input=then_g.external_captures + else_g.external_captures,
                            then_branch=then_g, else_branch=else_g, n_then_inputs=len(then_g.captures),
                            output_specs=specs, name=scope)
        outs = list(outs) if specs else []
        if not outer._building_function:  # TF's cond_v2 in a TF1 graph: an Identity of each If output
            outs = [apply_op("Identity", input=t) for t in outs]
        outs = _pack_sparse(t_leaves, f_leaves, outs)
    outs = _as_arrays(arrays, outs)  # a TensorArray a branch returns comes back by its flow
    # TF's cond_v2 gives the branches' structure as it is (``strict`` is for TF 1.x's cond)
    return nest.pack_sequence_as(then_out, outs) if nest.is_nested(then_out) else outs[0]


def _branch_mismatch(then_out, else_out, detail):
    """TF's cond_v2 TypeError for branches whose results differ in structure or dtype."""
    raise TypeError("true_fn and false_fn arguments to tf.cond must have the same number, type, and overall "
                    f"structure of return values.\n\ntrue_fn output: {then_out}\nfalse_fn output: {else_out}\n\n"
                    f"Error details:\n{detail}")


def _components(x):
    """A branch output's tensors: a SparseTensor's three, an IndexedSlices' values,
    indices (and dense_shape when it has one), else the output itself."""
    if isinstance(x, SparseTensor):
        return [x.indices, x.values, x.dense_shape]
    if isinstance(x, IndexedSlices):
        return [x.values, x.indices] + ([x.dense_shape] if x.dense_shape is not None else [])
    return [x]


def _expand_sparse(leaves):
    """Branch outputs with each SparseTensor / IndexedSlices replaced by its tensors."""
    return [c for x in leaves for c in _components(x)]


def _match_indices_dtypes(t_leaves, f_leaves, t_flat, f_flat, then_g, else_g):
    """TF's cond_v2: IndexedSlices outputs whose indices differ in dtype get int64
    indices (the int32 ones cast in their branch); their dense shapes must agree
    in being present."""
    i = 0
    for a, b in zip(t_leaves, f_leaves):
        n = len(_components(a))
        if isinstance(a, IndexedSlices):
            if (a.dense_shape is None) != (b.dense_shape is None):
                raise TypeError(f"Cannot reconcile tf.cond outputs: {a} and {b} (one has a dense_shape)")
            ia, ib = t_flat[i + 1], f_flat[i + 1]
            if ia.dtype.base_dtype != ib.dtype.base_dtype:
                for flat, g in ((t_flat, then_g), (f_flat, else_g)):
                    if flat[i + 1].dtype.base_dtype == dtypes.int32:
                        with g.as_default():
                            flat[i + 1] = apply_op("Cast", x=_as_output(flat[i + 1], g), DstT=dtypes.int64)
        i += n


def _pack_sparse(t_leaves, f_leaves, outs):
    """The If's outputs regrouped into SparseTensors / IndexedSlices where the branches returned them."""
    packed, i = [], 0
    for a, b in zip(t_leaves, f_leaves):
        if isinstance(a, SparseTensor):
            sp = SparseTensor(*outs[i:i + 3])
            if a.shape.ndims is not None and b.shape.ndims is not None and a.shape.ndims == b.shape.ndims:
                sp.set_shape(a.shape.most_specific_compatible_shape(b.shape))
            packed.append(sp)
            i += 3
        elif isinstance(a, IndexedSlices):
            n = len(_components(a))
            packed.append(IndexedSlices(outs[i], outs[i + 1], outs[i + 2] if n == 3 else None))
            i += n
        else:
            packed.append(outs[i])
            i += 1
    return packed


def _as_output(x, g):
    """A branch output tensor (an Operation output becomes a control-only constant)."""
    if isinstance(x, Operation):
        g.targets.append(x)
        with control_dependencies([x]):
            return identity(constant(True))
    t = convert_to_tensor(x)
    if t.graph is not g:
        t = g.capture(t)
    return t
