"""Exact NumPy forms of Numba kernels (ref/ops/_jit.py ``numpy_tier``): a small
input runs the form while Numba is not loaded, so each form must give the Numba
kernel's bits -- checked here against the compiled kernel itself, on random
values and on the special ones (nan, +-inf, +-0, subnormals), bit for bit
(signed zeros included; any NaN equals any NaN, the project's rule for golden
vectors: LLVM may commute an addition, which picks the other operand's NaN). And a fresh process runs the demo model's first
training step without loading Numba at all."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from ref.ops import _jit, nn, philox
from ref.ops.training import (_apply, adadelta, adagrad, adam, ftrl, gradient_descent, momentum,  # noqa: F401
                              powersign, rmsprop)

pytestmark = pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares with Numba")

SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-310, 3.0e38]


def _bits(a):
    a = np.ascontiguousarray(a)
    if a.dtype.kind != "f":
        return a
    return a.view({4: np.uint32, 8: np.uint64, 2: np.uint16, 1: np.uint8}[a.dtype.itemsize])


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    np.testing.assert_array_equal(nan_a, nan_b)
    np.testing.assert_array_equal(_bits(np.where(nan_a, 0, a)), _bits(np.where(nan_b, 0, b)))


# -- Philox ---------------------------------------------------------------------------

PHILOX = [  # key, counter lo, counter hi, first, stride, groups
    (0, 0, 0, 0, 1, 1),
    (0x0123456789ABCDEF, 7, 3, 0, 1, 33),
    (2**64 - 1, 2**64 - 1, 2**64 - 1, 0, 1, 5),          # the low counter word wraps, the high one too
    (12345, 2**64 - 3, 9, 2**64 - 5, 256, 40),            # first + g * stride wraps modulo 2**64
    (987654321987, 2**40, 2**63, 11, 2**62, 17),
]


@pytest.mark.parametrize("key,lo,hi,first,stride,groups", PHILOX)
def test_philox_blocks_numpy_form(key, lo, hi, first, stride, groups):
    args = tuple(np.uint64(v) for v in (key, lo, hi, first, stride)) + (groups,)
    a, b = np.empty((groups, 4), np.uint32), np.empty((groups, 4), np.uint32)
    philox._blocks(*args, a)
    philox._blocks_numpy(*args, b)
    _same(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_box_muller_numpy_forms(dtype):
    rng = np.random.default_rng(5)
    kernel, form = (philox._box_muller_float, philox._box_muller_float_numpy) if dtype == np.float32 else \
        (philox._box_muller_double, philox._box_muller_double_numpy)
    for groups in (1, 3, 250):
        w = rng.integers(0, 2**32, 4 * groups, dtype=np.uint64).astype(np.uint32)
        w[:4] = [0, 0xFFFFFFFF, 0x7FFFFF, 0x800000]  # u1 below 1e-7 (clamped), u1 near 1, extreme angles
        a = np.empty(w.size // (2 if dtype == np.float32 else 4) * 2, dtype)
        b = np.empty_like(a)
        kernel(w, a)
        form(w, b)
        _same(a, b)


@pytest.mark.parametrize("first_blocks", [1, 2])
@pytest.mark.parametrize("double", [False, True])
def test_truncated_normal_numpy_form(monkeypatch, first_blocks, double):
    monkeypatch.setattr(philox, "_TRUNCATED_FIRST_BLOCKS", first_blocks)  # 1: many groups draw again
    dtype = np.float64 if double else np.float32
    for key, lo, hi, n in [(1, 2, 3, 1), (2**64 - 1, 2**64 - 7, 5, 301), (12345, 99, 2**63, 1000)]:
        args = (np.uint64(key), np.uint64(lo), np.uint64(hi), n, double)
        a, b = np.empty(n, dtype), np.empty(n, dtype)
        philox._truncated_loop(*args, a)
        philox._truncated_numpy(*args, b)
        _same(a, b)


# -- softmax cross entropy ------------------------------------------------------------------

def _logits(rng, dtype, n, c, special):
    x = (rng.standard_normal((n, c)) * rng.choice([0.01, 1.0, 30.0, 1e4])).astype(dtype)
    if special:
        x.flat[rng.integers(0, x.size, max(1, x.size // 4))] = rng.choice(SPECIAL, max(1, x.size // 4))
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sparse", [True, False])
@pytest.mark.parametrize("special", [False, True])
def test_xent_rows_numpy_form(dtype, sparse, special):
    if _jit.libm("exp", dtype) is None:
        pytest.skip("no C math library")
    rng = np.random.default_rng(7)
    kernel, form = (nn._sparse_xent_rows, nn._sparse_xent_rows_numpy) if sparse else \
        (nn._xent_rows, nn._xent_rows_numpy)
    for n, c in [(1, 1), (3, 2), (128, 3), (17, 10), (5, 40)]:
        x = _logits(rng, dtype, n, c, special)
        labels = rng.integers(0, c, n).astype(np.int64) if sparse else rng.random((n, c)).astype(dtype)
        a = (np.empty(n, dtype), np.empty((n, c), dtype))
        b = (np.empty(n, dtype), np.empty((n, c), dtype))
        kernel(x, labels, *a, dtype(0))
        form(x, labels, *b, dtype(0))
        _same(a[0], b[0])
        _same(a[1], b[1])


@pytest.mark.parametrize("name,dtype", [("exp", np.float32), ("log", np.float32), ("exp", np.float64),
                                        ("log", np.float64)])
def test_libm_is_what_numba_calls(name, dtype):
    import math

    import numba

    fn = _jit.libm(name, dtype)
    if fn is None:
        pytest.skip("no C math library")
    op = math.exp if name == "exp" else math.log

    @numba.njit(error_model="numpy")
    def loop(x, out):
        for i in range(x.size):
            out[i] = op(x[i])

    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-100, 100, 20000), rng.uniform(0, 1e6, 2000), SPECIAL]).astype(dtype)
    want = np.empty_like(x)
    with np.errstate(all="ignore"):
        loop(x, want)
    _same(fn(x), want)


# -- dense training updates ---------------------------------------------------------------

EXACT = [momentum.momentum_update, momentum.keras_momentum_update, gradient_descent.gradient_descent_update,
         adam.adam_update, rmsprop.rmsprop_update, rmsprop.centered_rmsprop_update, adagrad.adagrad_update,
         adagrad.adagrad_v2_update, adadelta.adadelta_update]
NOT_EXACT = [ftrl.ftrl_update, powersign.powersign_update]  # ** (libm's pow) / exp in the update


def test_numpy_exact_classification():
    assert [_apply.numpy_exact(u) for u in EXACT] == [True] * len(EXACT)
    assert [_apply.numpy_exact(u) for u in NOT_EXACT] == [False] * len(NOT_EXACT)


def _loop_of(update):
    module = sys.modules[update.__module__]
    return getattr(module, _apply._loop_name(update, sparse=False))


@pytest.mark.parametrize("update", EXACT, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_update_numpy_form(update, dtype):
    refs, grad, params = _apply._update_arguments(update)
    rng = np.random.default_rng(11)
    loop = _loop_of(update)
    for special in (False, True):
        for flags in (False, True):
            n = 257
            arrays = [(rng.standard_normal(n) * 3).astype(dtype) for _ in refs]
            if refs[1:]:  # accumulators of squares are positive in practice; keep some negative too
                arrays[1] = np.abs(arrays[1]) if not special else arrays[1]
            g = rng.standard_normal(n).astype(dtype)
            if special:
                for a in (*arrays, g):
                    a[rng.integers(0, n, 40)] = rng.choice(SPECIAL, 40)
            values = [flags if p in ("use_nesterov", "update_slots") else dtype(rng.uniform(0.01, 0.99))
                      for p in params]
            a = [x.copy() for x in arrays]
            b = [x.copy() for x in arrays]
            with np.errstate(all="ignore"):
                loop(*a, g, *values, dtype)
            _apply._run_numpy_form(update, b, g, values, dtype)
            for x, y in zip(a, b):
                _same(x, y)


# -- a fresh process ------------------------------------------------------------------------

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import ref as tf
    from ref import demo
    x, y = demo.spirals()
    with tf.Graph().as_default():
        m = demo.build(tf, sys.argv[1])
        with tf.Session() as s:
            s.run(m["init"])
            s.run([m["train_op"], m["loss"]], {m["x"]: x[:128], m["y"]: y[:128]})
    print("numba" in sys.modules)
""")


@pytest.mark.parametrize("optimizer,budget,loaded", [("momentum", None, "False"), ("adam", None, "False"),
                                                     ("momentum", "0", "True")])
def test_demo_first_step_loads_numba_only_when_needed(tmp_path, optimizer, budget, loaded):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("REF_NUMPY_MAX", None)
    if budget is not None:
        env["REF_NUMPY_BUDGET_S"] = budget
    out = subprocess.run([sys.executable, "-c", SCRIPT, optimizer], env=env, capture_output=True, text=True,
                         timeout=600, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [loaded]


INIT_SCRIPT = textwrap.dedent("""
    import sys
    import ref as tf
    with tf.Graph().as_default():
        a = tf.get_variable("a", [784, 16], initializer=tf.truncated_normal_initializer(stddev=0.1, seed=1))
        b = tf.get_variable("b", [16], dtype=tf.float64, initializer=tf.random_normal_initializer(seed=2))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
    print("numba" in sys.modules)
""")


def test_random_initializers_do_not_load_numba(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    for k in ("REF_NUMPY_MAX", "REF_NUMPY_BUDGET_S"):
        env.pop(k, None)
    out = subprocess.run([sys.executable, "-c", INIT_SCRIPT], env=env, capture_output=True, text=True,
                         timeout=600, cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["False"]
