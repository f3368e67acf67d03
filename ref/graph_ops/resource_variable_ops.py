"""``ResourceVariable``: a variable behind a ``resource`` handle (TF's
``resource_variable_ops.py``; ``tf.Variable(..., use_resource=True)``).

Its ops: ``v`` (VarHandleOp), ``v/Initializer/initial_value``,
``v/IsInitialized/VarIsInitializedOp``, ``v/Assign`` (AssignVariableOp) and
``v/Read/ReadVariableOp``; every ``value()`` is a new ReadVariableOp, ordered by
its control dependencies. The base class, the creators and the reference
variable are in ``variables``.
"""
from __future__ import annotations

from ref.framework.graph import colocate_with, control_dependencies, device, get_default_graph, init_scope, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.types.shapes import TensorShape, as_shape, unknown_shape
from ref.graph_ops.variables import (Variable, VariableAggregation, VariableSynchronization, _common_init,
                                     _initial_tensor, _prepend_scope)

__all__ = ["ResourceVariable", "is_resource_variable"]


def is_resource_variable(var):
    """Whether ``var`` is a resource variable, or asks to be treated as one
    (``_should_act_as_resource_variable``, as TF's)."""
    return isinstance(var, ResourceVariable) or hasattr(var, "_should_act_as_resource_variable")


class ResourceVariable(Variable):
    """A variable behind a ``resource`` handle: reads are explicit ReadVariableOps,
    ordered by their control dependencies (well-defined semantics)."""

    _is_resource = True  # state_ops updates it through its handle

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, dtype=None, variable_def=None, import_scope=None,
                 constraint=None, distribute_strategy=None, synchronization=None, aggregation=None,
                 shape=None, expected_shape=None):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        self._validate_shape = validate_shape
        collections = _common_init(self, collections, trainable, constraint, synchronization, aggregation, name,
                                   resource=True)
        with init_scope():  # a variable made in a cond/while body lives in the outer graph
            with name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
                handle_name = scope.rstrip("/")
                # TF: the initial value and the handle get ``_class: loc:@<handle>`` (colocation
                # with a variable that does not exist yet); the initial value no device
                attr_scope = get_default_graph()._attr_scope({"_class": [f"loc:@{handle_name}"]})
                attr_scope.__enter__()
                with name_scope("Initializer"), device(None):
                    self._initial_value = _initial_tensor(initial_value, dtype, init_from_fn, name, resource=True)
                if shape is not None:
                    shape = as_shape(shape)
                    if not self._initial_value.shape.is_compatible_with(shape):
                        raise ValueError(f"In this `tf.Variable` creation, the initial value's shape "
                                         f"({self._initial_value.shape}) is not compatible with the explicitly "
                                         f"supplied `shape` argument ({shape}).")
                else:
                    shape = self._initial_value.shape if validate_shape else unknown_shape()
                self._dtype = self._initial_value.dtype.base_dtype
                self._shape = shape
                try:
                    self._handle = apply_op("VarHandleOp", dtype=self._dtype, shape=shape,
                                            shared_name=handle_name, debug_name=scope, name=scope)
                finally:
                    attr_scope.__exit__(None, None, None)
                with name_scope("IsInitialized"):
                    self._is_initialized_op = apply_op("VarIsInitializedOp", resource=self._handle)
                # the initializer and the first read run where the handle lives (TF places them so)
                with name_scope("Assign") as n, colocate_with(None, ignore_existing=True), \
                        device(self._handle.device):
                    self._initializer_op = apply_op("AssignVariableOp", resource=self._handle,
                                                    value=self._initial_value, name=n)
                with name_scope("Read"), device(self._handle.device):
                    self._graph_element = self._read_op()
                self._cached_value = None
                if caching_device is not None:
                    with colocate_with(None, ignore_existing=True), device(caching_device):
                        self._cached_value = apply_op("Identity", input=self._graph_element)
        self._caching_device = caching_device
        get_default_graph().add_to_collections(collections, self)

    def _init_from_proto(self, variable_def, import_scope=None):
        g = get_default_graph()
        self._handle = g.as_graph_element(_prepend_scope(variable_def.variable_name, import_scope))
        self._dtype = self._handle.op._get_attr("dtype")
        self._shape = as_shape(self._handle.op._get_attr("shape"))
        self._initializer_op = g.as_graph_element(_prepend_scope(variable_def.initializer_name, import_scope))
        self._initial_value = (g.as_graph_element(_prepend_scope(variable_def.initial_value_name, import_scope))
                               if variable_def.initial_value_name else None)
        self._graph_element = g.as_graph_element(_prepend_scope(variable_def.snapshot_name, import_scope))
        self._cached_value = None
        self._is_initialized_op = None
        self._synchronization = VariableSynchronization(variable_def.synchronization)
        self._aggregation = VariableAggregation(variable_def.aggregation)
        self._trainable = variable_def.trainable
        self._constraint = None
        self._caching_device = None
        self._save_slice_info = (Variable.SaveSliceInfo(save_slice_info_def=variable_def.save_slice_info_def,
                                                        import_scope=import_scope)
                                 if variable_def.HasField("save_slice_info_def") else None)

    handle = property(lambda self: self._handle, doc="The resource handle (``v:0``).")
    create = property(lambda self: self._initializer_op)

    def _dtype_impl(self):
        return self._dtype

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape):
        self._shape = self._shape.merge_with(as_shape(shape))

    def _ref(self):
        return self._handle

    def _as_graph_element(self):
        return self._graph_element

    def _snapshot_for_proto(self):
        return self._cached_value if self._cached_value is not None else self._graph_element

    def _read_op(self):
        t = apply_op("ReadVariableOp", resource=self._handle, dtype=self._dtype)
        t.set_shape(self._shape)
        return t

    def _value_impl(self):
        # a new read, ordered by the current control dependencies
        if self._cached_value is not None:
            return self._cached_value
        with colocate_with(None, ignore_existing=True):
            return self._read_op()

    def _read_value_impl(self):
        with name_scope("Read"):
            v = self._read_op()
        return apply_op("Identity", input=v)

    def _assign_impl(self, op_type, value, use_locking, name, read_value):
        op_type = {"Assign": "AssignVariableOp", "AssignAdd": "AssignAddVariableOp",
                   "AssignSub": "AssignSubVariableOp"}[op_type]
        value = convert_to_tensor(value, dtype=self._dtype)
        if op_type == "AssignVariableOp" and not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"Cannot assign value to variable ' {self.name[:-2]}': Shape mismatch.The variable "
                             f"shape {self._shape}, and the assigned value shape {value.shape} are incompatible.")
        kwargs = {}
        if op_type == "AssignVariableOp":  # TF: a runtime shape check when the variable's shape is known
            kwargs["validate_shape"] = getattr(self, "_validate_shape", True) and self._shape.is_fully_defined()
        op = apply_op(op_type, resource=self._handle, value=value, name=name or op_type, **kwargs)
        if not read_value:
            return op
        return self._read_after(op)

    def _read_after(self, op):
        """The update's result: TF's ``_UnreadVariable`` for ``op``."""
        return UnreadVariable(self, op)

    def _scatter(self, how, sparse_delta, use_locking, name):
        self._check_slices(sparse_delta)
        op = f"ResourceScatter{how}"
        upd = apply_op(op, resource=self._handle, indices=sparse_delta.indices,
                       updates=convert_to_tensor(sparse_delta.values, dtype=self._dtype), name=name or op)
        return self._read_after(upd)

    def _scatter_nd(self, how, indices, updates, name):
        op = f"ResourceScatterNd{how}"
        upd = apply_op(op, ref=self._handle, indices=indices, updates=convert_to_tensor(updates, dtype=self._dtype),
                       name=name or op)
        return self._read_after(upd)

    def _gather(self, indices, scope):
        # the indices convert inside the op's scope, as TF's ("Gather/indices")
        t = apply_op("ResourceGather", resource=self._handle, indices=indices, dtype=self._dtype, name=scope)
        if self._shape.ndims is not None:
            t.set_shape(t.op.inputs[1].shape.concatenate(self._shape[1:]))
        return t

    def _gather_nd(self, indices, scope):
        return apply_op("ResourceGatherNd", resource=self._handle, indices=indices, dtype=self._dtype, name=scope)

    def is_initialized(self, name=None):
        return apply_op("VarIsInitializedOp", resource=self._handle, name=name or "VarIsInitializedOp")

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        raise NotImplementedError("__deepcopy__() is only available when eager execution is enabled.")

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"


Variable._proto_classes[True] = ResourceVariable


class UnreadVariable(ResourceVariable):
    """What an update of a resource variable returns (TF's ``_UnreadVariable``):
    the variable as of after ``op``. It stands for ``op`` where an op is asked
    for (``.op``, ``.name``, ``control_dependencies``); every read of it (its
    value, ``convert_to_tensor``) is a new ReadVariableOp ordered after ``op``;
    its updates are ordered after ``op`` too. A Session fetches the read made
    with it."""

    def __init__(self, var, op):  # pylint: disable=super-init-not-called
        self.__dict__.update({k: v for k, v in var.__dict__.items() if k != "_parent_op"})
        self._cached_value = None
        self._parent_op = op
        with control_dependencies([op]):
            self._graph_element = self._read_op()

    name = property(lambda self: self._parent_op.name, doc="The update op's name.")
    op = property(lambda self: self._parent_op, doc="The update op.")

    def _value_impl(self):
        with control_dependencies([self._parent_op]):
            return self._read_op()

    def _read_value_impl(self):
        return self._value_impl()

    def _assign_impl(self, op_type, value, use_locking, name, read_value):
        with control_dependencies([self._parent_op]):
            return super()._assign_impl(op_type, value, use_locking, name, read_value)

    def _scatter(self, how, sparse_delta, use_locking, name):
        with control_dependencies([self._parent_op]):
            return super()._scatter(how, sparse_delta, use_locking, name)

    def _scatter_nd(self, how, indices, updates, name):
        with control_dependencies([self._parent_op]):
            return super()._scatter_nd(how, indices, updates, name)

    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"
