"""``tf.Variable`` with TF1 semantics (TF docs, "Variables" "Variables"; TF's API reference
``tf.compat.v1.Variable``).

A variable is graph ops; its value lives in the Session's state store:

* ``RefVariable`` (the default): ``v`` (VariableV2, a ``float32_ref``),
  ``v/initial_value``, ``v/Assign`` (the initializer) and ``v/read`` (the
  snapshot that ``convert_to_tensor(v)`` gives). A ref tensor is read when the
  op consuming it runs, so ``with control_dependencies([assign]): v + 1`` sees
  the new value.
* ``ResourceVariable`` (``use_resource=True``), in ``resource_variable_ops``
  (TF's file of that name).

``tf.Variable(...)`` goes through the creators of ``variable_creator_scope``
and the default creator picks the class from ``use_resource`` (argument,
then the variable scope, then False as in TF1 graph mode).

Size: ~900 lines, over the ~800 bound, because this is TF's ``variables.py``
boundary: the ``Variable`` API (about 60 documented methods and properties),
``RefVariable``, the creator stack and the collection helpers
(``global_variables_initializer`` ...) live there together, and the next cut
along TF's files (``ResourceVariable``) is already made.
"""
from __future__ import annotations

import contextlib
import enum
import functools

import numpy as np

from ref.types import dtypes, errors
from ref.ops import registry
from ref.framework.graph import (
    GraphKeys,
    Operation,
    Tensor,
    colocate_with,
    control_dependencies,
    device,
    get_collection,
    get_default_graph,
    init_scope,
    name_scope,
    register_proto_function,
)
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, convert_to_tensor, register_tensor_conversion_function, constant
from ref.framework.stack import get_default_session
from ref.types.shapes import TensorShape, as_shape, unknown_shape
from ref.graph_ops import math_ops as _math_ops  # noqa: F401 -- sets the Tensor operators the Variable ones wrap
from ref.graph_ops.array_ops import _slice_helper, boolean_mask as _boolean_mask, stack as _stack
from ref.graph_ops.control_flow_ops import group, no_op, cond
from ref.graph_ops.state_ops import batch_scatter_update, count_up_to
from ref.protos import variable_pb2

__all__ = ["Variable", "VariableV1", "RefVariable", "VariableAggregation",
           "VariableSynchronization", "get_variables", "global_variables", "all_variables", "trainable_variables",
           "local_variables", "model_variables", "moving_average_variables", "variables_initializer",
           "initialize_variables", "global_variables_initializer", "initialize_all_variables",
           "local_variables_initializer", "initialize_local_variables", "is_variable_initialized",
           "report_uninitialized_variables", "assert_variables_initialized", "sparse_mask",
           "IndexedSlices"]


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (TF's enum values)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates are combined (TF1's enum, with the
    deprecated ONLY_FIRST_TOWER alias)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3

    def __hash__(self):
        return hash(self.value)


class VariableAggregationV2(enum.Enum):
    """TF2's ``tf.VariableAggregation`` (no ONLY_FIRST_TOWER): each member equals,
    and hashes as, the TF1 member of the same value."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        if self is other:
            return True
        return isinstance(other, VariableAggregation) and int(self.value) == int(other.value)


def _validate_sync_agg_trainable(synchronization, aggregation, trainable, name):
    """Defaults and checks (TF's ``validate_synchronization_aggregation_trainable``):
    ``trainable`` defaults to ``synchronization != ON_READ``. compat.v1 accepts
    ``trainable=True`` with ``ON_READ`` (TF 1.x raised ValueError); ref follows compat.v1."""
    try:
        if isinstance(aggregation, VariableAggregationV2):
            aggregation = aggregation.value
        aggregation = VariableAggregation.NONE if aggregation is None else VariableAggregation(aggregation)
    except ValueError:
        raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: {name}") from None
    try:
        synchronization = (VariableSynchronization.AUTO if synchronization is None
                           else VariableSynchronization(synchronization))
    except ValueError:
        raise ValueError(f"Invalid variable synchronization mode: {synchronization} for variable: {name}") from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return synchronization, aggregation, bool(trainable)


def _strip_scope(name, scope):
    if not scope:
        return name
    scope = scope.rstrip("/") + "/"
    if name.startswith("loc:@" + scope):
        return "loc:@" + name[len("loc:@" + scope):]
    return name[len(scope):] if name.startswith(scope) else name


def _prepend_scope(name, scope):
    if not scope:
        return name
    scope = scope.rstrip("/") + "/"
    if name.startswith("loc:@"):
        return "loc:@" + scope + name[5:]
    return scope + name


# ---------------------------------------------------------------------------
# variable_creator_scope plumbing (the scope itself is in ref.graph_ops.variable_scope)
# ---------------------------------------------------------------------------

def _creator_stack(graph=None):
    """The graph's ``variable_creator_scope`` creators, outermost first."""
    return (graph or get_default_graph())._variable_creator_stack


# The innermost creator: picks RefVariable or ResourceVariable from the enclosing
# variable scope's ``use_resource``. ref.graph_ops.variable_scope installs it
# (TF's ``variables.default_variable_creator``, set from variable_scope.py).
default_variable_creator = None


def _call_creators(**kwargs):
    creator = default_variable_creator
    for c in _creator_stack():
        creator = (lambda c=c, nxt=creator: (lambda **kw: c(nxt, **kw)))()
    return creator(**kwargs)


class _VariableMeta(type):
    """``Variable(...)`` runs the creator stack; subclasses construct directly."""

    def __call__(cls, *args, **kwargs):
        if cls is Variable or cls is VariableV1:
            names = ["initial_value", "trainable", "collections", "validate_shape", "caching_device", "name",
                     "variable_def", "dtype", "expected_shape", "import_scope", "constraint", "use_resource",
                     "synchronization", "aggregation", "shape"]
            if len(args) > len(names):
                raise TypeError(f"Variable() takes at most {len(names)} positional arguments")
            kwargs.update(zip(names, args))
            graph = get_default_graph()
            if not getattr(graph, "_building_function", False):
                return _call_creators(**kwargs)
            # Inside a while/cond body or map_fn's fn: the variable lives in the
            # outermost graph under the same name scope (TF's init_scope).
            scope = graph.get_name_scope()
            while getattr(graph, "_building_function", False):
                graph = graph.outer_graph
            with graph.as_default(), graph.name_scope(scope + "/" if scope else None):
                return _call_creators(**kwargs)
        return super().__call__(*args, **kwargs)


# ---------------------------------------------------------------------------
# Variable
# ---------------------------------------------------------------------------

class Variable(metaclass=_VariableMeta):
    """A variable maintains state in the graph across calls to ``run()``
    (TF docs, "Variables" ``class tf.Variable``).

    The constructor adds a variable op, its initializer (an assign op: run it,
    or ``tf.global_variables_initializer()``, before reading the variable) and a
    snapshot, and registers the variable in ``collections``. Its value lives in
    each Session that initializes it, until the session closes; a Saver writes
    and restores it by name.

    Args:
        initial_value: the first value: an array, a Python number or list, a
            ``Tensor`` (e.g. ``tf.random_normal([2, 3])``), or a callable
            returning one. Its dtype is the variable's unless ``dtype`` is given.
        trainable: whether optimizers update it (it joins
            ``GraphKeys.TRAINABLE_VARIABLES``); default True.
        collections: the graph collections it joins (default
            ``[GraphKeys.GLOBAL_VARIABLES]``).
        validate_shape: False allows an initial value of unknown shape.
        name: the op name (default ``"Variable"``, made unique in the graph).
        dtype: the variable's dtype: a Python or NumPy initial value is
            converted to it (a ``Tensor`` must already have it: ValueError).
        use_resource: True makes a ``ResourceVariable`` (TF2's kind of
            variable, read and written through a handle); default a ref variable.
        shape: the static shape, if less specific than the initial value's.

    The other arguments (``caching_device``, ``variable_def``,
    ``expected_shape``, ``import_scope``, ``constraint``, ``synchronization``,
    ``aggregation``) are TensorFlow's; ``variable_def`` with ``import_scope``
    rebuilds a variable from a MetaGraph's ``VariableDef``.

    Reading a variable in a session that has not initialized it raises
    FailedPreconditionError ("Attempting to use uninitialized value ...").

    >>> import numpy as np, ref as tf
    >>> with tf.Graph().as_default():
    ...     w = tf.Variable(np.ones((2, 2), np.float32), name="w")
    ...     step = tf.Variable(0, trainable=False, name="step")
    ...     print(w.name, w.shape, step.dtype, step in tf.trainable_variables())
    ...     with tf.Session() as sess:
    ...         sess.run(tf.global_variables_initializer())
    ...         print(sess.run(w.assign_add(np.eye(2, dtype=np.float32))))
    w:0 (2, 2) tf.int32_ref False
    [[2. 1.]
     [1. 2.]]
    """

    _is_resource = False  # ResourceVariable (resource_variable_ops) sets True
    # is_resource -> the class that rebuilds a VariableDef: each kind registers itself
    _proto_classes: dict = {}

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, use_resource=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE,
                 shape=None):
        raise NotImplementedError("construct through Variable(...)")  # the metaclass dispatches

    class SaveSliceInfo:
        """Where this variable sits in a larger (partitioned) variable, for checkpoints.

        ``spec`` is TF's slice string: the full shape, then ``offset,length``
        per dimension joined by ``:`` -- e.g. ``"10 20 0,5:0,20"``."""

        def __init__(self, full_name=None, full_shape=None, var_offset=None, var_shape=None,
                     save_slice_info_def=None, import_scope=None):
            if save_slice_info_def is not None:
                self.full_name = _prepend_scope(save_slice_info_def.full_name, import_scope)
                self.full_shape = list(save_slice_info_def.full_shape)
                self.var_offset = list(save_slice_info_def.var_offset)
                self.var_shape = list(save_slice_info_def.var_shape)
            else:
                self.full_name = full_name
                self.full_shape = full_shape
                self.var_offset = var_offset
                self.var_shape = var_shape

        @property
        def spec(self):
            full = " ".join("%d" % d for d in self.full_shape) + " "
            return full + ":".join("%d,%d" % (o, s) for o, s in zip(self.var_offset, self.var_shape))

        @classmethod
        def from_spec(cls, spec):
            """The SaveSliceInfo (no ``full_name``) of a ``spec`` string such as
            ``"4 3 5 0,4:1,1:3,2"``; an empty spec gives an empty SaveSliceInfo.

            Raises:
              ValueError: if ``spec`` is not in that format."""
            if not spec:
                return cls()
            if " " not in spec:
                raise ValueError("Spec string must contain space-separated full_shape info.")
            full_str, slice_str = spec.rsplit(" ", 1)

            def ints(text, what):
                try:
                    return int(text)
                except ValueError:
                    must = "a sequence of integers" if what == "full_shape" else "an integer"
                    raise ValueError(f"Spec string {what} must be {must}. "
                                     f"Found '{text}', which is not an integer.") from None

            full_shape = [ints(d, "full_shape") for d in full_str.split()]
            offsets, shapes = [], []
            for pair in slice_str.split(":"):
                parts = pair.split(",")
                if len(parts) != 2:
                    raise ValueError("Spec string must contain comma-separated pairs of offsets and shapes.")
                offsets.append(ints(parts[0], "var_offset"))
                shapes.append(ints(parts[1], "var_shape"))
            return cls(full_shape=full_shape, var_offset=offsets, var_shape=shapes)

        def to_proto(self, export_scope=None):
            if export_scope is None or self.full_name.startswith(export_scope):
                d = variable_pb2.SaveSliceInfoDef()
                d.full_name = _strip_scope(self.full_name, export_scope)
                d.full_shape.extend(int(x) for x in self.full_shape)
                d.var_offset.extend(int(x) for x in self.var_offset)
                d.var_shape.extend(int(x) for x in self.var_shape)
                return d
            return None

    # -- common surface (subclasses provide _variable/_handle etc.) -------------
    name = property(lambda self: self._ref().name, doc="The name of this variable (``'v:0'``).")
    op = property(lambda self: self._ref().op, doc="The Operation of this variable.")
    graph = property(lambda self: self._ref().graph, doc="The Graph of this variable.")
    device = property(lambda self: self._ref().device, doc="The device of this variable.")
    initializer = property(lambda self: self._initializer_op, doc="The initializer op (``v/Assign``).")
    initial_value = property(lambda self: self._initial_value,
                             doc="The Tensor the initializer assigns (not ``initialized_value()``).")
    constraint = property(lambda self: self._constraint)
    trainable = property(lambda self: self._trainable)
    synchronization = property(lambda self: self._synchronization)
    aggregation = property(lambda self: self._aggregation)
    _distribute_strategy = None  # TF: the tf.distribute strategy that made the variable (none here)

    @property
    def shape(self) -> TensorShape:
        return self._ref().shape

    def get_shape(self) -> TensorShape:
        """Alias of ``Variable.shape``."""
        return self.shape

    def set_shape(self, shape):
        """Refines the static shape of the variable (ValueError if incompatible)."""
        self._ref().set_shape(shape)
        self.value().set_shape(shape)

    def eval(self, session=None):
        """The variable's value in ``session`` (default: the default session), a copy."""
        return self._as_graph_element().eval(session=session)

    def load(self, value, session=None):
        """Writes ``value`` into the variable by running its initializer with the
        initial value fed -- no new ops."""
        session = session or get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session should be "
                             "established")
        session.run(self._initializer_op, {self._initializer_op.inputs[1]: value})

    def initialized_value(self):
        """The value, after running the initializer if the variable is not yet
        initialized (``cond(is_variable_initialized(v), v.read_value, lambda:
        v.initial_value)``): use it to initialize another variable from this one."""
        with init_scope():
            return cond(is_variable_initialized(self), self.read_value, lambda: self.initial_value)

    def count_up_to(self, limit):
        """Increments the variable until it reaches ``limit`` (then OutOfRangeError);
        outputs the value before the increment (``CountUpTo``; ``ResourceCountUpTo``
        for a resource variable)."""
        return count_up_to(self, limit)

    # -- reads and updates (each subclass builds its own ops) ---------------------
    dtype = property(lambda self: self._dtype_impl(), doc="The DType of this variable.")

    def value(self):
        """The variable's value as a Tensor (what ``convert_to_tensor(v)`` gives)."""
        return self._value_impl()

    def read_value(self):
        """A fresh read of the variable's current value."""
        return self._read_value_impl()

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns ``value``; returns the new value (or the assign op if not ``read_value``)."""
        return self._assign_impl("Assign", value, use_locking, name, read_value)

    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        """Adds ``delta``; returns the new value (or the op if not ``read_value``)."""
        return self._assign_impl("AssignAdd", delta, use_locking, name, read_value)

    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        """Subtracts ``delta``; returns the new value (or the op if not ``read_value``)."""
        return self._assign_impl("AssignSub", delta, use_locking, name, read_value)

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """var[indices[i]] = values[i]: assigns ``IndexedSlices`` to this variable."""
        return self._scatter("Update", sparse_delta, use_locking, name)

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """var[indices[i]] += values[i]."""
        return self._scatter("Add", sparse_delta, use_locking, name)

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """var[indices[i]] -= values[i]."""
        return self._scatter("Sub", sparse_delta, use_locking, name)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        """var[indices[i]] *= values[i]."""
        return self._scatter("Mul", sparse_delta, use_locking, name)

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        """var[indices[i]] /= values[i]."""
        return self._scatter("Div", sparse_delta, use_locking, name)

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """var[indices[i]] = min(var[indices[i]], values[i])."""
        return self._scatter("Min", sparse_delta, use_locking, name)

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """var[indices[i]] = max(var[indices[i]], values[i])."""
        return self._scatter("Max", sparse_delta, use_locking, name)

    def scatter_nd_update(self, indices, updates, name=None):
        """var[indices[i]] = updates[i] with indices[i] a K-vector."""
        return self._scatter_nd("Update", indices, updates, name)

    def scatter_nd_add(self, indices, updates, name=None):
        """var[indices[i]] += updates[i] with indices[i] a K-vector."""
        return self._scatter_nd("Add", indices, updates, name)

    def scatter_nd_sub(self, indices, updates, name=None):
        """var[indices[i]] -= updates[i] with indices[i] a K-vector."""
        return self._scatter_nd("Sub", indices, updates, name)

    def sparse_read(self, indices, name=None):
        """Rows ``indices`` of the variable (a gather)."""
        with name_scope("Gather" if name is None else name) as scope:
            return self._gather(indices, scope)

    def gather_nd(self, indices, name=None):
        """``var[indices[i]]`` for K-vectors ``indices[i]``."""
        with name_scope("GatherNd" if name is None else name) as scope:
            return self._gather_nd(indices, scope)

    def _check_slices(self, sparse_delta):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"sparse_delta is not IndexedSlices: {sparse_delta}")

    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        """var[i_1..i_n, indices[i_1..i_n, j]] = updates[i_1..i_n, j] (batch-wise scatter_update)."""
        self._check_slices(sparse_delta)
        return batch_scatter_update(self, sparse_delta.indices, sparse_delta.values, use_locking=use_locking,
                                    name=name)

    def experimental_ref(self):
        """Deprecated alias of ``ref()``."""
        return self.ref()

    def ref(self):
        """A hashable reference to this variable (``.deref()`` gives it back)."""
        return _Reference(self)

    @staticmethod
    def from_proto(variable_def, import_scope=None):
        """The Variable described by ``variable_def`` (its ops must be in the default graph)."""
        cls = Variable._proto_classes[bool(variable_def.is_resource)]
        return cls(variable_def=variable_def, import_scope=import_scope)

    def to_proto(self, export_scope=None):
        """This variable as a ``VariableDef`` (None when outside ``export_scope``)."""
        var_t = self._ref()
        if export_scope is not None and not var_t.name.startswith(export_scope):
            return None
        d = variable_pb2.VariableDef()
        d.variable_name = _strip_scope(var_t.name, export_scope)
        if self._initial_value is not None:
            d.initial_value_name = _strip_scope(self._initial_value.name, export_scope)
        d.initializer_name = _strip_scope(self._initializer_op.name, export_scope)
        d.snapshot_name = _strip_scope(self._snapshot_for_proto().name, export_scope)
        d.trainable = self._trainable
        d.synchronization = self._synchronization.value
        d.aggregation = self._aggregation.value
        d.is_resource = self._is_resource
        if self._save_slice_info:
            d.save_slice_info_def.MergeFrom(self._save_slice_info.to_proto(export_scope=export_scope))
        return d

    def _set_save_slice_info(self, save_slice_info):
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self):
        return self._save_slice_info

    @property
    def _shared_name(self):
        return self.name[:self.name.index(":")] if ":" in self.name else self.name

    # -- Python protocol ---------------------------------------------------------
    def __repr__(self):
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self.dtype.name}>"

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    def __iter__(self):
        raise errors.OperatorNotAllowedInGraphError(
            "Iterating over a symbolic `tf.Tensor` is not allowed. You can attempt the following resolutions "
            "to the problem: If you are running in Graph mode, use Eager execution mode or decorate this "
            "function with @tf.function.")

    def __bool__(self):
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed.")

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"Cannot convert a symbolic tf.Variable ({self.name}) to a numpy array.")

    def __getitem__(self, slice_spec):
        """``v[slice_spec]``: a StridedSlice of the value, with ``.assign(x)``
        writing that slice of the variable (TF's ``_SliceHelperVar``)."""
        return _slice_helper(self.value(), slice_spec, self)

    def _strided_slice_assign(self, begin, end, strides, value, name, begin_mask, end_mask, ellipsis_mask,
                              new_axis_mask, shrink_axis_mask):
        masks = dict(begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                     new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)
        value = convert_to_tensor(value, dtype=self.dtype.base_dtype)
        if self._is_resource:
            op = apply_op("ResourceStridedSliceAssign", ref=self._ref(), begin=begin, end=end, strides=strides,
                          value=value, **masks, name=name)
            with control_dependencies([op]):
                return self.read_value()
        return apply_op("StridedSliceAssign", ref=self._ref(), begin=begin, end=end, strides=strides,
                        value=value, **masks, name=name)

    def __iadd__(self, other):
        return self + other

    def __isub__(self, other):
        return self - other

    def __imul__(self, other):
        return self * other

    def __idiv__(self, other):
        return self / other

    __itruediv__ = __idiv__

    def __ipow__(self, other):
        return self ** other


def _delegate(op_name):
    def method(self, *args):
        return getattr(self.value(), op_name)(*args)

    # TF wraps the Tensor operator: the same name, qualname, module and doc
    functools.update_wrapper(method, getattr(Tensor, op_name))
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor"):
    setattr(Variable, f"__{_name}__", _delegate(f"__{_name}__"))
    setattr(Variable, f"__r{_name}__", _delegate(f"__r{_name}__"))
for _name in ("lt", "le", "gt", "ge", "neg", "abs", "invert"):
    setattr(Variable, f"__{_name}__", _delegate(f"__{_name}__"))
Variable.__div__ = _delegate("__truediv__")
Variable.__rdiv__ = _delegate("__rtruediv__")

VariableV1 = Variable


class _Reference:
    """A hashable stand-in for a variable (``Variable.ref()``)."""

    __slots__ = ("_wrapped",)

    def __init__(self, wrapped):
        self._wrapped = wrapped

    def deref(self):
        return self._wrapped

    def __hash__(self):
        return id(self._wrapped)

    def __eq__(self, other):
        return isinstance(other, _Reference) and other._wrapped is self._wrapped

    def __repr__(self):
        return f"<Reference wrapping {self._wrapped!r}>"


def _common_init(self, collections, trainable, constraint, synchronization, aggregation, name, resource=False):
    if collections is None:
        collections = [GraphKeys.GLOBAL_VARIABLES]
    if not isinstance(collections, (list, tuple, set)):
        raise ValueError("collections argument to Variable constructor must be a list, tuple, or set. Got "
                         f"{collections} of type {type(collections)}")
    if constraint is not None and not callable(constraint):
        if resource:  # TF's two messages, as they are
            raise ValueError(f"Argument `constraint` must be None or a callable. a callable. Got a "
                             f"{type(constraint)}:  {constraint}")
        raise ValueError("The `constraint` argument must be a callable.")
    self._synchronization, self._aggregation, self._trainable = _validate_sync_agg_trainable(
        synchronization, aggregation, trainable, name)
    if self._trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
        collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
    self._constraint = constraint
    self._save_slice_info = None
    return collections


def _initial_tensor(initial_value, dtype, init_from_fn, name=None, resource=False):
    if init_from_fn:
        initial_value = initial_value()
    elif isinstance(initial_value, Tensor) and initial_value.graph._building_function and not resource:
        raise ValueError(f"Initializer for variable {name} is from inside a control-flow construct, such as a "
                         "loop or conditional. When creating a variable inside a loop or conditional, use a lambda "
                         "as the initializer.")
    elif isinstance(initial_value, Tensor) and initial_value.graph._building_function:
        raise ValueError(f"Argument `initial_value` ({initial_value}) could not be lifted out of a "
                         f"`tf.function`. (Tried to create variable with name='{name}'). To avoid this error, when "
                         "constructing `tf.Variable`s inside of `tf.function` you can create the `initial_value` "
                         "tensor in a `tf.init_scope` or pass a callable `initial_value` (e.g., `tf.Variable(lambda "
                         ": tf.truncated_normal([10, 40]))`). Please file a feature request if this restriction "
                         "inconveniences you.")
    value = convert_to_tensor(initial_value, name="initial_value", dtype=dtype)
    if not init_from_fn and value.op._get_control_flow_context() is not None:
        # a tensor of a TF 1.x loop or cond body (init_scope leaves the context only for callables)
        if resource:
            raise ValueError(f"The `initial_value` passed to `tf.Variable` {name} is from inside a control-flow  "
                             "construct, such as a loop or conditional. When creating a `tf.Variable` inside a loop "
                             f"or conditional, use a lambda as the `initial_value`. Got: initial_value=({value})")
        raise ValueError(f"Initializer for variable {name} is from inside a control-flow construct, such as a "
                         "loop or conditional. When creating a variable inside a loop or conditional, use a lambda "
                         "as the initializer.")
    return value


# Ops the guard leaves alone: checks and reads of a variable, and function ops (their bodies capture values)
_GUARD_KEEP = ("IsVariableInitialized", "VarIsInitializedOp", "ReadVariableOp", "If", "While")


def _guard_uninitialized_dependencies(name, initial_value):
    """``initial_value`` with every variable it reads replaced by that variable's
    ``initialized_value()`` (TF's ``_try_guard_against_uninitialized_dependencies``),
    so an initializer works whichever order the initializers run in. Best effort,
    as TF: only variables of GLOBAL_VARIABLES / LOCAL_VARIABLES; a resource
    variable's ReadVariableOp is kept (TF does the same). Rebuilt ops are named
    ``<op>_<variable>`` (``mul_w``)."""
    cache = {}

    def var_value(op):
        for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
            for v in op.graph.get_collection(key):
                if isinstance(v, RefVariable) and v._variable.op is op:
                    return v.initialized_value().op
        return op

    def rebuild(op):
        if op in cache:
            return cache[op]
        if op.type in _GUARD_KEEP:
            new = op
        elif op.type in ("Variable", "VariableV2"):
            new = var_value(op)
        else:
            inputs = [rebuild(t.op).outputs[t.value_index] for t in op.inputs]
            if all(a is b for a, b in zip(inputs, op.inputs)):
                new = op
            else:
                op_type, opdef, outs = op.type, op._opdef, [(t.dtype, t.shape) for t in op.outputs]
                if op_type == "RefSwitch":  # TF: the copy reads a value (the initialized_value cond), a Switch
                    op_type, opdef = "Switch", registry.get("Switch")
                    outs = [(d.base_dtype, s) for d, s in outs]
                new = op.graph.create_op(op_type, inputs, dict(op._attrs), (op.name + "_" + name).replace(":", "_"),
                                         outs, opdef)
        cache[op] = new
        return new

    if _has_cycle(initial_value.op):  # a TF 1.x loop's value: left as it is (TF does the same)
        return initial_value
    return rebuild(initial_value.op).outputs[initial_value.value_index]


def _has_cycle(root) -> bool:
    """Whether the ops ``root`` depends on (data and control inputs) form a
    cycle, as a TF 1.x while loop's NextIteration -> Merge back edge does."""
    done, active = set(), set()
    stack = [(root, False)]
    while stack:
        op, leaving = stack.pop()
        if leaving:
            active.discard(op)
            done.add(op)
            continue
        if op in done:
            continue
        if op in active:
            return True
        active.add(op)
        stack.append((op, True))
        for dep in [t.op for t in op.inputs] + list(op.control_inputs):
            if dep in active:
                return True
            if dep not in done:
                stack.append((dep, False))
    return False


def _try_guard_against_uninitialized_dependencies(name, initial_value):
    """TF's name for :func:`_guard_uninitialized_dependencies` (TypeError unless a Tensor)."""
    if not isinstance(initial_value, Tensor):
        raise TypeError(f"initial_value needs to be a Tensor: {initial_value}")
    return _guard_uninitialized_dependencies(name, initial_value)


class RefVariable(Variable):
    """TF1's reference variable: a VariableV2 op whose output is a ``_ref`` tensor."""

    def __init__(self, initial_value=None, trainable=None, collections=None, validate_shape=True,
                 caching_device=None, name=None, variable_def=None, dtype=None, expected_shape=None,
                 import_scope=None, constraint=None, synchronization=None, aggregation=None, shape=None):
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        init_from_fn = callable(initial_value)
        collections = _common_init(self, collections, trainable, constraint, synchronization, aggregation, name)
        with init_scope():  # a variable made in a cond/while body lives in the outer graph
            with name_scope(name, "Variable", [] if init_from_fn else [initial_value]) as scope:
                # TF: a callable's initial value (and the variable op) get ``_class: loc:@<v>``
                # (colocation with a variable that does not exist yet) and no device
                with (get_default_graph()._attr_scope({"_class": ["loc:@" + scope.rstrip("/")]}) if init_from_fn
                      else contextlib.nullcontext()):
                    if init_from_fn:
                        with name_scope("Initializer"), device(None):
                            self._initial_value = _initial_tensor(initial_value, dtype, True)
                    else:
                        self._initial_value = _initial_tensor(initial_value, dtype, False, scope)
                    if shape is None:
                        shape = self._initial_value.shape if validate_shape else unknown_shape()
                    self._variable = apply_op("VariableV2", shape=as_shape(shape),
                                              dtype=self._initial_value.dtype.base_dtype, name=scope)
                if validate_shape and not self._initial_value.shape.is_fully_defined():
                    raise ValueError(f"initial_value must have a shape specified: {self._initial_value}")
                self._initializer_op = apply_op(
                    "Assign", ref=self._variable, value=_guard_uninitialized_dependencies(scope, self._initial_value),
                    validate_shape=validate_shape, name="Assign").op
                if caching_device is not None:
                    with device(caching_device):
                        self._snapshot = apply_op("Identity", input=self._variable, name="read")
                else:
                    with colocate_with(self._variable.op):
                        self._snapshot = apply_op("Identity", input=self._variable, name="read")
        self._caching_device = caching_device
        get_default_graph().add_to_collections(collections, self)

    def _init_from_proto(self, variable_def, import_scope=None):
        g = get_default_graph()
        self._variable = g.as_graph_element(_prepend_scope(variable_def.variable_name, import_scope))
        self._initializer_op = g.as_graph_element(_prepend_scope(variable_def.initializer_name, import_scope))
        self._initial_value = (g.as_graph_element(_prepend_scope(variable_def.initial_value_name, import_scope))
                               if variable_def.initial_value_name else None)
        self._snapshot = g.as_graph_element(_prepend_scope(variable_def.snapshot_name, import_scope))
        self._synchronization = VariableSynchronization(variable_def.synchronization)
        self._aggregation = VariableAggregation(variable_def.aggregation)
        self._trainable = variable_def.trainable
        self._constraint = None
        self._caching_device = None
        self._save_slice_info = (Variable.SaveSliceInfo(save_slice_info_def=variable_def.save_slice_info_def,
                                                        import_scope=import_scope)
                                 if variable_def.HasField("save_slice_info_def") else None)

    def _dtype_impl(self):
        return self._variable.dtype  # a ``_ref`` type, as in TF1

    def _ref(self):
        """The ref tensor (``v:0``); assign ops take it."""
        return self._variable

    def _as_graph_element(self):
        return self._variable

    def _snapshot_for_proto(self):
        return self._snapshot

    def _value_impl(self):
        return self._snapshot  # v/read

    def _read_value_impl(self):
        return apply_op("Identity", input=self._variable, name="read")

    def _assign_impl(self, op_type, value, use_locking, name, read_value):
        t = apply_op(op_type, ref=self._variable, value=value, use_locking=use_locking, name=name or op_type)
        return t if read_value else t.op

    def _scatter(self, how, sparse_delta, use_locking, name):
        self._check_slices(sparse_delta)
        op = f"Scatter{how}"
        return apply_op(op, ref=self._variable, indices=sparse_delta.indices, updates=sparse_delta.values,
                        use_locking=use_locking, name=name or op)

    def _scatter_nd(self, how, indices, updates, name):
        op = f"ScatterNd{how}"
        return apply_op(op, ref=self._variable, indices=indices, updates=updates, use_locking=True,
                        name=name or op)

    def _gather(self, indices, scope):
        return apply_op("GatherV2", params=self._variable, indices=indices, axis=0, name=scope)

    def _gather_nd(self, indices, scope):
        return apply_op("GatherNd", params=self._variable, indices=indices, name=scope)


Variable._proto_classes[False] = RefVariable


def _to_tensor(var, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(var.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtypes.as_dtype(dtype).name}' for "
                         f"variable of type '{var.dtype.name}'")
    return var._ref() if as_ref else var.value()


register_tensor_conversion_function(Variable, _to_tensor)


# ---------------------------------------------------------------------------
# Collections and initializers (TF docs, "Variables" "Variable helper functions")
# ---------------------------------------------------------------------------

def global_variables(scope=None):
    """The ``GraphKeys.GLOBAL_VARIABLES`` collection (filtered by ``re.match(scope, name)``)."""
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables():
    """Deprecated: ``global_variables()``."""
    return global_variables()


def get_variables(scope=None, suffix=None, collection=GraphKeys.GLOBAL_VARIABLES):
    """The variables of ``collection`` whose names match ``scope`` (``re.match``)
    and end with ``suffix``."""
    if isinstance(scope, Variable):
        scope = scope.op.name
    candidates = get_collection(collection, scope)
    if suffix is None:
        return candidates
    return [v for v in candidates if v.op.name.endswith(suffix)]


def trainable_variables(scope=None):
    """All variables created with ``trainable=True``."""
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None):
    """All variables in ``GraphKeys.LOCAL_VARIABLES``."""
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None):
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope=None):
    """The variables an ExponentialMovingAverage maintains averages for."""
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list, name="init"):
    """An op running the initializers of ``var_list`` (a NoOp with no effect if empty)."""
    if var_list:
        return group(*[v.initializer for v in var_list], name=name)
    return no_op(name=name)


def initialize_variables(var_list, name="init"):
    """Deprecated: ``variables_initializer``."""
    return variables_initializer(var_list, name=name)


def global_variables_initializer():
    """``variables_initializer(global_variables())``, named ``init``."""
    return variables_initializer(global_variables())


def initialize_all_variables():
    """Deprecated: ``global_variables_initializer()``."""
    return global_variables_initializer()


def local_variables_initializer():
    return variables_initializer(local_variables())


def initialize_local_variables():
    """Deprecated: ``local_variables_initializer()``."""
    return local_variables_initializer()


def is_variable_initialized(variable):
    """A scalar bool Tensor: has ``variable`` (a Variable or a ``_ref`` tensor) been initialized?"""
    if getattr(variable, "_is_resource", False):
        return apply_op("VarIsInitializedOp", resource=variable._handle)
    return apply_op("IsVariableInitialized", ref=variable)


def _graph_variable_tensors():
    return [op.outputs[0] for op in get_default_graph().get_operations()
            if op.type in ("Variable", "VariableV2", "VarHandleOp")]


def report_uninitialized_variables(var_list=None, name="report_uninitialized_variables"):
    """A 1-D string tensor with the op names of the uninitialized variables of
    ``var_list`` (default: global + local variables, else every variable op)."""
    if var_list is None:
        var_list = global_variables() + local_variables()
        if not var_list:
            var_list = _graph_variable_tensors()
    with name_scope(name):
        if not var_list:
            return constant(np.array([], dtype=object), dtype=dtypes.string)  # "<scope>/Const", as TF
        inits = [_is_initialized_any(v) for v in var_list]
        # boolean_mask(names, logical_not(stack(inits))), as TF builds it
        uninit = apply_op("LogicalNot", x=_stack(inits))
        names = constant(np.array([v.op.name for v in var_list], dtype=object), dtype=dtypes.string)
        return _boolean_mask(names, uninit)


def _is_initialized_any(v):
    if isinstance(v, Variable):
        return is_variable_initialized(v)
    if v.dtype.base_dtype == dtypes.resource:
        return apply_op("VarIsInitializedOp", resource=v)
    return apply_op("IsVariableInitialized", ref=v)


def assert_variables_initialized(var_list=None):
    """An op that raises FailedPreconditionError when run if any variable of
    ``var_list`` (default: global + local) is uninitialized; None if there are none."""
    if var_list is None:
        var_list = global_variables() + local_variables()
        if not var_list:
            var_list = _graph_variable_tensors()
    if not var_list:
        return None
    ranks = []
    for var in var_list:
        with colocate_with(var.op):
            ranks.append(apply_op("Rank", input=var))
    if len(ranks) == 1:
        return ranks[0]
    return apply_op("Pack", values=ranks, axis=0)


def sparse_mask(a, mask_indices, name=None):
    """The slices of IndexedSlices ``a`` whose indices are NOT in ``mask_indices``
    (TF docs, "Variables": ``a.indices = [12, 26, 37, 45]``, mask ``[12, 45]`` -> ``[26, 37]``)."""
    with name_scope(name, "sparse_mask", [a, mask_indices]) as scope:
        indices = a.indices
        out_indices, to_gather = apply_op("ListDiff", x=indices, y=mask_indices, out_idx=dtypes.int32)
        out_values = apply_op("GatherV2", params=a.values, indices=to_gather, axis=0, name=scope)
        return IndexedSlices(out_values, out_indices, a.dense_shape)


def _variable_to_proto(v, export_scope=None):
    return v.to_proto(export_scope=export_scope)


# Variables in a MetaGraphDef: the variable collections hold VariableDefs (TF's variables.py).
for _key in GraphKeys._VARIABLE_COLLECTIONS:
    register_proto_function(_key, proto_type=variable_pb2.VariableDef, to_proto=_variable_to_proto,
                            from_proto=Variable.from_proto)
