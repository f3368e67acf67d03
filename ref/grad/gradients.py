"""``tf.gradients``: symbolic differentiation that adds ops to the graph.

TF docs, "Training", "Gradient
Computation": "constructs symbolic partial derivatives of sum of ys w.r.t. x
in xs"; "grad_ys is a list of tensors of the same length as ys that holds the
initial gradients for each y in ys. When grad_ys is None, we fill in a tensor
of '1's of the shape of y for each y in ys."

The walk (TF's): find the ops between ``xs`` and ``ys``; seed each y with its
grad_y; visit ops breadth-first from ys, each once its consumers between have
handed it their gradients; aggregate each output's gradient contributions
(``AggregationMethod``), call the op's rule, and hand its input gradients to
the producers.
"""
from __future__ import annotations

import collections
import collections.abc
import enum

from ref.types import dtypes
from ref.framework.graph import Tensor, colocate_with, device, get_default_graph, name_scope
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.grad._util import var_handle_op
from ref.grad.registry import get_rule
from ref.grad import function_grad
from ref.grad.function_grad import function_of, function_rule
from ref.types.shapes import as_shape, dimension_value
from ref.graph_ops.array_ops import zeros_like, fill, shape
from ref.graph_ops.control_flow_ops import identity, tuple as tf_tuple, while_loop
from ref.graph_ops.tensor_array_ops import TensorArray
from ref.graph_ops import array_ops, math_ops
from ref.grad.control_flow_grad import wants_zeros, zeros_like_for_output
from ref.grad.control_flow_state import maybe_create_control_flow_state
from ref.graph_ops.control_flow_v1 import is_loop_exit, is_switch
from ref.graph_ops.while_v1 import WhileContext, is_loop_switch


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


_TRAINABLE = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128, dtypes.resource,
              dtypes.variant, dtypes.bfloat16)


def _is_backpropagatable(t) -> bool:
    """TF's ``backprop_util.IsTrainable``: the dtypes that change infinitesimally
    (not the integers, not the float8s)."""
    return t.dtype.base_dtype in _TRAINABLE


def _as_x(x):
    if isinstance(x, Tensor):
        return x
    if hasattr(x, "_ref") and callable(x._ref):
        return x._ref()
    return convert_to_tensor(x)


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _default_grad_ys(grad_ys, ys, colocate):
    """Fills in ``ones`` for missing grad_ys; checks the given ones (TF's messages)."""
    if len(grad_ys) != len(ys):
        raise ValueError(f"Length mismatch. Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    out = []
    for i, (y, gy) in enumerate(zip(ys, grad_ys)):
        if gy is not None and not isinstance(gy, (Tensor, IndexedSlices)):
            gy = convert_to_tensor(gy, name=f"grad_y_{i}")  # TF converts them as a list named grad_y
        with colocate_with(y.op) if colocate else _null():
            yd = y.dtype.base_dtype
            if gy is None:
                if yd.is_complex:
                    raise TypeError(f"Gradients of complex tensors ({y}) must set grad_ys (y.dtype = {yd.name})")
                y_shape = shape(y)
                with name_scope(f"grad_ys_{i}") as n:  # TF's ones(shape(y), name="grad_ys_i")
                    out.append(fill(y_shape, convert_to_tensor(1, dtype=yd, name="Const"), name=n))
                continue
            gd = gy.dtype.base_dtype
            if yd.is_floating or yd.is_integer:
                if not (gd.is_floating or gd.is_integer):
                    raise TypeError(f"Gradient type {gd.name} generated for real or integer-valued tensor {y} with "
                                    f"type {yd.name} must be real or integer")
            elif yd.is_complex:
                if not gd.is_complex:
                    raise TypeError(f"Gradient type {gd.name} generated for complex-valued tensor {y} with type "
                                    f"{yd.name} must be real")
            elif yd == dtypes.resource:
                if gd == dtypes.resource:
                    raise TypeError(f"Input gradient {gy} for resource tensor {y} should not be a resource")
            elif yd != dtypes.variant:
                raise TypeError(f"Tensor {y} with type {yd.name} must be numeric to obtain a default gradient")
            # a named copy inside the gradients scope, as TF makes
            if isinstance(gy, IndexedSlices):
                out.append(IndexedSlices(identity(gy.values, name=f"grad_ys_{i}_values"),
                                         identity(gy.indices, name=f"grad_ys_{i}_indices"),
                                         None if gy.dense_shape is None else
                                         identity(gy.dense_shape, name=f"grad_ys_{i}_shape")))
            else:
                out.append(identity(gy, name=f"grad_ys_{i}"))
    return out


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False, gate_gradients=False,
              aggregation_method=None, stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
    """Symbolic partial derivatives of ``sum(ys)`` with respect to each x in ``xs``
    (the walk: :func:`gradients_helper`)."""
    return gradients_helper(ys, xs, grad_ys, name, colocate_gradients_with_ops, gate_gradients, aggregation_method,
                            stop_gradients, unconnected_gradients)


def gradients_helper(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False, gate_gradients=False,
                     aggregation_method=None, stop_gradients=None, unconnected_gradients=UnconnectedGradients.NONE,
                     src_graph=None, optimize_identity_n=False):
    """Symbolic partial derivatives of ``sum(ys)`` with respect to each x in ``xs``.

    TF's walk: the ops between ``xs`` and ``ys`` (reached forwards from xs through
    float/complex/resource tensors, and backwards from ys) are visited
    breadth-first from ys, each once all its consumers between have handed it
    their gradients; an op's output gradients are aggregated (``aggregation_method``)
    when it is visited. ``stop_gradients`` ops, and xs' ops whose inputs are not
    between, pass no gradient on. ``gate_gradients`` groups each op's input
    gradients with ``tuple``; ``colocate_gradients_with_ops`` builds each op's
    gradient colocated with it.

    TF's ``gradients_util._GradientsHelper`` (which ``tf.gradients`` calls): ``src_graph``
    is the graph to differentiate in (by default the ys' graph); ``optimize_identity_n``
    treats ``IdentityN`` as the pass-through it is, its outputs without a gradient getting
    none (not zeros), so an input reaches only the ys its own output leads to."""
    if isinstance(ys, collections.abc.MappingView):  # TF's nest turns a dict view into a list
        ys = list(ys)
    ys, xs = _as_list(ys), _as_list(xs)
    try:
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: '{unconnected_gradients}'") from None
    stop_gradients = [] if stop_gradients is None else _as_list(stop_gradients)
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    graph = src_graph if src_graph is not None else (
        ys[0].graph if ys and isinstance(ys[0], Tensor) else get_default_graph())
    with graph.as_default(), name_scope(name, "gradients", ys + xs) as grad_scope:  # noqa: F841
        ys = [y if isinstance(y, Tensor) else convert_to_tensor(y, name="y") for y in ys]
        xs = [_as_x(x) for x in xs]
        x_set = set(xs)
        grad_ys = _default_grad_ys(grad_ys, ys, colocate_gradients_with_ops)
        to_ops, from_ops = [y.op for y in ys], [x.op for x in xs]
        stop_ops = {convert_to_tensor(s).op for s in stop_gradients}

        inputs, consumers = _closure_crossing(graph, x_set)
        # ops reached forwards from xs through differentiable tensors
        reached, queue = set(), collections.deque(from_ops)
        while queue:
            op = queue.popleft()
            if op not in reached:
                reached.add(op)
                for t in op._outputs:
                    if _is_backpropagatable(t):
                        queue.extend(consumers(t))
        reachable_to_ops = {op for op in to_ops if op in reached}
        # ... and backwards from ys: the ops between, and how many consumers each waits for
        between, queue = set(), collections.deque(to_ops)
        between_list = []
        while queue:
            op = queue.popleft()
            if op in reached:
                between.add(op)
                between_list.append(op)
                reached.discard(op)
                queue.extend(t.op for t in inputs(op))
        # TF 1.x while loops between: their gradient loops' state (every exit of such a loop is between)
        loop_state = maybe_create_control_flow_state(between_list, between, colocate_gradients_with_ops)
        pending = collections.defaultdict(int)
        for op in between_list:
            for t in inputs(op):
                if t.op in between:
                    pending[t.op] += 1
        grads = {}  # Tensor -> list of gradient contributions
        for y, gy in zip(ys, grad_ys):
            grads.setdefault(y, []).append(gy)
        queue, queued = collections.deque(), set()
        for op in to_ops:
            if pending[op] == 0 and op not in queued and op in reachable_to_ops:
                queued.add(op)
                queue.append(op)
        if loop_state:  # exits of loops whose other exits lead nowhere get zeros
            for y in loop_state.ProcessUnusedLoopExits(pending, queued):
                if _is_backpropagatable(y):
                    grads.setdefault(y, []).append(loop_state.ZerosLikeForExit(y))
                    queue.append(y.op)
        # xs' ops with nothing between above them, and the stop_gradients ops, pass nothing on
        for op in from_ops:
            if not any(pending[t.op] > 0 for t in inputs(op)):
                stop_ops.add(op)
        valid = [AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                 AggregationMethod.EXPERIMENTAL_ACCUMULATE_N]
        while queue:
            op = queue.popleft()
            if aggregation_method is not None and aggregation_method not in valid:  # TF checks per visited op
                raise ValueError(f"Invalid `aggregation_method` specified {aggregation_method}. Accepted values "
                                 f"are {valid}.")
            with colocate_with(op) if colocate_gradients_with_ops else _null():
                if loop_state:
                    loop_state.EnterGradWhileContext(op, before=True)
                out_grads = []
                for t in op._outputs:
                    g = _aggregate(grads.get(t), aggregation_method, t)
                    grads[t] = [] if g is None else [g]
                    out_grads.append(g)
                if loop_state:
                    loop_state.ExitGradWhileContext(op, before=True)
                has_out_grads = any(g is not None for g in out_grads)
                rule = None
                if has_out_grads and op not in stop_ops:
                    try:
                        rule = (function_rule(op, gradients) if function_of(op) is not None
                                else get_rule(op._attrs.get("_gradient_op_type", op.type)))
                    except LookupError:
                        raise LookupError(f"No gradient defined for operation'{op.name}' (op type: {op.type}). In "
                                          "general every operation must have an associated `@tf.RegisterGradient` "
                                          "for correct autodiff, which this op is lacking. If you want to pretend "
                                          "this operation is a constant in your program, you may insert "
                                          "`tf.stop_gradient`.") from None
                if loop_state:
                    loop_state.EnterGradWhileContext(op, before=False)
                # TF: a gradient taken inside a loop body may not reach back through the loop's own
                # Switch (the initial value of a loop variable)
                ctxt = op._get_control_flow_context() if is_switch(op) else None
                if isinstance(ctxt, WhileContext) and ctxt is get_default_graph()._get_control_flow_context():
                    _no_grad_wrt_initial_loop_value(op, from_ops, inputs)
                if rule is not None:
                    # an IdentityN passes each gradient through: with optimize_identity_n its
                    # outputs without one get none
                    pass_through = optimize_identity_n and op.type == "IdentityN"
                    for i, (t, g) in enumerate(zip(op._outputs, out_grads) if not pass_through else ()):
                        if g is None and _is_backpropagatable(t) and loop_state:
                            out_grads[i] = loop_state.ZerosLike(op, i)
                        elif g is None and _is_backpropagatable(t) and wants_zeros(op, i):
                            out_grads[i] = zeros_like_for_output(op, i)  # a cond's Switch: zeros on its side
                    # TF: the gradient's ops record ``op`` as their ``_original_op``
                    with name_scope(op.name + "_grad"), op.graph._original_op(op):
                        in_grads = rule(op, *out_grads)
                        in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
                        if len(in_grads) != len(op._inputs):
                            raise ValueError(f"Num gradients {len(in_grads)} generated for op {op.name} "
                                             f"do not match num inputs {len(op._inputs)}")
                        if gate_gradients and sum(g is not None for g in in_grads) > 1:
                            with device(None), colocate_with(None, ignore_existing=True):
                                in_grads = tf_tuple(in_grads)
                else:
                    in_grads = [None] * len(op._inputs)
                for i, (t, g) in enumerate(zip(inputs(op), in_grads)):
                    if g is None:
                        continue
                    if isinstance(g, Tensor) and t.dtype.base_dtype != dtypes.resource:
                        try:
                            g.set_shape(t.shape)
                        except ValueError:
                            raise ValueError("Incompatible shapes between op input and calculated input gradient. "
                                             f"Forward operation: {op.name}. Input index: {i}. Original input "
                                             f"shape: {t.shape}. Calculated input gradient shape: {g.shape}") from None
                    grads.setdefault(t, []).append(g)
                if loop_state:
                    loop_state.ExitGradWhileContext(op, before=False)
            _update_pending_and_enqueue_ready(grads, op, inputs(op), queue, pending, loop_state)
        if loop_state:
            loop_state.PostProcessing()

        result = [_aggregate(grads.get(x), aggregation_method, x) for x in xs]
    if unconnected_gradients == UnconnectedGradients.ZERO:  # TF: made after leaving the gradients scope
        result = [(zeros_like(x) if x.dtype.base_dtype != dtypes.resource else _resource_zeros(x)) if g is None else g
                  for g, x in zip(result, xs)]
    return result


_GradientsHelper = gradients_helper  # TF's spelling (gradients_util._GradientsHelper)


def _no_grad_wrt_initial_loop_value(op, from_ops, inputs):
    """TF's ValueError, naming the x nearest above ``op``."""
    target, queue, seen = None, collections.deque([op]), set()
    while queue:
        cur = queue.popleft()
        if cur in seen:
            continue
        seen.add(cur)
        if cur in from_ops:
            target = cur
            break
        queue.extend(t.op for t in inputs(cur))
    raise ValueError(f"Cannot compute gradient inside while loop with respect to op '{target.name}'. We do not "
                     "support taking the gradient wrt or through the initial value of a loop variable. Gradients "
                     "can be computed through loop invariants or wrt the input parameters to the loop body.")


def _closure_crossing(graph, x_set):
    """TF's ``_Inputs``/``_Consumers`` for a gradient built in a function body
    (``graph``, e.g. a ``While`` body under control flow v2) with respect to
    tensors of an enclosing graph: an op's input that is the placeholder of a
    captured outer tensor counts as that outer tensor (unless the placeholder
    itself is an x), and an outer tensor's consumers include those of the
    placeholders standing for it in ``graph`` and the graphs around it, so the
    walk crosses the closure boundary. Returns ``(inputs(op), consumers(t))``."""
    chain = []
    g = graph
    while getattr(g, "_building_function", False) and hasattr(g, "captures"):
        chain.append(g)
        g = g.outer_graph
    if not chain:
        return (lambda op: op._inputs), (lambda t: t.consumers())
    in_chain = set(map(id, chain))
    outer_of, placeholders_of = {}, collections.defaultdict(list)
    for fg in chain:
        for outer, ph in fg.captures:
            outer_of[ph] = outer
            placeholders_of[outer].append(ph)
    cache = {}

    def inputs(op):
        if id(op.graph) not in in_chain:
            return op._inputs
        got = cache.get(op)
        if got is None:
            got = []
            for t in op._inputs:
                while t not in x_set and t in outer_of:
                    t = outer_of[t]
                got.append(t)
            cache[op] = got
        return got

    def consumers(t):
        out = list(t.consumers())
        for ph in placeholders_of.get(t, ()):
            out.extend(consumers(ph))
        return out

    return inputs, consumers


def _has_any_grad(grads, op):
    return any(g is not None for t in op._outputs for g in grads.get(t, ()))


def _update_pending_and_enqueue_ready(grads, op, op_inputs, queue, pending, loop_state):
    """Counts ``op`` off its inputs' producers and queues those now ready (TF's
    _UpdatePendingAndEnqueueReady): a loop Switch is ready at each gradient it
    gets (the Exit's first, then the body's); a loop's exits wait for each other."""
    for t in op_inputs:
        x = t.op
        pending[x] -= 1
        ready = pending[x] == 0
        if loop_state and not ready:
            ready = pending[x] > 0 and is_loop_switch(x)
        if not ready:
            continue
        if loop_state and is_loop_exit(x):
            grad_state = loop_state.GetGradState(x, before=False)
            grad_state.deferred_exits.append(t)
            grad_state.pending_exits_count -= 1
            if grad_state.pending_exits_count == 0:
                has_not_none_grad = False
                for y in grad_state.deferred_exits:
                    if _has_any_grad(grads, y.op):
                        has_not_none_grad = True
                        queue.append(y.op)
                    else:
                        grad_state.unused_exits.append(y)
                for y in grad_state.unused_exits:
                    if has_not_none_grad and _is_backpropagatable(y):
                        grads.setdefault(y, []).append(loop_state.ZerosLikeForExit(y))
                    queue.append(y.op)
        else:
            queue.append(x)


def _resource_zeros(handle):
    """Zeros shaped like the variable behind ``handle`` (TF's zeros for an unconnected
    resource); None when ``handle`` is not a variable's."""
    op = var_handle_op(handle)
    if op is None:
        return None
    dtype, var_shape = op._get_attr("dtype"), op._get_attr("shape")
    if var_shape is not None and as_shape(var_shape).is_fully_defined():
        return array_ops.zeros(as_shape(var_shape).as_list(), dtype=dtype)
    return fill(apply_op("VariableShape", input=handle), convert_to_tensor(0, dtype=dtype))


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def _aggregate(contribs, method, tensor):
    """One gradient from a list of contributions (TF's ``_AggregatedGrads``): dense
    ones are summed (``AddN`` per device, then over devices; pairwise ``AddN`` for
    the EXPERIMENTAL methods); IndexedSlices are concatenated; a mix is summed
    densely."""
    contribs = [c for c in (contribs or ()) if c is not None]
    if not contribs:
        return None
    if len(contribs) == 1:
        return contribs[0]
    if all(isinstance(c, Tensor) for c in contribs):
        if method in (AggregationMethod.EXPERIMENTAL_TREE, AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
            with name_scope(tensor.op.name + "_gradient_sum"):
                total = contribs[0]
                for c in contribs[1:]:
                    total = math_ops.add_n([total, c])
            return total
        by_device = {}
        for c in contribs:
            by_device.setdefault(c.device, []).append(c)
        summands = []
        for dev in sorted(by_device):
            group = by_device[dev]
            with colocate_with(group[0].op, ignore_existing=True):
                summands.append(group[0] if len(group) == 1 else math_ops.add_n(group))
        return summands[0] if len(summands) == 1 else math_ops.add_n(summands)
    if any(isinstance(c, Tensor) for c in contribs):
        return math_ops.add_n(contribs)
    if len({c.indices.dtype.base_dtype for c in contribs}) > 1:  # TF casts mixed index types to int64
        contribs = [IndexedSlices(c.values, math_ops.cast(c.indices, dtypes.int64), c.dense_shape)
                    for c in contribs]
    return IndexedSlices(array_ops.concat([c.values for c in contribs], 0),
                         array_ops.concat([c.indices for c in contribs], 0), contribs[0].dense_shape)


def stop_gradient(input, name=None):
    """Passes ``input`` through while blocking gradient contributions."""
    return apply_op("StopGradient", input=input, name=name or "StopGradient")


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """Hessians of ``sum(ys)`` with respect to each x, as TF builds them: the
    first derivative flattened, then a ``while_loop`` over its elements that
    writes the gradient of element j with respect to x into a TensorArray,
    stacked and reshaped to ``shape(x) + shape(x)`` (so an x of unknown size
    works). ValueError "None values not supported." where TF's: an x that ``ys``
    does not depend on, or a gradient that does not depend on x."""
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    kwargs = {"colocate_gradients_with_ops": colocate_gradients_with_ops, "gate_gradients": gate_gradients,
              "aggregation_method": aggregation_method}
    out = []  # no name scope: TF builds these ops under the caller's (``name`` is unused, as in TF)
    for x, g in zip(xs, gradients(ys, xs, **kwargs)):
        if g is None:
            raise ValueError("None values not supported.")
        flat = array_ops.reshape(g, [-1])
        n = array_ops.size(x)

        def body(j, result, flat=flat, x=x):
            following = j + 1  # built first, as TF's tuple does
            row = gradients(flat[j], x, **kwargs)[0]
            if row is None:
                raise ValueError("None values not supported.")
            return following, result.write(j, row)
        _, rows = while_loop(lambda j, _: j < n, body,
                             [array_ops.constant(0, dtypes.int32), TensorArray(x.dtype, n)])
        x_shape = array_ops.shape(x)
        out.append(array_ops.reshape(rows.stack(), array_ops.concat((x_shape, x_shape), 0)))
    return out


def _hessian_vector_product(ys, xs, v):
    """H v for the Hessian H of sum(ys) with respect to ``xs``, by differentiating twice:
    grad(sum(grad(ys, x) * stop_gradient(v)), x) (TF's ``gradients_impl._hessian_vector_product``)."""
    if len(v) != len(xs):
        raise ValueError("xs and v must have the same length.")
    grads = gradients(ys, xs)
    assert len(grads) == len(xs)
    products = [math_ops.multiply(g, array_ops.stop_gradient(u)) for g, u in zip(grads, v) if g is not None]
    return gradients(products, xs)


function_grad.GRADIENTS.append(gradients)
