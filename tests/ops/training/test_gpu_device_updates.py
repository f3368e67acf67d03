"""Device-resident GPU kernels of every training update (ref/ops/gpu_training.py),
dense and sparse, ref and Resource forms, under numba's CUDA simulator: device
arrays in, device arrays out, equal to the CPU kernel bit for bit (the same scalar
update in the same order; test_update_kernels*.py checks the CPU kernels against TF).

The hyperparameters of each algorithm are test_gpu_kernels.py's CASES (one table);
a sparse row updates rows [1, 4, 1] of a [6, 3] variable (a duplicate index applies
twice, in order, as on the CPU). One subprocess (this file run as a script with
NUMBA_ENABLE_CUDASIM=1) runs every row and reports JSON.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ref.ops import gpu_training as _under_test  # noqa: F401
from ref.ops.training._apply import capturing  # noqa: F401  (how each device kernel reads its CPU kernel)
from tests.ops.training.test_gpu_kernels import CASES

ROOT = Path(__file__).resolve().parents[3]
SHAPE = (6, 3)
INDICES = np.array([1, 4, 1], np.int32)
DTYPES = ("float32", "float64")


def _rows():
    """(case, op, spec, sparse) for every Apply* case, its SparseApply* twin where TF has
    one, and the Resource forms of both (the same kernel on resource handles)."""
    from ref.ops import registry

    rows = []
    for case, op, spec in CASES:
        for sparse in (False, True):
            name = ("Sparse" if sparse else "") + op
            if name not in registry.registered():
                continue
            rows.append((f"{case}{'-sparse' if sparse else ''}", name, spec, sparse))
            rows.append((f"{case}{'-sparse' if sparse else ''}-resource", "Resource" + name, spec, sparse))
    return rows


ROWS = _rows()


def _inputs(spec, dtype, seed, sparse):
    rng = np.random.default_rng(seed)
    kw = {}
    for k, v in spec.items():
        shape = (len(INDICES),) + SHAPE[1:] if sparse and v == "g" else SHAPE
        if v in ("n", "g"):
            kw[k] = rng.standard_normal(shape).astype(dtype)
        elif v == "p":
            kw[k] = (np.abs(rng.standard_normal(shape)) + 0.1).astype(dtype)
        elif v == "s":
            kw[k] = (0.3 * np.tanh(rng.standard_normal(shape))).astype(dtype)
        elif isinstance(v, float):
            kw[k] = np.dtype(dtype).type(v)
        else:
            kw[k] = v
    if sparse:  # the sparse ops name the gradient ``grad`` (the dense ProximalGradientDescent: ``delta``)
        if "delta" in kw:
            kw["grad"] = kw.pop("delta")
        kw["indices"] = INDICES
    return kw


def _bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(
        a.view(f"u{a.dtype.itemsize}"), b.view(f"u{b.dtype.itemsize}")))


def _worker():
    from ref.ops import gpu, registry
    from ref.session import devices  # noqa: F401  (registers the GPU kernels)

    report = {}
    for seed, (case, op, spec, sparse) in enumerate(ROWS):
        for dtype in DTYPES:
            kw = _inputs(spec, dtype, seed, sparse)
            opdef = registry.get(op)
            attrs = {k: v for k, v in kw.items() if k not in opdef.inputs}
            ins = {k: kw[k] for k in opdef.inputs}
            cpu = registry.get(op).kernel(**{k: np.copy(v) if isinstance(v, np.ndarray) else v
                                             for k, v in kw.items()})
            k = gpu.GPU_OPS[op]
            args = [v if (n in k.scalars and np.ndim(v) == 0) else gpu.to_device(v) for n, v in ins.items()]
            gpu.reset_copies()
            got = k.fn(*args, **attrs)
            on_device = all(gpu.is_device_array(g) for g in got)
            copies = sum(gpu.COPIES.values())
            report[f"{case}-{dtype}"] = dict(
                equal=all(_bits_equal(c, gpu.to_host(g)) for c, g in zip(cpu, got)), n=[len(cpu), len(got)],
                on_device=on_device, copies=copies, finite=all(bool(np.isfinite(c).all()) for c in cpu))
    # Adam whose beta powers are device values (AdamOptimizer's variables beside the first var)
    kw = _inputs(CASES[8][2], "float32", 99, False)
    cpu = registry.get("ApplyAdam").kernel(**kw)
    k = gpu.GPU_OPS["ApplyAdam"]
    dev = {n: (gpu.to_device(v) if n in ("var", "m", "v", "grad", "beta1_power", "beta2_power") else v)
           for n, v in kw.items()}
    gpu.reset_copies()
    got = k.fn(*[dev[n] for n in registry.get("ApplyAdam").inputs])
    copies = sum(gpu.COPIES.values())
    report["adam_device_powers"] = dict(equal=all(_bits_equal(c, gpu.to_host(g)) for c, g in zip(cpu, got)),
                                        copies=copies)
    # an out-of-range sparse index is skipped (TF's GPU kernels); the CPU kernel raises
    kw = _inputs(CASES[5][2], "float32", 98, True)
    kw["indices"] = np.array([1, 9, 4], np.int32)
    ok = np.array([True, False, True])
    cpu = registry.get("SparseApplyAdagrad").kernel(**{**kw, "grad": kw["grad"][ok], "indices": kw["indices"][ok]})
    k = gpu.GPU_OPS["SparseApplyAdagrad"]
    got = k.fn(*[kw[n] if np.ndim(kw[n]) == 0 else gpu.to_device(kw[n])
                 for n in registry.get("SparseApplyAdagrad").inputs])
    report["sparse_out_of_range"] = dict(equal=all(_bits_equal(c, gpu.to_host(g)) for c, g in zip(cpu, got)))
    print("REPORT " + json.dumps(report))


@pytest.fixture(scope="module")
def report():
    try:
        from numba.cuda import simulator  # noqa: F401
    except ImportError as e:
        pytest.skip(f"numba's CUDA simulator is unavailable ({e})")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": os.pathsep.join(
        [str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, __file__], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("REPORT ")]
    assert proc.returncode == 0 and lines, f"worker failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return json.loads(lines[-1][len("REPORT "):])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case,op", [(c, o) for c, o, _, _ in ROWS])
def test_device_update_equals_cpu_bit_for_bit(report, case, op, dtype):
    r = report[f"{case}-{dtype}"]
    assert r["n"][0] == r["n"][1] and r["finite"]
    assert r["equal"], f"{op} {dtype}: the GPU update differs from the CPU kernel's"
    assert r["on_device"] and r["copies"] == 0  # device arrays in and out, nothing moved to or from the host


def test_every_training_op_has_a_device_kernel():
    from ref.ops import gpu, registry

    ops = {n for n in registry.registered() if (n.removeprefix("Resource").startswith("Apply")
                                                or n.removeprefix("Resource").startswith("SparseApply"))}
    assert ops <= set(gpu.GPU_OPS) and ops == set(_under_test.TRAINING_OPS)
    assert {op for _, op, _, _ in ROWS} == ops  # and every one of them is a row above


def test_adam_with_device_beta_powers(report):
    assert report["adam_device_powers"] == {"equal": True, "copies": 0}


def test_sparse_out_of_range_index_is_skipped(report):
    assert report["sparse_out_of_range"]["equal"]


if __name__ == "__main__":
    _worker()
