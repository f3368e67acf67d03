"""Functional control flow: ``While`` and ``If`` ops whose bodies are function
graphs (:mod:`ref.framework.func_graph`) run by the Session.

``While`` inputs are the loop variables followed by the tensors captured by
``cond`` and ``body``; the attrs hold the two graphs and how many captures each
takes. ``If`` runs only the taken branch, so ops inside the other branch never
execute (TF's ``cond`` semantics).

A ``While`` built with ``accumulate=True`` has one more output per loop
variable: its *history*, the values it held at the start of each iteration,
stacked (``[trips] + shape``). They are the forward values TF's gradient keeps
in accumulators (stacks in TF 1.x, TensorLists in ``while_v2``); the While
gradient reads iteration ``k``'s state from them instead of recomputing it. The
kernel stacks them only when something in the running plan reads them, so a
loop nobody differentiates pays nothing.

``n_loop_vars``, ``n_cond_captures``, ``n_then_inputs``, ``accumulate`` and
``output_specs`` are ref's own attrs: a GraphDef carries these ops in
TensorFlow's form (``If``: ``Tcond``/``Tin``/``Tout``, both branches taking
every input; ``While``: ``T``, captures and the loop counter as loop
variables, histories in TensorLists), written and read by
:mod:`ref.framework.graph_export` and :mod:`ref.framework.importer`.
"""
from __future__ import annotations

import numpy as np

from ref.ops import blocking
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types import dtypes
from ref.types.device_spec import DeviceSpec
from ref.types.shapes import TensorShape


def _if_shape(ins, attrs):
    return [(d, s) for d, s in attrs["output_specs"]]


def _while_shape(ins, attrs):
    specs = [(d, TensorShape(s)) for d, s in attrs["output_specs"]]
    if attrs.get("accumulate"):
        specs += [(d, TensorShape([None]).concatenate(s)) for d, s in specs]
    return specs


@register_op("While", inputs=("input",), list_inputs={"input": None},
             attrs={"cond": REQUIRED, "body": REQUIRED, "n_loop_vars": REQUIRED, "n_cond_captures": 0,
                    "maximum_iterations": None, "parallel_iterations": 10, "output_specs": REQUIRED,
                    "accumulate": False},
             outputs=("*output",), shape=_while_shape, ctx=True, stateful=True, raw_inputs=("input",))
def while_(input, cond, body, n_loop_vars, n_cond_captures=0, maximum_iterations=None,
           parallel_iterations=10, output_specs=None, accumulate=False, ctx=None):
    """Runs ``body`` while ``cond`` holds (at most ``maximum_iterations`` times);
    with ``accumulate``, also returns each loop variable's history."""
    loop_vars = list(input[:n_loop_vars])
    cond_caps = list(input[n_loop_vars:n_loop_vars + n_cond_captures])
    body_caps = list(input[n_loop_vars + n_cond_captures:])
    record = accumulate and any(ctx.output_needed(n_loop_vars + j) for j in range(n_loop_vars))
    history = []
    i = 0
    while maximum_iterations is None or i < maximum_iterations:
        blocking.check("While")  # the run's deadline (timeout_in_ms) and cancellation
        (pred,) = ctx.run_subgraph(cond, loop_vars + cond_caps)
        if not bool(np.asarray(pred)):
            break
        if record:
            history.append(loop_vars)
        loop_vars = list(ctx.run_subgraph(body, loop_vars + body_caps))
        i += 1
    if not accumulate:
        return tuple(loop_vars)
    if not record:  # nobody reads the history: its outputs stay empty
        return tuple(loop_vars) + (None,) * n_loop_vars
    stacks = []
    for j, (dtype, shape) in enumerate(output_specs):
        if dtype == dtypes.variant:  # TensorLists: a vector of list objects
            stack = np.empty(len(history), dtype=object)
            for k, h in enumerate(history):
                stack[k] = h[j]
            stacks.append(stack)
            continue
        np_dtype = dtype.as_numpy_dtype
        if history:
            stacks.append(np.stack([np.asarray(h[j], np_dtype) for h in history]))
        else:  # no iteration ran
            stacks.append(np.zeros((0,) + tuple(TensorShape(shape).as_list()), np_dtype))
    return tuple(loop_vars) + tuple(stacks)


@register_op("If", inputs=("cond", "input"), list_inputs={"input": None},
             attrs={"then_branch": REQUIRED, "else_branch": REQUIRED, "n_then_inputs": REQUIRED,
                    "output_specs": REQUIRED},
             outputs=("*output",), shape=_if_shape, ctx=True, stateful=True, raw_inputs=("input",))
def if_(cond, input, then_branch, else_branch, n_then_inputs, output_specs=None, ctx=None):
    """Runs ``then_branch`` if ``cond`` else ``else_branch``; returns its outputs."""
    if bool(np.asarray(cond)):
        return tuple(ctx.run_subgraph(then_branch, list(input[:n_then_inputs])))
    return tuple(ctx.run_subgraph(else_branch, list(input[n_then_inputs:])))



# -- TF 1.x dataflow control flow: Switch and Merge ---------------------------
#
# ``tf.cond`` builds Switch and Merge outside function bodies (TF 1.x's cond,
# ref.graph_ops.control_flow_v1; inside a function body it builds ``If``). A
# Switch forwards ``data`` to one output; the other output is *dead*
# (:data:`DEAD`). The Session runs graphs holding them in ref.session.interpreter.frames:
# an op with a dead input (data or control), other than Merge, does not run
# and its outputs are dead; Merge forwards its first live input.


class _Dead:
    """The value of a tensor on the branch a Switch did not take."""

    __slots__ = ()

    def __repr__(self):
        return "DEAD"

    def __reduce__(self):
        return "DEAD"


DEAD = _Dead()


def _switch_shape(ins, attrs):
    pred = ins["pred"].shape
    if pred.ndims is not None and pred.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {pred.ndims} for '{attrs['_op_name']}' (op: 'Switch') "
                         f"with input shapes: {ins['data'].shape}, {pred}.")
    d = ins["data"]
    return [(d.dtype, d.shape), (d.dtype, d.shape)]


@register_op("Switch", inputs=("data", "pred"), outputs=("output_false", "output_true"),
             type_attrs={"T": "data"}, shape=_switch_shape)
def switch(data, pred):
    """(output_false, output_true) = (data, DEAD) if not pred else (DEAD, data)."""
    if np.ndim(pred) != 0:
        raise invalid_argument(f"The second input must be a scalar, but it has shape {list(np.shape(pred))}")
    return (DEAD, data) if bool(pred) else (data, DEAD)


def _merge_shape(ins, attrs):
    specs = ins["inputs"]
    shape = specs[0].shape if specs else TensorShape(None)
    for s in specs[1:]:
        if s.shape.ndims != shape.ndims:
            shape = TensorShape(None)
            break
        if shape.ndims is not None:
            shape = TensorShape([a if a == b else None for a, b in zip(shape.as_list(), s.shape.as_list())])
    return [(specs[0].dtype if specs else dtypes.float32, shape), (dtypes.int32, TensorShape([]))]


@register_op("Merge", inputs=("inputs",), outputs=("output", "value_index"), list_inputs={"inputs": "N"},
             type_attrs={"T": "inputs"}, shape=_merge_shape)
def merge(inputs):
    """(output, value_index) = the first live input and its index (both dead if none is)."""
    for i, v in enumerate(inputs):
        if v is not DEAD:
            return v, np.int32(i)
    return DEAD, DEAD


# -- reference forms and while-loop frames ---------------------------------------
#
# ``tf.cond``/``tf.while_loop`` build these TF 1.x ops (ref.graph_ops.control_flow_v1);
# the Session runs graphs holding them with frames and dead tensors
# (ref.session.interpreter.frames), which forwards values itself: the kernels below are each
# op's value semantics within one frame and iteration.

def _ref_switch_shape(ins, attrs):
    return _switch_shape(ins, attrs)


@register_op("RefSwitch", inputs=("data", "pred"), outputs=("output_false", "output_true"),
             type_attrs={"T": "data"}, shape=_ref_switch_shape, raw_inputs=("data",),
             ref_outputs={"output_false": "data", "output_true": "data"})
def ref_switch(data, pred):
    """Switch forwarding a reference (a variable) rather than its value."""
    return switch(data, pred)


@register_op("RefMerge", inputs=("inputs",), outputs=("output", "value_index"), list_inputs={"inputs": "N"},
             type_attrs={"T": "inputs"}, shape=_merge_shape, raw_inputs=("inputs",), ref_outputs={"output": "inputs"})
def ref_merge(inputs):
    """Merge of references."""
    return merge(inputs)


def _ref_select_shape(ins, attrs):
    """TF's: the inputs' shape when all are fully defined and equal, else unknown."""
    idx = ins["index"].shape
    if idx.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {idx.ndims} for '{attrs['_op_name']}' (op: "
                         f"'RefSelect') with input shapes: {idx}.")
    specs = ins["inputs"]
    first = specs[0].shape
    if not first.is_fully_defined() or any(
            not s.shape.is_fully_defined() or s.shape.as_list() != first.as_list() for s in specs[1:]):
        first = TensorShape(None)
    return [(specs[0].dtype, first)]


@register_op("RefSelect", inputs=("index", "inputs"), outputs=("output",), list_inputs={"inputs": "N"},
             type_attrs={"T": "inputs"}, input_types={"index": dtypes.int32}, shape=_ref_select_shape,
             raw_inputs=("inputs",), ref_outputs={"output": "inputs"})
def ref_select(index, inputs):
    """output = the reference ``inputs[index]`` (forwarded, not copied)."""
    if np.ndim(index) != 0:
        raise invalid_argument(f"Index must be a scalar, but it has shape {list(np.shape(index))}")
    i = int(index)
    if not 0 <= i < len(inputs):
        raise invalid_argument(f"Index must be in the range [0, {len(inputs)}) but got {i}")
    return inputs[i]


def _forward_shape(ins, attrs):
    d = ins["data"]
    return [(d.dtype, d.shape)]


def _enter_shape(ins, attrs):
    """A loop variable's Enter has an unknown shape (the loop sets its invariant); a constant's keeps it."""
    d = ins["data"]
    return [(d.dtype, d.shape if attrs.get("is_constant") else TensorShape(None))]


@register_op("Enter", inputs=("data",), type_attrs={"T": "data"},
             attrs={"frame_name": REQUIRED, "is_constant": False, "parallel_iterations": 10},
             shape=_enter_shape)
def enter(data, frame_name=None, is_constant=False, parallel_iterations=10):
    """``data`` made available in child frame ``frame_name`` (to every iteration when ``is_constant``)."""
    return data


@register_op("RefEnter", inputs=("data",), type_attrs={"T": "data"},
             attrs={"frame_name": REQUIRED, "is_constant": False, "parallel_iterations": 10},
             shape=_enter_shape, raw_inputs=("data",), ref_outputs={"output": "data"})
def ref_enter(data, frame_name=None, is_constant=False, parallel_iterations=10):
    """Enter forwarding a reference."""
    return data


@register_op("Exit", inputs=("data",), type_attrs={"T": "data"}, shape=_forward_shape)
def exit_(data):
    """``data`` made available in the parent frame."""
    return data


@register_op("RefExit", inputs=("data",), type_attrs={"T": "data"}, shape=_forward_shape,
             raw_inputs=("data",), ref_outputs={"output": "data"})
def ref_exit(data):
    """Exit forwarding a reference."""
    return data


@register_op("NextIteration", inputs=("data",), type_attrs={"T": "data"}, shape=_forward_shape)
def next_iteration(data):
    """``data`` made available to the next iteration."""
    return data


@register_op("RefNextIteration", inputs=("data",), type_attrs={"T": "data"}, shape=_forward_shape,
             raw_inputs=("data",), ref_outputs={"output": "data"})
def ref_next_iteration(data):
    """NextIteration forwarding a reference."""
    return data


def _loop_cond_shape(ins, attrs):
    s = ins["input"].shape
    if s.ndims is not None and s.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {s.ndims} for '{attrs['_op_name']}' (op: 'LoopCond') "
                         f"with input shapes: {s}.")
    return [(dtypes.bool, TensorShape([]))]


@register_op("LoopCond", inputs=("input",), shape=_loop_cond_shape)
def loop_cond(input):
    """The loop predicate, forwarded as a bool (it marks the predicate of a while loop)."""
    return np.asarray(input, dtype=np.bool_)


@register_op("RefIdentity", inputs=("input",), type_attrs={"T": "input"}, raw_inputs=("input",),
             ref_outputs={"output": "input"})
def ref_identity(input):
    """Identity forwarding a reference (a loop variable that is a variable)."""
    return input


# -- SymbolicGradient: the gradient of a graph function (TF1 Defun) -------------

def _symbolic_gradient_shape(ins, attrs):
    """TF's shape function: output ``i`` has input ``i``'s shape."""
    return [(d, ins["input"][i].shape if i < len(ins["input"]) else TensorShape(None))
            for i, d in enumerate(attrs["Tout"])]


@register_op("SymbolicGradient", inputs=("input",), list_inputs={"input": None},
             attrs={"Tin": None, "Tout": REQUIRED, "f": REQUIRED, "_grad_graph": None},
             outputs=("*output",), shape=_symbolic_gradient_shape, ctx=True, stateful=True, raw_inputs=("input",))
def symbolic_gradient(input, Tout, f, Tin=None, _grad_graph=None, ctx=None):
    """The gradients of function ``f`` with respect to its inputs: ``input`` is
    f's inputs then the gradients of its outputs. ``_grad_graph`` (built with the
    node by ``ref.grad``) computes them."""
    if _grad_graph is None:
        raise invalid_argument(f"SymbolicGradient of {getattr(f, 'func', f)}: no gradient graph "
                               "(a SymbolicGradient node imported from a GraphDef cannot run here)")
    res = tuple(ctx.run_subgraph(_grad_graph, list(input)))
    if len(res) != len(Tout):
        raise invalid_argument(f"SymGrad expects to return {len(Tout)} tensor(s), but get {len(res)} tensor(s) "
                               "instead.")
    return res


# -- PartitionedCall / StatefulPartitionedCall: a call of function ``f`` ----------

def _call_shape(ins, attrs):
    f = attrs["f"]
    outs = getattr(f, "outputs", None)
    if outs is not None and len(outs) == len(attrs["Tout"]):
        return [(d, t.shape) for d, t in zip(attrs["Tout"], outs)]
    return [(d, TensorShape(None)) for d in attrs["Tout"]]


def _partitioned_call(args, f, ctx):
    return tuple(ctx.run_subgraph(f, list(args)))


for _name in ("PartitionedCall", "StatefulPartitionedCall"):
    register_op(_name, inputs=("args",), list_inputs={"args": None},
                attrs={"Tin": None, "Tout": REQUIRED, "f": REQUIRED, "config": "", "config_proto": "",
                       "executor_type": ""},
                outputs=("*output",), shape=_call_shape, ctx=True, stateful=True, raw_inputs=("args",))(
        lambda args, f, ctx=None, Tin=None, Tout=None, config="", config_proto="", executor_type="":
        _partitioned_call(args, f, ctx))


@register_op("DeviceIndex", inputs=(), outputs=("index",), attrs={"device_names": REQUIRED},
             shape=lambda ins, attrs: [(dtypes.int32, TensorShape([]))], ctx=True)
def device_index(device_names, ctx=None):
    """The position of the type of the device this op runs on (``CPU`` unless
    the op is placed elsewhere) in ``device_names``; ``len(device_names)`` when
    it is not there (TF's ``DeviceIndex``: ``execute_fn_for_device``'s branch)."""
    device = getattr(getattr(ctx, "op", None), "device", "") or ""
    kind = DeviceSpec.from_string(device).device_type if device else None
    kind = kind if kind not in (None, "*") else "CPU"
    names = list(device_names)
    return np.int32(names.index(kind) if kind in names else len(names))
