"""``tf.keras.optimizers`` in graph mode: tf_keras' legacy ``OptimizerV2``
(``SGD``, ``Adam``, ``RMSprop``) and ``TFOptimizer`` (a ``tf.train``
optimizer inside ``compile``).

The hyperparameters are variables (``<name>/learning_rate``, ...), the step
counter ``<name>/iter`` (int64) counts applied updates, the slots are zeros
(``m``, ``v``, ``rms``, ``momentum``). Updates, per variable with gradient g:

* SGD: ``ResourceApplyGradientDescent`` (momentum: ``ResourceApplyKerasMomentum``:
  ``accum = momentum * accum - lr * g; var += accum``);
* Adam: ``ResourceApplyAdam`` with beta powers ``beta ** (iter + 1)`` and
  epsilon 1e-7;
* RMSprop: ``rms = rho * rms + (1 - rho) * g ** 2; var -= lr * g / (sqrt(rms) + epsilon)``
  (epsilon 1e-7; with momentum ``ResourceApplyRMSProp``).
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import colocate_with, control_dependencies, name_scope
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, control_flow_ops, init_ops, math_ops, state_ops, variables
from ref.grad import custom_gradient, gradients
from ref.optimizers.optimizer import Optimizer as _TFOptimizer
from ref.keras import backend

__all__ = ["Optimizer", "SGD", "Adam", "RMSprop", "TFOptimizer", "get"]


class Optimizer:
    """tf_keras' legacy OptimizerV2 in graph mode: ``get_updates(loss, params)`` builds the train ops."""

    _HYPER = ()

    def __init__(self, name, clipnorm=None, clipvalue=None, decay=0.0, **hyper):
        self._name = name
        self._hyper = dict(hyper, decay=decay)
        self._initial_decay = float(decay)
        self._hyper_vars, self._slots, self._slot_owner = {}, {}, {}
        self._iterations = None
        self.clipnorm, self.clipvalue = clipnorm, clipvalue
        self._weights = []

    def _var(self, name, value, dtype):
        # made where the optimizer first needs it (inside ``training/<name>`` when ``fit`` builds the
        # train function), so named after the current name scope, as Keras' ``add_weight``
        var = variables.Variable(initial_value=value, name=name, trainable=False, dtype=dtype, use_resource=True)
        backend.track_variable(var)
        self._weights.append(var)
        return var

    @property
    def iterations(self):
        if self._iterations is None:
            self._iterations = self._var("iter", lambda: init_ops.zeros_initializer()([], dtype=dtypes.int64),
                                         dtypes.int64)
        return self._iterations

    def _create_hypers(self):
        """Every hyperparameter variable at once, in name order (Keras' ``_create_hypers``)."""
        if not self._hyper_vars:
            for name in sorted(self._hyper):
                self._hyper_vars[name] = self._var(name, np.asarray(self._hyper[name], np.float32), dtypes.float32)

    def _hyper_var(self, name):
        self._create_hypers()
        return self._hyper_vars[name]

    @property
    def learning_rate(self):
        """The learning-rate variable (``lr`` too); assigning a number sets its value."""
        return self._hyper_var("learning_rate")

    @learning_rate.setter
    def learning_rate(self, value):
        backend.set_value(self._hyper_var("learning_rate"), value)

    lr = learning_rate

    def _get_hyper(self, name, dtype):
        var = self._hyper_var(name)
        return var if var.dtype.base_dtype == dtype else math_ops.cast(var, dtype)

    def _decayed_lr(self, dtype):
        value = self._get_hyper("learning_rate", dtype)
        if self._initial_decay > 0:  # Keras' time decay: lr / (1 + decay * iter)
            step = math_ops.cast(self.iterations, dtype)
            value = value / (1.0 + math_ops.cast(self._initial_decay, dtype) * step)
        return value

    def add_slot(self, var, slot_name):
        key = (id(var), slot_name)
        if key not in self._slots:
            shape = var.shape.as_list()
            init = init_ops.zeros_initializer()
            with colocate_with(var):  # (the default strategy's colocate_vars_with)
                slot = variables.Variable(initial_value=lambda: init(shape, dtype=var.dtype.base_dtype),
                                          name=f"{var.op.name}/{slot_name}", trainable=False,
                                          dtype=var.dtype.base_dtype, use_resource=True)
            backend.track_variable(slot)
            self._weights.append(slot)
            self._slots[key] = slot
            self._slot_owner[key] = var
        return self._slots[key]

    def slot_items(self):
        """``[(slot name, variable, slot variable)]`` in creation order."""
        return [(name, self._slot_owner[(vid, name)], slot) for (vid, name), slot in self._slots.items()]

    def non_slot_items(self):
        """``[(name, variable)]``: ``iter`` then the hyperparameters by name."""
        items = [("iter", self._iterations)] if self._iterations is not None else []
        return items + sorted(self._hyper_vars.items())

    def get_slot(self, var, slot_name):
        return self._slots[(id(var), slot_name)]

    def variables(self):
        return list(self._weights)

    weights = property(variables)

    def get_gradients(self, loss, params):
        """``tf.gradients`` inside ``<name>/gradients`` (Keras' graph-mode ``get_gradients``)."""
        with name_scope(self._name + "/gradients"):
            grads = gradients(loss, params)
        if any(g is None for g in grads):
            raise ValueError("Variables with no gradient: " + str([p.name for g, p in zip(grads, params) if g is None]))
        return grads

    def _clip(self, grads):
        """``clipvalue`` then ``clipnorm`` (each gradient's own norm), after the all-reduce; an IndexedSlices'
        values."""
        if self.clipvalue is None and self.clipnorm is None:
            return grads
        if any(isinstance(g, IndexedSlices) for g in grads):
            values = self._clip([g.values if isinstance(g, IndexedSlices) else g for g in grads])
            return [IndexedSlices(c, g.indices, g.dense_shape) if isinstance(g, IndexedSlices) else c
                    for c, g in zip(values, grads)]
        if self.clipvalue is not None:
            grads = [math_ops.minimum(math_ops.maximum(g, -self.clipvalue), self.clipvalue) for g in grads]
        if self.clipnorm is not None:
            from_norm = []
            for g in grads:
                norm = math_ops.sqrt(math_ops.reduce_sum(math_ops.square(g)))
                from_norm.append(g * self.clipnorm / math_ops.maximum(norm, self.clipnorm))
            grads = from_norm
        return grads

    def get_updates(self, loss, params):
        grads = self.get_gradients(loss, params)
        return [self.apply_gradients(zip(grads, params))]

    def apply_gradients(self, grads_and_vars, name=None):
        """Keras' graph: inside ``<name>``: the weights (``iter``, hyperparameters, slots), the coefficients
        (``_prepare_local``), the default strategy's all-reduce of the gradients (an unused ``Identity`` per
        gradient, then one ``IdentityN`` of the gradients twice: ``custom_gradient``'s outputs then inputs), and
        inside ``<name>/<name>/update_<variable>`` each update; ``iter`` counts after all of them."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        var_list = [v for _, v in pairs]
        with name_scope(self._name):
            with control_dependencies(None):
                _ = self.iterations
                self._create_hypers()
                self._create_slots(var_list)
            if not pairs:
                return control_flow_ops.no_op()
            states = {}
            for v in var_list:
                dtype = v.dtype.base_dtype
                if dtype not in states:
                    states[dtype] = {}
                    self._prepare_local(dtype, states[dtype])
            grads = [g for g, _ in pairs]
            if not any(isinstance(g, IndexedSlices) for g in grads):  # (with IndexedSlices: a merge_call, no ops)
                grads = _all_reduce_sum(grads)
            grads = self._clip(grads)
            with name_scope(name or self._name):
                ops = []
                for g, v in zip(grads, var_list):
                    with colocate_with(v), name_scope("update_" + v.op.name):
                        state = states[v.dtype.base_dtype]
                        if isinstance(g, IndexedSlices):
                            ops.append(self._apply_sparse_duplicate_indices(g.values, v, g.indices, state))
                        else:
                            ops.append(self._apply_dense(g, v, state))
                with control_dependencies([control_flow_ops.group(*ops)]):
                    return self.iterations.assign_add(convert_to_tensor(np.int64(1)), read_value=False)

    def _prepare_local(self, dtype, state):
        state["lr_t"] = control_flow_ops.identity(self._decayed_lr(dtype))

    def _apply_sparse_duplicate_indices(self, grad, var, indices, state):
        """Keras: the rows of repeated indices summed first (``Unique``, ``UnsortedSegmentSum``)."""
        unique, positions = array_ops.unique(indices)
        summed = array_ops.unsorted_segment_sum(grad, positions, array_ops.shape(unique)[0])
        return self._apply_sparse(summed, var, unique, state)

    def _apply_sparse(self, grad, var, indices, state):
        raise NotImplementedError(f"ref.keras {type(self).__name__}: sparse (IndexedSlices) updates")

    @staticmethod
    def _scatter_add(var, indices, updates):
        """``ResourceScatterAdd``, then the variable's value read after it."""
        op = apply_op("ResourceScatterAdd", resource=var.handle, indices=indices, updates=updates)
        with control_dependencies([op]), colocate_with(None, ignore_existing=True):  # (``value()``: no colocation)
            return apply_op("ReadVariableOp", resource=var.handle, dtype=var.dtype.base_dtype)

    @staticmethod
    def _assign(var, value):
        """``tf.compat.v1.assign`` of a resource variable in a graph: the assign op, then a read after it;
        the op is what later control dependencies name."""
        op = var.assign(value, read_value=False)
        with control_dependencies([op]):
            apply_op("ReadVariableOp", resource=var.handle, dtype=var.dtype.base_dtype)
        return op

    def minimize(self, loss, var_list):
        return self.apply_gradients(zip(self.get_gradients(loss, var_list), var_list))

    def _create_slots(self, var_list):
        pass

    def get_config(self):
        return dict(self._hyper, name=self._name)


def _all_reduce_sum(grads):
    """The default strategy's replica all-reduce: a ``custom_gradient`` whose function reduces each
    gradient to itself (so one ``IdentityN`` of the gradients, then the gradients again)."""

    @custom_gradient
    def grad_wrapper(*xs):
        return list(xs), lambda *dys: list(dys)

    return list(grad_wrapper(*grads))


class SGD(Optimizer):
    """Gradient descent, with optional (Nesterov) momentum."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        lr = kwargs.pop("lr", learning_rate)
        super().__init__(name, learning_rate=lr, momentum=momentum, **kwargs)
        self.nesterov = nesterov

    def _create_slots(self, var_list):
        if self._hyper["momentum"]:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _prepare_local(self, dtype, state):
        super()._prepare_local(dtype, state)
        state["momentum"] = control_flow_ops.identity(self._get_hyper("momentum", dtype))

    def _apply_dense(self, grad, var, state):
        if self._hyper["momentum"]:
            return apply_op("ResourceApplyKerasMomentum", var=var.handle, accum=self.get_slot(var, "momentum").handle,
                            lr=state["lr_t"], grad=grad, momentum=state["momentum"], use_locking=True,
                            use_nesterov=self.nesterov)
        return apply_op("ResourceApplyGradientDescent", var=var.handle, alpha=state["lr_t"], delta=grad,
                        use_locking=True)

    def _apply_sparse_duplicate_indices(self, grad, var, indices, state):
        if self._hyper["momentum"]:
            return super()._apply_sparse_duplicate_indices(grad, var, indices, state)
        return apply_op("ResourceScatterAdd", resource=var.handle, indices=indices, updates=-grad * state["lr_t"])

    def _apply_sparse(self, grad, var, indices, state):
        return apply_op("ResourceSparseApplyKerasMomentum", var=var.handle,
                        accum=self.get_slot(var, "momentum").handle, lr=state["lr_t"], grad=grad, indices=indices,
                        momentum=state["momentum"], use_locking=True, use_nesterov=self.nesterov)


class Adam(Optimizer):
    """Adam (Kingma & Ba), epsilon 1e-7 by default."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam",
                 **kwargs):
        lr = kwargs.pop("lr", learning_rate)
        if amsgrad:
            raise NotImplementedError("ref.keras Adam: amsgrad is not implemented")
        super().__init__(name, learning_rate=lr, beta_1=beta_1, beta_2=beta_2, **kwargs)
        self.epsilon = epsilon

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _prepare_local(self, dtype, state):
        super()._prepare_local(dtype, state)
        step = math_ops.cast(self.iterations + 1, dtype)
        beta_1 = control_flow_ops.identity(self._get_hyper("beta_1", dtype))
        beta_2 = control_flow_ops.identity(self._get_hyper("beta_2", dtype))
        beta_1_power, beta_2_power = math_ops.pow(beta_1, step), math_ops.pow(beta_2, step)
        state["lr"] = state["lr_t"] * (math_ops.sqrt(1 - beta_2_power) / (1 - beta_1_power))  # (sparse updates')
        state.update(epsilon=convert_to_tensor(self.epsilon, dtype=dtype), beta_1_t=beta_1, beta_2_t=beta_2,
                     beta_1_power=beta_1_power, beta_2_power=beta_2_power)
        state.update(one_minus_beta_1_t=1 - beta_1, one_minus_beta_2_t=1 - beta_2)

    def _apply_dense(self, grad, var, state):
        return apply_op("ResourceApplyAdam", var=var.handle, m=self.get_slot(var, "m").handle,
                        v=self.get_slot(var, "v").handle, beta1_power=state["beta_1_power"],
                        beta2_power=state["beta_2_power"], lr=state["lr_t"], beta1=state["beta_1_t"],
                        beta2=state["beta_2_t"], epsilon=state["epsilon"], grad=grad, use_locking=True,
                        use_nesterov=False)

    def _apply_sparse(self, grad, var, indices, state):
        m = self.get_slot(var, "m")
        m_scaled = grad * state["one_minus_beta_1_t"]
        m_t = self._assign(m, m * state["beta_1_t"])
        with control_dependencies([m_t]):
            m_t = self._scatter_add(m, indices, m_scaled)
        v = self.get_slot(var, "v")
        v_scaled = (grad * grad) * state["one_minus_beta_2_t"]
        v_t = self._assign(v, v * state["beta_2_t"])
        with control_dependencies([v_t]):
            v_t = self._scatter_add(v, indices, v_scaled)
        v_sqrt = math_ops.sqrt(v_t)
        var_update = self._assign_sub(var, state["lr"] * m_t / (v_sqrt + state["epsilon"]))
        return control_flow_ops.group(var_update, m_t, v_t)

    @staticmethod
    def _assign_sub(var, value):
        op = var.assign_sub(value, read_value=False)
        with control_dependencies([op]):
            apply_op("ReadVariableOp", resource=var.handle, dtype=var.dtype.base_dtype)
        return op


class RMSprop(Optimizer):
    """RMSprop: a moving mean of squared gradients scales the step; epsilon 1e-7."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop",
                 **kwargs):
        lr = kwargs.pop("lr", learning_rate)
        if centered:
            raise NotImplementedError("ref.keras RMSprop: centered is not implemented")
        super().__init__(name, learning_rate=lr, rho=rho, momentum=momentum, **kwargs)
        self.epsilon = epsilon

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "rms")
        if self._hyper["momentum"]:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _prepare_local(self, dtype, state):
        super()._prepare_local(dtype, state)
        rho = control_flow_ops.identity(self._get_hyper("rho", dtype))
        state.update(neg_lr_t=-state["lr_t"], epsilon=convert_to_tensor(self.epsilon, dtype=dtype), rho=rho,
                     momentum=control_flow_ops.identity(self._get_hyper("momentum", dtype)))
        state["one_minus_rho"] = 1.0 - rho

    def _apply_dense(self, grad, var, state):
        rms = self.get_slot(var, "rms")
        if self._hyper["momentum"]:
            return apply_op("ResourceApplyRMSProp", var=var.handle, ms=rms.handle,
                            mom=self.get_slot(var, "momentum").handle, lr=state["lr_t"], rho=state["rho"],
                            momentum=state["momentum"], epsilon=state["epsilon"], grad=grad, use_locking=True)
        rms_t = state["rho"] * rms + state["one_minus_rho"] * math_ops.square(grad)
        assign_rms = self._assign(rms, rms_t)
        scaled = state["lr_t"] * grad
        with name_scope("Sqrt") as scope:  # Keras' assign returns an unread variable: read again where used
            with control_dependencies([assign_rms]):
                rms_t = apply_op("ReadVariableOp", resource=rms.handle, dtype=rms.dtype.base_dtype)
            denom = math_ops.sqrt(rms_t, name=scope)
        return self._assign(var, var - scaled / (denom + state["epsilon"]))

    def _apply_sparse(self, grad, var, indices, state):
        rms = self.get_slot(var, "rms")
        if self._hyper["momentum"]:
            return apply_op("ResourceSparseApplyRMSProp", var=var.handle, ms=rms.handle,
                            mom=self.get_slot(var, "momentum").handle, lr=state["lr_t"], rho=state["rho"],
                            momentum=state["momentum"], epsilon=state["epsilon"], grad=grad, indices=indices,
                            use_locking=True)
        rms_scaled = (grad * grad) * state["one_minus_rho"]
        rms_t = self._assign(rms, rms * state["rho"])
        with control_dependencies([rms_t]):
            rms_t = self._scatter_add(rms, indices, rms_scaled)
            rms_slice = array_ops.gather(rms_t, indices)
        var_update = self._scatter_add(var, indices, state["neg_lr_t"] * grad /
                                       (math_ops.sqrt(rms_slice) + state["epsilon"]))
        return control_flow_ops.group(var_update, rms_t)



class TFOptimizer(Optimizer):
    """A ``tf.train`` optimizer in ``compile``: its ``apply_gradients`` with Keras' step counter."""

    def __init__(self, optimizer):
        super().__init__("TFOptimizer")
        self.optimizer = optimizer

    def get_updates(self, loss, params):
        updates = [state_ops.assign_add(self.iterations, convert_to_tensor(np.int64(1)))]
        grads = self.optimizer.compute_gradients(loss, params)
        updates.append(self.optimizer.apply_gradients(grads, global_step=self.iterations))
        for v in self.optimizer.variables():  # initialized by Keras' session, as TF's registered optimizers
            backend.track_variable(v)
        return updates

    def variables(self):
        return list(self._weights) + list(self.optimizer.variables())


def get(identifier):
    """An optimizer from a name (``"sgd"``, ``"adam"``, ``"rmsprop"``), a Keras optimizer, or a ``tf.train`` one."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, _TFOptimizer):
        return TFOptimizer(identifier)
    if isinstance(identifier, str):
        table = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop}
        if identifier.lower() not in table:
            raise ValueError(f"Unknown optimizer: '{identifier}'. Please ensure you are using a "
                             f"`keras.utils.custom_object_scope` and that this object is included in the scope.")
        return table[identifier.lower()]()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")

