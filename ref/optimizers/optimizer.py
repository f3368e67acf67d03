"""``tf.train.Optimizer``: the base class of the TF1 optimizers.

Seeds: 001_05ea92376fdb369e.txt / 004_96791d6311aaba71.txt "class
tf.train.Optimizer", "Gating Gradients", "Slots"; 002_05f9b9b98e89c771.txt
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

Subclasses implement ``_create_slots``, ``_prepare``, ``_apply_dense``,
``_resource_apply_dense``, ``_apply_sparse``, ``_resource_apply_sparse``
(and may override ``_finish``). The pure functional forms (``init`` /
``step`` at the end of each algorithm module) share :func:`hyper` and
:func:`tree_map` from here.
"""
from __future__ import annotations

import numpy as np

from ref import dtypes
from ref.graph import (GraphKeys, IndexedSlices, Tensor, apply_op, colocate_with,
                       control_dependencies, convert_to_tensor, convert_to_tensor_or_indexed_slices,
                       get_collection, get_collection_ref, get_default_graph, name_scope)

__all__ = ["Optimizer"]


def _var_key(var):
    """Slots are keyed by (graph, op name) of the variable."""
    return (var.op.graph, var.op.name)


def _is_resource(v) -> bool:
    from ref.variables import ResourceVariable

    return isinstance(v, ResourceVariable)


def _check_optimizable(v):
    """TF's ``_get_processor``: Variables (ref or resource) and Tensors only."""
    from ref.variables import Variable

    if not isinstance(v, (Variable, Tensor)):
        raise TypeError(f"Trying to optimize unsupported type {v!r}: var_list entries must be Variables")


def cast(x, dtype, name=None):
    """``math_ops.cast``: ``x`` unchanged when it already has ``dtype``; a Python
    value becomes a Tensor first (a float is float32), then a ``Cast``."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    from ref.variables import ResourceVariable

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
    from ref.api import array_ops

    unique_indices, new_index_positions = array_ops.unique(indices)
    summed_values = array_ops.unsorted_segment_sum(values, new_index_positions,
                                                   array_ops.shape(unique_indices)[0])
    return summed_values, unique_indices


class Optimizer:
    """Base class for optimizers (seed 002 ``tf.compat.v1.train.Optimizer(use_locking, name)``)."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        """``use_locking``: use locks for the updates; ``name``: a non-empty string,
        the name of the accumulators (ValueError if empty)."""
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}           # slot name -> {_var_key(var): slot variable}
        self._non_slot_dict = {}   # (name, graph) -> variable

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
        from ref import nest
        from ref.grad.gradients import gradients

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
            from ref.api.control_flow_ops import tuple as tf_tuple

            grads = tf_tuple(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes([v for g, v in grads_and_vars
                                   if g is not None and v.dtype.base_dtype != dtypes.resource])
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """An op applying the gradients (and incrementing ``global_step`` after the
        updates when given). TypeError if ``grads_and_vars`` is malformed, ValueError
        if no variable has a gradient."""
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
        for slots in self._slots.values():
            out.extend(s for s in slots.values() if s.op.graph is graph)
        return sorted(out, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _zeros_slot(self, var, slot_name, op_name):
        from ref.optimizers import slots

        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = slots.create_zeros_slot(var, op_name)
        return named[_var_key(var)]

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        from ref.optimizers import slots

        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = slots.create_slot(var, val, op_name)
        return named[_var_key(var)]

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name, op_name):
        from ref.optimizers import slots

        named = self._slot_dict(slot_name)
        if _var_key(var) not in named:
            named[_var_key(var)] = slots.create_slot_with_initializer(var, initializer, shape, dtype, op_name)
        return named[_var_key(var)]

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        """A variable not tied to one trained variable (Adam's ``beta1_power``), one per graph."""
        from ref.variables import Variable

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

    # -- what subclasses provide ----------------------------------------------------------
    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _resource_apply_dense(self, grad, handle):
        raise NotImplementedError()

    def _apply_sparse(self, grad, var):
        raise NotImplementedError()

    def _resource_apply_sparse(self, grad, handle, indices):
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad, var):
        summed, unique = deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(summed, unique, grad.dense_shape), var)

    def _resource_apply_sparse_duplicate_indices(self, grad, handle, indices):
        summed, unique = deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed, handle, unique)

    def _finish(self, update_ops, name_scope):
        from ref.api.control_flow_ops import group

        return group(*update_ops, name=name_scope)

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
    from ref.api.state_ops import assign_add

    return assign_add(global_step, 1, name=name)


# -- the pure functional forms -----------------------------------------------------------

def pick(structure, tree, i):
    """Element ``i`` of each tuple leaf of ``tree`` (shaped like ``structure``)."""
    if isinstance(structure, dict):
        return {k: pick(structure[k], tree[k], i) for k in structure}
    if isinstance(structure, (list, tuple)):
        return type(structure)(pick(s, t, i) for s, t in zip(structure, tree))
    return tree[i]


def apply_leaves(update, params, grads, *slot_trees):
    """``(new_params, new_slot_tree, ...)``: ``update(var, grad, *slots) -> (var,
    *slots)`` on every leaf; a None gradient leaves the variable and its slots as
    they are (as ``apply_gradients`` skips it)."""
    def one(p, g, *s):
        if g is None:
            return (p, *s)
        return update(np.asarray(p), np.asarray(g), *s)

    results = tree_map(one, params, grads, *slot_trees)
    return tuple(pick(params, results, i) for i in range(1 + len(slot_trees)))


def tree_map(fn, *trees):
    """``fn`` over matching leaves of dicts / lists / tuples of arrays (None leaves
    of the first tree pass through as None)."""
    first = trees[0]
    if isinstance(first, dict):
        return {k: tree_map(fn, *(t[k] for t in trees)) for k in first}
    if isinstance(first, (list, tuple)) and not hasattr(first, "_fields"):
        return type(first)(tree_map(fn, *leaves) for leaves in zip(*trees))
    return fn(*trees)


def leaves(tree):
    """The leaves of ``tree`` in ``tree_map`` order."""
    if isinstance(tree, dict):
        return [x for k in tree for x in leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [x for t in tree for x in leaves(t)]
    return [tree]


def hyper(value, dtype=None):
    """A hyperparameter as the graph path sees it: called if callable, converted as
    ``convert_to_tensor`` would (a Python float is float32, an int int32), then cast to
    ``dtype`` (the variable's) -- so ``learning_rate=0.1`` for a float64 variable is
    ``float64(float32(0.1))``, as in TensorFlow."""
    if callable(value):
        value = value()
    a = np.asarray(value)
    if isinstance(value, (float, int)) and not isinstance(value, (bool, np.generic)):
        a = a.astype(np.float32) if isinstance(value, float) else a.astype(np.int32)
    if dtype is not None:
        a = a.astype(np.dtype(dtype))
    return a[()]
