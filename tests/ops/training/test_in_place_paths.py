"""The dense training kernels' in-place path (``run_dense`` with ``out=`` the
inputs themselves, as a Session donates its variables) against their general
path (new arrays, or ``out=`` buffers that are not the inputs), bit for bit:
every dense ``Apply*`` op, float32 and float64, 0-d to 3-d variables, in both
tiers of ``ref/ops/_jit.py`` (the exact NumPy form on whole arrays, the Numba
loop on flat views). The oracle is the general path running the Numba loop on
copies; gradient descent is also checked against its formula in NumPy. Inputs
the in-place path does not take (non-contiguous, other buffers) still give the
same bits, and malformed inputs still raise TF's errors."""
from __future__ import annotations

import os

import numpy as np
import pytest

from ref.types import errors
from ref.ops import _jit, registry
from ref.ops.training import (_apply, adadelta, adagrad, adagrad_da, adam, adamax, addsign, ftrl, gradient_descent,
                              momentum, powersign, proximal_adagrad, proximal_gradient_descent, rmsprop)

pytestmark = pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compares with Numba")

ADAM = dict(beta1_power=0.9 ** 3, beta2_power=0.999 ** 3, lr=0.01, beta1=0.9, beta2=0.999, epsilon=1e-7)
FTRL = dict(lr=0.05, l1=0.01, l2=0.02, lr_power=-0.5)
RMS = dict(lr=0.01, rho=0.9, momentum=0.5, epsilon=1e-7)

# op -> (hyperparameters, attrs, slot -> "any" | "pos")
OPS = {
    "ApplyGradientDescent": (dict(alpha=0.1), {}, {}),
    "ApplyProximalGradientDescent": (dict(alpha=0.05, l1=0.01, l2=0.02), {}, {}),
    "ApplyMomentum": (dict(lr=0.01, momentum=0.9), {}, {"accum": "any"}),
    "ApplyKerasMomentum": (dict(lr=0.01, momentum=0.9), {"use_nesterov": True}, {"accum": "any"}),
    "ApplyAdagrad": (dict(lr=0.01), {}, {"accum": "pos"}),
    "ApplyAdagradV2": (dict(lr=0.01, epsilon=1e-7), {"update_slots": False}, {"accum": "pos"}),
    "ApplyProximalAdagrad": (dict(lr=0.05, l1=0.01, l2=0.02), {}, {"accum": "pos"}),
    "ApplyAdagradDA": (dict(lr=0.05, l1=0.01, l2=0.02, global_step=7), {},
                       {"gradient_accumulator": "any", "gradient_squared_accumulator": "pos"}),
    "ApplyAdadelta": (dict(lr=1.0, rho=0.95, epsilon=1e-6), {}, {"accum": "pos", "accum_update": "pos"}),
    "ApplyAdam": (ADAM, {"use_nesterov": True}, {"m": "any", "v": "pos"}),
    "ApplyAdaMax": ({k: v for k, v in ADAM.items() if k != "beta2_power"}, {}, {"m": "any", "v": "pos"}),
    "ApplyRMSProp": (RMS, {}, {"ms": "pos", "mom": "any"}),
    "ApplyCenteredRMSProp": (RMS, {}, {"mg": "any", "ms": "pos", "mom": "any"}),
    "ApplyFtrl": (FTRL, {}, {"accum": "pos", "linear": "any"}),
    "ApplyFtrlV2": (dict(FTRL, l2_shrinkage=0.03), {}, {"accum": "pos", "linear": "any"}),
    "ApplyAddSign": (dict(lr=0.01, alpha=1.0, sign_decay=0.5, beta=0.9), {}, {"m": "any"}),
    "ApplyPowerSign": (dict(lr=0.01, logbase=np.log(2.0), sign_decay=0.5, beta=0.9), {}, {"m": "any"}),
}
# op -> the scalar update its loop inlines (an exact NumPy form or not decides the tier)
UPDATES = {
    "ApplyGradientDescent": gradient_descent.gradient_descent_update,
    "ApplyProximalGradientDescent": proximal_gradient_descent.proximal_gradient_descent_update,
    "ApplyMomentum": momentum.momentum_update, "ApplyKerasMomentum": momentum.keras_momentum_update,
    "ApplyAdagrad": adagrad.adagrad_update, "ApplyAdagradV2": adagrad.adagrad_v2_update,
    "ApplyProximalAdagrad": proximal_adagrad.proximal_adagrad_update,
    "ApplyAdagradDA": adagrad_da.adagrad_da_update, "ApplyAdadelta": adadelta.adadelta_update,
    "ApplyAdam": adam.adam_update, "ApplyAdaMax": adamax.adamax_update, "ApplyRMSProp": rmsprop.rmsprop_update,
    "ApplyCenteredRMSProp": rmsprop.centered_rmsprop_update, "ApplyFtrl": ftrl.ftrl_update,
    "ApplyFtrlV2": ftrl.ftrl_update, "ApplyAddSign": addsign.addsign_update,
    "ApplyPowerSign": powersign.powersign_update,
}
SHAPES = [(), (1,), (10, 1), (3, 4, 2), (257,)]
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, -1e-310]


def test_every_dense_apply_op_is_in_the_table():
    ops = {n for n in registry.registered() if n.startswith("Apply")}
    assert ops == set(OPS)


def _inputs(op_name, dtype, shape, special, seed=0):
    """{input: value}: var, slots and grad drawn for ``shape``; hyperparameters as
    a graph holds them (0-d arrays of the dtype; global_step int64)."""
    hypers, _, slots = OPS[op_name]
    rng = np.random.default_rng(seed)
    op = registry.get(op_name)
    grad = "delta" if "delta" in op.inputs else "grad"

    def draw(kind):
        a = rng.standard_normal(shape)
        a = np.abs(a) + 0.1 if kind == "pos" else a
        a = np.asarray(a, dtype)
        if special and a.size:
            flat = a.reshape(-1)
            flat[rng.integers(0, a.size, max(1, a.size // 4))] = rng.choice(SPECIAL, max(1, a.size // 4))
        return a

    kw = {"var": draw("any"), grad: draw("any"), **{s: draw(k) for s, k in slots.items()}}
    kw.update({k: np.asarray(v, np.int64 if k == "global_step" else dtype) for k, v in hypers.items()})
    return kw


def _call(op_name, kw, out=None):
    op = registry.get(op_name)
    attrs = {**{a: d for a, d in op.attrs.items()}, **OPS[op_name][1]}
    with np.errstate(all="ignore"):  # Numba's loops do not warn; the NumPy forms run quietly too
        return op.kernel(**kw, **attrs, out=out)


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view({4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _same(got, want, exact_nan):
    """Same bits; with ``exact_nan`` False any NaN equals any NaN (the NumPy forms'
    promise, ref/ops/_jit.py: which NaN LLVM returns for two is not)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if not exact_nan:
        nan_g, nan_w = np.isnan(got), np.isnan(want)
        np.testing.assert_array_equal(nan_g, nan_w)
        got, want = np.where(nan_g, 0, got).astype(got.dtype), np.where(nan_w, 0, want).astype(want.dtype)
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.fixture(params=["numpy", "numba"])
def tier(request, monkeypatch):
    """Which tier run_dense takes (ref/ops/_jit.py numpy_tier): the NumPy form where
    the update has an exact one, or the Numba loop."""
    monkeypatch.setattr(_apply, "numpy_tier", lambda kernel, size: request.param == "numpy")
    return request.param


def _oracle(op_name, kw, monkeypatch):
    """The general path on copies, in the Numba loop: the pure kernel's result."""
    with monkeypatch.context() as m:
        m.setattr(_apply, "numpy_tier", lambda kernel, size: False)
        return _call(op_name, {k: v.copy() for k, v in kw.items()})


@pytest.mark.parametrize("op_name", sorted(OPS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("special", [False, True])
def test_in_place_matches_the_general_path(op_name, dtype, special, tier, monkeypatch):
    op = registry.get(op_name)
    for shape in SHAPES:
        kw = _inputs(op_name, dtype, shape, special)
        want = _oracle(op_name, kw, monkeypatch)
        before = {k: v.copy() for k, v in kw.items()}
        refs = tuple(kw[r] for r in op.refs)
        got = _call(op_name, kw, out=refs)
        assert got is refs  # updated in place, the very buffers handed over
        numpy_form = tier == "numpy" and _apply.numpy_exact(UPDATES[op_name])
        for name, g, w in zip(op.refs, got, want):
            _same(g, w, exact_nan=not numpy_form or not special)
        for k, v in kw.items():  # the inputs that are not updated are left alone
            if k not in op.refs:
                np.testing.assert_array_equal(_bits(v) if v.dtype.kind == "f" else v,
                                              _bits(before[k]) if v.dtype.kind == "f" else before[k])




@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_gradient_descent_in_place_is_its_formula(dtype, shape, tier):
    """var - delta * alpha: one rounding for the product, one for the difference."""
    kw = _inputs("ApplyGradientDescent", dtype, shape, special=False, seed=3)
    want = kw["var"] - kw["delta"] * kw["alpha"][()]
    (got,) = _call("ApplyGradientDescent", kw, out=(kw["var"],))
    _same(got, want, exact_nan=True)


# Buffers the in-place path does not take: the general path gives the same bits.
def _fortran(a):
    return np.asfortranarray(a) if a.ndim > 1 else a


def _strided(a):
    if a.ndim == 0:
        return a
    big = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
    view = big[..., ::2]
    view[...] = a
    return view


OTHER = {
    "fortran-order arrays": lambda kw, refs: ({k: _fortran(v) if v.ndim else v for k, v in kw.items()}, None),
    "strided views": lambda kw, refs: ({k: _strided(v) if k in refs else v for k, v in kw.items()}, None),
    "other out buffers": lambda kw, refs: (kw, tuple(np.empty_like(kw[r]) for r in refs)),
    "strided grad": lambda kw, refs: ({k: _strided(v) if k in ("grad", "delta") else v for k, v in kw.items()},
                                      None),
}


@pytest.mark.parametrize("case", sorted(OTHER))
@pytest.mark.parametrize("op_name", ["ApplyGradientDescent", "ApplyAdam", "ApplyFtrl", "ApplyCenteredRMSProp"])
def test_other_buffers_take_the_general_path(case, op_name, tier, monkeypatch):
    op = registry.get(op_name)
    kw = _inputs(op_name, np.float32, (6, 5), special=False, seed=4)
    want = _oracle(op_name, kw, monkeypatch)
    kw, out = OTHER[case](kw, op.refs)
    if out is None:  # in place on the inputs themselves, which are not contiguous
        out = tuple(kw[r] for r in op.refs)
    got = _call(op_name, kw, out=out)
    for g, o, w in zip(got, out, want):
        assert g is o
        _same(g, w, exact_nan=True)


@pytest.mark.parametrize("op_name,change,message", [
    ("ApplyGradientDescent", dict(delta=np.ones(5, np.float32)), "var and delta do not have the same shape[4] [5]"),
    ("ApplyGradientDescent", dict(delta=np.ones(4, np.float64)), "delta has dtype float64, var has float32"),
    ("ApplyGradientDescent", dict(alpha=np.ones(2, np.float32)), "alpha is not a scalar: [2]"),
    ("ApplyMomentum", dict(accum=np.ones(3, np.float32)), "var and accum do not have the same shape[4] [3]"),
    ("ApplyMomentum", dict(grad=np.ones((4, 1), np.float32)), "var and grad do not have the same shape[4] [4,1]"),
    ("ApplyAdam", dict(v=np.ones(4, np.float64)), "v has dtype float64, var has float32"),
    ("ApplyAdam", dict(beta1_power=np.ones(1, np.float32)), "beta1_power is not a scalar: [1]"),
])
def test_malformed_inputs_raise_before_anything_is_written(op_name, change, message, tier):
    op = registry.get(op_name)
    kw = {**_inputs(op_name, np.float32, (4,), special=False), **change}
    refs = tuple(kw[r] for r in op.refs)
    before = [r.copy() for r in refs]
    with pytest.raises(errors.InvalidArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        _call(op_name, kw, out=refs)
    for r, b in zip(refs, before):
        np.testing.assert_array_equal(r, b)


# -- SizedKernel.bound: the loop the in-place path calls ------------------------------------

def test_bound_loop_is_the_loop_with_its_type_frozen_in():
    from ref.ops.training import gradient_descent as gd
    loop = gd._gradient_descent_loop
    var, delta = np.arange(5, dtype=np.float32), np.full(5, 0.5, np.float32)
    a, b = var.copy(), var.copy()
    loop(a, delta, np.float32(0.1), np.float32)
    fn = loop.bound(np.float32, 3, a.size)
    fn(b, delta, np.float32(0.1))
    np.testing.assert_array_equal(_bits(a), _bits(b))
    np.testing.assert_array_equal(_bits(a), _bits(var - delta * np.float32(0.1)))
    assert loop.bound(np.float32, 3, a.size) is fn  # kept: one lookup per call
    assert loop.bound(np.float32, 3, _jit.PARALLEL_MIN) is _jit._bound(loop.parallel, np.float32, 3)
