"""Sharing variables: ``get_variable``, ``variable_scope``, ``VariableScope``,
``make_template``, ``variable_creator_scope`` (TF docs, "Variables" "Sharing Variables";
TF's API reference ``tf.compat.v1.variable_scope`` / ``VariableScope``).

A graph holds one variable store (full name -> variable) and one scope store
(the current VariableScope and how often each scope name was opened, for
``default_name`` uniquing), both in graph collections as in TF. Rules:

* ``get_variable("v")`` in scope ``foo`` is ``foo/v`` -- variable names
  depend only on variable scopes, never on name scopes.
* creating an existing name raises "Variable foo/v already exists,
  disallowed..."; reusing a missing one (``reuse=True``) raises "Variable
  foo/v does not exist, or was not created with tf.get_variable()...";
  ``AUTO_REUSE`` creates or returns.
* ``reuse`` is inherited by sub-scopes; ``reuse=False`` means "inherit".
* ``variable_scope`` opens a name scope too (``foo``, or ``foo_1`` when the
  name scope was used before, e.g. when re-entering a captured scope), unless
  ``auxiliary_name_scope=False``.
"""
from __future__ import annotations

import contextlib
import copy
import enum
import functools
import inspect
import threading
import traceback

from ref.types import dtypes
from ref.platform import modes
from ref.framework.graph import (
    GraphKeys,
    Tensor,
    graph_of,
    colocate_with,
    control_dependencies,
    get_collection,
    get_default_graph,
    name_scope,
)
from ref.framework.op_def_library import convert_to_tensor
from ref.types.shapes import as_shape
from ref.graph_ops import variables, init_ops
from ref.graph_ops.resource_variable_ops import ResourceVariable
from ref.graph_ops.variables import (RefVariable, Variable, VariableAggregation, VariableSynchronization,
                           _creator_stack, _validate_sync_agg_trainable)
from ref.graph_ops.array_ops import slice as array_slice
from ref.graph_ops.partitioned import PartitionedVariable, PartitionInfo
from ref.graph_ops.lazy_eval_tensor import LazyEvalTensor

__all__ = ["AUTO_REUSE", "VariableScope", "get_variable", "get_local_variable", "variable_scope",
           "variable_op_scope", "get_variable_scope", "variable_creator_scope", "no_regularizer",
           "enable_resource_variables", "disable_resource_variables", "resource_variables_enabled",
           "create_partitioned_variables"]


class _ReuseMode(enum.Enum):
    """``AUTO_REUSE``: create variables that do not exist, return those that do."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE

def enable_resource_variables():
    """Makes ``get_variable``/``Variable`` create ResourceVariables by default."""
    modes.set_resource_variables_by_default(True)


def disable_resource_variables():
    """The TF1 default: ``get_variable``/``Variable`` create reference variables."""
    modes.set_resource_variables_by_default(False)


def resource_variables_enabled():
    """Whether variables are ResourceVariables unless ``use_resource=False``."""
    return modes.resource_variables_by_default()


def _default_creator(next_creator=None, **kwargs):
    use_resource = kwargs.pop("use_resource", None)
    if use_resource is None:
        use_resource = get_variable_scope().use_resource
        if use_resource is None:
            use_resource = modes.resource_variables_by_default()
    cls = ResourceVariable if use_resource else RefVariable
    return cls(**kwargs)


variables.default_variable_creator = _default_creator


def no_regularizer(_):
    """Use this function to prevent regularization of variables."""
    return None


# ---------------------------------------------------------------------------
# Partitioning helpers used by the store
# ---------------------------------------------------------------------------

def _call_partitioner(partitioner, shape, dtype):
    """The partitioner's per-axis slice counts, validated as TF does."""
    if not shape.is_fully_defined():
        raise ValueError(f"Shape of a new partitioned variable must be fully defined, but instead was {shape}.")
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, (list, tuple)):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError(f"Partitioner returned a partition list that does not match the Variable's rank: "
                         f"{slicing} vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(f"Can only slice a variable along one dimension: shape: {shape}, "
                         f"partitioning: {slicing}")
    return list(slicing)


def _slice_dim_and_num_slices(slicing):
    for i, n in enumerate(slicing):
        if n != 1:
            return i, n
    return 0, 1


def _iter_slices(full_shape, num_slices, slice_dim):
    """(offset, shape) of each slice: the first ``full % n`` slices are one longer."""
    excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = list(full_shape)
        shape[slice_dim] = min_len + (1 if i < excess else 0)
        yield list(offset), shape
        offset[slice_dim] += shape[slice_dim]


def _default_initializer(name, dtype):
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer(), False
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
        return init_ops.zeros_initializer(), False
    raise ValueError(f"An initializer for variable {name} of {dtype.base_dtype} is required")


def _accepts(fn, arg):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return arg in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


# ---------------------------------------------------------------------------
# The variable store
# ---------------------------------------------------------------------------

class _VariableStore:
    """Full name -> variable (and partitioned variable) for one graph."""

    def __init__(self):
        self._vars = {}
        self._partitioned_vars = {}
        self._lock = threading.RLock()

    @property
    def variables(self):
        """Full name -> variable, of every variable this store made (the live dict)."""
        return self._vars

    def get_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None, reuse=None,
                     trainable=None, collections=None, caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
        if custom_getter is not None and not callable(custom_getter):
            raise ValueError(f"Passed a custom_getter which is not callable: {custom_getter}")
        dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else dtype

        def _true_getter(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None, reuse=None,
                         trainable=None, collections=None, caching_device=None, partitioner=None,
                         validate_shape=True, use_resource=None, constraint=None,
                         synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
            is_scalar = shape is not None and isinstance(shape, (list, tuple)) and not shape
            if partitioner is not None and not is_scalar:
                if not callable(partitioner):
                    raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
                with name_scope(None):
                    return self._get_partitioned_variable(
                        name, partitioner, shape, dtype, initializer, regularizer, reuse, trainable, collections,
                        caching_device, validate_shape, use_resource, constraint, synchronization, aggregation)
            if reuse is True and partitioner is None and name in self._partitioned_vars:
                return self._get_partitioned_variable(
                    name, None, shape, dtype, initializer, regularizer, reuse, trainable, collections,
                    caching_device, validate_shape, use_resource, constraint, synchronization, aggregation)
            if f"{name}/part_0" in self._vars:
                raise ValueError(f"No partitioner was provided, but a partitioned version of the variable was found: "
                                 f"{name}/part_0. Perhaps a variable of the same name was already created with "
                                 "partitioning?")
            return self._get_single_variable(
                name, shape, dtype, initializer, regularizer, None, reuse, trainable, collections, caching_device,
                validate_shape, use_resource, constraint, synchronization, aggregation)

        synchronization, aggregation, trainable = _validate_sync_agg_trainable(
            synchronization, aggregation, trainable, name)
        kwargs = dict(name=name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                      reuse=reuse, trainable=trainable, collections=collections, caching_device=caching_device,
                      partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
                      synchronization=synchronization, aggregation=aggregation)
        with self._lock:
            if custom_getter is not None:
                if _accepts(custom_getter, "constraint"):
                    kwargs["constraint"] = constraint
                return custom_getter(getter=_true_getter, **kwargs)
            return _true_getter(constraint=constraint, **kwargs)

    def _get_partitioned_variable(self, name, partitioner, shape, dtype, initializer, regularizer, reuse,
                                  trainable, collections, caching_device, validate_shape, use_resource,
                                  constraint, synchronization, aggregation):
        from_value = initializer is not None and isinstance(initializer, Tensor)
        if name in self._vars:
            raise ValueError(f"A partitioner was provided, but an unpartitioned version of the variable was found: "
                             f"{name}.  Perhaps a variable of the same name was already created without "
                             "partitioning?")
        shape = as_shape(shape)
        if from_value:
            shape = shape.merge_with(initializer.shape)
        partitions = None
        if not reuse or partitioner:
            partitions = _call_partitioner(partitioner, shape, dtype)
        if name in self._partitioned_vars:
            if not reuse:
                raise ValueError(f"Partitioned variable with name {name} already exists. Did you mean to set "
                                 "reuse=True or reuse=tf.AUTO_REUSE in VarScope?")
            existing = self._partitioned_vars[name]
            if not shape.is_compatible_with(existing.get_shape()):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified shape {shape} and "
                                 f"found shape {existing.get_shape()}.")
            if not dtype.is_compatible_with(existing.dtype):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified dtype {dtype.name} and "
                                 f"found dtype {existing.dtype.name}.")
            if partitions is not None and existing._get_partitions() != partitions:
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified partitions "
                                 f"{partitions} and found partitions {existing._get_partitions()}.")
            return existing
        if reuse is True:
            raise ValueError(f"PartitionedVariable {name} does not exist, or was not created with tf.get_variable(). "
                             "Did you mean to set reuse=False or reuse=tf.AUTO_REUSE in VarScope?")
        slice_dim, num_slices = _slice_dim_and_num_slices(partitions)
        if f"{name}/part_0" in self._vars:
            if f"{name}/part_{num_slices - 1}" not in self._vars:
                raise ValueError(f"Partitioner returned a different partitioning than what was already found.  "
                                 f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, but "
                                 f"{name}/part_{num_slices - 1} was not.")
            if f"{name}/part_{num_slices}" in self._vars:
                raise ValueError(f"Partitioner returned a different partitioning than what was already found.  "
                                 f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, but "
                                 f"so was the extra shard {name}/part_{num_slices}.")
        vs = []
        full = shape.as_list()
        for i, (offset, var_shape) in enumerate(_iter_slices(full, num_slices, slice_dim)):
            info = PartitionInfo(full_shape=full, var_offset=offset)
            full_name = f"{name}/part_{i}"
            with name_scope(full_name + "/PartitionedInitializer"):
                if initializer is None:
                    init, init_from_value = _default_initializer(name, dtype)
                    init_shape = None if init_from_value else var_shape
                elif callable(initializer):
                    init, init_shape = initializer, var_shape
                elif isinstance(initializer, Tensor):
                    init = _slice(initializer, offset, var_shape)
                    dtype = init.dtype.base_dtype
                    init_shape = None
                else:
                    init = _slice(convert_to_tensor(initializer, dtype=dtype), offset, var_shape)
                    init_shape = None
            with name_scope(None):
                var = self._get_single_variable(full_name, init_shape, dtype, init, regularizer, info, reuse,
                                                trainable, collections, caching_device, validate_shape,
                                                use_resource, constraint, synchronization, aggregation)
            var._set_save_slice_info(Variable.SaveSliceInfo(name, full, offset, var_shape))
            vs.append(var)
        pv = PartitionedVariable(name=name, shape=shape, dtype=dtype, variable_list=vs, partitions=partitions)
        self._partitioned_vars[name] = pv
        return pv

    def _get_single_variable(self, name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None,
                             partition_info=None, reuse=None, trainable=None, collections=None,
                             caching_device=None, validate_shape=True, use_resource=None, constraint=None,
                             synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
        from_value = initializer is not None and not callable(initializer)
        if shape is not None and from_value:
            raise ValueError("If initializer is a constant, do not specify shape.")
        dtype = dtypes.as_dtype(dtype)
        if shape is not None:
            shape = as_shape(shape)
        if name in self._vars:
            if reuse is False:
                var = self._vars[name]
                msg = (f"Variable {name} already exists, disallowed. Did you mean to set reuse=True or "
                       "reuse=tf.AUTO_REUSE in VarScope?")
                if isinstance(var, ResourceVariable) or not var.op.traceback:
                    raise ValueError(msg)
                tb = var.op.traceback
                raise ValueError(f"{msg} Originally defined at:\n\n"
                                 + "".join(traceback.format_list([(f, ln, fn, src) for f, ln, fn, src in tb])))
            found = self._vars[name]
            if shape is not None and not shape.is_compatible_with(found.get_shape()):
                raise ValueError(f"Trying to share variable {name}, but specified shape {shape} and found shape "
                                 f"{found.get_shape()}.")
            if not dtype.is_compatible_with(found.dtype):
                raise ValueError(f"Trying to share variable {name}, but specified dtype {dtype.name} and found "
                                 f"dtype {found.dtype.name}.")
            return found
        if reuse is True:
            raise ValueError(f"Variable {name} does not exist, or was not created with tf.get_variable(). Did you "
                             "mean to set reuse=tf.AUTO_REUSE in VarScope?")
        if initializer is None:
            initializer, from_value = _default_initializer(name, dtype)
        with control_dependencies(None):
            if from_value:
                init_val, variable_dtype = initializer, None
            else:
                if inspect.isclass(initializer):
                    initializer = initializer()
                if shape is not None and shape.is_fully_defined():
                    if _accepts(initializer, "partition_info"):
                        init_val = functools.partial(initializer, shape.as_list(), dtype=dtype,
                                                     partition_info=partition_info)
                    else:
                        init_val = functools.partial(initializer, shape.as_list(), dtype=dtype)
                    variable_dtype = dtype.base_dtype
                elif _needs_no_arguments(initializer):
                    init_val, variable_dtype = initializer, None
                else:
                    raise ValueError("The initializer passed is not valid. It should be a callable with no arguments "
                                     "and the shape should not be provided or an instance of "
                                     "`tf.keras.initializers.*' and `shape` should be fully defined.")
        if use_resource is None:
            use_resource = modes.resource_variables_by_default()
        v = Variable(initial_value=init_val, name=name, trainable=trainable, collections=collections,
                     caching_device=caching_device, dtype=variable_dtype, validate_shape=validate_shape,
                     constraint=constraint, use_resource=use_resource, synchronization=synchronization,
                     aggregation=aggregation)
        self._vars[name] = v
        if regularizer:
            # TF 2.x: the regularizer runs once here (in the current name
            # scope) to see whether it gives a loss; the collection gets a
            # thunk that builds it in <name>/Regularizer/ on every use.
            def make_regularizer_op():
                with colocate_with(v.op):
                    with name_scope(name + "/Regularizer/"):
                        return regularizer(v)

            if regularizer(v) is not None:
                get_default_graph().add_to_collection(GraphKeys.REGULARIZATION_LOSSES,
                                                      LazyEvalTensor(make_regularizer_op))
        return v


def _needs_no_arguments(fn):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params.values())


def _slice(t, begin, size):
    return array_slice(t, begin, size)


# ---------------------------------------------------------------------------
# VariableScope and the scope store
# ---------------------------------------------------------------------------

class VariableScope:
    """Variable scope object carrying defaults for ``get_variable`` (TF docs, "Variables"
    ``class tf.VariableScope``)."""

    def __init__(self, reuse, name="", initializer=None, regularizer=None, caching_device=None, partitioner=None,
                 custom_getter=None, name_scope="", dtype=dtypes.float32, use_resource=None, constraint=None):
        self._name = name
        self._initializer = initializer
        self._regularizer = regularizer
        self._reuse = reuse
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtypes.as_dtype(dtype) if dtype is not None else dtypes.float32
        self._use_resource = use_resource
        self._constraint = constraint

    name = property(lambda self: self._name, doc="Name of the scope, the prefix of its variables' names.")
    original_name_scope = property(lambda self: self._name_scope, doc="The name scope opened with this scope.")
    name_scope = original_name_scope
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    dtype = property(lambda self: self._dtype)
    use_resource = property(lambda self: self._use_resource)
    regularizer = property(lambda self: self._regularizer)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    constraint = property(lambda self: self._constraint)

    def reuse_variables(self):
        """Reuse variables in this scope."""
        self._reuse = True

    def set_initializer(self, initializer):
        self._initializer = initializer

    def set_dtype(self, dtype):
        self._dtype = dtypes.as_dtype(dtype)

    def set_use_resource(self, use_resource):
        self._use_resource = use_resource

    def set_regularizer(self, regularizer):
        self._regularizer = regularizer

    def set_caching_device(self, caching_device):
        self._caching_device = caching_device

    def set_partitioner(self, partitioner):
        self._partitioner = partitioner

    def set_custom_getter(self, custom_getter):
        self._custom_getter = custom_getter

    def get_collection(self, name):
        """This scope's members of collection ``name``."""
        return get_collection(name, self._name + "/" if self._name else "")

    def trainable_variables(self):
        return self.get_collection(GraphKeys.TRAINABLE_VARIABLES)

    def global_variables(self):
        return self.get_collection(GraphKeys.GLOBAL_VARIABLES)

    def local_variables(self):
        return self.get_collection(GraphKeys.LOCAL_VARIABLES)

    def get_variable(self, var_store, name, shape=None, dtype=None, initializer=None, regularizer=None, reuse=None,
                     trainable=None, collections=None, caching_device=None, partitioner=None, validate_shape=True,
                     use_resource=None, custom_getter=None, constraint=None,
                     synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
        """Gets an existing variable ``<scope>/name`` or creates it, with this scope's defaults."""
        regularizer = self._regularizer if regularizer is None else regularizer
        caching_device = self._caching_device if caching_device is None else caching_device
        partitioner = self._partitioner if partitioner is None else partitioner
        custom_getter = self._custom_getter if custom_getter is None else custom_getter
        reuse = self._reuse if reuse is None else reuse
        use_resource = self._use_resource if use_resource is None else use_resource
        # an empty name uses the scope's own name (TF, for create_partitioned_variables)
        if name is None:
            full_name = self.name
        else:
            full_name = f"{self.name}/{name}" if self.name else name
        with name_scope(None):
            if dtype is not None and initializer is not None and not callable(initializer):
                init_dtype = convert_to_tensor(initializer).dtype.base_dtype
                if init_dtype != dtypes.as_dtype(dtype):
                    raise ValueError(f"Initializer type '<dtype: '{init_dtype.name}'>' and explicit dtype "
                                     f"'<dtype: '{dtypes.as_dtype(dtype).name}'>' don't match.")
            initializer = self._initializer if initializer is None else initializer
            constraint = self._constraint if constraint is None else constraint
            dtype = self._dtype if dtype is None else dtype
            var_store = var_store or default_variable_store()
            return var_store.get_variable(full_name, shape=shape, dtype=dtype, initializer=initializer,
                                          regularizer=regularizer, reuse=reuse, trainable=trainable,
                                          collections=collections, caching_device=caching_device,
                                          partitioner=partitioner, validate_shape=validate_shape,
                                          use_resource=use_resource, custom_getter=custom_getter,
                                          constraint=constraint, synchronization=synchronization,
                                          aggregation=aggregation)

    def _get_partitioned_variable(self, var_store, name, shape=None, dtype=None, initializer=None,
                                  regularizer=None, trainable=True, collections=None, caching_device=None,
                                  partitioner=None, validate_shape=True, use_resource=None, constraint=None,
                                  synchronization=VariableSynchronization.AUTO,
                                  aggregation=VariableAggregation.NONE):
        """The store's partitioned variable, as TF's: straight to the store, without
        ``get_variable``'s initializer/dtype check (a Tensor initializer gives the
        parts its dtype, a NumPy or Python one is converted to ``dtype``) or the
        custom getter (which TF refuses here)."""
        initializer = self._initializer if initializer is None else initializer
        regularizer = self._regularizer if regularizer is None else regularizer
        constraint = self._constraint if constraint is None else constraint
        caching_device = self._caching_device if caching_device is None else caching_device
        partitioner = self._partitioner if partitioner is None else partitioner
        dtype = dtypes.as_dtype(self._dtype if dtype is None else dtype).base_dtype
        use_resource = self._use_resource if use_resource is None else use_resource
        if self._custom_getter is not None:
            raise ValueError("Private access to _get_partitioned_variable is not allowed when a custom getter is "
                             f"set.  Current custom getter: {self._custom_getter}.  It is likely that you're using "
                             "create_partitioned_variables.  If so, consider instead using get_variable with a "
                             "non-empty partitioner parameter instead.")
        if partitioner is None:
            raise ValueError("No partitioner was specified")
        full_name = "/".join(n for n in (self.name, name) if n)
        synchronization, aggregation, trainable = _validate_sync_agg_trainable(
            synchronization, aggregation, trainable, full_name)
        var_store = var_store or default_variable_store()
        with name_scope(None):
            return var_store._get_partitioned_variable(
                full_name, partitioner, shape, dtype, initializer, regularizer, self._reuse, trainable, collections,
                caching_device, validate_shape, use_resource, constraint, synchronization, aggregation)

    def __repr__(self):
        return f"<VariableScope name={self._name!r} reuse={self._reuse!r}>"


class _VariableScopeStore(threading.local):
    """The current scope and how many times each scope name was opened (per thread)."""

    def __init__(self):
        super().__init__()
        self.current_scope = VariableScope(False)
        self.variable_scopes_count = {}

    def open_variable_scope(self, scope_name):
        self.variable_scopes_count[scope_name] = self.variable_scopes_count.get(scope_name, 0) + 1

    def close_variable_subscopes(self, scope_name):
        for k in list(self.variable_scopes_count):
            if scope_name is None or k.startswith(scope_name + "/"):
                self.variable_scopes_count[k] = 0

    def variable_scope_count(self, scope_name):
        return self.variable_scopes_count.get(scope_name, 0)


_VARSTORE_KEY = ("__variable_store",)
_VARSCOPESTORE_KEY = ("__varscope",)


def default_variable_store():
    store = get_collection(_VARSTORE_KEY)
    if store:
        return store[0]
    store = _VariableStore()
    get_default_graph().add_to_collection(_VARSTORE_KEY, store)
    return store


# TF's private spellings (variable_scope.py), which TF's own tests use
_get_default_variable_store = default_variable_store
_PartitionInfo = PartitionInfo


def _get_variable_scope_store():
    store = get_collection(_VARSCOPESTORE_KEY)
    if store:
        return store[0]
    store = _VariableScopeStore()
    get_default_graph().add_to_collection(_VARSCOPESTORE_KEY, store)
    return store


def get_variable_scope():
    """Returns the current variable scope."""
    return _get_variable_scope_store().current_scope


def _get_unique_variable_scope(prefix):
    store = _get_variable_scope_store()
    current = get_variable_scope()
    name = f"{current.name}/{prefix}" if current.name else prefix
    if store.variable_scope_count(name) == 0:
        return prefix
    idx = 1
    while store.variable_scope_count(f"{name}_{idx}") > 0:
        idx += 1
    return f"{prefix}_{idx}"


def _maybe_wrap_custom_getter(custom_getter, old_getter):
    if old_getter is None:
        return custom_getter

    def wrapped(getter, *args, **kwargs):
        return custom_getter(functools.partial(old_getter, getter), *args, **kwargs)

    return wrapped


class _pure_variable_scope:  # noqa: N801  (TF's name)
    """Sets the current VariableScope (no name scope): a new one named
    ``parent/name`` or a copy of a captured VariableScope object."""

    def __init__(self, name_or_scope, reuse=None, initializer=None, regularizer=None, caching_device=None,
                 partitioner=None, custom_getter=None, old_name_scope=None, dtype=dtypes.float32,
                 use_resource=None, constraint=None):
        self._name_or_scope = name_or_scope
        self._reuse = reuse
        self._args = dict(initializer=initializer, regularizer=regularizer, caching_device=caching_device,
                          partitioner=partitioner, dtype=dtype, use_resource=use_resource, constraint=constraint)
        self._custom_getter = custom_getter
        self._old_name_scope = old_name_scope
        self._store = _get_variable_scope_store()
        self._last_object = None
        if isinstance(name_or_scope, VariableScope):
            self._new_name = name_or_scope.name
            s = name_or_scope
            obj = VariableScope(s.reuse if not reuse else reuse, name=self._new_name, initializer=s.initializer,
                                regularizer=s.regularizer, caching_device=s.caching_device,
                                partitioner=s.partitioner, dtype=s.dtype, custom_getter=s.custom_getter,
                                name_scope=s._name_scope, use_resource=s.use_resource, constraint=s.constraint)
            self._apply_args(obj, s.custom_getter)
            self._cached = obj

    def _apply_args(self, obj, old_getter):
        a = self._args
        if a["initializer"] is not None:
            obj.set_initializer(a["initializer"])
        if a["regularizer"] is not None:
            obj.set_regularizer(a["regularizer"])
        if a["caching_device"] is not None:
            obj.set_caching_device(a["caching_device"])
        if a["partitioner"] is not None:
            obj.set_partitioner(a["partitioner"])
        if self._custom_getter is not None:
            obj.set_custom_getter(_maybe_wrap_custom_getter(self._custom_getter, old_getter))
        if a["dtype"] is not None:
            obj.set_dtype(a["dtype"])
        if a["use_resource"] is not None:
            obj.set_use_resource(a["use_resource"])
        if a["constraint"] is not None:
            obj._constraint = a["constraint"]

    def __enter__(self):
        self._old = self._store.current_scope
        if isinstance(self._name_or_scope, VariableScope):
            self._store.open_variable_scope(self._new_name)
            self._old_subscopes = copy.copy(self._store.variable_scopes_count)
            obj = self._cached
        else:
            old = self._old
            self._new_name = f"{old.name}/{self._name_or_scope}" if old.name else self._name_or_scope
            reuse = self._reuse or old.reuse
            ns = self._name_or_scope if self._old_name_scope is None else self._old_name_scope
            obj = VariableScope(reuse, name=self._new_name, initializer=old.initializer, regularizer=old.regularizer,
                                caching_device=old.caching_device, partitioner=old.partitioner, dtype=old.dtype,
                                use_resource=old.use_resource, custom_getter=old.custom_getter, name_scope=ns,
                                constraint=old.constraint)
            self._apply_args(obj, old.custom_getter)
            self._store.open_variable_scope(self._new_name)
        self._store.current_scope = obj
        self._last_object = obj
        return obj

    def __exit__(self, *exc):
        if isinstance(self._name_or_scope, VariableScope):
            self._store.variable_scopes_count = self._old_subscopes
        else:
            self._store.close_variable_subscopes(self._new_name)
        self._store.current_scope = self._old


class variable_scope:  # noqa: N801  (TF's name)
    """A context manager for defining ops that create variables (layers): it
    validates that ``values`` are from one graph, makes that graph the default,
    and pushes a name scope and a variable scope (TF's API reference
    ``tf.compat.v1.variable_scope``)."""

    def __init__(self, name_or_scope, default_name=None, values=None, initializer=None, regularizer=None,
                 caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                 use_resource=None, constraint=None, auxiliary_name_scope=True):
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._values = values if values is not None else []
        self._kw = dict(initializer=initializer, regularizer=regularizer, caching_device=caching_device,
                        partitioner=partitioner, custom_getter=custom_getter, dtype=dtype, use_resource=use_resource,
                        constraint=constraint)
        self._reuse = None if reuse is False else reuse
        self._auxiliary_name_scope = auxiliary_name_scope
        if default_name is None and name_or_scope is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if not (self._reuse is True or self._reuse is None or self._reuse is AUTO_REUSE):
            raise ValueError("The reuse parameter must be True or False or None.")
        if not isinstance(auxiliary_name_scope, bool):
            raise TypeError(f"The auxiliary_name_scope must be `True` or `False`, while get {auxiliary_name_scope}")
        self._graph = graph_of(self._values)
        self._stack = []

    def __enter__(self):
        graph_ctx = self._graph.as_default()
        graph_ctx.__enter__()
        try:
            ns_ctx, pure = self._enter_scope()
        except BaseException:
            graph_ctx.__exit__(None, None, None)
            raise
        self._stack.append((graph_ctx, ns_ctx, pure))
        return pure._last_object

    def _enter_scope(self):
        g = self._graph
        if self._auxiliary_name_scope:
            ns_ctx = None
        else:
            current = g.get_name_scope()
            ns_ctx = g.name_scope(current + "/" if current else "")
        if self._name_or_scope is not None:
            if not isinstance(self._name_or_scope, (VariableScope, str)):
                raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
            if isinstance(self._name_or_scope, str):
                ns_name = self._name_or_scope
            else:
                ns_name = self._name_or_scope.name.split("/")[-1]
            if ns_name or ns_ctx is not None:
                ns_ctx = ns_ctx or g.name_scope(ns_name)
                entered = ns_ctx.__enter__()
                old_ns = entered if isinstance(self._name_or_scope, str) else \
                    self._name_or_scope.original_name_scope
            else:
                ns_ctx, old_ns = None, None
            pure = _pure_variable_scope(self._name_or_scope, reuse=self._reuse, old_name_scope=old_ns, **self._kw)
        else:
            if self._reuse:
                raise ValueError("reuse=True cannot be used without a name_or_scope")
            ns_ctx = ns_ctx or g.name_scope(self._default_name)
            entered = ns_ctx.__enter__()
            unique = _get_unique_variable_scope(self._default_name)
            pure = _pure_variable_scope(unique, old_name_scope=entered, **self._kw)
        try:
            pure.__enter__()
        except BaseException:
            if ns_ctx is not None:
                ns_ctx.__exit__(None, None, None)
            raise
        return ns_ctx, pure

    def __exit__(self, type_arg, value_arg, traceback_arg):
        graph_ctx, ns_ctx, pure = self._stack[-1]
        if pure._store.current_scope is not pure._last_object:  # TF's check (this scope stays open)
            raise RuntimeError("Improper nesting of variable_scope.")
        self._stack.pop()
        try:
            pure.__exit__(type_arg, value_arg, traceback_arg)
        finally:
            try:
                if ns_ctx is not None:
                    ns_ctx.__exit__(type_arg, value_arg, traceback_arg)
            finally:
                graph_ctx.__exit__(type_arg, value_arg, traceback_arg)
        return False


@contextlib.contextmanager
def variable_op_scope(values, name_or_scope, default_name=None, initializer=None, regularizer=None,
                      caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                      use_resource=None, constraint=None):
    """Deprecated: ``variable_scope(name_or_scope, default_name, values, ...)``."""
    with variable_scope(name_or_scope, default_name=default_name, values=values, initializer=initializer,
                        regularizer=regularizer, caching_device=caching_device, partitioner=partitioner,
                        custom_getter=custom_getter, reuse=reuse, dtype=dtype, use_resource=use_resource,
                        constraint=constraint) as scope:
        yield scope


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None,
                 collections=None, caching_device=None, partitioner=None, validate_shape=True, use_resource=None,
                 custom_getter=None, constraint=None, synchronization=VariableSynchronization.AUTO,
                 aggregation=VariableAggregation.NONE):
    """Gets an existing variable with these parameters or creates a new one
    (TF docs, "Variables" ``tf.get_variable``): the name is prefixed with the current
    variable scope and reuse is checked. The default initializer is the
    scope's, else glorot_uniform for floats and zeros for integers, bools and
    strings."""
    return get_variable_scope().get_variable(
        default_variable_store(), name, shape=shape, dtype=dtype, initializer=initializer,
        regularizer=regularizer, trainable=trainable, collections=collections, caching_device=caching_device,
        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
        custom_getter=custom_getter, constraint=constraint, synchronization=synchronization,
        aggregation=aggregation)


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=False,
                       collections=None, caching_device=None, partitioner=None, validate_shape=True,
                       use_resource=None, custom_getter=None, constraint=None,
                       synchronization=VariableSynchronization.AUTO, aggregation=VariableAggregation.NONE):
    """``get_variable`` into ``GraphKeys.LOCAL_VARIABLES`` (never trainable)."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
                        trainable=False, collections=collections, caching_device=caching_device,
                        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
                        custom_getter=custom_getter, constraint=constraint, synchronization=synchronization,
                        aggregation=aggregation)


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Within it, ``Variable(...)`` calls ``variable_creator(next_creator, **kwargs)``
    (innermost creator first; ``next_creator`` continues down the stack)."""
    graph = get_default_graph()
    old = _creator_stack(graph)
    new = old + [variable_creator]
    graph._variable_creator_stack = new
    try:
        yield
    finally:
        if graph._variable_creator_stack is not new:  # TF's check
            raise RuntimeError("Exiting variable_creator_scope without proper nesting.")
        graph._variable_creator_stack = old


def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32, trainable=True,
                                 collections=None, name=None, reuse=None):
    """Deprecated: a list of variables, slices of one ``shape``-shaped variable
    cut ``slicing[i]`` times along each axis."""
    if len(shape) != len(slicing):
        raise ValueError(f"The 'shape' and 'slicing' of a partitioned Variable must have the length: "
                         f"shape: {shape}, slicing: {slicing}")
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")
    partitioner = lambda **unused: list(slicing)  # noqa: E731
    with variable_scope(name, "PartitionedVariable", reuse=reuse):
        pv = get_variable_scope()._get_partitioned_variable(
            default_variable_store(), None, shape=shape, dtype=dtype, initializer=initializer,
            trainable=trainable, partitioner=partitioner, collections=collections)
    return list(pv)
