"""The immutable graph, as TF's ``framework/ops.py``: ``Graph`` (append-only),
frozen ``Operation``; ``Tensor`` (``tensor.py``) and ``IndexedSlices``
(``indexed_slices.py``) come from their own modules, as in TF.

A ``Graph`` only grows: ops are added by name in creation order, which is also
a topological order (an op's inputs exist before it). Name scopes, device
scopes, control-dependency and colocation stacks, and collections live on the
graph; an ``Operation`` never changes once created. Values never live in the
graph: variables are ops whose values the ``Session`` keeps.

The rest of TF's ops.py lives beside this module along TF's own file
boundaries: the graph builder and tensor conversion (``op_def_library``),
constant folding (``tensor_util``), random seeds (``random_seed``), the
default-session stack (``stack``), GraphDef export (``graph_export``) and
import (``importer``).
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from typing import Any, Callable, Iterable, Iterator

from ref import protos
from ref.platform import modes
from ref.types.device_spec import DeviceSpec, merge_device
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.stack import get_default_session
from ref.framework.tensor import Tensor
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


# ---------------------------------------------------------------------------
# Operation
# ---------------------------------------------------------------------------

def tf_attr_value(value):
    """``value`` (an attr as ref holds it) in TF's Python kind: ``str`` -> bytes,
    a list or tuple of ``str`` -> a list of bytes; anything else unchanged."""
    if value.__class__ is str:
        return value.encode()
    if value.__class__ in (list, tuple) and value and all(v.__class__ is str for v in value):
        return [v.encode() for v in value]
    return value


class Operation:
    """A node of the graph; frozen once created."""

    __slots__ = ("_graph", "_name", "_type", "_inputs", "_control_inputs", "_attrs", "_device",
                 "_outputs", "_id", "_traceback", "_opdef", "_control_flow_context", "_original_op", "_frozen",
                 "__weakref__")

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
        set_(self, "_control_flow_context", None)
        set_(self, "_original_op", getattr(graph, "_default_original_op", None))
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

    @property
    def _input_types(self):
        """The dtypes the op's signature gives its inputs (TF's): ref-typed for the
        inputs it mutates, the base dtype where it only reads."""
        refs = set(self._opdef.refs) if self._opdef is not None else set()
        names = [n for n in (self._opdef.inputs if self._opdef is not None else ())
                 for _ in range(self._attrs.get("_list_sizes", {}).get(n, 1))]
        return [t.dtype if (k < len(names) and names[k] in refs) else t.dtype.base_dtype
                for k, t in enumerate(self._inputs)]

    def _set_device(self, device):
        """Places the op on ``device`` (TF's import sets colocated ops' devices after creation)."""
        object.__setattr__(self, "_device", device.to_string() if isinstance(device, DeviceSpec) else device or "")

    # ``node_def`` (the NodeDef proto of this op) is attached by ref.framework.graph_export.

    # -- TF 1.x control flow: a context (``ref.graph_ops.control_flow_v1``) rewires
    # an op while it is being added to it, as TF's contexts do (``Graph.create_op``).
    def _get_control_flow_context(self):
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        object.__setattr__(self, "_control_flow_context", ctx)

    def _update_input(self, index, tensor):
        """Input ``index`` reads ``tensor`` instead (a Switch or Enter output). Under the graph's
        lock, as every mutation: a GraphDef taken by another thread sees the edge before or after."""
        with self._graph._lock:
            old = self._inputs[index]
            consumers = self._graph._consumers
            if self in consumers.get(old, ()):
                consumers[old].remove(self)
            consumers.setdefault(tensor, []).append(self)
            object.__setattr__(self, "_inputs", self._inputs[:index] + (tensor,) + self._inputs[index + 1:])
            self._graph._version += 1

    def _add_control_input(self, op):
        self._add_control_inputs([op])

    def _add_control_inputs(self, ops):
        with self._graph._lock:
            new = [c for c in ops if c not in self._control_inputs]
            object.__setattr__(self, "_control_inputs", self._control_inputs + tuple(new))
            self._graph._version += 1

    def _remove_all_control_inputs(self):
        with self._graph._lock:
            object.__setattr__(self, "_control_inputs", ())
            self._graph._version += 1

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
        """The attr's value as TF's ``get_attr`` gives it: a string attr (``s``)
        as bytes and a list of strings as a list of bytes; numbers, bools,
        dtypes, shapes and functions as ref holds them. ValueError when the op
        has no such attr."""
        return tf_attr_value(self._get_attr(name))

    def _get_attr(self, name):
        """The attr's value as ref holds it (strings as ``str``): what ref's own code reads."""
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
# Graph
# ---------------------------------------------------------------------------

class _ControlLevel(list):
    """The ops of one ``control_dependencies`` block, and the ops created in it."""

    __slots__ = ("created",)

    def __init__(self, ops):
        super().__init__(ops)
        self.created = set()


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
        self._default_original_op = None
        # variable_creator_scope's creators, outermost first (TF's Graph._variable_creator_stack;
        # ref.graph_ops.variable_scope replaces the list on entry and exit)
        self._variable_creator_stack = []
        self._container = ""
    # the TF 1.x cond/while context new ops join (control_flow_v1); per thread, as the
    # name and device stacks: a loop one thread builds is not where another's ops go
    @property
    def _control_flow_context(self):
        return getattr(self._local, "control_flow_context", None)

    @_control_flow_context.setter
    def _control_flow_context(self, ctx):
        self._local.control_flow_context = ctx

    def _get_control_flow_context(self):
        return self._control_flow_context

    def _set_control_flow_context(self, ctx):
        self._control_flow_context = ctx

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

    def get_operations(self) -> list[Operation]:
        return list(self._ops)

    def get_operation_by_name(self, name: str) -> Operation:
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name: str) -> Tensor:
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def as_graph_element(self, obj: Any, allow_tensor: bool = True, allow_operation: bool = True) -> Tensor | Operation:
        """The Tensor or Operation ``obj`` names or is, checked to belong to this graph."""
        if hasattr(obj, "_as_graph_element") and not isinstance(obj, (Tensor, Operation)):
            obj = obj._as_graph_element()
        if isinstance(obj, bytes):
            obj = obj.decode("utf-8")
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
    def name_scope(self, name: str | None) -> Iterator[str]:
        """Pushes a name scope; yields the scope string (with trailing '/')."""
        tls = self._tls()
        old = tls.name_stack
        if isinstance(name, bytes):
            name = name.decode("utf-8")
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
    def control_dependencies(self, control_inputs: Iterable[Any] | None) -> Iterator[None]:
        tls = self._tls()
        old = tls.control_stack
        old_context = self._control_flow_context
        if control_inputs is None:
            tls.control_stack = []
            self._control_flow_context = None  # TF: a new control stack also leaves any cond/while context
        else:
            ops = []
            for c in control_inputs:
                if hasattr(c, "_handle") and hasattr(c, "op"):  # TF: a resource variable, an update's result
                    c = c.op  # stand for their op (the handle's, the update), never a read
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
            tls.control_stack = old + [_ControlLevel(ops)]
        try:
            yield
        finally:
            tls.control_stack = old
            if control_inputs is None:
                self._control_flow_context = old_context

    def _current_control_inputs(self, inputs):
        """TF's _control_dependencies_for_inputs: a level whose block already
        created one of the op's input ops dominates it and adds nothing."""
        seen, out = set(), []
        input_ops = {t.op for t in inputs}
        for level in self._tls().control_stack:
            if any(op in level.created for op in input_ops):
                continue
            for c in level:
                if c not in seen and c not in input_ops:
                    seen.add(c)
                    out.append(c)
        return out

    # -- devices ----------------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function: str | Callable[[Any], str] | None) -> Iterator[None]:
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
            if not isinstance(op, (Tensor, Operation)) and isinstance(getattr(op, "handle", None), Tensor):
                op = op.handle  # TF: a resource variable colocates with its handle op (VarHandleOp)
            elif hasattr(op, "_as_graph_element") and not isinstance(op, (Tensor, Operation)):
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
    def _original_op(self, op):
        """Ops created inside record ``op`` as their ``_original_op`` (TF's private
        helper: the op an error report names as the one this op was made from)."""
        saved = self._default_original_op
        self._default_original_op = op
        try:
            yield
        finally:
            self._default_original_op = saved

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
    def add_to_collection(self, name: str, value: Any) -> None:
        self._check_not_finalized()
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names: str | Iterable[str], value: Any) -> None:
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name: str) -> list[Any]:
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name: str, scope: str | None = None) -> list[Any]:
        with self._lock:
            items = list(self._collections.get(name, []))
        if scope is None:
            return items
        pattern = re.compile(scope) if isinstance(scope, str) else scope
        return [i for i in items if hasattr(i, "name") and pattern.match(i.name)]

    def get_all_collection_keys(self) -> list[str]:
        with self._lock:
            return [k for k, v in self._collections.items() if isinstance(k, str)]

    def clear_collection(self, name: str) -> None:
        self._check_not_finalized()
        with self._lock:
            self._collections.pop(name, None)

    # -- building ---------------------------------------------------------------
    def finalize(self) -> None:
        """Makes this graph read-only: later op creation raises RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        stack = _default_stack()
        stack.append(self)
        try:
            yield self
        finally:
            # TF's DefaultStack: the stack may have been reset meanwhile (then nothing to undo); leaving
            # out of order is TF's AssertionError, and pops no other graph's entry
            if stack:
                if stack[-1] is not self:
                    raise AssertionError(f"Nesting violated for default stack of {type(self)} objects")
                stack.pop()

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
            op_like = _OpLike(name, op_type, attrs, inputs)
            device = self._device_for(op_like)
            device = next((c.device for c in reversed(coloc) if c.device), device)
            op = Operation(self, name, op_type, inputs, controls, attrs, device, output_specs, opdef,
                           len(self._ops), _user_frame())
            self._ops_by_name[name] = op
            self._ops.append(op)
            for level in tls.control_stack:
                level.created.add(op)
            for t in inputs:
                self._consumers.setdefault(t, []).append(op)
            self._version += 1
            ctx = self._control_flow_context
            if ctx is not None:
                op._set_control_flow_context(ctx)
            check = _INPUT_CONTEXT_CHECK[0]
            if check is not None:  # TF's _control_flow_post_processing: inputs from a valid context
                for t in inputs:
                    check(op, t.op)
            if ctx is not None:  # then the context may rewire op
                ctx.AddOp(op)
            return op

    # ``as_graph_def`` (this graph as a GraphDef proto) is attached by ref.framework.graph_export.

    def __contains__(self, name):
        return name in self._ops_by_name


class _OpLike:
    """What a device function sees of an op that is about to be created."""

    def __init__(self, name, op_type, attrs, inputs=()):
        self.name, self.type = name, op_type
        self.device = ""
        self._attrs = attrs
        self.inputs = list(inputs)

    @property
    def node_def(self):
        """A NodeDef of the op's name, type, inputs and the device chosen so far
        (TF's device functions read ``op.node_def.op``); its attrs are not filled."""
        return protos.node_def_pb2.NodeDef(name=self.name, op=self.type, device=self.device,
                                           input=[t.name[:-2] if t.name.endswith(":0") else t.name
                                                  for t in self.inputs if isinstance(t, Tensor)])

    def get_attr(self, name):
        return tf_attr_value(self._attrs[name])

    def _get_attr(self, name):
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


# A graph other than the global default one entered on this thread (ref's own
# builders enter the default graph too, so that one does not count).
modes.register_graph_probe(lambda: any(g is not _global_default_graph for g in _default_stack()))


def get_default_graph() -> Graph:
    global _global_default_graph
    stack = _default_stack()
    if stack:
        return stack[-1]
    if _global_default_graph is None:
        _global_default_graph = Graph()
    return _global_default_graph


def clear_default_graph_stack():
    """Drops every graph entered with ``as_default()`` on this thread (TF's
    ``ops._default_graph_stack.reset()``): a test fixture's recovery when a
    failed test left a ``with g.as_default():`` block unexited."""
    _default_stack().clear()


def reset_default_graph():
    """Clears the default graph stack and resets the global default graph."""
    global _global_default_graph
    if _default_stack():
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs. If you need a "
                             "cleared graph, exit the nesting and create a new graph.")
    _global_default_graph = Graph()


def graph_of(values):
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
def name_scope(name, default_name=None, values=None, skip_on_eager=True):
    """TF1's ``tf.name_scope(name, default_name=None, values=None)``
    (``skip_on_eager``, of TF's internal ``ops.name_scope``, matters only eagerly)."""
    n = default_name if name is None else name
    if n is None and values is not None:
        raise ValueError(f"At least one of name ({name}) and default_name ({default_name}) must be provided.")
    g = graph_of(values)
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


def device_v2(device_name):
    """TF's ``ops.device_v2`` (``tf.device`` of the v2 API): a device name or
    DeviceSpec only; a device function is TF's RuntimeError."""
    if callable(device_name):
        raise RuntimeError("tf.device does not support functions.")
    return device(device_name)


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
# Proto functions per collection and name-scope helpers (TF's ops.py): how the
# items of a collection become protos in a MetaGraphDef and come back. The
# layers above register their own: variables (VariableDef), Saver (SaverDef),
# QueueRunner (QueueRunnerDef).
# ---------------------------------------------------------------------------

_PROTO_FUNCTIONS: dict = {}


_INPUT_CONTEXT_CHECK = [None]


def register_input_context_check(check):
    """Installs ``check(op, input_op)``, run on each input of every new op (raises
    ValueError for an input from a while loop ``op`` may not read); set by
    ``ref.graph_ops.control_flow_util``, as TF's ops.py calls its control_flow_util."""
    _INPUT_CONTEXT_CHECK[0] = check


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

