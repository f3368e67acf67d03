"""GradientDescent, ProximalGradientDescent, Adagrad(V2), ProximalAdagrad,
AdagradDA, Adadelta, Momentum and KerasMomentum kernels (dense and sparse)
against TensorFlow's Resource* ops, plus purity, the in-place ``out=`` path,
run-time errors and hypothesis properties against the spec-card oracles.
One row per kernel / dtype / flag."""
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
import ref.ops.training.gradient_descent  # noqa: F401
import ref.ops.training.momentum  # noqa: F401
import ref.ops.training.proximal_adagrad  # noqa: F401
import ref.ops.training.proximal_gradient_descent  # noqa: F401

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

# slot name -> how to draw it: "any" (normal), "pos" (|normal| + 0.1)
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
}
GRAD_NAME = {"ApplyGradientDescent": "delta", "ApplyProximalGradientDescent": "delta"}

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
# (op, dtype, hyperparameters, attrs, budget, shape of var). Budget: ULPs for var and
# slots (0: TF's CPU kernel does IEEE arithmetic we reproduce operation by operation,
# including the sparse kernels' inner_dim == 1 branches in C++ double; complex: 2,
# Eigen's complex multiply/divide round differently), or Step(n) (see above).
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
]


def _draw(rng, kind, shape, dtype):
    x = rng.standard_normal(shape)
    if kind == "pos":
        x = np.abs(x) + 0.1
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
        if isinstance(ulp, Step) and name == "var":
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


LARGE = [("ApplyGradientDescent", GD, {}), ("ApplyMomentum", MOM, NEST), ("ApplyAdagradDA", DA, {}),
         ("ApplyProximalGradientDescent", PGD, {})]


@pytest.mark.parametrize("op_name,hypers,attrs", LARGE)
def test_parallel_path_matches_tensorflow(op_name, hypers, attrs):
    """Above PARALLEL_MIN the parallel compilation runs: same bits as TF, in place too."""
    tf = pytest.importorskip("tensorflow")
    kw = make_inputs(op_name, F32, hypers, (_jit.PARALLEL_MIN + 17,), seed=1)
    theirs = _tf_apply(tf, op_name, kw, attrs)
    op = registry.get(op_name)
    bufs = tuple(kw[r].copy() for r in op.refs)
    ours = op.kernel(**{**kw, **dict(zip(op.refs, bufs))}, **attrs, out=bufs)
    for a, b, buf in zip(ours, theirs, bufs):
        assert a is buf
        assert_ulp(a, b, 0, op_name)


PURITY = [(c[0], c[1], c[2], c[3], c[5]) for c in CASES if c[1] in (F32, F16, C64)]


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


HYPERS = {"ApplyGradientDescent": GD, "ApplyProximalGradientDescent": PGD,
          "SparseApplyProximalGradientDescent": PGD, "ApplyAdagrad": ADAGRAD, "ApplyAdagradV2": ADAGRAD2,
          "SparseApplyAdagrad": ADAGRAD, "SparseApplyAdagradV2": ADAGRAD2, "ApplyProximalAdagrad": PADAGRAD,
          "SparseApplyProximalAdagrad": PADAGRAD, "ApplyAdagradDA": DA, "SparseApplyAdagradDA": DA,
          "ApplyAdadelta": ADADELTA, "SparseApplyAdadelta": ADADELTA, "ApplyMomentum": MOM,
          "SparseApplyMomentum": MOM, "ApplyKerasMomentum": MOM, "SparseApplyKerasMomentum": MOM}


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
]


@pytest.mark.parametrize("op_name,change,message", ERRORS, ids=[f"{e[0]}-{e[2][:30]}" for e in ERRORS])
def test_run_time_errors(op_name, change, message):
    with pytest.raises(errors.InvalidArgumentError, match=message.replace("[", r"\[").replace("]", r"\]")):
        registry.call(op_name, **_bad(op_name, **change))


# TF's dense Adadelta does not check accum_update's shape (ref does); AdagradDA's
# accumulator message and the rank-0 var are checked by TF's resource ops elsewhere.
TF_SAME = [e for e in ERRORS if e[0] not in ("ApplyAdadelta", "ApplyAdagradDA", "SparseApplyProximalGradientDescent")
           or "global_step" in e[2]]


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
