"""State ops: variables (``VariableV2`` refs and ``VarHandleOp`` resources), the
assignments and sparse (scatter) updates on them, and their predicates.

Kernels are pure (see :mod:`ref.ops.registry`): an op with ``refs`` receives the
current value of its variable and returns the NEW value first, then any other
outputs; the Session commits it. So ``ref.raw_ops.ScatterAdd(ref=, indices=,
updates=)`` simply returns the updated array.

Duplicate indices (TF docs, "Variables", "Sparse Variable Updates": "Duplicate entries are
handled correctly: if multiple indices reference the same location, their
contributions add") are applied one after another, in index order, as TF's CPU
kernels do -- so the result is deterministic, also for ``ScatterUpdate``
(the last duplicate wins) and for the non-commutative float sums.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes, errors
from ref.ops import _jit
from ref.ops._jit import njit
from ref.ops.slicing import _MASK_ATTRS, _strided_slice_assign, _strided_slice_assign_shape
from ref.ops.array import _dims
from ref.ops.gather_scatter import _check_scatter_target, scatter_nd_shape_check
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, as_shape, unknown_shape

_INDEX = (dtypes.int32, dtypes.int64)


def _shape_str(shape) -> str:
    shape = as_shape(shape)
    if shape.ndims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


# ---------------------------------------------------------------------------
# Variables
# ---------------------------------------------------------------------------

def _variable_shape(ins, attrs):
    shape = attrs.get("shape")
    shape = unknown_shape() if shape is None else as_shape(shape)
    return [(dtypes.as_dtype(attrs["dtype"])._as_ref, shape)]


@register_op("VariableV2", inputs=(), outputs=("ref",),
             attrs={"shape": REQUIRED, "dtype": REQUIRED, "container": "", "shared_name": ""},
             shape=_variable_shape, stateful=True, creates_ref=True)
def variable_v2(shape, dtype, container="", shared_name=""):
    """A mutable tensor of ``dtype``/``shape`` whose value persists across
    ``Session.run`` calls. Its output is a reference (``float32_ref``) keyed by
    ``shared_name`` or the op name; the value lives in the Session."""
    raise errors.FailedPreconditionError(
        None, None, "VariableV2 holds state: it has a value only inside a Session (use the ops that read it)")


@register_op("Variable", inputs=(), outputs=("ref",),
             attrs={"shape": REQUIRED, "dtype": REQUIRED, "container": "", "shared_name": ""},
             shape=_variable_shape, stateful=True, creates_ref=True)
def variable(shape, dtype, container="", shared_name=""):
    """TF's deprecated ``Variable`` op: ``VariableV2`` under its first name
    (``tf.compat.v1`` graphs and ``state_ops.variable_op`` still make it)."""
    raise errors.FailedPreconditionError(
        None, None, "Variable holds state: it has a value only inside a Session (use the ops that read it)")


@register_op("VarHandleOp", inputs=(), outputs=("resource",),
             attrs={"container": "", "shared_name": "", "debug_name": "", "dtype": REQUIRED,
                    "shape": REQUIRED, "allowed_devices": ()},
             shape=lambda ins, attrs: [(dtypes.resource, TensorShape([]))], stateful=True, creates_ref=True)
def var_handle_op(dtype, shape, container="", shared_name="", debug_name="", allowed_devices=()):
    """A handle (``resource`` scalar) to a resource variable's value in the Session."""
    raise errors.FailedPreconditionError(
        None, None, "VarHandleOp holds state: it has a value only inside a Session (use ReadVariableOp)")


def _temporary_key(container, var_name):
    """TF's TemporaryVariableName in the step's container (top-level frame, iteration 0)."""
    return f"{container.name}/{var_name}/frame:0/iter:0/N10tensorflow19TemporaryVariableOp6TmpVarE"


def _step_container(ctx):
    container = getattr(ctx, "step_container", None)
    if container is None:
        raise errors.InternalError(None, None, "No per-step resource manager.")
    return container


@register_op("TemporaryVariable", inputs=(), outputs=("ref",),
             attrs={"shape": REQUIRED, "dtype": REQUIRED, "var_name": ""},
             shape=_variable_shape, stateful=True, ctx=True)
def temporary_variable(shape, dtype, var_name="", ctx=None):
    """A mutable tensor that lives for one ``Session.run`` (TF's per-step
    container): named ``var_name`` or the op's name, allocated (zeros here;
    TF leaves the memory as it finds it), AlreadyExistsError when the step has
    one of that name, dropped when the step ends unless
    ``DestroyTemporaryVariable`` took it first. The output is its reference."""
    container = _step_container(ctx)
    key = _temporary_key(container, var_name or ctx.op_name)
    store = ctx.store
    with store.lock:
        if key in container.keys:
            raise errors.AlreadyExistsError(None, None, f"Resource {key}")
        shape = as_shape(shape)
        if not shape.is_fully_defined():
            raise invalid_argument(f"Shape {_shape_str(shape)} is not fully defined")
        container.keys[key] = key
        store.values[key] = np.zeros(shape.as_list(), dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
    return ctx.reference(key)


@register_op("DestroyTemporaryVariable", inputs=("ref",), outputs=("value",), attrs={"var_name": REQUIRED},
             type_attrs={"T": "ref"}, shape=lambda ins, attrs: [(ins["ref"].dtype.base_dtype, ins["ref"].shape)],
             stateful=True, ctx=True, raw_inputs=("ref",))
def destroy_temporary_variable(ref, var_name, ctx=None):
    """The temporary variable's value; deletes the step's temporary variable
    ``var_name`` (NotFoundError when the step has none of that name)."""
    if not var_name:
        raise invalid_argument("Missing var_name attribute")
    container = _step_container(ctx)
    store = ctx.store
    with store.lock:
        key = _temporary_key(container, var_name)
        if key not in container.keys:
            raise errors.NotFoundError(None, None, f"Resource {key} does not exist.")
        value = store.read(ref.key, ctx.op) if hasattr(ref, "key") else ref
        del container.keys[key]
        store.values.pop(key, None)
    return value


def _check_same_shape(ref, value):
    if ref is not None and np.shape(ref) != np.shape(value):
        raise invalid_argument(f"Assign requires shapes of both tensors to match. lhs shape= "
                               f"{_shape_str(np.shape(ref))} rhs shape= {_shape_str(np.shape(value))}")


def _merge_shapes(a, b, op_name, op_type):
    """``a`` merged with ``b``; ValueError naming both shapes (TF's shape-fn wording)."""
    a, b = as_shape(a), as_shape(b)
    if a.ndims is not None and b.ndims is not None:
        if a.ndims != b.ndims:
            raise ValueError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims} for '{op_name}' "
                             f"(op: '{op_type}') with input shapes: {_shape_str(a)}, {_shape_str(b)}.")
        for i, (x, y) in enumerate(zip(a.as_list(), b.as_list())):
            if x is not None and y is not None and x != y:
                raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are "
                                 f"{_shape_str(a)} and {_shape_str(b)}. for '{op_name}' (op: '{op_type}') "
                                 f"with input shapes: {_shape_str(a)}, {_shape_str(b)}.")
    return a.merge_with(b)


def _assign_shape(ins, attrs):
    ref, value = ins["ref"], ins["value"]
    if attrs.get("validate_shape", True):
        return [(ref.dtype, _merge_shapes(ref.shape, value.shape, attrs["_op_name"], "Assign"))]
    return [(ref.dtype, value.shape)]


@register_op("Assign", inputs=("ref", "value"), outputs=("output_ref",),
             attrs={"validate_shape": True, "use_locking": True, "_ref_shape": None},
             type_attrs={"T": ("ref", "value")}, shape=_assign_shape, refs=("ref",),
             ref_outputs={"output_ref": "ref"}, allow_uninitialized=("ref",))
def assign(ref, value, validate_shape=True, use_locking=True, _ref_shape=None, out=None):
    """ref = value. With ``validate_shape`` the shapes must match; without it the
    variable takes ``value``'s shape. An uninitialized ref takes any value,
    unless ``_ref_shape`` (ref's own underscore attr, which TF ignores: the
    variable's declared shape, as TF's allocated-but-uninitialized variable
    knows it) is fully defined -- the Saver's restore ops set it.

    ``out=(buffer,)`` (the Session's own buffer of the variable, which nothing
    else holds) receives the value when it has the value's shape and dtype, as
    TF's Assign copies into the variable's existing buffer; otherwise a new
    array is returned."""
    if validate_shape:
        if ref is None and _ref_shape is not None and as_shape(_ref_shape).is_fully_defined():
            ref = np.broadcast_to(np.zeros((), np.asarray(value).dtype), as_shape(_ref_shape).as_list())
        _check_same_shape(ref, value)
    return _copy_into(value, out)


def _copy_into(value, out):
    """``value`` copied into ``out[0]`` when shape and dtype agree, else into a new array."""
    if out is not None:
        value = np.asarray(value)
        buf = out[0]
        if buf.shape == value.shape and buf.dtype == value.dtype and buf.flags.c_contiguous:
            np.copyto(buf, value)
            return buf
    return np.array(value, copy=True)


def _same_shape_rule(op_type):
    def rule(ins, attrs):
        ref = ins["ref"]
        return [(ref.dtype, _merge_shapes(ref.shape, ins["value"].shape, attrs["_op_name"], op_type))]

    return rule


def _elementwise_update(ref, value, fn, op_type, out=None):
    if np.shape(ref) != np.shape(value):
        raise invalid_argument(f"{op_type} requires shapes of both tensors to match. lhs shape= "
                               f"{_shape_str(np.shape(ref))} rhs shape= {_shape_str(np.shape(value))}")
    value = np.asarray(value)
    if out is not None and out[0] is ref and ref.flags.writeable and value.dtype == ref.dtype:
        return fn(ref, value, out=ref)  # the same operation in the variable's own buffer
    return fn(ref, value).astype(ref.dtype, copy=False)


@register_op("AssignAdd", inputs=("ref", "value"), outputs=("output_ref",), attrs={"use_locking": False},
             type_attrs={"T": ("ref", "value")}, shape=_same_shape_rule("AssignAdd"), refs=("ref",),
             ref_outputs={"output_ref": "ref"})
def assign_add(ref, value, use_locking=False, out=None):
    """ref = ref + value (in the variable's own buffer when the Session donates it)."""
    return _elementwise_update(ref, value, np.add, "AssignAdd", out)


@register_op("AssignSub", inputs=("ref", "value"), outputs=("output_ref",), attrs={"use_locking": False},
             type_attrs={"T": ("ref", "value")}, shape=_same_shape_rule("AssignSub"), refs=("ref",),
             ref_outputs={"output_ref": "ref"})
def assign_sub(ref, value, use_locking=False, out=None):
    """ref = ref - value (in the variable's own buffer when the Session donates it)."""
    return _elementwise_update(ref, value, np.subtract, "AssignSub", out)


def _is_initialized_shape(ins, attrs):
    return [(dtypes.bool, TensorShape([]))]


@register_op("IsVariableInitialized", inputs=("ref",), outputs=("is_initialized",),
             type_attrs={"dtype": "ref"}, shape=_is_initialized_shape, refs=("ref",),
             allow_uninitialized=("ref",))
def is_variable_initialized(ref):
    """True iff the variable holds a value (it is never changed)."""
    return None, np.bool_(ref is not None)


@register_op("CountUpTo", inputs=("ref",), outputs=("output",), attrs={"limit": REQUIRED},
             type_attrs={"T": "ref"}, allowed={"T": (dtypes.int32, dtypes.int64)},
             shape=lambda ins, attrs: [(ins["ref"].dtype, ins["ref"].shape)], refs=("ref",))
def count_up_to(ref, limit):
    """output = ref; ref = ref + 1 -- OutOfRangeError "Reached limit of N" once
    ``ref >= limit`` (TF's CountUpToOp)."""
    if ref >= limit:
        raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
    return np.asarray(ref + 1, dtype=ref.dtype), np.array(ref, copy=True)


@register_op("ResourceCountUpTo", inputs=("resource",), outputs=("output",), attrs={"limit": REQUIRED, "T": REQUIRED},
             shape=lambda ins, attrs: [(attrs["T"], TensorShape([]))], refs=("resource",))
def resource_count_up_to(resource, limit, T):
    """CountUpTo on a resource variable: output = resource; resource += 1 below ``limit``."""
    return count_up_to(resource, limit)


# ---------------------------------------------------------------------------
# Scatter updates along the first dimension
# ---------------------------------------------------------------------------

def _scatter_shape(op_type):
    def rule(ins, attrs):
        ref, indices, updates = ins["ref"], ins["indices"], ins["updates"]
        rs, ix, us = ref.shape, indices.shape, updates.shape
        if rs.ndims is not None and ix.ndims is not None and us.ndims is not None and us.ndims != 0:
            if rs.ndims == 0:
                raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{attrs['_op_name']}' "
                                 f"(op: '{op_type}') with input shapes: [], {_shape_str(ix)}, {_shape_str(us)}.")
            want = ix.concatenate(rs[1:])
            if not us.is_compatible_with(want):
                raise ValueError(f"Shapes must be equal rank, but are {us.ndims} and {want.ndims} for "
                                 f"'{attrs['_op_name']}' (op: '{op_type}') with input shapes: {_shape_str(rs)}, "
                                 f"{_shape_str(ix)}, {_shape_str(us)}." if us.ndims != want.ndims else
                                 f"Shapes {_shape_str(us)} and {_shape_str(want)} are incompatible: updates.shape "
                                 f"must be indices.shape + ref.shape[1:] for '{attrs['_op_name']}' (op: "
                                 f"'{op_type}') with input shapes: {_shape_str(rs)}, {_shape_str(ix)}, "
                                 f"{_shape_str(us)}.")
        return [(ref.dtype, rs)]

    return rule


def _truncating_divide(a, b):
    """TF's integer division truncates toward zero (C++ ``/``)."""
    if np.issubdtype(np.asarray(a).dtype, np.integer):
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) ^ (b < 0), -q, q).astype(np.asarray(a).dtype)
    return np.true_divide(a, b)


# name -> how one row of ``ref`` combines with one row of updates
_SCATTER = {
    "Update": lambda old, u: u,
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Div": _truncating_divide,
    "Min": np.minimum,
    "Max": np.maximum,
}


def _in_place(ref, out):
    """``out[0]`` when it is ``ref`` itself (the Session donates the variable's own
    buffer, which nothing else holds: TF's in-place update), else a copy of ``ref``."""
    if out is not None and out[0] is ref and ref.flags.writeable:
        return ref
    return ref.copy()


def _scatter(ref, indices, updates, how, op_type, out=None):
    """ref[indices[i], ...] (how)= updates[i, ...] for each i in order; rows not
    indexed are untouched, so a donated buffer (``out``) is updated in place."""
    ref = np.asarray(ref)
    indices = np.asarray(indices)
    updates = np.asarray(updates, dtype=ref.dtype)
    if ref.ndim == 0:
        raise invalid_argument(f"{op_type}: ref must be at least 1-D, got shape []")
    want = indices.shape + ref.shape[1:]
    if updates.shape != want and updates.shape != ():
        raise invalid_argument(
            f"Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got "
            f"updates.shape {_shape_str(updates.shape)}, indices.shape {_shape_str(indices.shape)}, "
            f"params.shape {_shape_str(ref.shape)}")
    flat_idx = indices.reshape(-1).astype(np.int64)
    n = ref.shape[0]
    bad = np.flatnonzero((flat_idx < 0) | (flat_idx >= n))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(f"indices[{i}] = {int(flat_idx[i])} is not in [0, {n})")
    rows = (updates if updates.shape == want else np.broadcast_to(updates, want)).reshape(
        (flat_idx.size,) + ref.shape[1:])
    out = _in_place(ref, out)
    if how == "Update":
        # sequential assignment == the last occurrence of each index wins
        uniq, first_from_end = np.unique(flat_idx[::-1], return_index=True)
        out[uniq] = rows[flat_idx.size - 1 - first_from_end]
    elif how == "Div" and np.issubdtype(out.dtype, np.integer):
        for i, ix in enumerate(flat_idx):
            out[ix] = _truncating_divide(out[ix], rows[i])
    elif how in _ROW_LOOPS and out.flags.c_contiguous and out.dtype in _LOOP_DTYPES and flat_idx.size > 1:
        # compiled: row after row in index order, one add/subtract per element (ufunc.at's)
        loop = _ROW_LOOPS[how]
        if _jit.numpy_tier(loop, flat_idx.size):
            _jit.run_numpy_form(loop, _scatter_in_rounds, out, flat_idx, rows, how)
        else:
            loop(out.reshape(n, -1), flat_idx, np.ascontiguousarray(rows).reshape(flat_idx.size, -1))
    elif rows.ndim > 1 and flat_idx.size > 1:
        _scatter_in_rounds(out, flat_idx, rows, how)
    else:
        # ufunc.at is unbuffered: duplicates apply one after another, in index order
        _SCATTER_UFUNC[how].at(out, flat_idx, rows)
    return out


def _scatter_in_rounds(out, flat_idx, rows, how):
    """``ufunc.at(out, flat_idx, rows)``'s bits: each element gets the ufunc calls
    ufunc.at would make, on the same operands, a row's k-th occurrence in round k,
    each round's rows (distinct) gathered and written back whole (ufunc.at over 2-D
    rows costs ~7x as much: a word2vec step's sparse updates)."""
    ufunc = _SCATTER_UFUNC[how]
    for sel in _rounds(flat_idx):
        ix = flat_idx if sel is None else flat_idx[sel]
        out[ix] = ufunc(out[ix], rows if sel is None else rows[sel])


def _rounds(flat_idx):
    """Positions of ``flat_idx`` by occurrence: the first occurrence of each index,
    then the second, ... (each in index order), as index arrays; ``[None]`` (all
    at once) when the indices are distinct."""
    order = np.argsort(flat_idx, kind="stable")
    s = flat_idx[order]
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    if starts.size == s.size:
        return [None]
    rank = np.arange(s.size) - np.repeat(starts, np.diff(np.append(starts, s.size)))
    by_rank = order[np.argsort(rank, kind="stable")]
    counts = np.bincount(rank)
    return np.split(by_rank, np.cumsum(counts)[:-1])


@njit
def _scatter_add_rows(out, idx, rows):
    """``out[idx[i], :] += rows[i, :]`` for each i in order."""
    for i in range(idx.size):
        r = idx[i]
        for j in range(rows.shape[1]):
            out[r, j] = out[r, j] + rows[i, j]


@njit
def _scatter_sub_rows(out, idx, rows):
    """``out[idx[i], :] -= rows[i, :]`` for each i in order."""
    for i in range(idx.size):
        r = idx[i]
        for j in range(rows.shape[1]):
            out[r, j] = out[r, j] - rows[i, j]


_ROW_LOOPS = {"Add": _scatter_add_rows, "Sub": _scatter_sub_rows}
_LOOP_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64))


_SCATTER_UFUNC = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.true_divide,
                  "Min": np.minimum, "Max": np.maximum}


def _declare_scatter(how, locking_default):
    op_type = f"Scatter{how}"

    def kernel(ref, indices, updates, use_locking=locking_default, out=None):
        return _scatter(ref, indices, updates, how, op_type, out)

    kernel.__name__ = f"scatter_{how.lower()}"
    sym = {"Update": "=", "Add": "+=", "Sub": "-=", "Mul": "*=", "Div": "/=",
           "Min": "= min(ref[indices[i], ...], updates[i, ...])",
           "Max": "= max(ref[indices[i], ...], updates[i, ...])"}[how]
    kernel.__doc__ = (f"ref[indices[i], ...] {sym}" + ("" if how in ("Min", "Max") else " updates[i, ...]")
                      + " for each i, in index order (duplicates apply one after another); "
                      "updates.shape = indices.shape + ref.shape[1:]. Returns the new ref.")
    register_op(op_type, inputs=("ref", "indices", "updates"), outputs=("output_ref",),
                attrs={"use_locking": locking_default},
                type_attrs={"T": ("ref", "updates"), "Tindices": "indices"}, allowed={"Tindices": _INDEX},
                shape=_scatter_shape(op_type), refs=("ref",), ref_outputs={"output_ref": "ref"})(kernel)

    def resource_kernel(resource, indices, updates, out=None):
        return _scatter(resource, indices, updates, how, f"ResourceScatter{how}", out)

    resource_kernel.__name__ = f"resource_scatter_{how.lower()}"
    resource_kernel.__doc__ = kernel.__doc__.replace("ref", "resource")
    register_op(f"ResourceScatter{how}", inputs=("resource", "indices", "updates"), outputs=(),
                type_attrs={"dtype": "updates", "Tindices": "indices"}, allowed={"Tindices": _INDEX},
                shape=lambda ins, attrs: [], refs=("resource",))(resource_kernel)
    return kernel


scatter_update = _declare_scatter("Update", True)
scatter_add = _declare_scatter("Add", False)
scatter_sub = _declare_scatter("Sub", False)
scatter_mul = _declare_scatter("Mul", False)
scatter_div = _declare_scatter("Div", False)
scatter_min = _declare_scatter("Min", False)
scatter_max = _declare_scatter("Max", False)


# ---------------------------------------------------------------------------
# N-d scatter updates
# ---------------------------------------------------------------------------

def _scatter_nd(ref, indices, updates, how, op_type, out=None):
    """ref[indices[i]] (how)= updates[i] where indices[i] is a K-vector into ref;
    in place into a donated buffer (``out``), every index checked first."""
    ref = np.asarray(ref)
    indices = np.asarray(indices)
    updates = np.asarray(updates, dtype=ref.dtype)
    _check_scatter_target(ref.shape, indices, updates, "output")
    k = indices.shape[-1] if indices.ndim else 0
    if indices.ndim < 1 or k > ref.ndim:
        raise invalid_argument(f"Dimensions [0,{indices.ndim}) of indices[shape={_shape_str(indices.shape)}] "
                               f"must index into ref[shape={_shape_str(ref.shape)}]")
    want = indices.shape[:-1] + ref.shape[k:]
    if updates.shape != want:
        raise invalid_argument(f"Dimensions of updates must match indices.shape[:-1] + ref.shape[K:]: "
                               f"updates.shape = {_shape_str(updates.shape)}, indices.shape = "
                               f"{_shape_str(indices.shape)}, ref.shape = {_shape_str(ref.shape)}")
    flat = indices.reshape(int(np.prod(indices.shape[:-1], dtype=np.int64)), k)
    rows = updates.reshape((flat.shape[0],) + ref.shape[k:])
    bound = np.asarray(ref.shape[:k])
    for i, ix in enumerate(flat):
        if np.any(ix < 0) or np.any(ix >= bound):
            raise invalid_argument(f"indices[{i}] = [{', '.join(str(int(j)) for j in ix)}] does not index "
                                   f"into shape {_shape_str(ref.shape)}")
    out = _in_place(ref, out)
    combine = _SCATTER[how]
    for i, ix in enumerate(flat):
        pos = tuple(int(j) for j in ix)
        out[pos] = combine(out[pos], rows[i])
    return out


def _scatter_nd_ref_shape(ins, attrs):
    r = ins["ref"]
    scatter_nd_shape_check(_dims(ins["indices"]), _dims(ins["updates"]), _dims(r), attrs,
                           f"{_shape_str(r.shape)}, {_shape_str(ins['indices'].shape)}, "
                           f"{_shape_str(ins['updates'].shape)}")
    return [(r.dtype, r.shape)]


def _declare_scatter_nd(how, locking_default):
    op_type = f"ScatterNd{how}"

    def kernel(ref, indices, updates, use_locking=locking_default, bad_indices_policy="", out=None):
        return _scatter_nd(ref, indices, updates, how, op_type, out)

    kernel.__name__ = f"scatter_nd_{how.lower()}"
    sym = {"Update": "=", "Add": "+=", "Sub": "-=", "Min": "= min(ref[indices[i]], updates[i]) as",
           "Max": "= max(ref[indices[i]], updates[i]) as"}[how]
    kernel.__doc__ = (f"ref[indices[i]] {sym} updates[i] for each i in order, where indices[i] is a vector of "
                      "K coordinates; updates.shape = indices.shape[:-1] + ref.shape[K:]. Returns the new ref.")
    register_op(op_type, inputs=("ref", "indices", "updates"), outputs=("output_ref",),
                attrs={"use_locking": locking_default, "bad_indices_policy": ""},
                type_attrs={"T": ("ref", "updates"), "Tindices": "indices"}, allowed={"Tindices": _INDEX},
                shape=_scatter_nd_ref_shape, refs=("ref",), ref_outputs={"output_ref": "ref"})(kernel)

    def resource_kernel(ref, indices, updates, use_locking=True, bad_indices_policy="", out=None):
        return _scatter_nd(ref, indices, updates, how, f"ResourceScatterNd{how}", out)

    resource_kernel.__name__ = f"resource_scatter_nd_{how.lower()}"
    resource_kernel.__doc__ = kernel.__doc__
    register_op(f"ResourceScatterNd{how}", inputs=("ref", "indices", "updates"), outputs=(),
                attrs={"use_locking": True, "bad_indices_policy": ""},
                type_attrs={"T": "updates", "Tindices": "indices"}, allowed={"Tindices": _INDEX},
                shape=lambda ins, attrs: [], refs=("ref",))(resource_kernel)
    return kernel


scatter_nd_update = _declare_scatter_nd("Update", True)
scatter_nd_add = _declare_scatter_nd("Add", False)
scatter_nd_sub = _declare_scatter_nd("Sub", False)
scatter_nd_min = _declare_scatter_nd("Min", False)
scatter_nd_max = _declare_scatter_nd("Max", False)


# ---------------------------------------------------------------------------
# Resource-variable reads and writes
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# Slice assignment: v[1:3].assign(x)
# ---------------------------------------------------------------------------

@register_op("StridedSliceAssign", inputs=("ref", "begin", "end", "strides", "value"), outputs=("output_ref",),
             attrs=_MASK_ATTRS, type_attrs={"T": ("ref", "value"), "Index": ("begin", "end", "strides")},
             allowed={"Index": _INDEX}, shape=_strided_slice_assign_shape, refs=("ref",),
             ref_outputs={"output_ref": "ref"})
def strided_slice_assign(ref, begin, end, strides, value, begin_mask=0, end_mask=0, ellipsis_mask=0,
                         new_axis_mask=0, shrink_axis_mask=0):
    """ref[b0:e0:s0, ...] = value (``v[1:3].assign(x)`` on a ref variable): the
    slice is StridedSlice's, ``value`` broadcasts to the slice's shape. Returns
    the new ref."""
    return _strided_slice_assign(ref, begin, end, strides, value,
                                 (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask),
                                 "StridedSliceAssign")


@register_op("ResourceStridedSliceAssign", inputs=("ref", "begin", "end", "strides", "value"), outputs=(),
             attrs=_MASK_ATTRS, type_attrs={"T": "value", "Index": ("begin", "end", "strides")},
             allowed={"Index": _INDEX}, shape=lambda ins, attrs: [], refs=("ref",))
def resource_strided_slice_assign(ref, begin, end, strides, value, begin_mask=0, end_mask=0, ellipsis_mask=0,
                                  new_axis_mask=0, shrink_axis_mask=0):
    """StridedSliceAssign on a resource variable (``ref`` is its handle): the
    variable's new value."""
    return _strided_slice_assign(ref, begin, end, strides, value,
                                 (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask),
                                 "ResourceStridedSliceAssign")


@register_op("ReadVariableOp", inputs=("resource",), outputs=("value",), attrs={"dtype": REQUIRED},
             shape=lambda ins, attrs: [(attrs["dtype"], unknown_shape())], stateful=True)
def read_variable_op(resource, dtype):
    """The variable's current value (the Session hands the kernel the stored value)."""
    return resource


def _resource_write(op_type, fn, validate):
    def kernel(resource, value, dtype=None, validate_shape=False, out=None):
        value = np.asarray(value)
        if resource is None:
            return np.array(value, copy=True)
        if validate or validate_shape:
            if np.shape(resource) != value.shape:
                raise invalid_argument(f"Cannot update variable with shape {_shape_str(np.shape(resource))} "
                                       f"using a Tensor with shape {_shape_str(value.shape)}, shapes must be "
                                       "equal.")
        if (out is not None and out[0] is resource and resource.flags.writeable
                and resource.dtype == value.dtype and resource.shape == value.shape):
            return fn(resource, value, out=resource)  # in the variable's own buffer, as TF
        return np.asarray(fn(resource, value), dtype=value.dtype)

    return kernel


def _assign_variable(resource, value, dtype=None, validate_shape=False, out=None):
    value = np.asarray(value)
    if resource is None:
        return np.array(value, copy=True)
    if validate_shape and np.shape(resource) != value.shape:
        raise invalid_argument(f"Cannot update variable with shape {_shape_str(np.shape(resource))} "
                               f"using a Tensor with shape {_shape_str(value.shape)}, shapes must be equal.")
    return _copy_into(value, out)


def _write_kernel(op_type, doc, fn, validate, allow_uninit, extra_attrs, kernel=None):
    kernel = kernel or _resource_write(op_type, fn, validate)
    kernel.__name__ = op_type
    kernel.__doc__ = doc
    register_op(op_type, inputs=("resource", "value"), outputs=(), attrs=extra_attrs,
                type_attrs={"dtype": "value"}, shape=lambda ins, attrs: [], refs=("resource",),
                allow_uninitialized=("resource",) if allow_uninit else ())(kernel)
    return kernel


assign_variable_op = _write_kernel("AssignVariableOp", "resource = value (validate_shape: shapes must match); "
                                   "into the variable's own buffer ``out`` when shape and dtype agree.",
                                   None, False, True, {"validate_shape": False}, kernel=_assign_variable)
assign_add_variable_op = _write_kernel("AssignAddVariableOp", "resource = resource + value.",
                                       np.add, True, False, {})
assign_sub_variable_op = _write_kernel("AssignSubVariableOp", "resource = resource - value.",
                                       np.subtract, True, False, {})


@register_op("VarIsInitializedOp", inputs=("resource",), outputs=("is_initialized",),
             shape=_is_initialized_shape, refs=("resource",), allow_uninitialized=("resource",))
def var_is_initialized_op(resource):
    """True iff the resource variable holds a value."""
    return None, np.bool_(resource is not None)


def _gather(params, indices, batch_dims):
    if batch_dims == 0:
        n = params.shape[0]
        flat = indices.reshape(-1)
        bad = np.flatnonzero((flat < 0) | (flat >= n))
        if bad.size:
            i = int(bad[0])
            raise invalid_argument(f"indices[{i}] = {int(flat[i])} is not in [0, {n})")
        return np.take(params, indices, axis=0)
    return np.stack([_gather(p, i, batch_dims - 1) for p, i in zip(params, indices)])


@register_op("ResourceGather", inputs=("resource", "indices"), outputs=("output",),
             attrs={"batch_dims": 0, "validate_indices": True, "dtype": REQUIRED},
             type_attrs={"Tindices": "indices"}, allowed={"Tindices": _INDEX},
             shape=lambda ins, attrs: [(attrs["dtype"], unknown_shape())], stateful=True)
def resource_gather(resource, indices, dtype, batch_dims=0, validate_indices=True):
    """output = resource[indices, ...] (rows of the variable; leading ``batch_dims`` shared)."""
    return _gather(np.asarray(resource), np.asarray(indices), batch_dims)


@register_op("ResourceGatherNd", inputs=("resource", "indices"), outputs=("output",),
             attrs={"dtype": REQUIRED}, type_attrs={"Tindices": "indices"}, allowed={"Tindices": _INDEX},
             shape=lambda ins, attrs: [(attrs["dtype"], unknown_shape())], stateful=True)
def resource_gather_nd(resource, indices, dtype):
    """output[i] = resource[indices[i]] with indices[i] a vector of K coordinates."""
    params, indices = np.asarray(resource), np.asarray(indices)
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    for i, ix in enumerate(flat):
        if np.any(ix < 0) or np.any(ix >= np.asarray(params.shape[:k])):
            raise invalid_argument(f"indices[{i}] = [{', '.join(str(int(j)) for j in ix)}] does not index "
                                   f"into param shape {_shape_str(params.shape)}")
    out = np.stack([params[tuple(int(j) for j in ix)] for ix in flat]) if len(flat) else \
        np.zeros((0,) + params.shape[k:], params.dtype)
    return out.reshape(indices.shape[:-1] + params.shape[k:])


@register_op("DestroyResourceOp", inputs=("resource",), outputs=(), attrs={"ignore_lookup_error": True},
             shape=lambda ins, attrs: [], stateful=True, ctx=True, raw_inputs=("resource",))
def destroy_resource_op(resource, ignore_lookup_error=True, ctx=None):
    """Deletes the resource variable's value from the Session (later reads fail)."""
    key = getattr(resource, "key", None)
    store = getattr(ctx, "store", None)  # the run's variable store (a raw call has none)
    if key is None or store is None:
        return ()
    with store.lock:
        if key in store.values:
            del store.values[key]
        elif not ignore_lookup_error:
            raise errors.NotFoundError(None, None, f"Resource {key} does not exist.")
    return ()


@register_op("VariableShape", inputs=("input",), attrs={"out_type": dtypes.int32},
             shape=lambda ins, attrs: [(attrs["out_type"], TensorShape([None]))])
def variable_shape(input, out_type=dtypes.int32):
    """The shape of a resource variable's current value."""
    return np.array(np.shape(input), dtype=dtypes.as_dtype(out_type).np)
