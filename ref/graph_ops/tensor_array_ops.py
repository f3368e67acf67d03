"""``tf.TensorArray`` in graph mode and the TensorList builders behind it.

compat.v1 in TensorFlow 2 builds a graph-mode TensorArray from TensorList ops
(``_GraphTensorArrayV2``): the array's ``flow`` is a ``variant`` scalar holding
the list, each ``write``/``unstack``/``scatter``/``split`` returns a new
TensorArray with a new flow, and ``handle`` is None. ref does the same with the
kernels of ``ref/ops/list_ops.py``, so a TensorArray is a ``while_loop``
variable like any tensor and its gradients are the TensorList gradients
(``ref/grad/list_grad.py``). ``clear_after_read`` and ``colocate_with_first_write_call``
are accepted and ignored, as compat.v1 does.
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape, as_shape
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.tensor_util import constant_value

__all__ = ["TensorArray"]


def _scope_name(scope):
    """The op takes the scope's own name (a trailing '/' names it absolutely)."""
    return scope


def build_element_shape(shape):
    """TF's element-shape encoding of ``shape``: a Tensor as is; -1 for None or
    an unknown rank; else the dimensions with -1 for unknown ones (int32)."""
    if isinstance(shape, Tensor):
        return shape
    shape = as_shape(shape) if shape is not None else TensorShape(None)
    if shape.ndims is None:
        return convert_to_tensor(-1, dtype=dtypes.int32)
    return convert_to_tensor(np.asarray([-1 if d is None else d for d in shape.as_list()], np.int32))


def tensor_list_reserve(element_shape, num_elements, element_dtype, name=None):
    return apply_op("TensorListReserve", element_shape=build_element_shape(element_shape),
                    num_elements=convert_to_tensor(num_elements, dtype=dtypes.int32),
                    element_dtype=dtypes.as_dtype(element_dtype), name=name or "TensorListReserve")


def empty_tensor_list(element_shape, element_dtype, max_num_elements=None, name=None):
    return apply_op("EmptyTensorList", element_shape=build_element_shape(element_shape),
                    max_num_elements=convert_to_tensor(-1 if max_num_elements is None else max_num_elements,
                                                       dtype=dtypes.int32),
                    element_dtype=dtypes.as_dtype(element_dtype), name=name or "EmptyTensorList")


def tensor_list_from_tensor(tensor, element_shape, name=None):
    return apply_op("TensorListFromTensor", tensor=tensor, element_shape=build_element_shape(element_shape),
                    name=name or "TensorListFromTensor")


def tensor_list_get_item(input_handle, index, element_dtype, element_shape=None, name=None):
    return apply_op("TensorListGetItem", input_handle=input_handle,
                    index=convert_to_tensor(index, dtype=dtypes.int32),
                    element_shape=build_element_shape(element_shape), element_dtype=dtypes.as_dtype(element_dtype),
                    name=name or "TensorListGetItem")


def tensor_list_set_item(input_handle, index, item, resize_if_index_out_of_bounds=False, name=None):
    return apply_op("TensorListSetItem", input_handle=input_handle, index=convert_to_tensor(index, dtype=dtypes.int32),
                    item=item, resize_if_index_out_of_bounds=bool(resize_if_index_out_of_bounds),
                    name=name or "TensorListSetItem")


def tensor_list_stack(input_handle, element_dtype, num_elements=-1, element_shape=None, name=None):
    return apply_op("TensorListStack", input_handle=input_handle, element_shape=build_element_shape(element_shape),
                    element_dtype=dtypes.as_dtype(element_dtype),
                    num_elements=-1 if num_elements is None else int(num_elements), name=name or "TensorListStack")


def tensor_list_gather(input_handle, indices, element_dtype, element_shape=None, name=None):
    return apply_op("TensorListGather", input_handle=input_handle,
                    indices=convert_to_tensor(indices, dtype=dtypes.int32),
                    element_shape=build_element_shape(element_shape), element_dtype=dtypes.as_dtype(element_dtype),
                    name=name or "TensorListGather")


def tensor_list_scatter(tensor, indices, element_shape=None, input_handle=None, name=None):
    indices = convert_to_tensor(indices, dtype=dtypes.int32)
    if input_handle is not None:
        return apply_op("TensorListScatterIntoExistingList", input_handle=input_handle, tensor=tensor,
                        indices=indices, name=name or "TensorListScatterIntoExistingList")
    return apply_op("TensorListScatterV2", tensor=tensor, indices=indices,
                    element_shape=build_element_shape(element_shape),
                    num_elements=convert_to_tensor(-1, dtype=dtypes.int32), name=name or "TensorListScatterV2")


def tensor_list_concat(input_handle, element_dtype, element_shape=None, leading_dims=None, name=None):
    return apply_op("TensorListConcatV2", input_handle=input_handle, element_shape=build_element_shape(element_shape),
                    leading_dims=convert_to_tensor(np.zeros(0, np.int64) if leading_dims is None else leading_dims,
                                                   dtype=dtypes.int64),
                    element_dtype=dtypes.as_dtype(element_dtype), name=name or "TensorListConcatV2")[0]


def tensor_list_split(tensor, element_shape, lengths, name=None):
    return apply_op("TensorListSplit", tensor=tensor, element_shape=build_element_shape(element_shape),
                    lengths=convert_to_tensor(lengths, dtype=dtypes.int64), name=name or "TensorListSplit")


def tensor_list_length(input_handle, name=None):
    return apply_op("TensorListLength", input_handle=input_handle, name=name or "TensorListLength")


def tensor_list_element_shape(input_handle, shape_type=dtypes.int32, name=None):
    return apply_op("TensorListElementShape", input_handle=input_handle, shape_type=dtypes.as_dtype(shape_type),
                    name=name or "TensorListElementShape")


def tensor_list_resize(input_handle, size, name=None):
    return apply_op("TensorListResize", input_handle=input_handle, size=convert_to_tensor(size, dtype=dtypes.int32),
                    name=name or "TensorListResize")


def tensor_list_push_back(input_handle, tensor, name=None):
    return apply_op("TensorListPushBack", input_handle=input_handle, tensor=tensor,
                    name=name or "TensorListPushBack")


def tensor_list_pop_back(input_handle, element_dtype, element_shape=-1, name=None):
    return apply_op("TensorListPopBack", input_handle=input_handle, element_shape=build_element_shape(
        None if isinstance(element_shape, int) and element_shape == -1 else element_shape),
        element_dtype=dtypes.as_dtype(element_dtype), name=name or "TensorListPopBack")


class TensorArray:
    """A list of tensors of one dtype, written and read by index, that a
    ``while_loop`` can carry (``tf.TensorArray``, graph mode).

    ``size`` (int32 scalar) is required unless ``flow`` is given;
    ``dynamic_size=True`` lets writes grow the array; ``element_shape`` constrains
    the elements and, with ``infer_shape`` (default), the shapes written so far
    refine it (shared by every TensorArray derived from this one). Writes return
    a new TensorArray: use it (``ta = ta.write(i, x)``).
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None,
                 colocate_with_first_write_call=True, name=None):
        if handle is not None:
            raise ValueError("TensorArray handle must be None: compat.v1 graph-mode TensorArrays are TensorLists "
                             "carried by their flow.")
        if flow is not None and (not isinstance(flow, Tensor) or flow.dtype != dtypes.variant):
            raise TypeError(f"Expected `flow` to be a variant tensor, but received "
                            f"`{getattr(flow, 'dtype', type(flow).__name__)}` instead.")
        if flow is None and size is None:
            raise ValueError("Argument `size` must be provided if argument `flow` is not provided.")
        if flow is not None and size is not None:
            raise ValueError("Cannot provide both `flow` and `size` arguments at the same time.")
        if flow is not None and element_shape is not None:
            raise ValueError("Cannot provide both `flow` and `element_shape` argumentsat the same time.")
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = dynamic_size
        self._size = size
        self._element_shape = [as_shape(element_shape) if element_shape is not None else TensorShape(None)]
        self._infer_shape = infer_shape
        with name_scope(name, "TensorArrayV2", [size, flow]) as scope:
            if flow is None:
                flow = tensor_list_reserve(element_shape, size, self._dtype, name=_scope_name(scope))
        self._flow = flow

    @property
    def flow(self):
        """The variant tensor holding the list."""
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def handle(self):
        """None: the list is the ``flow``."""
        return None

    @property
    def element_shape(self):
        return self._element_shape[0]

    @property
    def dynamic_size(self):
        return bool(self._dynamic_size)

    def _with_flow(self, flow):
        new = TensorArray.__new__(TensorArray)
        new._dtype, new._dynamic_size, new._size = self._dtype, self._dynamic_size, self._size
        new._element_shape, new._infer_shape, new._flow = self._element_shape, self._infer_shape, flow
        return new

    def _check_element_shape(self, shape):
        if not shape.is_compatible_with(self.element_shape):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self.element_shape} ")
        if self._infer_shape:
            self._element_shape[0] = self.element_shape.merge_with(shape)

    def _value(self, value):
        value = convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
        if value.dtype.base_dtype != self._dtype:
            raise TypeError(f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                            f"{value.dtype.base_dtype.name}")
        return value

    def identity(self):
        """This TensorArray behind an Identity of its flow."""
        return self._with_flow(apply_op("Identity", input=self._flow))

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("TensorArray.grad: gradients of TensorList-backed arrays come from tf.gradients")

    def read(self, index, name=None):
        """Element ``index`` (zeros of the element shape if never written)."""
        with name_scope(name, "TensorArrayV2Read", [self._flow, index]):
            return tensor_list_get_item(self._flow, index, self._dtype, self.element_shape, name=name)

    def write(self, index, value, name=None):
        """A TensorArray with element ``index`` set to ``value``."""
        with name_scope(name, "TensorArrayV2Write", [self._flow, index, value]):
            value = self._value(value)
            self._check_element_shape(value.shape)
            return self._with_flow(tensor_list_set_item(self._flow, index, value, bool(self._dynamic_size),
                                                        name=name))

    def stack(self, name=None):
        """Every element, stacked along a new first dimension."""
        with name_scope(name, "TensorArrayV2Stack", [self._flow]):
            n = -1
            if not self._dynamic_size and self._size is not None:
                c = constant_value(self._size) if isinstance(self._size, Tensor) else self._size
                n = -1 if c is None else int(c)
            return tensor_list_stack(self._flow, self._dtype, n, self.element_shape)

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        return tensor_list_gather(self._flow, indices, self._dtype, self.element_shape, name=name)

    def concat(self, name=None):
        """Every element, concatenated along its first dimension."""
        shape = self.element_shape
        element_shape = TensorShape([None]).concatenate(shape[1:]) if shape.ndims else None
        return tensor_list_concat(self._flow, self._dtype, element_shape, name=name)

    def unstack(self, value, name=None):
        """A TensorArray holding ``value[i]`` at index ``i``."""
        with name_scope(name, "TensorArrayUnstack", [self._flow, value]):
            value = self._value(value)
            self._check_element_shape(value.shape[1:])
            return self._with_flow(tensor_list_from_tensor(value, value.shape[1:]))

    def scatter(self, indices, value, name=None):
        """A TensorArray with element ``indices[i]`` set to ``value[i]``."""
        with name_scope(name, "TensorArrayScatter", [self._flow, value, indices]):
            value = self._value(value)
            self._check_element_shape(value.shape[1:])
            return self._with_flow(tensor_list_scatter(value, indices, self.element_shape, input_handle=self._flow))

    def split(self, value, lengths, name=None):
        """A TensorArray holding ``value`` cut along its first dimension into ``lengths``."""
        with name_scope(name, "TensorArraySplit", [self._flow, value, lengths]):
            value = self._value(value)
            lengths64 = apply_op("Cast", x=convert_to_tensor(lengths), DstT=dtypes.int64)
            c = constant_value(lengths64)
            if value.shape.ndims is not None and c is not None:
                c = np.asarray(c)
                if c.shape and c.size and c.max() == c.min():
                    self._check_element_shape(TensorShape([int(c[0])]).concatenate(value.shape[1:]))
            return self._with_flow(tensor_list_split(value, self.element_shape, lengths64, name=name))

    def size(self, name=None):
        """The number of elements (int32)."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        return tensor_list_length(self._flow, name=name)

    def close(self, name=None):
        """A NoOp (a TensorList needs no closing)."""
        return apply_op("NoOp", name=name or "NoOp")
