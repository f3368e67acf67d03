"""The state ``tf.gradients`` keeps for TF 1.x while loops (TF's
control_flow_state.py): per forward loop a :class:`GradLoopState` holding the
gradient loop (a :class:`~ref.graph_ops.while_v1.WhileContext` named after the
forward one, in the gradients' name scope), the forward loop's iteration
counter (``f_count``) and the gradient loop's (``b_count``, counting down), and
the accumulators: a forward value the gradient needs is pushed on a stack
(``f_acc``: ``StackV2``, ``StackPushV2`` in the forward loop) and popped in the
gradient loop (``StackPopV2``), last iteration first. :class:`ControlFlowState`
maps forward loops to their states for one ``gradients()`` call.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import colocate_with, control_dependencies, get_default_graph
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops.control_flow_v1 import CondContext, switch_ref_or_tensor, get_output_context, in_xla_context, \
    is_containing_context, is_loop_exit, is_switch
from ref.graph_ops.while_v1 import (WhileContext, control_trigger, get_loop_constant_enter, get_while_context,
                                    is_loop_switch, next_iteration, zeros_for)
from ref.grad.control_flow_grad import zeros_like_for_output

__all__ = ["ControlFlowState", "GradLoopState", "maybe_create_control_flow_state"]


def _shape_of(value):
    return apply_op("Shape", input=value, out_type=dtypes.int32, name="Shape")


def _enclosing_while_context(ctxt, stop_ctxt):
    while ctxt is not None and ctxt is not stop_ctxt and not ctxt.IsWhileContext():
        ctxt = ctxt.outer_context
    return ctxt


def _max_size_from_nested_maximum_iterations(value, while_ctxt):
    """The size of an XLA gradient accumulator (a stack) for ``value`` in
    ``while_ctxt``: the product of the ``maximum_iterations`` of the loops from
    ``while_ctxt`` out to the context ``gradients()`` is called in (TF's
    ``_GetMaxSizeFromNestedMaximumIterations``). ValueError when a loop has no
    ``maximum_iterations``, or one defined inside a nested loop or cond whose
    value is not known when the graph is built."""
    curr_ctxt = get_default_graph()._get_control_flow_context()
    curr_name = curr_ctxt.name if curr_ctxt is not None else ""
    max_size = constant(1)
    while while_ctxt not in (None, curr_ctxt):
        max_iter = while_ctxt.maximum_iterations
        if max_iter is None:
            raise ValueError(f"Cannot create a gradient accumulator for tensor '{value.name}' inside XLA while_loop "
                             f"because maximum_iterations was not passed to the tf.while_loop call "
                             f"('{while_ctxt.name}').")
        max_iter_ctxt = max_iter.op._get_control_flow_context()
        if is_containing_context(curr_ctxt, max_iter_ctxt):
            max_size = max_size * max_iter
        else:
            const_max_iter = constant_value(max_iter)
            if const_max_iter is None:
                raise ValueError(
                    f"Cannot create a gradient accumulator for tensor '{value.name}' inside XLA while_loop. "
                    f"maximum_iterations tensor '{max_iter.name}' for while_loop context '{while_ctxt.name}' must "
                    f"be statically known (e.g. a constant value or known shape dimension), or be defined at or "
                    f"outside the while loop context '{curr_name}' (currently defined in "
                    f"'{max_iter_ctxt.name}').")
            max_size = max_size * const_max_iter
        while_ctxt = _enclosing_while_context(while_ctxt.outer_context, curr_ctxt)
    return max_size


class GradLoopState:
    """The gradient of one forward while loop being built."""

    def __init__(self, forward_ctxt, outer_grad_state):
        self._outer_grad_state = outer_grad_state
        self._forward_sync = self._grad_sync = None
        self._history_map = {}
        self._switch_map = {}
        self._unused_exits, self._deferred_exits = [], []
        self._forward_loop_exits = list(forward_ctxt.loop_exits)
        self._pending_exits_count = len(forward_ctxt.loop_exits)
        outer_forward_ctxt = outer_grad_state.forward_context if outer_grad_state else forward_ctxt.outer_context
        if outer_forward_ctxt:
            outer_forward_ctxt.Enter()
        cnt, forward_index = forward_ctxt.AddForwardLoopCounter(outer_grad_state)
        if outer_forward_ctxt:
            outer_forward_ctxt.Exit()
        self._forward_context, self._forward_index = forward_ctxt, forward_index
        kw = dict(maximum_iterations=forward_ctxt.maximum_iterations,
                  parallel_iterations=forward_ctxt.parallel_iterations, back_prop=forward_ctxt.back_prop,
                  swap_memory=forward_ctxt.swap_memory, name=forward_ctxt.name, grad_state=self)
        if outer_grad_state:  # a nested loop: the iteration count of each of its runs is saved
            outer_forward_ctxt.AddName(cnt.name)
            history_cnt = outer_grad_state.AddForwardAccumulator(cnt)
            outer_grad_ctxt = outer_grad_state.grad_context
            outer_grad_ctxt.Enter()
            self._grad_context = WhileContext(**kw)
            real_cnt = outer_grad_state.AddBackpropAccumulatedValue(history_cnt, cnt)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(real_cnt, outer_grad_state)
            outer_grad_ctxt.Exit()
        else:
            if outer_forward_ctxt:
                outer_forward_ctxt.Enter()
            self._grad_context = WhileContext(**kw)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(cnt, outer_grad_state)
            if outer_forward_ctxt:
                outer_forward_ctxt.Exit()

    outer_grad_state = property(lambda self: self._outer_grad_state)
    forward_context = property(lambda self: self._forward_context)
    forward_index = property(lambda self: self._forward_index)
    grad_context = property(lambda self: self._grad_context)
    grad_index = property(lambda self: self._grad_index)
    history_map = property(lambda self: self._history_map)
    switch_map = property(lambda self: self._switch_map)
    unused_exits = property(lambda self: self._unused_exits)
    deferred_exits = property(lambda self: self._deferred_exits)
    forward_loop_exits = property(lambda self: self._forward_loop_exits)

    @property
    def pending_exits_count(self):
        return self._pending_exits_count

    @pending_exits_count.setter
    def pending_exits_count(self, n):
        self._pending_exits_count = n

    @property
    def forward_sync(self):
        """A ControlTrigger the forward index waits for (pushes inside a cond go before it)."""
        if self._forward_sync is None:
            with control_dependencies(None):
                self._forward_sync = control_trigger(name="f_sync")
            self._forward_sync._set_control_flow_context(self._forward_context)
            self._forward_index.op._add_control_input(self._forward_sync)
        return self._forward_sync

    @property
    def grad_sync(self):
        """A ControlTrigger after the pops of an iteration; the gradient index waits for it."""
        if self._grad_sync is None:
            with control_dependencies(None):
                self._grad_sync = control_trigger(name="b_sync")
            self._grad_sync._set_control_flow_context(self._grad_context)
            self._grad_index.op._add_control_input(self._grad_sync)
            if self._grad_context.outer_context:
                self._grad_context.outer_context.AddInnerOp(self._grad_sync)
        return self._grad_sync

    def AddForwardAccumulator(self, value, dead_branch=False):
        """A stack (``f_acc``) every iteration of the forward loop pushes ``value`` on."""
        curr_ctxt = get_default_graph()._get_control_flow_context()
        with control_dependencies(None):
            if curr_ctxt:
                curr_ctxt.Enter()
            with colocate_with(value.op):
                if in_xla_context(value.op):  # XLA: a stack of a size known from the loops' maximum_iterations
                    max_size = _max_size_from_nested_maximum_iterations(value, self.forward_context)
                else:
                    max_size = constant(-1, dtype=dtypes.int32, name="Const")
                acc = apply_op("StackV2", max_size=max_size, elem_type=value.dtype.base_dtype, name="f_acc")
            if curr_ctxt:
                curr_ctxt.Exit()
            enter_acc = self.forward_context.AddValue(acc)
            swap = self.forward_context.swap_memory
            value_ctxt = get_output_context(value.op)
            if value_ctxt is self.forward_context:
                self.forward_context.Enter()
                push = apply_op("StackPushV2", handle=enter_acc, elem=value, swap_memory=swap, name="StackPushV2")
                self.forward_context.Exit()
                self.forward_index.op._add_control_input(push.op)
            else:
                if not isinstance(value_ctxt, CondContext):
                    raise TypeError(f"value_ctxt is not a CondContext: {value_ctxt}")
                ctxt = value_ctxt.outer_context if dead_branch else value_ctxt
                ctxt.Enter()
                push = apply_op("StackPushV2", handle=enter_acc, elem=value, swap_memory=swap, name="StackPushV2")
                ctxt.Exit()
                if dead_branch:
                    push.op._set_control_flow_context(value_ctxt)
                self.forward_sync._add_control_input(push.op)
            push.op._add_control_input(self.forward_index.op.inputs[0].op)
        return acc

    def AddBackpropAccumulatedValue(self, history_value, value, dead_branch=False):
        """The pop (in the gradient loop) of ``history_value``, the stack ``value`` was pushed on."""
        history_ctxt = history_value.op._get_control_flow_context()
        cond_ctxt, value_ctxt = None, value.op._get_control_flow_context()
        while value_ctxt and value_ctxt is not history_ctxt:
            if isinstance(value_ctxt, CondContext):
                cond_ctxt = value_ctxt
                break
            value_ctxt = value_ctxt.outer_context
        with control_dependencies(None):
            self.grad_context.Enter()
            if cond_ctxt:  # a pop guarded by the cond's (saved) predicate
                grad_state, pred = self, None
                while pred is None and grad_state:
                    pred = grad_state.history_map.get(cond_ctxt.pred.name)
                    grad_state = grad_state.outer_grad_state
                if pred is None:
                    pred = cond_ctxt.pred
                branch = (1 - cond_ctxt.branch) if dead_branch else cond_ctxt.branch
                history_value = switch_ref_or_tensor(history_value, pred)[branch]
            pop = apply_op("StackPopV2", handle=history_value, elem_type=value.dtype.base_dtype, name="StackPopV2")
            pop.set_shape(value.shape)
            self.grad_context.Exit()
        if self.grad_context.parallel_iterations > 1:
            self.grad_sync._add_control_input(pop.op)
        return pop

    def GetRealValue(self, value):
        """What the gradient loop reads for forward value ``value``."""
        real_value = self._history_map.get(value.name)
        if real_value is None:
            cur_value, cur_grad_state, history_value = value, self, None
            while True:
                enter_op = get_loop_constant_enter(cur_value)
                if enter_op is not None:  # a loop invariant: the gradient loop reads its outer value
                    cur_value = enter_op.inputs[0]
                    cur_grad_state = cur_grad_state.outer_grad_state
                    if cur_grad_state is None:
                        real_value = self._grad_context.AddValue(cur_value)
                        break
                elif cur_value.op.type == "Const":  # a constant is copied into the gradient loop
                    real_value = constant(constant_value(cur_value), dtype=cur_value.dtype)
                    break
                else:
                    self._grad_context.Exit()
                    history_value = cur_grad_state.AddForwardAccumulator(cur_value)
                    self._grad_context.Enter()
                    break
            if real_value is None:
                real_value = cur_grad_state.AddBackpropAccumulatedValue(history_value, cur_value)
                if cur_grad_state is not self:
                    real_value = self._grad_context.AddValue(real_value)
            self._history_map[value.name] = real_value
        return real_value


class ControlFlowState:
    """The :class:`GradLoopState` of each forward loop of one ``gradients()`` call."""

    def __init__(self):
        self._map = {}

    def GetGradState(self, op, before):
        if before and is_loop_exit(op):
            forward_ctxt = op._get_control_flow_context().outer_context
            forward_ctxt = forward_ctxt.GetWhileContext() if forward_ctxt else None
        else:
            forward_ctxt = get_while_context(op)
        return self._map.get(forward_ctxt) if forward_ctxt else None

    def ProcessUnusedLoopExits(self, pending_count, to_ops_set):
        """The exits of loops none of whose exits lead to ys (they get zero gradients)."""
        loop_exits = []
        for grad_state in self._map.values():
            for y in grad_state.forward_loop_exits:
                if pending_count[y.op] == 0:
                    grad_state.pending_exits_count -= 1
                    if y.op not in to_ops_set:
                        grad_state.unused_exits.append(y)
                    if grad_state.pending_exits_count == 0:
                        loop_exits.extend(grad_state.unused_exits)
            for y in grad_state.forward_context.loop_enters:
                if pending_count[y.op] == 0:
                    pending_count[y.op] = 1
        return loop_exits

    def EnterGradWhileContext(self, op, before):
        grad_state = self.GetGradState(op, before)
        if grad_state:
            grad_state.grad_context.Enter()

    def ExitGradWhileContext(self, op, before):
        grad_state = self.GetGradState(op, before)
        if grad_state:
            grad_state.grad_context.Exit()

    def AddWhileContext(self, op, between_op_list, between_ops):
        forward_ctxt = get_while_context(op)
        if forward_ctxt in self._map:
            return
        outer_forward_ctxt = forward_ctxt.outer_context
        outer_forward_ctxt = outer_forward_ctxt.GetWhileContext() if outer_forward_ctxt else None
        outer_grad_state = self._map.get(outer_forward_ctxt) if outer_forward_ctxt else None
        grad_state = GradLoopState(forward_ctxt, outer_grad_state)
        self._map[forward_ctxt] = grad_state
        for loop_exit in grad_state.forward_loop_exits:  # every exit of a loop takes part
            if loop_exit.op not in between_ops:
                between_ops.add(loop_exit.op)
                between_op_list.append(loop_exit.op)

    def ZerosLikeForExit(self, val):
        """The zero gradient of a loop exit that got none."""
        val_shape = val.shape
        forward_ctxt = val.op._get_control_flow_context()
        outer_forward_ctxt = forward_ctxt.outer_context
        outer_forward_ctxt = outer_forward_ctxt.GetWhileContext() if outer_forward_ctxt else None
        outer_grad_state = self._map.get(outer_forward_ctxt) if outer_forward_ctxt else None
        if outer_grad_state:
            outer_grad_ctxt = outer_grad_state.grad_context
            if val_shape.is_fully_defined():
                outer_grad_ctxt.Enter()
                result = _zeros_const(val_shape, val.dtype)
                outer_grad_ctxt.Exit()
            else:
                forward_ctxt.outer_context.Enter()
                shape = _shape_of(val)
                forward_ctxt.outer_context.Exit()
                history_shape = outer_grad_state.AddForwardAccumulator(shape)
                outer_grad_ctxt.Enter()
                real_shape = outer_grad_state.AddBackpropAccumulatedValue(history_shape, shape)
                result = zeros_for(real_shape, val.dtype)
                outer_grad_ctxt.Exit()
        elif val_shape.is_fully_defined():
            result = _zeros_const(val_shape, val.dtype)
        else:
            result = _zeros_like(val)
        return result

    def ZerosLike(self, op, index):
        """The zero gradient of output ``index`` of ``op`` that got none, in its gradient loop."""
        if is_loop_switch(op):
            return None
        dead_branch = is_switch(op)
        grad_state = self._map.get(get_while_context(op))
        if grad_state is None:
            return zeros_like_for_output(op, index)
        op_ctxt = op._get_control_flow_context()
        val = convert_to_tensor(op.outputs[index], name="tensor")
        shape = val.shape
        if shape.is_fully_defined():
            if val.dtype.base_dtype == dtypes.resource:  # zeros of the variable's shape (TF)
                result = zeros_for(apply_op("VariableShape", input=val, out_type=dtypes.int32, name="VariableShape"),
                                   _variable_dtype(val))
            else:
                result = constant(0, dtype=val.dtype.base_dtype, shape=shape.as_list())
            if dead_branch:
                pred = grad_state.history_map.get(op_ctxt.pred.name)
                result = switch_ref_or_tensor(result, pred)[1 - op_ctxt.branch]
            return result
        if dead_branch:
            pred, branch = op_ctxt.pred, op_ctxt.branch
            op_ctxt.outer_context.Enter()
            val = switch_ref_or_tensor(op.inputs[0], pred)[1 - branch]
            zeros_shape = _shape_of(val)
            op_ctxt.outer_context.Exit()
            val.op._set_control_flow_context(op_ctxt)
            zeros_shape.op._set_control_flow_context(op_ctxt)
        else:
            op_ctxt.Enter()
            zeros_shape = _shape_of(val)
            op_ctxt.Exit()
        grad_state.grad_context.Exit()
        history_zeros_shape = grad_state.AddForwardAccumulator(zeros_shape, dead_branch=dead_branch)
        grad_state.grad_context.Enter()
        shape = grad_state.AddBackpropAccumulatedValue(history_zeros_shape, zeros_shape, dead_branch)
        return zeros_for(shape, val.dtype)

    def PostProcessing(self):
        """A gradient Merge whose back edge was never set (the variable's next value does not
        depend on it) gets zeros for iterations after the first."""
        for grad_state in self._map.values():
            for b_merge in grad_state.switch_map.values():
                if b_merge.op.inputs[0] is not b_merge.op.inputs[1]:
                    continue
                dtype, shape = b_merge.op.inputs[0].dtype, b_merge.op.inputs[0].shape
                if shape.is_fully_defined():
                    grad_state.grad_context.Enter()
                    grad_val = constant(0, dtype=dtype.base_dtype, shape=shape.as_list())
                    next_grad_val = next_iteration(grad_val)
                    grad_state.grad_context.Exit()
                else:
                    outer_grad_ctxt = grad_state.grad_context.outer_context
                    if outer_grad_ctxt:
                        outer_grad_ctxt.Enter()
                    enter_grad = b_merge.op.inputs[0].op.inputs[0]
                    grad_val = zeros_for(_shape_of(enter_grad), dtypes.float32)
                    if outer_grad_ctxt:
                        outer_grad_ctxt.Exit()
                    grad_state.grad_context.Enter()
                    next_grad_val = next_iteration(grad_val)
                    grad_state.grad_context.Exit()
                b_merge.op._update_input(1, next_grad_val)


def _variable_dtype(handle):
    """The dtype of the variable behind resource tensor ``handle`` (through the
    Identity/Enter/Switch ops of loops and conds); float32 when unknown."""
    t = handle
    while t.dtype.base_dtype == dtypes.resource:
        if t.op.type in ("VarHandleOp", "VariableV2"):
            return dtypes.as_dtype(t.op._get_attr("dtype"))
        if t.op.type not in ("Identity", "Enter", "Switch", "Merge") or not t.op.inputs:
            break
        t = t.op.inputs[0]
    return dtypes.float32


def _zeros_const(shape, dtype):
    """TF's ``zeros`` of a static shape: a Const named ``zeros``."""
    return constant(0, dtype=dtype.base_dtype, shape=shape.as_list(), name="zeros")


def _zeros_like(val):
    return apply_op("ZerosLike", x=val, name="zeros_like")


def maybe_create_control_flow_state(between_op_list, between_ops, colocate_gradients_with_ops):
    """A :class:`ControlFlowState` when the ops between hold a loop Exit, else None
    (the loops' other exits are appended to ``between_op_list``)."""
    loop_state = None
    for op in between_op_list:  # grows while we walk it
        if is_loop_exit(op):
            if loop_state is None:
                loop_state = ControlFlowState()
            if colocate_gradients_with_ops:
                with colocate_with(op):
                    loop_state.AddWhileContext(op, between_op_list, between_ops)
            else:
                loop_state.AddWhileContext(op, between_op_list, between_ops)
    return loop_state
