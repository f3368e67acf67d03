"""GPU kernels of a convnet, of gathers/scatters and of the Philox random ops
(ref/ops/gpu_nn.py, gpu_sparse.py, gpu_random.py) against the CPU kernels, under
numba's CUDA simulator (one subprocess: this file run as a script with
NUMBA_ENABLE_CUDASIM=1; it reports JSON that the tables check).

Budgets, row by row:

* "sum" rows (the convolutions): the GPU adds each window's taps left to right,
  the CPU in im2col + blocked-matmul order; |gpu - cpu| is reported in units of
  eps * (the op on |inputs|) and the budget is the number of terms of one sum
  (Higham's bound for two orders of an n-term sum);
* 0 ULP: pooling and its gradients (the CPU loops' comparisons and additions in
  their order), gathers, scatters and the segment sum (indices in order),
  Fill/ZerosLike, RandomUniform (the same Philox words, an exact conversion);
* the normals (Box-Muller through the device's log/sin/cos, libm's on the CPU) and
  Softmax (NumPy's sum order on the CPU): the ULP budget in the row.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ref.ops import gpu_nn as _under_test  # noqa: F401
from ref.ops.gpu import GPU_OPS

ROOT = Path(__file__).resolve().parents[2]
I32 = np.int32

_CONV = dict(strides=[1, 2, 1, 1], padding="SAME")
_CONV_V = dict(strides=[1, 1, 1, 1], padding="VALID", dilations=[1, 2, 1, 1])
_POOL = dict(ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
_POOL3 = dict(ksize=[1, 3, 3, 1], strides=[1, 2, 1, 1], padding="VALID")
_AVG = dict(ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")

# (id, op, inputs {name: (shape, kind)} or a value, attrs, budget, kind of budget); kinds of input:
# "n" normal, "t" ties (integers in [-2, 2]: equal maxima), "i<k>" indices in [0, k)
ROWS = [
    ("Conv2D_same_stride", "Conv2D", dict(input=((2, 5, 5, 2), "n"), filter=((3, 3, 2, 3), "n")), _CONV, 18, "sum"),
    ("Conv2D_valid_dilated", "Conv2D", dict(input=((1, 6, 5, 2), "n"), filter=((2, 2, 2, 2), "n")), _CONV_V, 8,
     "sum"),
    ("Conv2DBackpropInput", "Conv2DBackpropInput", dict(input_sizes=np.array([2, 5, 5, 2], I32),
                                                        filter=((3, 3, 2, 3), "n"), out_backprop=((2, 3, 5, 3), "n")),
     _CONV, 27, "sum"),
    ("Conv2DBackpropFilter", "Conv2DBackpropFilter", dict(input=((2, 5, 5, 2), "n"),
                                                          filter_sizes=np.array([3, 3, 2, 3], I32),
                                                          out_backprop=((2, 3, 5, 3), "n")), _CONV, 30, "sum"),
    ("MaxPool_same", "MaxPool", dict(input=((2, 5, 5, 2), "n")), _POOL, 0, "ulp"),
    ("MaxPool_ties", "MaxPool", dict(input=((1, 5, 4, 2), "t")), _POOL3, 0, "ulp"),
    ("MaxPoolGrad_same", "MaxPoolGrad", dict(orig_input=((2, 5, 5, 2), "n"), orig_output=((2, 3, 3, 2), "n"),
                                             grad=((2, 3, 3, 2), "n")), _POOL, 0, "ulp"),
    ("MaxPoolGrad_ties_overlap", "MaxPoolGrad", dict(orig_input=((1, 5, 4, 2), "t"), orig_output=((1, 2, 2, 2), "n"),
                                                     grad=((1, 2, 2, 2), "n")), _POOL3, 0, "ulp"),
    ("AvgPool", "AvgPool", dict(value=((2, 5, 5, 2), "n")), _AVG, 0, "ulp"),
    ("AvgPoolGrad", "AvgPoolGrad", dict(orig_input_shape=np.array([2, 5, 5, 2], I32), grad=((2, 3, 3, 2), "n")),
     _AVG, 0, "ulp"),
    ("Softmax", "Softmax", dict(logits=((4, 6), "n")), {}, 2, "ulp"),
    ("GatherV2", "GatherV2", dict(params=((6, 3), "n"), indices=((2, 3), "i6"), axis=np.array(0, I32)), {}, 0, "ulp"),
    ("Gather", "Gather", dict(params=((5, 2, 2), "n"), indices=((4,), "i5")), {}, 0, "ulp"),
    ("ScatterAdd_dups", "ScatterAdd", dict(ref=((6, 3), "n"), indices=np.array([1, 5, 1, 0], I32),
                                           updates=((4, 3), "n")), {}, 0, "ulp"),
    ("ScatterSub", "ScatterSub", dict(ref=((6, 3), "n"), indices=np.array([2, 2], np.int64),
                                      updates=((2, 3), "n")), {}, 0, "ulp"),
    ("ScatterUpdate_last_wins", "ScatterUpdate", dict(ref=((5, 2), "n"), indices=np.array([3, 1, 3], I32),
                                                      updates=((3, 2), "n")), {}, 0, "ulp"),
    ("ResourceScatterAdd", "ResourceScatterAdd", dict(resource=((6, 3), "n"), indices=np.array([4, 4], I32),
                                                      updates=((2, 3), "n")), {}, 0, "ulp"),
    ("UnsortedSegmentSum", "UnsortedSegmentSum", dict(data=((5, 3), "n"), segment_ids=np.array([1, 0, 1, 3, -1], I32),
                                                      num_segments=np.array(4, I32)), {}, 0, "ulp"),
    ("Fill", "Fill", dict(dims=np.array([2, 3], I32), value=np.float32(1.5)), {}, 0, "ulp"),
    ("ZerosLike", "ZerosLike", dict(x=((3, 2), "n")), {}, 0, "ulp"),
]
DTYPES = ("float32", "float64")

# (op, shape, budget in ULP); seeds (3, 7), two runs each (the stream moves on)
RANDOM_ROWS = [("RandomUniform", [3, 5], 0), ("RandomStandardNormal", [3, 5], 2), ("TruncatedNormal", [4, 5], 2),
               ("RandomStandardNormal", [7], 2)]


def _inputs(spec, dtype, rng):
    out = {}
    for name, s in spec.items():
        if not isinstance(s, tuple):
            out[name] = s.astype(dtype) if s.dtype.kind == "f" else s
            continue
        shape, kind = s
        if kind[0] == "i":
            out[name] = rng.randint(0, int(kind[1:]), shape).astype(np.int32)
        elif kind == "t":
            out[name] = rng.randint(-2, 3, shape).astype(dtype)
        else:
            out[name] = rng.uniform(-2, 2, shape).astype(dtype)
    return out


def _worker():
    from ref.golden.ulp import max_ulp
    from ref.ops import gpu, registry
    from ref.ops.philox import PhiloxRandom
    from ref.session import devices  # noqa: F401  (registers the GPU kernels)

    report = {}
    for case, op, spec, attrs, _, kind in ROWS:
        for dtype in DTYPES:
            ins = _inputs(spec, dtype, np.random.RandomState(7))
            if op == "MaxPoolGrad":
                ins["orig_output"] = registry.get("MaxPool").kernel(ins["orig_input"], **attrs)
            cpu = registry.get(op).kernel(**{n: np.copy(v) for n, v in ins.items()}, **attrs)
            k = GPU_OPS[op]
            args = [v if n in k.host or (n in k.scalars and np.ndim(v) == 0) else gpu.to_device(v)
                    for n, v in ins.items()]
            gpu.reset_copies()
            got = k.fn(*args, **attrs)
            copies = sum(gpu.COPIES.values())
            on_device = gpu.is_device_array(got)
            got = gpu.to_host(got)
            bound = 0.0
            if kind == "sum":
                mag = registry.get(op).kernel(**{n: (np.abs(v) if v.dtype.kind == "f" else v) for n, v in ins.items()},
                                              **attrs)
                bound = float(np.max(np.abs(got.astype(np.float64) - cpu) / (np.finfo(dtype).eps * np.maximum(mag, 1e-30))))
            report[f"{case}-{dtype}"] = dict(
                bound=bound, ulp=0 if kind == "sum" else int(max_ulp(got, np.asarray(cpu))) if got.size else 0,
                same=[list(got.shape) == list(np.shape(cpu)), str(got.dtype) == str(np.asarray(cpu).dtype)],
                on_device=on_device, copies=copies)

    class Ctx:
        def __init__(self):
            self.philox = PhiloxRandom(3, 7)

    for op, shape, _ in RANDOM_ROWS:
        for dtype in DTYPES:
            c_cpu, c_gpu = Ctx(), Ctx()
            ulps, same = [], []
            for _ in range(2):
                cpu = registry.get(op).kernel(np.array(shape, I32), dtype, 3, 7, ctx=c_cpu)
                got = GPU_OPS[op].fn(np.array(shape, I32), dtype=dtype, seed=3, seed2=7, ctx=c_gpu)
                on_device = gpu.is_device_array(got)
                got = gpu.to_host(got)
                ulps.append(int(max_ulp(got, cpu)))
                same.append(got.shape == cpu.shape and got.dtype == cpu.dtype)
            report[f"{op}{shape}-{dtype}"] = dict(ulp=max(ulps), same=same + [c_cpu.philox.counter == c_gpu.philox.counter],
                                                  on_device=on_device)

    # out-of-range indices on the GPU: a gather writes 0, a scatter skips the row (TF's GPU kernels)
    params = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = gpu.to_host(GPU_OPS["GatherV2"].fn(gpu.to_device(params), gpu.to_device(np.array([1, 7, -1], I32)),
                                             np.array(0, I32)))
    report["gather_out_of_range"] = got.tolist()
    got = gpu.to_host(GPU_OPS["ScatterAdd"].fn(gpu.to_device(params), gpu.to_device(np.array([9, 2], I32)),
                                               gpu.to_device(np.ones((2, 3), np.float32))))
    report["scatter_out_of_range"] = got.tolist()
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
@pytest.mark.parametrize("case,op,spec,attrs,budget,kind", ROWS, ids=[r[0] for r in ROWS])
def test_gpu_kernel_matches_cpu_kernel(report, case, op, spec, attrs, budget, kind, dtype):
    r = report[f"{case}-{dtype}"]
    assert all(r["same"]), r
    assert r["ulp"] <= budget, f"{case} {dtype}: {r['ulp']} ULP from the CPU kernel (budget {budget})"
    assert r["bound"] <= budget, f"{case} {dtype}: {r['bound']} eps*sum|terms| from the CPU kernel (budget {budget})"
    assert r["on_device"] and r["copies"] == 0  # device arrays out, nothing moved by the kernel


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op,shape,budget", RANDOM_ROWS)
def test_gpu_random_stream_matches_cpu(report, op, shape, budget, dtype):
    r = report[f"{op}{shape}-{dtype}"]
    assert all(r["same"]) and r["on_device"]  # shapes, dtypes, and the op's counter moved on alike
    assert r["ulp"] <= budget, f"{op} {dtype}: {r['ulp']} ULP from the CPU stream (budget {budget})"


def test_out_of_range_indices_follow_tf_gpu_kernels(report):
    assert report["gather_out_of_range"] == [[3.0, 4.0, 5.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    want = np.arange(12, dtype=np.float32).reshape(4, 3)
    want[2] += 1
    assert report["scatter_out_of_range"] == want.tolist()


def test_every_row_names_a_registered_gpu_kernel():
    from ref.session import devices  # noqa: F401

    assert {op for _, op, *_ in ROWS} | {op for op, _, _ in RANDOM_ROWS} <= set(GPU_OPS)


if __name__ == "__main__":
    _worker()
