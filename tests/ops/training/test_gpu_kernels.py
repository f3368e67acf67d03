"""GPU kernels of the dense training ops (ref/ops/_cuda.py, _apply.gpu_dense) under
numba's CUDA simulator: every GPU result equals the CPU kernel's bit for bit.

The simulator must be switched on before numba is imported, and must not leak
into this process (where the CPU kernels compile normally), so one subprocess
(this file run as a script with NUMBA_ENABLE_CUDASIM=1) runs every case and
reports JSON; the tables below check its report. The CPU kernels themselves are
checked against TensorFlow in test_update_kernels*.py, so "equal to the CPU
kernel" is equal to the tested TF arithmetic. Arrays have 37 elements (two
simulated blocks of 32 threads; the grid-stride loop covers the rest).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]
N = 37

# (case id, op, {input: array kind or value}); kinds: "n" normal, "p" positive, "s" small
# (|x| < 0.3: centered RMSProp's ms - mg^2 stays positive), "g" the gradient.
CASES = [
    ("GradientDescent", "ApplyGradientDescent", dict(var="n", alpha=0.1, delta="g")),
    ("ProximalGradientDescent", "ApplyProximalGradientDescent", dict(var="n", alpha=0.1, l1=0.05, l2=0.2,
                                                                     delta="g")),
    ("Momentum", "ApplyMomentum", dict(var="n", accum="n", lr=0.1, grad="g", momentum=0.9)),
    ("Momentum_nesterov", "ApplyMomentum", dict(var="n", accum="n", lr=0.1, grad="g", momentum=0.9,
                                                use_nesterov=True)),
    ("KerasMomentum", "ApplyKerasMomentum", dict(var="n", accum="n", lr=0.1, grad="g", momentum=0.9,
                                                 use_nesterov=True)),
    ("Adagrad", "ApplyAdagrad", dict(var="n", accum="p", lr=0.1, grad="g")),
    ("Adagrad_no_slots", "ApplyAdagrad", dict(var="n", accum="p", lr=0.1, grad="g", update_slots=False)),
    ("AdagradV2", "ApplyAdagradV2", dict(var="n", accum="p", lr=0.1, epsilon=1e-7, grad="g")),
    ("Adam", "ApplyAdam", dict(var="n", m="n", v="p", beta1_power=0.9 ** 3, beta2_power=0.999 ** 3, lr=0.01,
                               beta1=0.9, beta2=0.999, epsilon=1e-8, grad="g")),
    ("Adam_nesterov", "ApplyAdam", dict(var="n", m="n", v="p", beta1_power=0.81, beta2_power=0.998, lr=0.01,
                                        beta1=0.9, beta2=0.999, epsilon=1e-8, grad="g", use_nesterov=True)),
    ("AdaMax", "ApplyAdaMax", dict(var="n", m="n", v="p", beta1_power=0.729, lr=0.01, beta1=0.9, beta2=0.999,
                                   epsilon=1e-8, grad="g")),
    ("RMSProp", "ApplyRMSProp", dict(var="n", ms="p", mom="n", lr=0.01, rho=0.9, momentum=0.5, epsilon=1e-10,
                                     grad="g")),
    ("CenteredRMSProp", "ApplyCenteredRMSProp", dict(var="n", mg="s", ms="p", mom="n", lr=0.01, rho=0.9,
                                                     momentum=0.5, epsilon=1e-3, grad="g")),
    ("Ftrl", "ApplyFtrl", dict(var="n", accum="p", linear="n", grad="g", lr=0.1, l1=0.05, l2=0.1,
                               lr_power=-0.5)),
    ("Ftrl_pow", "ApplyFtrl", dict(var="n", accum="p", linear="n", grad="g", lr=0.1, l1=0.05, l2=0.1,
                                   lr_power=-0.6, multiply_linear_by_lr=True)),
    ("FtrlV2", "ApplyFtrlV2", dict(var="n", accum="p", linear="n", grad="g", lr=0.1, l1=0.05, l2=0.1,
                                   l2_shrinkage=0.2, lr_power=-0.5)),
    ("AddSign", "ApplyAddSign", dict(var="n", m="n", lr=0.1, alpha=1.0, sign_decay=0.9, beta=0.9, grad="g")),
    ("PowerSign", "ApplyPowerSign", dict(var="n", m="n", lr=0.1, logbase=float(np.e), sign_decay=0.9, beta=0.9,
                                         grad="g")),
    ("ProximalAdagrad", "ApplyProximalAdagrad", dict(var="n", accum="p", lr=0.1, l1=0.05, l2=0.1, grad="g")),
    ("Adadelta", "ApplyAdadelta", dict(var="n", accum="p", accum_update="p", lr=1.0, rho=0.95, epsilon=1e-6,
                                       grad="g")),
    ("AdagradDA", "ApplyAdagradDA", dict(var="n", gradient_accumulator="n", gradient_squared_accumulator="p",
                                         grad="g", lr=0.1, l1=0.05, l2=0.1, global_step=np.int64(7))),
]
DTYPES = ("float32", "float64")
UPDATE_NAMES = {  # the scalar function each op's GPU loop must run
    "ApplyGradientDescent": "gradient_descent_update", "ApplyProximalGradientDescent":
    "proximal_gradient_descent_update", "ApplyMomentum": "momentum_update", "ApplyKerasMomentum":
    "keras_momentum_update", "ApplyAdagrad": "adagrad_update", "ApplyAdagradV2": "adagrad_v2_update",
    "ApplyAdam": "adam_update", "ApplyAdaMax": "adamax_update", "ApplyRMSProp": "rmsprop_update",
    "ApplyCenteredRMSProp": "centered_rmsprop_update", "ApplyFtrl": "ftrl_update", "ApplyFtrlV2": "ftrl_update",
    "ApplyAddSign": "addsign_update", "ApplyPowerSign": "powersign_update", "ApplyProximalAdagrad":
    "proximal_adagrad_update", "ApplyAdadelta": "adadelta_update", "ApplyAdagradDA": "adagrad_da_update"}
# Every dense training op is registered with a GPU kernel (and its Resource twin).
REGISTERED = ["ApplyGradientDescent", "ApplyProximalGradientDescent", "ApplyAdagradDA", "ApplyMomentum", "ApplyKerasMomentum", "ApplyAdagrad", "ApplyAdagradV2", "ApplyAdam", "ApplyAdaMax",
              "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyFtrl", "ApplyFtrlV2", "ApplyAddSign", "ApplyPowerSign",
              "ApplyProximalAdagrad", "ApplyAdadelta"]


# -- the worker: run as a script with NUMBA_ENABLE_CUDASIM=1 ----------------------------------

def _inputs(spec, dtype, seed):
    rng = np.random.default_rng(seed)
    kw = {}
    for k, v in spec.items():
        if v in ("n", "g"):
            kw[k] = rng.standard_normal(N).astype(dtype)
        elif v == "p":
            kw[k] = (np.abs(rng.standard_normal(N)) + 0.1).astype(dtype)
        elif v == "s":
            kw[k] = (0.3 * np.tanh(rng.standard_normal(N))).astype(dtype)
        elif isinstance(v, float):
            kw[k] = np.dtype(dtype).type(v)
        else:
            kw[k] = v
    return kw


def _bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(
        a.view(f"u{a.dtype.itemsize}"), b.view(f"u{b.dtype.itemsize}")))


def _max_ulp(a, b):
    from ref.golden.ulp import ulp_distance

    return int(np.max(ulp_distance(np.asarray(a), np.asarray(b)), initial=0))


def _gpu(op, **kw):
    from ref.ops import registry
    from ref.ops.training._apply import gpu_dense

    opdef = registry.get(op)
    if opdef.gpu_kernel is not None:
        return registry.call(op, device="gpu", **kw)
    return gpu_dense(opdef.kernel)(**kw)


def _worker():
    from numba import config

    assert config.ENABLE_CUDASIM, "the worker must run under NUMBA_ENABLE_CUDASIM=1"
    from numba import cuda

    from ref.ops import registry
    from ref.ops import _cuda

    import ref.ops

    ref.ops.load_all()
    report = {"cases": {}, "checks": {}}
    for seed, (case, op, spec) in enumerate(CASES):
        for dtype in DTYPES:
            kw = _inputs(spec, dtype, seed)
            before = {k: np.copy(v) for k, v in kw.items() if isinstance(v, np.ndarray)}
            cpu = registry.call(op, **kw)
            _cuda._KERNELS.clear()  # what this call compiles: its op's loop, for its dtype
            gpu = _gpu(op, **kw)
            built = sorted(f"{k[0].__name__}-{np.dtype(k[3]).name}" for k in _cuda._KERNELS)
            report["cases"][f"{case}-{dtype}"] = {
                "n_out": [len(cpu), len(gpu)],
                "finite": all(bool(np.isfinite(c).all()) for c in cpu),
                "equal": all(_bits_equal(c, g) for c, g in zip(cpu, gpu)),
                "max_ulp": max(_max_ulp(c, g) for c, g in zip(cpu, gpu)),
                "numpy": all(type(g) is np.ndarray for g in gpu),
                "inputs_unchanged": all(_bits_equal(before[k], kw[k]) for k in before),
                "built": built,
            }
    checks = report["checks"]

    # device arrays in (cuda.to_device), new host arrays out; Python-float hyperparameters
    # take the device arrays' dtype (float64 here), as they take a NumPy array's
    kw = {k: float(v) if isinstance(v, np.generic) else v for k, v in _inputs(CASES[8][2], "float64", 100).items()}
    cpu = registry.call("ApplyAdam", **kw)
    dev = {k: cuda.to_device(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    gpu = registry.call("ApplyAdam", device="gpu", **dev)
    checks["device_arrays"] = all(_bits_equal(c, g) for c, g in zip(cpu, gpu))

    # out= host buffers, including the inputs themselves (the interpreter's in-place update)
    kw = _inputs(CASES[2][2], "float64", 101)
    cpu = registry.call("ApplyMomentum", **kw)
    bufs = (np.full(N, np.nan), np.full(N, np.nan))
    res = registry.get("ApplyMomentum").gpu_kernel(**kw, out=bufs)
    checks["out_buffers"] = res[0] is bufs[0] and res[1] is bufs[1] and all(map(_bits_equal, cpu, bufs))
    res = registry.get("ApplyMomentum").gpu_kernel(**kw, out=(kw["var"], kw["accum"]))
    checks["out_in_place"] = res[0] is kw["var"] and all(map(_bits_equal, cpu, (kw["var"], kw["accum"])))

    # a 2-D, non-contiguous var (Fortran order) keeps its shape
    kw = _inputs(CASES[5][2], "float32", 102)
    kw = {k: np.asfortranarray(v.reshape(1, N).repeat(2, 0)) if isinstance(v, np.ndarray) else v
          for k, v in kw.items()}
    cpu = registry.call("ApplyAdagrad", **kw)
    gpu = registry.call("ApplyAdagrad", device="gpu", **kw)
    checks["fortran_2d"] = all(_bits_equal(c, g) for c, g in zip(cpu, gpu))

    def error(fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - the type and message are the result
            return f"{type(e).__name__}: {e}"
        return "no error"

    sparse = dict(var=np.zeros((3, 2), np.float32), accum=np.ones((3, 2), np.float32), lr=0.1,
                  grad=np.ones((1, 2), np.float32), indices=np.array([1], np.int32))
    checks["sparse_error"] = error(lambda: registry.call("SparseApplyAdagrad", device="gpu", **sparse))
    checks["sparse_cpu_works"] = error(lambda: registry.call("SparseApplyAdagrad", **sparse))
    half = {k: v.astype(np.float16) if isinstance(v, np.ndarray) else v
            for k, v in _inputs(CASES[2][2], "float32", 103).items()}
    checks["float16_error"] = error(lambda: registry.call("ApplyMomentum", device="gpu", **half))
    checks["bad_device"] = error(lambda: registry.call("ApplyMomentum", device="tpu", **half))
    checks["registered"] = sorted(n for n, o in registry.registered().items() if o.gpu_kernel is not None)
    checks["shape_error"] = error(lambda: registry.call(
        "ApplyMomentum", device="gpu", var=np.zeros(3, np.float32), accum=np.zeros(4, np.float32), lr=0.1,
        grad=np.zeros(3, np.float32), momentum=0.9))
    print("REPORT " + json.dumps(report))


# -- the tests -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def report():
    try:
        from numba.cuda import simulator  # noqa: F401
    except ImportError as e:
        pytest.skip(f"numba's CUDA simulator is unavailable ({e})")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, __file__], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("REPORT ")]
    assert proc.returncode == 0 and lines, f"worker failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return json.loads(lines[-1][len("REPORT "):])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case,op", [(c, o) for c, o, _ in CASES])
def test_gpu_equals_cpu_bit_for_bit(report, case, op, dtype):
    r = report["cases"][f"{case}-{dtype}"]
    assert r["n_out"][0] == r["n_out"][1]
    assert r["equal"], f"max ULP distance {r['max_ulp']}"
    assert r["finite"] and r["numpy"] and r["inputs_unchanged"]
    assert r["built"] == [f"{UPDATE_NAMES[op]}-{dtype}"], "the call did not compile its op's GPU loop"


@pytest.mark.parametrize("check", ["device_arrays", "out_buffers", "out_in_place", "fortran_2d"])
def test_gpu_calling_conventions(report, check):
    assert report["checks"][check] is True


@pytest.mark.parametrize("check,expected", [
    ("sparse_error", "TypeError: SparseApplyAdagrad has no GPU kernel; call it with device='cpu'"),
    ("sparse_cpu_works", "no error"),
    ("float16_error", "TypeError: no GPU kernel for dtype float16 (float32 and float64 only)"),
    ("bad_device", "ValueError: device must be 'cpu' or 'gpu', got 'tpu'"),
    ("shape_error", "InvalidArgumentError: var and accum do not have the same shape[3] [4]"),
])
def test_gpu_errors(report, check, expected):
    assert report["checks"][check].startswith(expected)


@pytest.mark.parametrize("op", REGISTERED)
def test_dense_ops_register_gpu_kernels(report, op):
    assert op in report["checks"]["registered"]
    assert "Resource" + op in report["checks"]["registered"]


def test_simulator_does_not_leak_into_this_process():
    from numba import config

    assert not config.ENABLE_CUDASIM


if __name__ == "__main__":
    _worker()
