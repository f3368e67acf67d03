"""TensorArray kernels: ``TensorArrayV3`` and the ops that write, read,
gather, scatter, concatenate, split, size, close and differentiate it (TF 1.x
graph-mode ``tf.TensorArray``, ``tensor_array_ops._GraphTensorArray``).

A TensorArray lives for one run, in the run's step: every execution of
``TensorArrayV3`` makes a fresh :class:`TensorArrayResource` and outputs it as
the ``handle`` the other ops take (TF keeps it in the step container), with a
float ``flow`` scalar that orders the ops touching it (each write-like op
outputs a new flow; each reader takes one). ``TensorArrayGradV3`` looks up, or
creates on first use, the gradient array of a forward array for one
``source`` (one ``tf.gradients`` call): same size, not resizeable, writes to
one index aggregate (sum), unwritten elements read as zeros.

Rules, errors and messages are TF's (``tensor_array.h``): a second write to an
index, a write after a read, a read of a cleared element (``clear_after_read``),
a read of an unwritten element whose shape is not fully defined, a size that
does not match, an element shape that does not match -- InvalidArgumentError.
"""
from __future__ import annotations

import itertools

import numpy as np

from ref.types import dtypes, errors
from ref.types.shapes import TensorShape, as_shape
from ref.ops.registry import REQUIRED, fixed_rule, invalid_argument, register_op

_COUNTER = itertools.count()
_HANDLE = (dtypes.resource, TensorShape([2]))
_FLOW = (dtypes.float32, TensorShape([]))


def _debug(shape) -> str:
    """TF's ``PartialTensorShape::DebugString``: ``[2,?]`` or ``<unknown>``."""
    shape = as_shape(shape)
    if shape.ndims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


class _Element:
    __slots__ = ("tensor", "shape", "written", "read", "cleared")

    def __init__(self):
        self.tensor, self.shape = None, None
        self.written = self.read = self.cleared = False


class TensorArrayResource:
    """One run's TensorArray of ``dtype`` elements (TF's ``TensorArray`` resource)."""

    def __init__(self, name, dtype, size, element_shape, identical_element_shapes, dynamic_size,
                 clear_after_read, multiple_writes_aggregate=False, is_grad=False, marked_size=-1):
        self.name, self.dtype = name, dtypes.as_dtype(dtype).base_dtype
        self.element_shape = as_shape(element_shape)
        self.identical_element_shapes, self.dynamic_size = identical_element_shapes, dynamic_size
        self.clear_after_read, self.multiple_writes_aggregate = clear_after_read, multiple_writes_aggregate
        self.is_grad, self.marked_size = is_grad, marked_size
        self.elements = [_Element() for _ in range(size)]
        self.closed = self.gradients_disallowed = False
        self.grads = {}

    def __repr__(self):
        return f"TensorArray({self.name!r}, {len(self.elements)} elements)"

    def _check_open(self):
        if self.closed:
            raise invalid_argument(f"TensorArray {self.name} has already been closed.")

    def size(self) -> int:
        self._check_open()
        return len(self.elements)

    def pack_size(self) -> int:
        """How many elements stack/concat take (a gradient array: its forward's marked size)."""
        self._check_open()
        return self.marked_size if self.is_grad else len(self.elements)

    def write(self, index, value):
        self._check_open()
        index = int(index)
        if index < 0 or (not self.dynamic_size and index >= len(self.elements)):
            raise invalid_argument(f"TensorArray {self.name}: Tried to write to index {index} but array is not "
                                   f"resizeable and size is: {len(self.elements)}")
        while index >= len(self.elements):
            self.elements.append(_Element())
        t = self.elements[index]
        value = np.asarray(value)
        if dtypes.as_dtype(value.dtype) != self.dtype:
            raise invalid_argument(
                f"TensorArray {self.name}: Could not write to TensorArray index {index} because the value dtype "
                f"is {dtypes.as_dtype(value.dtype).name} but TensorArray dtype is {self.dtype.name}.")
        if not self.element_shape.is_compatible_with(TensorShape(value.shape)):
            raise invalid_argument(
                f"TensorArray {self.name}: Could not write to TensorArray index {index} because the value shape "
                f"is {_debug(value.shape)} which is incompatible with the TensorArray's inferred element shape: "
                f"{_debug(self.element_shape)} (consider setting infer_shape=False).")
        if self.identical_element_shapes and not self.element_shape.is_fully_defined():
            self.element_shape = TensorShape(value.shape)
        if t.read:
            raise invalid_argument(f"TensorArray {self.name}: Could not write to TensorArray index {index} because "
                                   f"it has already been read.")
        if t.written and not self.multiple_writes_aggregate:
            raise invalid_argument(f"TensorArray {self.name}: Could not write to TensorArray index {index} because "
                                   f"it has already been written to.")
        if t.written:
            if tuple(value.shape) != tuple(t.shape):
                raise invalid_argument(
                    f"TensorArray {self.name}: Could not aggregate to TensorArray index {index} because the "
                    f"existing shape is {_debug(t.shape)} but the new input shape is {_debug(value.shape)}.")
            if t.tensor is None or t.tensor.size == 0:
                t.tensor = value
                return
            t.tensor = np.add(t.tensor, value, dtype=value.dtype)
            self.gradients_disallowed = True
            return
        t.tensor, t.shape, t.written = value, tuple(value.shape), True

    def read(self, index):
        self._check_open()
        index = int(index)
        if index < 0 or (not self.is_grad and index >= len(self.elements)):
            raise invalid_argument(f"Tried to read from index {index} but array size is: {len(self.elements)}")
        if index >= len(self.elements) or not self.elements[index].written:
            if index < len(self.elements) and self.is_grad and self.elements[index].shape:
                shape = self.elements[index].shape
            elif not self.element_shape.is_fully_defined():
                raise invalid_argument(
                    f"TensorArray {self.name}: Could not read from TensorArray index {index}.  Furthermore, the "
                    f"element shape is not fully defined: {_debug(self.element_shape)}.  It is possible you are "
                    f"working with a resizeable TensorArray and stop_gradients is not allowing the gradients to be "
                    f"written.  If you set the full element_shape property on the forward TensorArray, the proper "
                    f"all-zeros tensor will be returned instead of incurring this error.")
            else:
                shape = tuple(self.element_shape.as_list())
            while index >= len(self.elements):
                self.elements.append(_Element())
                self.elements[-1].shape, self.elements[-1].written = shape, True
            self.elements[index].shape, self.elements[index].written = shape, True
        t = self.elements[index]
        if t.cleared:
            raise invalid_argument(f"TensorArray {self.name}: Could not read index {index} twice because it was "
                                   f"cleared after a previous read (perhaps try setting clear_after_read = false?).")
        if t.tensor is None:
            t.tensor = np.zeros(t.shape, self.dtype.as_numpy_dtype)
        value = t.tensor
        if self.clear_after_read:
            t.tensor, t.cleared = None, True
        t.read = True
        return value

    def set_element_shape(self, shape):
        """TF's ``SetElemShape``: merge a reader's element shape into the array's."""
        shape = as_shape(shape)
        if not shape.is_compatible_with(self.element_shape):
            raise invalid_argument(f"Inconsistent shapes: saw {_debug(shape)} but expected "
                                   f"{_debug(self.element_shape)}")
        self.element_shape = self.element_shape.merge_with(shape) if shape.ndims is not None else self.element_shape


def _array(handle) -> TensorArrayResource:
    ta = handle.item() if isinstance(handle, np.ndarray) and handle.dtype == object else handle
    if not isinstance(ta, TensorArrayResource):
        raise invalid_argument(f"Expected a TensorArray handle, got {type(ta).__name__}")
    return ta


def _cc(dtype) -> str:
    """TF's C++ DataTypeString, which its kernel messages print (``float``, ``double``, ``int32``...)."""
    return {"float32": "float", "float64": "double", "float16": "half"}.get(dtype.name, dtype.name)


def _check_dtype(ta, dtype):
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype != ta.dtype:
        raise invalid_argument(f"TensorArray dtype is {_cc(ta.dtype)} but Op requested dtype {_cc(dtype)}.")


def _check_write_dtype(ta, value):
    d = dtypes.as_dtype(np.asarray(value).dtype)
    if d != ta.dtype:
        raise invalid_argument(f"TensorArray dtype is {_cc(ta.dtype)} but Op is trying to write dtype {_cc(d)}.")


def _flow():
    return np.float32(0.0)


def _scalar_index(index):
    index = np.asarray(index)
    if index.ndim != 0:
        raise invalid_argument(f"TensorArray index must be scalar, but had shape: {_debug(index.shape)}")
    return int(index)


def _vector(x, what):
    x = np.asarray(x)
    if x.ndim != 1:  # TF's wording differs between the indices and the lengths checks
        but = "" if what == "lengths" else "but "
        raise invalid_argument(f"Expected {what} to be a vector, {but}received shape: {_debug(x.shape)}")
    return x


@register_op("TensorArrayV3", inputs=("size",), outputs=("handle", "flow"),
             attrs={"dtype": REQUIRED, "element_shape": TensorShape(None), "dynamic_size": False,
                    "clear_after_read": True, "identical_element_shapes": False, "tensor_array_name": ""},
             shape=fixed_rule(_HANDLE, _FLOW), stateful=True, ctx=True)
def tensor_array_v3(size, dtype, element_shape=TensorShape(None), dynamic_size=False, clear_after_read=True,
                    identical_element_shapes=False, tensor_array_name="", ctx=None):
    """A fresh array of ``size`` unwritten elements; outputs its handle and a zero flow."""
    size = np.asarray(size)
    if size.ndim != 0:
        raise invalid_argument(f"TensorArray size must be scalar, but had shape: {_debug(size.shape)}")
    if int(size) < 0:
        raise invalid_argument("Size should be >= 0.")
    name = f"{tensor_array_name or ctx.op_name}_{next(_COUNTER)}"
    ta = TensorArrayResource(name, dtype, int(size), element_shape, bool(identical_element_shapes),
                             bool(dynamic_size), bool(clear_after_read))
    return ta, _flow()


@register_op("TensorArrayGradV3", inputs=("handle", "flow_in"), outputs=("grad_handle", "flow_out"),
             attrs={"source": REQUIRED}, shape=fixed_rule(_HANDLE, _FLOW), stateful=True)
def tensor_array_grad_v3(handle, flow_in, source):
    """The gradient array of ``handle`` for ``source``, created on first use with
    the forward array's size and the shapes of its written elements."""
    ta = _array(handle)
    ta._check_open()
    source = source.decode() if isinstance(source, bytes) else str(source)
    ta.dynamic_size = False  # once gradients are taken, writes may no longer grow the forward array
    g = ta.grads.get(source)
    if g is None:
        if ta.gradients_disallowed:
            raise invalid_argument(
                f"Unable to create a gradients TensorArray for {ta.name}.  Perhaps you used the "
                f"multiple_writes_aggregate flag on a previous write?  Gradient calculation is impossible when "
                f"multiple writes are performed to the same index.")
        g = TensorArrayResource(f"{ta.name}@{source}", ta.dtype, len(ta.elements), ta.element_shape,
                                ta.identical_element_shapes, False, True, multiple_writes_aggregate=True,
                                is_grad=True, marked_size=ta.marked_size)
        for e, f in zip(g.elements, ta.elements):
            if f.written:
                e.shape, e.written = f.shape, True
        ta.grads[source] = g
    return g, np.float32(flow_in)


def _value_shape(ins, attrs):
    return [(dtypes.as_dtype(attrs["dtype"]), TensorShape(None))]


@register_op("TensorArrayReadV3", inputs=("handle", "index", "flow_in"), outputs=("value",),
             attrs={"dtype": REQUIRED}, shape=_value_shape, stateful=True)
def tensor_array_read_v3(handle, index, flow_in, dtype):
    """Element ``index`` (zeros when never written and its shape is known)."""
    index = _scalar_index(index)
    ta = _array(handle)
    _check_dtype(ta, dtype)
    return ta.read(index)


@register_op("TensorArrayWriteV3", inputs=("handle", "index", "value", "flow_in"), outputs=("flow_out",),
             type_attrs={"T": "value"}, shape=fixed_rule(_FLOW), stateful=True)
def tensor_array_write_v3(handle, index, value, flow_in):
    """Writes ``value`` at ``index``; outputs the next flow."""
    index = _scalar_index(index)
    ta = _array(handle)
    _check_write_dtype(ta, value)
    ta.write(index, value)
    return np.float32(flow_in)


def _gather_shape(ins, attrs):
    n = ins["indices"].shape
    dim0 = n[0] if n.ndims == 1 else None
    elem = as_shape(attrs.get("element_shape", TensorShape(None)))
    return [(dtypes.as_dtype(attrs["dtype"]),
             TensorShape(None) if elem.ndims is None else TensorShape([dim0]).concatenate(elem))]


def _stack(ta, indices, element_shape):
    if not indices:
        if not element_shape.is_fully_defined():
            raise errors.UnimplementedError(
                None, None, f"TensorArray has size zero, but element shape {_debug(element_shape)} is not fully "
                f"defined. Currently only static shapes are supported when packing zero-size TensorArrays.")
        return np.zeros([0] + element_shape.as_list(), ta.dtype.as_numpy_dtype)
    values = [ta.read(i) for i in indices]
    if not element_shape.is_compatible_with(TensorShape(values[0].shape)):
        raise invalid_argument(f"TensorArray was passed element_shape {_debug(element_shape)} which does not match "
                               f"the Tensor at index 0: {_debug(values[0].shape)}")
    for i, v in enumerate(values[1:], 1):
        if v.shape != values[0].shape:
            raise invalid_argument(f"TensorArray has inconsistent shapes.  Index 0 has shape: "
                                   f"{_debug(values[0].shape)} but index {i} has shape: {_debug(v.shape)}")
    return np.stack(values).astype(ta.dtype.as_numpy_dtype, copy=False)


@register_op("TensorArrayGatherV3", inputs=("handle", "indices", "flow_in"), outputs=("value",),
             attrs={"dtype": REQUIRED, "element_shape": TensorShape(None)}, shape=_gather_shape, stateful=True)
def tensor_array_gather_v3(handle, indices, flow_in, dtype, element_shape=TensorShape(None)):
    """The elements at ``indices``, stacked along a new first dimension."""
    ta = _array(handle)
    _check_dtype(ta, dtype)
    ta.set_element_shape(element_shape)
    indices = _vector(indices, "indices")
    return _stack(ta, [int(i) for i in indices], as_shape(element_shape))


def _scatter_shape(ins, attrs):
    """TF's rule: ``value``'s first dimension merges with the length of ``indices``."""
    v, i = ins["value"].shape, ins["indices"].shape
    if v.ndims and i.ndims == 1 and v[0] is not None and i[0] is not None and v[0] != i[0]:
        raise ValueError(f"Dimensions must be equal, but are {v[0]} and {i[0]} for '{attrs['_op_name']}' "
                         f"(op: 'TensorArrayScatterV3') with input shapes: [2], {_debug(i)}, {_debug(v)}, [].")
    return [_FLOW]


@register_op("TensorArrayScatterV3", inputs=("handle", "indices", "value", "flow_in"), outputs=("flow_out",),
             type_attrs={"T": "value"}, shape=_scatter_shape, stateful=True)
def tensor_array_scatter_v3(handle, indices, value, flow_in):
    """Writes ``value[i]`` at ``indices[i]``; outputs the next flow."""
    ta = _array(handle)
    _check_write_dtype(ta, value)
    value = np.asarray(value)
    if value.ndim < 1:
        raise invalid_argument(f"Input value for unpack must be at least a vector but received shape: "
                               f"{_debug(value.shape)}")
    indices = _vector(indices, "indices")
    if indices.size != value.shape[0]:
        raise invalid_argument(f"Expected len(indices) == values.shape[0], but saw: {indices.size} vs. "
                               f"{value.shape[0]}")
    size = ta.size()
    max_index = int(indices.max()) if indices.size else -1
    if ta.dynamic_size and size < max_index + 1:
        size = max_index + 1
    if max_index >= size:
        raise invalid_argument(f"Max scatter index must be < array size ({max_index} vs. {size})")
    for i, idx in enumerate(indices):
        ta.write(int(idx), np.array(value[i]))
    return np.float32(flow_in)


def _concat_shape(ins, attrs):
    elem = as_shape(attrs.get("element_shape_except0", TensorShape(None)))
    value = TensorShape(None) if elem.ndims is None else TensorShape([None]).concatenate(elem)
    return [(dtypes.as_dtype(attrs["dtype"]), value), (dtypes.int64, TensorShape([None]))]


@register_op("TensorArrayConcatV3", inputs=("handle", "flow_in"), outputs=("value", "lengths"),
             attrs={"dtype": REQUIRED, "element_shape_except0": TensorShape(None)}, shape=_concat_shape,
             stateful=True)
def tensor_array_concat_v3(handle, flow_in, dtype, element_shape_except0=TensorShape(None)):
    """Every element concatenated along its first dimension, and each one's length."""
    ta = _array(handle)
    _check_dtype(ta, dtype)
    except0 = as_shape(element_shape_except0)
    n = ta.pack_size()
    if n == 0:
        if not except0.is_fully_defined():
            raise errors.UnimplementedError(
                None, None, f"TensorArray has size zero, but element_shape_except0 {_debug(except0)} is not fully "
                f"defined. Currently only static shapes are supported when concatenating zero-size TensorArrays.")
        return np.zeros([0] + except0.as_list(), ta.dtype.as_numpy_dtype), np.zeros([0], np.int64)
    values = [ta.read(i) for i in range(n)]
    for i, v in enumerate(values):
        if v.ndim < 1:
            raise invalid_argument(f"Concat saw a scalar shape at index {i} but requires at least vectors.  Did you "
                                   f"mean to call pack?")
    rest = values[0].shape[1:]
    if not except0.is_compatible_with(TensorShape(rest)):
        raise invalid_argument(f"TensorArray was passed element_shape_except0 {_debug(except0)} but index 0 has "
                               f"(excepting dimension 0) shape: {_debug(rest)} which does not match.")
    for i, v in enumerate(values[1:], 1):
        if v.shape[1:] != rest:
            raise invalid_argument(f"TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) "
                                   f"shape: {_debug(rest)} but index {i} has (excepting dimension 0) shape: "
                                   f"{_debug(v.shape[1:])}")
    lengths = np.asarray([v.shape[0] for v in values], np.int64)
    return np.concatenate(values).astype(ta.dtype.as_numpy_dtype, copy=False), lengths


@register_op("TensorArraySplitV3", inputs=("handle", "value", "lengths", "flow_in"), outputs=("flow_out",),
             type_attrs={"T": "value"}, shape=fixed_rule(_FLOW), stateful=True)
def tensor_array_split_v3(handle, value, lengths, flow_in):
    """Writes ``value`` cut along its first dimension into pieces of ``lengths``."""
    ta = _array(handle)
    lengths = _vector(lengths, "lengths").astype(np.int64)
    value = np.asarray(value)
    if value.ndim < 1:
        raise invalid_argument(f"Expected value to be at least a vector, but received shape: {_debug(value.shape)}")
    total = int(lengths.sum())
    if total != value.shape[0]:
        raise invalid_argument(f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                               f"{total} and value's shape is: {_debug(value.shape)}")
    size = ta.size()
    if ta.dynamic_size and size < lengths.size:
        size = lengths.size
    elif size != lengths.size:
        raise invalid_argument(f"TensorArray's size is not equal to the size of lengths ({size} vs. "
                               f"{lengths.size}), and the TensorArray is not marked as dynamically resizeable")
    _check_write_dtype(ta, value)
    if not ta.is_grad:
        ta.marked_size = size
    bounds = np.concatenate([[0], np.cumsum(lengths)])
    for i in range(lengths.size):
        ta.write(i, np.array(value[bounds[i]:bounds[i + 1]]))
    return np.float32(flow_in)


@register_op("TensorArraySizeV3", inputs=("handle", "flow_in"), outputs=("size",),
             shape=fixed_rule((dtypes.int32, TensorShape([]))), stateful=True)
def tensor_array_size_v3(handle, flow_in):
    """The array's current size (int32)."""
    return np.int32(_array(handle).size())


@register_op("TensorArrayCloseV3", inputs=("handle",), outputs=(), shape=fixed_rule(), stateful=True)
def tensor_array_close_v3(handle):
    """Closes the array: its elements are dropped, later ops on it fail."""
    ta = _array(handle)
    ta.elements, ta.closed = [], True
    return ()
