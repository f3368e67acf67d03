"""The graph builder and tensor conversion (TF's ``op_def_library.apply_op`` and
``tensor_conversion_registry``/``convert_to_tensor``, one module here because
each calls the other: conversion builds ``Const``/``Pack``/``Cast`` ops, the
builder converts its inputs).

``apply_op`` is the graph builder every TF1 function goes through: it looks the
op up in the registry (:mod:`ref.ops.registry`), converts and type-checks the
inputs, infers static shapes with the declared rule, and adds the op.
"""
from __future__ import annotations

import collections
import contextlib
import keyword
import re
import warnings
import weakref

import numpy as np

from ref.types import dtypes
from ref.platform import modes
from ref.types.shapes import Dimension, TensorShape, as_shape
from ref.ops import registry
from ref.framework.graph import Operation, graph_of, get_default_graph, name_scope
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.tensor import Tensor
from ref.framework.tensor_util import (_contains_tensor, constant_value, constant_value_as_shape,
                                       shape_inference_value)

# ---------------------------------------------------------------------------
# Conversion
# ---------------------------------------------------------------------------

_conversion_functions = []  # (base_type, fn, priority)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers ``conversion_func(value, dtype=None, name=None, as_ref=False)`` for ``base_type``."""
    _conversion_functions.append((base_type, conversion_func, priority))
    _conversion_functions.sort(key=lambda e: e[2])


def as_bytes_array(value) -> np.ndarray:
    """An object array of ``bytes`` (TF's string tensors hold bytes; str is UTF-8 encoded)."""
    arr = np.array(value, dtype=object)
    flat = arr.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, np.bytes_):
            flat[i] = bytes(v)
        elif not isinstance(v, bytes):
            raise TypeError(f"Expected string, got {v!r} of type '{type(v).__name__}' instead.")
    return arr


def _dims_as_ints(value):
    """``value`` with its ``Dimension`` entries as ints (an unknown one raises
    TypeError, as TF's conversion to an integer dtype does)."""
    if isinstance(value, Dimension):
        return int(value)
    if isinstance(value, (list, tuple)):
        return [_dims_as_ints(v) for v in value]
    return value


def _python_to_numpy(value, dtype):
    """NumPy value for a Python/NumPy constant, TF's inference when ``dtype`` is None."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if dtype == dtypes.string:
            return as_bytes_array(value)
        arr = np.asarray(value)
        if arr.dtype == object and dtype.is_integer:  # TF1 dims in a shape list: [x.shape[1], 5]
            arr = np.asarray(_dims_as_ints(value))
        if isinstance(value, (np.ndarray, np.generic)) and arr.dtype.kind in "biufc" and dtype.np is not None:
            # TF's make_tensor_proto casts a NumPy value to the dtype asked for (checks Python values only)
            return arr.astype(dtype.np)
        if arr.dtype.kind in "fc" and dtype.is_integer and arr.size:
            raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
        if arr.dtype.kind == "b" and not dtype.is_bool:
            raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
        if arr.dtype.kind in "OSU" and dtype != dtypes.string:
            raise TypeError(f"Expected {dtype.name}, but got {value!r} of type '{type(value).__name__}'.")
        # Integers out of ``dtype``'s range wrap around (two's complement), as TF's
        # make_tensor_proto gives them: constant(999, uint8) is 231.
        return arr.astype(dtype.np)
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype.kind in "SUO":
            arr = as_bytes_array(arr)
        return arr
    arr = np.asarray(value)
    if arr.dtype == np.float64:
        return arr.astype(np.float32)
    if arr.dtype == np.int64:
        if arr.size == 0 or (arr.min() >= -2**31 and arr.max() < 2**31):
            return arr.astype(np.int32)
        return arr
    if arr.dtype.kind in "SU":
        return as_bytes_array(value)
    if arr.dtype == np.complex128:
        return arr
    if arr.dtype == object:
        if value is None:  # TF: a ValueError, so tf.losses(weights=None) fails as TF's tests expect
            raise ValueError("None values not supported.")
        raise TypeError(f"Failed to convert object of type {type(value).__name__} to Tensor. "
                        f"Contents: {value!r}.")
    return arr



def _tensor_like(v):
    """A Tensor, or an object with a registered conversion (a Variable): TF's
    autopacking packs both."""
    return isinstance(v, Tensor) or (not isinstance(v, (list, tuple, np.ndarray))
                                     and any(isinstance(v, b) for b, _, _ in _conversion_functions))


def _first_tensor_dtype(value):
    """The dtype of the first Tensor in nested lists (TF's _get_dtype_from_nested_lists)."""
    if _tensor_like(value):
        return value.dtype.base_dtype
    if isinstance(value, (list, tuple)):
        for v in value:
            d = _first_tensor_dtype(v)
            if d is not None:
                return d
    return None


def _cast_nested_tensors(value, dtype):
    """``value`` with every Tensor not of ``dtype`` cast to it (TF's autopacking
    converts a list of tensors to a requested dtype so)."""
    if isinstance(value, Tensor):
        return value if value.dtype.base_dtype == dtype else apply_op("Cast", x=value, DstT=dtype, name="Cast")
    if isinstance(value, (list, tuple)):
        return [_cast_nested_tensors(v, dtype) for v in value]
    return value


def _contains_indexed_slices(value):
    if isinstance(value, IndexedSlices):
        return True
    return isinstance(value, (list, tuple)) and any(_contains_indexed_slices(v) for v in value)


def _autopack(value, dtype, preferred_dtype, name):
    """A list holding tensors as one ``Pack`` named ``name``, built as TF's
    _autopacking_helper: under the scope ``name``, nested lists are packed first
    (each under its index's scope, which the scope takes even when the list has
    no tensor), then the remaining values become constants named by index.
    Returns the list itself when nothing in it is a tensor."""
    with name_scope(name) as scope:
        elems, must_pack = [], False
        for i, v in enumerate(value):
            if _tensor_like(v):
                must_pack = True
                if isinstance(v, Tensor) and dtype is not None and v.dtype.base_dtype != dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype {v.dtype} to {dtype} "
                                    f"(Tensor is: {v!r})")
                elems.append(convert_to_tensor(v, dtype=dtype))
            elif isinstance(v, (list, tuple)):
                packed = _autopack(v, dtype, preferred_dtype, str(i))
                must_pack = must_pack or isinstance(packed, Tensor)
                elems.append(packed)
            else:
                elems.append(v)
        if not must_pack:
            return list(value)
        elems = [e if isinstance(e, Tensor) else convert_to_tensor(e, dtype=dtype, name=str(i))
                 for i, e in enumerate(elems)]
        return apply_op("Pack", values=elems, axis=0, name=scope)


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None, as_ref=False):
    """A Tensor for ``value``: Tensors pass through (dtype checked), Variables give
    their value, Python/NumPy values become ``Const`` ops, lists holding tensors
    are packed."""
    preferred_dtype = preferred_dtype or dtype_hint
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{value.dtype.name}: {value!r}")
        return value
    for base_type, fn, _ in reversed(_conversion_functions):
        if isinstance(value, base_type):
            t = fn(value, dtype=dtype, name=name, as_ref=as_ref)
            if dtype is not None and not dtype.is_compatible_with(t.dtype):
                raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                                 f"{t.dtype.name}: {t!r}")
            return t
    if isinstance(value, IndexedSlices):
        return _indexed_slices_to_tensor(value, dtype, name)
    if isinstance(value, Operation):
        raise TypeError(f"Can't convert Operation '{value.name}' to Tensor (target dtype={dtype}, "
                        f"name={name}, as_ref={as_ref})")
    if isinstance(value, (list, tuple)) and _contains_tensor(value):
        if _contains_indexed_slices(value):  # TF's autopacking packs Tensors only
            raise TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a "
                            "supported type. See https://www.tensorflow.org/api_docs/python/tf/dtypes for "
                            "supported TF dtypes.")
        inferred = _first_tensor_dtype(value)  # TF: the first tensor's dtype, unless one is asked for
        if dtype is None:
            dtype = inferred
        elif inferred is not None and inferred != dtypes.as_dtype(dtype).base_dtype:
            value = _cast_nested_tensors(value, dtypes.as_dtype(dtype).base_dtype)
        return _autopack(value, dtype, preferred_dtype, name or "packed")
    if dtype is None and preferred_dtype is not None:
        try:
            arr = _python_to_numpy(value, preferred_dtype)
        except (TypeError, ValueError):
            arr = _python_to_numpy(value, None)
        else:
            # Only Python/NumPy values that convert losslessly take the preferred dtype.
            raw = np.asarray(value)
            if raw.dtype.kind in "fc" and raw.size and dtypes.as_dtype(preferred_dtype).is_integer:
                arr = _python_to_numpy(value, None)
    else:
        arr = _python_to_numpy(value, dtype)
    return constant(arr, dtype=dtypes.as_dtype(arr.dtype) if arr.dtype != object else dtypes.string,
                    name=name or "Const")


def _dimension_to_tensor(d, dtype=None, name=None, as_ref=False):
    """A known ``Dimension`` as an int32 (or int64) scalar ``shape_as_tensor``, as TF converts it."""
    if d.value is None:
        raise ValueError(f"Cannot convert unknown Dimension {d} to a Tensor.")
    if dtype is not None and dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Cannot convert Dimension {d} to dtype {dtype}. Allowed dtypes are tf.int32 and tf.int64.")
    return constant(d.value, dtype=dtype or dtypes.int32, name=name or "shape_as_tensor")


register_tensor_conversion_function(Dimension, _dimension_to_tensor)


def _tensor_shape_to_tensor(s, dtype=None, name=None, as_ref=False):
    """A fully defined ``TensorShape`` as an int32 vector ``shape_as_tensor``
    (int64 when a dimension needs it), as TF converts it."""
    if not s.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {s} to a Tensor.")
    dims = s.as_list()
    wide = any(d >= 2 ** 31 for d in dims)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"Cannot convert TensorShape {s} to dtype <dtype: '{dtype.name}'>. Allowed dtypes are "
                            f"tf.int32 and tf.int64.")
        if dtype == dtypes.int32 and wide:
            raise ValueError(f"Cannot convert TensorShape {s} to dtype int32; a dimension is too large. Consider "
                             f"using tf.int64.")
    return constant(dims, dtype=dtype or (dtypes.int64 if wide else dtypes.int32), name=name or "shape_as_tensor")


register_tensor_conversion_function(TensorShape, _tensor_shape_to_tensor)


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    return [convert_to_tensor(v, dtype, None if name is None else f"{name}_{i}", preferred_dtype)
            for i, v in enumerate(values)]


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    if isinstance(value, IndexedSlices):
        if dtype and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for "
                             f"IndexedSlices with dtype {value.dtype.name}")
        return value
    return convert_to_tensor(value, dtype, name)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A ``Const`` op holding ``value``, reshaped to ``shape`` if given. As TF1's
    graph-mode constant: one value fills the shape (a zero-stride view when large:
    nothing big is allocated while building), fewer values are padded with the
    last one, more raise ValueError; ``verify_shape`` demands the exact shape."""
    arr = _python_to_numpy(value, dtype)
    given = None  # the values a shape was filled from: TF's proto lists only those
    if shape is not None:
        shape = [int(d) for d in as_shape(shape).as_list()]
        n = int(np.prod(shape, dtype=object))
        if arr.shape != tuple(shape):
            if verify_shape:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {arr.shape}.")
            if 0 < arr.size < n:
                given = arr.reshape(-1)
            if arr.size == 1:  # one value fills any shape, an empty one too
                arr = (np.broadcast_to(arr.reshape(()), shape) if n > _SPLAT_VIEW
                       else np.full(shape, arr.reshape(()), dtype=arr.dtype))
            elif arr.size > n:
                raise ValueError(f"Too many elements provided. Takes at most {n}, but got {arr.size}.")
            elif arr.size == n:
                arr = arr.reshape(shape)
            elif arr.size == 0:
                raise ValueError(f"Cannot fill a shape {tuple(shape)} tensor from zero values.")
            else:  # TF's proto repeats the last value over the rest
                flat = arr.reshape(-1)
                arr = np.concatenate([flat, np.repeat(flat[-1:], n - flat.size)]).reshape(shape)
    dt = dtypes.string if arr.dtype == object else dtypes.as_dtype(arr.dtype)
    if arr.flags.writeable:
        arr.setflags(write=False)
    out = apply_op("Const", value=arr, dtype=dt, name=name)
    if given is not None:
        GIVEN_VALUES[out.op] = given
    return out


# Const op -> the fewer values its shape was filled from: TF's GraphDef lists only
# those (one float_val for tf.zeros([3])); graph_export writes them.
GIVEN_VALUES = weakref.WeakKeyDictionary()


constant_v1 = constant  # TF's name for TF1's graph constant (``constant_op.constant_v1``)


def constant_v2(value, dtype=None, shape=None, name="Const"):
    """TF 2's ``tf.constant`` (``constant_op.constant``) building a graph: a
    single value fills ``shape`` and as many values as ``shape`` holds are
    reshaped to it; any other count is TF's TypeError (TF1's :func:`constant`
    pads with the last value instead)."""
    if shape is not None:
        arr = _python_to_numpy(value, dtype)
        dims = [int(d) for d in as_shape(shape).as_list()]
        n = int(np.prod(dims, dtype=object))
        if arr.shape != tuple(dims) and arr.size != 1 and arr.size != n:
            raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, but got {arr.shape}.")
    return constant(value, dtype=dtype, shape=shape, name=name)


_SPLAT_VIEW = 1 << 16  # a filled constant above this many elements is a broadcast view


# IndexedSlices to a dense Tensor (TF registers this conversion in indexed_slices.py).

_LARGE_SPARSE_NUM_ELEMENTS = 100000000


def _indexed_slices_to_tensor(value, dtype=None, name=None):
    """Densifies IndexedSlices (with TF's warning for large or unknown shapes)."""
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: {value!r}")
    ds = constant_value(value.dense_shape)
    if ds is None:
        warnings.warn("Converting sparse IndexedSlices to a dense Tensor of unknown shape. "
                      "This may consume a large amount of memory.", stacklevel=3)
    elif int(np.prod(ds)) >= _LARGE_SPARSE_NUM_ELEMENTS:
        warnings.warn(f"Converting sparse IndexedSlices to a dense Tensor with {int(np.prod(ds))} "
                      "elements. This may consume a large amount of memory.", stacklevel=3)
    with name_scope(None, "strided_slice") as scope:  # TF: dense_shape[0], as Tensor.__getitem__ names it
        rows = apply_op("StridedSlice", input=value.dense_shape, begin=constant([0], name="stack"),
                        end=constant([1], name="stack_1"), strides=constant([1], name="stack_2"),
                        shrink_axis_mask=1, name=scope)
    return apply_op("UnsortedSegmentSum", data=value.values, segment_ids=value.indices, num_segments=rows,
                    name=name)


# ---------------------------------------------------------------------------
# The graph builder
# ---------------------------------------------------------------------------

def _natural_dtype(value, allowed, default):
    try:
        natural = dtypes.as_dtype(_python_to_numpy(value, None).dtype)
    except (TypeError, ValueError):
        return default
    return natural if natural in allowed else default


def _dtype_of(value):
    if isinstance(value, Tensor):
        return value.dtype.base_dtype
    if hasattr(value, "_as_graph_element") and hasattr(value, "dtype"):
        return dtypes.as_dtype(value.dtype).base_dtype
    return None


_SHAPE_STRUCTURE_OPS = frozenset(("Shape", "Pack", "Cast", "ConcatV2", "StridedSlice"))
_MAX_RANK = 254  # TF's TensorShape holds at most 254 dimensions: a longer vector is no shape


def _partial_shape(tensor):
    """What graph construction knows of a 1-D integer tensor's elements read as
    a shape (``constant_value_as_shape``), when it knows any (else None)."""
    if not tensor.dtype.base_dtype.is_integer or tensor.shape.ndims != 1:
        return None
    # the caller found no constant value; only these ops' structure says more (any other
    # tensor, or one too long to be a shape, would read as all-unknown dimensions, one per
    # element: a long vector's millions of them cost minutes to build and say nothing)
    length = tensor.shape.as_list()[0]
    if tensor.op.type not in _SHAPE_STRUCTURE_OPS or (length is not None and length > _MAX_RANK):
        return None
    known = constant_value_as_shape(tensor, shape_inference_value)
    if known.ndims is None or all(d is None for d in known.as_list()):
        return None
    return known


def _snake(op_type):
    """The name of TF's generated wrapper of an op type: ``DynamicStitch`` -> ``dynamic_stitch``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", op_type).lower()


def apply_op(op_type, name=None, **kwargs):
    """Adds one ``op_type`` op to the default graph from its registry declaration.

    Returns the output Tensor (one output), a tuple of Tensors (several; a list
    for list outputs), or the Operation (no outputs).
    """
    opdef = registry.get(op_type)
    unknown = set(kwargs) - set(opdef.inputs) - set(opdef.attrs)
    if unknown:
        raise TypeError(f"{op_type} got unexpected keyword arguments {sorted(unknown)}")
    for attr in opdef.attrs:  # an AttrValue holds int64s: TF's conversion rejects a larger Python int
        v = kwargs.get(attr)
        if isinstance(v, (list, tuple)) and v and all(type(i) is int for i in v):
            bad = [i for i in v if not -(1 << 63) <= i < (1 << 63)]
        else:
            bad = [v] if type(v) is int and not -(1 << 63) <= v < (1 << 63) else []
        if bad:
            raise ValueError(f"Value out of range: {bad[0]} for attr '{attr}' of {op_type}")

    # Group dtypes: the first input with a known dtype fixes each type attr.
    group_dtype, fixed_by = {}, {}
    for attr, members in opdef.type_attrs.items():
        for m in members:
            v = kwargs.get(m)
            vals = v if m in opdef.list_inputs and isinstance(v, (list, tuple)) else [v]
            for x in vals:
                d = _dtype_of(x)
                if d is not None:
                    group_dtype[attr], fixed_by[attr] = d, m
                    break
            if attr in group_dtype:
                break
        if attr not in group_dtype and attr in opdef.attrs and kwargs.get(attr) is not None:
            group_dtype[attr] = dtypes.as_dtype(kwargs[attr])
        if attr not in group_dtype:
            # Python values only: TF converts them with the attr's default (or first allowed) type.
            default = opdef.attrs.get(attr)
            if isinstance(default, dtypes.DType) and opdef.allowed.get(attr):
                # TF: the value's own dtype where allowed, else the attr's default
                # ([1, 2] stays int32; a uint64 array of seeds becomes int64)
                group_dtype[attr] = _natural_dtype(kwargs.get(members[0]), opdef.allowed[attr], default)
            elif isinstance(default, dtypes.DType):
                group_dtype[attr] = default
            elif opdef.allowed.get(attr) and all(d.is_integer for d in opdef.allowed[attr]):
                # Python ints become int32 where allowed (TF's conversion: int64 for one past int32's
                # range), else the first allowed type
                allowed = opdef.allowed[attr]
                fallback = dtypes.int32 if dtypes.int32 in allowed else allowed[0]
                group_dtype[attr] = _natural_dtype(kwargs.get(members[0]), allowed, fallback)
    member_attr = {m: a for a, ms in opdef.type_attrs.items() for m in ms}

    modes.check_graph_building()  # after enable_v2_behavior outside a graph, TF would run it eagerly
    graph = get_default_graph()
    if not graph._building_function:
        graph = graph_of([v for v in kwargs.values()] + [x for v in kwargs.values()
                                                         if isinstance(v, (list, tuple)) for x in v])
    # TF converts Python inputs inside the op's own name scope, naming each
    # constant after its input ("Add/y"), and names the op after that scope.
    with graph.as_default(), graph.name_scope(name or op_type) as op_scope:
        inputs, named, list_sizes = [], {}, {}
        for in_name in opdef.inputs:
            if in_name not in kwargs:
                raise TypeError(f"{op_type} missing required input '{in_name}'")
            v = kwargs[in_name]
            hint = group_dtype.get(member_attr.get(in_name)) or opdef.input_types.get(in_name)
            is_ref = in_name in opdef.refs
            if in_name in opdef.list_inputs:
                if not isinstance(v, (list, tuple)):
                    raise TypeError(f"Expected list for '{in_name}' argument to '{op_type}' Op, not {v!r}.")
                # TF's convert_n_to_tensor: list items are named "<input>_<i>" ("Assert/data_0").
                # TF: the first Tensor in the list fixes the dtype its other items are converted to
                # (a nested list of tensors is packed with each cast: concat([int64 t, [[i32]]]))
                first = next((x.dtype.base_dtype for x in v if isinstance(x, Tensor)), None)
                ts = [_convert_input(x, hint, op_type, in_name, is_ref, f"{in_name}_{i}",
                                     strict=first if isinstance(x, (list, tuple)) else None)
                      for i, x in enumerate(v)]
                list_sizes[in_name] = len(ts)
                inputs.extend(ts)
                named[in_name] = ts
            else:
                # TF converts an input whose type attr an earlier input's Tensor fixed to that
                # dtype: a list of tensors of another dtype is packed with each cast
                # (tensor_scatter_update(float32 t, i, [int32 range, ...]))
                attr = member_attr.get(in_name)
                fixer = fixed_by.get(attr)
                strict = hint if fixer is not None and fixer != in_name and isinstance(v, (list, tuple)) \
                    and opdef.inputs.index(fixer) < opdef.inputs.index(in_name) else None
                t = _convert_input(v, hint, op_type, in_name, is_ref,
                                   registry.TF_INPUT_NAMES.get(op_type, {}).get(in_name), strict=strict)
                fixed = opdef.input_types.get(in_name)
                if fixed is not None and t.dtype.base_dtype != fixed:
                    raise TypeError(f"Input '{in_name}' of '{op_type}' Op has type {t.dtype.base_dtype.name} that "
                                    f"does not match expected type of {fixed.name}.")
                inputs.append(t)
                named[in_name] = t
                attr = member_attr.get(in_name)
                if attr is not None and attr not in group_dtype and t.dtype.base_dtype != dtypes.resource:
                    # TF converts inputs in order: a Python value converted first fixes the type
                    # attr for the inputs that share it ("MatrixDiagV3": diagonal, padding_value)
                    group_dtype[attr] = t.dtype.base_dtype

        # Type attrs: every member must agree; allowed sets checked.
        attrs = {}
        for attr, members in opdef.type_attrs.items():
            seen = None
            for m in members:
                ts = named[m] if isinstance(named[m], list) else [named[m]]
                for t in ts:
                    d = t.dtype.base_dtype
                    if d == dtypes.resource and m in opdef.refs:
                        continue
                    if seen is None:
                        seen = (m, d)
                    elif d != seen[1]:
                        raise TypeError(f"Input '{m}' of '{op_type}' Op has type {d.name} that does not match "
                                        f"type {seen[1].name} of argument '{seen[0]}'.")
            if seen is None:
                if attr in kwargs and kwargs[attr] is not None:
                    seen = (None, dtypes.as_dtype(kwargs[attr]))
                elif attr in opdef.attrs and opdef.attrs[attr] is not registry.REQUIRED:
                    seen = (None, dtypes.as_dtype(opdef.attrs[attr]))
            if seen is not None:
                allowed = opdef.allowed.get(attr)
                if allowed and seen[1] not in allowed:
                    raise TypeError(f"Value passed to parameter '{seen[0] or attr}' has DataType "
                                    f"{seen[1].name} not in list of allowed values: "
                                    f"{', '.join(d.name for d in allowed)}")
                attrs[attr] = seen[1]
        for attr, members in opdef.type_lists.items():  # TF's list(type) attrs: the inputs' dtypes
            attrs[attr] = [t.dtype.base_dtype for t in named[members]]
        for attr, default in opdef.attrs.items():
            # None for an attr with a default is the default (TF's generated wrappers: ``if x is None: x = ...``).
            if attr in kwargs and (kwargs[attr] is not None or default is registry.REQUIRED):
                val = kwargs[attr]
                attrs[attr] = dtypes.as_dtype(val) if isinstance(default, dtypes.DType) and val is not None else val
            elif default is registry.REQUIRED:
                if attr not in attrs:
                    raise TypeError(f"{op_type} missing required attr '{attr}'")
            else:
                attrs.setdefault(attr, default)
        for attr, choices in opdef.allowed.items():  # a string attr with a set of values (TF's "{'MEAN', 'SUM'}")
            if (attr not in opdef.type_attrs and all(isinstance(c, str) for c in choices)
                    and isinstance(attrs.get(attr), str) and attrs[attr] not in choices):
                raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed string '{attrs[attr]}' not in: "
                                 + ", ".join(f'"{c}"' for c in choices) + ".")
        if opdef.stateful and "container" in opdef.attrs and not attrs.get("container") and graph._container:
            attrs["container"] = graph._container  # TF: a stateful op takes tf.container's name
        first_of = {}
        for in_name, count_attr in opdef.list_inputs.items():
            if count_attr:
                if count_attr in first_of and list_sizes[in_name] != list_sizes[first_of[count_attr]]:
                    # TF's generated wrapper checks the lists sharing a length attr, naming itself
                    raise ValueError(f"List argument '{in_name}' to '{_snake(op_type)}' Op with length "
                                     f"{list_sizes[in_name]} must match length {list_sizes[first_of[count_attr]]} "
                                     f"of argument '{first_of[count_attr]}'.")
                first_of.setdefault(count_attr, in_name)
                attrs[count_attr] = list_sizes[in_name]
        if list_sizes:
            attrs["_list_sizes"] = list_sizes

        specs = {}
        for in_name, v in named.items():
            if isinstance(v, list):
                specs[in_name] = [registry.Spec(t.dtype.base_dtype, t.shape, shape_inference_value(t)) for t in v]
            else:
                value = None if in_name in opdef.refs else shape_inference_value(v)
                specs[in_name] = registry.Spec(v.dtype.base_dtype, v.shape, value,
                                               _partial_shape(v) if value is None else None)
        display = op_scope.rstrip("/")
        try:
            out_specs = opdef.infer(specs, {**attrs, "_op_name": display})
        except ValueError as e:
            msg = str(e)
            if display not in msg:
                msg = f"{msg} for '{display}' (op: '{op_type}')"
            raise ValueError(msg) from None
        if opdef.ref_outputs:
            out_names = opdef.outputs
            out_specs = [(d._as_ref if out_names[i] in opdef.ref_outputs and
                          _first(named[opdef.ref_outputs[out_names[i]]]).dtype.is_ref_dtype else d, s)
                         for i, (d, s) in enumerate(out_specs)]
        # TF colocates an op with its ref-typed inputs (a variable's Assign, ApplyX run where it lives)
        with contextlib.ExitStack() as stack:
            for in_name in opdef.refs + _REF_TYPED_INPUTS.get(op_type, ()):
                t = _first(named.get(in_name))
                if isinstance(t, Tensor) and t.dtype.is_ref_dtype:
                    stack.enter_context(graph.colocate_with(t.op))
            if op_type in _REF_HANDLE_OPS and isinstance(named.get("handle"), Tensor):
                stack.enter_context(graph.colocate_with(named["handle"].op))
            if op_type == "Const":  # TF's constant_op adds the op in the caller's scope, not its own
                stack.enter_context(graph.name_scope(op_scope.rstrip("/").rpartition("/")[0] + "/"
                                                     if "/" in op_scope.rstrip("/") else ""))
            op = graph.create_op(op_type, inputs, attrs, op_scope, out_specs, opdef)
    outs = op._outputs
    if not outs:
        return op
    if len(outs) == 1 and len(opdef.outputs) == 1 and not opdef.outputs[0].startswith("*"):
        return outs[0]
    if len(opdef.outputs) == 1 and opdef.outputs[0].startswith("*"):
        return list(outs)
    result = _output_tuple(op_type, opdef.outputs)
    return result(*outs) if result is not None and len(outs) == len(opdef.outputs) else tuple(outs)


_OUTPUT_TUPLES = {}


def _output_tuple(op_type, names):
    """The namedtuple TF's generated wrapper returns for an op of several fixed
    outputs (``TopKV2(values, indices)``), None when an output is a list."""
    if op_type not in _OUTPUT_TUPLES:
        ok = all(n.isidentifier() and not keyword.iskeyword(n) and not n.startswith("_") for n in names)
        # a namespaced op ("Namespace>Op") names its tuple "Namespace_Op", as TF's generated code
        _OUTPUT_TUPLES[op_type] = collections.namedtuple(op_type.replace(">", "_"), names) if ok else None
    return _OUTPUT_TUPLES[op_type]


def _convert_input(value, hint, op_type, in_name, is_ref, const_name=None, strict=None):
    if is_ref:
        if hasattr(value, "_ref") and callable(value._ref) and not isinstance(value, Tensor):
            value = value._ref()
        if not isinstance(value, Tensor):
            raise TypeError(f"'{op_type}' Op requires that input '{in_name}' be a mutable tensor "
                            f"(e.g. a tf.Variable), got {value!r}")
        if not (value.dtype.is_ref_dtype or value.dtype == dtypes.resource):
            raise TypeError(f"'{op_type}' Op requires that input '{in_name}' be a mutable tensor "
                            f"(e.g. a tf.Variable): {value.name} has dtype {value.dtype.name}")
        return _maybe_capture(value)
    try:
        if isinstance(value, (list, tuple)) and not value and hint is not None and hint.is_integer:
            # TF converts an empty list as float32 first, then again as the attr's
            # integer default: a dangling "<input>" Const before "<input>_1".
            convert_to_tensor(value, name=const_name or in_name)
        if strict is not None and _nested_tensor(value):
            t = convert_to_tensor(value, dtype=strict, name=const_name or in_name)
        else:
            t = convert_to_tensor(value, dtype_hint=hint, name=const_name or in_name)
    except ValueError as e:  # TF's op_def_library words a failed conversion so
        raise ValueError(f"Tried to convert '{in_name}' to a tensor and failed. Error: {e}") from None
    except TypeError as e:
        raise TypeError(f"Failed to convert '{in_name}' of '{op_type}' Op: {e}") from None
    return _maybe_capture(t)


# Inputs TF declares Ref(T) that ref's ops take as raw (forwarded) values, not as state:
# TF colocates these ops with them too.
_REF_TYPED_INPUTS = {"RefEnter": ("data",), "RefExit": ("data",), "RefNextIteration": ("data",),
                     "RefSwitch": ("data",), "RefMerge": ("inputs",), "RefIdentity": ("input",),
                     "RefSelect": ("inputs",)}
# TF's ``Ref(string)`` handles of the accumulators, barriers and stacks (ref holds them as plain strings)
_REF_HANDLE_OPS = frozenset((
    "AccumulatorApplyGradient", "AccumulatorNumAccumulated", "AccumulatorSetGlobalStep",
    "AccumulatorTakeGradient", "SparseAccumulatorApplyGradient",
    "SparseAccumulatorTakeGradient", "BarrierClose", "BarrierIncompleteSize",
    "BarrierInsertMany", "BarrierReadySize", "BarrierTakeMany", "StackClose", "StackPop",
    "StackPush"))


def _first(tensors):
    """A tensor, or the first of a list input's (None for an empty list)."""
    if isinstance(tensors, list):
        return tensors[0] if tensors else None
    return tensors


def _nested_tensor(value) -> bool:
    """Whether a nested list holds a Tensor somewhere."""
    if isinstance(value, Tensor):
        return True
    return isinstance(value, (list, tuple)) and any(_nested_tensor(x) for x in value)


def _maybe_capture(t):
    g = get_default_graph()
    if g._building_function and t.graph is not g:
        return g.capture(t)
    return t
