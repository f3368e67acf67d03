"""Calling another implementation on a golden set's inputs.

Two protocols, chosen by the golden's kind:

**Kernel protocol** (a kernel golden, e.g. ``ApplyAdam`` or ``Softmax``)::

    fn(**kwargs) -> outputs

``kwargs`` are exactly ``ref.raw_ops.<Op>``'s: every input by its TF name
(NumPy arrays; a hyperparameter given as a Python float in that case stays a
Python float) and every attr. Return the op's outputs: one array, a tuple in
TF's output order (a training op: the NEW ``(var, slot1, ...)`` in the order of
its ref inputs) or a dict by output name.

**Trajectory protocol** (an optimizer golden, e.g. ``adam``)::

    fn(var, grads, learning_rate, **hyper) -> {"var": [steps, ...], "<slot>": [steps, ...], ...}

``var`` is the starting parameter, ``grads`` the gradients of every step
(``[steps, *var.shape]``, already clipped when the golden clips),
``learning_rate`` the optimizer's learning rate -- or, when the golden has a
schedule, the array of the rate each step used -- and ``hyper`` the optimizer's
other hyperparameters under TF1's constructor names (``beta1``, ``beta2``,
``epsilon``, ``initial_accumulator_value``...; only those ``fn`` accepts
unless it takes ``**kwargs``). ``fn`` starts its own slots, runs every step,
and returns the parameter after every step under ``"var"`` and, optionally,
its slots under TF's slot names (``m``/``v`` for Adam, ``rms``/``momentum``
for RMSProp, ``accumulator`` for Adagrad...). A bare array is taken as the
``var`` trajectory. If ``fn`` has parameters ``raw_grads`` / ``clip_norm``
they receive the unclipped gradients and the golden's clip norm.

``load_callable("pkg.module:function")`` also accepts ``path/to/file.py:function``.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

if TYPE_CHECKING:  # for the annotations only: generate imports nothing from here
    from ref.golden.generate import Golden


def load_callable(spec: str) -> Callable[..., Any]:
    """``"module:function"`` or ``"path/file.py:function"`` -> the function."""
    target, _, attr = spec.rpartition(":")
    if not target or not attr:
        raise ValueError(f"--impl wants module:function, got {spec!r}")
    if target.endswith(".py") or "/" in target:
        path = Path(target).resolve()
        mod_spec = importlib.util.spec_from_file_location(path.stem, path)
        if mod_spec is None or mod_spec.loader is None:
            raise ImportError(f"{path} is not a Python file")
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
    else:
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        module = importlib.import_module(target)
    obj: Any = module
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


class ProtocolError(TypeError):
    """The implementation's signature does not take the call its protocol makes."""


PROTOCOLS = {"kernel": "fn(**kwargs) -> outputs",
             "trajectory": "fn(var, grads, learning_rate, **hyper) -> {'var': ..., ...}"}


def _check_call(fn, protocol, args, kwargs):
    """ProtocolError (one line) unless ``fn(*args, **kwargs)`` binds to ``fn``'s signature."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(*args, **kwargs)
    except TypeError as e:
        name = getattr(fn, "__qualname__", None) or repr(fn)
        raise ProtocolError(f"{name}{sig} cannot be called as the {protocol} protocol's "
                            f"{PROTOCOLS[protocol]}: {e}") from None


def _accepts(fn, name):
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def run_impl(golden: Golden, fn: Callable[..., Any]) -> dict:
    """``fn``'s results on every case of ``golden``, under the golden's output keys."""
    if golden.kind == "trajectory":
        return _run_trajectory(golden, fn)
    return _run_kernel(golden, fn)


def _run_kernel(golden, fn):
    out = {}
    for case in golden.cases:
        i = case["index"]
        names = list(case["outputs"])
        kwargs = golden.kernel_kwargs(i)
        _check_call(fn, "kernel", (), kwargs)
        result = fn(**kwargs)
        out.update(_named(result, names, f"c{i}.out."))
    return out


def _named(result, names, prefix):
    if isinstance(result, dict):
        return {prefix + k: np.asarray(v) for k, v in result.items() if k in names}
    if isinstance(result, (tuple, list)):
        return {prefix + k: np.asarray(v) for k, v in zip(names, result)}
    return {prefix + names[0]: np.asarray(result)}


def _run_trajectory(golden, fn):
    out = {}
    scheduled = bool((golden.manifest.get("loop") or {}).get("schedule"))
    clip = (golden.manifest.get("loop") or {}).get("clip")
    for case in golden.cases:
        i = case["index"]
        ins = golden.trajectory_inputs(i)
        hyper = dict(ins["hyper"])
        lr = ins["lr"] if scheduled else hyper.get("learning_rate")
        hyper.pop("learning_rate", None)
        kw = {k: v for k, v in hyper.items() if _accepts(fn, k)}
        if _accepts(fn, "raw_grads") and "raw_grads" in inspect.signature(fn).parameters:
            kw["raw_grads"] = ins["raw_grads"]
        if clip and "clip_norm" in inspect.signature(fn).parameters:
            kw["clip_norm"] = clip.get("clip_norm")
        args = (ins["var"].copy(), ins["grads"].copy(), lr)
        _check_call(fn, "trajectory", args, kw)
        result = fn(*args, **kw)
        if isinstance(result, dict):
            result = {k: np.stack([np.asarray(x) for x in v]) if isinstance(v, list) else np.asarray(v)
                      for k, v in result.items()}
        out.update(_named(result, list(case["outputs"]), f"c{i}.out."))
    return out
