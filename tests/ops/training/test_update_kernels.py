"""The training kernels, one harness: every update op (dense and sparse:
GradientDescent, ProximalGradientDescent, Adagrad(V2), ProximalAdagrad, AdagradDA,
Adadelta, Momentum, KerasMomentum, Adam, AdaMax, RMSProp, CenteredRMSProp, FTRL(V2),
AddSign, PowerSign) x dtype x flags in one table (``CASES``), checked

* against TensorFlow's ``Resource*`` raw ops (where TF is installed), to the row's budget;
* for purity and the in-place ``out=`` path (same bits);
* for TF's run-time errors (``ERRORS``), and that TF raises the same (``TF_SAME``).

The float64 NumPy oracles of the spec cards are checked by ``tests/test_specs.py``
(hypothesis properties over each card's documented domain)."""
from __future__ import annotations

import numpy as np
import pytest

from ref.types import errors

from ref.ops import registry
from ref.ops import _jit
from ref.golden.ulp import assert_ulp

import ref.ops.training.adadelta  # noqa: F401  (registers the ops)
import ref.ops.training.adagrad  # noqa: F401
import ref.ops.training.adagrad_da  # noqa: F401
import ref.ops.training.adam  # noqa: F401
import ref.ops.training.adamax  # noqa: F401
import ref.ops.training.addsign  # noqa: F401
import ref.ops.training.ftrl  # noqa: F401
import ref.ops.training.gradient_descent  # noqa: F401
import ref.ops.training.momentum  # noqa: F401
import ref.ops.training.powersign  # noqa: F401
import ref.ops.training.proximal_adagrad  # noqa: F401
import ref.ops.training.proximal_gradient_descent  # noqa: F401
import ref.ops.training.rmsprop  # noqa: F401

GD = dict(alpha=0.01)
PGD = dict(alpha=0.05, l1=0.01, l2=0.02)
PGD0 = dict(alpha=0.05, l1=0.0, l2=0.02)
ADAGRAD = dict(lr=0.01)
ADAGRAD2 = dict(lr=0.01, epsilon=1e-7)
PADAGRAD = dict(lr=0.05, l1=0.01, l2=0.02)
PADAGRAD0 = dict(lr=0.05, l1=0.0, l2=0.02)
DA = dict(lr=0.05, l1=0.01, l2=0.02, global_step=np.int64(7))
DA0 = dict(lr=0.05, l1=0.0, l2=0.02, global_step=np.int64(7))
DA_BIG = dict(lr=0.05, l1=0.001, l2=0.02, global_step=np.int64(2 ** 24 + 1))  # not a float32: TF rounds it
ADADELTA = dict(lr=1.0, rho=0.95, epsilon=1e-6)
MOM = dict(lr=0.01, momentum=0.9)
ADAM = dict(beta1_power=0.9 ** 3, beta2_power=0.999 ** 3, lr=0.01, beta1=0.9, beta2=0.999, epsilon=1e-7)
ADAMAX = dict(beta1_power=0.9 ** 3, lr=0.01, beta1=0.9, beta2=0.999, epsilon=1e-7)
RMS = dict(lr=0.01, rho=0.9, momentum=0.5, epsilon=1e-7)
FTRL = dict(lr=0.05, l1=0.01, l2=0.02, lr_power=-0.5)
FTRL2 = dict(FTRL, l2_shrinkage=0.03)
ADDSIGN = dict(lr=0.01, alpha=1.0, sign_decay=0.5, beta=0.9)
POWERSIGN = dict(lr=0.01, logbase=np.log(2.0), sign_decay=0.5, beta=0.9)

# op -> its slots and how to draw each: "any" (normal), "pos" (|normal| + 0.1), "small" (0.1 * normal)
SLOTS = {
    "ApplyGradientDescent": {}, "ApplyProximalGradientDescent": {}, "SparseApplyProximalGradientDescent": {},
    "ApplyAdagrad": {"accum": "pos"}, "ApplyAdagradV2": {"accum": "pos"},
    "SparseApplyAdagrad": {"accum": "pos"}, "SparseApplyAdagradV2": {"accum": "pos"},
    "ApplyProximalAdagrad": {"accum": "pos"}, "SparseApplyProximalAdagrad": {"accum": "pos"},
    "ApplyAdagradDA": {"gradient_accumulator": "any", "gradient_squared_accumulator": "pos"},
    "SparseApplyAdagradDA": {"gradient_accumulator": "any", "gradient_squared_accumulator": "pos"},
    "ApplyAdadelta": {"accum": "pos", "accum_update": "pos"},
    "SparseApplyAdadelta": {"accum": "pos", "accum_update": "pos"},
    "ApplyMomentum": {"accum": "any"}, "SparseApplyMomentum": {"accum": "any"},
    "ApplyKerasMomentum": {"accum": "any"}, "SparseApplyKerasMomentum": {"accum": "any"},
    "ApplyAdam": {"m": "any", "v": "pos"}, "ApplyAdaMax": {"m": "any", "v": "pos"},
    "ApplyRMSProp": {"ms": "pos", "mom": "any"}, "SparseApplyRMSProp": {"ms": "pos", "mom": "any"},
    "ApplyCenteredRMSProp": {"mg": "small", "ms": "pos", "mom": "any"},
    "SparseApplyCenteredRMSProp": {"mg": "small", "ms": "pos", "mom": "any"},
    "ApplyFtrl": {"accum": "pos", "linear": "any"}, "ApplyFtrlV2": {"accum": "pos", "linear": "any"},
    "SparseApplyFtrl": {"accum": "pos", "linear": "any"}, "SparseApplyFtrlV2": {"accum": "pos", "linear": "any"},
    "ApplyAddSign": {"m": "any"}, "ApplyPowerSign": {"m": "any"},
}
GRAD_NAME = {"ApplyGradientDescent": "delta", "ApplyProximalGradientDescent": "delta"}
# op -> the hyperparameters of its error rows and of test_resource_variants_share_the_kernel
HYPERS = {"ApplyGradientDescent": GD, "ApplyProximalGradientDescent": PGD,
          "SparseApplyProximalGradientDescent": PGD, "ApplyAdagrad": ADAGRAD, "ApplyAdagradV2": ADAGRAD2,
          "SparseApplyAdagrad": ADAGRAD, "SparseApplyAdagradV2": ADAGRAD2, "ApplyProximalAdagrad": PADAGRAD,
          "SparseApplyProximalAdagrad": PADAGRAD, "ApplyAdagradDA": DA, "SparseApplyAdagradDA": DA,
          "ApplyAdadelta": ADADELTA, "SparseApplyAdadelta": ADADELTA, "ApplyMomentum": MOM,
          "SparseApplyMomentum": MOM, "ApplyKerasMomentum": MOM, "SparseApplyKerasMomentum": MOM,
          "ApplyAdam": ADAM, "ApplyAdaMax": ADAMAX, "ApplyRMSProp": RMS, "SparseApplyRMSProp": RMS,
          "ApplyCenteredRMSProp": RMS, "SparseApplyCenteredRMSProp": RMS, "ApplyFtrl": FTRL,
          "ApplyFtrlV2": FTRL2, "SparseApplyFtrl": FTRL, "SparseApplyFtrlV2": FTRL2, "ApplyAddSign": ADDSIGN,
          "ApplyPowerSign": POWERSIGN}

F32, F64, F16, C64 = np.float32, np.float64, np.float16, np.complex64


class Step(int):
    """Budget for kernels with ``rsqrt``: TF's float32 (and half) ``rsqrt`` is
    Eigen's vectorised approximation (up to 2 ULP; ``ref``: ``1 / sqrt``). Where
    ``var`` nearly cancels its update the plain ULP distance of ``var`` grows
    without bound (1024 ULP measured for Adadelta), so ``var`` is held to
    ``n`` ULPs *of the step* ``|var_before - var_after|`` plus 1 ULP of the
    result; slots to ``n`` plain ULPs. Budgets are twice the worst seen over
    10 seeds (rsqrt's approximation differs between CPUs)."""


NEST = {"use_nesterov": True}
NOSLOT = {"update_slots": False}
MLR = {"multiply_linear_by_lr": True}
# (op, dtype, hyperparameters, attrs, budget, shape of var). Budget: ULPs for var and
# slots against TF -- 0 where TF's CPU kernel does IEEE arithmetic we reproduce
# operation by operation (including the sparse kernels' inner_dim == 1 branches in
# C++ double); measured where TF uses Eigen's float32 approximations (sparse
# RMSProp's rsqrt, PowerSign's exp) or other complex algorithms (Eigen's complex
# multiply/divide/sqrt: 2); Step(n) (see above); None: float32 FTRL with
# lr_power != -0.5, where Eigen's pow differs from powf by 1 ULP and FTRL's
# cancellation in linear amplifies it: within 1e-5 of the array's largest magnitude.
CASES = [
    ("ApplyGradientDescent", F32, GD, {}, 0, (1000,)),
    ("ApplyGradientDescent", F64, GD, {}, 0, (7, 3)),
    ("ApplyGradientDescent", F16, GD, {}, 0, (50,)),
    ("ApplyGradientDescent", C64, GD, {}, 0, (50,)),
    ("ApplyProximalGradientDescent", F32, PGD, {}, 0, (1000,)),
    ("ApplyProximalGradientDescent", F32, PGD0, {}, 0, (1000,)),
    ("ApplyProximalGradientDescent", F64, PGD, {}, 0, (10,)),
    ("SparseApplyProximalGradientDescent", F32, PGD, {}, 0, (20, 8)),
    ("SparseApplyProximalGradientDescent", F32, PGD, {}, 0, (20,)),
    ("SparseApplyProximalGradientDescent", F32, PGD0, {}, 0, (20, 1)),
    ("SparseApplyProximalGradientDescent", F64, PGD, {}, 0, (20, 3)),
    ("ApplyAdagrad", F32, ADAGRAD, {}, Step(4), (1000,)),
    ("ApplyAdagrad", F32, ADAGRAD, NOSLOT, Step(4), (1000,)),
    ("ApplyAdagrad", F64, ADAGRAD, {}, 0, (10,)),
    ("ApplyAdagrad", F16, ADAGRAD, {}, Step(2), (50,)),
    ("ApplyAdagrad", C64, ADAGRAD, {}, 2, (50,)),
    ("ApplyAdagradV2", F32, ADAGRAD2, {}, 0, (1000,)),
    ("ApplyAdagradV2", F64, ADAGRAD2, NOSLOT, 0, (10,)),
    ("ApplyAdagradV2", F16, ADAGRAD2, {}, 0, (50,)),
    ("SparseApplyAdagrad", F32, ADAGRAD, {}, Step(4), (20, 8)),
    ("SparseApplyAdagrad", F32, ADAGRAD, {}, 0, (20,)),
    ("SparseApplyAdagrad", F64, ADAGRAD, NOSLOT, 0, (20, 3)),
    ("SparseApplyAdagrad", F16, ADAGRAD, {}, 0, (20,)),
    ("SparseApplyAdagradV2", F32, ADAGRAD2, {}, 0, (20, 8)),
    ("SparseApplyAdagradV2", F32, ADAGRAD2, NOSLOT, 0, (20,)),
    ("SparseApplyAdagradV2", F64, ADAGRAD2, {}, 0, (20, 3)),
    ("ApplyProximalAdagrad", F32, PADAGRAD, {}, Step(4), (1000,)),
    ("ApplyProximalAdagrad", F32, PADAGRAD0, {}, Step(4), (1000,)),
    ("ApplyProximalAdagrad", F64, PADAGRAD, {}, 0, (10,)),
    ("SparseApplyProximalAdagrad", F32, PADAGRAD, {}, Step(4), (20, 8)),
    ("SparseApplyProximalAdagrad", F32, PADAGRAD, {}, 0, (20,)),
    ("SparseApplyProximalAdagrad", F32, PADAGRAD0, {}, 0, (20, 1)),
    ("SparseApplyProximalAdagrad", F64, PADAGRAD, {}, 0, (20, 3)),
    ("ApplyAdagradDA", F32, DA, {}, 0, (1000,)),
    ("ApplyAdagradDA", F32, DA0, {}, 0, (1000,)),
    ("ApplyAdagradDA", F64, DA, {}, 0, (10,)),
    ("ApplyAdagradDA", F64, DA_BIG, {}, 0, (10,)),
    ("SparseApplyAdagradDA", F32, DA, {}, 0, (20, 8)),
    ("SparseApplyAdagradDA", F32, DA0, {}, 0, (20, 8)),
    ("SparseApplyAdagradDA", F32, DA, {}, 0, (20,)),
    ("SparseApplyAdagradDA", F32, DA0, {}, 0, (20, 1)),
    ("SparseApplyAdagradDA", F64, DA_BIG, {}, 0, (20, 3)),
    ("SparseApplyAdagradDA", F64, DA, {}, 0, (20,)),
    ("ApplyAdadelta", F32, ADADELTA, {}, Step(6), (1000,)),
    ("ApplyAdadelta", F64, ADADELTA, {}, 0, (10,)),
    ("ApplyAdadelta", F16, ADADELTA, {}, Step(4), (50,)),
    ("SparseApplyAdadelta", F32, ADADELTA, {}, Step(48), (20, 8)),
    ("SparseApplyAdadelta", F64, ADADELTA, {}, 0, (20,)),
    ("ApplyMomentum", F32, MOM, {}, 0, (1000,)),
    ("ApplyMomentum", F32, MOM, NEST, 0, (1000,)),
    ("ApplyMomentum", F64, MOM, NEST, 0, (10,)),
    ("ApplyMomentum", F16, MOM, NEST, 0, (50,)),
    ("ApplyMomentum", C64, MOM, NEST, 0, (50,)),
    ("SparseApplyMomentum", F32, MOM, {}, 0, (20, 8)),
    ("SparseApplyMomentum", F32, MOM, NEST, 0, (20, 8)),
    ("SparseApplyMomentum", F64, MOM, NEST, 0, (20,)),
    ("SparseApplyMomentum", F16, MOM, NEST, 0, (20, 4)),
    ("ApplyKerasMomentum", F32, MOM, {}, 0, (1000,)),
    ("ApplyKerasMomentum", F32, MOM, NEST, 0, (1000,)),
    ("ApplyKerasMomentum", F64, MOM, NEST, 0, (10,)),
    ("ApplyKerasMomentum", F16, MOM, {}, 0, (50,)),
    ("ApplyKerasMomentum", C64, MOM, NEST, 0, (50,)),
    ("SparseApplyKerasMomentum", F32, MOM, {}, 0, (20, 8)),
    ("SparseApplyKerasMomentum", F32, MOM, NEST, 0, (20,)),
    ("SparseApplyKerasMomentum", F64, MOM, NEST, 0, (20, 3)),
    ("SparseApplyKerasMomentum", C64, MOM, NEST, 0, (20, 3)),
    ("ApplyAdam", F32, ADAM, {}, 0, (1000,)),
    ("ApplyAdam", F32, ADAM, NEST, 0, (1000,)),
    ("ApplyAdam", F64, ADAM, {}, 0, (7, 3)),
    ("ApplyAdam", F64, ADAM, NEST, 0, (7, 3)),
    ("ApplyAdam", F16, ADAM, {}, 0, (50,)),
    ("ApplyAdam", C64, ADAM, {}, 2, (50,)),
    ("ApplyAdaMax", F32, ADAMAX, {}, 0, (1000,)),
    ("ApplyAdaMax", F64, ADAMAX, {}, 0, (10,)),
    ("ApplyAdaMax", F16, ADAMAX, {}, 0, (50,)),
    ("ApplyRMSProp", F32, RMS, {}, 0, (1000,)),
    ("ApplyRMSProp", F64, RMS, {}, 0, (10,)),
    ("ApplyRMSProp", F16, RMS, {}, 0, (50,)),
    ("ApplyCenteredRMSProp", F32, RMS, {}, 0, (1000,)),
    ("ApplyCenteredRMSProp", F64, RMS, {}, 0, (10,)),
    ("SparseApplyRMSProp", F32, RMS, {}, 1, (20, 8)),
    ("SparseApplyRMSProp", F64, RMS, {}, 0, (20, 3)),
    ("SparseApplyCenteredRMSProp", F32, RMS, {}, 1, (20, 8)),
    ("SparseApplyCenteredRMSProp", F64, RMS, {}, 0, (20,)),
    ("ApplyFtrl", F32, FTRL, {}, 0, (1000,)),
    ("ApplyFtrl", F32, dict(FTRL, lr_power=-0.6), {}, None, (1000,)),
    ("ApplyFtrl", F32, FTRL, MLR, 0, (1000,)),
    ("ApplyFtrl", F64, dict(FTRL, lr_power=0.0), MLR, 0, (10,)),
    ("ApplyFtrl", F16, FTRL, {}, 0, (50,)),
    ("ApplyFtrlV2", F32, FTRL2, {}, 0, (1000,)),
    ("ApplyFtrlV2", F32, dict(FTRL2, lr_power=-0.7), MLR, None, (1000,)),
    ("ApplyFtrlV2", F64, FTRL2, {}, 0, (10,)),
    ("SparseApplyFtrl", F32, FTRL, {}, 0, (20, 8)),
    ("SparseApplyFtrl", F32, FTRL, {}, 0, (20,)),
    ("SparseApplyFtrl", F32, dict(FTRL, lr_power=-0.6), MLR, None, (20, 1)),
    ("SparseApplyFtrl", F64, FTRL, MLR, 0, (20, 4)),
    ("SparseApplyFtrlV2", F32, FTRL2, {}, 0, (20, 8)),
    ("SparseApplyFtrlV2", F32, dict(FTRL2, lr_power=-0.6), {}, None, (20,)),
    ("SparseApplyFtrlV2", F64, FTRL2, MLR, 0, (20, 3)),
    ("SparseApplyFtrlV2", F16, FTRL2, {}, 0, (20, 4)),
    ("ApplyAddSign", F32, ADDSIGN, {}, 0, (1000,)),
    ("ApplyAddSign", F64, ADDSIGN, {}, 0, (10,)),
    ("ApplyAddSign", F16, ADDSIGN, {}, 0, (50,)),
    ("ApplyPowerSign", F32, POWERSIGN, {}, 2, (1000,)),
    ("ApplyPowerSign", F64, POWERSIGN, {}, 0, (10,)),
]


def _draw(rng, kind, shape, dtype):
    x = rng.standard_normal(shape)
    if kind == "pos":
        x = np.abs(x) + 0.1
    elif kind == "small":
        x = 0.1 * x
    if np.dtype(dtype).kind == "c":
        x = x + 1j * (0.1 * rng.standard_normal(shape))
    return x.astype(dtype)


def make_inputs(op_name, dtype, hypers, shape, seed=0):
    """var, slots, grad (with duplicate indices for sparse ops) and hyperparameters."""
    rng = np.random.default_rng(seed)
    kw = {"var": _draw(rng, "any", shape, dtype)}
    for name, kind in SLOTS[op_name].items():
        kw[name] = _draw(rng, kind, shape, dtype)
    grad = GRAD_NAME.get(op_name, "grad")
    if op_name.startswith("Sparse"):
        idx = np.array([3, 0, 3, shape[0] - 1, 7, 3], np.int64)
        kw["indices"] = idx
        kw[grad] = _draw(rng, "any", (idx.size, *shape[1:]), dtype)
    else:
        kw[grad] = _draw(rng, "any", shape, dtype)
    for k, v in hypers.items():
        kw[k] = np.asarray(v, np.int64 if k == "global_step" else dtype)
    return kw


def _tf_apply(tf, op_name, kw, attrs):
    op = registry.get(op_name)
    variables = {r: tf.Variable(kw[r]) for r in op.refs}
    args = {k: (variables[k].handle if k in variables else tf.constant(v)) for k, v in kw.items()}
    getattr(tf.raw_ops, "Resource" + op_name)(**args, **attrs)
    return [variables[r].numpy() for r in op.refs]


def _assert_ulp(a, b, ulp, msg):
    if a.dtype.kind == "c":
        assert_ulp(a.real, b.real, ulp, msg + ".real")
        assert_ulp(a.imag, b.imag, ulp, msg + ".imag")
    else:
        assert_ulp(a, b, ulp, msg)


@pytest.mark.parametrize("op_name,dtype,hypers,attrs,ulp,shape", CASES,
                         ids=[f"{c[0]}-{np.dtype(c[1]).name}-{'-'.join(c[3]) or 'plain'}-{'x'.join(map(str, c[5]))}"
                              for c in CASES])
def test_against_tensorflow(op_name, dtype, hypers, attrs, ulp, shape):
    tf = pytest.importorskip("tensorflow")
    kw = make_inputs(op_name, dtype, hypers, shape)
    ours = registry.call(op_name, **kw, **attrs)
    theirs = _tf_apply(tf, op_name, kw, attrs)
    for name, a, b in zip(registry.get(op_name).refs, ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        if ulp is None:
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-5 * np.abs(b).max(), err_msg=f"{op_name} {name}")
        elif isinstance(ulp, Step) and name == "var":
            assert_step_ulp(a, b, kw["var"], ulp, f"{op_name} var")
        else:
            _assert_ulp(a, b, ulp, f"{op_name} {name}")


def assert_step_ulp(actual, expected, before, n, msg):
    """|actual - expected| <= n ULP(|before - expected|) + 1 ULP(expected)."""
    f = np.float64
    step = np.abs(before.astype(f) - expected.astype(f)).astype(expected.dtype)
    tol = n * np.spacing(step).astype(f) + np.spacing(np.abs(expected)).astype(f)
    diff = np.abs(actual.astype(f) - expected.astype(f))
    bad = np.flatnonzero(~(diff <= tol))
    assert bad.size == 0, (f"{msg}: {bad.size} elements beyond {n} step-ULPs, first at {bad[0]}: "
                           f"actual {actual.flat[bad[0]]!r}, expected {expected.flat[bad[0]]!r}")


# (op, hyperparameters, attrs, in place): above PARALLEL_MIN the parallel compilation runs
LARGE = [("ApplyGradientDescent", GD, {}, True), ("ApplyMomentum", MOM, NEST, True), ("ApplyAdagradDA", DA, {}, True),
         ("ApplyProximalGradientDescent", PGD, {}, True), ("ApplyAdam", ADAM, {}, False),
         ("ApplyFtrlV2", FTRL2, {}, False), ("ApplyCenteredRMSProp", RMS, {}, False)]


@pytest.mark.parametrize("op_name,hypers,attrs,in_place", LARGE)
def test_parallel_path_matches_tensorflow(op_name, hypers, attrs, in_place):
    """Above PARALLEL_MIN the parallel compilation runs: same bits as TF (in place too, where marked)."""
    tf = pytest.importorskip("tensorflow")
    kw = make_inputs(op_name, F32, hypers, (_jit.PARALLEL_MIN + 17,), seed=1)
    theirs = _tf_apply(tf, op_name, kw, attrs)
    op = registry.get(op_name)
    if in_place:
        bufs = tuple(kw[r].copy() for r in op.refs)
        ours = op.kernel(**{**kw, **dict(zip(op.refs, bufs))}, **attrs, out=bufs)
        assert all(a is buf for a, buf in zip(ours, bufs))
    else:
        ours = registry.call(op_name, **kw, **attrs)
    for a, b in zip(ours, theirs):
        assert_ulp(a, b, 0, op_name)


ADAPTIVE = {"ApplyAdam", "ApplyAdaMax", "ApplyRMSProp", "SparseApplyRMSProp", "ApplyCenteredRMSProp",
            "SparseApplyCenteredRMSProp", "ApplyFtrl", "ApplyFtrlV2", "SparseApplyFtrl", "SparseApplyFtrlV2",
            "ApplyAddSign", "ApplyPowerSign"}
# float32, float16 and complex64 rows (of the adaptive kernels: float32 and float16, Adam float32 only)
PURITY = [(c[0], c[1], c[2], c[3], c[5]) for c in CASES
          if (c[1] in (F32, F16, C64) if c[0] not in ADAPTIVE else
              (c[1] in (F32, F16) and c[0] != "ApplyAdam") or c[:2] == ("ApplyAdam", F32))]


@pytest.mark.parametrize("op_name,dtype,hypers,attrs,shape", PURITY,
                         ids=[f"{p[0]}-{np.dtype(p[1]).name}-{'x'.join(map(str, p[4]))}-{i}"
                              for i, p in enumerate(PURITY)])
def test_pure_and_in_place(op_name, dtype, hypers, attrs, shape):
    """Inputs are left unchanged; ``out=`` (here: the inputs themselves) gives the same bits."""
    kw = make_inputs(op_name, dtype, hypers, shape, seed=2)
    before = {k: v.copy() for k, v in kw.items()}
    op = registry.get(op_name)
    fresh = registry.call(op_name, **kw, **attrs)
    for k in kw:
        np.testing.assert_array_equal(kw[k], before[k], err_msg=k)
    bufs = tuple(kw[r] for r in op.refs)
    got = op.kernel(**kw, **{a: attrs.get(a, d) for a, d in op.attrs.items()}, out=bufs)
    for name, a, b, buf in zip(op.refs, got, fresh, bufs):
        assert a is buf
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8), err_msg=name)


def test_resource_variants_share_the_kernel():
    for name in SLOTS:
        assert registry.get("Resource" + name).kernel is registry.get(name).kernel
        assert registry.get("Resource" + name).outputs == ()


def _bad(op_name, **change):
    shape = (8, 2) if op_name.startswith("Sparse") else (4,)
    kw = make_inputs(op_name, F32, HYPERS[op_name], shape)
    kw.update(change)
    return kw


ERRORS = [
    ("ApplyGradientDescent", dict(delta=np.ones(5, F32)), "var and delta do not have the same shape[4] [5]"),
    ("ApplyGradientDescent", dict(alpha=np.ones(2, F32)), "alpha is not a scalar: [2]"),
    ("ApplyProximalGradientDescent", dict(delta=np.ones(3, F32)), "var and delta do not have the same shape[4] [3]"),
    ("ApplyAdagrad", dict(accum=np.ones(3, F32)), "var and accum do not have the same shape[4] [3]"),
    ("ApplyAdagradV2", dict(grad=np.ones((4, 1), F32)), "var and grad do not have the same shape[4] [4,1]"),
    ("ApplyAdagradV2", dict(epsilon=np.ones(1, F32)), "epsilon is not a scalar: [1]"),
    ("ApplyProximalAdagrad", dict(lr=F32(0)), "lr is not a positive scalar: []"),
    ("ApplyProximalAdagrad", dict(l1=F32(-1)), "l1 regularization strength is not a non-negative scalar: []"),
    ("SparseApplyProximalAdagrad", dict(l2=F32(-1)), "l2 regularization strength is not a non-negative scalar"),
    ("ApplyAdagradDA", dict(gradient_squared_accumulator=np.ones(2, F32)),
     "var and accum do not have the same shape[4] [2]"),
    ("ApplyAdagradDA", dict(global_step=np.ones(2, np.int64)), "global_step is not a scalar: [2]"),
    ("ApplyAdadelta", dict(accum_update=np.ones(2, F32)), "var and accum_update do not have the same shape[4] [2]"),
    ("SparseApplyAdadelta", dict(accum=np.ones((4, 3), F32)),
     "var and accum_grad do not have the same shape[8,2] [4,3]"),
    ("ApplyMomentum", dict(momentum=np.ones(2, F32)), "momentum is not a scalar: [2]"),
    ("SparseApplyMomentum", dict(indices=np.array([0, 1, 8, 1, 2, 0])),
     "Index 8 at offset 2 in indices is out of range"),
    ("SparseApplyAdagrad", dict(indices=np.array([0, 1, 2, 3, 0], np.int32)),
     "grad must be the same size as indices in the first dimension."),
    ("SparseApplyAdagradDA", dict(grad=np.ones((6, 3), F32)), "var and grad must match in dimension 1"),
    ("SparseApplyKerasMomentum", dict(indices=np.zeros((6, 1), np.int64)), "indices must be one-dimensional"),
    ("SparseApplyProximalGradientDescent", dict(var=np.float32(1), grad=np.float32(1), indices=np.zeros(1)),
     "var must be at least 1 dimensional"),
    ("ApplyAdam", dict(grad=np.ones(5, F32)), "var and grad do not have the same shape[4] [5]"),
    ("ApplyAdam", dict(m=np.ones(3, F32)), "var and m do not have the same shape[4] [3]"),
    ("ApplyAdam", dict(lr=np.ones(2, F32)), "lr is not a scalar: [2]"),
    ("ApplyAdaMax", dict(v=np.ones((4, 1), F32)), "var and v do not have the same shape[4] [4,1]"),
    ("ApplyRMSProp", dict(mom=np.ones(2, F32)), "var and mom do not have the same shape[4] [2]"),
    ("ApplyCenteredRMSProp", dict(mg=np.ones(2, F32)), "var and mg do not have the same shape[4] [2]"),
    ("ApplyAddSign", dict(grad=np.ones(3, F32)), "var and grad do not have the same shape[4] [3]"),
    ("ApplyPowerSign", dict(beta=np.ones(1, F32)), "beta is not a scalar: [1]"),
    ("ApplyFtrl", dict(linear=np.ones(2, F32)), "var and linear do not have the same shape[4] [2]"),
    ("SparseApplyFtrl", dict(lr=F32(0)), "lr is not a positive scalar"),
    ("SparseApplyFtrl", dict(l1=F32(-1)), "l1 regularization strength is not a non-negative scalar"),
    ("SparseApplyFtrlV2", dict(l2_shrinkage=F32(-1)), "l2 shrinkage regularization strength is not a non-negative"),
    ("SparseApplyFtrl", dict(lr_power=F32(0.5)), "lr_power is not a non-positive scalar"),
    ("SparseApplyFtrl", dict(indices=np.array([0, 1, 8, 1, 2, 0])), "Index 8 at offset 2 in indices is out of range"),
    ("SparseApplyRMSProp", dict(indices=np.array([0, 1, 2, 3, 0], np.int32)),
     "grad must be the same size as indices in the first dimension."),
    ("SparseApplyCenteredRMSProp", dict(grad=np.ones((6, 3), F32)), "var and grad must match in dimension 1"),
    ("SparseApplyFtrlV2", dict(indices=np.zeros((6, 1), np.int64)), "indices must be one-dimensional"),
]


@pytest.mark.parametrize("op_name,change,message", ERRORS, ids=[f"{e[0]}-{e[2][:30]}" for e in ERRORS])
def test_run_time_errors(op_name, change, message):
    with pytest.raises(errors.InvalidArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        registry.call(op_name, **_bad(op_name, **change))


# TF's dense Adadelta does not check accum_update's shape (ref does); AdagradDA's
# accumulator message and the rank-0 var are checked by TF's resource ops elsewhere.
TF_SAME = [e for e in ERRORS if e[0] not in ADAPTIVE and
           (e[0] not in ("ApplyAdadelta", "ApplyAdagradDA", "SparseApplyProximalGradientDescent")
            or "global_step" in e[2])] + [
    ("SparseApplyFtrl", dict(lr=F32(0)), "lr is not a positive scalar"),
    ("SparseApplyFtrl", dict(indices=np.array([0, 1, 8, 1, 2, 0])), "Index 8 at offset 2 in indices is out of range"),
    ("ApplyAdam", dict(lr=np.ones(2, F32)), "lr is not a scalar"),
]


@pytest.mark.parametrize("op_name,change,message", TF_SAME, ids=[f"{e[0]}-{e[2][:30]}" for e in TF_SAME])
def test_tensorflow_raises_the_same(op_name, change, message):
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(tf.errors.InvalidArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        _tf_apply(tf, op_name, _bad(op_name, **change), {})


def test_shape_rule_rejects_mismatches():
    from ref.types.shapes import TensorShape
    from ref.types import dtypes
    rule = registry.get("ApplyMomentum").shape
    spec = lambda *s: registry.Spec(dtypes.float32, TensorShape(list(s)))  # noqa: E731
    ok = dict(var=spec(3, 2), accum=spec(3, 2), lr=spec(), grad=spec(None, 2), momentum=spec())
    assert rule(ok, {"_op_name": "m"})[0][1].as_list() == [3, 2]
    with pytest.raises(ValueError, match="3 and 4"):
        rule({**ok, "grad": spec(4, 2)}, {"_op_name": "m"})
    with pytest.raises(ValueError, match="rank 0"):
        rule({**ok, "lr": spec(1)}, {"_op_name": "m"})
    gd = registry.get("ApplyGradientDescent").shape
    with pytest.raises(ValueError, match="var and delta"):
        gd(dict(var=spec(3), alpha=spec(), delta=spec(4)), {"_op_name": "gd"})
