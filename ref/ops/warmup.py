"""``python -m ref warmup``: compile the Numba kernels training programs use into
Numba's on-disk cache ahead of time, so that the first step of a script does not.

Without it a first step does not wait for Numba either (``ref.ops._jit``: exact
NumPy forms, any size for the copies, pooling and whole-array updates; the
convolutions' chunked products, max pooling, im2col/col2im and the fused loops
build in the background meanwhile; the matrix product is llvmlite's, no Numba,
~0.1 s per micro-kernel size with an empty cache), but until those builds are
done the steps run the slower forms, beside seconds of compiling. The README's
set-up command runs this once.

By default: the float32 kernels a first step of the common models compiles
(measured with an empty cache on ``bench/models.py``'s MLP, LeNet, VGG, LSTM,
word2vec and logistic regression): the matrix-product kernel (``gemm_llvm``'s
object code, every micro-kernel size, and ``eigen_recip``'s ``rcpps``/``rsqrtps``
loops), the convolution's
im2col/col2im loops and chunked patch products (``ref.ops.patch_products``), max pooling and its gradient, the fused bias-add/relu
kernels and the LSTM cell, softmax cross entropy (dense and sparse), the random
samplers, and the dense updates of the common optimizers (gradient descent,
momentum, Adam, Adagrad, RMSProp), for small variables and, for large ones, in
blocks on ref's matrix threads (a Session's update in place) and as a parallel
loop (an update into new arrays: the LSTM's second step). ``--all`` adds float64 and every other dense and
sparse ``Apply*`` kernel; ``--parallel`` the multi-threaded builds of the dense
loops (used from ``REF_PARALLEL_MIN`` elements on outside a Session). The jobs
run in ``--jobs`` processes at once (each kernel, with every dtype of it and the
jobs that call it, in one process: Numba keeps one cache index per kernel). The cache is where Numba
keeps it: ``NUMBA_CACHE_DIR`` if set, else ``__pycache__`` beside the sources,
or a per-user cache directory when the package directory is read-only.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

from ref.ops import (_jit, eigen_gemv, eigen_math, eigen_recip, eigen_reduce, eigen_softmax, eigen_unary, fused,
                     gemm_kernel, gemm_llvm, nn, registry)

_HYPER = {"lr_power": -0.5, "global_step": 1}
COMMON_OPTIMIZERS = ("ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyAdagrad", "ApplyRMSProp")
"""The dense updates warmed up by default (``--all``: every ``Apply*`` / ``SparseApply*``)."""


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


def _in_place(name, op, dtype):
    """A Session's in-place update of a large variable (``out=`` its own arrays): the
    loop without the GIL, in blocks on ref's matrix threads (or the serial loop on one core)."""
    kwargs = _training_inputs(op, dtype, _jit.PARALLEL_MIN)
    return op.kernel(**kwargs, out=tuple(kwargs[r] for r in op.refs))


def _conv_jobs(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 12, 12, 8)).astype(dtype)
    f = rng.standard_normal((3, 3, 8, 32)).astype(dtype)
    dy = rng.standard_normal((2, 12, 12, 32)).astype(dtype)
    attrs = {"strides": [1, 1, 1, 1], "padding": "SAME"}

    x1 = rng.standard_normal((2, 12, 12, 1)).astype(dtype)  # 25 patch columns: im2col, then the kernel
    f1 = rng.standard_normal((5, 5, 1, 32)).astype(dtype)

    def conv():
        registry.call("Conv2D", input=x1, filter=f1, **attrs)
        registry.call("Conv2D", input=x, filter=f, **attrs)
        registry.call("Conv2DBackpropInput", input_sizes=np.array(x.shape, np.int32), filter=f,
                      out_backprop=dy, **attrs)
        registry.call("Conv2DBackpropFilter", input=x, filter_sizes=np.array(f.shape, np.int32),
                      out_backprop=dy, **attrs)

    def pool():
        pattrs = {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "VALID"}
        y = registry.call("MaxPool", input=dy, **pattrs)
        registry.call("MaxPoolGrad", orig_input=dy, orig_output=y, grad=y, **pattrs)

    return conv, pool


def _jobs(size, everything=False):
    """``(label, group, job)`` for each warm-up job; jobs of one group (one kernel and
    its variants) run in the same process."""
    dtypes = (np.float32, np.float64) if everything else (np.float32,)
    ops = registry.registered()
    for name in sorted(ops):
        op = ops[name]
        if not (name.startswith(("Apply", "SparseApply")) and op.kernel is not None):
            continue
        if not everything and name not in COMMON_OPTIMIZERS:
            continue
        for dtype in dtypes:
            label = f"{name} {np.dtype(dtype).name}"
            yield label, name, (lambda n=name, o=op, d=dtype: registry.call(n, **_training_inputs(o, d, size)))
            if "indices" not in op.inputs and size < _jit.PARALLEL_MIN:
                yield label + " (in place, large)", name, (lambda n=name, o=op, d=dtype: _in_place(n, o, d))
                if not everything:  # (--parallel: every kernel's)
                    yield label + " (new arrays, large: parallel)", name, (
                        lambda n=name, o=op, d=dtype: registry.call(n, **_training_inputs(o, d, _jit.PARALLEL_MIN)))
    rng = np.random.default_rng(0)
    for dtype in dtypes:
        kind = np.dtype(dtype).name
        x = rng.standard_normal((4, 3)).astype(dtype)
        yield f"SoftmaxCrossEntropyWithLogits {kind}", "xent", (
            lambda x=x: registry.call("SoftmaxCrossEntropyWithLogits", features=x, labels=np.abs(x)))
        yield f"SparseSoftmaxCrossEntropyWithLogits {kind}", "sparse xent", (
            lambda x=x: registry.call("SparseSoftmaxCrossEntropyWithLogits", features=x,
                                      labels=np.array([0, 1, 2, 0], np.int64)))
        if dtype == np.float32:
            yield "Eigen's exp/log/tanh/sigmoid/expm1/log1p/erf, reductions, sparse cross entropy's rows and " \
                "GEMV (ref.ops.eigen_math, eigen_unary, eigen_reduce, eigen_softmax, eigen_gemv)", "eigen", (
                    lambda: [eigen_math._sample(loop)() for loop in eigen_math._FORMS]
                    + [eigen_unary._sample(loop)() for loop in eigen_unary._FORMS] + [eigen_softmax._sample()]
                    + [eigen_reduce.sum_rows(np.ones((2, 40), np.float32)),
                       eigen_reduce._one(np.ones(40, np.float32), 0, 40), eigen_reduce._sample(),
                       eigen_gemv._gemv(np.ones(20, np.float32), np.ones((20, 3), np.float32), 16,
                                        np.empty(3, np.float32)),
                       eigen_gemv._rows(np.ones((3, 20), np.float32), np.ones(20, np.float32), True,
                                        np.empty(3, np.float32))])
        a = rng.standard_normal((96, 64)).astype(dtype)  # above gemm.SERIAL_WORK: the kernel
        yield f"MatMul {kind} (ref.ops.gemm_llvm: micro-kernels of 1..{gemm_kernel.MR_T} rows)", "gemm", (
            lambda a=a, d=dtype: [registry.call("MatMul", a=a, b=a, transpose_b=True)]
            + [gemm_llvm.macro(d, mr) for mr in range(1, gemm_kernel.MR_T + 1)]
            + [gemm_llvm.libm(name, d) for name in ("exp", "log")]  # (cross entropy's form)
            + ([eigen_recip.reciprocal(np.ones(8, d)), eigen_recip.rsqrt(np.ones(8, d))]  # rcpps/rsqrtps loops
               if d == np.float32 and eigen_recip.AVAILABLE else []))
        conv, pool = _conv_jobs(dtype)
        # (its products are the kernel's: in the same process as it, so that one compiles it)
        yield f"Conv2D and its backprops {kind} (ref.ops.conv)", "gemm", conv
        yield f"MaxPool, MaxPoolGrad {kind} (ref.ops.pooling)", "pool", pool
        b = np.abs(a[0])
        yield f"BiasAdd+Relu {kind} (ref.ops.fused)", "fused", (
            lambda a=a, b=b: fused.bias_relu(nn.bias_add, nn.relu, a, b))
        yield f"ReluGrad+BiasAddGrad {kind} (ref.ops.fused)", "fused", (
            lambda a=a: fused.relu_bias_grads(nn.relu_grad, nn.bias_add_grad, a, a))
        yield f"LSTM cell {kind} (ref.ops.fused)", "lstm", (
            lambda a=a, d=dtype: fused.lstm_cell(None, a, a, a, a, np.array(1, d), a))
        yield f"LSTM cell gradient {kind} (ref.ops.fused)", "lstm", (
            lambda a=a: fused.lstm_cell_grads(None, np.array(1, np.int32), a, a, a, None, False,
                                              [(False, None, a, a)] * 4))
        x = rng.standard_normal((2, 8, 8, 16)).astype(dtype)  # products on the kernel: patch_products' loops
        f = rng.standard_normal((3, 3, 16, 32)).astype(dtype)
        opts = dict(strides=[1, 1, 1, 1], padding="SAME")
        yield f"Conv2D+BiasAdd+Relu {kind} (ref.ops.patch_products)", "gemm", (
            lambda x=x, f=f: fused.conv_bias_relu(x, f, np.abs(f[0, 0, 0]), opts))
        yield f"Conv2D {kind} (ref.ops.patch_products)", "gemm", (
            lambda x=x, f=f: registry.call("Conv2D", input=x, filter=f, **opts))
        yield f"Conv2DBackpropFilter {kind} (ref.ops.patch_products)", "gemm", (
            lambda x=x, f=f: registry.call("Conv2DBackpropFilter", input=x, filter_sizes=np.array(f.shape, np.int32),
                                           out_backprop=np.ones((2, 8, 8, 32), f.dtype), **opts))
        for op in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
            yield f"{op} {kind}", "random", (
                lambda op=op, dtype=dtype: registry.call(op, shape=np.array([64], np.int32), dtype=dtype,
                                                         seed=1, seed2=2))


def groups(everything=False, parallel=False):
    """The jobs' groups, largest first (the matrix-product kernel alone takes longest)."""
    sizes = [8] + ([_jit.PARALLEL_MIN] if parallel else [])
    names = []
    for size in sizes:
        for _, group, _ in _jobs(size, everything):
            if group not in names:
                names.append(group)
    return sorted(names, key=lambda g: (g != "gemm", names.index(g)))


def run(parallel=False, out=sys.stdout, everything=False, only=None) -> tuple[int, int]:
    """Compiles (or loads) the kernels -- those of the groups in ``only`` if given;
    returns (done, skipped)."""
    saved = _jit.NUMPY_MAX
    _jit.NUMPY_MAX = 0
    done = skipped = 0
    try:
        sizes = [8] + ([_jit.PARALLEL_MIN] if parallel else [])
        for size in sizes:
            for label, group, job in _jobs(size, everything):
                if only is not None and group not in only:
                    continue
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


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _in_processes(jobs, flags):
    """The groups dealt round-robin to ``jobs`` processes (``python -m ref warmup --groups``)."""
    names = groups("--all" in flags, "--parallel" in flags)
    shares = [names[i::jobs] for i in range(jobs)]
    procs = [subprocess.Popen([sys.executable, "-m", "ref", "warmup", *flags, "--groups", ",".join(share)],
                              stdout=subprocess.PIPE, text=True) for share in shares if share]
    done = skipped = 0
    failed = False
    for proc in procs:
        text, _ = proc.communicate()
        lines = text.splitlines()
        for line in lines[:-1]:
            print(line)
        last = lines[-1].split() if lines else []
        if proc.returncode != 0 or len(last) != 3 or last[0] != "warmup-share":
            failed = True
            continue
        done += int(last[1])
        skipped += int(last[2])
    return done, skipped, failed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ref warmup", description=(
        "Compile the Numba kernels of common training programs into Numba's cache ahead of time, so that "
        "the first step of a script with large tensors does not (small tensors never need Numba)."))
    ap.add_argument("--all", action="store_true", help="also float64, and every Apply*/SparseApply* kernel")
    ap.add_argument("--parallel", action="store_true", help="also the multi-threaded builds of the dense loops")
    ap.add_argument("--jobs", type=int, default=min(_cores(), 4), help="processes at once (default: cores, <= 4)")
    ap.add_argument("--groups", help=argparse.SUPPRESS)  # one process's share (--jobs)
    args = ap.parse_args(argv)
    if _jit.DISABLE:
        print("error: REF_DISABLE_JIT=1: nothing to compile", file=sys.stderr)
        return 1
    start = time.perf_counter()
    if args.groups is not None:
        done, skipped = run(args.parallel, everything=args.all, only=set(args.groups.split(",")))
        print(f"warmup-share {done} {skipped}")
        return 0
    flags = [*(["--all"] if args.all else []), *(["--parallel"] if args.parallel else [])]
    if args.jobs > 1:
        done, skipped, failed = _in_processes(args.jobs, flags)
        if failed:
            print("error: a warm-up process failed", file=sys.stderr)
            return 1
    else:
        done, skipped = run(args.parallel, everything=args.all)
    print(f"warmup: {done} kernels compiled or loaded from Numba's cache, {skipped} skipped, "
          f"{time.perf_counter() - start:.1f} s ({max(args.jobs, 1)} process{'es' if args.jobs > 1 else ''})")
    return 0
