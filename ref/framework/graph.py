"""The immutable graph: ``Graph`` (append-only), frozen ``Operation``, ``Tensor``.

A ``Graph`` only grows: ops are added by name in creation order, which is also
a topological order (an op's inputs exist before it). Name scopes, device
scopes, control-dependency and colocation stacks, and collections live on the
graph; an ``Operation`` never changes once created. Values never live in the
graph: variables are ops whose values the ``Session`` keeps.

``apply_op`` is the graph builder every TF1 function goes through: it looks the
op up in the registry (:mod:`ref.ops.registry`), converts and type-checks the
inputs, infers static shapes with the declared rule, and adds the op.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import re
import sys
import threading
import traceback
from collections import namedtuple

import numpy as np

from ref import protos
from ref.types import dtypes

from ref.ops import registry
from ref.types.device_spec import DeviceSpec, merge_device
from ref.types.shapes import TensorShape, as_shape, unknown_shape
from ref.framework.versions import GRAPH_DEF_VERSION
import warnings

_REF_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the ref package
_VALID_OP_NAME = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")  # a root scope (TF's patterns)
_VALID_SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")  # a scope below another


# ---------------------------------------------------------------------------
# GraphKeys
# ---------------------------------------------------------------------------

class GraphKeys:
    """Standard collection names (TF's key strings)."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    _SUMMARY_COLLECTION = "_SUMMARY_V2"
    _VARIABLE_COLLECTIONS = [GLOBAL_VARIABLES, LOCAL_VARIABLES, METRIC_VARIABLES, MODEL_VARIABLES,
                             TRAINABLE_VARIABLES, MOVING_AVERAGE_VARIABLES, CONCATENATED_VARIABLES,
                             TRAINABLE_RESOURCE_VARIABLES]
    _STREAMING_MODEL_PORTS = "streaming_model_ports"


# ---------------------------------------------------------------------------
# Tensor
# ---------------------------------------------------------------------------

def _user_frame():
    """(filename, lineno, function, line) of the first caller outside ``ref``."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename.startswith(_REF_DIR):
        frame = frame.f_back
    if frame is None:
        return ("<unknown>", 0, "<unknown>", "")
    return (frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name, "")


class Tensor:
    """A symbolic handle to one output of an ``Operation``."""

    # ``assign`` is set only on a slice of a variable (``v[1:3].assign(x)``), as TF does.
    __slots__ = ("_op", "_value_index", "_dtype", "_shape", "assign", "__weakref__")
    __array_priority__ = 100

    def __init__(self, op, value_index, dtype, shape):
        self._op = op
        self._value_index = value_index
        self._dtype = dtypes.as_dtype(dtype)
        self._shape = as_shape(shape)

    op = property(lambda self: self._op)
    value_index = property(lambda self: self._value_index)
    dtype = property(lambda self: self._dtype)
    graph = property(lambda self: self._op.graph)
    device = property(lambda self: self._op.device)

    @property
    def name(self) -> str:
        return f"{self._op.name}:{self._value_index}"

    @property
    def shape(self) -> TensorShape:
        return self._shape

    def get_shape(self) -> TensorShape:
        return self._shape

    def set_shape(self, shape):
        """Refines the static shape (TF: merge; incompatible shapes raise ValueError)."""
        self._shape = self._shape.merge_with(as_shape(shape))

    def consumers(self):
        return self.graph._consumers_of(self)

    def eval(self, feed_dict=None, session=None):
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is registered. "
                             "Use `with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
        return session.run(self, feed_dict)

    def _as_graph_element(self):
        return self

    def __repr__(self):
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self):
        """TF's ``Tensor("name:0", shape=(None, 3), dtype=float32)`` (no shape when the rank is unknown)."""
        dims = self._shape.as_list() if self._shape.ndims is not None else None
        shape = "" if dims is None else f", shape={tuple(dims)}"
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name})'

    __hash__ = object.__hash__  # identity, as __eq__; C-level, since every feed and plan lookup hashes tensors

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed. Use `if t is not None:` "
                        "instead of `if t:` to test if a tensor is defined, and use TensorFlow ops such "
                        "as tf.cond to execute subgraphs conditioned on the value of a tensor.")

    def __iter__(self):
        shape = self._shape
        if shape.ndims is None or shape.ndims == 0 or shape[0] is None:
            raise TypeError("Tensor objects are only iterable when the first dimension is known "
                            f"(got shape {shape}).")
        return iter([self[i] for i in range(shape[0])])

    def __len__(self):
        raise TypeError(f"len is not well defined for symbolic Tensors. ({self.name}) "
                        "Please call `x.shape` rather than `len(x)` for shape information.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"Cannot convert a symbolic Tensor ({self.name}) to a numpy array.")


# Operators (``+``, ``*``, ``<``, ``@``, ...) and ``__getitem__`` are registered onto
# Tensor from above, by ref.graph_ops.math_ops and ref.graph_ops.array_ops, as
# TF's math_ops registers them onto framework/ops.py's Tensor.


# ---------------------------------------------------------------------------
# Operation
# ---------------------------------------------------------------------------

class Operation:
    """A node of the graph; frozen once created."""

    __slots__ = ("_graph", "_name", "_type", "_inputs", "_control_inputs", "_attrs", "_device",
                 "_outputs", "_id", "_traceback", "_opdef", "_frozen", "__weakref__")

    def __init__(self, graph, name, op_type, inputs, control_inputs, attrs, device, output_specs,
                 opdef, op_id, traceback_=None):
        set_ = object.__setattr__
        set_(self, "_graph", graph)
        set_(self, "_name", name)
        set_(self, "_type", op_type)
        set_(self, "_inputs", tuple(inputs))
        set_(self, "_control_inputs", tuple(control_inputs))
        set_(self, "_attrs", dict(attrs))
        set_(self, "_device", device)
        set_(self, "_opdef", opdef)
        set_(self, "_id", op_id)
        set_(self, "_traceback", traceback_)
        set_(self, "_outputs", tuple(Tensor(self, i, d, s) for i, (d, s) in enumerate(output_specs)))
        set_(self, "_frozen", True)

    def __setattr__(self, name, value):
        raise AttributeError(f"Operation '{self._name}' is immutable (cannot set {name})")

    name = property(lambda self: self._name)
    type = property(lambda self: self._type)
    graph = property(lambda self: self._graph)
    device = property(lambda self: self._device)
    outputs = property(lambda self: list(self._outputs))
    control_inputs = property(lambda self: list(self._control_inputs))

    @property
    def inputs(self):
        """The flat list of input tensors (list inputs expanded)."""
        return list(self._inputs)

    # ``node_def`` (the NodeDef proto of this op) is attached by ref.framework.graph_io.

    @property
    def op_def(self):
        return self._opdef

    @property
    def traceback(self):
        return [self._traceback] if self._traceback else []

    def colocation_groups(self):
        """The ``loc:@name`` colocation groups of this op (a method, as in TF)."""
        cls = self._attrs.get("_class")
        if cls:
            return [c.encode() if isinstance(c, str) else c for c in cls]
        return [f"loc:@{self._name}".encode()]

    def values(self):
        return tuple(self._outputs)

    def get_attr(self, name):
        try:
            return self._attrs[name]
        except KeyError:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.") from None

    @property
    def attrs(self) -> dict:
        return dict(self._attrs)

    def run(self, feed_dict=None, session=None):
        session = session or get_default_session()
        if session is None:
            raise ValueError("Cannot execute operation using `run()`: No default session is registered.")
        session.run(self, feed_dict)

    def named_inputs(self):
        """{input name: Tensor or list of Tensors}, per the op's declaration."""
        out, i = {}, 0
        opdef = self._opdef
        for name in opdef.inputs:
            if name in opdef.list_inputs:
                n = self._attrs["_list_sizes"][name]
                out[name] = list(self._inputs[i:i + n])
                i += n
            else:
                out[name] = self._inputs[i]
                i += 1
        return out

    def _as_graph_element(self):
        return self

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"

    __str__ = __repr__


# ---------------------------------------------------------------------------
# IndexedSlices
# ---------------------------------------------------------------------------

class IndexedSlices:
    """A sparse representation of a set of tensor slices: ``values`` at ``indices``
    of a dense tensor of shape ``dense_shape`` (gradients of gather)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    name = property(lambda self: self._values.name)
    device = property(lambda self: self._values.device)
    op = property(lambda self: self._values.op)
    dtype = property(lambda self: self._values.dtype)
    graph = property(lambda self: self._values.graph)

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self):
        return (f"IndexedSlices(indices={self._indices}, values={self._values}"
                + (f", dense_shape={self._dense_shape})" if self._dense_shape is not None else ")"))

    def _as_graph_element(self):
        return self._values


IndexedSlicesValue = namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])

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
    return apply_op("UnsortedSegmentSum", data=value.values, segment_ids=value.indices,
                    num_segments=apply_op("StridedSlice", input=value.dense_shape, begin=[0], end=[1],
                                          strides=[1], shrink_axis_mask=1), name=name)


# ---------------------------------------------------------------------------
# Graph
# ---------------------------------------------------------------------------

class Graph:
    """A TensorFlow computation: an append-only set of Operations."""

    def __init__(self):
        self._lock = threading.RLock()
        self._ops_by_name = {}
        self._ops = []
        self._consumers = {}
        self._names_in_use = {}
        self._finalized = False
        self._collections = {}
        self._seed = None
        self._seed_offset = 0  # op seeds handed out by get_seed
        self._version = 0
        self._unfeedable, self._unfetchable = set(), set()
        self._gradient_override_map = {}
        self._local = threading.local()
        self._building_function = False
        self._graph_def_versions = (GRAPH_DEF_VERSION, 0)
        self._attr_scope_map = {}
        self._container = ""

    # thread-local construction state (TF keeps name/control/device stacks per thread)
    def _tls(self):
        tls = self._local
        if not hasattr(tls, "name_stack"):
            tls.name_stack = ""
            tls.control_stack = []
            tls.device_stack = []
            tls.colocation_stack = []
        return tls

    # -- queries --------------------------------------------------------------
    @property
    def version(self):
        return self._version

    @property
    def finalized(self):
        return self._finalized

    @property
    def building_function(self):
        return self._building_function

    @property
    def seed(self):
        return self._seed

    @seed.setter
    def seed(self, value):
        self._seed = value

    @property
    def graph_def_versions(self):
        return protos.versions_pb2.VersionDef(producer=self._graph_def_versions[0],
                                              min_consumer=self._graph_def_versions[1])

    def switch_to_thread_local(self):
        """Makes the device, colocation and control-dependency stacks thread-local
        (TF's opt-in; in ref they always are, per thread, so this only records it)."""
        self._stack_state_is_thread_local = True

    def get_operations(self):
        return list(self._ops)

    def get_operation_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """The Tensor or Operation ``obj`` names or is, checked to belong to this graph."""
        if hasattr(obj, "_as_graph_element") and not isinstance(obj, (Tensor, Operation)):
            obj = obj._as_graph_element()
        if isinstance(obj, str):
            if ":" in obj:
                if not allow_tensor:
                    raise ValueError(f"Name '{obj}' appears to refer to a Tensor, not a Operation.")
                op_name, idx = obj.rsplit(":", 1)
                try:
                    idx = int(idx)
                except ValueError:
                    raise ValueError(f"The name '{obj}' looks a like a Tensor name, but is not a valid one.") from None
                if op_name not in self._ops_by_name:
                    raise KeyError(f"The name '{obj}' refers to a Tensor which does not exist. "
                                   f"The operation, '{op_name}', does not exist in the graph.")
                op = self._ops_by_name[op_name]
                if idx >= len(op._outputs):
                    raise KeyError(f"The name '{obj}' refers to a Tensor which does not exist. The operation, "
                                   f"'{op_name}', exists but only has {len(op._outputs)} outputs.")
                return op._outputs[idx]
            if not allow_operation:
                if obj in self._ops_by_name:
                    raise ValueError(f"The name '{obj}' refers to an Operation, not a Tensor. "
                                     f"Tensor names must be of the form \"<op_name>:<output_index>\".")
                raise ValueError(f"The name '{obj}' looks like an (invalid) Operation name, not a Tensor.")
            if obj not in self._ops_by_name:
                raise KeyError(f"The name '{obj}' refers to an Operation not in the graph.")
            return self._ops_by_name[obj]
        if isinstance(obj, Tensor):
            if not allow_tensor:
                raise TypeError(f"Can not convert a Tensor into a Operation.")
            if obj.graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation):
            if not allow_operation:
                raise TypeError(f"Can not convert a Operation into a Tensor.")
            if obj.graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a "
                        f"{'Tensor or Operation' if allow_tensor and allow_operation else 'Tensor' if allow_tensor else 'Operation'}.")

    def _consumers_of(self, tensor):
        return list(self._consumers.get(tensor, ()))

    def prevent_feeding(self, tensor):
        """Marks ``tensor`` as unfeedable: ``Session.run`` raises ValueError when it is fed."""
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor):
        return tensor not in self._unfeedable

    def prevent_fetching(self, op):
        """Marks ``op`` as unfetchable: fetching it (or its outputs) raises InaccessibleTensorError."""
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op):
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable

    # -- names ------------------------------------------------------------------
    def get_name_scope(self) -> str:
        return self._tls().name_stack

    def unique_name(self, name, mark_as_used=True) -> str:
        """``name`` under the current scope, suffixed ``_1``, ``_2``... if already used."""
        stack = self._tls().name_stack
        if stack:
            name = stack + "/" + name
        name_key = name.lower()
        i = self._names_in_use.get(name_key, 0)
        if mark_as_used:
            self._names_in_use[name_key] = i + 1
        if i > 0:
            base_key = name_key
            while name_key in self._names_in_use:
                name_key = f"{base_key}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[name_key] = 1
            name = f"{name}_{i - 1}"
        return name

    @contextlib.contextmanager
    def name_scope(self, name):
        """Pushes a name scope; yields the scope string (with trailing '/')."""
        tls = self._tls()
        old = tls.name_stack
        if name:
            pattern = _VALID_SCOPE_NAME if old else _VALID_OP_NAME
            if not pattern.match(name):
                raise ValueError(f"'{name}' is not a valid {'scope' if old else 'root scope'} name. A "
                                 f"{'scope' if old else 'root scope'} name has to match the following pattern: "
                                 f"{pattern.pattern}")
        if not name:
            new = ""
        elif name.endswith("/"):
            new = name[:-1]
        else:
            new = self.unique_name(name)
        tls.name_stack = new
        try:
            yield new + "/" if new else ""
        finally:
            tls.name_stack = old

    # -- control dependencies ---------------------------------------------------
    @contextlib.contextmanager
    def control_dependencies(self, control_inputs):
        tls = self._tls()
        old = tls.control_stack
        if control_inputs is None:
            tls.control_stack = []
        else:
            ops = []
            for c in control_inputs:
                if hasattr(c, "_as_graph_element") and not isinstance(c, (Tensor, Operation)):
                    c = c._as_graph_element()
                if isinstance(c, IndexedSlices):
                    c = c.op
                if isinstance(c, Tensor):
                    c = c.op
                if not isinstance(c, Operation):
                    raise TypeError(f"Control input must be Operation or Tensor: {c!r}")
                self.as_graph_element(c)
                ops.append(c)
            tls.control_stack = old + [ops]
        try:
            yield
        finally:
            tls.control_stack = old

    def _current_control_inputs(self, inputs):
        seen, out = set(), []
        input_ops = {t.op for t in inputs}
        for level in self._tls().control_stack:
            for c in level:
                if c not in seen and c not in input_ops:
                    seen.add(c)
                    out.append(c)
        return out

    # -- devices ----------------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        tls = self._tls()
        old = tls.device_stack
        tls.device_stack = old + [device_name_or_function]
        try:
            yield
        finally:
            tls.device_stack = old

    def _device_for(self, op_like) -> str:
        """TF's order: the innermost scope first; a device string fills the fields the
        inner scopes left unset, a device function gets the op with the device chosen
        so far and returns the new one, ``device(None)`` hides the outer scopes."""
        device = ""
        for d in reversed(self._tls().device_stack):
            if d is None:
                break
            if callable(d) and not isinstance(d, (str, DeviceSpec)):
                op_like.device = device
                spec = d(op_like)
                device = spec.to_string() if isinstance(spec, DeviceSpec) else (spec or "")
            else:
                device = merge_device(d.to_string() if isinstance(d, DeviceSpec) else d, device)
        return device

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        if op is None:
            if not ignore_existing:
                raise ValueError("Trying to reset colocation (op is None) but ignore_existing is not True")
            target = None
        else:
            if hasattr(op, "_as_graph_element") and not isinstance(op, (Tensor, Operation)):
                op = op._as_graph_element()
            target = op.op if isinstance(op, Tensor) else op
        tls = self._tls()
        old_coloc, old_dev = tls.colocation_stack, tls.device_stack
        tls.colocation_stack = ([] if ignore_existing else old_coloc) + ([target] if target else [])
        tls.device_stack = []  # TF: colocation is stronger than device functions; the device comes from the op
        try:
            yield
        finally:
            tls.colocation_stack, tls.device_stack = old_coloc, old_dev

    @contextlib.contextmanager
    def _attr_scope(self, attr_map):
        """Ops created inside get the attrs of ``attr_map`` (TF's private ``_attr_scope``;
        values are plain Python values, e.g. ``{"_class": ["loc:@v"]}``)."""
        saved = self._attr_scope_map
        self._attr_scope_map = {**saved, **attr_map}
        try:
            yield
        finally:
            self._attr_scope_map = saved

    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        if not isinstance(op_type_map, dict):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    @contextlib.contextmanager
    def container(self, container_name):
        old = self._container
        self._container = container_name
        try:
            yield container_name
        finally:
            self._container = old

    # -- collections ------------------------------------------------------------
    def add_to_collection(self, name, value):
        self._check_not_finalized()
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        with self._lock:
            items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope) if isinstance(scope, str) else scope
        return [i for i in items if hasattr(i, "name") and pattern.match(i.name)]

    def get_all_collection_keys(self):
        with self._lock:
            return [k for k, v in self._collections.items() if isinstance(k, str)]

    def clear_collection(self, name):
        self._check_not_finalized()
        with self._lock:
            self._collections.pop(name, None)

    # -- building ---------------------------------------------------------------
    def finalize(self):
        """Makes this graph read-only: later op creation raises RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    @contextlib.contextmanager
    def as_default(self):
        _default_stack().append(self)
        try:
            yield self
        finally:
            _default_stack().pop()

    def create_op(self, op_type, inputs, attrs, name, output_specs, opdef, control_inputs=None):
        """Adds a frozen Operation (low level: ``apply_op`` is the checked builder)."""
        self._check_not_finalized()
        with self._lock:
            if name and name.endswith("/"):
                name = name[:-1]
                self._names_in_use[name.lower()] = max(1, self._names_in_use.get(name.lower(), 0))
            else:
                name = self.unique_name(name or op_type)
            if name in self._ops_by_name:
                raise ValueError(f"Duplicate node name in graph: '{name}'")
            for t in inputs:
                if t.graph is not self:
                    raise ValueError(f"Tensor {t.name} must be from the same graph as the op '{name}' "
                                     "(it belongs to another graph).")
            controls = self._current_control_inputs(inputs) + list(control_inputs or ())
            tls = self._tls()
            coloc = tls.colocation_stack
            attrs = {**attrs, **self._attr_scope_map}
            if coloc:  # TF: the union of the colocation ops' groups; the device of the innermost that has one
                attrs["_class"] = sorted({g.decode() for c in coloc for g in c.colocation_groups()})
            if op_type in self._gradient_override_map:  # recorded at creation, as TF does
                attrs["_gradient_op_type"] = self._gradient_override_map[op_type]
            op_like = _OpLike(name, op_type, attrs)
            device = self._device_for(op_like)
            device = next((c.device for c in reversed(coloc) if c.device), device)
            op = Operation(self, name, op_type, inputs, controls, attrs, device, output_specs, opdef,
                           len(self._ops), _user_frame())
            self._ops_by_name[name] = op
            self._ops.append(op)
            for t in inputs:
                self._consumers.setdefault(t, []).append(op)
            self._version += 1
            return op

    # ``as_graph_def`` (this graph as a GraphDef proto) is attached by ref.framework.graph_io.

    def __contains__(self, name):
        return name in self._ops_by_name


class _OpLike:
    """What a device function sees of an op that is about to be created."""

    def __init__(self, name, op_type, attrs):
        self.name, self.type, self.node_def = name, op_type, None
        self.device = ""
        self._attrs = attrs

    def get_attr(self, name):
        return self._attrs[name]


# ---------------------------------------------------------------------------
# The default graph
# ---------------------------------------------------------------------------

_global_default_graph = None
_stack_tls = threading.local()


def _default_stack():
    if not hasattr(_stack_tls, "stack"):
        _stack_tls.stack = []
    return _stack_tls.stack


_session_tls = threading.local()


def _session_stack():
    if not hasattr(_session_tls, "stack"):
        _session_tls.stack = []
    return _session_tls.stack


def get_default_session():
    """The innermost session entered with ``as_default()`` on this thread, or None
    (TF keeps this stack in ``framework/ops.py`` too; sessions push themselves)."""
    stack = _session_stack()
    return stack[-1] if stack else None


@contextlib.contextmanager
def default_session(session):
    """Makes ``session`` the default session inside the block (``Session.as_default``)."""
    stack = _session_stack()
    stack.append(session)
    try:
        yield session
    finally:
        stack.pop()


def get_default_graph() -> Graph:
    global _global_default_graph
    stack = _default_stack()
    if stack:
        return stack[-1]
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def reset_default_graph():
    """Clears the default graph stack and resets the global default graph."""
    global _global_default_graph
    if _default_stack():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
                             "cleared graph, exit the nesting and create a new graph.")
    _global_default_graph = Graph()


def _graph_of(values):
    default = get_default_graph()
    if default._building_function:  # inside a while/cond body: outer tensors get captured
        return default
    for v in values or ():
        if isinstance(v, (Tensor, Operation)):
            return v.graph
        if isinstance(v, IndexedSlices):
            return v.values.graph
        g = getattr(v, "graph", None)
        if isinstance(g, Graph):
            return g
    return get_default_graph()


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """TF1's ``tf.name_scope(name, default_name=None, values=None)``."""
    n = default_name if name is None else name
    if n is None and values is not None:
        raise ValueError(f"At least one of name ({name}) and default_name ({default_name}) must be provided.")
    g = _graph_of(values)
    with g.as_default(), g.name_scope(n) as scope:
        yield scope


@contextlib.contextmanager
def init_scope():
    """Lifts ops out of function bodies (``while_loop``/``cond`` graphs) into the
    outermost graph, keeping the current name scope, without control
    dependencies (TF's ``init_scope``: where variables are created)."""
    g = get_default_graph()
    scope = g.get_name_scope()
    while g._building_function:
        g = g.outer_graph
    with g.as_default(), g.name_scope(scope + "/" if scope else None), g.control_dependencies(None):
        yield


def control_dependencies(control_inputs):
    return get_default_graph().control_dependencies(control_inputs)


def device(device_name_or_function):
    return get_default_graph().device(device_name_or_function)


def colocate_with(op, ignore_existing=False):
    return get_default_graph().colocate_with(op, ignore_existing)


def container(container_name):
    return get_default_graph().container(container_name)


def add_to_collection(name, value):
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value):
    get_default_graph().add_to_collections(names, value)


def get_collection(key, scope=None):
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key):
    return get_default_graph().get_collection_ref(key)


# ---------------------------------------------------------------------------
# Random seeds (TF's graph-level + op-level rules)
# ---------------------------------------------------------------------------

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def set_random_seed(seed):
    """Sets the graph-level random seed of the default graph."""
    get_default_graph().seed = seed


def get_seed(op_seed):
    """(graph seed, op seed) for a random op, as TF's ``random_seed.get_seed``:
    graph seed set and op seed not -> op seed from the graph's counter of such
    ops (0, 1, 2, ... -- TF 1.x used the graph's last op id instead; today's
    ``tf.compat.v1`` counts, and so does ref, to give its numbers); op seed set
    and graph seed not -> DEFAULT_GRAPH_SEED; neither -> (None, None). Seeds
    are taken modulo 2**31 - 1."""
    g = get_default_graph()
    global_seed = g.seed
    if global_seed is not None:
        if op_seed is None:
            with g._lock:
                op_seed = g._seed_offset
                g._seed_offset += 1
        seeds = (int(global_seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    if seeds == (0, 0):  # (0, 0) would mean "nondeterministic" to the kernels
        seeds = (0, _MAXINT32)
    return seeds


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


def _python_to_numpy(value, dtype):
    """NumPy value for a Python/NumPy constant, TF's inference when ``dtype`` is None."""
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if dtype == dtypes.string:
            return as_bytes_array(value)
        arr = np.asarray(value)
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


def _contains_tensor(value):
    if isinstance(value, (Tensor, IndexedSlices)) or hasattr(value, "_as_graph_element"):
        return True
    if isinstance(value, (list, tuple)):
        return any(_contains_tensor(v) for v in value)
    return False


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
    if shape is not None:
        shape = [int(d) for d in as_shape(shape).as_list()]
        n = int(np.prod(shape, dtype=object))
        if arr.shape != tuple(shape):
            if verify_shape:
                raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, but got {arr.shape}.")
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
    return apply_op("Const", value=arr, dtype=dt, name=name)


_SPLAT_VIEW = 1 << 16  # a filled constant above this many elements is a broadcast view
_FOLD_LIMIT = 1 << 20  # constant_value does not fold an op with more output elements


# Ops whose value is known at graph construction when their inputs' values are
# (TF's constant_value folds the same ones); the arithmetic is the op's own kernel.
_FOLDABLE = frozenset({"Identity", "StopGradient", "Pack", "Cast", "ConcatV2", "Fill"})


def constant_value(tensor):
    """The NumPy value of ``tensor`` if it is known at graph construction, else None:
    a ``Const``; ``Shape``/``Size``/``Rank`` of a fully defined static shape; and
    ``Identity``, ``StopGradient``, ``Pack``, ``Cast``, ``ConcatV2`` and ``Fill`` of
    known values, computed by their registered kernels."""
    if isinstance(tensor, (np.ndarray, np.generic, int, float, list, tuple)) and not _contains_tensor(tensor):
        return np.asarray(tensor)
    if not isinstance(tensor, Tensor):
        return None
    # Iterative (a stack, not recursion), so a 20,000-op chain of Identity folds;
    # results that can never change (everything but a None owed to a static
    # shape that set_shape may still refine) are kept per graph, so building
    # such a chain op by op stays linear.
    cache = tensor.graph.__dict__.setdefault("_folded_constants", {})
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
            value, final = op.get_attr("value"), True
        elif op.type in ("Shape", "Size", "Rank"):
            value = _static_shape_value(op)
            final = value is not None
        elif op.type not in _FOLDABLE:
            value, final = None, True
        else:
            missing = [i for i in op.inputs if id(i) not in known]
            if missing:
                stack.extend(missing)
                continue
            value = _fold(op, known)
            final = all(known[id(i)][1] for i in op.inputs)
        known[key] = (value, final)
        if final:
            cache[key] = (t, value)
        stack.pop()
    return known[id(tensor)][0]


def _fold(op, known):
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
    return np.asarray(op.op_def.kernel(**args))


def _static_shape_value(op):
    """``Shape``/``Size``/``Rank`` of the input's static shape, when it is known."""
    s = op.inputs[0].shape
    if op.type == "Rank":
        return np.array(s.ndims, dtype=np.int32) if s.ndims is not None else None
    if not s.is_fully_defined():
        return None
    out_type = op.get_attr("out_type").np
    if max(s.as_list() + [s.num_elements()]) > np.iinfo(out_type).max:
        return None  # the kernel fails at run time, as TF's
    if op.type == "Shape":
        return np.array(s.as_list(), dtype=out_type)
    return np.array(s.num_elements(), dtype=out_type)


def constant_value_as_shape(tensor) -> TensorShape:
    """A TensorShape from a 1-D shape tensor, as precise as graph construction
    allows (TF's rules: constants; ``Shape`` of a tensor; ``Pack`` of known
    scalars; ``Cast`` to an integer type, ``ConcatV2`` and simple ``StridedSlice``
    of such shape tensors; -1 and unknown values are unknown dimensions)."""
    v = constant_value(tensor)
    if v is not None:
        return TensorShape([None if d == -1 else int(d) for d in np.asarray(v).reshape(-1)])
    if isinstance(tensor, Tensor):
        op = tensor.op
        if op.type == "Shape":
            return op.inputs[0].shape
        if op.type == "Pack":
            return TensorShape([None if (c := constant_value(i)) is None or int(c) < 0 else int(c)
                                for i in op.inputs])
        if op.type == "Cast" and op.get_attr("DstT") in (dtypes.int32, dtypes.int64):
            return constant_value_as_shape(op.inputs[0])
        if op.type == "ConcatV2":
            parts = [constant_value_as_shape(t) for t in op.inputs[:-1]]
            if all(p.ndims is not None for p in parts):
                return TensorShape([d for p in parts for d in p.as_list()])
        if op.type == "StridedSlice":
            sliced = _strided_slice_shape(op)
            if sliced is not None:
                return sliced
        if tensor.shape.ndims == 1 and tensor.shape[0] is not None:
            return unknown_shape(tensor.shape[0])
    return unknown_shape()


def _strided_slice_shape(op):
    """``constant_value_as_shape`` of a 1-D ``StridedSlice`` with known begin/end/strides and no special masks."""
    bounds = [constant_value(t) for t in op.inputs[1:4]]
    if any(b is None for b in bounds) or any(op.get_attr(m) for m in ("ellipsis_mask", "new_axis_mask",
                                                                     "shrink_axis_mask")):
        return None
    if op.get_attr("begin_mask") not in (0, 1) or op.get_attr("end_mask") not in (0, 1):
        return None
    begin, end, stride = (int(np.asarray(b).reshape(-1)[0]) for b in bounds)
    begin = None if op.get_attr("begin_mask") == 1 else begin
    end = None if op.get_attr("end_mask") == 1 else end
    prev = constant_value_as_shape(op.inputs[0])
    if prev.ndims is None:
        return None
    return TensorShape(prev.as_list()[begin:end:stride])


# ---------------------------------------------------------------------------
# The graph builder
# ---------------------------------------------------------------------------

def _dtype_of(value):
    if isinstance(value, Tensor):
        return value.dtype.base_dtype
    if hasattr(value, "_as_graph_element") and hasattr(value, "dtype"):
        return dtypes.as_dtype(value.dtype).base_dtype
    return None


def apply_op(op_type, name=None, **kwargs):
    """Adds one ``op_type`` op to the default graph from its registry declaration.

    Returns the output Tensor (one output), a tuple of Tensors (several; a list
    for list outputs), or the Operation (no outputs).
    """
    opdef = registry.get(op_type)
    unknown = set(kwargs) - set(opdef.inputs) - set(opdef.attrs)
    if unknown:
        raise TypeError(f"{op_type} got unexpected keyword arguments {sorted(unknown)}")

    # Group dtypes: the first input with a known dtype fixes each type attr.
    group_dtype = {}
    for attr, members in opdef.type_attrs.items():
        for m in members:
            v = kwargs.get(m)
            vals = v if m in opdef.list_inputs and isinstance(v, (list, tuple)) else [v]
            for x in vals:
                d = _dtype_of(x)
                if d is not None:
                    group_dtype[attr] = d
                    break
            if attr in group_dtype:
                break
        if attr not in group_dtype and attr in opdef.attrs and kwargs.get(attr) is not None:
            group_dtype[attr] = dtypes.as_dtype(kwargs[attr])
        if attr not in group_dtype:
            # Python values only: TF converts them with the attr's default (or first allowed) type.
            default = opdef.attrs.get(attr)
            if isinstance(default, dtypes.DType):
                group_dtype[attr] = default
            elif opdef.allowed.get(attr) and all(d.is_integer for d in opdef.allowed[attr]):
                # Python ints become int32 where allowed (TF's conversion), else the first allowed type
                allowed = opdef.allowed[attr]
                group_dtype[attr] = dtypes.int32 if dtypes.int32 in allowed else allowed[0]
    member_attr = {m: a for a, ms in opdef.type_attrs.items() for m in ms}

    graph = get_default_graph()
    if not graph._building_function:
        graph = _graph_of([v for v in kwargs.values()] + [x for v in kwargs.values()
                                                         if isinstance(v, (list, tuple)) for x in v])
    # TF converts Python inputs inside the op's own name scope, naming each
    # constant after its input ("Add/y"), and names the op after that scope.
    with graph.as_default(), graph.name_scope(name or op_type) as op_scope:
        inputs, named, list_sizes = [], {}, {}
        for in_name in opdef.inputs:
            if in_name not in kwargs:
                raise TypeError(f"{op_type} missing required input '{in_name}'")
            v = kwargs[in_name]
            hint = group_dtype.get(member_attr.get(in_name))
            is_ref = in_name in opdef.refs
            if in_name in opdef.list_inputs:
                if not isinstance(v, (list, tuple)):
                    raise TypeError(f"Expected list for '{in_name}' argument to '{op_type}' Op, not {v!r}.")
                # TF's convert_n_to_tensor: list items are named "<input>_<i>" ("Assert/data_0").
                ts = [_convert_input(x, hint, op_type, in_name, is_ref, f"{in_name}_{i}") for i, x in enumerate(v)]
                list_sizes[in_name] = len(ts)
                inputs.extend(ts)
                named[in_name] = ts
            else:
                t = _convert_input(v, hint, op_type, in_name, is_ref)
                inputs.append(t)
                named[in_name] = t

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
        for attr, default in opdef.attrs.items():
            if attr in kwargs:
                val = kwargs[attr]
                attrs[attr] = dtypes.as_dtype(val) if isinstance(default, dtypes.DType) and val is not None else val
            elif default is registry.REQUIRED:
                if attr not in attrs:
                    raise TypeError(f"{op_type} missing required attr '{attr}'")
            else:
                attrs.setdefault(attr, default)
        if opdef.stateful and "container" in opdef.attrs and not attrs.get("container") and graph._container:
            attrs["container"] = graph._container  # TF: a stateful op takes tf.container's name
        for in_name, count_attr in opdef.list_inputs.items():
            if count_attr:
                attrs[count_attr] = list_sizes[in_name]
        if list_sizes:
            attrs["_list_sizes"] = list_sizes

        specs = {}
        for in_name, v in named.items():
            if isinstance(v, list):
                specs[in_name] = [registry.Spec(t.dtype.base_dtype, t.shape, constant_value(t)) for t in v]
            else:
                specs[in_name] = registry.Spec(v.dtype.base_dtype, v.shape,
                                               None if in_name in opdef.refs else constant_value(v))
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
                          named[opdef.ref_outputs[out_names[i]]].dtype.is_ref_dtype else d, s)
                         for i, (d, s) in enumerate(out_specs)]
        # TF colocates an op with its ref-typed inputs (a variable's Assign, ApplyX run where it lives)
        with contextlib.ExitStack() as stack:
            for in_name in opdef.refs:
                t = named.get(in_name)
                if isinstance(t, Tensor) and t.dtype.is_ref_dtype:
                    stack.enter_context(graph.colocate_with(t.op))
            op = graph.create_op(op_type, inputs, attrs, op_scope, out_specs, opdef)
    outs = op._outputs
    if not outs:
        return op
    if len(outs) == 1 and len(opdef.outputs) == 1 and not opdef.outputs[0].startswith("*"):
        return outs[0]
    if len(opdef.outputs) == 1 and opdef.outputs[0].startswith("*"):
        return list(outs)
    return tuple(outs)


def _convert_input(value, hint, op_type, in_name, is_ref, const_name=None):
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
        t = convert_to_tensor(value, dtype_hint=hint, name=const_name or in_name)
    except (TypeError, ValueError) as e:
        raise type(e)(f"Failed to convert '{in_name}' of '{op_type}' Op: {e}") from None
    return _maybe_capture(t)


def _maybe_capture(t):
    g = get_default_graph()
    if g._building_function and t.graph is not g:
        return g.capture(t)
    return t


# ---------------------------------------------------------------------------
# Proto functions per collection and name-scope helpers (TF's ops.py): how the
# items of a collection become protos in a MetaGraphDef and come back. The
# layers above register their own: variables (VariableDef), Saver (SaverDef),
# QueueRunner (QueueRunnerDef).
# ---------------------------------------------------------------------------

_PROTO_FUNCTIONS: dict = {}


def register_proto_function(collection_name, proto_type=None, to_proto=None, from_proto=None):
    """Registers how the items of ``collection_name`` become ``proto_type``
    (``to_proto(item, export_scope=)``) and come back (``from_proto(proto, import_scope=)``)."""
    _PROTO_FUNCTIONS[collection_name] = (proto_type, to_proto, from_proto)


def get_collection_proto_functions(collection_name):
    """``(proto_type, to_proto, from_proto)`` registered for ``collection_name``, or Nones."""
    return _PROTO_FUNCTIONS.get(collection_name, (None, None, None))


def strip_name_scope(name, export_scope):
    """``export_scope/x`` -> ``x`` (also ``^export_scope/x`` and ``loc:@export_scope/x``)."""
    if not export_scope:
        return name
    export_scope = export_scope.rstrip("/")
    return re.sub(r"([\^]|loc:@|^)" + re.escape(export_scope) + r"[\/]+(.*)", r"\1\2", name, count=1)


def prepend_name_scope(name, import_scope):
    """``x`` -> ``import_scope/x`` (also for ``^x`` and ``loc:@x``)."""
    if not import_scope:
        return name
    import_scope = import_scope.rstrip("/")
    return re.sub(r"([\^]|loc:@|^)(.*)", lambda m: m.group(1) + import_scope + "/" + m.group(2), name, count=1)
