"""Multi-step optimizer trajectories: the parameter and every slot after every step.

An optimizer name (``"adam"``, ``"ftrl"``, ...) maps to its TF1 optimizer's
pure functional form -- ``ref.ops.training.<algo>.init`` / ``step``, bit for bit
the graph path, hence TF's ``Apply*`` kernel with TF's slot initial values and
TF's bookkeeping (Adam's ``beta1_power`` kept as a float32 variable and
multiplied after each step, RMSProp's ``rms`` starting at ones, ...). AdaMax,
AddSign and PowerSign have no optimizer module; their loop here calls the kernel
the way TF's (contrib/Keras) optimizers do.

The loop, for ``t = 1 .. steps``::

    lr_t  = schedule(t - 1)       if a schedule is given (TF's global_step before the step)
    g_t   = clip(grads[t - 1])    if a clip function is given
    var, state = step(var, g_t, state, learning_rate=lr_t, **hyper)
    record var and every field of state

``schedule`` is any ``global_step -> learning rate`` callable (e.g.
``functools.partial(ref.optimizers.schedules.exponential_decay_value, 0.1,
decay_steps=10, decay_rate=0.5)``); ``clip`` any ``grad -> grad`` callable
(e.g. :func:`clip_by_global_norm`).
"""
from __future__ import annotations

import importlib
import inspect
import math
from typing import NamedTuple

import numpy as np
from ref.ops.training.functional import hyper
import ref.raw_ops as raw


class OptimizerSpec(NamedTuple):
    name: str
    kernel: str          # the Apply* kernel each step runs
    module: str          # ref.ops.training.<module> with init/step, or "" for the loops below
    hyper: dict          # golden defaults, by the TF1 constructor's argument names


OPTIMIZERS = {
    "gradient_descent": OptimizerSpec("gradient_descent", "ApplyGradientDescent", "gradient_descent",
                                      dict(learning_rate=0.1)),
    "momentum": OptimizerSpec("momentum", "ApplyMomentum", "momentum",
                              dict(learning_rate=0.01, momentum=0.9, use_nesterov=False)),
    "adam": OptimizerSpec("adam", "ApplyAdam", "adam", dict(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8)),
    "adamax": OptimizerSpec("adamax", "ApplyAdaMax", "", dict(learning_rate=0.001, beta1=0.9, beta2=0.999,
                                                             epsilon=1e-7)),
    "adagrad": OptimizerSpec("adagrad", "ApplyAdagrad", "adagrad", dict(learning_rate=0.1,
                                                                      initial_accumulator_value=0.1)),
    "adagrad_da": OptimizerSpec("adagrad_da", "ApplyAdagradDA", "adagrad_da",
                                dict(learning_rate=0.1, initial_gradient_squared_accumulator_value=0.1,
                                     l1_regularization_strength=0.01, l2_regularization_strength=0.01)),
    "adadelta": OptimizerSpec("adadelta", "ApplyAdadelta", "adadelta", dict(learning_rate=1.0, rho=0.95,
                                                                          epsilon=1e-8)),
    "rmsprop": OptimizerSpec("rmsprop", "ApplyRMSProp", "rmsprop",
                             dict(learning_rate=0.01, decay=0.9, momentum=0.0, epsilon=1e-10, centered=False)),
    "centered_rmsprop": OptimizerSpec("centered_rmsprop", "ApplyCenteredRMSProp", "rmsprop",
                                      dict(learning_rate=0.01, decay=0.9, momentum=0.0, epsilon=1e-10,
                                           centered=True)),
    "ftrl": OptimizerSpec("ftrl", "ApplyFtrl", "ftrl",
                          dict(learning_rate=0.1, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                               l1_regularization_strength=0.01, l2_regularization_strength=0.01)),
    "proximal_gradient_descent": OptimizerSpec("proximal_gradient_descent", "ApplyProximalGradientDescent",
                                               "proximal_gradient_descent",
                                               dict(learning_rate=0.1, l1_regularization_strength=0.01,
                                                    l2_regularization_strength=0.01)),
    "proximal_adagrad": OptimizerSpec("proximal_adagrad", "ApplyProximalAdagrad", "proximal_adagrad",
                                      dict(learning_rate=0.1, initial_accumulator_value=0.1,
                                           l1_regularization_strength=0.01, l2_regularization_strength=0.01)),
    "addsign": OptimizerSpec("addsign", "ApplyAddSign", "", dict(learning_rate=0.1, alpha=1.0, beta=0.9,
                                                               sign_decay=1.0)),
    "powersign": OptimizerSpec("powersign", "ApplyPowerSign", "", dict(learning_rate=0.1, base=math.e, beta=0.9,
                                                                     sign_decay=1.0)),
}
ALIASES = {"sgd": "gradient_descent", "gd": "gradient_descent", "nesterov": "momentum", "rms_prop": "rmsprop",
           "adagradda": "adagrad_da", "proximal_gd": "proximal_gradient_descent"}


def lookup(name: str):
    """The OptimizerSpec for an optimizer name (case and ``Optimizer`` suffix ignored), or None."""
    key = name.lower().removesuffix("optimizer").strip("_")
    key = ALIASES.get(key, key)
    spec = OPTIMIZERS.get(key)
    if spec is not None and name.lower() == "nesterov":
        spec = spec._replace(hyper={**spec.hyper, "use_nesterov": True})
    return spec


# -- the optimizers without a functional module: their TF update loops ----------------------

def _hyper(value, dtype):
    return hyper(value, dtype)


class _KernelLoop:
    """``init``/``step`` for AdaMax, AddSign and PowerSign (one array parameter)."""

    def __init__(self, name):
        self.name = name
        self.defaults = importlib.import_module(f"ref.ops.training.{name}").DEFAULTS

    def init(self, var, **hyper):
        hyper = {**self.defaults, **hyper}
        zeros = np.zeros_like(np.asarray(var))
        if self.name == "adamax":
            return {"m": zeros, "v": zeros.copy(), "beta1_power": _hyper(hyper["beta1"], None)}
        return {"m": zeros}

    def step(self, var, grad, state, learning_rate, **h):
        h = {**self.defaults, **h}
        t = var.dtype
        lr = _hyper(learning_rate, t)
        if self.name == "adamax":
            b1, b2 = h["beta1"], h["beta2"]
            var, m, v = raw.ApplyAdaMax(var=var, m=state["m"], v=state["v"], beta1_power=_hyper(state["beta1_power"], t),
                                        lr=lr, beta1=_hyper(b1, t), beta2=_hyper(b2, t),
                                        epsilon=_hyper(h["epsilon"], t), grad=grad)
            b1p = np.asarray(state["beta1_power"])
            return var, {"m": m, "v": v, "beta1_power": (b1p * _hyper(b1, b1p.dtype))[()]}
        decay = _hyper(h.get("sign_decay", 1.0), t)  # a schedule's value; TF's default sign_decay_fn is None
        if self.name == "addsign":
            var, m = raw.ApplyAddSign(var=var, m=state["m"], lr=lr, alpha=_hyper(h["alpha"], t),
                                      sign_decay=decay, beta=_hyper(h["beta"], t), grad=grad)
        else:
            logbase = _hyper(np.log(_hyper(h["base"], np.float32)), t)
            var, m = raw.ApplyPowerSign(var=var, m=state["m"], lr=lr, logbase=logbase, sign_decay=decay,
                                        beta=_hyper(h["beta"], t), grad=grad)
        return var, {"m": m}


def _functional(spec):
    """``(init(var, **hyper) -> state dict, step(var, grad, state, **hyper) -> (var, state dict))``."""
    if not spec.module:
        loop = _KernelLoop(spec.name)
        return loop.init, loop.step
    mod = importlib.import_module(f"ref.ops.training.{spec.module}")
    init_params = inspect.signature(mod.init).parameters
    step_params = inspect.signature(mod.step).parameters

    def init(var, **hyper):
        st = mod.init(var, **{k: v for k, v in hyper.items() if k in init_params})
        return {k: v for k, v in st._asdict().items() if v is not None}

    def step(var, grad, state, **hyper):
        cls = type(mod.init(var, **{k: v for k, v in hyper.items() if k in init_params}))
        full = {f: state.get(f) for f in cls._fields}
        new_var, new_state = mod.step(var, grad, cls(**full), **{k: v for k, v in hyper.items() if k in step_params})
        return new_var, {k: v for k, v in new_state._asdict().items() if v is not None}

    return init, step


def run(spec, var, grads, hyper=None, schedule=None, clip=None):
    """The trajectory: ``{"var": [steps, ...], <state field>: [steps, ...]}`` plus
    ``"lr"`` (the learning rate each step used) and ``"grad"`` (after ``clip``)."""
    hyper = {**spec.hyper, **(hyper or {})}
    init, step = _functional(spec)
    var = np.asarray(var)
    state = init(var, **hyper)
    record = {"var": []}
    record.update({k: [] for k in state})
    lrs, used = [], []
    for t, g in enumerate(np.asarray(grads)):
        lr = hyper["learning_rate"] if schedule is None else schedule(t)
        g = g if clip is None else np.asarray(clip(g), var.dtype)
        var, state = step(var, g, state, **{**hyper, "learning_rate": lr})
        record["var"].append(np.asarray(var))
        for k, v in state.items():
            record[k].append(np.asarray(v))
        lrs.append(np.asarray(_hyper(lr, var.dtype)))
        used.append(g)
    out = {k: np.stack(v) for k, v in record.items()}
    out["lr"] = np.stack(lrs)
    out["grad"] = np.stack(used)
    return out


def initial_state(spec, var, hyper=None) -> dict:
    """The optimizer's initial slots for ``var`` (TF's initializers)."""
    init, _ = _functional(spec)
    return init(np.asarray(var), **{**spec.hyper, **(hyper or {})})


def clip_by_global_norm(clip_norm):
    """``grad -> grad``: ``tf.clip_by_global_norm`` of a single gradient, in TF's
    arithmetic (clip_ops.py): ``global_norm = sqrt(sum(2 * l2_loss(g)))`` and
    ``g * (clip_norm * min(1 / global_norm, 1 / clip_norm))`` -- TF's API reference,
    ``tf.compat.v1.clip_by_global_norm``:
    ``t_list[i] * clip_norm / max(global_norm, clip_norm)``."""
    def clip(g):
        g = np.asarray(g)
        t = g.dtype.type
        with np.errstate(divide="ignore"):
            norm = np.sqrt(t(2) * (np.sum(g * g, dtype=g.dtype) / t(2)))
            c = t(clip_norm)
            scale = c * np.minimum(t(1) / norm, t(1) / c)
        return (g * scale).astype(g.dtype)

    return clip
