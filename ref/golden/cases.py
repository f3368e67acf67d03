"""Seeded inputs for one kernel: the cases a golden file holds.

A case is ``Case(label, inputs, attrs)``: the keyword arguments of
``ref.raw_ops.<op>``. Three kinds of op are covered automatically:

* training kernels (``Apply*`` / ``SparseApply*``): var and slots from the
  domains below, hyperparameters at typical values, as Python floats in one
  case and as 0-d arrays in another; edge cases with zeros, tiny (subnormal),
  huge and non-finite gradients; sparse kernels add duplicate, unsorted and
  empty ``indices``; every boolean attr (``use_nesterov``, ``update_slots``,
  ``multiply_linear_by_lr``) is flipped in one more case;
* element-wise ops (every input shares the float type attr): random values,
  zeros, tiny, huge and ``inf``/``-inf``/``nan``/``-0.0`` cases, a positive
  case (for sqrt/log) and, for two inputs, a broadcast case;
* ops with integer inputs from :data:`RECIPES` (reductions, MatMul, Gather, ...).

Any other kernel takes its cases from the caller:
``ref.golden.generate("Op", cases=[{"x": ..., "axis": ...}, ...])``.
A case the kernel rejects (an ``InvalidArgumentError``) is left out and listed
in the manifest's ``skipped``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ref.types import dtypes as _dtypes


class Case(NamedTuple):
    label: str
    inputs: dict
    attrs: dict


# -- training kernels --------------------------------------------------------------

NONNEGATIVE_SLOTS = ("v", "ms", "accum", "accum_update", "gradient_squared_accumulator")
"""Slots that are sums of squares (kept >= 0, as an optimizer keeps them)."""

HYPERS = dict(lr=0.01, alpha=0.01, beta1=0.9, beta2=0.999, epsilon=1e-7, beta1_power=0.9 ** 3,
              beta2_power=0.999 ** 3, rho=0.9, momentum=0.9, l1=0.01, l2=0.02, l2_shrinkage=0.01, lr_power=-0.5,
              sign_decay=0.99, beta=0.9, logbase=0.5)
"""Typical hyperparameter values, by the kernels' input names."""

HYPER_OVERRIDES = {"ApplyAddSign": dict(alpha=1.0)}


def is_training_op(op) -> bool:
    return op.name.startswith(("Apply", "SparseApply"))


def _training_hypers(op):
    refs = set(op.refs) | {"grad", "delta", "indices"}
    return [n for n in op.inputs if n not in refs]


def _hyper_value(op, name, dtype, as_array):
    if name == "global_step":
        return np.int64(3)
    value = HYPER_OVERRIDES.get(op.name, {}).get(name, HYPERS[name])
    return np.array(value, dtype) if as_array else float(value)


def _state(op, rng, shape, dtype):
    out = {}
    for name in op.refs:
        if name in NONNEGATIVE_SLOTS:
            out[name] = rng.uniform(0.01, 1.0, shape)
        elif name == "var":
            out[name] = rng.standard_normal(shape)
        else:
            out[name] = 0.1 * rng.standard_normal(shape)
    if "mg" in out:  # centered RMSProp: keep ms - mg^2 > 0, as an optimizer does
        out["mg"] = 0.5 * np.sqrt(out["ms"]) * np.sign(rng.standard_normal(shape))
    return {k: v.astype(dtype) for k, v in out.items()}


def _grad_name(op):
    return "delta" if "delta" in op.inputs and "grad" not in op.inputs else "grad"


def training_cases(op, dtype, rng) -> list:
    dtype = np.dtype(dtype)
    sparse = "indices" in op.inputs
    shape = (5, 3) if sparse else (2, 3)
    tiny = np.finfo(dtype).tiny if dtype.kind == "f" else 1e-38
    big = float(np.finfo(dtype).max) ** 0.5 * 4 if dtype.kind == "f" else 1e19
    g_name = _grad_name(op)

    def case(label, grad_fn, as_array=False, attrs=None, indices=None, state_scale=1.0, squares_scale=None):
        state = _state(op, rng, shape, dtype)
        if state_scale != 1.0:
            state = {k: (v * state_scale).astype(dtype) if k != "var" else v for k, v in state.items()}
        if squares_scale is not None:
            state = {k: (v * squares_scale).astype(dtype) if k in NONNEGATIVE_SLOTS else v for k, v in state.items()}
        inputs = dict(state)
        if sparse:
            idx = np.array([1, 3, 1, 0] if indices is None else indices, np.int32)
            gshape = (idx.size,) + shape[1:]
            inputs["indices"] = idx
        else:
            gshape = shape
        inputs[g_name] = np.asarray(grad_fn(gshape), np.float64).astype(dtype)
        for h in _training_hypers(op):
            inputs[h] = _hyper_value(op, h, dtype, as_array)
        ordered = {n: inputs[n] for n in op.inputs}
        return Case(label, ordered, dict(attrs or {}))

    normal = rng.standard_normal
    cases = [
        case("random", normal),
        case("0-d array hyperparameters", normal, as_array=True),
        case("zero gradient", np.zeros),
        case("tiny gradient (subnormal)", lambda s: tiny * rng.uniform(-4, 4, s) / 8, state_scale=1e-30),
        case("huge gradient", lambda s: big * rng.uniform(-1, 1, s)),
        case("inf, -inf, nan, -0.0 in gradient",
             lambda s: np.resize(np.array([np.inf, -np.inf, np.nan, -0.0, 1.5, -2.0]), s)),
    ]
    if any(n in NONNEGATIVE_SLOTS for n in op.refs) and dtype.kind == "f" and np.finfo(dtype).tiny < 1e-30:
        # sums of squares near epsilon**2 (sqrt(v) ~ epsilon = 1e-7): where the
        # formula variants of the epsilon term part (see ref.golden.variants)
        cases.append(case("second moments near epsilon**2", lambda s: 1e-7 * rng.standard_normal(s),
                          squares_scale=1e-14))
    if sparse:
        cases += [case("unsorted distinct indices", normal, indices=[4, 0, 2]),
                  case("duplicate indices only", normal, indices=[2, 2, 2]),
                  case("empty indices", normal, indices=[])]
    for attr, default in op.attrs.items():
        if isinstance(default, bool) and attr != "use_locking":
            cases.append(case(f"{attr}={not default}", normal, attrs={attr: not default}))
    return cases


# -- element-wise ops ----------------------------------------------------------------

def float_group(op):
    """The type attr all inputs share, if the op is element-wise over floats."""
    if not op.inputs or op.list_inputs or op.ctx or op.stateful:
        return None
    for attr, members in op.type_attrs.items():
        if set(op.inputs) <= set(members):
            allowed = op.allowed.get(attr)
            if allowed is None or any(_dtypes.as_dtype(d).is_floating for d in allowed):
                return attr
    return None


def elementwise_cases(op, dtype, rng) -> list:
    dtype = np.dtype(dtype)
    fi = np.finfo(np.float32 if dtype.name == "bfloat16" else dtype)
    n = len(op.inputs)
    shape = (2, 3)

    def case(label, fn, shapes=None):
        shapes = shapes or [shape] * n
        ins = {name: np.asarray(fn(s), np.float64).astype(dtype) for name, s in zip(op.inputs, shapes)}
        return Case(label, ins, {})

    special = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1.0, -1.0, float(fi.max), float(fi.tiny)])
    cases = [
        case("random", lambda s: rng.standard_normal(s) * 3),
        case("positive", lambda s: rng.uniform(0.1, 10.0, s)),
        case("zeros", np.zeros),
        case("tiny (subnormal)", lambda s: float(fi.tiny) * rng.uniform(-2, 2, s)),
        case("huge", lambda s: float(fi.max) * rng.uniform(-0.9, 0.9, s)),
        case("inf, -inf, nan, -0.0", lambda s: rng.permutation(special)[:int(np.prod(s))].reshape(s)),
    ]
    if n == 2:
        cases.append(case("broadcast", lambda s: rng.standard_normal(s), shapes=[(2, 3), (3,)]))
    return cases


# -- recipes for ops with integer inputs ------------------------------------------------

def _reduction(rng, dt, op):
    x = rng.standard_normal((3, 4)).astype(dt)
    return [Case("axis 1", {"input": x, "axis": np.array([1], np.int32)}, {}),
            Case("all axes, keep_dims", {"input": x, "axis": np.array([0, 1], np.int32)}, {"keep_dims": True}),
            Case("axis -1 with inf/nan", {"input": np.array([[1, np.inf, 2], [np.nan, 0, -1]], dt),
                                          "axis": np.int32(-1)}, {})]


def _arg_reduction(rng, dt, op):
    x = rng.standard_normal((3, 4)).astype(dt)
    return [Case("dimension 0", {"input": x, "dimension": np.int32(0)}, {}),
            Case("dimension 1, ties", {"input": np.array([[1, 1, 0], [2, 5, 5]], dt), "dimension": np.int32(1)}, {})]


def _cumulative(rng, dt, op):
    x = rng.standard_normal((3, 4)).astype(dt)
    return [Case("axis 1", {"x": x, "axis": np.int32(1)}, {}),
            Case("axis 0, exclusive, reverse", {"x": x, "axis": np.int32(0)}, {"exclusive": True, "reverse": True})]


def _matmul(rng, dt, op):
    a, b = rng.standard_normal((3, 4)).astype(dt), rng.standard_normal((4, 2)).astype(dt)
    return [Case("3x4 @ 4x2", {"a": a, "b": b}, {}),
            Case("transpose_a, transpose_b", {"a": a.T.copy(), "b": b.T.copy()},
                 {"transpose_a": True, "transpose_b": True})]


def _batch_matmul(rng, dt, op):
    x, y = rng.standard_normal((2, 3, 4)).astype(dt), rng.standard_normal((4, 2)).astype(dt)
    return [Case("batch broadcast", {"x": x, "y": y}, {}),
            Case("adj_x", {"x": np.swapaxes(x, 1, 2).copy(), "y": y}, {"adj_x": True})]


def _bias_add(rng, dt, op):
    return [Case("NHWC", {"value": rng.standard_normal((2, 3)).astype(dt), "bias": rng.standard_normal(3).astype(dt)},
                 {})]


def _sparse_xent(rng, dt, op):
    return [Case("random", {"features": rng.standard_normal((3, 5)).astype(dt),
                            "labels": np.array([0, 4, 2], np.int32)}, {}),
            Case("large logits", {"features": (rng.standard_normal((2, 3)) * 1e4).astype(dt),
                                  "labels": np.array([1, 2], np.int64)}, {})]


def _add_n(rng, dt, op):
    return [Case("three inputs", {"inputs": [rng.standard_normal((2, 3)).astype(dt) for _ in range(3)]}, {}),
            Case("inf + -inf", {"inputs": [np.array([np.inf, 1], dt), np.array([-np.inf, 2], dt)]}, {})]


def _gather(rng, dt, op):
    params = rng.standard_normal((5, 2)).astype(dt)
    idx = np.array([4, 0, 4, 2], np.int32)
    if op.name == "GatherV2":
        return [Case("duplicate indices, axis 0", {"params": params, "indices": idx, "axis": np.int32(0)}, {}),
                Case("axis 1", {"params": params, "indices": np.array([1, 1, 0], np.int64), "axis": np.int32(1)}, {})]
    return [Case("duplicate indices", {"params": params, "indices": idx}, {})]


def _unsorted_segment(rng, dt, op):
    data = rng.standard_normal((5, 2)).astype(dt)
    return [Case("segments with an empty one", {"data": data, "segment_ids": np.array([0, 2, 0, 2, 1], np.int32),
                                                "num_segments": np.int32(4)}, {})]


def _segment_sum(rng, dt, op):
    return [Case("sorted ids", {"data": rng.standard_normal((5, 2)).astype(dt),
                                "segment_ids": np.array([0, 0, 1, 3, 3], np.int32)}, {})]


def _select(rng, dt, op):
    names = ("x", "y") if op.name == "Select" else ("t", "e")
    cond = np.array([[True, False, True], [False, False, True]])
    return [Case("mixed condition", {"condition": cond, names[0]: rng.standard_normal((2, 3)).astype(dt),
                                     names[1]: np.full((2, 3), np.nan, dt)}, {})]


def _concat(rng, dt, op):
    return [Case("axis 1", {"values": [rng.standard_normal((2, 1)).astype(dt), rng.standard_normal((2, 3)).astype(dt)],
                            "axis": np.int32(1)}, {})]


RECIPES = {
    **{n: _reduction for n in ("Sum", "Mean", "Max", "Min", "Prod")},
    **{n: _arg_reduction for n in ("ArgMax", "ArgMin")},
    "Cumsum": _cumulative, "Cumprod": _cumulative, "MatMul": _matmul, "BatchMatMulV2": _batch_matmul,
    "BiasAdd": _bias_add, "BiasAddV1": _bias_add, "SparseSoftmaxCrossEntropyWithLogits": _sparse_xent,
    "AddN": _add_n, "Gather": _gather, "GatherV2": _gather,
    **{n: _unsorted_segment for n in ("UnsortedSegmentSum", "UnsortedSegmentMax", "UnsortedSegmentMin",
                                      "UnsortedSegmentProd")},
    "SegmentSum": _segment_sum, "Select": _select, "SelectV2": _select, "ConcatV2": _concat,
}
"""Hand-written input recipes: ``recipe(rng, dtype, opdef) -> [Case, ...]``."""

ARRAY_SCALE_OPS = {"Sum", "Mean", "Prod", "Cumsum", "Cumprod", "MatMul", "BatchMatMulV2", "AddN", "L2Loss",
                   "Softmax", "LogSoftmax", "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
                   "UnsortedSegmentSum", "UnsortedSegmentProd", "SegmentSum", "BiasAddGrad"}
"""Ops whose results are sums: their ULP errors are measured at the output array's scale."""

CORRECTLY_ROUNDED = {"Abs", "Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Neg", "Sqrt", "Square", "Maximum",
                     "Minimum", "Floor", "Ceil", "Rint", "Round", "Sign", "Relu", "Relu6", "Identity", "ZerosLike",
                     "OnesLike", "Select", "SelectV2", "Gather", "GatherV2", "ConcatV2", "Max", "Min", "BiasAdd",
                     "BiasAddV1", "ClipByValue", "SquaredDifference", "FloorDiv", "FloorMod", "ReluGrad",
                     "Relu6Grad", "UnsortedSegmentMax", "UnsortedSegmentMin", "StopGradient"}
"""Ops whose every output is one IEEE operation (or none): budget 1 ULP."""


def budget(op) -> tuple:
    """``(ulp, scale)``: the per-output ULP budget and how the error is scaled
    (``"element"``: plain ULP distance; ``"array"``: ULPs of the output's largest
    magnitude; ``"update"``: ULPs of max(|new|, |old|), for training ops)."""
    if is_training_op(op):
        return 8, "update"
    if op.name in ARRAY_SCALE_OPS:
        return 8, "array"
    if op.name in CORRECTLY_ROUNDED:
        return 1, "element"
    return 4, "element"


def kernel_cases(op, dtype, rng) -> list:
    """The automatic cases for ``op`` (an OpDef); LookupError when there is no recipe."""
    if is_training_op(op):
        return training_cases(op, dtype, rng)
    if op.name in RECIPES:
        return RECIPES[op.name](rng, np.dtype(dtype), op)
    if float_group(op) is not None:
        return elementwise_cases(op, dtype, rng)
    raise LookupError(f"no automatic inputs for {op.name} (inputs {list(op.inputs)}); pass them: "
                      f"ref.golden.generate({op.name!r}, cases=[{{...}}, ...])")


def user_cases(op, cases) -> list:
    """Caller-given cases: dicts of keyword arguments (inputs and attrs), or Case tuples."""
    out = []
    for i, c in enumerate(cases):
        if isinstance(c, Case):
            out.append(c)
            continue
        c = dict(c)
        label = c.pop("label", f"case {i}")
        ins = {k: v for k, v in c.items() if k in op.inputs}
        attrs = {k: v for k, v in c.items() if k not in op.inputs}
        out.append(Case(label, ins, attrs))
    return out
