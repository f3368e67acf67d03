"""The op registry: one declaration per op, from which everything else derives.

An op is declared once, next to its kernel::

    @register_op("MatMul", inputs=("a", "b"), outputs=("product",),
                 attrs={"transpose_a": False, "transpose_b": False},
                 type_attrs={"T": ("a", "b")}, allowed={"T": dtypes.NUMBERS},
                 shape=_matmul_shape)
    def matmul(a, b, transpose_a=False, transpose_b=False):
        ...

From that declaration come

* ``ref.raw_ops.MatMul(a=..., b=..., transpose_a=...)`` -- the pure call on
  NumPy arrays (:func:`call`);
* the graph builder (``ref.framework.op_def_library.apply_op("MatMul", a=..., b=...)``), which
  checks dtypes, infers static shapes with the ``shape`` rule and adds a frozen
  ``Operation``;
* the NodeDef/AttrValue mapping used by ``as_graph_def``/``import_graph_def``.

Kernel convention: a kernel is a pure function called with keyword arguments,
inputs (NumPy arrays, or lists of arrays for list inputs) then attrs. It never
mutates its inputs and returns one array or a tuple of arrays. A stateful op
with ``refs`` (a training op, ``Assign``, ``ScatterUpdate``) receives the current
values of its ref inputs and returns their NEW values first, in ``refs`` order,
followed by any further outputs; the interpreter commits them to its state
store. Ops declared with ``ctx=True`` also receive ``ctx``, the run context
(random generator, sub-graph runner, session resources).

Shape rules are called as ``shape(ins, attrs)`` where ``ins`` maps input name to
:class:`Spec` (dtype, static TensorShape, constant value or None) -- or a list of
Specs for a list input -- and ``attrs`` holds every attr, type attrs included.
They return a list of ``(dtype, shape)``, one per output, and raise ValueError
naming the offending shapes when inputs cannot go together.
"""
from __future__ import annotations

import numbers
from typing import Any, Callable

import attrs as _attrs
import numpy as np

from ref import ops as _ops
from ref.types import dtypes as _dtypes, errors
from ref.types.shapes import TensorShape, int_dims, unknown_shape
from ref.ops.context import RawContext
from ref.ops.type_defaults import TYPE_ATTR_DEFAULTS

REQUIRED = type("REQUIRED", (), {"__repr__": lambda self: "REQUIRED"})()
"""Marks an attr that has no default and must be given."""


@_attrs.frozen
class Spec:
    """What graph construction knows about one input: dtype, static shape, constant value."""

    dtype: Any
    shape: TensorShape
    value: Any = None  # np.ndarray when the input is a known constant
    # What graph construction knows of a 1-D integer input read as a shape when
    # its value is not known (TF's shape refiner: ``tf.stack([tf.shape(x)[0], 3])``
    # gives ``[?, 3]``); None when nothing more than its length is known.
    partial: Any = None


def shape_input(spec: Spec) -> TensorShape:
    """The static shape a 1-D shape input describes (TF's
    ``MakeShapeFromShapeTensor``): its value (-1 an unknown dimension), else the
    dimensions known of its elements, else only its length."""
    if spec.value is not None:
        return TensorShape([None if d < 0 else d for d in (int(x) for x in np.asarray(spec.value).reshape(-1))])
    if spec.partial is not None:
        return spec.partial
    return unknown_shape(spec.shape[0] if spec.shape.ndims == 1 else None)


@_attrs.frozen
class OpDef:
    """The single declaration of an op."""

    name: str
    inputs: tuple
    outputs: tuple
    attrs: dict
    type_attrs: dict
    allowed: dict
    list_inputs: dict
    shape: Callable | None
    kernel: Callable | None
    gpu_kernel: Callable | None
    stateful: bool
    refs: tuple
    ref_outputs: dict
    allow_uninitialized: tuple
    ctx: bool
    creates_ref: bool
    raw_inputs: tuple = ()
    input_types: dict = _attrs.Factory(dict)  # an input of one fixed dtype (TF's "a: int32")
    type_lists: dict = _attrs.Factory(dict)  # a list(type) attr -> the list input whose dtypes it holds

    def infer(self, ins: dict, attrs: dict) -> list:
        """Output (dtype, TensorShape) pairs for the given input Specs and attrs."""
        if self.shape is not None:
            with int_dims():  # the rules read dims as ints/None, as TF's C++ shape functions do
                return [(_dtypes.as_dtype(d), TensorShape(s)) for d, s in self.shape(ins, attrs)]
        first = ins[self.inputs[0]]
        return [(first.dtype, first.shape)]


_REGISTRY: dict[str, OpDef] = {}

# Inputs whose ``tf.raw_ops`` argument name differs from the op def's input
# name: TF names a converted Python input after the op def's name
# ("Sum/reduction_indices", "ExpandDims/dim"), so the graph builder does too.
_REDUCTION = {"axis": "reduction_indices"}
TF_INPUT_NAMES = {
    **{op: _REDUCTION for op in ("All", "Any", "EuclideanNorm", "Max", "Mean", "Min", "Prod", "Sum")},
    "ExpandDims": {"axis": "dim"}, "Select": {"x": "t", "y": "e"}, "Split": {"axis": "split_dim"},
    "SplitV": {"axis": "split_dim"}, "StringToNumber": {"string_input": "string_tensor"},
    "Where": {"condition": "input"},
}
# Attrs whose ``tf.raw_ops`` argument name differs from the op def's attr name:
# a GraphDef carries the op def's name (TF reads no other).
TF_ATTR_NAMES = {"Squeeze": {"axis": "squeeze_dims"}}
FROM_TF_ATTR_NAMES = {op: {tf: ours for ours, tf in names.items()} for op, names in TF_ATTR_NAMES.items()}


def register_op(name, inputs=(), outputs=("output",), attrs=None, type_attrs=None, allowed=None,
                list_inputs=None, shape=None, stateful=False, refs=(), ref_outputs=None,
                allow_uninitialized=(), ctx=False, creates_ref=False, gpu=None, raw_inputs=(), input_types=None,
                type_lists=None):
    """Declares op ``name`` with the decorated function as its CPU kernel.

    ``list_inputs`` maps a list input to the attr holding its length (``"N"``)
    or to None. ``type_attrs`` maps a type attr (``"T"``) to the inputs whose
    dtype it is (they must agree); ``allowed`` restricts a type attr's dtypes.
    ``ref_outputs`` maps an output to the ref input it aliases (``Assign``'s
    ``output_ref`` is its ``ref``). ``raw_inputs`` are handed over without
    dereferencing variables (control flow passes refs into its bodies).
    ``input_types`` maps an input of one fixed dtype (TF's ``a: int32``) to it.
    ``type_lists`` maps a ``list(type)`` attr (``IdentityN``'s ``T``) to the list
    input whose dtypes graph construction records in it.
    """

    def deco(kernel):
        _REGISTRY[name] = OpDef(
            name=name, inputs=tuple(inputs), outputs=tuple(outputs), attrs=dict(attrs or {}),
            type_attrs={k: (v,) if isinstance(v, str) else tuple(v) for k, v in (type_attrs or {}).items()},
            allowed=dict(allowed or {}), list_inputs=dict(list_inputs or {}), shape=shape,
            kernel=kernel, gpu_kernel=gpu, stateful=bool(stateful or refs), refs=tuple(refs),
            ref_outputs=dict(ref_outputs or {}), allow_uninitialized=tuple(allow_uninitialized),
            ctx=ctx, creates_ref=creates_ref, raw_inputs=tuple(raw_inputs),
            input_types={k: _dtypes.as_dtype(v) for k, v in (input_types or {}).items()},
            type_lists=dict(type_lists or {}))
        return kernel

    return deco


def get(name: str) -> OpDef:
    """The declaration of op type ``name``; the kernel families are imported on
    the first miss (:func:`ref.ops.load_all`), so no caller has to."""
    op = _REGISTRY.get(name)
    if op is None:
        _ops.load_all()
        op = _REGISTRY.get(name)
    if op is None:
        raise LookupError(f"Op type not registered '{name}'")
    return op


def type_defaults(name: str) -> dict:
    """The defaults of op ``name``'s type attrs that have one (TF's op
    definition), attr name -> DType; ``{}`` for an op with none."""
    return {k: _dtypes.as_dtype(v) for k, v in TYPE_ATTR_DEFAULTS.get(name, {}).items()}


def registered() -> dict[str, OpDef]:
    """All declarations, by op-type name (a copy), every family loaded."""
    _ops.load_all()
    return dict(_REGISTRY)


# -- the pure call ------------------------------------------------------------

def _group_dtype(op: OpDef, name: str, kwargs: dict):
    """The dtype a Python scalar given for input ``name`` should take: the dtype
    of the first array among the inputs sharing its type attr."""
    for members in op.type_attrs.values():
        if name in members:
            for m in members:
                v = kwargs.get(m)
                if isinstance(v, (list, tuple)) and m in op.list_inputs:
                    v = next((x for x in v if isinstance(x, (np.ndarray, np.generic))), None)
                if isinstance(v, (np.ndarray, np.generic)):
                    return v.dtype
                if hasattr(v, "copy_to_host") and hasattr(v, "dtype"):  # a CUDA device array
                    return np.dtype(v.dtype)
    return None


def to_array(value, dtype=None) -> np.ndarray:
    """NumPy array for a raw-op input: Python floats become float32 and ints
    int32 (TensorFlow's defaults) unless a dtype is implied by another input."""
    if isinstance(value, np.ndarray):
        return value if dtype is None or value.dtype == dtype else value.astype(dtype)
    if isinstance(value, np.generic):
        return np.asarray(value) if dtype is None else np.asarray(value, dtype)
    if dtype is not None:
        return np.asarray(value, dtype=dtype)
    arr = np.asarray(value)
    if arr.dtype == np.float64 and not _holds_numpy(value):
        return arr.astype(np.float32)
    if arr.dtype == np.int64 and not _holds_numpy(value):
        if arr.size == 0 or (arr.min() >= -2**31 and arr.max() < 2**31):
            return arr.astype(np.int32)
    if arr.dtype.kind == "U":
        return arr.astype(object)
    return arr


def _holds_numpy(value) -> bool:
    if isinstance(value, (np.ndarray, np.generic)):
        return True
    if isinstance(value, (list, tuple)) and value:
        return _holds_numpy(value[0])
    return False


def call(name: str, /, device: str = "cpu", **kwargs):
    """Runs op ``name``'s kernel on NumPy values: ``ref.raw_ops.<name>(**kwargs)``.

    ``device="gpu"`` runs the op's GPU kernel (``register_op(gpu=...)``; the dense
    training ops have one, see ``ref/ops/_cuda.py``), which also takes CUDA device
    arrays; TypeError for an op without one.
    """
    op = get(name)
    if device not in ("cpu", "gpu"):
        raise ValueError(f"device must be 'cpu' or 'gpu', got {device!r}")
    kernel = op.kernel if device == "cpu" else op.gpu_kernel
    if kernel is None and device == "gpu":
        raise TypeError(f"{name} has no GPU kernel; call it with device='cpu' (GPU kernels: "
                        f"{', '.join(sorted(n for n, o in _REGISTRY.items() if o.gpu_kernel is not None))})")
    if kernel is None:
        raise TypeError(f"{name} has no pure kernel (it only exists in a graph)")
    kwargs.pop("name", None)
    unknown = set(kwargs) - set(op.inputs) - set(op.attrs) - {"ctx"}
    if unknown:
        raise TypeError(f"{name}() got unexpected keyword argument(s) {sorted(unknown)}; "
                        f"inputs are {list(op.inputs)}, attrs {list(op.attrs)}")
    args = {}
    for inp in op.inputs:
        if inp not in kwargs:
            raise TypeError(f"{name}() missing required input '{inp}'")
        v = kwargs[inp]
        if inp in op.list_inputs:
            dt = _group_dtype(op, inp, kwargs)
            args[inp] = [to_array(x, dt) if not isinstance(x, np.ndarray) else x for x in v]
        elif isinstance(v, np.ndarray) or (device == "gpu" and hasattr(v, "copy_to_host")):
            args[inp] = v
        elif v is None or getattr(v, "is_variant", False):  # a variant value (TensorList) passes as is
            args[inp] = v
        else:
            dt = _group_dtype(op, inp, kwargs) if isinstance(v, (numbers.Number, list, tuple)) else None
            args[inp] = to_array(v, dt)
    for attr, default in op.attrs.items():
        if attr in kwargs:
            args[attr] = kwargs[attr]
        elif default is REQUIRED:
            raise TypeError(f"{name}() missing required attr '{attr}'")
        else:
            args[attr] = default
    if op.ctx:
        args["ctx"] = kwargs.get("ctx") or default_context(args)
    with np.errstate(all="ignore"):  # TF's kernels are silent on inf/nan arithmetic
        return kernel(**args)


def default_context(args):
    """A context for a raw-op call outside any Session (random ops get their
    generator from the op's seeds)."""
    return RawContext(args.get("seed", 0), args.get("seed2", 0))


# -- common shape rules -------------------------------------------------------

def require_rank(ins, attrs, **ranks):
    """Graph construction's rank check (TF's ``WithRank``): ValueError unless each
    named input's known rank is the given one (an int) or one of them (a tuple or
    range)."""
    for name, want in ranks.items():
        r = ins[name].shape.ndims
        allowed = want if isinstance(want, (tuple, range)) else (want,)
        if r is not None and r not in allowed:
            said = (f"at least rank {allowed.start}" if isinstance(allowed, range)
                    else "rank " + " or ".join(map(str, allowed)))
            raise ValueError(f"Shape must be {said} but is rank {r} for '{attrs.get('_op_name')}' ({name}) with "
                             f"input shapes: {', '.join(str(ins[n].shape) for n in ins)}.")


def unary_shape(ins, attrs):
    """Same dtype and shape as the (first) input."""
    first = next(iter(ins.values()))
    return [(first.dtype, first.shape)]


def broadcast_shapes(a: TensorShape, b: TensorShape, op_name="op") -> TensorShape:
    """NumPy/TF broadcasting of two static shapes; ValueError if they cannot broadcast."""
    if a.ndims is None or b.ndims is None:
        return unknown_shape()
    la, lb = a.as_list(), b.as_list()
    n = max(len(la), len(lb))
    la = [1] * (n - len(la)) + la
    lb = [1] * (n - len(lb)) + lb
    out = []
    for x, y in zip(la, lb):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x == y:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y} for '{op_name}' "
                             f"with input shapes: {a}, {b}.")
    return TensorShape(out)


def broadcast_rule(*names, dtype=None):
    """Shape rule: broadcast the named inputs; dtype of the first (or ``dtype``)."""

    def rule(ins, attrs):
        specs = [ins[n] for n in names]
        shape = specs[0].shape
        for s in specs[1:]:
            shape = broadcast_shapes(shape, s.shape, attrs.get("_op_name", "op"))
        return [(dtype or specs[0].dtype, shape)]

    return rule


def fixed_rule(*outs):
    """Shape rule returning fixed (dtype, shape) pairs."""
    return lambda ins, attrs: list(outs)


def invalid_argument(message: str) -> errors.InvalidArgumentError:
    """The error a kernel raises for bad run-time input (the Session adds the op)."""
    return errors.InvalidArgumentError(None, None, message)
