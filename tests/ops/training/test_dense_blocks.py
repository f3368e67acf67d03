"""Large in-place dense updates run in blocks on ref's matrix threads
(``_apply._DenseBlocks``) give the bits of the serial loop over all elements:
each optimizer's loop (flags both ways), float32 and float64, element counts
that do and do not divide among the blocks, helper blocks (computed apart and
stored) included."""
import numpy as np
import pytest

from ref.ops import _jit, gemm
from ref.ops.training import _apply, adam, gradient_descent, momentum, rmsprop
from ref.ops.training import _apply as _under_test  # noqa: F401  (the module these tests cover)

# (loop, scalar update, params by name)
ROWS = [
    (gradient_descent._gradient_descent_loop, gradient_descent.gradient_descent_update, {"alpha": 0.3}),
    (adam._adam_loop, adam.adam_update, {"alpha": 1e-3, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8,
                                         "use_nesterov": False}),
    (adam._adam_loop, adam.adam_update, {"alpha": 1e-2, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-7,
                                         "use_nesterov": True}),
    (momentum._momentum_loop, momentum.momentum_update, {"lr": 0.1, "momentum": 0.9, "use_nesterov": True}),
    (rmsprop._rmsprop_loop, rmsprop.rmsprop_update, {"lr": 0.01, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-10}),
]
CASES = [(loop, update, params, dtype, n) for loop, update, params in ROWS
         for dtype in (np.float32, np.float64) for n in (4099, 3 * 4096)]


def _arrays(update, dtype, n):
    refs, _, _ = _apply._update_arguments(update)
    rng = np.random.RandomState(n)
    arrays = [rng.standard_normal(n).astype(dtype) for _ in refs]
    for a in arrays[1:]:
        np.abs(a, out=a)  # slots (second moments) are non-negative
    return arrays, rng.standard_normal(n).astype(dtype)


def _values(update, params, dtype):
    _, _, names = _apply._update_arguments(update)
    return [params[p] if isinstance(params[p], bool) else dtype(params[p]) for p in names]


def _serial(loop, update, params, dtype, n):
    arrays, grad = _arrays(update, dtype, n)
    loop.serial(*arrays, grad, *_values(update, params, dtype), dtype)
    return arrays


@pytest.mark.parametrize("loop,update,params,dtype,n", CASES,
                         ids=[f"{c[1].__name__}-{np.dtype(c[3])}-{c[4]}-{i}" for i, c in enumerate(CASES)])
def test_blocks_same_bits_as_serial_loop(monkeypatch, loop, update, params, dtype, n):
    want = _serial(loop, update, params, dtype, n)
    monkeypatch.setattr(_jit, "PARALLEL_MIN", 4096)
    arrays, grad = _arrays(update, dtype, n)
    assert gemm.workers() < 2 or _apply._in_blocks(loop, n)
    got = _apply.run_dense(loop, update, arrays, grad, _values(update, params, dtype), out=arrays)
    for g, a, w in zip(got, arrays, want):
        assert g is a  # in place
        np.testing.assert_array_equal(a.view(np.uint8), w.view(np.uint8))


@pytest.mark.parametrize("loop,update,params,dtype,n", CASES[:4],
                         ids=[f"{c[1].__name__}-{np.dtype(c[3])}-{c[4]}" for c in CASES[:4]])
def test_helper_blocks_same_bits(loop, update, params, dtype, n):
    """Blocks computed apart and stored (a helper's, or the caller's backup of one),
    and in place, on an uneven split."""
    want = _serial(loop, update, params, dtype, n)
    arrays, grad = _arrays(update, dtype, n)
    blocks = _apply._DenseBlocks(loop.blocks[np.dtype(dtype)], arrays, grad, _values(update, params, dtype))
    edges = [0, 1, n // 3, n // 2, n]
    for i, (lo, hi) in enumerate(zip(edges, edges[1:])):
        if i % 2:
            blocks.store(lo, hi, blocks.scratch(lo, hi))
        else:
            blocks.into_result(lo, hi)
    for a, w in zip(arrays, want):
        np.testing.assert_array_equal(a.view(np.uint8), w.view(np.uint8))


@pytest.mark.parametrize("loop,update,params,dtype,n", CASES[::3],
                         ids=[f"{c[1].__name__}-{np.dtype(c[3])}-{c[4]}" for c in CASES[::3]])
def test_one_thread_runs_the_serial_loop(monkeypatch, loop, update, params, dtype, n):
    """Held to one thread (``limit_threads(1)``: ``intra_op_parallelism_threads=1``), a
    large in-place update is the serial loop, not Numba's parallel one (which runs on
    every core): the same bits."""
    want = _serial(loop, update, params, dtype, n)
    monkeypatch.setattr(_jit, "PARALLEL_MIN", 4096)
    picked = []
    real = type(loop)._pick
    monkeypatch.setattr(type(loop), "_pick", lambda self, size: picked.append(size) or real(self, size))
    arrays, grad = _arrays(update, dtype, n)
    with gemm.limit_threads(1):
        _apply.run_dense(loop, update, arrays, grad, _values(update, params, dtype), out=arrays)
    assert all(size < _jit.PARALLEL_MIN for size in picked)  # (a cached serial wrapper picks nothing)
    for a, w in zip(arrays, want):
        np.testing.assert_array_equal(a.view(np.uint8), w.view(np.uint8))
