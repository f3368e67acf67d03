"""TF 1.x dataflow control flow: control-flow contexts, ``Switch``/``Merge`` and
``cond`` built as TF's ``control_flow_ops.cond`` (v1) builds it.

A context is entered while a branch is built; every op created then joins it
(``Graph.create_op`` calls :meth:`CondContext.AddOp`): an input from outside
the branch is read through a ``Switch`` on the predicate (one per outer tensor,
named after the first op that reads it, ``cond/mul/Switch``), an op without
inputs gets a control input on the branch's pivot (``cond/switch_t`` or
``cond/switch_f``), so that it runs only when its branch is taken. The
branches' results meet in ``Merge`` ops. The contexts are kept in the
``cond_context`` collection and written to a MetaGraphDef as ``CondContextDef``
protos (TF's ``control_flow.proto``), and read back.

The Session runs these graphs with dead tensors (:mod:`ref.session.interpreter.frames`).
"""
from __future__ import annotations

import collections

from ref.types import dtypes, nest
from ref.framework.graph import (GraphKeys, IndexedSlices, Operation, Tensor, colocate_with,
                                 control_dependencies, get_collection, get_collection_ref, get_default_graph,
                                 name_scope, prepend_name_scope, register_proto_function, strip_name_scope,
                                 add_to_collection)
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.sparse_tensor import SparseTensor
from ref.graph_ops.tensor_array_ops import TensorArray
from ref.protos import control_flow_pb2

__all__ = ["ControlFlowContext", "CondContext", "switch", "merge", "ref_switch", "cond_v1", "identity_or_ref",
           "for_components", "as_tensor_or_ref",
           "from_control_flow_context_def", "is_switch", "is_loop_exit",
           "get_output_context", "op_in_context", "XLAControlFlowContext", "in_xla_context"]


# -- helpers (TF's control_flow_util) -------------------------------------------

def is_switch(op) -> bool:
    return op.type in ("Switch", "RefSwitch")


def is_merge(op) -> bool:
    return op.type in ("Merge", "RefMerge")


def is_loop_exit(op) -> bool:
    return op.type in ("Exit", "RefExit")


def get_output_context(op):
    """The context an op's outputs live in (a loop Exit's: the loop's outer context)."""
    ctxt = op._get_control_flow_context()
    if ctxt is not None and is_loop_exit(op):
        ctxt = ctxt.outer_context
    return ctxt


def is_containing_context(ctxt, maybe_containing_ctxt) -> bool:
    while ctxt is not maybe_containing_ctxt:
        if ctxt is None:
            return False
        ctxt = ctxt.outer_context
    return True


def op_in_context(op, ctxt) -> bool:
    return is_containing_context(op._get_control_flow_context(), ctxt)


# -- Switch and Merge ---------------------------------------------------------------

SwitchOutput = collections.namedtuple("Switch", ["output_false", "output_true"])  # TF's generated wrappers' results
MergeOutput = collections.namedtuple("Merge", ["output", "value_index"])
RefSwitchOutput = collections.namedtuple("RefSwitch", ["output_false", "output_true"])
RefMergeOutput = collections.namedtuple("RefMerge", ["output", "value_index"])


def switch(data, pred, dtype=None, name=None):
    """``(output_false, output_true)``: ``data`` on the side ``pred`` selects (TF's ``switch``)."""
    with name_scope(name, "Switch", [data, pred]) as scope:
        if not isinstance(data, (SparseTensor, IndexedSlices)):
            data = convert_to_tensor(data, dtype=dtype, name="data")
        pred = convert_to_tensor(pred, name="pred")
        _check_pred(pred, "Switch")
        if isinstance(data, Tensor):
            return SwitchOutput(*apply_op("Switch", data=data, pred=pred, name=scope))
        # a composite: each component switched (TF: gen switch per flattened component, default names)
        pairs = []
        halves = for_components(lambda t: pairs.append(apply_op("Switch", data=t, pred=pred)) or t, data)
        it_f, it_t = iter([p[0] for p in pairs]), iter([p[1] for p in pairs])
        return (for_components(lambda _: next(it_f), halves), for_components(lambda _: next(it_t), halves))


def _check_pred(pred, op_type):
    if pred.dtype.base_dtype != dtypes.bool:
        raise TypeError(f"Input 'pred' of '{op_type}' Op has type {pred.dtype.base_dtype.name} that does not "
                        "match expected type of bool.")


def ref_switch(data, pred, name=None):
    """``switch`` for a reference (a variable): both outputs are references."""
    _check_pred(convert_to_tensor(pred), "RefSwitch")
    return RefSwitchOutput(*apply_op("RefSwitch", data=data, pred=pred, name=name or "RefSwitch"))


def switch_ref_or_tensor(data, pred, name="Switch"):
    """TF's ``_SwitchRefOrTensor``: the Switch colocated with ``data``; RefSwitch for a reference."""
    data = convert_to_tensor(data, name="data") if not isinstance(data, Tensor) else data
    with colocate_with(data, ignore_existing=True):
        if data.dtype.is_ref_dtype:
            with name_scope(name, "RefSwitch", [data, pred]) as scope:
                return ref_switch(data, pred, name=scope)
        return switch(data, pred, name=name)


def merge(inputs, name=None):
    """``(output, value_index)``: the value of the one available input (TF's ``merge``)."""
    if any(x is None for x in inputs):
        raise ValueError(f"At least one of the merge inputs is None: {inputs}")
    with name_scope(name, "Merge", inputs) as scope:
        if any(isinstance(x, (SparseTensor, IndexedSlices)) for x in inputs):
            return _merge_composites(inputs)
        inputs = [convert_to_tensor(x) for x in inputs]
        if all(x.dtype.is_ref_dtype for x in inputs):
            return RefMergeOutput(*apply_op("RefMerge", inputs=inputs, name=scope))
        return MergeOutput(*apply_op("Merge", inputs=inputs, name=scope))


def _merge_composites(inputs):
    """TF's merge of SparseTensors or of IndexedSlices: one ``Merge`` per component (in the
    current scope, default names); the chosen index is the first component's."""
    kind = type(inputs[0])
    for x in inputs:
        if not isinstance(x, (SparseTensor, IndexedSlices)):
            raise TypeError(f"Type {type(x)} not supported")
        if type(x) is not kind or (kind is IndexedSlices and (x.dense_shape is None) != (
                inputs[0].dense_shape is None)):
            raise ValueError(f"The two structures don't have the same nested structure: {inputs[0]} and {x}")
    flat = []
    for x in inputs:
        parts = []
        for_components(lambda t: parts.append(t) or t, x)
        flat.append(parts)
    merged = [apply_op("Merge", inputs=list(component), name="Merge") for component in zip(*flat)]
    it = iter([m[0] for m in merged])
    return MergeOutput(for_components(lambda _: next(it), inputs[0]), merged[0][1])


def _identity(x, name=None):
    return apply_op("Identity", input=x, name=name or "Identity")


def for_components(fn, value):
    """``fn`` of a tensor, or of each component of a SparseTensor (indices, values,
    dense_shape) or IndexedSlices (values, indices, dense_shape), rebuilt (TF's
    ``nest.map_structure(..., expand_composites=True)``)."""
    if isinstance(value, SparseTensor):
        return SparseTensor(fn(value.indices), fn(value.values), fn(value.dense_shape))
    if isinstance(value, IndexedSlices):
        values, indices = fn(value.values), fn(value.indices)
        return IndexedSlices(values, indices, None if value.dense_shape is None else fn(value.dense_shape))
    if not isinstance(value, Tensor):
        raise TypeError(f"'tensor' must be a Tensor or CompositeTensor. Received: {type(value)}.")
    return fn(value)


def as_tensor_or_ref(value):
    """A tensor, SparseTensor or IndexedSlices as is; a variable as its reference; else converted."""
    if isinstance(value, (Tensor, SparseTensor, IndexedSlices)):
        return value
    return convert_to_tensor(value, as_ref=True)


def identity_or_ref(tensor, name=None):
    """``tensor`` through ``Identity`` (``RefIdentity`` for a reference; each component of
    a SparseTensor/IndexedSlices), TF's ``control_flow_ops._Identity``."""
    def one(t):
        if t.dtype.is_ref_dtype:
            return apply_op("RefIdentity", input=t, name=name or "RefIdentity")
        return _identity(t, name)
    return for_components(one, as_tensor_or_ref(tensor))


# -- contexts ----------------------------------------------------------------------

class ControlFlowContext:
    """A cond branch or a while loop being built (TF's ControlFlowContext):
    ``Enter``/``Exit`` make it the graph's current context; it remembers the
    tensors it has seen (``_values``) and the outer tensors it reads through
    another tensor (``_external_values``)."""

    def __init__(self, values_def=None, import_scope=None):
        self._nested_contexts = []
        self._outer_context = get_default_graph()._get_control_flow_context()
        if self._outer_context:
            self._outer_context._nested_contexts.append(self)
        self._context_stack = []
        if values_def:
            self._init_values_from_proto(values_def, import_scope=import_scope)
        else:
            self._values = set()
            self._external_values = {}

    def _init_values_from_proto(self, values_def, import_scope=None):
        self._values = {prepend_name_scope(v, import_scope) for v in values_def.values}
        g = get_default_graph()
        self._external_values = {}
        for k, v in values_def.external_values.items():
            self._external_values[prepend_name_scope(k, import_scope)] = g.as_graph_element(
                prepend_name_scope(v, import_scope))
        for name in {v.split(":")[0] for v in self._values - set(self._external_values)}:
            g.as_graph_element(name)._set_control_flow_context(self)

    name = property(lambda self: self._name)
    outer_context = property(lambda self: self._outer_context)

    def _to_values_def(self, export_scope=None):
        values_def = control_flow_pb2.ValuesDef()
        values_def.values.extend(strip_name_scope(v, export_scope) for v in sorted(self._values))
        for k, v in self._external_values.items():
            values_def.external_values[strip_name_scope(k, export_scope)] = strip_name_scope(v.name, export_scope)
        return values_def

    def AddName(self, name):
        self._values.add(name)

    def Enter(self):
        graph = get_default_graph()
        self._context_stack.append(graph._get_control_flow_context())
        graph._set_control_flow_context(self)

    def Exit(self):
        get_default_graph()._set_control_flow_context(self._context_stack.pop())

    def ExitResult(self, result):
        """Makes ``result`` (tensors) known to the outer context."""
        if self._outer_context:
            for x in _components(result):
                self._outer_context.AddName(x.name)

    def GetWhileContext(self):
        return self._outer_context.GetWhileContext() if self._outer_context else None

    def _RemoveExternalControlEdges(self, op):
        """Drops the control inputs of ``op`` from outside the enclosing while loop."""
        while_ctxt = self.GetWhileContext()
        if while_ctxt is None:
            return op.control_inputs, []
        internal, external = [], []
        for x in op.control_inputs:
            ctxt = get_output_context(x)
            if ctxt is not None and ctxt.GetWhileContext() is while_ctxt:
                internal.append(x)
            else:
                external.append(x)
        if len(internal) != len(op.control_inputs):
            op._remove_all_control_inputs()
            op._add_control_inputs(internal)
        return internal, external

    def AddInnerOp(self, op):
        if self._outer_context:
            self._outer_context.AddInnerOp(op)

    def GetControlPivot(self):
        return None

    def IsWhileContext(self):
        return False

    def IsCondContext(self):
        return False

    def IsXLAContext(self):
        return False

    def __str__(self):
        return self.name


class XLAControlFlowContext(ControlFlowContext):
    """The context of ops compiled by XLA (TF's base of XLA and TPU contexts):
    adds nothing to the ops built in it and passes values through. Inside it a
    while loop's gradient accumulators get a fixed size from the loops'
    ``maximum_iterations``, and shape ops are not moved to the forward loop."""

    def __init__(self):
        super().__init__()
        self._name = "XLAControlFlowContext"

    def IsXLAContext(self):
        return True

    def AddOp(self, _):
        pass

    def AddValue(self, x):
        return x

    def RequiresUniqueFunctionRetracing(self):
        return False


def in_xla_context(op) -> bool:
    """Whether ``op`` is compiled by XLA: its ``_XlaCompile`` attr, or an
    enclosing :class:`XLAControlFlowContext` (TF's ``IsInXLAContext``)."""
    if op._attrs.get("_XlaCompile"):
        return True
    ctxt = op._get_control_flow_context()
    while ctxt is not None:
        if ctxt.IsXLAContext():
            return True
        ctxt = ctxt.outer_context
    return False


class CondContext(ControlFlowContext):
    """One branch of a ``cond``: ``pred`` (``cond/pred_id``), the branch's pivot
    (``cond/switch_t`` or ``cond/switch_f``) and ``branch`` (1 true, 0 false)."""

    def __init__(self, pred=None, pivot=None, branch=None, name="cond_text", context_def=None,
                 import_scope=None):
        self._name = get_default_graph().unique_name(name)
        if context_def:
            self._init_from_proto(context_def, import_scope=import_scope)
            return
        ControlFlowContext.__init__(self)
        self._pred, self._pivot, self._branch = pred, pivot, branch
        self._values.add(pred.name)
        self._external_values[pred.name] = pred
        self._values.add(pivot.name)
        pivot.op._set_control_flow_context(self)

    def _init_from_proto(self, context_def, import_scope=None):
        g = get_default_graph()
        self._name = prepend_name_scope(context_def.context_name, import_scope)
        self._pred = g.as_graph_element(prepend_name_scope(context_def.pred_name, import_scope))
        self._pivot = g.as_graph_element(prepend_name_scope(context_def.pivot_name, import_scope))
        self._branch = context_def.branch
        ControlFlowContext.__init__(self, values_def=context_def.values_def, import_scope=import_scope)

    pred = property(lambda self: self._pred)
    pivot = property(lambda self: self._pivot)
    branch = property(lambda self: self._branch)

    @property
    def grad_state(self):
        w = self.GetWhileContext()
        return w.grad_state if w else None

    @property
    def back_prop(self):
        w = self.GetWhileContext()
        return w.back_prop if w else False

    def GetControlPivot(self):
        return self._pivot

    def IsCondContext(self):
        return True

    def to_proto(self, export_scope=None):
        """This context as a ``CondContextDef`` (None when outside ``export_scope``)."""
        if export_scope is not None and not self.name.startswith(export_scope):
            return None
        d = control_flow_pb2.CondContextDef()
        d.context_name = strip_name_scope(self.name, export_scope)
        d.pred_name = strip_name_scope(self._pred.name, export_scope)
        d.pivot_name = strip_name_scope(self._pivot.name, export_scope)
        d.branch = self._branch
        d.values_def.MergeFrom(self._to_values_def(export_scope))
        for nested in self._nested_contexts:
            nested.to_control_flow_context_def(d.nested_contexts.add())
        return d

    @staticmethod
    def from_proto(context_def, import_scope=None):
        ret = CondContext(context_def=context_def, import_scope=import_scope)
        ret.Enter()
        for nested_def in context_def.nested_contexts:
            from_control_flow_context_def(nested_def, import_scope=import_scope)
        ret.Exit()
        return ret

    def to_control_flow_context_def(self, context_def, export_scope=None):
        context_def.cond_ctxt.CopyFrom(self.to_proto(export_scope=export_scope))

    def AddValue(self, val):
        """The tensor this branch reads for outer tensor ``val``: a Switch output."""
        if val.name in self._values:
            result = self._external_values.get(val.name)
            return val if result is None else result
        result = val
        self._values.add(val.name)
        if self._outer_context:
            result = self._outer_context.AddValue(val)
            self._values.add(result.name)
            self._external_values[result.name] = result
        with control_dependencies(None):
            result = switch_ref_or_tensor(result, self._pred)[self._branch]
            if self._outer_context:
                self._outer_context.AddInnerOp(result.op)
        result.op.graph.prevent_fetching(result.op)
        result.op._set_control_flow_context(self)
        ctxt = self
        while ctxt is not None:
            ctxt._values.add(result.name)
            ctxt = ctxt._outer_context
        self._external_values[val.name] = result
        return result

    def AddOp(self, op):
        self._AddOpInternal(op)

    def _AddOpInternal(self, op):
        if not op.inputs:
            self._RemoveExternalControlEdges(op)
            if not any(op_in_context(c, self) for c in op.control_inputs):
                op._add_control_input(self._pivot.op)
        else:
            for index, x in enumerate(op.inputs):
                if is_merge(op) and x.op.type in ("NextIteration", "RefNextIteration"):
                    real_x = x
                else:
                    real_x = self.AddValue(x)
                if real_x is not x:
                    op._update_input(index, real_x)
            self._RemoveExternalControlEdges(op)
        names = [x.name for x in op.outputs]
        ctxt = self
        while ctxt is not None:
            ctxt._values.update(names)
            ctxt = ctxt._outer_context
        if self._outer_context or not is_loop_exit(op):
            op.graph.prevent_fetching(op)
        if self._outer_context:
            self._outer_context.AddInnerOp(op)

    def _ProcessOutputTensor(self, val):
        """A branch result: an outer tensor the branch returns as it is gets its own Switch."""
        real_val = val
        if val.name not in self._values:
            self._values.add(val.name)
            if self._outer_context:
                real_val = self._outer_context.AddValue(val)
                self._values.add(real_val.name)
                self._external_values[real_val.name] = real_val
            real_val = switch_ref_or_tensor(real_val, self._pred)[self._branch]
            self._external_values[val.name] = real_val
        else:
            external_val = self._external_values.get(val.name)
            if external_val is not None:
                real_val = external_val
        return real_val

    def _BuildCondTensor(self, v):
        if isinstance(v, Operation):  # the pivot stands in for an op
            with name_scope(None, "control_dependency", [v, self._pivot]) as scope:
                with colocate_with(self._pivot), control_dependencies([v]):
                    return _identity(self._pivot, name=scope)
        if isinstance(v, TensorArray):
            v = v.flow
        return self._ProcessOutputTensor(convert_to_tensor(v))

    def BuildCondBranch(self, fn):
        """Builds ``fn()`` in this context: (its result, the flat tensors for the Merges)."""
        key = GraphKeys._SUMMARY_COLLECTION
        pre = list(get_collection(key))
        original = fn()
        post = get_collection(key)
        if len(post) > len(pre):  # summaries written in a branch run with it
            new = post[len(pre):]
            get_collection_ref(key)[:] = pre
            with control_dependencies(new):
                if original is None:
                    return apply_op("NoOp", name="NoOp"), None
                if not isinstance(original, Operation):
                    original = nest.map_structure(_identity, original)
        if original is None:
            return None, None
        original = nest.map_structure(_variable_value, original)
        result = [self._BuildCondTensor(x) for x in _flat_components(original)]
        return original, result


def _variable_value(x):
    """A variable in a branch result is its value (TF's convert_variables_to_tensors)."""
    if hasattr(x, "_as_graph_element") and not isinstance(x, (Tensor, Operation, TensorArray, SparseTensor,
                                                               IndexedSlices)):
        return convert_to_tensor(x)
    return x


def _flat_components(structure):
    """The leaves of ``structure`` with composites expanded (TF's expand_composites)."""
    out = []
    for x in nest.flatten(structure):
        if isinstance(x, SparseTensor):
            out.extend((x.indices, x.values, x.dense_shape))
        elif isinstance(x, IndexedSlices):
            out.extend((x.values, x.indices) + ((x.dense_shape,) if x.dense_shape is not None else ()))
        else:
            out.append(x)
    return out


def _components(structure):
    return [x for x in _flat_components(structure) if isinstance(x, Tensor)]


def _cast_slices_indices(orig_t, orig_f, res_t, res_f):
    """TF's ``_cast_indexed_slice_indices``: where the branches return IndexedSlices
    whose indices differ in dtype, the int32 indices become int64 (cast after
    the branches, before the Merge). As TF, the branches' own results are cast
    first (casts nothing reads), then the values entering the Merge."""
    pairs, i = [], 0
    for a, b in zip(nest.flatten(orig_t), nest.flatten(orig_f)):
        n = 3 if isinstance(a, SparseTensor) else len(_flat_components(a))
        if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices) and \
                a.indices.dtype.base_dtype != b.indices.dtype.base_dtype:
            pairs.append((a, b, i + 1))
        i += n
    for a, b, _ in pairs:
        for x in (a, b):
            if x.indices.dtype.base_dtype != dtypes.int64:
                apply_op("Cast", x=x.indices, DstT=dtypes.int64)
    for _, _, j in pairs:
        for res in (res_t, res_f):
            if res[j].dtype.base_dtype != dtypes.int64:
                res[j] = apply_op("Cast", x=res[j], DstT=dtypes.int64)


def _pack_components(structure, flat):
    """``flat`` (one tensor per component) packed like ``structure``."""
    leaves, i = [], 0
    for x in nest.flatten(structure):
        if isinstance(x, SparseTensor):
            sp = SparseTensor(*flat[i:i + 3])
            sp.set_shape(x.shape) if x.shape.ndims is not None else None
            leaves.append(sp)
            i += 3
        elif isinstance(x, IndexedSlices):
            n = 3 if x.dense_shape is not None else 2
            leaves.append(IndexedSlices(flat[i], flat[i + 1], flat[i + 2] if n == 3 else None))
            i += n
        elif isinstance(x, TensorArray):
            leaves.append(x._with_flow(flat[i]))
            i += 1
        else:
            leaves.append(flat[i])
            i += 1
    return nest.pack_sequence_as(structure, leaves) if nest.is_nested(structure) else leaves[0]


def _unpack_if_singleton(res):
    """TF's _UnpackIfSingleton: a one-element list or tuple (a namedtuple too) gives its element."""
    if isinstance(res, (list, tuple)) and len(res) == 1:
        return res[0]
    return res


def cond_v1(pred, true_fn, false_fn, strict=False, name=None):
    """TF 1.x ``cond`` as dataflow: Switch on ``pred``, each branch built in its
    CondContext, one Merge per result tensor."""
    with name_scope(name, "cond", [pred]):
        if isinstance(pred, bool):
            raise TypeError("'pred' must not be a Python bool.")
        p_2, p_1 = switch(pred, pred)
        pivot_1 = _identity(p_1, name="switch_t")
        pivot_2 = _identity(p_2, name="switch_f")
        pred = _identity(pred, name="pred_id")
        for t in (p_1, p_2, pivot_1, pivot_2, pred):
            t.op.graph.prevent_fetching(t.op)

        context_t = CondContext(pred, pivot_1, branch=1)
        try:
            context_t.Enter()
            orig_res_t, res_t = context_t.BuildCondBranch(true_fn)
            if orig_res_t is None:
                raise ValueError("'true_fn' must have a return value.")
            context_t.ExitResult(res_t)
        finally:
            context_t.Exit()
        context_f = CondContext(pred, pivot_2, branch=0)
        try:
            context_f.Enter()
            orig_res_f, res_f = context_f.BuildCondBranch(false_fn)
            if orig_res_f is None:
                raise ValueError("'false_fn' must have a return value.")
            context_f.ExitResult(res_f)
        finally:
            context_f.Exit()

        if not strict:
            orig_res_t = _unpack_if_singleton(orig_res_t)
            orig_res_f = _unpack_if_singleton(orig_res_f)
        try:
            nest.assert_same_structure(orig_res_t, orig_res_f, check_types=True)  # TF's default
        except TypeError as e:
            raise TypeError(f"Incompatible return types of 'true_fn' and 'false_fn': {e}") from None
        except ValueError as e:
            raise ValueError(f"Incompatible return values of 'true_fn' and 'false_fn': {e}") from None
        for a, b in zip(nest.flatten(orig_res_t), nest.flatten(orig_res_f)):
            if isinstance(a, SparseTensor) != isinstance(b, SparseTensor):
                raise TypeError(f"Incompatible return types of 'true_fn' and 'false_fn': {a!r} and {b!r}")
        if not res_t:
            raise ValueError("'true_fn' and 'false_fn' must return at least one result.")
        _cast_slices_indices(orig_res_t, orig_res_f, res_t, res_f)
        for x, y in zip(res_t, res_f):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError("Outputs of 'true_fn' and 'false_fn' must have the same type(s). "
                                 f"Received {x.dtype.name} from 'true_fn' and {y.dtype.name} from 'false_fn'.")
        merges = [merge([f, t])[0] for f, t in zip(res_f, res_t)]
        if context_t.outer_context is None:  # nested conds are kept by the outermost context
            add_to_collection(GraphKeys.COND_CONTEXT, context_t)
            add_to_collection(GraphKeys.COND_CONTEXT, context_f)
        merges = _pack_components(orig_res_t, merges)
        if not strict:
            merges = _unpack_if_singleton(merges)
        return merges


# -- meta graphs ------------------------------------------------------------------------

def from_control_flow_context_def(context_def, import_scope=None):
    """A context rebuilt from a ``ControlFlowContextDef``."""
    which = context_def.WhichOneof("ctxt")
    if which == "cond_ctxt":
        return CondContext.from_proto(context_def.cond_ctxt, import_scope=import_scope)
    if which == "while_ctxt" and _WHILE_FROM_PROTO:
        return _WHILE_FROM_PROTO[0](context_def.while_ctxt, import_scope=import_scope)
    raise NotImplementedError(f"Unknown ControlFlowContextDef field: {which}")


_WHILE_FROM_PROTO = []  # set by the while-loop builder


register_proto_function(GraphKeys.COND_CONTEXT, proto_type=control_flow_pb2.CondContextDef,
                        to_proto=CondContext.to_proto, from_proto=CondContext.from_proto)
