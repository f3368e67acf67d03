"""Predicates over TF 1.x control-flow graphs, under TF's names (TF's
``control_flow_util``): which ops are a ``cond``'s or a loop's ``Switch`` and
``Merge``, which context an op or its outputs belong to, and whether an input
may be read from another while loop.

A ``Switch`` or ``Merge`` is not inside the context it serves, so a ``cond``'s
Switch is told from a loop's by its consumers (all in cond contexts) and a
``cond``'s Merge by its inputs (all produced in cond contexts).
``ENABLE_CONTROL_FLOW_V2`` reads the mode of
:func:`ref.platform.modes.enable_control_flow_v2` each time it is asked for.
"""
from __future__ import annotations

from ref.platform import modes
from ref.framework.graph import register_input_context_check
from ref.graph_ops.control_flow_v1 import (get_output_context, in_xla_context, is_containing_context, is_loop_exit,
                                          is_merge, is_switch)
from ref.graph_ops.while_v1 import get_loop_constant_enter

__all__ = ["EnableControlFlowV2", "IsInXLAContext", "InXlaContext", "GraphOrParentsInXlaContext", "IsInWhileLoop",
           "IsInCond", "IsSwitch", "IsMerge", "IsLoopEnter", "IsLoopExit", "IsCondSwitch", "IsCondMerge",
           "IsLoopSwitch", "IsLoopMerge", "IsLoopConstantEnter", "GetLoopConstantEnter", "GetOutputContext",
           "GetContainingWhileContext", "GetContainingXLAContext", "GetContainingCondContext",
           "IsContainingContext", "OpInContext", "TensorInContext", "CheckInputFromValidContext",
           "GetWhileContext", "enable_control_flow_v2"]

enable_control_flow_v2 = modes.enable_control_flow_v2


def __getattr__(name):
    if name == "ENABLE_CONTROL_FLOW_V2":  # a live view of the mode, as TF's module global is
        return modes.control_flow_v2_enabled()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def EnableControlFlowV2(graph) -> bool:
    """Whether ``graph`` builds functional ``While``/``If``: v2 mode, or a function body."""
    return modes.control_flow_v2_enabled() or bool(getattr(graph, "building_function", False))


def IsSwitch(op) -> bool:
    return is_switch(op)


def IsMerge(op) -> bool:
    return is_merge(op)


def IsLoopEnter(op) -> bool:
    return op.type in ("Enter", "RefEnter")


def IsLoopExit(op) -> bool:
    return is_loop_exit(op)


def IsLoopConstantEnter(op) -> bool:
    return IsLoopEnter(op) and bool(op._get_attr("is_constant"))


def GetLoopConstantEnter(value):
    """The constant ``Enter`` that ``value`` reads through Identity/Switch ops, or None."""
    return get_loop_constant_enter(value)


def GetOutputContext(op):
    """The context of ``op``'s outputs (an ``Exit``'s: the loop's outer context)."""
    return get_output_context(op)


def _first_ancestor(ctxt, wanted, stop_ctxt=None):
    while ctxt:
        if wanted(ctxt) or ctxt is stop_ctxt:
            return ctxt
        ctxt = ctxt.outer_context
    return None


def GetContainingWhileContext(ctxt, stop_ctxt=None):
    """``ctxt`` if a while loop, else its innermost enclosing loop (or ``stop_ctxt`` met first), else None."""
    return _first_ancestor(ctxt, lambda c: c.IsWhileContext(), stop_ctxt)


def GetContainingCondContext(ctxt):
    """``ctxt`` if a cond branch, else its innermost enclosing cond branch, else None."""
    return _first_ancestor(ctxt, lambda c: c.IsCondContext())


def GetContainingXLAContext(ctxt):
    """``ctxt`` if an XLA context, else its innermost enclosing XLA context, else None."""
    return _first_ancestor(ctxt, lambda c: c.IsXLAContext())


def IsInWhileLoop(op) -> bool:
    return GetContainingWhileContext(op._get_control_flow_context()) is not None


def IsInCond(op) -> bool:
    return GetContainingCondContext(op._get_control_flow_context()) is not None


def IsInXLAContext(op) -> bool:
    return in_xla_context(op)


def InXlaContext(graph) -> bool:
    return GetContainingXLAContext(graph._get_control_flow_context()) is not None


def GraphOrParentsInXlaContext(graph) -> bool:
    while graph is not None:
        if InXlaContext(graph):
            return True
        graph = getattr(graph, "outer_graph", None)
    return False


def IsCondSwitch(op) -> bool:
    """A ``Switch`` all of whose consumers sit in cond branches (an ``Enter``: in its loop's outer context)."""
    if not IsSwitch(op) or not op.outputs:
        return False
    for out in op.outputs:
        for consumer in out.consumers():
            ctxt = consumer._get_control_flow_context()
            if IsLoopEnter(consumer):
                ctxt = ctxt.outer_context
            if ctxt is None or not ctxt.IsCondContext():
                return False
    return True


def IsCondMerge(op) -> bool:
    """A ``Merge`` all of whose inputs are produced in cond branches."""
    if not IsMerge(op) or not op.inputs:
        return False
    for x in op.inputs:
        ctxt = get_output_context(x.op)
        if ctxt is None or not ctxt.IsCondContext():
            return False
    return True


def IsLoopSwitch(op) -> bool:
    if not IsSwitch(op):
        return False
    ctxt = op._get_control_flow_context()
    return ctxt is not None and ctxt.IsWhileContext() and not IsCondSwitch(op)


def IsLoopMerge(op) -> bool:
    if not IsMerge(op):
        return False
    ctxt = op._get_control_flow_context()
    return ctxt is not None and ctxt.IsWhileContext() and not IsCondMerge(op)


def IsContainingContext(ctxt, maybe_containing_ctxt) -> bool:
    """Whether ``maybe_containing_ctxt`` is ``ctxt`` or encloses it (None encloses everything)."""
    return is_containing_context(ctxt, maybe_containing_ctxt)


def OpInContext(op, ctxt) -> bool:
    return is_containing_context(op._get_control_flow_context(), ctxt)


def TensorInContext(tensor, ctxt) -> bool:
    return OpInContext(tensor.op, ctxt)


def GetWhileContext(op):
    """The while loop ``op`` is built in (through cond branches), or None."""
    ctxt = op._get_control_flow_context()
    return ctxt.GetWhileContext() if ctxt else None


def _grad_forward(ctxt):
    state = ctxt.grad_state if ctxt is not None else None
    return state.forward_context if state is not None else None


def CheckInputFromValidContext(op, input_op) -> None:
    """Raises ValueError when ``op`` may not read ``input_op``'s output: an op outside any
    loop reading a loop's tensor, or an op in one loop reading another loop's (a gradient
    loop may read its forward loop and the loops around or inside it)."""
    op_ctxt = op._get_control_flow_context()
    input_ctxt = get_output_context(input_op)
    if not input_ctxt or op_ctxt is input_ctxt:
        return
    while_ctxt = GetContainingWhileContext(op_ctxt)
    input_while = GetContainingWhileContext(input_ctxt)
    if while_ctxt is None:
        # outside any loop: fine unless the input is in one (Enter and Switch are built outside on purpose)
        if input_while is None or IsLoopEnter(op) or IsSwitch(op):
            return
        raise ValueError(f"Cannot use '{input_op.name}' as input to '{op.name}' because '{input_op.name}' is in "
                         "a while loop. See info log for more details.")
    forward = _grad_forward(while_ctxt)
    input_forward = _grad_forward(input_while)
    if (IsContainingContext(while_ctxt, input_while)
            or (forward is not None and (IsContainingContext(forward, input_while)
                                         or forward is input_while.outer_context))
            or input_forward is while_ctxt
            or (input_forward is not None and _grad_forward(input_forward) is while_ctxt)):
        return
    raise ValueError(f"Cannot use '{input_op.name}' as input to '{op.name}' because they are in different while "
                     "loops. See info log for more details.")


register_input_context_check(CheckInputFromValidContext)
