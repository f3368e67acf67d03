"""Constant folding at graph construction (TF's ``tensor_util.constant_value`` and
``constant_value_as_shape``): the values and shapes that are known before a
Session runs, computed by the ops' own kernels.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape, unknown_shape
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.tensor import Tensor
from ref.ops import registry

def _contains_tensor(value):
    if isinstance(value, (Tensor, IndexedSlices)) or hasattr(value, "_as_graph_element"):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return False


# Ops whose value is known at graph construction when their inputs' values are
# (TF's constant_value folds the same ones); the arithmetic is the op's own kernel.
_FOLDABLE = frozenset({"Identity", "StopGradient", "Pack", "Cast", "ConcatV2", "Fill", "Range"})


# TF's C++ shape inference evaluates a small constant subgraph further than the
# Python constant_value does (EvaluateConstantTensor): a slice of a folded
# Shape, say, so Slice(x, 0, stack([shape(y)[0], -1])) gets a static shape.
_SHAPE_FOLDABLE = _FOLDABLE | frozenset({"StridedSlice", "Slice", "Reshape", "ExpandDims", "Squeeze", "AddV2",
                                         "Add", "Sub", "Mul", "FloorDiv", "FloorMod", "Maximum", "Minimum",
                                         "Prod", "Sum", "Neg", "RealDiv", "Round", "Floor", "GatherV2", "Gather",
                                         "BroadcastArgs", "SelectV2", "Select", "Equal", "NotEqual", "Greater",
                                         "GreaterEqual", "Less", "LessEqual", "ListDiff", "InvertPermutation",
                                         "Transpose", "Unpack", "Max", "Min", "BroadcastTo"})


def constant_value(tensor):
    """The NumPy value of ``tensor`` if it is known at graph construction, else None:
    a ``Const``; ``Shape``/``Size``/``Rank`` of a fully defined static shape; and
    ``Identity``, ``StopGradient``, ``Pack``, ``Cast``, ``ConcatV2``, ``Fill`` and ``Range`` of
    known values, computed by their registered kernels. A TensorShape is
    returned as it is (TF: what is not a tensor is its own value)."""
    if isinstance(tensor, TensorShape):
        return tensor
    return _folded_value(tensor, _FOLDABLE, "_folded_constants")


def shape_inference_value(tensor):
    """The value shape functions see for an input (TF's C++ shape refiner): as
    ``constant_value``, folding also slices, reshapes and integer arithmetic of
    known values."""
    return _folded_value(tensor, _SHAPE_FOLDABLE, "_shape_folded_constants")


def _folded_value(tensor, foldable, cache_name):
    if isinstance(tensor, (np.ndarray, np.generic, int, float, list, tuple)) and not _contains_tensor(tensor):
        return np.asarray(tensor)
    if not isinstance(tensor, Tensor):
        return None
    # Iterative (a stack, not recursion), so a 20,000-op chain of Identity folds;
    # results that can never change (everything but a None owed to a static
    # shape that set_shape may still refine) are kept per graph, so building
    # such a chain op by op stays linear.
    cache = tensor.graph.__dict__.setdefault(cache_name, {})
    known = {}  # id(tensor) -> (value or None, final)
    stack = [tensor]
    while stack:
        t = stack[-1]
        key = id(t)
        if key in known:
            stack.pop()
            continue
        hit = cache.get(key)
        if hit is not None and hit[0] is t:
            known[key] = (hit[1], True)
            stack.pop()
            continue
        op = t.op
        if op.type == "Const":
            value, final = op._get_attr("value"), True
        elif op.type in ("Shape", "Size", "Rank"):
            value = _static_shape_value(op)
            final = value is not None
        elif op.type == "VariableShape" and foldable is _SHAPE_FOLDABLE:
            value, final = _variable_shape_value(op), True
        elif (foldable is _SHAPE_FOLDABLE and op.type == "StridedSlice"
              and op.inputs[0].op.type in ("Shape", "ShapeN") and (dim := _scalar_dim(t)) is not None):
            # shape(x)[i] of a known dimension i of a partly known shape: TF's
            # EvaluateConstantTensor infers it from shapes (TryInferFromShapes)
            # before evaluating what is built on it (shape(x)[1] * 2, say)
            value, final = np.array(dim, dtype=op._get_attr("T").np), True
        elif op.type not in foldable:
            value, final = None, True
        else:
            missing = [i for i in op.inputs if id(i) not in known]
            if missing:
                stack.extend(missing)
                continue
            value = _fold(op, known, t.value_index)
            final = all(known[id(i)][1] for i in op.inputs)
        known[key] = (value, final)
        if final:
            cache[key] = (t, value)
        stack.pop()
    return known[id(tensor)][0]


_FOLD_LIMIT = 1 << 20  # constant_value does not fold an op with more output elements


def _fold(op, known, index=0):
    """The value of a foldable op whose inputs' values are in ``known``, by its
    kernel; None above ``_FOLD_LIMIT`` elements (no graph-time allocation blow-up)."""
    n = op.outputs[0].shape.num_elements() if op.outputs else None
    if n is not None and n > _FOLD_LIMIT:
        return None
    if op.type == "Fill" and n is None:
        dims = known[id(op.inputs[0])][0]
        if dims is None or int(np.prod(np.asarray(dims), dtype=object)) > _FOLD_LIMIT:
            return None
    args = {}
    for name, inp in op.named_inputs().items():
        value = [known[id(t)][0] for t in inp] if isinstance(inp, list) else known[id(inp)][0]
        if value is None or (isinstance(value, list) and any(v is None for v in value)):
            return None
        args[name] = value
    args.update((k, op._attrs[k]) for k in op.op_def.attrs if k in op._attrs)
    if op.type in _FOLDABLE:
        return np.asarray(op.op_def.kernel(**args))
    try:  # shape inference only: a value the kernel rejects is left unknown (the run fails)
        out = op.op_def.kernel(**args)
    except Exception:  # noqa: BLE001 - any kernel error means "not known here"
        return None
    return np.asarray(out[index] if len(op.outputs) > 1 and isinstance(out, (tuple, list)) else out)


def _static_shape_value(op):
    """``Shape``/``Size``/``Rank`` of the input's static shape, when it is known."""
    s = op.inputs[0].shape
    if op.type == "Rank":
        return np.array(s.ndims, dtype=np.int32) if s.ndims is not None else None
    if not s.is_fully_defined():
        return None
    out_type = op._get_attr("out_type").np
    if max(s.as_list() + [s.num_elements()]) > np.iinfo(out_type).max:
        return None  # the kernel fails at run time, as TF's
    if op.type == "Shape":
        return np.array(s.as_list(), dtype=out_type)
    return np.array(s.num_elements(), dtype=out_type)


def _variable_shape_value(op):
    """``VariableShape`` of a handle that leads (through Identity, Switch, Enter)
    to a ``VarHandleOp`` of a fully defined shape: that shape (TF's shape
    refiner reads it from the handle's shape-and-type data)."""
    t = op.inputs[0]
    while t.op.type in ("Identity", "Switch", "Enter"):
        t = t.op.inputs[0]
    if t.op.type != "VarHandleOp":
        return None
    s = TensorShape(t.op._get_attr("shape"))
    if not s.is_fully_defined():
        return None
    return np.array(s.as_list(), dtype=op._get_attr("out_type").np)


def constant_value_as_shape(tensor, fold=None) -> TensorShape:
    """A TensorShape from a 1-D shape tensor, as precise as graph construction
    allows (TF's rules: constants; ``Shape`` of a tensor; ``Pack`` of known
    scalars; ``Cast`` to an integer type, ``ConcatV2`` and simple ``StridedSlice``
    of such shape tensors; -1 and unknown values are unknown dimensions).
    ``fold``: how a part's value is found (default ``constant_value``; the shape
    refiner passes ``shape_inference_value``, which folds further, as TF's C++
    ``ConstantPartialShape`` evaluates a part it has no rule for)."""
    fold = fold or constant_value
    v = fold(tensor)
    if v is not None:
        return TensorShape([None if d == -1 else int(d) for d in np.asarray(v).reshape(-1)])
    if isinstance(tensor, Tensor):
        op = tensor.op
        if op.type == "Shape":
            return op.inputs[0].shape
        if op.type == "Pack":
            return TensorShape([None if (c := _scalar_dim(i, fold)) is None or int(c) < 0 else int(c)
                                for i in op.inputs])
        if op.type == "Cast" and op._get_attr("DstT") in (dtypes.int32, dtypes.int64):
            return constant_value_as_shape(op.inputs[0], fold)
        if op.type == "ConcatV2":
            parts = [constant_value_as_shape(t, fold) for t in op.inputs[:-1]]
            if all(p.ndims is not None for p in parts):
                return TensorShape([d for p in parts for d in p.as_list()])
        if op.type == "StridedSlice":
            sliced = _strided_slice_shape(op)
            if sliced is not None:
                return sliced
        if tensor.shape.ndims == 1 and tensor.shape.as_list()[0] is not None:
            return unknown_shape(tensor.shape.as_list()[0])
    return unknown_shape()


def _scalar_dim(tensor, fold=None):
    """A scalar's value by ``fold`` (default ``constant_value``), or -- as TF's
    shape refiner infers it -- the known dimension that ``shape(x)[i]`` (a
    ``StridedSlice`` of a ``Shape`` or ``ShapeN`` output taking one element)
    reads. ``shape_inference_value`` as ``fold`` also evaluates arithmetic on
    such dimensions (``shape(x)[1] * 2``), as TF's EvaluateConstantTensor does."""
    v = (fold or constant_value)(tensor)
    if v is not None or not isinstance(tensor, Tensor) or tensor.op.type != "StridedSlice":
        return v
    op = tensor.op
    if op.inputs[0].op.type not in ("Shape", "ShapeN") or op._get_attr("shrink_axis_mask") != 1 or any(
            op._get_attr(m) for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask")):
        return None
    begin, stride = constant_value(op.inputs[1]), constant_value(op.inputs[3])
    if begin is None or stride is None:
        return None
    dims = op.inputs[0].op.inputs[op.inputs[0].value_index].shape  # ShapeN: output i is input i's shape
    if dims.ndims is None or (op.inputs[0].op.type == "ShapeN" and not (
            dims.is_fully_defined() and _from_constants(op.inputs[0].op.inputs[op.inputs[0].value_index]))):
        return None  # TF's refiner reads a partial shape through Shape; a ShapeN only when it can evaluate it
    i = int(np.asarray(begin).reshape(-1)[0])
    if not -dims.ndims <= i < dims.ndims:
        return None
    return dims.as_list()[i]


_NOT_CONSTANT = frozenset({"Placeholder", "PlaceholderWithDefault", "Enter", "Merge", "Switch", "NextIteration"})


def _from_constants(tensor, limit=256):
    """Whether ``tensor`` is computed from ``Const`` ops alone through stateless
    ops (control inputs aside): what TF's shape refiner can evaluate at graph
    construction. Gives up (False) past ``limit`` ops."""
    seen, todo = set(), [tensor.op]
    while todo:
        op = todo.pop()
        if op in seen:
            continue
        seen.add(op)
        if len(seen) > limit or op.type in _NOT_CONSTANT or (not op.inputs and op.type != "Const"):
            return False
        try:
            if registry.get(op.type).stateful:
                return False
        except LookupError:
            return False
        todo.extend(t.op for t in op.inputs)
    return True


def _strided_slice_shape(op):
    """``constant_value_as_shape`` of a 1-D ``StridedSlice`` with known begin/end/strides and no special masks."""
    bounds = [constant_value(t) for t in op.inputs[1:4]]
    if any(b is None for b in bounds) or any(op._get_attr(m) for m in ("ellipsis_mask", "new_axis_mask",
                                                                     "shrink_axis_mask")):
        return None
    if op._get_attr("begin_mask") not in (0, 1) or op._get_attr("end_mask") not in (0, 1):
        return None
    begin, end, stride = (int(np.asarray(b).reshape(-1)[0]) for b in bounds)
    begin = None if op._get_attr("begin_mask") == 1 else begin
    end = None if op._get_attr("end_mask") == 1 else end
    prev = constant_value_as_shape(op.inputs[0])
    if prev.ndims is None:
        return None
    return TensorShape(prev.as_list()[begin:end:stride])

