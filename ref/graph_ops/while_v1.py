"""TF 1.x ``while_loop`` as dataflow, built node for node as TF's
``WhileContext.BuildLoop`` builds it: per loop variable an ``Enter`` into the
loop's frame, a ``Merge`` of it with the ``NextIteration`` of the body's
result, a ``Switch`` on the ``LoopCond`` of the predicate, an ``Identity`` of
the Switch's true side for the body and an ``Exit`` of its false side. An
outer tensor the loop reads enters through a constant ``Enter``
(``while/add/Enter``). The context is kept in the ``while_context`` collection
and written to a MetaGraphDef as a ``WhileContextDef``.

The Session runs these loops with frames (:mod:`ref.session.interpreter.frames`).
"""
from __future__ import annotations

from ref.types import dtypes, nest
from ref.types.shapes import TensorShape, as_shape
from ref.framework.graph import (GraphKeys, Tensor, control_dependencies, get_collection, get_collection_ref,
                                 get_default_graph, name_scope, prepend_name_scope, register_proto_function,
                                 strip_name_scope, add_to_collection)
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.graph_ops.tensor_array_ops import TensorArray
from ref.graph_ops import control_flow_v1
from ref.graph_ops.control_flow_v1 import (ControlFlowContext, as_tensor_or_ref, for_components, get_output_context,
                                           is_loop_exit, merge, switch, switch_ref_or_tensor)
from ref.protos import control_flow_pb2

__all__ = ["WhileContext", "while_loop_v1", "get_while_context", "get_loop_constant_enter", "is_loop_switch",
           "control_trigger", "next_iteration", "exit_"]


def get_while_context(op):
    """The while loop ``op`` is in, or None (TF's control_flow_util.GetWhileContext)."""
    ctxt = op._get_control_flow_context()
    return ctxt.GetWhileContext() if ctxt is not None else None


def is_loop_switch(op) -> bool:
    """A Switch of a while loop's variable."""
    if op.type not in ("Switch", "RefSwitch"):
        return False
    ctxt = op._get_control_flow_context()
    return ctxt is not None and ctxt.IsWhileContext()


def get_loop_constant_enter(value):
    """The constant Enter ``value`` comes from through Identity and Switch ops, or None."""
    op = value.op
    while op.type in ("Switch", "RefSwitch", "Identity", "RefIdentity"):  # TF's id_ops: a cond's Switch too
        op = op.inputs[0].op
    return op if _is_loop_constant_enter(op) else None


def control_trigger(name=None):
    return apply_op("ControlTrigger", name=name or "ControlTrigger")


def zeros_for(shape, dtype):
    """``zeros`` of a shape tensor (TF's array_ops.zeros: ``zeros/Const`` filled as ``zeros``)."""
    with name_scope(None, "zeros", [shape]) as scope:
        return apply_op("Fill", dims=shape, value=constant(0, dtype=dtype.base_dtype, name="Const"), name=scope)


def next_iteration(data, name=None):
    """``data`` handed to the next iteration (TF's ``_NextIteration``; each component of a composite)."""
    return for_components(lambda t: _forward("NextIteration", "RefNextIteration", t, name), as_tensor_or_ref(data))


def exit_(data, name=None):
    """``data`` handed to the parent frame (TF's ``exit``; each component of a composite)."""
    return for_components(lambda t: _forward("Exit", "RefExit", t, name), as_tensor_or_ref(data))



def _is_loop_constant_enter(op) -> bool:
    return op.type in ("Enter", "RefEnter") and op._get_attr("is_constant")


def enter_frame(tensor, frame_name, is_constant=False, parallel_iterations=10, use_ref=True, use_input_shape=True,
           name=None):
    """``tensor`` made available in frame ``frame_name`` (TF's ``_Enter``; a variable's
    reference through ``RefEnter`` when ``use_ref``; each component of a composite)."""
    tensor = as_tensor_or_ref(tensor)
    if not isinstance(tensor, Tensor):
        return for_components(lambda t: enter_frame(t, frame_name, is_constant, parallel_iterations, use_ref,
                                                    use_input_shape), tensor)
    op_type = "RefEnter" if tensor.dtype.is_ref_dtype and use_ref else "Enter"
    result = apply_op(op_type, data=tensor, frame_name=frame_name, is_constant=is_constant,
                      parallel_iterations=parallel_iterations, name=name or op_type)
    if use_input_shape:
        result.set_shape(tensor.shape)
    return result


def _forward(op_type, ref_type, tensor, name):
    tensor = tensor if isinstance(tensor, Tensor) else convert_to_tensor(tensor)
    op_type = ref_type if tensor.dtype.is_ref_dtype else op_type
    return apply_op(op_type, data=tensor, name=name or op_type)


def _identity(tensor, name=None):
    if tensor.dtype.is_ref_dtype:
        return apply_op("RefIdentity", input=tensor, name=name or "RefIdentity")
    return apply_op("Identity", input=tensor, name=name or "Identity")


def _shape_less_than_or_equal(shape1, shape2):
    if shape2.ndims is None:
        return True
    if shape1.ndims != shape2.ndims:
        return False
    return all(d2 is None or d1 == d2 for d1, d2 in zip(shape1.as_list(), shape2.as_list()))


def _enforce_shape_invariant(merge_var, next_var):
    m_shape, n_shape = merge_var.shape, next_var.shape
    if not _shape_less_than_or_equal(n_shape, m_shape):
        input_t = merge_var.op.inputs[0].op.inputs[0]
        raise ValueError(f"Input tensor '{input_t.name}' enters the loop with shape {input_t.shape}, but has shape "
                         f"{n_shape} after one iteration. To allow the shape to vary across iterations, use the "
                         "`shape_invariants` argument of tf.while_loop to specify a less-specific shape.")


def add_next_and_back_edge(m, v, enforce_shape_invariant=True):
    """``NextIteration(v)`` made the second input of Merge ``m``: the back edge."""
    v = _forward("NextIteration", "RefNextIteration", convert_to_tensor(v), None)
    if enforce_shape_invariant:
        _enforce_shape_invariant(m, v)
    m.op._update_input(1, v)
    return v


class WhileContext(ControlFlowContext):
    """A while loop being built or imported (TF's WhileContext)."""

    def __init__(self, maximum_iterations=None, parallel_iterations=10, back_prop=True, swap_memory=False,
                 name="while_context", grad_state=None, context_def=None, import_scope=None):
        if context_def:
            self._init_from_proto(context_def, import_scope=import_scope)
        else:
            ControlFlowContext.__init__(self)
            if not isinstance(parallel_iterations, int) or parallel_iterations <= 0:
                raise ValueError(f"'parallel_iterations' must be a positive integer: {parallel_iterations}")
            self._name = get_default_graph().unique_name(name)
            self._maximum_iterations = maximum_iterations
            self._parallel_iterations = parallel_iterations
            self._back_prop = back_prop
            self._swap_memory = swap_memory
            self._pivot_for_pred = self._pivot_for_body = self._pivot = None
            self._loop_exits, self._loop_enters = [], []
        self._grad_state = grad_state

    def _init_from_proto(self, context_def, import_scope=None):
        g = get_default_graph()

        def element(name):
            return g.as_graph_element(prepend_name_scope(name, import_scope))

        self._name = prepend_name_scope(context_def.context_name, import_scope)
        self._maximum_iterations = element(context_def.maximum_iterations_name) \
            if context_def.maximum_iterations_name else None
        self._parallel_iterations = context_def.parallel_iterations
        self._back_prop = context_def.back_prop
        self._swap_memory = context_def.swap_memory
        self._pivot_for_pred = element(context_def.pivot_for_pred_name)
        self._pivot_for_body = element(context_def.pivot_for_body_name)
        self._pivot = element(context_def.pivot_name)
        self._loop_exits = [element(n) for n in context_def.loop_exit_names]
        self._loop_enters = [element(n) for n in context_def.loop_enter_names]
        ControlFlowContext.__init__(self, values_def=context_def.values_def, import_scope=import_scope)
        if import_scope:  # the frame is named after the context
            for tensor_name in self._values:
                op = g.as_graph_element(tensor_name).op
                if op.type in ("Enter", "RefEnter"):
                    op._attrs["frame_name"] = self.name

    maximum_iterations = property(lambda self: self._maximum_iterations)
    parallel_iterations = property(lambda self: self._parallel_iterations)
    back_prop = property(lambda self: self._back_prop)
    swap_memory = property(lambda self: self._swap_memory)
    pivot = property(lambda self: self._pivot)
    loop_enters = property(lambda self: self._loop_enters)
    loop_exits = property(lambda self: self._loop_exits)
    grad_state = property(lambda self: self._grad_state)

    def to_proto(self, export_scope=None):
        if export_scope is not None and not self.name.startswith(export_scope):
            return None
        d = control_flow_pb2.WhileContextDef()
        d.context_name = strip_name_scope(self.name, export_scope)
        d.parallel_iterations = self._parallel_iterations
        if self._maximum_iterations is not None:
            d.maximum_iterations_name = strip_name_scope(self._maximum_iterations.name, export_scope)
        d.back_prop = self._back_prop
        d.swap_memory = self._swap_memory
        d.pivot_for_pred_name = strip_name_scope(self._pivot_for_pred.name, export_scope)
        d.pivot_for_body_name = strip_name_scope(self._pivot_for_body.name, export_scope)
        d.pivot_name = strip_name_scope(self._pivot.name, export_scope)
        d.loop_exit_names.extend(strip_name_scope(x.name, export_scope) for x in self._loop_exits)
        d.loop_enter_names.extend(strip_name_scope(x.name, export_scope) for x in self._loop_enters)
        d.values_def.MergeFrom(self._to_values_def(export_scope=export_scope))
        for nested in self._nested_contexts:
            nested.to_control_flow_context_def(d.nested_contexts.add())
        return d

    def to_control_flow_context_def(self, context_def, export_scope=None):
        context_def.while_ctxt.CopyFrom(self.to_proto(export_scope=export_scope))

    @staticmethod
    def from_proto(context_def, import_scope=None):
        ret = WhileContext(context_def=context_def, import_scope=import_scope)
        ret.Enter()
        for nested_def in context_def.nested_contexts:
            control_flow_v1.from_control_flow_context_def(nested_def, import_scope=import_scope)
        ret.Exit()
        return ret

    def GetWhileContext(self):
        return self

    def IsWhileContext(self):
        return True

    def GetControlPivot(self):
        return self._pivot_for_body if self._pivot_for_body is not None else self._pivot_for_pred

    def AddValue(self, val):
        """The tensor this loop reads for outer tensor ``val``: a constant Enter."""
        result = val
        if val.name not in self._values and val.op._get_control_flow_context() is not self:
            self._values.add(val.name)
            # in a gradient loop, a value of its forward loop is that value's history (a stack pop)
            grad_ctxt = get_default_graph()._get_control_flow_context()
            grad_ctxt = grad_ctxt.GetWhileContext() if grad_ctxt is not None else None
            if grad_ctxt is not None and grad_ctxt.grad_state is not None:
                forward_ctxt = get_while_context(val.op)
                if is_loop_exit(val.op):
                    forward_ctxt = forward_ctxt.outer_context
                    forward_ctxt = forward_ctxt.GetWhileContext() if forward_ctxt is not None else None
                if forward_ctxt is grad_ctxt.grad_state.forward_context:
                    real_val = grad_ctxt.grad_state.GetRealValue(val)
                    self._external_values[val.name] = real_val
                    return real_val
            if self._outer_context is not None:
                result = self._outer_context.AddValue(val)
            with control_dependencies(None):
                enter = enter_frame(result, self._name, is_constant=True, parallel_iterations=self._parallel_iterations)
                enter.graph.prevent_feeding(enter)
                if self._outer_context:
                    self._outer_context.AddInnerOp(enter.op)
            self._fix_control_inputs_and_context([enter])
            self._values.add(enter.name)
            self._external_values[val.name] = enter
            result = enter
        else:
            actual = self._external_values.get(val.name)
            if actual is not None:
                result = actual
        return result

    def AddOp(self, op):
        # a Shape/Size/Rank of a forward value built in its gradient loop moves to the forward loop,
        # which saves the (small) result rather than the tensor
        # (not under XLA: a popped value is no longer the constant XLA needs)
        if op.type in ("Shape", "Size", "Rank") and not control_flow_v1.in_xla_context(op):
            grad_ctxt = get_default_graph()._get_control_flow_context()
            grad_ctxt = grad_ctxt.GetWhileContext() if grad_ctxt is not None else None
            if grad_ctxt is not None and grad_ctxt.grad_state is not None and \
                    get_while_context(op.inputs[0].op) is grad_ctxt.grad_state.forward_context:
                op_input_ctxt = op.inputs[0].op._get_control_flow_context()
                op._set_control_flow_context(op_input_ctxt)
                op_input_ctxt._AddOpInternal(op)
                return
        self._AddOpInternal(op)

    def _AddOpInternal(self, op):
        if not op.inputs:
            control_inputs, external_inputs = self._RemoveExternalControlEdges(op)
            if not control_inputs:
                op._add_control_input(self.GetControlPivot().op)
        else:
            for index, x in enumerate(op.inputs):
                real_x = self.AddValue(x)
                if real_x is not x:
                    op._update_input(index, real_x)
            _, external_inputs = self._RemoveExternalControlEdges(op)
            self._maybe_add_control_dependency(op)
        self._values.update(x.name for x in op.outputs)
        if external_inputs:  # an outer op a loop op waits for: an Identity of it inside the loop
            with control_dependencies(None):
                self.Enter()
                external_inputs = [_identity(x.outputs[0]).op for x in external_inputs if x.outputs]
                self.Exit()
            op._add_control_inputs(external_inputs)
        if self._outer_context or not is_loop_exit(op):
            op.graph.prevent_fetching(op)
            for x in op.outputs:
                op.graph.prevent_feeding(x)
        if self._outer_context:
            self._outer_context.AddInnerOp(op)

    def _maybe_add_control_dependency(self, op):
        """An op reading only loop invariants waits for the loop's pivot."""
        if op.control_inputs:
            return
        if op.type == "SymbolicGradient" or all(_is_loop_constant_enter(x.op) for x in op.inputs):
            op._add_control_input(self.GetControlPivot().op)

    def _fix_control_inputs_and_context(self, enters):
        graph = get_default_graph()
        for x in enters:
            inp = x.op.inputs[0]
            keep = []
            for op in graph._current_control_inputs([inp]):
                op_ctxt = get_output_context(op)
                outer = self.outer_context
                outer_while = outer.GetWhileContext() if outer is not None else None
                ok = True
                while outer is not op_ctxt:
                    if outer is None or outer is outer_while:
                        ok = False
                        break
                    outer = outer.outer_context
                if ok:
                    keep.append(op)
            x.op._set_control_flow_context(self)
            x.op._add_control_inputs(keep)
            for level in graph._tls().control_stack:
                level.created.add(x.op)


    # -- the loops and accumulators TF 1.x's while-loop gradient adds (TF's WhileContext) --

    def AddForwardLoopCounter(self, outer_grad_state):
        """A counter of this loop's iterations (``f_count``); returns its Exit
        and its NextIteration (the forward index)."""
        n = constant(0, name="f_count")
        if outer_grad_state is not None:  # order it after the outer loop's counter step
            n.op._add_control_input(outer_grad_state.forward_index.op.inputs[0].op)
        self.Enter()
        self.AddName(n.name)
        enter_n = enter_frame(n, self._name, is_constant=False, parallel_iterations=self._parallel_iterations,
                         name="f_count")
        self.loop_enters.append(enter_n)
        merge_n = merge([enter_n, enter_n])[0]
        switch_n = switch(merge_n, self._pivot)
        index = apply_op("AddV2", x=switch_n[1], y=1, name="Add")
        next_n = _forward("NextIteration", "RefNextIteration", index, None)
        merge_n.op._update_input(1, next_n)
        total_iterations = _forward("Exit", "RefExit", switch_n[0], "f_count")
        self.loop_exits.append(total_iterations)
        self.ExitResult([total_iterations])
        self.Exit()
        return total_iterations, next_n

    def AddBackpropLoopCounter(self, count, outer_grad_state):
        """This (gradient) loop's predicate: it runs ``count`` times (``b_count``)."""
        one = constant(1, name="b_count")
        self.Enter()
        self.AddName(count.name)
        enter_count = enter_frame(count, self._name, is_constant=False, parallel_iterations=self._parallel_iterations,
                             name="b_count")
        self.loop_enters.append(enter_count)
        merge_count = merge([enter_count, enter_count])[0]
        self._pivot_for_pred = merge_count
        pred = apply_op("GreaterEqual", x=merge_count, y=one, name="GreaterEqual")
        self._pivot = apply_op("LoopCond", input=pred, name="b_count")
        switch_count = switch(merge_count, self._pivot)
        index = apply_op("Sub", x=switch_count[1], y=one, name="Sub")
        self._pivot_for_body = index
        next_count = _forward("NextIteration", "RefNextIteration", index, None)
        merge_count.op._update_input(1, next_count)
        final_zero = _forward("Exit", "RefExit", switch_count[0], "b_count")
        self.loop_exits.append(final_zero)
        if outer_grad_state is not None:  # the pops of one run of an inner loop before the next run's
            outer_grad_state.grad_sync._add_control_input(final_zero.op)
        self.ExitResult([final_zero])
        self.Exit()
        return next_count

    def AddBackpropAccumulator(self, op, grad):
        """The sum over iterations of ``grad``, the gradient of loop invariant
        ``op`` (a constant Enter), as a loop variable of this gradient loop (``b_acc``)."""
        self.Exit()
        shape = grad.shape
        if grad.dtype.base_dtype == dtypes.variant:  # a TensorList's gradient: zeros like the list, AddN to sum
            return self._add_variant_accumulator(op, grad)
        if shape.is_fully_defined():
            if self.outer_context:
                self.outer_context.Enter()
            acc = constant(0, dtype=grad.dtype, shape=shape.as_list(), name="b_acc")
            if self.outer_context:
                self.outer_context.Exit()
        else:
            value = op.inputs[0]
            if isinstance(self.outer_context, WhileContext) and self.outer_context.grad_state is not None:
                forward_ctxt = self.grad_state.forward_context
                forward_ctxt.outer_context.Enter()
                zeros_shape = apply_op("Shape", input=value, out_type=dtypes.int32, name="Shape")
                forward_ctxt.outer_context.Exit()
                outer_grad_state = self.grad_state.outer_grad_state
                history_zeros_shape = outer_grad_state.AddForwardAccumulator(zeros_shape)
                self.outer_context.Enter()
                real_shape = outer_grad_state.AddBackpropAccumulatedValue(history_zeros_shape, zeros_shape)
                acc = zeros_for(real_shape, grad.dtype)
                self.outer_context.Exit()
            else:
                if self.outer_context:
                    self.outer_context.Enter()
                zeros_shape = apply_op("Shape", input=value, out_type=dtypes.int32, name="Shape")
                acc = zeros_for(zeros_shape, grad.dtype)
                if self.outer_context:
                    self.outer_context.Exit()
        self.Enter()
        self.AddName(acc.name)
        enter_acc = enter_frame(acc, self._name, is_constant=False, parallel_iterations=self._parallel_iterations,
                           name="b_acc")
        self.loop_enters.append(enter_acc)
        merge_acc = merge([enter_acc, enter_acc], name="b_acc")[0]
        switch_acc_false, switch_acc_true = switch(merge_acc, self._pivot)
        add_acc = apply_op("AddV2", x=switch_acc_true, y=grad, name="Add")
        next_acc = _forward("NextIteration", "RefNextIteration", add_acc, None)
        merge_acc.op._update_input(1, next_acc)
        result_acc = _forward("Exit", "RefExit", switch_acc_false, "b_acc")
        self.loop_exits.append(result_acc)
        self.ExitResult([result_acc])
        return result_acc

    def AddBackpropIndexedSlicesAccumulator(self, op, grad):
        """``AddBackpropAccumulator`` for an IndexedSlices gradient (a gather
        from a loop invariant, as an embedding lookup in the body): the
        iterations' slices concatenated, from one zero row at index 0; the
        dense shape the maximum seen. Returns the IndexedSlices of the exits."""
        values, indices, dense_shape = grad.values, grad.indices, grad.dense_shape
        self.Exit()
        if self.outer_context:
            self.outer_context.Enter()
        if values.shape.is_fully_defined():
            values_acc = constant(0, dtype=values.dtype.base_dtype, shape=[1] + values.shape.as_list()[1:],
                                  name="b_acc")
        else:
            inner = apply_op("Shape", input=op.inputs[0], out_type=dtypes.int32, name="Shape")
            with name_scope(None, "strided_slice") as scope:  # TF: shape[1:]
                rows = apply_op("StridedSlice", input=inner, begin=constant([1], name="stack"),
                                end=constant([0], name="stack_1"), strides=constant([1], name="stack_2"),
                                end_mask=1, name=scope)
            shape = apply_op("ConcatV2", values=[[1], rows], axis=0, name="concat")
            values_acc = zeros_for(shape, values.dtype)
        indices_acc = constant([0], dtype=indices.dtype.base_dtype)
        shape_acc = None
        if dense_shape is not None:
            if dense_shape.shape.is_fully_defined():
                shape_acc = constant(0, dtype=dense_shape.dtype.base_dtype, shape=dense_shape.shape.as_list())
            else:
                shape_acc = apply_op("ZerosLike", x=apply_op("Shape", input=op.inputs[0],
                                                              out_type=dense_shape.dtype.base_dtype, name="Shape"),
                                     name="zeros_like")
        if self.outer_context:
            self.outer_context.Exit()
        self.Enter()
        init_acc = [indices_acc, values_acc] + ([shape_acc] if shape_acc is not None else [])
        for x in init_acc:
            self.AddName(x.name)
        enter_acc = [enter_frame(x, self._name, is_constant=False, parallel_iterations=self._parallel_iterations,
                                 use_input_shape=False, name="b_acc") for x in init_acc]
        enter_acc[0].set_shape([None])
        if values_acc.shape.ndims is not None:
            enter_acc[1].set_shape([None] + values_acc.shape.as_list()[1:])
        self.loop_enters.extend(enter_acc)
        merge_acc = [merge([x, x], name="b_acc")[0] for x in enter_acc]
        switch_acc = [switch(x, self._pivot) for x in merge_acc]
        acc = [apply_op("ConcatV2", values=[sw[1], new], axis=0, name="concat")
               for sw, new in zip(switch_acc[:2], [indices, values])]
        if shape_acc is not None:
            acc.append(apply_op("Maximum", x=dense_shape, y=switch_acc[2][1], name="Maximum"))
        for m, x in zip(merge_acc, acc):
            m.op._update_input(1, _forward("NextIteration", "RefNextIteration", x, None))
        exit_acc = [_forward("Exit", "RefExit", sw[0], "b_acc") for sw in switch_acc]
        self.loop_exits.extend(exit_acc)
        self.ExitResult(exit_acc)
        return IndexedSlices(exit_acc[1], exit_acc[0], exit_acc[2] if shape_acc is not None else None)

    def _add_variant_accumulator(self, op, grad):
        """``AddBackpropAccumulator`` for a ``variant`` gradient (a TensorList
        invariant the loop reads, as TensorArray builds on this branch): the
        sum starts from ``ZerosLike`` of the list and adds with ``AddN``."""
        if self.outer_context:
            self.outer_context.Enter()
        acc = apply_op("ZerosLike", x=op.inputs[0], name="b_acc")
        if self.outer_context:
            self.outer_context.Exit()
        self.Enter()
        self.AddName(acc.name)
        enter_acc = enter_frame(acc, self._name, is_constant=False, parallel_iterations=self._parallel_iterations,
                                name="b_acc")
        self.loop_enters.append(enter_acc)
        merge_acc = merge([enter_acc, enter_acc], name="b_acc")[0]
        switch_acc_false, switch_acc_true = switch(merge_acc, self._pivot)
        add_acc = apply_op("AddN", inputs=[switch_acc_true, grad], name="Add")
        merge_acc.op._update_input(1, _forward("NextIteration", "RefNextIteration", add_acc, None))
        result_acc = _forward("Exit", "RefExit", switch_acc_false, "b_acc")
        self.loop_exits.append(result_acc)
        self.ExitResult([result_acc])
        return result_acc

    def _build_loop(self, pred, body, flat_orig, flat_loop_vars, structure, invariants):
        self._values = {x.name for x in flat_loop_vars}
        real_vars = [self._outer_context.AddValue(x) for x in flat_loop_vars] if self._outer_context \
            else flat_loop_vars
        enter_vars = []
        with control_dependencies(None):
            for real_var, invariant in zip(real_vars, invariants):
                enter_var = enter_frame(real_var, self._name, is_constant=False,
                                   parallel_iterations=self._parallel_iterations, use_input_shape=False)
                if not _shape_less_than_or_equal(real_var.shape, invariant):
                    raise ValueError(f"The shape invariant specified for {real_var.name} is not compatible with "
                                     f"the initial shape of the loop variable. It enters the loop with shape "
                                     f"{real_var.shape}, but the specified shape invariant is {invariant}.")
                enter_var.set_shape(invariant)
                enter_var.graph.prevent_feeding(enter_var)
                if self._outer_context:
                    self._outer_context.AddInnerOp(enter_var.op)
                enter_vars.append(enter_var)
        outer, control_pivot = self._outer_context, None
        while outer is not None and control_pivot is None:
            control_pivot = outer.GetControlPivot()
            outer = outer._outer_context
        if control_pivot is not None:
            for var in enter_vars:
                if _is_loop_constant_enter(var.op.inputs[0].op):
                    var.op._add_control_input(control_pivot.op)
        self._fix_control_inputs_and_context(enter_vars)
        self._values = {x.name for x in enter_vars}
        self._loop_enters = enter_vars

        merge_vars = [merge([x, x])[0] for x in enter_vars]
        self._pivot_for_pred = merge_vars[0]
        c = convert_to_tensor(pred(*_pack(structure, _as_arrays(flat_orig, merge_vars))))
        if c.dtype.base_dtype != dtypes.bool:
            raise TypeError(f"Input 'input' of 'LoopCond' Op has type {c.dtype.base_dtype.name} that does not "
                            "match expected type of bool.")
        self._pivot = apply_op("LoopCond", input=c, name="LoopCond")
        switch_vars = [switch_ref_or_tensor(x, self._pivot) for x in merge_vars]
        vars_for_body = [_identity(x[1]) for x in switch_vars]
        self._pivot_for_body = vars_for_body[0]
        key = GraphKeys._SUMMARY_COLLECTION
        pre = list(get_collection(key))
        body_result = body(*_pack(structure, _as_arrays(flat_orig, vars_for_body)))
        post = get_collection(key)
        if not nest.is_nested(body_result):
            body_result = [body_result]
        if len(post) > len(pre):  # summaries written in the body run with it
            new = post[len(pre):]
            get_collection_ref(key)[:] = pre
            with control_dependencies(new):
                body_result = nest.map_structure(lambda x: x if isinstance(x, TensorArray) else _identity(
                    convert_to_tensor(x)), body_result)
        nest.assert_same_structure(list(_pack(structure, flat_orig)), list(body_result), check_types=True)
        result = [convert_to_tensor(x.flow if isinstance(x, TensorArray) else x) for x in nest.flatten(body_result)]
        if len(merge_vars) != len(result):
            raise ValueError("Number of inputs and outputs of 'body' must match 'loop_vars'. Got "
                             f"{len(merge_vars)} for the number of inputs/outputs, and {len(result)} for "
                             "'loop_vars'.")
        for m, v in zip(merge_vars, result):
            if m.dtype.base_dtype != v.dtype.base_dtype:
                raise TypeError(f"Loop variable {m.op.inputs[0].op.inputs[0].name} enters the loop with type "
                                f"{m.dtype.base_dtype.name}, but has type {v.dtype.base_dtype.name} after one "
                                "iteration.")
            add_next_and_back_edge(m, v)
        exit_vars = [_forward("Exit", "RefExit", x[0], None) for x in switch_vars]
        self._loop_exits = exit_vars
        self.ExitResult(exit_vars)
        return body_result, exit_vars

    def BuildLoop(self, pred, body, loop_vars, shape_invariants, return_same_structure):
        flat_orig = nest.flatten(loop_vars)
        flat_orig = [x if isinstance(x, TensorArray) else convert_to_tensor(x) for x in flat_orig]
        flat_loop_vars = [x.flow if isinstance(x, TensorArray) else x for x in flat_orig]
        if shape_invariants is not None:
            nest.assert_same_structure(loop_vars, shape_invariants)
            invariants = [TensorShape([]) if isinstance(v, TensorArray) else as_shape(s)
                          for v, s in zip(flat_orig, nest.flatten(shape_invariants))]
        else:
            invariants = [v.shape for v in flat_loop_vars]
        try:
            self.Enter()
            body_result, exit_vars = self._build_loop(pred, body, flat_orig, flat_loop_vars, loop_vars, invariants)
        finally:
            self.Exit()
        flat_result = nest.flatten(body_result)
        exits = [r._with_flow(e) if isinstance(r, TensorArray) else e for r, e in zip(flat_result, exit_vars)]
        packed = nest.pack_sequence_as(body_result, exits)
        if return_same_structure:
            return packed
        return packed[0] if len(exit_vars) == 1 else packed


def _as_arrays(flat_orig, tensors):
    return [o._with_flow(t) if isinstance(o, TensorArray) else t for o, t in zip(flat_orig, tensors)]


def _pack(structure, flat):
    """``flat`` packed like the loop variables, as the arguments of cond/body."""
    packed = nest.pack_sequence_as(structure, flat)
    if isinstance(structure, (list, tuple)):  # TF calls cond(*loop_vars): a namedtuple's fields too
        return list(packed)
    return [packed]


def while_loop_v1(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
                  swap_memory=False, name=None, maximum_iterations=None, return_same_structure=False):
    """TF 1.x ``while_loop`` (``control_flow_ops.while_loop`` outside function bodies)."""
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    with name_scope(name, "while", nest.flatten(loop_vars)):
        if not loop_vars:
            raise ValueError("'loop_vars' must be provided.")
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError(f"'maximum_iterations' must be a scalar. Received shape: "
                                 f"{maximum_iterations.shape}")
            counter = constant(0, dtype=maximum_iterations.dtype.base_dtype, name="iteration_counter")
            orig_cond, orig_body, mi = cond, body, maximum_iterations
            if try_to_pack:
                loop_vars = (counter, loop_vars[0])
                cond = lambda i, lv: _logical_and(_less(i, mi), orig_cond(lv))  # noqa: E731
                body = lambda i, lv: (_add_one(i), orig_body(lv))  # noqa: E731
            else:
                loop_vars = (counter, loop_vars)
                cond = lambda i, lv: _logical_and(_less(i, mi), orig_cond(*lv))  # noqa: E731
                body = lambda i, lv: (_add_one(i), orig_body(*lv))  # noqa: E731
            if shape_invariants is not None:
                shape_invariants = (TensorShape([]), shape_invariants)
        context = WhileContext(maximum_iterations=maximum_iterations, parallel_iterations=parallel_iterations,
                               back_prop=back_prop, swap_memory=swap_memory)
        if context.outer_context is None:
            add_to_collection(GraphKeys.WHILE_CONTEXT, context)
        result = context.BuildLoop(cond, body, loop_vars, shape_invariants, return_same_structure)
        if maximum_iterations is not None:
            return result[1]
        return result


def _less(x, y):
    return apply_op("Less", x=x, y=y, name="Less")


def _logical_and(x, y):
    return apply_op("LogicalAnd", x=x, y=y, name="LogicalAnd")


def _add_one(i):
    return apply_op("AddV2", x=i, y=1, name="add")


control_flow_v1._WHILE_FROM_PROTO.append(WhileContext.from_proto)
register_proto_function(GraphKeys.WHILE_CONTEXT, proto_type=control_flow_pb2.WhileContextDef,
                        to_proto=WhileContext.to_proto, from_proto=WhileContext.from_proto)
