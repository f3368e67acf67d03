"""``tf.custom_gradient``, ``tf.recompute_grad`` and ``tf.grad_pass_through`` (graph mode).

``custom_gradient(f)``: ``f(*x)`` returns ``(y, grad_fn)``. The decorated
function returns ``y`` passed through one ``IdentityN`` over ``y + x + the
variables f uses``, whose gradient is overridden (``gradient_override_map``)
by a rule registered under a fresh name, ``CustomGradient-<uid>``. The rule
gives no gradient to ``y``'s producers, ``grad_fn(*dy)`` to ``x`` and, when
``f`` uses variables, ``grad_fn(*dy, variables=vs)`` returns
``(x_grads, variable_grads)``, one per variable (sorted by name), which reach
the variables through their reads. As TF: keyword arguments raise ValueError
in graph mode; a ``grad_fn`` without a ``variables`` argument for an ``f``
that uses variables raises TypeError; a reference variable created inside
``f`` raises TypeError.
"""
from __future__ import annotations

import functools
import inspect
import itertools

from ref.types import nest
from ref.framework.graph import GraphKeys, Tensor, control_dependencies, get_default_graph
from ref.framework.op_def_library import convert_to_tensor
from ref.grad.registry import RegisterGradient, get_rule
from ref.grad.gradients import UnconnectedGradients, gradients
from ref.graph_ops import array_ops
from ref.graph_ops.control_flow_ops import identity
from ref.graph_ops.resource_variable_ops import ResourceVariable
from ref.graph_ops.variable_scope import get_variable_scope, variable_scope

__all__ = ["custom_gradient", "recompute_grad", "grad_pass_through"]

_uid = itertools.count(1)
_VAR_OPS = ("VariableV2", "VarHandleOp")


def _graph_variables(graph):
    return graph.get_collection(GraphKeys.GLOBAL_VARIABLES) + graph.get_collection(GraphKeys.LOCAL_VARIABLES)


def get_variable_by_name(var_name):
    """The trainable global variable whose op is named ``var_name`` (None when it
    is not trainable; ValueError when there is none, or several)."""
    candidates = [v for v in get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES)
                  if getattr(getattr(v, "op", None), "name", None) == var_name]
    if not candidates:
        raise ValueError(f"Unsuccessful at finding variable {var_name}.")
    candidates = [v for v in candidates if v.trainable]
    if len(candidates) > 1:
        raise ValueError(f"Unsuccessful at finding trainable variable {var_name}. Number of candidates: "
                         f"{len(candidates)}. Candidates: {candidates}")
    return candidates[0] if candidates else None


def _differentiable(op):
    try:
        return get_rule(op.type) is not None
    except LookupError:
        return False


def _get_dependent_variables(input_ops, output_ops):
    """The trainable variables whose variable op lies between ``input_ops`` and
    ``output_ops`` (tensors): a backward walk from the outputs through
    differentiable ops that stops at the inputs (TF's, including the Identity
    it puts on each output)."""
    output_ops = [identity(t) for t in nest.flatten(output_ops)]
    stop = {id(t) for t in nest.flatten(input_ops)}
    seeds = {t.op for t in output_ops}
    result, wave = list(seeds), set(seeds)
    seen = set(seeds)
    while wave:
        new_wave = []
        for op in wave:
            for t in (op.inputs if _differentiable(op) else ()):
                if id(t) not in stop and t.op not in seen:
                    seen.add(t.op)
                    new_wave.append(t.op)
        result.extend(new_wave)
        wave = set(new_wave)
    found = [get_variable_by_name(op.name) for op in result if op not in seeds and op.type in _VAR_OPS]
    return [v for v in found if v is not None]


def _variables_read(graph, first_new_op):
    """Trainable resource variables read by the ops made since ``first_new_op`` (TF's
    variable watcher)."""
    by_handle = {v.handle: v for v in _graph_variables(graph) if isinstance(v, ResourceVariable) and v.trainable}
    found = {}
    for op in graph.get_operations()[first_new_op:]:
        for t in op.inputs:
            if t in by_handle:
                found[id(by_handle[t])] = by_handle[t]
    return list(found.values())


def _accepts_variables(fn):
    try:
        spec = inspect.getfullargspec(fn)
    except TypeError:
        return False
    return "variables" in spec.args or "variables" in spec.kwonlyargs or spec.varkw is not None


def _graph_mode_call(f, args, kwargs):
    if kwargs:
        raise ValueError("The custom_gradient decorator currently supports keywords arguments only when eager "
                         "execution is enabled.")
    name = f"CustomGradient-{next(_uid)}"
    args = nest.map_structure(convert_to_tensor, list(args))
    graph = get_default_graph()
    before = {id(v) for v in _graph_variables(graph)}
    first_new_op = len(graph.get_operations())
    result, grad_fn = f(*args)
    for v in _graph_variables(graph):
        if id(v) not in before and not isinstance(v, ResourceVariable):
            raise TypeError("All variables used by a function wrapped with @custom_gradient must be "
                            "`ResourceVariable`s. Ensure that no `variable_scope` is created with "
                            "`use_resource=False`.")
    flat_args = nest.flatten(args)
    flat_result = [convert_to_tensor(t) for t in nest.flatten(result)]
    n_result = len(flat_result)
    found = {id(v): v for v in _get_dependent_variables(flat_args, flat_result)}
    found.update((id(v), v) for v in _variables_read(graph, first_new_op))
    variables = sorted(found.values(), key=lambda v: v.name)
    with_variables = _accepts_variables(grad_fn)
    if variables and not with_variables:
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument 'variables', since function "
                        f"uses variables: {variables}")

    @RegisterGradient(name)
    def _custom_grad(op, *result_grads):
        dys = list(result_grads[:n_result])
        if variables:
            input_grads, variable_grads = grad_fn(*dys, variables=variables)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from @custom_gradient grad_fn.")
        else:
            input_grads, variable_grads = grad_fn(*dys), []
        input_grads = nest.flatten(input_grads)
        if len(input_grads) != len(flat_args):
            raise ValueError(f"custom_gradient function expected to return {len(flat_args)} gradients but "
                             f"returned {len(input_grads)} instead.")
        return [None] * n_result + list(input_grads) + list(variable_grads)

    originals = flat_result + flat_args + [v.value() for v in variables]
    with graph.gradient_override_map({"IdentityN": name}):
        outs = array_ops.identity_n(originals)
    return nest.pack_sequence_as(result, list(outs[:n_result]))


def custom_gradient(f=None):
    """Decorator: ``f(*x) -> (y, grad_fn)``; the gradient of ``y`` w.r.t. ``x`` is
    ``grad_fn(*dy)`` (``grad_fn(*dy, variables=vs) -> (dx, dvs)`` when ``f`` uses
    variables) instead of the gradient of ``f``'s ops."""
    if f is None:
        return lambda f: custom_gradient(f=f)
    return _Bound(f)


class _Bound:
    """The decorated function; on a class, ``self`` is bound and not an input (TF's Bind)."""

    def __init__(self, f):
        self._f = f
        functools.update_wrapper(self, f)

    def __get__(self, instance, owner):
        return self if instance is None else _Bound(self._f.__get__(instance, owner))

    def __call__(self, *args, **kwargs):
        return _graph_mode_call(self._f, args, kwargs)


def recompute_grad(f):
    """``f`` whose intermediate values are not kept for the gradient: the gradient
    recomputes ``f`` on its inputs (after the incoming gradient is available) and
    differentiates that (unconnected inputs and variables get zeros). As TF, the
    recomputation runs in the variable scope of the call, so ``get_variable``
    inside ``f`` finds the variables of the first run (under a reusing scope)."""

    @custom_gradient
    def inner(*args):
        scope = get_variable_scope()
        result = f(*args)

        def grad_fn(*dresult, variables=None):
            with control_dependencies([d.op if isinstance(d, Tensor) else d for d in dresult]):
                id_args = [identity(a) for a in args]
            with variable_scope(scope):
                recomputed = f(*id_args)
            wrt = id_args + list(variables or [])
            grads = gradients(nest.flatten(recomputed), wrt, grad_ys=list(dresult),
                              unconnected_gradients=UnconnectedGradients.ZERO)
            if variables is not None:
                return grads[:len(id_args)], grads[len(id_args):]
            return grads[:len(id_args)]

        return result, grad_fn

    return functools.wraps(f)(inner)


def grad_pass_through(f):
    """``f`` whose gradient is the identity: ``grad_pass_through(f)(x)`` returns
    ``f(x)``, and the gradient w.r.t. ``x`` is the incoming gradient (e.g. through
    ``v.assign``, which has no gradient)."""

    @custom_gradient
    def _grad_pass_through_op(*args):
        def grad(y, variables=None):
            if variables is not None:
                return y, [None] * len(variables)
            return y

        return f(*args), grad

    return functools.wraps(f)(_grad_pass_through_op)

