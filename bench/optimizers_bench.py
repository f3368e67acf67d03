"""One step of every dense training kernel (Apply*) at 1e5, 1e6 and 1e7 float32
parameters: ``ref`` in place (``out=`` = the inputs, as the interpreter calls it),
a NumPy transcription, TensorFlow's ResourceApply* (when installed, inside a
tf.function) and the memory-bandwidth floor: a STREAM-style in-place kernel
(``x[i] += g[i]`` for each of the op's ref arrays) moving the same bytes, best
of its serial and parallel compilations, measured in the same run.

    python bench/optimizers_bench.py [--sizes 1e5,1e6,1e7] [--ops ApplyAdam,...]

Prints milliseconds (median) and ratios ref/floor, ref/tf.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import time

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from ref.ops import registry  # noqa: E402
from ref.ops._jit import njit, njit_sized, prange  # noqa: E402

HYPER = dict(lr=0.01, beta1=0.9, beta2=0.999, beta1_power=0.9, beta2_power=0.99, epsilon=1e-7, rho=0.9,
             momentum=0.5, l1=0.01, l2=0.02, l2_shrinkage=0.01, lr_power=-0.5, alpha=1.0, sign_decay=0.5,
             beta=0.9, logbase=0.69, global_step=10)

f32 = np.float32
# NumPy transcriptions (TF's order, float32 scalars): refs -> new refs.
NUMPY = {
    "ApplyGradientDescent": lambda var, alpha, delta, **k: (var - delta * alpha,),
    "ApplyProximalGradientDescent": lambda var, alpha, l1, l2, delta, **k: (
        np.sign(var - delta * alpha) * np.maximum(np.abs(var - delta * alpha) - alpha * l1, f32(0))
        / (f32(1) + alpha * l2),),
    "ApplyAdagrad": lambda var, accum, lr, grad, **k: (
        lambda a: (var - grad * lr / np.sqrt(a), a))(accum + grad * grad),
    "ApplyAdagradV2": lambda var, accum, lr, epsilon, grad, **k: (
        lambda a: (var - grad * lr / (np.sqrt(a) + epsilon), a))(accum + grad * grad),
    "ApplyProximalAdagrad": lambda var, accum, lr, l1, l2, grad, **k: (
        lambda a: (lambda r: (lambda p: (np.sign(p) * np.maximum(np.abs(p) - r * l1, f32(0)) / (f32(1) + l2 * r),
                                         a))(var - grad * r))(lr / np.sqrt(a)))(accum + grad * grad),
    "ApplyAdagradDA": lambda var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2,
    global_step, **k: (lambda ga, gs: (
        -lr * np.sign(ga) * np.maximum(np.abs(ga) - f32(global_step) * l1, f32(0))
        / (l2 * (f32(global_step) * lr) + np.sqrt(gs)), ga, gs))(
        gradient_accumulator + grad, gradient_squared_accumulator + grad * grad),
    "ApplyAdadelta": lambda var, accum, accum_update, lr, rho, epsilon, grad, **k: (
        lambda a: (lambda u: (var - u * lr, a, accum_update * rho + u * u * (f32(1) - rho)))(
            np.sqrt(accum_update + epsilon) / np.sqrt(a + epsilon) * grad))(
        accum * rho + grad * grad * (f32(1) - rho)),
    "ApplyMomentum": lambda var, accum, lr, grad, momentum, **k: (
        lambda a: (var - a * lr, a))(accum * momentum + grad),
    "ApplyKerasMomentum": lambda var, accum, lr, grad, momentum, **k: (
        lambda a: (var + a, a))(accum * momentum - grad * lr),
    "ApplyAdam": lambda var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, **k: (
        lambda alpha, m2, v2: (var - m2 * alpha / (np.sqrt(v2) + epsilon), m2, v2))(
        lr * np.sqrt(f32(1) - beta2_power) / (f32(1) - beta1_power),
        m + (grad - m) * (f32(1) - beta1), v + (grad * grad - v) * (f32(1) - beta2)),
    "ApplyAdaMax": lambda var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad, **k: (
        lambda m2, v2: (var - lr / (f32(1) - beta1_power) * (m2 / (v2 + epsilon)), m2, v2))(
        m + (grad - m) * (f32(1) - beta1), np.maximum(beta2 * v, np.abs(grad))),
    "ApplyRMSProp": lambda var, ms, mom, lr, rho, momentum, epsilon, grad, **k: (
        lambda ms2: (lambda mom2: (var - mom2, ms2, mom2))(mom * momentum + grad * lr / np.sqrt(ms2 + epsilon)))(
        ms + (grad * grad - ms) * (f32(1) - rho)),
    "ApplyCenteredRMSProp": lambda var, mg, ms, mom, lr, rho, momentum, epsilon, grad, **k: (
        lambda ms2, mg2: (lambda mom2: (var - mom2, mg2, ms2, mom2))(
            mom * momentum + grad * lr / np.sqrt(ms2 - mg2 * mg2 + epsilon)))(
        ms + (grad * grad - ms) * (f32(1) - rho), mg + (grad - mg) * (f32(1) - rho)),
    "ApplyFtrl": lambda var, accum, linear, grad, lr, l1, l2, lr_power, **k: (
        lambda na: (lambda lin: (np.where(np.abs(lin) > l1, (l1 * np.sign(lin) - lin) / (np.sqrt(na) / lr
                                                                                          + f32(2) * l2),
                                          f32(0)), na, lin))(
            linear + (grad - (np.sqrt(na) - np.sqrt(accum)) / lr * var)))(accum + grad * grad),
    "ApplyAddSign": lambda var, m, lr, alpha, sign_decay, beta, grad, **k: (
        lambda m2: (var - lr * (alpha + sign_decay * (np.sign(grad) * np.sign(m2))) * grad, m2))(
        m * beta + grad * (f32(1) - beta)),
    "ApplyPowerSign": lambda var, m, lr, logbase, sign_decay, beta, grad, **k: (
        lambda m2: (var - lr * np.exp(logbase * sign_decay * (np.sign(grad) * np.sign(m2))) * grad, m2))(
        m * beta + grad * (f32(1) - beta)),
}
NUMPY["ApplyFtrlV2"] = lambda var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power, **k: (
    lambda gs, na: (lambda lin: (np.where(np.abs(lin) > l1, (l1 * np.sign(lin) - lin) / (np.sqrt(na) / lr
                                                                                          + f32(2) * l2),
                                          f32(0)), na, lin))(
        linear + (gs - (np.sqrt(na) - np.sqrt(accum)) / lr * var)))(
    grad + f32(2) * l2_shrinkage * var, accum + grad * grad)


@njit_sized
def _floor1(g, a):
    for i in prange(g.size):
        a[i] += g[i]


@njit_sized
def _floor2(g, a, b):
    for i in prange(g.size):
        a[i] += g[i]
        b[i] += g[i]


@njit_sized
def _floor3(g, a, b, c):
    for i in prange(g.size):
        a[i] += g[i]
        b[i] += g[i]
        c[i] += g[i]


@njit_sized
def _floor4(g, a, b, c, d):
    for i in prange(g.size):
        a[i] += g[i]
        b[i] += g[i]
        c[i] += g[i]
        d[i] += g[i]


FLOORS = {1: _floor1, 2: _floor2, 3: _floor3, 4: _floor4}


def _inputs(op, n, rng):
    kw = {}
    for name in op.inputs:
        if name in op.refs:
            x = rng.standard_normal(n).astype(f32)
            kw[name] = x if name == "var" or "linear" in name or name in ("m", "mom", "mg", "gradient_accumulator") \
                else np.abs(x) + f32(0.1)
        elif name in ("grad", "delta"):
            kw[name] = rng.standard_normal(n).astype(f32)
        elif name == "global_step":
            kw[name] = np.int64(HYPER[name])
        else:
            kw[name] = f32(HYPER.get(name, 0.01))
    return kw


def _time(fn, reps):
    fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return 1e3 * float(np.median(ts))


def _tf_step(tf, op_name, kw, op):
    f = getattr(tf.raw_ops, "Resource" + op_name, None)
    if f is None:
        return None
    handles = {r: tf.Variable(kw[r]) for r in op.refs}
    consts = {k: tf.constant(v) for k, v in kw.items() if k not in op.refs}

    @tf.function
    def step():
        f(**{r: handles[r].handle for r in op.refs}, **consts)

    return step


def floor_ms(n_refs, n, reps, rng):
    g = rng.standard_normal(n).astype(f32)
    arrs = [rng.standard_normal(n).astype(f32) for _ in range(n_refs)]
    k = FLOORS[n_refs]
    return min(_time(lambda: k.serial(g, *arrs), reps), _time(lambda: k.parallel(g, *arrs), reps))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1e5,1e6,1e7")
    ap.add_argument("--ops", default="")
    ap.add_argument("--no-tf", action="store_true")
    args = ap.parse_args()
    import ref.ops.training as pkg

    for info in pkgutil.iter_modules(pkg.__path__):
        importlib.import_module(f"ref.ops.training.{info.name}")
    names = sorted(n for n in registry.registered() if n.startswith("Apply"))
    if args.ops:
        names = [n for n in names if n in args.ops.split(",")]
    tf = None
    if not args.no_tf:
        try:
            import tensorflow as tf
        except ImportError:
            tf = None
    rng = np.random.default_rng(0)
    print(f"{'op':30s} {'n':>6s} {'ref ms':>8s} {'numpy':>8s} {'tf':>8s} {'floor':>8s} "
          f"{'ref/floor':>9s} {'ref/tf':>7s} {'numpy/ref':>9s}")
    for size in (int(float(s)) for s in args.sizes.split(",")):
        reps = 200 if size <= 10**5 else (30 if size <= 10**6 else 15)
        floors = {k: floor_ms(k, size, reps, rng) for k in FLOORS}
        rows = []
        for name in names:  # ref and NumPy first: TF's thread pool spins after its ops
            op = registry.get(name)
            kw = _inputs(op, size, rng)
            bufs = tuple(kw[r] for r in op.refs)
            ours = _time(lambda: op.kernel(**kw, **op.attrs, out=bufs), reps)
            npy = _time(lambda: NUMPY[name](**kw), max(3, reps // 4)) if name in NUMPY else float("nan")
            rows.append((name, op, kw, ours, npy))
        for name, op, kw, ours, npy in rows:
            theirs = float("nan")
            if tf is not None:
                step = _tf_step(tf, name, kw, op)
                if step is not None:
                    theirs = _time(step, reps)
            fl = floors[len(op.refs)]
            print(f"{name:30s} {size:6.0e} {ours:8.4f} {npy:8.4f} {theirs:8.4f} {fl:8.4f} "
                  f"{ours / fl:9.2f} {ours / theirs:7.2f} {npy / ours:9.2f}", flush=True)


if __name__ == "__main__":
    main()
