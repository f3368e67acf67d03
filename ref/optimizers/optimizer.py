"""``tf.train.Optimizer``: the base class of the TF1 optimizers.

TF docs, "Training" "class
tf.train.Optimizer", "Gating Gradients", "Slots"; TF's API reference
``tf.compat.v1.train.Optimizer``: "This class defines the API to add Ops to
train a model. You never use this class directly, but instead instantiate one
of its subclasses".

``minimize`` = ``compute_gradients`` + ``apply_gradients``. ``apply_gradients``
creates the slots (outside any control dependency), opens the name scope
``name`` (default: the optimizer's name), calls ``_prepare`` (hyperparameters
become Tensors), and for each variable with a gradient, inside
``update_<var>`` and colocated with the variable, adds the update:

* a dense gradient: ``_apply_dense`` (ref variable: ``Apply*``) or
  ``_resource_apply_dense`` (resource variable: ``ResourceApply*``);
* an ``IndexedSlices`` gradient: duplicate indices are summed first
  (``unique`` + ``unsorted_segment_sum``), then ``_apply_sparse`` /
  ``_resource_apply_sparse`` (``SparseApply*`` / ``ResourceSparseApply*``).

``_finish`` groups the updates; with ``global_step`` the op returned is an
``assign_add(global_step, 1)`` that runs after them, named ``name``, and it
is added to ``GraphKeys.TRAIN_OP``.

The lifecycle is written once, here; an algorithm's class declares what it
is made of and overrides only what is its own (Adam's sparse update from
scatter ops and its ``beta_power`` updates in ``_finish``, FTRL's ``beta``,
AdagradDA's global step)::

    class MomentumOptimizer(Optimizer):
        _kernel = "Momentum"                         # [Resource][Sparse]ApplyMomentum
        _slot_specs = (Slot("accum", "momentum"),)   # input accum: the slot <var>/Momentum, zeros
        _hyperparameters = (Hyperparameter("lr", "_learning_rate", "learning_rate"),
                            Hyperparameter("momentum", "_momentum", "momentum"))
        _kernel_attrs = ("use_nesterov",)            # the attr, from self._use_nesterov

        def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                     use_nesterov=DEFAULTS["use_nesterov"]):
            super().__init__(use_locking, name)
            self._learning_rate, self._momentum, self._use_nesterov = learning_rate, momentum, use_nesterov

* ``_create_slots``: the non-slot variables (:class:`NonSlot`, next to the
  variable whose name sorts first), then each variable's slots (:class:`Slot`:
  zeros, a colocated constant, or an initializer, as TF's class makes them);
* ``_prepare``: each :class:`Hyperparameter` becomes a Tensor with TF's name;
* ``_apply_dense`` / ``_resource_apply_dense`` / ``_apply_sparse`` /
  ``_resource_apply_sparse``: the kernel ``[Resource][Sparse]Apply<_kernel>``
  with the variable, its slots, the non-slot variables and the hyperparameters
  cast to the variable's dtype (:meth:`Optimizer._kernel_args`);
* ``_finish``: the updates grouped.

The formulas, kernels and the pure functional forms (``init`` / ``step``) are
in :mod:`ref.ops.training`; its helpers :func:`hyper` and :func:`tree_map`
are importable from here too.
"""
from __future__ import annotations

from typing import NamedTuple

from ref.framework.graph import (
    GraphKeys,
    Tensor,
    colocate_with,
    control_dependencies,
    get_collection,
    get_collection_ref,
    get_default_graph,
    name_scope,
)
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor, convert_to_tensor_or_indexed_slices
from ref.grad.gradients import gradients
from ref.graph_ops import array_ops, control_flow_ops, distribute_lib, state_ops
from ref.graph_ops.resource_variable_ops import ResourceVariable
from ref.graph_ops.variables import Variable
from ref.ops.training.functional import apply_leaves, hyper, leaves, pick, tree_map  # noqa: F401  (re-exported)
from ref.optimizers import slots
from ref.types import dtypes, nest

__all__ = ["Optimizer", "Hyperparameter", "Slot", "NonSlot"]


def _var_key(var):
    """Slots are keyed by (graph, op name) of the variable."""
    return (var.op.graph, var.op.name)


def _is_resource(v) -> bool:
    return isinstance(v, ResourceVariable)


def _check_optimizable(v):
    """TF's ``_get_processor``: Variables (ref or resource) and Tensors only."""
    if not isinstance(v, (Variable, Tensor)):
        raise TypeError(f"Trying to optimize unsupported type {v!r}: var_list entries must be Variables")


def cast(x, dtype, name=None):
    """``math_ops.cast``: ``x`` unchanged when it already has ``dtype``; a Python
    value becomes a Tensor first (a float is float32), then a ``Cast``."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, (Tensor, ResourceVariable)) and x.dtype.base_dtype == dtype:
        return x
    with name_scope(name, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype != dtype:
            x = apply_op("Cast", x=x, DstT=dtype, name=scope)
        return x


def deduplicate_indexed_slices(values, indices):
    """``(summed_values, unique_indices)``: rows with the same index added up
    (in index order), indices in first-seen order."""
    unique_indices, new_index_positions = array_ops.unique(indices)
    summed_values = array_ops.unsorted_segment_sum(values, new_index_positions,
                                                   array_ops.shape(unique_indices)[0])
    return summed_values, unique_indices


class Hyperparameter(NamedTuple):
    """The kernel's input ``input``: the constructor's value, kept as ``self.<attr>``,
    converted in ``_prepare`` to a Tensor named ``tensor`` and cast to the variable's
    dtype at each update (``tensor=None``: no Tensor; the Python value is cast at
    each update, as TF's AdagradDA does for l1/l2). ``when``: the name of a boolean
    attribute; the kernel gets this input only while it is true."""
    input: str
    attr: str
    tensor: str | None
    when: str | None = None


class Slot(NamedTuple):
    """The kernel's input ``input``: the variable's slot ``name`` (``get_slot(var,
    name)``), a variable named ``<var>/<op_name>`` -- ``op_name`` names the attribute
    holding it (FTRL's ``accum_name``), else the optimizer's name. Initial value, as
    TF's class makes it: zeros; ``value`` (a number, or the attribute holding it) as
    a constant colocated with the variable; or the initializer ``initializer``
    (a method name) returns for the variable. ``when`` as for :class:`Hyperparameter`."""
    input: str
    name: str
    value: float | str | None = None
    initializer: str | None = None
    when: str | None = None
    op_name: str | None = None


class NonSlot(NamedTuple):
    """The kernel's input ``name``: the non-slot variable ``name`` (one per graph),
    initialized to ``self.<attr>`` (Adam's ``beta1_power`` starts at ``beta1``)."""
    name: str
    attr: str


class Optimizer:
    """Base class for optimizers (TF's API reference ``tf.compat.v1.train.Optimizer(use_locking, name)``)."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    # -- what an algorithm's class declares (see the module docstring) --------------------
    _kernel = None
    """TF's kernel name: ``"Adam"`` runs ``ApplyAdam``, ``ResourceApplyAdam``, ``SparseApplyAdam``..."""
    _hyperparameters = ()
    """The :class:`Hyperparameter` declarations, in the order TF's class casts them."""
    _slot_specs = ()
    """The :class:`Slot` declarations, in the order TF's class creates them."""
    _non_slot_specs = ()
    """The :class:`NonSlot` declarations, in the order TF's class creates them."""
    _kernel_attrs = ()
    """Kernel attrs passed from ``self._<attr>`` (Momentum's ``use_nesterov``)."""
    _dense_grad = "grad"
    """The dense kernel's name for the gradient (``ApplyGradientDescent``: ``delta``)."""
    _call_callables = True
    """Whether ``_prepare`` calls callable hyperparameters (TF's Proximal*, AdagradDA and Ftrl do not)."""

    def __init__(self, use_locking, name):
        """``use_locking``: use locks for the updates; ``name``: a non-empty string,
        the name of the accumulators (ValueError if empty)."""
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}           # slot name -> {_var_key(var): slot variable}
        self._non_slot_dict = {}   # (name, graph) -> variable
        self._tensors = {}         # kernel input -> the hyperparameter's Tensor (_prepare)

    def get_name(self):
        return self._name

    # -- minimize = compute_gradients + apply_gradients --------------------------------
    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                 colocate_gradients_with_ops=False, name=None, grad_loss=None):
        """Adds ops to minimize ``loss`` by updating ``var_list``; returns the train op
        (which also increments ``global_step`` if given)."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients, aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not support "
                "gradients, between variables %s and loss %s." % ([str(v) for _, v in grads_and_vars], loss))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """``[(gradient, variable), ...]`` of ``loss`` for ``var_list`` (default: the
        trainable variables and the trainable resource variables); a gradient is a
        Tensor, an IndexedSlices or None."""
        if callable(loss):
            loss = loss()
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                             "Optimizer.GATE_GRAPH.  Not %s" % gate_gradients)
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = (get_collection(GraphKeys.TRAINABLE_VARIABLES)
                        + get_collection(GraphKeys.TRAINABLE_RESOURCE_VARIABLES))
        else:
            var_list = nest.flatten(var_list)
        var_list = list(var_list) + get_collection(GraphKeys._STREAMING_MODEL_PORTS)
        for v in var_list:
            _check_optimizable(v)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list, grad_ys=grad_loss,
                          gate_gradients=(gate_gradients == Optimizer.GATE_OP),
                          aggregation_method=aggregation_method,
                          colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = control_flow_ops.tuple(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars
                                   if g is not None and v.dtype.base_dtype != dtypes.resource])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """An op applying the gradients (and incrementing ``global_step`` after the
        updates when given). TypeError if ``grads_and_vars`` is malformed, ValueError
        if no variable has a gradient; RuntimeError in a strategy's cross-replica
        context (a replica's update applies there: ref's strategies have one replica)."""
        if distribute_lib.has_strategy() and distribute_lib.in_cross_replica_context():
            raise RuntimeError("Use `_distributed_apply()` instead of `apply_gradients()` in a cross-replica "
                               "context.")
        try:
            grads_and_vars = tuple(grads_and_vars)
        except TypeError:
            raise TypeError(f"grads_and_vars must be a list of (gradient, variable) pairs: {grads_and_vars!r}") \
                from None
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        converted = []
        for pair in grads_and_vars:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"grads_and_vars must be a list of (gradient, variable) pairs, got {pair!r}")
            g, v = pair
            if g is not None:
                try:
                    g = convert_to_tensor_or_indexed_slices(g)
                except (TypeError, ValueError):
                    raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, or None: %s"
                                    % (g,)) from None
                if not isinstance(g, (Tensor, IndexedSlices)):
                    raise TypeError("Gradient must be a Tensor, IndexedSlices, or None: %s" % (g,))
            _check_optimizable(v)
            converted.append((g, v))
        var_list = [v for g, v in converted if g is not None]
        if not var_list:
            raise ValueError("No gradients provided for any variable: %s." % ([str(v) for _, v in converted],))
        with control_dependencies(None):  # TF's init_scope: slots never depend on the step
            self._create_slots(var_list)
        update_ops = []
        with name_scope(name, self._name) as name:
            self._prepare()
            for grad, var in converted:
                if grad is None:
                    continue
                with name_scope("update_" + var.op.name), colocate_with(var.op):
                    update_ops.append(self._update_op(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, name)
            else:
                with control_dependencies([self._finish(update_ops, "update")]):
                    with colocate_with(global_step.op):
                        apply_updates = _increment(global_step, name)
            if isinstance(apply_updates, Tensor):
                apply_updates = apply_updates.op
            train_op = get_collection_ref(GraphKeys.TRAIN_OP)
            if apply_updates not in train_op:
                train_op.append(apply_updates)
            return apply_updates

    def _update_op(self, grad, var):
        """Dense gradient -> (Resource)Apply*; IndexedSlices -> duplicates summed, then
        (Resource)SparseApply* (TF's variable processors)."""
        if isinstance(var, Tensor) and var.dtype.base_dtype != dtypes.resource:
            raise NotImplementedError(f"Trying to update a Tensor {var!r}")
        constraint = getattr(var, "constraint", None)
        if isinstance(grad, Tensor):
            op = self._resource_apply_dense(grad, var) if _is_resource(var) else self._apply_dense(grad, var)
            if constraint is not None:
                with control_dependencies([op]):
                    return var.assign(constraint(var))
            return op
        if constraint is not None:
            raise RuntimeError("Cannot use a constraint function on a sparse variable.")
        if _is_resource(var):
            return self._resource_apply_sparse_duplicate_indices(grad.values, var, grad.indices)
        return self._apply_sparse_duplicate_indices(grad, var)

    # -- slots --------------------------------------------------------------------------
    def get_slot(self, var, name):
        """The slot ``name`` created for ``var``, or None."""
        named_slots = self._slots.get(name)
        if not named_slots:
            return None
        return named_slots.get(_var_key(var))

    def get_slot_names(self):
        """The sorted names of the slots this optimizer created."""
        return sorted(self._slots.keys())

    def variables(self):
        """Slot and non-slot variables of this optimizer in the default graph, sorted by name."""
        graph = get_default_graph()
        out = [v for v in self._non_slot_dict.values() if v.op.graph is graph]
        for named in self._slots.values():
            out.extend(s for s in named.values() if s.op.graph is graph)
        return sorted(out, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _zeros_slot(self, var, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = slots.create_zeros_slot(var, op_name)
        return named[_var_key(var)]

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = slots.create_slot(var, val, op_name)
        return named[_var_key(var)]

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name, op_name):
        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = slots.create_slot_with_initializer(var, initializer, shape, dtype, op_name)
        return named[_var_key(var)]

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        """A variable not tied to one trained variable (Adam's ``beta1_power``), one per graph."""
        graph = colocate_with.op.graph
        key = (name, graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            with graph.as_default(), colocate_with_op(colocate_with):
                v = Variable(initial_value, name=name, trainable=False, use_resource=_is_resource(colocate_with))
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        return self._non_slot_dict.get((name, graph))

    def _non_slot_variables(self):
        return self._non_slot_dict.values()

    # -- the lifecycle, driven by the class's declarations ----------------------------------
    def _declared(self, specs):
        """The declared slots / hyperparameters this instance uses (``when`` true or absent)."""
        return [s for s in specs if s.when is None or getattr(self, s.when)]

    def _create_slots(self, var_list):
        """TF's order: the non-slot variables (next to the variable whose name sorts
        first), then for each variable its slots' initial values and its slots."""
        if self._non_slot_specs:
            first_var = min(var_list, key=lambda x: x.name)
            for n in self._non_slot_specs:
                self._create_non_slot_variable(initial_value=getattr(self, n.attr), name=n.name,
                                               colocate_with=first_var)
        specs = self._declared(self._slot_specs)
        for v in var_list:
            initial = [self._slot_initial(v, s) for s in specs]
            for s, init in zip(specs, initial):
                op_name = (getattr(self, s.op_name) if s.op_name else None) or self._name
                if s.initializer is not None:
                    self._get_or_make_slot_with_initializer(v, init, v.get_shape(), v.dtype.base_dtype, s.name,
                                                            op_name)
                elif s.value is not None:
                    self._get_or_make_slot(v, init, s.name, op_name)
                else:
                    self._zeros_slot(v, s.name, op_name)

    def _slot_initial(self, var, slot):
        """The initializer (``slot.initializer``'s method) or the colocated constant
        (``slot.value``: a number or the attribute holding it) of ``var``'s slot."""
        if slot.initializer is not None:
            return getattr(self, slot.initializer)(var)
        if slot.value is None:
            return None
        value = getattr(self, slot.value) if isinstance(slot.value, str) else slot.value
        with colocate_with(var.op):
            return constant(value, shape=var.get_shape(), dtype=var.dtype.base_dtype)

    def _prepare(self):
        """Each hyperparameter as a Tensor named as TF names it (called first if
        callable, where TF's class does that)."""
        for h in self._hyperparameters:
            if h.tensor is not None:
                value = getattr(self, h.attr)
                self._tensors[h.input] = convert_to_tensor(
                    self._call_if_callable(value) if self._call_callables else value, name=h.tensor)

    def _kernel_args(self, var, dtype):
        """The kernel's inputs for ``var``: the variable, its slots, the non-slot
        variables and the hyperparameters cast to ``dtype``, the attrs."""
        args = {"var": var}
        for s in self._declared(self._slot_specs):
            args[s.input] = self.get_slot(var, s.name)
        if self._non_slot_specs:
            graph = get_default_graph()
            for n in self._non_slot_specs:
                args[n.name] = cast(self._get_non_slot_variable(n.name, graph=graph), dtype)
        for h in self._declared(self._hyperparameters):
            args[h.input] = cast(self._tensors[h.input] if h.tensor is not None else getattr(self, h.attr), dtype)
        for a in self._kernel_attrs:
            args[a] = getattr(self, "_" + a)
        args["use_locking"] = self._use_locking
        return args

    def _op_type(self, prefix):
        if self._kernel is None:
            raise NotImplementedError(f"{type(self).__name__} declares no training kernel")
        return prefix + self._kernel

    def _apply_dense(self, grad, var):
        """``Apply<kernel>`` on a ref variable."""
        return apply_op(self._op_type("Apply"), **{self._dense_grad: grad}, **self._kernel_args(var, var.dtype)).op

    def _resource_apply_dense(self, grad, var):
        """``ResourceApply<kernel>`` on a resource variable."""
        return apply_op(self._op_type("ResourceApply"), **{self._dense_grad: grad},
                        **self._kernel_args(var, grad.dtype))

    def _apply_sparse(self, grad, var):
        """``SparseApply<kernel>``: rows ``grad.indices`` (unique) of a ref variable."""
        return apply_op(self._op_type("SparseApply"), grad=grad.values, indices=grad.indices,
                        **self._kernel_args(var, var.dtype)).op

    def _resource_apply_sparse(self, grad, var, indices):
        """``ResourceSparseApply<kernel>``: rows ``indices`` (unique) of a resource variable."""
        return apply_op(self._op_type("ResourceSparseApply"), grad=grad, indices=indices,
                        **self._kernel_args(var, grad.dtype))

    def _apply_sparse_duplicate_indices(self, grad, var):
        summed, unique = deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(summed, unique, grad.dense_shape), var)

    def _resource_apply_sparse_duplicate_indices(self, grad, handle, indices):
        summed, unique = deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed, handle, unique)

    def _finish(self, update_ops, name_scope):
        return control_flow_ops.group(*update_ops, name=name_scope)

    # -- helpers ----------------------------------------------------------------------------
    @staticmethod
    def _call_if_callable(param):
        return param() if callable(param) else param

    def _valid_dtypes(self):
        return {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64}

    def _assert_valid_dtypes(self, tensors):
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                raise ValueError("Invalid type %r for %s, expected: %s." % (
                    dtype, t.name, [v for v in _VALID_ORDER if v in valid]))


_VALID_ORDER = (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.bfloat16)  # TF's message order


def colocate_with_op(v):
    return colocate_with(v.op)


def _increment(global_step, name):
    """``global_step += 1`` named ``name`` (AssignAdd, or AssignAddVariableOp for a
    resource variable)."""
    if _is_resource(global_step):
        return apply_op("AssignAddVariableOp", resource=global_step.handle,
                        value=convert_to_tensor(1, dtype=global_step.dtype), name=name)
    return state_ops.assign_add(global_step, 1, name=name)
