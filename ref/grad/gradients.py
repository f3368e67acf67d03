"""``tf.gradients``: symbolic differentiation that adds ops to the graph.

Seeds: 001_05ea92376fdb369e.txt / 004_96791d6311aaba71.txt, "Gradient
Computation": "constructs symbolic partial derivatives of sum of ys w.r.t. x
in xs"; "grad_ys is a list of tensors of the same length as ys that holds the
initial gradients for each y in ys. When grad_ys is None, we fill in a tensor
of '1's of the shape of y for each y in ys."

The walk: find the ops between ``xs`` and ``ys``; seed each y with its
grad_y; visit ops in reverse creation order (creation order is topological),
aggregate each output's gradient contributions (``AggregationMethod``), call
the op's rule, and hand its input gradients to the producers.
"""
from __future__ import annotations

import enum

from ref.types import dtypes
from ref.framework.graph import (IndexedSlices, Operation, Tensor, apply_op, colocate_with, control_dependencies,
                       convert_to_tensor, get_default_graph, name_scope)
from ref.grad.registry import get_rule
from ref.graph_ops.array_ops import zeros_like, fill, shape
from ref.graph_ops.control_flow_ops import tuple as tf_tuple
from ref.graph_ops import array_ops, math_ops


class AggregationMethod:
    """How gradient contributions to one tensor are combined.

    ADD_N: all at once with ``add_n`` (needs all inputs ready). DEFAULT is ADD_N.
    EXPERIMENTAL_TREE: pairwise sums. EXPERIMENTAL_ACCUMULATE_N: ``AccumulateNV2``
    semantics (here the same single ``AddN``-style sum, computed by accumulate_n).
    """

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients(enum.Enum):
    """What to return for an x not connected to ys: None, or zeros."""

    NONE = "none"
    ZERO = "zero"


def _is_backpropagatable(t) -> bool:
    d = t.dtype.base_dtype
    return d.is_floating or d.is_complex or d in (dtypes.resource, dtypes.variant)


def _as_x(x):
    if isinstance(x, Tensor):
        return x
    if hasattr(x, "_ref") and callable(x._ref):
        return x._ref()
    return convert_to_tensor(x)


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False, gate_gradients=False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """Symbolic partial derivatives of ``sum(ys)`` with respect to each x in ``xs``."""
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    if grad_ys is not None and not isinstance(grad_ys, (list, tuple)):
        grad_ys = [grad_ys]
    if grad_ys is not None and len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    if aggregation_method not in (None, AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                                  AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        raise ValueError(f"Invalid aggregation_method specified {aggregation_method}.")
    try:
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}") from None
    stop_gradients = [] if stop_gradients is None else (
        list(stop_gradients) if isinstance(stop_gradients, (list, tuple)) else [stop_gradients])

    ys = [y if isinstance(y, Tensor) else convert_to_tensor(y) for y in ys]
    xs = [_as_x(x) for x in xs]
    graph = ys[0].graph if ys else get_default_graph()
    with graph.as_default(), name_scope(name, "gradients", ys + xs) as grad_scope:
        stop_ts = {convert_to_tensor(s) if not isinstance(s, Tensor) else s for s in stop_gradients}
        stop_ops = {t.op for t in stop_ts}

        # Ops reachable backwards from ys (stopping at stop_gradients) and forwards from xs.
        back = set()
        stack = [y.op for y in ys]
        while stack:
            op = stack.pop()
            if op in back:
                continue
            back.add(op)
            if op in stop_ops:
                continue
            stack.extend(t.op for t in op._inputs)
        x_set = set(xs)
        between = set()
        for op in sorted(back, key=lambda o: o._id):
            if any(o in x_set for o in op._outputs) or (op not in stop_ops and any(
                    (t.op in between or t in x_set) for t in op._inputs)):
                between.add(op)

        grads = {}  # Tensor -> list of gradient contributions

        for i, y in enumerate(ys):
            if grad_ys is not None and grad_ys[i] is not None:
                gy = grad_ys[i]
                if not isinstance(gy, (Tensor, IndexedSlices)):
                    gy = convert_to_tensor(gy, dtype=y.dtype.base_dtype)
                if gy.dtype.base_dtype != y.dtype.base_dtype:
                    raise TypeError(f"Gradient type {gy.dtype.base_dtype.name} generated for y {y.name} of type "
                                    f"{y.dtype.base_dtype.name}")
            else:
                with colocate_with(y.op) if colocate_gradients_with_ops else _null():
                    y_shape = shape(y)
                    with name_scope(f"grad_ys_{i}") as n:  # TF's ones(shape(y), name="grad_ys_i")
                        gy = fill(y_shape, convert_to_tensor(1, dtype=y.dtype.base_dtype, name="Const"), name=n)
            grads.setdefault(y, []).append(gy)

        for op in sorted(between, key=lambda o: o._id, reverse=True):
            if op in stop_ops and not any(o in x_set for o in op._outputs):
                continue
            out_grads = [_aggregate(grads.get(t), aggregation_method, t) for t in op._outputs]
            for t, g in zip(op._outputs, out_grads):
                grads[t] = [g] if g is not None else []
            if all(g is None for g in out_grads):
                continue
            if op in stop_ops or (all(t in x_set for t in op._outputs) and not any(
                    t.op in between or t in x_set for t in op._inputs)):
                continue
            if not any(t.op in between or t in x_set for t in op._inputs):
                continue
            rule_type = op._attrs.get("_gradient_op_type", op.type)
            if op.type in ("Placeholder", "Const", "VariableV2", "VarHandleOp"):
                continue
            try:
                rule = get_rule(rule_type)
            except LookupError:
                raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type}). "
                                  "In general every operation must have an associated `@tf.RegisterGradient` "
                                  "for correct autodiff.") from None
            if rule is None:
                continue
            for i, (t, g) in enumerate(zip(op._outputs, out_grads)):
                if g is None and _is_backpropagatable(t):
                    out_grads[i] = zeros_like(t)
            with name_scope(op.name + "_grad"), (colocate_with(op) if colocate_gradients_with_ops else _null()):
                in_grads = rule(op, *out_grads)
                in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
                if len(in_grads) != len(op._inputs):
                    raise ValueError(f"Num gradients {len(in_grads)} generated for op {op.name} do not match num "
                                     f"inputs {len(op._inputs)}")
                if gate_gradients and sum(g is not None for g in in_grads) > 1:
                    in_grads = tf_tuple(in_grads)
            for t, g in zip(op._inputs, in_grads):
                if g is None or not _is_backpropagatable(t):
                    continue
                if isinstance(g, Tensor) and t.dtype.base_dtype != dtypes.resource and \
                        g.dtype.base_dtype != t.dtype.base_dtype:
                    raise TypeError(f"Gradient type {g.dtype.base_dtype.name} generated for op {op.name} input "
                                    f"{t.name} of type {t.dtype.base_dtype.name}")
                grads.setdefault(t, []).append(g)

        result = []
        for x in xs:
            g = _aggregate(grads.get(x), aggregation_method, x)
            if g is None and unconnected_gradients == UnconnectedGradients.ZERO:
                g = zeros_like(x) if x.dtype.base_dtype != dtypes.resource else _resource_zeros(x)
            result.append(g)
    return result


def _resource_zeros(handle):
    """Zeros shaped like the variable behind ``handle`` (TF's zeros for an unconnected resource)."""
    t = handle
    while t.op.type != "VarHandleOp" and t.op.inputs:
        t = t.op.inputs[0]
    if t.op.type != "VarHandleOp":
        return None
    dtype = t.op.get_attr("dtype")
    return fill(apply_op("VariableShape", input=handle), convert_to_tensor(0, dtype=dtype))


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def _aggregate(contribs, method, tensor):
    """One gradient from a list of contributions (dense, IndexedSlices, or both)."""
    if not contribs:
        return None
    contribs = [c for c in contribs if c is not None]
    if not contribs:
        return None
    if len(contribs) == 1:
        return contribs[0]
    if all(isinstance(c, IndexedSlices) for c in contribs):
        return IndexedSlices(array_ops.concat([c.values for c in contribs], 0),
                             array_ops.concat([c.indices for c in contribs], 0), contribs[0].dense_shape)
    dense = [convert_to_tensor(c) if isinstance(c, IndexedSlices) else c for c in contribs]
    if method == AggregationMethod.EXPERIMENTAL_TREE:
        total = dense[0]
        for d in dense[1:]:
            total = math_ops.add(total, d)
        return total
    if method == AggregationMethod.EXPERIMENTAL_ACCUMULATE_N:
        return math_ops.accumulate_n(dense)
    return math_ops.add_n(dense)


def stop_gradient(input, name=None):
    """Passes ``input`` through while blocking gradient contributions."""
    return apply_op("StopGradient", input=input, name=name or "StopGradient")


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """Hessians of ``sum(ys)`` with respect to each x (built from gradients of gradients)."""
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    out = []
    with name_scope(name, "hessians", xs):
        for x, g in zip(xs, gradients(ys, xs)):
            if g is None:
                out.append(None)
                continue
            flat = array_ops.reshape(g, [-1])
            n = flat.shape[0]
            rows = [gradients(flat[i], x)[0] for i in range(n)]
            out.append(array_ops.reshape(array_ops.stack(rows), x.shape.concatenate(x.shape)))
    return out
