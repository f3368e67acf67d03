"""Input tables for the math and nn kernels: one row per (op, dtype), the
keyword arguments of ``tf.raw_ops.<Name>`` built from a fixed seed. Shared by
tests/ops/test_math.py and tests/ops/test_nn.py (TF comparisons)."""
from __future__ import annotations

import zlib
from typing import NamedTuple

import numpy as np

from ref.types import dtypes

F16, F32, F64 = np.float16, np.float32, np.float64
I32, I64 = np.int32, np.int64
FLOATS = (F32, F64, F16)


def values(dtype, shape, domain="any", seed=0):
    """Deterministic test values of ``dtype``: ``any`` (N(0, 3)), ``pos``
    (0.05..20), ``gt1`` (1.05..20), ``unit`` (-0.95..0.95), ``small`` (ints -9..9, floats N(0, 1)),
    ``nonzero`` (no zeros), ``prob`` (0.02..0.98)."""
    rng = np.random.default_rng(zlib.crc32(repr((np.dtype(dtype).name, tuple(shape), domain, seed)).encode()))
    kind = np.dtype(dtype).kind
    if kind == "b":
        return rng.random(shape) < 0.5
    if kind in "iu":
        lo, hi = {"pos": (1, 10), "small": (-9, 10), "nonzero": (1, 10)}.get(domain, (-50, 51))
        v = rng.integers(lo, hi, size=shape)
        if domain == "nonzero":
            v = v * rng.choice([-1, 1], size=shape)
        return v.astype(dtype)
    if domain == "pos":
        v = np.exp(rng.uniform(np.log(0.05), np.log(20), size=shape))
    elif domain == "unit":
        v = rng.uniform(-0.95, 0.95, size=shape)
    elif domain == "gt1":
        v = np.exp(rng.uniform(np.log(1.05), np.log(20), size=shape))
    elif domain == "prob":
        v = rng.uniform(0.02, 0.98, size=shape)
    elif domain == "small":
        v = rng.standard_normal(shape)
    else:
        v = rng.standard_normal(shape) * 3
    if domain == "nonzero":
        v = np.where(np.abs(v) < 0.05, 0.5, v)
    return v.astype(dtype)


def _halves(dtype, shape):
    """Values near and at .5 boundaries (rounding ops)."""
    v = np.arange(np.prod(shape)).reshape(shape) * 0.25 - 5
    return v.astype(dtype)


S = (5, 7)
class UnaryRow(NamedTuple):
    """One element-wise unary math op: everything its tests need, in one row."""
    dtypes: tuple  # dtypes tested (tf.raw_ops comparison rows)
    domain: str  # values(domain=...) for the TF rows
    budget: int  # ULP budget against tf.raw_ops.<Name> (tests/ops/tf_budgets.py serves it)
    builder: str  # the TF1 builder name (tf.<builder>, tf.math.<builder>)
    grad: tuple | None  # gradient-checker row (x shape, x init: any/pos/away/unit, second order); None: no rule
    oracle_ulp: int | None  # ULPs from ref.numpy_reference.UNARY[op]; None: no NumPy oracle there


SINH_BUDGET = 2  # measured 0-2 (float16/32/64) against tensorflow-cpu 2.21
TRIG_BUDGET = 3  # measured 0-3

UNARY_ROWS = {
    "Square": UnaryRow(FLOATS + (I32, I64), "any", 0, "square", ([2, 2], "any", True), 0),
    "Sqrt": UnaryRow(FLOATS, "pos", 0, "sqrt", ([3], "pos", True), 0),
    "Rsqrt": UnaryRow(FLOATS, "pos", 2, "rsqrt", ([3], "pos", True), None),
    "Exp": UnaryRow(FLOATS, "any", 2, "exp", ([3], "any", True), None),
    "Expm1": UnaryRow(FLOATS, "any", 3, "expm1", ([3], "any", True), None),
    "Log": UnaryRow(FLOATS, "pos", 3, "log", ([3], "pos", True), None),
    "Log1p": UnaryRow(FLOATS, "unit", 3, "log1p", ([3], "pos", True), None),
    "Neg": UnaryRow(FLOATS + (I32, I64), "any", 0, "negative", ([3], "any", True), 0),
    "Abs": UnaryRow(FLOATS + (I32, I64), "any", 0, "abs", ([3], "away", True), 0),
    "Sign": UnaryRow(FLOATS + (I32, I64), "any", 0, "sign", ([3], "away", False), 0),
    "Reciprocal": UnaryRow(FLOATS, "nonzero", 2, "reciprocal", ([3], "pos", True), None),
    "Inv": UnaryRow(FLOATS, "nonzero", 2, "reciprocal", None, None),
    "Floor": UnaryRow(FLOATS, "any", 0, "floor", None, 0),
    "Ceil": UnaryRow(FLOATS, "any", 0, "ceil", None, 0),
    "Sin": UnaryRow(FLOATS, "any", 2, "sin", ([3], "any", True), None),
    "Cos": UnaryRow(FLOATS, "any", 2, "cos", ([3], "any", True), None),
    "Tan": UnaryRow(FLOATS, "unit", 2, "tan", ([3], "unit", True), None),
    "Tanh": UnaryRow(FLOATS, "any", 4, "tanh", ([3], "any", True), None),
    "Sigmoid": UnaryRow(FLOATS, "any", 4, "sigmoid", ([3], "any", True), None),
    "Erf": UnaryRow(FLOATS, "small", 3, "erf", ([3], "any", True), None),
    "Erfc": UnaryRow(FLOATS, "small", 8, "erfc", ([3], "any", True), None),
    "IsFinite": UnaryRow((F32, F64), "special", 0, "is_finite", None, None),
    "IsNan": UnaryRow((F32, F64), "special", 0, "is_nan", None, None),
    "IsInf": UnaryRow((F32, F64), "special", 0, "is_inf", None, None),
    "Round": UnaryRow(FLOATS, "halves", 0, "round", None, None),
    "Rint": UnaryRow((F32, F64), "halves", 0, "rint", None, None),
    "Asinh": UnaryRow(FLOATS, "any", 2, "asinh", ([3], "any", True), 1),
    "Lgamma": UnaryRow((F32, F64), "any", 2, "lgamma", ([3], "pos", True), None),
    "Digamma": UnaryRow((F32, F64), "any", 80, "digamma", ([3], "pos", True), None),  # near its roots: Eigen's series vs ours
    "Sinh": UnaryRow(FLOATS, "any", SINH_BUDGET, "sinh", ([3], "any", True), None),
    "Cosh": UnaryRow(FLOATS, "any", SINH_BUDGET, "cosh", ([3], "any", True), None),
    "Asin": UnaryRow(FLOATS, "unit", TRIG_BUDGET, "asin", ([3], "inner", True), None),
    "Acos": UnaryRow(FLOATS, "unit", TRIG_BUDGET, "acos", ([3], "inner", True), None),
    "Atan": UnaryRow(FLOATS, "any", TRIG_BUDGET, "atan", ([3], "any", True), None),
    "Acosh": UnaryRow(FLOATS, "gt1", TRIG_BUDGET, "acosh", ([3], "gt1", True), None),
    "Atanh": UnaryRow(FLOATS, "unit", TRIG_BUDGET, "atanh", ([3], "inner", True), None),
    "Erfinv": UnaryRow((F32, F64), "unit", 8, "erfinv", ([3], "inner", True), None),  # float32: Eigen's own approximation, 7 ULP measured
    "Ndtri": UnaryRow((F32, F64), "prob", 2, "ndtri", ([3], "prob", True), None),
}
UNARY = {op: (row.dtypes, row.domain) for op, row in UNARY_ROWS.items()}  # op -> (dtypes, domain)
BINARY = {  # op -> (dtypes, domain of y)
    "AddV2": (FLOATS + (I32, I64), "any"), "Add": (FLOATS + (I32,), "any"), "Sub": (FLOATS + (I32, I64), "any"),
    "Mul": (FLOATS + (I32, I64), "any"), "RealDiv": (FLOATS, "nonzero"), "Div": (FLOATS + (I32, I64), "nonzero"),
    "DivNoNan": ((F32, F64), "any0"), "FloorDiv": (FLOATS + (I32, I64), "nonzero"),
    "FloorMod": ((F32, F64, I32, I64), "nonzero"), "TruncateDiv": ((I32, I64), "nonzero"),
    "Maximum": (FLOATS + (I32, I64), "any"), "Minimum": (FLOATS + (I32, I64), "any"),
    "Pow": ((F32, F64, I32), "powy"), "SquaredDifference": (FLOATS + (I32, I64), "any"),
    "Less": ((F32, I32), "any"), "LessEqual": ((F32, I32), "any"), "Greater": ((F32, I32), "any"),
    "GreaterEqual": ((F32, I32), "any"), "Equal": ((F32, I32), "any"), "NotEqual": ((F32, I32), "any"),
    "Atan2": (FLOATS, "any"), "TruncateMod": ((F32, F64, I32, I64), "nonzero"), "MulNoNan": ((F32, F64), "any0"),
    "Xlogy": ((F32, F64), "x0pos"), "Xdivy": ((F32, F64), "x0any"), "Xlog1py": ((F32, F64), "x0pos"),
}
GRAD = {  # (y, dy) ops -> domain of y
    "SigmoidGrad": "prob", "TanhGrad": "unit", "SqrtGrad": "pos", "RsqrtGrad": "pos",
    "ReciprocalGrad": "nonzero", "InvGrad": "nonzero",
}


def _special(dtype, shape):
    v = values(dtype, shape)
    flat = v.reshape(-1)
    flat[::4] = np.nan
    flat[1::5] = np.inf
    flat[2::7] = -np.inf
    return v


def _unary_x(dtype, domain):
    if domain == "special":
        return _special(dtype, S)
    if domain == "halves":
        return _halves(dtype, S) if np.dtype(dtype).kind == "f" else values(dtype, S)
    return values(dtype, S, domain)


def _binary_xy(op, dtype, domain):
    x = values(dtype, S, "pos" if op == "Pow" else "any", seed=1)
    if domain == "powy":
        y = values(dtype, (7,), "small", seed=2)
        y = np.abs(y) if np.dtype(dtype).kind in "iu" else y
        if np.dtype(dtype).kind in "iu":
            x = values(dtype, S, "small", seed=1)
        return x, y.astype(dtype)
    if domain in ("x0pos", "x0any"):  # x with zeros (the safe ops' point), y positive or any
        x = values(dtype, S, "any", seed=1)
        x.reshape(-1)[::3] = 0
        y = values(dtype, (1, 7), "pos" if domain == "x0pos" else "nonzero", seed=2)
        y.reshape(-1)[::4] = 0  # 0 * log(0) and 0 / 0 must still be 0
        return x, y
    if domain == "any0":
        y = values(dtype, (7,), "any", seed=2)
        y[::3] = 0
        return x, y
    return x, values(dtype, (1, 7), domain, seed=2)  # broadcasting [5,7] with [1,7]


def math_rows():
    """(id, op, kwargs) rows: every math op, its dtypes, TF's argument names."""
    rows = []
    for op, (dts, domain) in UNARY.items():
        for dt in dts:
            rows.append((f"{op}-{np.dtype(dt).name}", op, {"x": _unary_x(dt, domain)}))
    for op, (dts, domain) in BINARY.items():
        for dt in dts:
            x, y = _binary_xy(op, dt, domain)
            rows.append((f"{op}-{np.dtype(dt).name}", op, {"x": x, "y": y} if op != "Atan2" else {"y": x, "x": y}))
    for op, domain in GRAD.items():
        for dt in FLOATS:
            rows.append((f"{op}-{np.dtype(dt).name}", op,
                         {"y": values(dt, S, domain, seed=3), "dy": values(dt, S, "any", seed=4)}))
    for dt in (F32, F64):  # Hurwitz zeta (x > 1) and polygamma (orders 0..4), q and x broadcast over rows
        x, q = 1.0 + values(dt, S, "pos", seed=17), values(dt, (1, 7), "pos", seed=18)
        rows.append((f"Zeta-{np.dtype(dt).name}", "Zeta", {"x": x.astype(dt), "q": q}))
        n = (np.arange(5, dtype=dt) % 5).reshape(5, 1)
        rows.append((f"Polygamma-{np.dtype(dt).name}", "Polygamma", {"a": n, "x": values(dt, (1, 7), "pos", seed=19)}))
    b1, b2 = values(np.bool_, (4, 6), seed=5), values(np.bool_, (6,), seed=6)
    rows += [("LogicalAnd", "LogicalAnd", {"x": b1, "y": b2}), ("LogicalOr", "LogicalOr", {"x": b1, "y": b2}),
             ("LogicalNot", "LogicalNot", {"x": b1})]
    rows += [("Equal-incompatible", "Equal", {"x": np.float32([1, 2]), "y": np.float32([1, 2, 3]),
                                              "incompatible_shape_error": False}),
             ("NotEqual-incompatible", "NotEqual", {"x": np.float32([1, 2]), "y": np.float32([1, 2, 3]),
                                                    "incompatible_shape_error": False})]
    for dt in (F32, F64, I32, I64):
        dom = "prob" if np.dtype(dt).kind == "f" else "small"
        a, b = values(dt, (6, 9), dom, seed=7), values(dt, (9, 5), dom, seed=8)
        rows.append((f"MatMul-{np.dtype(dt).name}", "MatMul", {"a": a, "b": b}))
    a, b = values(F32, (9, 6), seed=7), values(F32, (5, 9), seed=8)
    rows.append(("MatMul-tt", "MatMul", {"a": a, "b": b, "transpose_a": True, "transpose_b": True}))
    a, b = values(F32, (64, 300), "prob", seed=7), values(F32, (300, 40), "prob", seed=8)
    rows.append(("MatMul-large", "MatMul", {"a": a, "b": b}))
    for dt in (F32, F64):
        x, y = values(dt, (2, 1, 4, 3), "prob", seed=9), values(dt, (3, 3, 5), "prob", seed=10)
        rows.append((f"BatchMatMulV2-{np.dtype(dt).name}", "BatchMatMulV2", {"x": x, "y": y}))
    x, y = values(F32, (3, 4, 2), "prob", seed=9), values(F32, (3, 5, 4), "prob", seed=10)
    rows.append(("BatchMatMulV2-adj", "BatchMatMulV2", {"x": x, "y": y, "adj_x": True, "adj_y": True}))
    for op in ("Sum", "Mean", "Max", "Min", "Prod", "EuclideanNorm"):
        for dt in (F32, F64, I32, I64):
            x = values(dt, (4, 5, 6), "prob" if op in ("Prod", "Sum", "Mean") else "any", seed=11)
            if op == "Prod" and np.dtype(dt).kind in "iu":
                x = values(dt, (4, 5, 6), "small", seed=11) % 3 + 1
            rows.append((f"{op}-{np.dtype(dt).name}", op, {"input": x, "axis": np.int32([0, 2])}))
            rows.append((f"{op}-{np.dtype(dt).name}-keep", op, {"input": x, "axis": np.int32(-1),
                                                                 "keep_dims": True}))
    rows.append(("Sum-large", "Sum", {"input": values(F32, (1000, 1000), "prob", seed=12), "axis": np.int32(1)}))
    rows.append(("Sum-all-large", "Sum", {"input": values(F32, (100000,), "prob", seed=12), "axis": np.int32(0)}))
    rows.append(("Mean-large", "Mean", {"input": values(F32, (300, 500), "prob", seed=13), "axis": np.int32([0, 1])}))
    rows.append(("Mean-int-negative", "Mean", {"input": np.int32([[-7, 0, 0], [7, 1, 1]]), "axis": np.int32(1)}))
    rows.append(("Sum-f16", "Sum", {"input": values(F16, (3, 8), "small", seed=14), "axis": np.int32(1)}))
    rows.append(("Max-empty", "Max", {"input": np.zeros((0, 3), np.float32), "axis": np.int32(0)}))
    rows.append(("Min-empty", "Min", {"input": np.zeros((0, 3), np.int32), "axis": np.int32(0)}))
    rows.append(("Sum-empty", "Sum", {"input": np.zeros((0, 3), np.float32), "axis": np.int32(0)}))
    bx = values(np.bool_, (3, 4), seed=15)
    rows += [("All", "All", {"input": bx, "axis": np.int32(1)}),
             ("Any-keep", "Any", {"input": bx, "axis": np.int32(0), "keep_dims": True})]
    for op in ("ArgMax", "ArgMin"):
        for dt in (F32, I32):
            x = values(dt, (4, 6), "small", seed=16) // (1 if np.dtype(dt).kind == "f" else 3)
            rows.append((f"{op}-{np.dtype(dt).name}", op, {"input": x, "dimension": np.int32(1)}))
        rows.append((f"{op}-int32out", op, {"input": values(F32, (4, 6), seed=16), "dimension": np.int32(0),
                                           "output_type": dtypes.int32}))
        rows.append((f"{op}-ties", op, {"input": np.float32([[1, 3, 3, 0], [2, 2, 2, 2]]), "dimension": np.int32(1)}))
    for n in (1, 2, 3, 8, 9, 10, 13, 17, 24):
        rows.append((f"AddN-{n}", "AddN", {"inputs": [values(F32, (50,), seed=20 + i) * np.float32(10.0 ** (i % 5 - 2))
                                                      for i in range(n)]}))
    rows.append(("AddN-int", "AddN", {"inputs": [values(I32, (3, 2), seed=40 + i) for i in range(4)]}))
    casts = [(F32, dtypes.int32, "any"), (F32, dtypes.float64, "any"), (F64, dtypes.float32, "any"),
             (F32, dtypes.float16, "any"), (I32, dtypes.float32, "any"), (F32, dtypes.bool, "small"),
             (I64, dtypes.int32, "any"), (np.bool_, dtypes.float32, "any"), (F32, dtypes.int64, "any")]
    for src, dst, dom in casts:
        x = values(src, S, dom, seed=30)
        if dst == dtypes.bool:
            x[0] = 0
        rows.append((f"Cast-{np.dtype(src).name}-{dst.name}", "Cast", {"x": x, "DstT": dst}))
    x64 = values(F64, (200,), seed=31)
    rows.append(("Cast-truncate", "Cast", {"x": x64, "DstT": dtypes.float32, "Truncate": True}))
    rows.append(("Cast-truncate-f16", "Cast", {"x": values(F32, (200,), seed=32), "DstT": dtypes.float16,
                                               "Truncate": True}))
    for dt in (F32, I32):
        t = values(dt, S, seed=33)
        rows.append((f"ClipByValue-{np.dtype(dt).name}", "ClipByValue",
                     {"t": t, "clip_value_min": dt(-1), "clip_value_max": dt(2)}))
    rows.append(("ClipByValue-tensor", "ClipByValue", {"t": values(F32, S, seed=34), "clip_value_min":
                                                       values(F32, S, seed=35) - 1, "clip_value_max": values(F32, S, seed=36) + 1}))
    rows.append(("ClipByValue-nan-inverted", "ClipByValue", {"t": np.float32([1, 5, np.nan, 2.5]),
                                                             "clip_value_min": np.float32(3), "clip_value_max": np.float32(2)}))
    c, t, e = values(np.bool_, S, seed=37), values(F32, S, seed=38), values(F32, S, seed=39)
    rows += [("Select", "Select", {"condition": c, "x": t, "y": e}),
             ("Select-rows", "Select", {"condition": c[:, 0], "x": t, "y": e}),
             ("Select-scalar", "Select", {"condition": np.bool_(True), "x": t, "y": e}),
             ("SelectV2", "SelectV2", {"condition": c[:1], "t": t, "e": values(F32, (7,), seed=40)})]
    for op in ("Cumsum", "Cumprod"):
        for excl in (False, True):
            for rev in (False, True):
                x = values(F32, (4, 30), "prob" if op == "Cumprod" else "any", seed=41) + (np.float32(0.5) if op == "Cumprod" else 0)
                rows.append((f"{op}-e{int(excl)}r{int(rev)}", op, {"x": x, "axis": np.int32(1),
                                                                   "exclusive": excl, "reverse": rev}))
        rows.append((f"{op}-int", op, {"x": values(I32, (3, 5), "small", seed=42), "axis": np.int32(0)}))
    for dt in (F32, F64, F16):  # -inf entries: TF's reducer keeps -inf where max(acc, x) is -inf
        x = values(dt, (6, 20), seed=43)
        x[0, 3], x[1, :4] = -np.inf, -np.inf
        for excl, rev, ax in ((False, False, 1), (True, False, 1), (False, True, 0), (True, True, -1)):
            rows.append((f"CumulativeLogsumexp-{np.dtype(dt).name}-e{int(excl)}r{int(rev)}a{ax}", "CumulativeLogsumexp",
                         {"x": x, "axis": np.int64(ax), "exclusive": excl, "reverse": rev}))
    rows += [("Range-int", "Range", {"start": np.int32(3), "limit": np.int32(40), "delta": np.int32(7)}),
             ("Range-neg", "Range", {"start": np.int64(10), "limit": np.int64(-3), "delta": np.int64(-4)}),
             ("Range-float", "Range", {"start": np.float32(0.1), "limit": np.float32(50.0), "delta": np.float32(0.3)}),
             ("Range-double", "Range", {"start": np.array(-1.5), "limit": np.array(2.0), "delta": np.array(0.1)})]
    return rows


class ActivationRow(NamedTuple):
    """One nn activation (``features`` in, same shape out) and its gradient kernel:
    everything their tests need, in one row."""
    domain: str  # TF rows' values: "any" (N(0, 3)) or "wide" (x 6, with the kinks 0, 6, +-20)
    budget: int  # ULP budget against tf.raw_ops.<Name> (tests/ops/tf_budgets.py serves it)
    builder: str  # the TF1 builder, tf.nn.<builder>
    grad: tuple  # gradient-checker row: (x shape, x init: any/away/relu6, second order, builder kwargs)
    grad_op: str  # the gradient kernel (<Name>Grad)
    grad_input: tuple  # its second input and that input's domain: any/wide, "elu"/"selu" (an output)
    grad_budget: int  # ULP budget of grad_op against tf.raw_ops
    scalar: tuple = ()  # which of (op, grad_op) tests/ops/test_scalar_inputs.py runs on TF's scalars too


# The oracle of each is ref.numpy_reference.ACTIVATIONS[op].
ACTIVATION_ROWS = {
    "Relu": ActivationRow("any", 0, "relu", ([4], "away", True, {}), "ReluGrad", ("features", "any"), 0,
                          ("Relu", "ReluGrad")),
    "Relu6": ActivationRow("wide", 0, "relu6", ([4], "relu6", True, {}), "Relu6Grad", ("features", "wide"), 0,
                           ("Relu6",)),
    "Elu": ActivationRow("any", 3, "elu", ([4], "away", True, {}), "EluGrad", ("outputs", "elu"), 0, ("Elu",)),
    "Selu": ActivationRow("any", 3, "selu", ([4], "away", True, {}), "SeluGrad", ("outputs", "selu"), 0, ("Selu",)),
    "Softplus": ActivationRow("wide", 4, "softplus", ([4], "any", True, {}), "SoftplusGrad", ("features", "wide"), 3,
                              ("Softplus",)),
    "Softsign": ActivationRow("any", 0, "softsign", ([4], "any", False, {}), "SoftsignGrad", ("features", "any"), 0,
                              ("Softsign",)),
    "LeakyRelu": ActivationRow("any", 0, "leaky_relu", ([4], "away", True, {"alpha": 0.3}), "LeakyReluGrad",
                               ("features", "any"), 0, ("LeakyRelu",)),
}
NN_UNARY = {op: row.domain for op, row in ACTIVATION_ROWS.items()}
NN_GRAD = {row.grad_op: row.grad_input for row in ACTIVATION_ROWS.values()}


def _wide(dt, shape, seed):
    v = values(dt, shape, seed=seed) * np.asarray(6, dt)
    v.reshape(-1)[:4] = np.asarray([0, 6, -20, 20], dt)  # kinks and Softplus's thresholds
    return v


def nn_rows():
    rows = []
    for op, domain in NN_UNARY.items():
        for dt in FLOATS:
            x = _wide(dt, S, 50) if domain == "wide" else values(dt, S, seed=50)
            rows.append((f"{op}-{np.dtype(dt).name}", op, {"features": x}))
    rows.append(("LeakyRelu-alpha", "LeakyRelu", {"features": values(F32, S, seed=51), "alpha": 0.01}))
    rows.append(("Elu-tiny", "Elu", {"features": np.float32([-1e-30, -1e-8, 1e-30])}))
    rows.append(("Softplus-f64-wide", "Softplus", {"features": np.linspace(-60, 60, 241)}))
    rows.append(("Relu-int", "Relu", {"features": values(I32, S, seed=52)}))
    for op, (second, domain) in NN_GRAD.items():
        for dt in FLOATS:
            if domain == "elu":
                x = values(dt, S, seed=53)
                y = np.where(x < 0, np.exp(x) - 1, x).astype(dt)
            elif domain == "selu":
                y = values(dt, S, seed=53)
            elif domain == "wide":
                y = _wide(dt, S, 53)
            else:
                y = values(dt, S, seed=53)
            rows.append((f"{op}-{np.dtype(dt).name}", op, {"gradients": values(dt, S, seed=54), second: y}))
    for dt in FLOATS:
        rows.append((f"Softmax-{np.dtype(dt).name}", "Softmax", {"logits": values(dt, (16, 37), seed=55)}))
        rows.append((f"LogSoftmax-{np.dtype(dt).name}", "LogSoftmax", {"logits": values(dt, (16, 37), seed=55)}))
    rows.append(("Softmax-3d", "Softmax", {"logits": values(F32, (2, 3, 1000), seed=56) * np.float32(10)}))
    rows.append(("LogSoftmax-3d", "LogSoftmax", {"logits": values(F32, (2, 3, 1000), seed=56) * np.float32(10)}))
    for dt in (F32, F64, F16):
        logits = values(dt, (16, 10), seed=57)
        lab = np.random.default_rng(58).random((16, 10))
        lab = (lab / lab.sum(1, keepdims=True)).astype(dt)
        rows.append((f"SoftmaxCrossEntropyWithLogits-{np.dtype(dt).name}", "SoftmaxCrossEntropyWithLogits",
                     {"features": logits, "labels": lab}))
        rows.append((f"SparseSoftmaxCrossEntropyWithLogits-{np.dtype(dt).name}", "SparseSoftmaxCrossEntropyWithLogits",
                     {"features": logits, "labels": np.random.default_rng(59).integers(0, 10, 16).astype(np.int32)}))
    rows.append(("SoftmaxCrossEntropyWithLogits-wide", "SoftmaxCrossEntropyWithLogits",
                 {"features": values(F32, (8, 1000), seed=60) * np.float32(5),
                  "labels": np.eye(1000, dtype=np.float32)[np.arange(8) * 97]}))
    rows.append(("SparseSoftmaxCrossEntropyWithLogits-int64", "SparseSoftmaxCrossEntropyWithLogits",
                 {"features": values(F32, (8, 1000), seed=60) * np.float32(5), "labels": np.arange(8) * 97}))
    for dt in (F32, F64, I32):
        rows.append((f"BiasAdd-{np.dtype(dt).name}", "BiasAdd", {"value": values(dt, (2, 3, 4, 5), seed=61),
                                                                 "bias": values(dt, (5,), seed=62)}))
    rows.append(("BiasAdd-NCHW", "BiasAdd", {"value": values(F32, (2, 3, 4, 5), seed=61),
                                             "bias": values(F32, (3,), seed=62), "data_format": "NCHW"}))
    # data format permutations (TF's nn_test DataFormatDimMapTest/DataFormatVecPermuteTest cases)
    for src, dst in (("NHWC", "NCHW"), ("NHWC", "WHCN"), ("qwer", "rewq"), ("NDHWC", "NCDHW"), ("NDHWC", "DHWNC")):
        n = len(src)
        rows.append((f"DataFormatDimMap-{src}-{dst}", "DataFormatDimMap",
                     {"x": np.arange(-n, n, dtype=np.int32).reshape(2, n), "src_format": src, "dst_format": dst}))
    rows.append(("DataFormatDimMap-int64-default", "DataFormatDimMap", {"x": np.int64([-9, -5, -4, 0, 3, 7])}))
    for src, dst, x in (("NHWC", "NCHW", np.int32([7, 4, 9, 3])), ("NCHW", "NHWC", np.int64([[7, 4], [9, 3],
                                                                                        [4, 5], [5, 1]])),
                        ("NHWC", "HWNC", np.int32([7, 4])), ("NDHWC", "NCDHW", np.int32([7, 4, 9, 3, 5])),
                        ("NDHWC", "DHWNC", np.int32([[1, 2], [3, 4], [5, 6]])), ("NHWC", "WHCN", np.int32([4, 7]))):
        rows.append((f"DataFormatVecPermute-{src}-{dst}-{x.ndim}d{x.shape[0]}", "DataFormatVecPermute",
                     {"x": x, "src_format": src, "dst_format": dst}))
    # isotonic regression (the non-increasing fit of each row): TF's CPU kernels' input/output pairs
    for dt, out in ((F32, F32), (F64, F64), (I32, F64), (np.int16, F32)):
        rows.append((f"IsotonicRegression-{np.dtype(dt).name}", "IsotonicRegression",
                     {"input": (values(F32, (6, 9), seed=64) * 4).astype(dt), "output_dtype": out}))
    rows.append(("BiasAddV1", "BiasAddV1", {"value": values(F32, (4, 5), seed=61), "bias": values(F32, (5,), seed=62)}))
    for dt in (F32, F64):
        rows.append((f"BiasAddGrad-{np.dtype(dt).name}", "BiasAddGrad",
                     {"out_backprop": values(dt, (8, 6, 7, 5), "prob", seed=63)}))
    rows.append(("BiasAddGrad-NCHW", "BiasAddGrad", {"out_backprop": values(F32, (8, 6, 7, 5), "prob", seed=63),
                                                     "data_format": "NCHW"}))
    for dt in FLOATS:
        rows.append((f"L2Loss-{np.dtype(dt).name}", "L2Loss", {"t": values(dt, (6, 7), "small", seed=64)}))
    rows.append(("L2Loss-large", "L2Loss", {"t": values(F32, (300, 400), "prob", seed=65)}))
    preds = values(F32, (6, 5), seed=66)
    preds[1, 2] = preds[1, 3]  # a tie
    preds[4, 0] = np.inf
    for k in (1, 2, 5):
        rows.append((f"InTopKV2-k{k}", "InTopKV2", {"predictions": preds, "targets": np.int32([0, 2, 4, 1, 0, 7]),
                                                   "k": np.int32(k)}))
    return rows
