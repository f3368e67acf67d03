"""TensorList kernels: the ops behind ``tf.TensorArray`` in TF 2's graph mode
(``compat.v1`` builds ``TensorListReserve``, ``TensorListSetItem``, ... whose
``variant`` handle is the array's ``flow``).

A list value is a :class:`TensorList`: an immutable tuple of elements (an
unset element is ``None``, read as zeros when its shape is known), the element
dtype and the element shape every element must be compatible with. Every op
returns a new list, so the kernels are pure and a list can be a ``while_loop``
variable like any tensor.

Element shapes travel as int32 tensors, TF's encoding: ``-1`` (a scalar) for
an unknown rank, else a vector with ``-1`` for each unknown dimension.
"""
from __future__ import annotations

import numpy as np

from ref.ops.registry import REQUIRED, register_op, invalid_argument
from ref.types import dtypes
from ref.types.shapes import TensorShape, unknown_shape


def decode_shape(value) -> TensorShape:
    """A TensorShape from TF's element-shape encoding (None: unknown)."""
    if value is None:
        return unknown_shape()
    a = np.asarray(value)
    if a.ndim == 0:
        if int(a) != -1:
            raise invalid_argument(f"The only valid scalar shape tensor is the fully unknown shape specified "
                                   f"as -1. Got: {int(a)}")
        return unknown_shape()
    return TensorShape([None if int(d) < 0 else int(d) for d in a.reshape(-1)])


def encode_shape(shape: TensorShape, dtype=np.int32) -> np.ndarray:
    if shape.ndims is None:
        return np.asarray(-1, dtype)
    return np.asarray([-1 if d is None else d for d in shape.as_list()], dtype)


def _shape_str(shape) -> str:
    shape = TensorShape(shape)
    if shape.ndims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


class TensorList:
    """An immutable list of tensors of one dtype (TF's ``TensorList`` variant)."""

    __slots__ = ("items", "element_dtype", "element_shape")
    is_variant = True

    def __init__(self, items, element_dtype, element_shape):
        self.items = tuple(items)
        self.element_dtype = dtypes.as_dtype(element_dtype)
        self.element_shape = TensorShape(element_shape)

    def __len__(self):
        return len(self.items)

    def __repr__(self):
        return f"<TensorList of {len(self.items)} {self.element_dtype.name} {_shape_str(self.element_shape)}>"

    def replace(self, items):
        return TensorList(items, self.element_dtype, self.element_shape)

    def zeros_like(self):
        """A list of the same length whose elements are unset (zeros): TF's
        ZerosLike of a TensorList, what a gradient starts from."""
        return self.replace((None,) * len(self.items))

    def add(self, other):
        """Element-wise sum (unset elements count as zeros): TF's AddN of lists."""
        if len(other) != len(self):
            raise invalid_argument(f"Trying to add two lists of tensors with different lengths. One is "
                                   f"{len(self)} and the other is {len(other)}")
        out = []
        for a, b in zip(self.items, other.items):
            out.append(b if a is None else a if b is None else np.add(a, b))
        return self.replace(out)

    def known_shape(self, requested=None) -> TensorShape:
        """The element shape merged from the list's, ``requested`` and the set elements."""
        shape = self.element_shape
        if requested is not None:
            shape = _merge(shape, requested)
        for x in self.items:
            if x is not None and not shape.is_fully_defined():
                shape = _merge(shape, TensorShape(np.shape(x)))
        return shape

    def element(self, i, requested=None):
        x = self.items[i]
        if x is not None:
            return x
        shape = self.known_shape(requested)
        if not shape.is_fully_defined():
            raise invalid_argument(f"Trying to read an uninitialized tensor but element_shape is not fully "
                                   f"defined: {_shape_str(shape)} and no list element is set.")
        return np.zeros(shape.as_list(), self.element_dtype.as_numpy_dtype)


def _merge(a: TensorShape, b: TensorShape) -> TensorShape:
    try:
        return a.merge_with(b)
    except ValueError:
        raise invalid_argument(f"Incompatible shapes during merge: {_shape_str(a)} vs. {_shape_str(b)}") from None


def _list(handle, op) -> TensorList:
    if not isinstance(handle, TensorList):
        raise invalid_argument(f"{op}: input_handle is not a TensorList: {type(handle).__name__}")
    return handle


def _check_item(lst, item, what="Tried to set a tensor with incompatible shape at a list index."):
    x = np.asarray(item)
    if np.dtype(lst.element_dtype.as_numpy_dtype) != x.dtype and lst.element_dtype != dtypes.string:
        raise invalid_argument(f"Invalid data types; list elements {lst.element_dtype.name} but tried to append "
                               f"{dtypes.as_dtype(x.dtype).name}")
    if not lst.element_shape.is_compatible_with(TensorShape(x.shape)):
        raise invalid_argument(f"{what} Item element shape: {_shape_str(x.shape)} list shape: "
                               f"{_shape_str(lst.element_shape)}")
    return x


# -- shape rules --------------------------------------------------------------

def _handle(ins, attrs):
    return [(dtypes.variant, TensorShape([]))]


def _from_tensor_rule(ins, attrs):
    t = ins["tensor"].shape
    if t.ndims == 0:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{attrs.get('_op_name', 'op')}' "
                         f"with input shapes: [].")
    return _handle(ins, attrs)


def _element(ins, attrs, lead=()):
    spec = ins.get("element_shape")
    shape = decode_shape(spec.value) if spec is not None and spec.value is not None else unknown_shape()
    if lead is not None:
        shape = TensorShape(list(lead)).concatenate(shape)
    return shape


def _get_item_shape(ins, attrs):
    return [(attrs["element_dtype"], _element(ins, attrs))]


def _stack_shape(ins, attrs):
    n = attrs.get("num_elements", -1)
    return [(attrs["element_dtype"], _element(ins, attrs, [None if n is None or n < 0 else n]))]


def _gather_shape(ins, attrs):
    idx = ins["indices"].shape
    n = idx[0] if idx.ndims == 1 else None
    return [(attrs["element_dtype"], _element(ins, attrs, [n]))]


def _concat_shape(ins, attrs):
    el = _element(ins, attrs)
    shape = unknown_shape() if el.ndims is None else TensorShape([None]).concatenate(el[1:])
    return [(attrs["element_dtype"], shape), (dtypes.int64, TensorShape([None]))]


def _elements(lst, indices, requested, op):
    n = len(lst)
    for i in indices:
        if i < 0 or i >= n:
            raise invalid_argument(f"{op}: Trying to access element {i} in a list with {n} elements.")
    shape = lst.known_shape(requested)
    if not indices and not shape.is_fully_defined():
        raise invalid_argument(f"Tried to stack elements of an empty list with non-fully-defined element_shape: "
                               f"{_shape_str(shape)}")
    return [lst.element(i, shape) for i in indices], shape


def _stacked(xs, shape, dtype):
    if not xs:
        return np.zeros([0] + shape.as_list(), dtype.as_numpy_dtype)
    first = np.shape(xs[0])
    for x in xs[1:]:
        if np.shape(x) != first:
            raise invalid_argument(f"Incompatible shapes during merge: {_shape_str(first)} vs. "
                                   f"{_shape_str(np.shape(x))}")
    return np.stack([np.asarray(x) for x in xs])


# -- kernels ------------------------------------------------------------------

@register_op("EmptyTensorList", inputs=("element_shape", "max_num_elements"), outputs=("handle",),
             attrs={"element_dtype": REQUIRED}, type_attrs={"shape_type": "element_shape"}, shape=_handle)
def empty_tensor_list(element_shape, max_num_elements, element_dtype):
    """handle = an empty list of ``element_dtype`` tensors of ``element_shape``."""
    return TensorList((), element_dtype, decode_shape(element_shape))


@register_op("TensorListReserve", inputs=("element_shape", "num_elements"), outputs=("handle",),
             attrs={"element_dtype": REQUIRED}, type_attrs={"shape_type": "element_shape"}, shape=_handle)
def tensor_list_reserve(element_shape, num_elements, element_dtype):
    """handle = a list of ``num_elements`` unset elements (zeros once their shape is known)."""
    n = int(np.asarray(num_elements))
    if n < 0:
        raise invalid_argument(f"The num_elements to reserve must be a non negative number, but got {n}")
    return TensorList((None,) * n, element_dtype, decode_shape(element_shape))


@register_op("TensorListFromTensor", inputs=("tensor", "element_shape"), outputs=("output_handle",),
             type_attrs={"element_dtype": "tensor", "shape_type": "element_shape"}, shape=_from_tensor_rule)
def tensor_list_from_tensor(tensor, element_shape):
    """output_handle = the list of ``tensor[i]`` along the first dimension."""
    t = np.asarray(tensor)
    if t.ndim == 0:
        raise invalid_argument("Tensor must be at least a vector, but saw shape: []")
    shape = decode_shape(element_shape)
    if not shape.is_compatible_with(TensorShape(t.shape[1:])):
        raise invalid_argument(f"Specified a list with shape {_shape_str(shape)} from a tensor with shape "
                               f"{_shape_str(t.shape)}")
    return TensorList([t[i] for i in range(t.shape[0])], dtypes.as_dtype(t.dtype), shape)


@register_op("TensorListSetItem", inputs=("input_handle", "index", "item"), outputs=("output_handle",),
             attrs={"resize_if_index_out_of_bounds": False}, type_attrs={"element_dtype": "item"},
             shape=_handle)
def tensor_list_set_item(input_handle, index, item, resize_if_index_out_of_bounds=False):
    """output_handle = ``input_handle`` with element ``index`` set to ``item``
    (grown to ``index + 1`` elements when ``resize_if_index_out_of_bounds``)."""
    lst = _list(input_handle, "TensorListSetItem")
    i, n = int(np.asarray(index)), len(lst)
    x = _check_item(lst, item)
    items = list(lst.items)
    if i < 0 or i >= n:
        if not resize_if_index_out_of_bounds or i < 0:
            raise invalid_argument(f"Trying to modify element {i} in a list with {n} elements.")
        items.extend([None] * (i + 1 - n))
    items[i] = x
    return lst.replace(items)


@register_op("TensorListGetItem", inputs=("input_handle", "index", "element_shape"), outputs=("item",),
             attrs={"element_dtype": REQUIRED}, shape=_get_item_shape)
def tensor_list_get_item(input_handle, index, element_shape, element_dtype):
    """item = element ``index`` (zeros of the element shape when unset)."""
    lst = _list(input_handle, "TensorListGetItem")
    i, n = int(np.asarray(index)), len(lst)
    if i < 0 or i >= n:
        raise invalid_argument(f"Trying to access element {i} in a list with {n} elements.")
    return lst.element(i, decode_shape(element_shape))


@register_op("TensorListStack", inputs=("input_handle", "element_shape"), outputs=("tensor",),
             attrs={"element_dtype": REQUIRED, "num_elements": -1}, shape=_stack_shape)
def tensor_list_stack(input_handle, element_shape, element_dtype, num_elements=-1):
    """tensor = the elements stacked along a new first dimension."""
    lst = _list(input_handle, "TensorListStack")
    if num_elements not in (-1, None) and num_elements != len(lst):
        raise invalid_argument(f"Operation expected a list with {num_elements} elements but got a list with "
                               f"{len(lst)} elements.")
    xs, shape = _elements(lst, list(range(len(lst))), decode_shape(element_shape), "TensorListStack")
    return _stacked(xs, shape, lst.element_dtype)


@register_op("TensorListGather", inputs=("input_handle", "indices", "element_shape"), outputs=("values",),
             attrs={"element_dtype": REQUIRED}, shape=_gather_shape)
def tensor_list_gather(input_handle, indices, element_shape, element_dtype):
    """values = the elements at ``indices``, stacked."""
    lst = _list(input_handle, "TensorListGather")
    idx = [int(i) for i in np.asarray(indices).reshape(-1)]
    xs, shape = _elements(lst, idx, decode_shape(element_shape), "TensorListGather")
    return _stacked(xs, shape, lst.element_dtype)


def _scatter(lst, tensor, indices, op):
    t = np.asarray(tensor)
    idx = [int(i) for i in np.asarray(indices).reshape(-1)]
    if t.ndim == 0 or t.shape[0] != len(idx):
        raise invalid_argument(f"Invalid number of rows in input tensor. Expected: {len(idx)} Actual: "
                               f"{t.shape[0] if t.ndim else 0}")
    items = list(lst.items)
    for k, i in enumerate(idx):
        if i < 0:
            raise invalid_argument(f"Indices in {op} must all be non-negative.")
        if i >= len(items):
            items.extend([None] * (i + 1 - len(items)))
        items[i] = _check_item(lst, t[k])
    return lst.replace(items)


@register_op("TensorListScatterIntoExistingList", inputs=("input_handle", "tensor", "indices"),
             outputs=("output_handle",), type_attrs={"element_dtype": "tensor"}, shape=_handle)
def tensor_list_scatter_into_existing_list(input_handle, tensor, indices):
    """output_handle = ``input_handle`` with element ``indices[i]`` set to
    ``tensor[i]`` (grown to hold the largest index)."""
    return _scatter(_list(input_handle, "TensorListScatterIntoExistingList"), tensor, indices,
                    "TensorListScatter")


@register_op("TensorListScatterV2", inputs=("tensor", "indices", "element_shape", "num_elements"),
             outputs=("output_handle",), type_attrs={"element_dtype": "tensor", "shape_type": "element_shape"},
             shape=_handle)
def tensor_list_scatter_v2(tensor, indices, element_shape, num_elements):
    """output_handle = a list of ``max(num_elements, max(indices) + 1)``
    elements with element ``indices[i]`` set to ``tensor[i]``."""
    t = np.asarray(tensor)
    n = max(int(np.asarray(num_elements)), 0)
    lst = TensorList((None,) * n, dtypes.as_dtype(t.dtype), decode_shape(element_shape))
    return _scatter(lst, t, indices, "TensorListScatter")


@register_op("TensorListConcatV2", inputs=("input_handle", "element_shape", "leading_dims"),
             outputs=("tensor", "lengths"), attrs={"element_dtype": REQUIRED},
             type_attrs={"shape_type": "element_shape"}, shape=_concat_shape)
def tensor_list_concat_v2(input_handle, element_shape, leading_dims, element_dtype):
    """tensor = the elements concatenated along their first dimension; lengths =
    each element's first dimension (int64)."""
    lst = _list(input_handle, "TensorListConcat")
    shape = lst.known_shape(decode_shape(element_shape))
    lead = [int(d) for d in np.asarray(leading_dims).reshape(-1)]
    xs = []
    for i, x in enumerate(lst.items):
        if x is None:
            if shape.ndims is None or not shape[1:].is_fully_defined() or (shape[0] is None and not lead):
                raise invalid_argument("Trying to concat list with only uninitialized tensors but "
                                       f"element_shape_except_first_dim is not fully defined: {_shape_str(shape)}")
            first = shape[0] if shape[0] is not None else lead[i]
            x = np.zeros([first] + shape[1:].as_list(), lst.element_dtype.as_numpy_dtype)
        x = np.asarray(x)
        if x.ndim == 0:
            raise invalid_argument("Concat saw a scalar shape at index 0 but requires at least vectors.")
        xs.append(x)
    if not xs:
        if shape.ndims is None or not shape[1:].is_fully_defined():
            raise invalid_argument("All except the first dimension must be fully defined when concating an empty "
                                   f"tensor list. element_shape: {_shape_str(shape)}")
        return (np.zeros([0] + shape[1:].as_list(), lst.element_dtype.as_numpy_dtype), np.zeros(0, np.int64))
    for x in xs[1:]:
        if x.ndim != xs[0].ndim:
            raise invalid_argument(f"Incompatible ranks during merge: {xs[0].ndim} vs. {x.ndim}")
        if x.shape[1:] != xs[0].shape[1:]:
            raise invalid_argument(f"Tried to concat tensors with unequal shapes: {_shape_str(xs[0].shape)} vs "
                                   f"{_shape_str(x.shape)}")
    return np.concatenate(xs), np.asarray([x.shape[0] for x in xs], np.int64)


@register_op("TensorListSplit", inputs=("tensor", "element_shape", "lengths"), outputs=("output_handle",),
             type_attrs={"element_dtype": "tensor", "shape_type": "element_shape"}, shape=_from_tensor_rule)
def tensor_list_split(tensor, element_shape, lengths):
    """output_handle = ``tensor`` cut along its first dimension into pieces of ``lengths``."""
    t = np.asarray(tensor)
    if t.ndim == 0:
        raise invalid_argument("Tensor must be at least a vector, but saw shape: []")
    if np.ndim(lengths) != 1:
        raise invalid_argument(f"Expected lengths to be a vector, received shape: {_shape_str(np.shape(lengths))}")
    ls = [int(x) for x in np.asarray(lengths).reshape(-1)]
    if any(x < 0 for x in ls):
        raise invalid_argument("Invalid value in lengths: negative")
    if sum(ls) != t.shape[0]:
        raise invalid_argument(f"Unused values in tensor. Length of tensor: {t.shape[0]} Values used: {sum(ls)}")
    bounds = np.cumsum([0] + ls)
    return TensorList([t[a:b] for a, b in zip(bounds[:-1], bounds[1:])], dtypes.as_dtype(t.dtype),
                      decode_shape(element_shape))


@register_op("TensorListLength", inputs=("input_handle",), outputs=("length",),
             shape=lambda ins, attrs: [(dtypes.int32, TensorShape([]))])
def tensor_list_length(input_handle):
    """length = the number of elements (int32)."""
    return np.asarray(len(_list(input_handle, "TensorListLength")), np.int32)


@register_op("TensorListElementShape", inputs=("input_handle",), outputs=("element_shape",),
             attrs={"shape_type": dtypes.int32},
             shape=lambda ins, attrs: [(attrs.get("shape_type") or dtypes.int32, unknown_shape())])
def tensor_list_element_shape(input_handle, shape_type=dtypes.int32):
    """element_shape = the list's element shape in TF's encoding."""
    lst = _list(input_handle, "TensorListElementShape")
    return encode_shape(lst.element_shape, dtypes.as_dtype(shape_type).as_numpy_dtype)


@register_op("TensorListPushBack", inputs=("input_handle", "tensor"), outputs=("output_handle",),
             type_attrs={"element_dtype": "tensor"}, shape=_handle)
def tensor_list_push_back(input_handle, tensor):
    """output_handle = ``input_handle`` with ``tensor`` appended."""
    lst = _list(input_handle, "TensorListPushBack")
    x = _check_item(lst, tensor, "Tried to append a tensor with incompatible shape to a list.")
    return lst.replace(lst.items + (x,))


@register_op("TensorListPopBack", inputs=("input_handle", "element_shape"), outputs=("output_handle", "tensor"),
             attrs={"element_dtype": REQUIRED},
             shape=lambda ins, attrs: _handle(ins, attrs) + _get_item_shape(ins, attrs))
def tensor_list_pop_back(input_handle, element_shape, element_dtype):
    """(the list without its last element, that element)."""
    lst = _list(input_handle, "TensorListPopBack")
    if not len(lst):
        raise invalid_argument("Trying to pop from an empty list.")
    return lst.replace(lst.items[:-1]), lst.element(len(lst) - 1, decode_shape(element_shape))


@register_op("TensorListResize", inputs=("input_handle", "size"), outputs=("output_handle",), shape=_handle)
def tensor_list_resize(input_handle, size):
    """output_handle = the list cut or grown (unset elements) to ``size`` elements."""
    lst = _list(input_handle, "TensorListResize")
    n = int(np.asarray(size))
    if n < 0:
        raise invalid_argument(f"TensorListSlice expects size to be non-negative. Got: {n}")
    return lst.replace((lst.items + (None,) * n)[:n])
