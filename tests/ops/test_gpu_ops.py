"""ref/ops/gpu.py's kernels (device arrays in and out) against the CPU kernels, under
numba's CUDA simulator.

One subprocess (this file run as a script with NUMBA_ENABLE_CUDASIM=1: the simulator
must be on before numba is imported) runs every row and reports the largest ULP
distance to the CPU kernel and the copies counted; the table states each budget:

* 0 ULP where the GPU does the CPU kernel's operations in its order: element-wise
  ops, broadcasting, casts, tiles, reshapes, the sparse cross entropy's row loop
  (it is ``nn._sparse_xent_rows``), the gradient-descent update (the same scalar
  ``gradient_descent_update``);
* where the order differs (the matmul and the reductions add left to right, the
  CPU kernels in blocked/pairwise order) the budget is Higham's bound for two
  orders of an n-term sum: |gpu - cpu| <= n * eps * (the same sum of |terms|),
  reported in units of eps * sum|terms| (a budget of n for n terms); "ulp" rows
  (Tanh, Sigmoid: libm vs CUDA's/Python's ``math``) are in ULP of the result.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ref.ops.gpu import GPU_OPS

ROOT = Path(__file__).resolve().parents[2]

# (id, op, inputs {name: (shape, kind)} or a value, attrs, max ULP); kinds: "n" normal, "l" labels < 3
ROWS = [
    ("Relu", "Relu", dict(features=((6, 5), "n")), {}, 0),
    ("Relu6", "Relu6", dict(features=((7,), "n")), {}, 0),
    ("Neg", "Neg", dict(x=((7,), "n")), {}, 0),
    ("Square", "Square", dict(x=((7,), "n")), {}, 0),
    ("Tanh", "Tanh", dict(x=((7,), "n")), {}, 2),
    ("Sigmoid", "Sigmoid", dict(x=((7,), "n")), {}, 1),
    ("AddV2_broadcast", "AddV2", dict(x=((4, 3), "n"), y=((3,), "n")), {}, 0),
    ("Sub_broadcast", "Sub", dict(x=((4, 1), "n"), y=((1, 3), "n")), {}, 0),
    ("Mul", "Mul", dict(x=((2, 3, 4), "n"), y=((2, 3, 4), "n")), {}, 0),
    ("RealDiv_scalar", "RealDiv", dict(x=((5,), "n"), y=np.float32(4.0)), {}, 0),
    ("Maximum", "Maximum", dict(x=((5,), "n"), y=((5,), "n")), {}, 0),
    ("ReluGrad", "ReluGrad", dict(gradients=((4, 3), "n"), features=((4, 3), "n")), {}, 0),
    ("TanhGrad", "TanhGrad", dict(y=((6,), "n"), dy=((6,), "n")), {}, 0),
    ("MatMul", "MatMul", dict(a=((5, 7), "n"), b=((7, 6), "n")), {}, 7),
    ("MatMul_ta", "MatMul", dict(a=((7, 5), "n"), b=((7, 3), "n")), dict(transpose_a=True), 7),
    ("MatMul_tb", "MatMul", dict(a=((5, 9), "n"), b=((3, 9), "n")), dict(transpose_b=True), 9),
    ("BiasAdd", "BiasAdd", dict(value=((4, 3), "n"), bias=((3,), "n")), {}, 0),
    ("BiasAddGrad", "BiasAddGrad", dict(out_backprop=((6, 3), "n")), {}, 6),
    ("Sum_rows", "Sum", dict(input=((6, 4), "n"), axis=np.array([0], np.int32)), {}, 6),
    ("Sum_all_keep", "Sum", dict(input=((3, 4), "n"), axis=np.array([0, 1], np.int32)), dict(keep_dims=True), 12),
    ("Mean_cols", "Mean", dict(input=((3, 5), "n"), axis=np.array([1], np.int32)), {}, 5),
    ("SparseXent", "SparseSoftmaxCrossEntropyWithLogits", dict(features=((5, 3), "n"), labels=((5,), "l")), {}, 0),
    ("Xent", "SoftmaxCrossEntropyWithLogits", dict(features=((4, 3), "n"), labels=((4, 3), "p")), {}, 4),
    ("Tile", "Tile", dict(input=((2, 3), "n"), multiples=np.array([2, 2], np.int32)), {}, 0),
    ("Reshape", "Reshape", dict(tensor=((2, 6), "n"), shape=np.array([3, -1], np.int32)), {}, 0),
    ("ExpandDims", "ExpandDims", dict(input=((4,), "n"), axis=np.array(1, np.int32)), {}, 0),
    ("Cast", "Cast", dict(x=((5,), "n")), dict(DstT="float64"), 0),
    ("ApplyGradientDescent", "ApplyGradientDescent", dict(var=((5, 3), "n"), alpha=np.float32(0.1),
                                                         delta=((5, 3), "n")), {}, 0),
]
DTYPES = ("float32", "float64")
_SUMS = frozenset(("MatMul", "Sum", "Mean", "BiasAddGrad"))
"""Rows whose budget is in units of eps * sum|terms| (the summation order differs)."""


def _inputs(spec, dtype, rng):
    out = {}
    for name, s in spec.items():
        if not isinstance(s, tuple):
            out[name] = s.astype(dtype) if s.dtype.kind == "f" else s
            continue
        shape, kind = s
        if kind == "l":
            out[name] = rng.randint(0, 3, shape).astype(np.int64)
        elif kind == "p":
            p = rng.rand(*shape) + 0.1
            out[name] = (p / p.sum(-1, keepdims=True)).astype(dtype)
        else:
            out[name] = rng.uniform(-2, 2, shape).astype(dtype)
    return out


def _worker():
    from ref.golden.ulp import max_ulp
    from ref.ops import gpu, registry
    from ref.types import dtypes

    report = {}
    for case, op, spec, attrs, _ in ROWS:
        for dtype in DTYPES:
            rng = np.random.RandomState(7)
            ins = _inputs(spec, dtype, rng)
            attrs_ = {k: (dtypes.as_dtype(v) if k == "DstT" else v) for k, v in attrs.items()}
            cpu = registry.get(op).kernel(**ins, **attrs_)
            k = GPU_OPS[op]
            args = [v if n in k.host or (n in k.scalars and np.ndim(v) == 0) else gpu.to_device(v)
                    for n, v in ins.items()]
            gpu.reset_copies()
            got = k.fn(*args, **attrs_)
            cpu = cpu if isinstance(cpu, tuple) else (cpu,)
            got = got if isinstance(got, tuple) else (got,)
            on_device = all(gpu.is_device_array(g) for g in got)
            got = [gpu.to_host(g) for g in got]
            bound = 0.0
            if op in _SUMS:  # |gpu - cpu| in units of eps * (the op on |inputs|)
                mag = registry.get(op).kernel(**{n: (np.abs(v) if np.asarray(v).dtype.kind == "f" else v)
                                                 for n, v in ins.items()}, **attrs_)
                eps = np.finfo(dtype).eps
                bound = float(np.max(np.abs(np.asarray(got[0], np.float64) - cpu[0]) / (eps * np.maximum(mag, 1e-30))))
            report[f"{case}-{dtype}"] = dict(bound=bound,
                ulp=0 if op in _SUMS else max(int(max_ulp(np.asarray(g), np.asarray(c))) if np.size(c) else 0 for g, c in zip(got, cpu)),
                shapes=[list(np.shape(g)) == list(np.shape(c)) for g, c in zip(got, cpu)],
                dtypes=[str(np.asarray(g).dtype) == str(np.asarray(c).dtype) for g, c in zip(got, cpu)],
                on_device=on_device, copies_in_kernel=sum(gpu.COPIES.values()) - len(got))
    print("REPORT " + json.dumps(report))


@pytest.fixture(scope="module")
def report():
    try:
        from numba.cuda import simulator  # noqa: F401
    except ImportError as e:
        pytest.skip(f"numba's CUDA simulator is unavailable ({e})")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, __file__], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("REPORT ")]
    assert proc.returncode == 0 and lines, f"worker failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return json.loads(lines[-1][len("REPORT "):])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case,op,spec,attrs,budget", ROWS, ids=[r[0] for r in ROWS])
def test_gpu_kernel_matches_cpu_kernel(report, case, op, spec, attrs, budget, dtype):
    r = report[f"{case}-{dtype}"]
    assert all(r["shapes"]) and all(r["dtypes"]), r
    assert r["ulp"] <= budget, f"{case} {dtype}: {r['ulp']} ULP from the CPU kernel (budget {budget})"
    assert r["bound"] <= budget, f"{case} {dtype}: {r['bound']} eps*sum|terms| from the CPU kernel (budget {budget})"
    assert r["copies_in_kernel"] == 0  # a kernel never moves data between host and device
    if op not in ("Shape", "Size"):
        assert r["on_device"]


def test_every_row_names_a_registered_gpu_kernel():
    assert {op for _, op, *_ in ROWS} <= set(GPU_OPS)


if __name__ == "__main__":
    _worker()
