"""Device-resident GPU kernels of every training update (``Apply*``, ``SparseApply*``
and their ``Resource*`` forms), generated from the scalar updates of
:mod:`ref.ops.training` (issue 30). Registered in :data:`ref.ops.gpu.GPU_OPS`
(``ref.session.devices`` imports this module), so a Session keeps a variable and its
slots on the device from step to step.

How one kernel runs:

1. The op's CPU kernel is called on stand-ins for its arrays (``np.broadcast_to`` of
   a zero: the right shape and dtype, no data) with the host hyperparameters:
   its checks raise its errors, its hyperparameter arithmetic (Adam's bias-corrected
   ``alpha``, Ftrl's powers) runs on the host scalars, and its ``run_dense`` /
   ``run_sparse`` hands back the scalar update and its parameters instead of running
   the CPU loop (:func:`ref.ops.training._apply.capturing`).
2. The variable and its slots are copied device to device (the stored arrays are
   never changed in place), and the update runs in a CUDA loop generated from the
   same scalar function (:mod:`ref.ops._cuda`): element-wise for a dense update; for
   a sparse one, one thread per column going through the indices in order (duplicates
   apply one after another, as on the CPU). Either way the arithmetic is the CPU
   kernel's, in its order: the same bits (tests/ops/training/test_gpu_device_updates.py).

Hyperparameters are host 0-d values (graph constants: kernel launch arguments). A
hyperparameter that is a device value (a variable on the GPU) is read to the host,
and the copy counted, except Adam's ``beta1_power`` / ``beta2_power`` (the
variables ``AdamOptimizer`` keeps beside the first variable): their ``alpha`` is
computed on the device by every thread, from the same :func:`ref.ops.training.adam.adam_alpha`.

Sparse indices are on the device and not checked against the variable's rows
(they would have to be copied back): out-of-range rows are skipped, as TF's GPU
kernels skip them; the CPU kernels raise InvalidArgumentError.
"""
from __future__ import annotations

import numpy as np

from ref.ops import _cuda as cuda_loops, gpu, registry
from ref.ops.training import (_apply, adadelta, adagrad, adagrad_da, adam, adamax, addsign, ftrl,  # noqa: F401
                              gradient_descent, momentum, powersign, proximal_adagrad, proximal_gradient_descent,
                              rmsprop)
from ref.ops.training.adam import adam_alpha, adam_update

__all__ = ["training_kernel", "TRAINING_OPS"]

_SCALARS = ("lr", "alpha", "l1", "l2", "l2_shrinkage", "lr_power", "momentum", "rho", "epsilon", "beta1", "beta2",
            "beta1_power", "beta2_power", "sign_decay", "beta", "logbase", "global_step", "decay")


def _stand_in(x):
    """A zero-strided host array of ``x``'s shape and dtype (no data, no copy)."""
    return np.broadcast_to(np.zeros((), x.dtype), tuple(x.shape))


def _flat(d):
    return d.reshape(d.size) if d.ndim != 1 else d


_ADAM_KERNELS: dict = {}


def _adam_device_powers(refs, grad, b1p, b2p, lr, beta1, beta2, epsilon, use_nesterov):
    """Adam with ``beta1_power``/``beta2_power`` on the device: ``alpha`` from
    ``adam_alpha`` in the kernel, then ``adam_update`` element-wise."""
    T = refs[0].dtype.type
    key = (T, gpu.simulating())
    k = _ADAM_KERNELS.get(key)
    if k is None:
        cuda = gpu._cuda()
        ns = {"cuda": cuda, "T": T, "update": cuda_loops.device_function(adam_update),
              "alpha_of": cuda_loops.device_function(adam_alpha)}
        exec("def loop(r0, r1, r2, g, b1p, b2p, lr, beta1, beta2, epsilon, nesterov):\n"  # noqa: S102
             "    alpha = alpha_of(lr, T(b1p[0]), T(b2p[0]), T)\n"
             "    for i in range(cuda.grid(1), g.size, cuda.gridsize(1)):\n"
             "        r0[i], r1[i], r2[i] = update(r0[i], r1[i], r2[i], g[i], alpha, beta1, beta2, epsilon, "
             "nesterov, T)\n", ns)
        k = _ADAM_KERNELS.setdefault(key, cuda.jit(ns["loop"]))
    new = [gpu._copy(r) for r in refs]
    if grad.size:
        k[gpu._launch(grad.size)](*[_flat(n) for n in new], _flat(grad), b1p.reshape(1), b2p.reshape(1),
                                  T(lr), T(beta1), T(beta2), T(epsilon), bool(use_nesterov))
    return tuple(new)


def training_kernel(op_type):
    """The device kernel of the training op ``op_type`` (see the module docstring)."""
    opdef = registry.get(op_type)
    names, refs = opdef.inputs, opdef.refs
    sparse = "indices" in names
    grad_name = "delta" if "delta" in names else "grad"
    adam = op_type in ("ApplyAdam", "ResourceApplyAdam")

    def run(*args, **attrs):
        kw = dict(zip(names, args))
        var = kw[refs[0]]
        if var.dtype not in _apply.FAST:
            raise TypeError(f"no GPU kernel for dtype {var.dtype} (float32 and float64 only)")
        if adam and (gpu.is_device_array(kw["beta1_power"]) or gpu.is_device_array(kw["beta2_power"])):
            host = {n: kw[n] for n in ("lr", "beta1", "beta2", "epsilon")}
            _apply.capturing(opdef.kernel, **{n: (_stand_in(v) if n in refs or n == grad_name else v)
                                              for n, v in kw.items() if n not in ("beta1_power", "beta2_power")},
                             beta1_power=np.zeros((), var.dtype), beta2_power=np.zeros((), var.dtype), **attrs)
            host = {n: np.asarray(gpu.to_host(v)).reshape(()).item() for n, v in host.items()}
            return _adam_device_powers([kw[r] for r in refs], kw[grad_name], gpu.to_device(kw["beta1_power"]),
                                       gpu.to_device(kw["beta2_power"]), host["lr"], host["beta1"], host["beta2"],
                                       host["epsilon"], attrs.get("use_nesterov", False))
        call = {}
        for n, v in kw.items():
            if n in refs or n == grad_name:
                call[n] = _stand_in(v)
            elif n == "indices":
                call[n] = np.zeros(tuple(v.shape), v.dtype)
            else:
                call[n] = gpu.to_host(v)  # a hyperparameter: a host 0-d value (a device one is copied, counted)
        cap = _apply.capturing(opdef.kernel, **call, **attrs)
        T = var.dtype.type
        new = [gpu._copy(gpu.to_device(kw[r])) for r in refs]
        grad = kw[grad_name]
        loops = cuda_loops.cuda_elementwise(cap.update, len(refs))
        if sparse:
            indices = kw["indices"]
            inner = int(np.prod(var.shape[1:], dtype=np.int64)) if var.ndim > 1 else 1
            if indices.size and inner:
                k = loops.compiled_sparse(len(cap.params), T)
                k[gpu._launch(inner)](*[_flat(n) for n in new], _flat(grad), _flat(indices), var.shape[0], inner,
                                      *cap.params)
        elif grad.size:
            k = loops.compiled(len(cap.params), T)
            k[gpu._launch(grad.size)](*[_flat(n) for n in new], _flat(grad), *cap.params)
        return tuple(new)

    run.__name__ = f"gpu_{op_type}"
    return run


def _training_ops():
    out = []
    for name, opdef in sorted(registry._REGISTRY.items()):
        base = name.removeprefix("Resource")
        if (base.startswith("Apply") or base.startswith("SparseApply")) and opdef.refs and \
                opdef.kernel.__module__.startswith("ref.ops.training"):
            out.append(name)
    return tuple(out)


TRAINING_OPS = _training_ops()
"""Every training op with a device kernel here (dense, sparse, and their Resource forms)."""

for _name in TRAINING_OPS:
    _opdef = registry.get(_name)
    gpu._register(_name, training_kernel(_name), host=(),
                  scalars=tuple(n for n in _opdef.inputs if n in _SCALARS))
