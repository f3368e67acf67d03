"""``tf.TensorArray`` in graph mode, in TF's two forms.

With control flow v2 disabled (TF 1.x, ``tf.disable_control_flow_v2()``) a
TensorArray is TF's ``_GraphTensorArray``: a ``TensorArrayV3`` resource
``handle`` plus a float32 ``flow`` scalar; each ``write``/``scatter``/``split``
outputs a new flow (the TensorArray it returns carries it), each reader takes
the current one, so the flow orders the ops of one array and is what a
``while_loop`` carries. Its gradients are the ``TensorArrayGradV3`` arrays of
``ref/grad/tensor_array_grad.py``. Writes colocate with the first value written
(``colocate_with_first_write_call``); ``clear_after_read`` (default True) frees
an element once read.

With control flow v2 enabled, or inside a function graph, compat.v1 builds the
array from TensorList ops (``_GraphTensorArrayV2``): the ``flow`` is a
``variant`` scalar holding the list and ``handle`` is None; its gradients are
the TensorList gradients (``ref/grad/list_grad.py``); ``clear_after_read`` and
``colocate_with_first_write_call`` are accepted and ignored, as compat.v1 does.
"""
from __future__ import annotations

import numpy as np

import contextlib

from ref.types import dtypes
from ref.platform import modes
from ref.types.shapes import TensorShape, as_shape, dimension_value
from ref.framework.graph import Tensor, colocate_with, control_dependencies, device, get_default_graph, name_scope
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


def _v1_array(args, kwargs) -> bool:
    """TF's choice: a ``_GraphTensorArray`` unless control flow v2 is on or a
    function graph is being built; an array rebuilt from a handle or a float
    flow is one too, and one from a variant flow a TensorList array."""
    handle = kwargs.get("handle", args[5] if len(args) > 5 else None)
    flow = kwargs.get("flow", args[6] if len(args) > 6 else None)
    if handle is not None:
        return True
    if isinstance(flow, Tensor):
        return flow.dtype.base_dtype != dtypes.variant
    return not (modes.control_flow_v2_enabled() or get_default_graph()._building_function)


class TensorArray:
    """A list of tensors of one dtype, written and read by index, that a
    ``while_loop`` can carry (``tf.TensorArray``, graph mode).

    ``size`` (int32 scalar) is required unless ``flow`` is given;
    ``dynamic_size=True`` lets writes grow the array; ``element_shape`` constrains
    the elements and, with ``infer_shape`` (default), the shapes written so far
    refine it (shared by every TensorArray derived from this one). Writes return
    a new TensorArray: use it (``ta = ta.write(i, x)``).
    """

    def __new__(cls, *args, **kwargs):
        if cls is TensorArray and _v1_array(args, kwargs):
            cls = _GraphTensorArray
        return object.__new__(cls)

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
        new = object.__new__(TensorArray)
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


def _handle_element_shape(handle):
    """The element shape TF's shape inference attaches to a TensorArrayV3
    handle (its handle data, passed on by Enter and TensorArrayGradV3): the
    ``element_shape`` attr when fully defined or ``identical_element_shapes``;
    None when the handle carries none."""
    op = handle.op
    while op.type in ("Enter", "RefEnter", "Identity", "Switch", "Merge", "TensorArrayGradV3") and op.inputs:
        op = op.inputs[0].op
    if op.type != "TensorArrayV3":
        return None
    shape = as_shape(op._get_attr("element_shape"))
    return shape if shape.is_fully_defined() or op._get_attr("identical_element_shapes") else None


def _cast_int64(x):
    """``math_ops.cast(x, int64)``: ``x`` itself when already int64, else a ``Cast`` (input ``Cast/x``)."""
    if isinstance(x, Tensor) and x.dtype.base_dtype == dtypes.int64:
        return x
    with name_scope(None, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == dtypes.int64:
            return x
        return apply_op("Cast", x=x, DstT=dtypes.int64, Truncate=False, name=scope)


def _range(limit):
    """``math_ops.range(0, limit)`` as TF names it (``range/start``, ``range/delta``, ``range``)."""
    with name_scope("range") as scope:
        start = convert_to_tensor(0, name="start")
        delta = convert_to_tensor(1, name="delta")
        return apply_op("Range", start=start, limit=limit, delta=delta, name=scope)


class _GraphTensorArray(TensorArray):
    """TF 1.x graph-mode TensorArray (TF's ``_GraphTensorArray``): a
    ``TensorArrayV3`` handle and a float32 flow; see the module docstring.

    ``handle`` with ``flow`` wraps an existing array (a gradient function's
    view of its forward array); ``size`` makes a new one, named by
    ``tensor_array_name`` (default: the op's name) in run-time messages.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None,
                 colocate_with_first_write_call=True, name=None):
        if handle is not None and tensor_array_name:
            raise ValueError("Cannot provide both `handle` and `tensor_array_name` arguments at the same time.")
        if handle is not None and not isinstance(handle, Tensor):
            raise TypeError(f"Expected `handle` to be a Tensor, but got `{handle}` of type `{type(handle)}` "
                            f"instead.")
        if handle is None and size is None:
            raise ValueError("Argument `size` must be provided if handle is not provided.")
        for arg, what in ((size, "size"), (element_shape, "element_shape"), (dynamic_size, "dynamic_size"),
                          (clear_after_read, "clear_after_read")):
            if handle is not None and arg is not None:
                raise ValueError(f"Cannot provide both `handle` and `{what}` arguments at the same time."
                                 if what != "size" else
                                 "Cannot provide both a `handle` and `size` arguments at the same time.")
        clear_after_read = True if clear_after_read is None else clear_after_read
        self._dynamic_size = dynamic_size or False
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._colocate_with = [] if colocate_with_first_write_call else None
        self._element_shape = [as_shape(element_shape) if element_shape is not None else TensorShape(None)]
        self._infer_shape = infer_shape
        self._size = size
        with name_scope(name, "TensorArray", [handle, size, flow]) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle, self._flow = handle, flow
                return
            create = dict(size=size, dtype=self._dtype, element_shape=self._element_shape[0],
                          identical_element_shapes=bool(infer_shape), dynamic_size=bool(self._dynamic_size),
                          clear_after_read=bool(clear_after_read), tensor_array_name=tensor_array_name or "",
                          name=scope)
            if colocate_with_first_write_call:
                with device(None), colocate_with(None, ignore_existing=True):
                    self._handle, self._flow = apply_op("TensorArrayV3", **create)
            else:
                self._handle, self._flow = apply_op("TensorArrayV3", **create)

    @property
    def handle(self):
        """The ``TensorArrayV3`` resource handle."""
        return self._handle

    @property
    def flow(self):
        """The float32 scalar that orders this array's ops."""
        return self._flow

    def _with_flow(self, flow):
        """TF's ``build_ta_with_new_flow``: this array carried by ``flow``."""
        new = _GraphTensorArray(self._dtype, handle=self._handle, flow=flow, infer_shape=self._infer_shape,
                                colocate_with_first_write_call=self._colocate_with_first_write_call)
        new._dynamic_size, new._size = self._dynamic_size, self._size
        new._colocate_with, new._element_shape = self._colocate_with, self._element_shape
        return new

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value):
        """Writes colocate with the first value written (``colocate_with_first_write_call``)."""
        if not self._colocate_with_first_write_call:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with colocate_with(self._colocate_with[0]):
            yield

    def _value(self, value, convert_dtype=False):
        value = convert_to_tensor(value, dtype=self._dtype if convert_dtype else None,
                                  preferred_dtype=None if convert_dtype else self._dtype, name="value")
        if value.dtype.base_dtype != self._dtype:
            raise TypeError(f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                            f"{value.dtype.base_dtype.name}")
        return value

    def identity(self):
        """This array behind an Identity of its flow."""
        return self._with_flow(apply_op("Identity", input=self._flow, name="Identity"))

    def grad(self, source, flow=None, name=None):
        """The gradient array for ``source`` (a ``tf.gradients`` call's name
        scope), created at run time on first use (``TensorArrayGradV3``)."""
        flow = self.flow if flow is None else flow
        with name_scope(name, "TensorArrayGrad", [self._handle]):
            with colocate_with(self._handle):
                g_handle, _ = apply_op("TensorArrayGradV3", handle=self._handle, flow_in=flow, source=source,
                                       name=name or "TensorArrayGradV3")
                with control_dependencies([g_handle]):
                    flow = apply_op("Identity", input=flow, name="gradient_flow")
                g = _GraphTensorArray(self._dtype, handle=g_handle, flow=flow, infer_shape=self._infer_shape,
                                      colocate_with_first_write_call=False)
                g._element_shape = self._element_shape
                return g

    def read(self, index, name=None):
        """Element ``index``."""
        value = apply_op("TensorArrayReadV3", handle=self._handle, index=index, flow_in=self._flow,
                         dtype=self._dtype, name=name or "TensorArrayReadV3")
        if self._element_shape:
            value.set_shape(self._element_shape[0])
        return value

    def write(self, index, value, name=None):
        """An array (same handle, new flow) with ``value`` written at ``index``."""
        with name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = self._value(value)
            self._check_element_shape(value.shape)
            with self._maybe_colocate_with(value):
                flow_out = apply_op("TensorArrayWriteV3", handle=self._handle, index=index, value=value,
                                    flow_in=self._flow, name=name or "TensorArrayWriteV3")
            return self._with_flow(flow_out)

    def stack(self, name=None):
        """Every element, stacked along a new first dimension (a gather of ``range(size)``)."""
        with colocate_with(self._handle):
            with name_scope(name, "TensorArrayStack", [self._handle]):
                indices = _range(self.size())
                value = self.gather(indices, name=name)
                if self.element_shape and not self._dynamic_size and self._size is not None:
                    n = constant_value(self._size) if isinstance(self._size, Tensor) else self._size
                    value.set_shape(TensorShape([None if n is None else int(n)]).concatenate(self.element_shape))
                return value

    def gather(self, indices, name=None):
        """The elements at ``indices``, stacked."""
        value = apply_op("TensorArrayGatherV3", handle=self._handle, indices=indices, flow_in=self._flow,
                         dtype=self._dtype, element_shape=self._element_shape[0] if self._element_shape
                         else TensorShape(None), name=name or "TensorArrayGatherV3")
        handle_shape = _handle_element_shape(self._handle)
        if handle_shape is not None:  # TF's shape function prefers the handle's shape to the attr
            value._shape = (TensorShape(None) if handle_shape.ndims is None
                            else TensorShape([value.shape[0] if value.shape.ndims else None]).concatenate(handle_shape))
        if self.element_shape.ndims is not None:
            value.set_shape(TensorShape([None]).concatenate(self.element_shape))
        return value

    def concat(self, name=None):
        """Every element, concatenated along its first dimension."""
        shape = self.element_shape
        except0 = shape[1:] if shape.ndims else TensorShape(None)
        value, _ = apply_op("TensorArrayConcatV3", handle=self._handle, flow_in=self._flow, dtype=self._dtype,
                            element_shape_except0=except0, name=name or "TensorArrayConcatV3")
        if shape.ndims:
            dim0 = None
            if self._infer_shape:
                size = constant_value(self.size())
                if size is not None and dimension_value(shape[0]) is not None:
                    dim0 = int(size) * int(shape[0])
            value.set_shape(TensorShape([dim0]).concatenate(shape[1:]))
        return value

    def unstack(self, value, name=None):
        """An array holding ``value[i]`` at index ``i`` (a scatter at ``range(len(value))``)."""
        with name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            value_t = convert_to_tensor(value)
            dims = value_t.shape.as_list() if value_t.shape.is_fully_defined() else None
            with name_scope(None, "Shape", [value_t]) as s:
                shape = (convert_to_tensor(np.asarray(dims, np.int32), name=s) if dims is not None
                         else apply_op("Shape", input=value_t, out_type=dtypes.int32, name=s))
            num_elements = shape[0]
            indices = _range(num_elements)
            return self.scatter(indices=indices, value=value, name=name)

    def scatter(self, indices, value, name=None):
        """An array with ``value[i]`` written at ``indices[i]``."""
        with name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = self._value(value)
            self._check_element_shape(value.shape[1:])
            with self._maybe_colocate_with(value):
                flow_out = apply_op("TensorArrayScatterV3", handle=self._handle, indices=indices, value=value,
                                    flow_in=self._flow, name=name or "TensorArrayScatterV3")
            return self._with_flow(flow_out)

    def split(self, value, lengths, name=None):
        """An array holding ``value`` cut along its first dimension into ``lengths``."""
        with name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = self._value(value, convert_dtype=True)
            with self._maybe_colocate_with(value):
                lengths_64 = _cast_int64(lengths)
                c = constant_value(lengths_64)
                if value.shape.ndims is not None and c is not None:
                    c = np.asarray(c)
                    if c.shape and c.size and c.max() == c.min():
                        self._check_element_shape(TensorShape([int(c[0])]).concatenate(value.shape[1:]))
                flow_out = apply_op("TensorArraySplitV3", handle=self._handle, value=value, lengths=lengths_64,
                                    flow_in=self._flow, name=name or "TensorArraySplitV3")
            return self._with_flow(flow_out)

    def size(self, name=None):
        """The number of elements (int32): the static size unless dynamic."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes.int32)
        return apply_op("TensorArraySizeV3", handle=self._handle, flow_in=self.flow, name=name or "TensorArraySizeV3")

    def close(self, name=None):
        """Closes the array (``TensorArrayCloseV3``)."""
        return apply_op("TensorArrayCloseV3", handle=self._handle, name=name or "TensorArrayCloseV3")
