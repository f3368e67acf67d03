"""QuantizeAndDequantizeV2/V3/V4 against TensorFlow's kernels (bit for bit), their
formula, and their gradients against TF's."""
import itertools

import numpy as np
import pytest

import ref as rtf
from ref.ops import quantize as _under_test  # noqa: F401  (the module these tests cover)

X = np.concatenate([np.linspace(-5, 5, 41), [0.5, 1.5, -2.5, 2.5, 0.0, 7.25, -0.5]]).astype(np.float32).reshape(3, 4, 4)


def _range(axis, lo, hi):
    if axis == -1:
        return np.float32(lo), np.float32(hi)
    depth = X.shape[axis] if axis < X.ndim else 1
    return np.full(depth, lo, np.float32), np.full(depth, hi, np.float32)


# (op, signed_input, num_bits, range_given, round_mode, narrow_range, axis, (min, max))
QDQ_CASES = [c for c in itertools.product(
    ("V2", "V4"), (True, False), (1, 3, 8), (True, False), ("HALF_TO_EVEN", "HALF_UP"), (False, True),
    (-1, 2), ((-2.0, 3.0), (0.0, 2.0), (-4.0, 0.0)))]
QDQ_CASES += [("V2", True, 16, given, "HALF_TO_EVEN", False, 0, (-2.0, 3.0)) for given in (True, False)]
QDQ_CASES += [c for c in itertools.product(("V3",), (True, False), (2, 8), (True, False), ("HALF_TO_EVEN",),
                                           (False, True), (-1, 1), ((-2.0, 3.0), (0.5, 1.0)))]
QDQ_CASES += [("V2", True, 8, True, "HALF_TO_EVEN", False, -1, (3.0, -1.0)),  # min > max
              ("V2", True, 0, False, "HALF_TO_EVEN", False, -1, (0.0, 1.0)),  # num_bits out of range
              ("V2", True, 8, False, "HALF_DOWN", False, -1, (0.0, 1.0)),  # unknown round mode
              ("V2", True, 8, False, "HALF_TO_EVEN", False, 3, (0.0, 1.0)),  # axis past the rank
              ("V2", True, 1, True, "HALF_UP", True, -1, (-2.0, 3.0))]  # qmin = qmax = 0: inf and nan


def _kwargs(op, signed, bits, given, mode, narrow, axis, rng):
    lo, hi = _range(axis, *rng)
    kw = dict(input=X, input_min=lo, input_max=hi, signed_input=signed, range_given=given, narrow_range=narrow,
              axis=axis)
    if op == "V3":
        kw["num_bits"] = np.int32(bits)
    else:
        kw.update(num_bits=bits, round_mode=mode)
    return kw


def _call(lib, op, kw):
    try:
        return np.asarray(getattr(lib.raw_ops, "QuantizeAndDequantize" + op)(**kw))
    except Exception as e:  # noqa: BLE001  (the error class is compared)
        return type(e).__name__


@pytest.mark.parametrize("case", QDQ_CASES, ids=lambda c: "-".join(map(str, c)))
def test_quantize_and_dequantize_matches_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    kw = _kwargs(*case)
    want, got = _call(tf, case[0], kw), _call(rtf, case[0], kw)
    if isinstance(want, str):
        assert got == want
    else:
        assert got.dtype == np.float32 and got.shape == X.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("bits,lo,hi", [(8, -2.0, 3.0), (4, -1.0, 1.0), (3, 0.0, 2.0)])
def test_quantize_and_dequantize_formula(bits, lo, hi):
    """Signed, range given: the scale comes from the side that needs the smaller one."""
    qmin, qmax = -2 ** (bits - 1), 2 ** (bits - 1) - 1
    s_min = qmin / lo if qmin * lo > 0 else np.inf
    s_max = qmax / hi if qmax * hi > 0 else np.inf
    if s_min < s_max:
        scale, lo_, hi_ = s_min, lo, qmax * lo / qmin
    else:
        scale, lo_, hi_ = s_max, qmin * hi / qmax, hi
    want = np.round(np.clip(X.astype(np.float64), lo_, hi_) * scale) / scale
    got = rtf.raw_ops.QuantizeAndDequantizeV2(input=X, input_min=np.float32(lo), input_max=np.float32(hi),
                                              num_bits=bits, range_given=True)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def _graph_grad(lib, op, raw):
    with lib.Graph().as_default(), lib.Session() as s:
        x = lib.constant(X)
        kw = dict(input=x, input_min=lib.constant(-2.0), input_max=lib.constant(3.0), range_given=True)
        if op == "V3":
            kw["num_bits"] = lib.constant(4)
        else:
            kw["num_bits"] = 4
        y = raw(op)(**kw)
        g = lib.gradients(lib.reduce_sum(y * lib.constant(np.arange(48, dtype=np.float32).reshape(3, 4, 4))), x)
        return y.op.type, s.run(g)[0]


@pytest.mark.parametrize("op", ["V2", "V3", "V4"])
def test_quantize_and_dequantize_gradient_matches_tensorflow(op):
    tf = pytest.importorskip("tensorflow")
    from ref.framework.op_def_library import apply_op

    want = _graph_grad(tf.compat.v1, op, lambda o: getattr(tf.raw_ops, "QuantizeAndDequantize" + o))
    got = _graph_grad(rtf, op, lambda o: lambda **kw: apply_op("QuantizeAndDequantize" + o, **kw))
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])


def test_quantize_and_dequantize_v4_grad_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    g = np.arange(48, dtype=np.float32).reshape(3, 4, 4)
    for axis, lo, hi in ((-1, np.float32(-2), np.float32(3)),
                         (1, np.float32([-1, -2, 0, -5]), np.float32([1, 2, 3, 0]))):
        want = tf.raw_ops.QuantizeAndDequantizeV4Grad(gradients=g, input=X, input_min=lo, input_max=hi, axis=axis)
        got = rtf.raw_ops.QuantizeAndDequantizeV4Grad(gradients=g, input=X, input_min=lo, input_max=hi, axis=axis)
        for w, r in zip(want, got):
            np.testing.assert_array_equal(r, w.numpy())
