"""``python -m ref warmup``: compile the common Numba kernels into Numba's on-disk
cache ahead of time, so that the first run of a training script does not.

Small inputs never need Numba (``ref.ops._jit``: exact NumPy forms while the
input is small), but a model whose tensors are larger compiles each kernel it
uses the first time it runs (a few seconds in all), and loads it from the
cache afterwards. This command runs, with the NumPy forms switched off, every
dense and sparse ``Apply*`` training kernel, softmax cross entropy (dense and
sparse), the fused bias-add/relu kernels, the random samplers, the large-matrix-product kernel and the
convolutions' chunked patch products (``ref.ops.patch_products``), in float32
and float64; with ``--parallel``
also the multi-threaded builds of the dense loops (used from
``REF_PARALLEL_MIN`` elements on; slower to compile). The cache is where Numba
keeps it: ``NUMBA_CACHE_DIR`` if set, else ``__pycache__`` beside the sources,
or a per-user cache directory when the package directory is read-only.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from ref.ops import _jit, fused, nn, registry

_HYPER = {"lr_power": -0.5, "global_step": 1}


def _training_inputs(op, dtype, size):
    sparse = "indices" in op.inputs
    kwargs = {}
    for name in op.inputs:
        if name == "indices":
            kwargs[name] = np.array([0, 1], np.int32)
        elif name in op.refs:
            kwargs[name] = np.full((size, 2) if sparse else (size,), 0.5, dtype)
        elif name in ("grad", "delta"):
            kwargs[name] = np.full((2, 2) if sparse else (size,), 0.25, dtype)
        elif name == "global_step":
            kwargs[name] = np.int64(1)
        else:
            kwargs[name] = dtype(_HYPER.get(name, 0.1))
    return kwargs


def _jobs(size):
    ops = registry.registered()
    for name in sorted(ops):
        op = ops[name]
        if name.startswith(("Apply", "SparseApply")) and op.kernel is not None:
            for dtype in (np.float32, np.float64):
                yield f"{name} {np.dtype(dtype).name}", (lambda n=name, o=op, d=dtype:
                                                         registry.call(n, **_training_inputs(o, d, size)))
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((4, 3)).astype(dtype)
        yield f"SoftmaxCrossEntropyWithLogits {np.dtype(dtype).name}", (
            lambda x=x: registry.call("SoftmaxCrossEntropyWithLogits", features=x, labels=np.abs(x)))
        yield f"SparseSoftmaxCrossEntropyWithLogits {np.dtype(dtype).name}", (
            lambda x=x: registry.call("SparseSoftmaxCrossEntropyWithLogits", features=x,
                                      labels=np.array([0, 1, 2, 0], np.int64)))
        a = rng.standard_normal((96, 64)).astype(dtype)  # above gemm.SERIAL_WORK: the kernel
        yield f"MatMul {np.dtype(dtype).name} (ref.ops.gemm_kernel)", (
            lambda a=a: registry.call("MatMul", a=a, b=a, transpose_b=True))
        b = np.abs(a[0])
        yield f"BiasAdd+Relu {np.dtype(dtype).name} (ref.ops.fused)", (
            lambda a=a, b=b: fused.bias_relu(nn.bias_add, nn.relu, a, b))
        yield f"ReluGrad+BiasAddGrad {np.dtype(dtype).name} (ref.ops.fused)", (
            lambda a=a: fused.relu_bias_grads(nn.relu_grad, nn.bias_add_grad, a, a))
        yield f"LSTM cell {np.dtype(dtype).name} (ref.ops.fused)", (
            lambda a=a, d=dtype: fused.lstm_cell(None, a, a, a, a, np.array(1, d), a))
        yield f"LSTM cell gradient {np.dtype(dtype).name} (ref.ops.fused)", (
            lambda a=a: fused.lstm_cell_grads(None, np.array(1, np.int32), a, a, a, None, False,
                                              [(False, None, a, a)] * 4))
        x = rng.standard_normal((2, 8, 8, 16)).astype(dtype)  # products on the kernel: patch_products' loops
        f = rng.standard_normal((3, 3, 16, 32)).astype(dtype)
        conv = dict(strides=[1, 1, 1, 1], padding="SAME")
        yield f"Conv2D+BiasAdd+Relu {np.dtype(dtype).name} (ref.ops.patch_products)", (
            lambda x=x, f=f: fused.conv_bias_relu(x, f, np.abs(f[0, 0, 0]), conv))
        yield f"Conv2D {np.dtype(dtype).name} (ref.ops.patch_products)", (
            lambda x=x, f=f: registry.call("Conv2D", input=x, filter=f, **conv))
        yield f"Conv2DBackpropFilter {np.dtype(dtype).name} (ref.ops.patch_products)", (
            lambda x=x, f=f: registry.call("Conv2DBackpropFilter", input=x, filter_sizes=np.array(f.shape, np.int32),
                                           out_backprop=np.ones((2, 8, 8, 32), f.dtype), **conv))
        for op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
            yield f"{op} {np.dtype(dtype).name}", (
                lambda op=op, dtype=dtype: registry.call(op, shape=np.array([64], np.int32), dtype=dtype,
                                                         seed=1, seed2=2))


def run(parallel=False, out=sys.stdout) -> tuple[int, int]:
    """Compiles (or loads) the kernels; returns (done, skipped)."""
    saved = _jit.NUMPY_MAX
    _jit.NUMPY_MAX = 0
    done = skipped = 0
    try:
        sizes = [8] + ([_jit.PARALLEL_MIN] if parallel else [])
        for size in sizes:
            for label, job in _jobs(size):
                start = time.perf_counter()
                try:
                    with np.errstate(all="ignore"):
                        job()
                except Exception as e:  # an op whose inputs this generic recipe does not fit
                    skipped += 1
                    print(f"  skipped {label}: {type(e).__name__}: {' '.join(str(e).split())[:100]}", file=out)
                    continue
                done += 1
                print(f"  {label}{' (parallel)' if size > 8 else ''}: {time.perf_counter() - start:.2f} s",
                      file=out)
    finally:
        _jit.NUMPY_MAX = saved
    return done, skipped


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ref warmup", description=(
        "Compile the common Numba kernels into Numba's on-disk cache ahead of time, so that the first run "
        "of a training script with large tensors does not (small tensors never need Numba)."))
    ap.add_argument("--parallel", action="store_true", help="also the multi-threaded builds of the dense loops")
    args = ap.parse_args(argv)
    if _jit.DISABLE:
        print("error: REF_DISABLE_JIT=1: nothing to compile", file=sys.stderr)
        return 1
    start = time.perf_counter()
    done, skipped = run(args.parallel)
    print(f"warmup: {done} kernels compiled or loaded from Numba's cache, {skipped} skipped, "
          f"{time.perf_counter() - start:.1f} s")
    return 0
