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
from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import control_flow_ops, init_ops, math_ops, state_ops, variables
from ref.grad import gradients
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
        with name_scope(None):
            var = variables.Variable(initial_value=value, name=f"{self._name}/{name}", trainable=False,
                                     dtype=dtype, use_resource=True)
        backend.track_variable(var)
        self._weights.append(var)
        return var

    @property
    def iterations(self):
        if self._iterations is None:
            self._iterations = self._var("iter", np.int64(0), dtypes.int64)
        return self._iterations

    def _hyper_var(self, name):
        if name not in self._hyper_vars:
            self._hyper_vars[name] = self._var(name, np.asarray(self._hyper[name], np.float32), dtypes.float32)
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
        value = math_ops.cast(self._hyper_var(name), dtype)
        if name == "learning_rate" and self._initial_decay > 0:  # Keras' time decay: lr / (1 + decay * iter)
            step = math_ops.cast(self.iterations, dtype)
            value = value / (1.0 + math_ops.cast(self._hyper_var("decay"), dtype) * step)
        return value

    def add_slot(self, var, slot_name):
        key = (id(var), slot_name)
        if key not in self._slots:
            shape = var.shape.as_list()
            init = init_ops.zeros_initializer()
            with name_scope(None):
                slot = variables.Variable(initial_value=lambda: init(shape, dtype=var.dtype.base_dtype),
                                          name=f"{self._name}/{var.op.name}/{slot_name}", trainable=False,
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
        grads = gradients(loss, params)
        if any(g is None for g in grads):
            raise ValueError("Variables with no gradient: " + str([p.name for g, p in zip(grads, params) if g is None]))
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
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        iterations = self.iterations
        for hyper in sorted(self._hyper):  # all hyperparameter variables, in name order (as Keras)
            self._hyper_var(hyper)
        with name_scope(name or self._name):
            for _, v in pairs:
                self._create_slots(v)
            ops = []
            for g, v in pairs:
                with name_scope("update_" + v.op.name.replace("/", "_")):
                    ops.append(self._apply_dense(g, v))
            with control_dependencies([control_flow_ops.group(*ops)]):
                return state_ops.assign_add(iterations, convert_to_tensor(np.int64(1))).op

    def minimize(self, loss, var_list):
        return self.apply_gradients(zip(self.get_gradients(loss, var_list), var_list))

    def _create_slots(self, var):
        pass

    def get_config(self):
        return dict(self._hyper, name=self._name)


class SGD(Optimizer):
    """Gradient descent, with optional (Nesterov) momentum."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        lr = kwargs.pop("lr", learning_rate)
        super().__init__(name, learning_rate=lr, momentum=momentum, **kwargs)
        self.nesterov = nesterov

    def _create_slots(self, var):
        if self._hyper["momentum"]:
            self.add_slot(var, "momentum")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        lr = self._get_hyper("learning_rate", dtype)
        if self._hyper["momentum"]:
            return apply_op("ResourceApplyKerasMomentum", var=var.handle, accum=self.get_slot(var, "momentum").handle,
                            lr=lr, grad=grad, momentum=self._get_hyper("momentum", dtype), use_locking=False,
                            use_nesterov=self.nesterov)
        return apply_op("ResourceApplyGradientDescent", var=var.handle, alpha=lr, delta=grad, use_locking=False)


class Adam(Optimizer):
    """Adam (Kingma & Ba), epsilon 1e-7 by default."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam",
                 **kwargs):
        lr = kwargs.pop("lr", learning_rate)
        if amsgrad:
            raise NotImplementedError("ref.keras Adam: amsgrad is not implemented")
        super().__init__(name, learning_rate=lr, beta_1=beta_1, beta_2=beta_2, **kwargs)
        self.epsilon = epsilon

    def _create_slots(self, var):
        self.add_slot(var, "m")
        self.add_slot(var, "v")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        lr = self._get_hyper("learning_rate", dtype)
        beta_1, beta_2 = self._get_hyper("beta_1", dtype), self._get_hyper("beta_2", dtype)
        step = math_ops.cast(self.iterations + 1, dtype)
        return apply_op("ResourceApplyAdam", var=var.handle, m=self.get_slot(var, "m").handle,
                        v=self.get_slot(var, "v").handle, beta1_power=math_ops.pow(beta_1, step),
                        beta2_power=math_ops.pow(beta_2, step), lr=lr, beta1=beta_1, beta2=beta_2,
                        epsilon=convert_to_tensor(self.epsilon, dtype=dtype), grad=grad, use_locking=False,
                        use_nesterov=False)


class RMSprop(Optimizer):
    """RMSprop: a moving mean of squared gradients scales the step; epsilon 1e-7."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop",
                 **kwargs):
        lr = kwargs.pop("lr", learning_rate)
        if centered:
            raise NotImplementedError("ref.keras RMSprop: centered is not implemented")
        super().__init__(name, learning_rate=lr, rho=rho, momentum=momentum, **kwargs)
        self.epsilon = epsilon

    def _create_slots(self, var):
        self.add_slot(var, "rms")
        if self._hyper["momentum"]:
            self.add_slot(var, "momentum")

    def _apply_dense(self, grad, var):
        dtype = var.dtype.base_dtype
        lr = self._get_hyper("learning_rate", dtype)
        rho = self._get_hyper("rho", dtype)
        eps = convert_to_tensor(self.epsilon, dtype=dtype)
        rms = self.get_slot(var, "rms")
        if self._hyper["momentum"]:
            return apply_op("ResourceApplyRMSProp", var=var.handle, ms=rms.handle,
                            mom=self.get_slot(var, "momentum").handle, lr=lr, rho=rho,
                            momentum=self._get_hyper("momentum", dtype), epsilon=eps, grad=grad, use_locking=False)
        rms_t = rho * rms + (1.0 - rho) * math_ops.square(grad)
        rms_t = state_ops.assign(rms, rms_t)
        var_t = var - lr * grad / (math_ops.sqrt(rms_t) + eps)
        return state_ops.assign(var, var_t).op


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

