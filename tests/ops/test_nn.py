"""NN kernels (ref/ops/nn.py): float64 NumPy oracles of TF's formulas,
``tf.raw_ops`` comparisons within tests/ops/tf_budgets.py, run-time errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ref.ops.nn  # noqa: F401  (registers the ops)
from ref import errors, registry
from tests.ops.math_cases import nn_rows
from tests.ops.tf_budgets import TF_BUDGETS

NN_OPS = sorted(n for n, d in registry.registered().items() if d.kernel.__module__ == "ref.ops.nn")


def _softmax64(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# Oracles written from the documented formulas, in float64.
ORACLES = [
    ("Relu", lambda x: np.maximum(x, 0)),
    ("Relu6", lambda x: np.clip(x, 0, 6)),
    ("Elu", lambda x: np.where(x < 0, np.exp(x) - 1, x)),
    ("Selu", lambda x: 1.0507009873554805 * np.where(x < 0, 1.6732632423543772 * (np.exp(x) - 1), x)),
    ("Softplus", lambda x: np.log1p(np.exp(x))),
    ("Softsign", lambda x: x / (1 + np.abs(x))),
    ("LeakyRelu", lambda x: np.where(x > 0, x, np.float64(np.float32(0.2)) * x)),
    ("Softmax", _softmax64),
    ("LogSoftmax", lambda x: np.log(_softmax64(x))),
]


@pytest.mark.parametrize("op,oracle", ORACLES, ids=[r[0] for r in ORACLES])
@settings(max_examples=10, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple), seed=st.integers(0, 2**16))
def test_activation_vs_numpy(op, oracle, shape, seed):
    x = np.random.default_rng(seed).standard_normal(shape) * 4
    got = registry.call(op, features=x) if op not in ("Softmax", "LogSoftmax") else registry.call(op, logits=x)
    assert got.dtype == np.float64 and got.shape == shape
    np.testing.assert_allclose(got, oracle(x), rtol=1e-13, atol=1e-15)


@settings(max_examples=10, deadline=None)
@given(batch=st.integers(1, 4), classes=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_cross_entropy_vs_numpy(batch, classes, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, classes)) * 3
    labels = rng.integers(0, classes, batch)
    onehot = np.eye(classes)[labels]
    p = _softmax64(x)
    want_loss = -np.log(p[np.arange(batch), labels])
    loss, backprop = registry.call("SoftmaxCrossEntropyWithLogits", features=x, labels=onehot)
    np.testing.assert_allclose(loss, want_loss, rtol=1e-12)
    np.testing.assert_allclose(backprop, p - onehot, atol=1e-15)
    sloss, sbackprop = registry.call("SparseSoftmaxCrossEntropyWithLogits", features=x, labels=labels)
    np.testing.assert_allclose(sloss, want_loss, rtol=1e-12)
    np.testing.assert_allclose(sbackprop, p - onehot, atol=1e-15)


F = np.float32
BEHAVIOUR = [
    ("Elu-is-exp-minus-one", "Elu", {"features": F([-1e-30])}, F([0])),
    ("Softplus-large", "Softplus", {"features": F([100])}, F([100])),
    ("Softplus-tiny", "Softplus", {"features": F([-100])}, np.exp(F([-100]))),
    ("ReluGrad", "ReluGrad", {"gradients": F([1, 2, 3]), "features": F([-1, 0, 1])}, F([0, 0, 3])),
    ("Relu6Grad", "Relu6Grad", {"gradients": F([1, 2, 3]), "features": F([-1, 3, 6])}, F([0, 2, 0])),
    ("EluGrad", "EluGrad", {"gradients": F([2, 2]), "outputs": F([-0.5, 3])}, F([1, 2])),
    ("LeakyReluGrad", "LeakyReluGrad", {"gradients": F([2, 2]), "features": F([-1, 1]), "alpha": 0.5}, F([1, 2])),
    ("SoftsignGrad", "SoftsignGrad", {"gradients": F([4]), "features": F([-1])}, F([1])),
    ("BiasAdd-NCHW", "BiasAdd", {"value": np.zeros((1, 2, 1, 2), F), "bias": F([1, 2]), "data_format": "NCHW"},
     F([[[[1, 1]], [[2, 2]]]])),
    ("BiasAddGrad", "BiasAddGrad", {"out_backprop": np.ones((2, 3, 4), F)}, F([6, 6, 6, 6])),
    ("L2Loss", "L2Loss", {"t": F([1, 2, 3])}, F(7)),
    ("InTopKV2-tie-counts-for-target", "InTopKV2", {"predictions": F([[1, 2, 2, 0]]), "targets": np.int32([1]),
                                                    "k": np.int32(1)}, np.array([True])),
    ("InTopKV2-out-of-range", "InTopKV2", {"predictions": F([[1, 2]]), "targets": np.int32([5]),
                                           "k": np.int32(2)}, np.array([False])),
    ("InTopKV2-nonfinite", "InTopKV2", {"predictions": F([[np.inf, 2]]), "targets": np.int32([0]),
                                        "k": np.int32(2)}, np.array([False])),
]


@pytest.mark.parametrize("rid,op,kwargs,expected", BEHAVIOUR, ids=[r[0] for r in BEHAVIOUR])
def test_behaviour(rid, op, kwargs, expected):
    got = np.asarray(registry.call(op, **kwargs))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


ERRORS = [
    ("sparse-label-out-of-range", "SparseSoftmaxCrossEntropyWithLogits",
     {"features": np.zeros((2, 3), F), "labels": np.int32([0, 3])}, "outside the valid range of \\[0, 3\\)"),
    ("sparse-label-negative", "SparseSoftmaxCrossEntropyWithLogits",
     {"features": np.zeros((2, 3), F), "labels": np.int64([-1, 0])}, "label value of -1"),
    ("bias-size", "BiasAdd", {"value": np.zeros((2, 3), F), "bias": np.zeros(2, F)}, "as many biases"),
    ("bias-rank", "BiasAdd", {"value": np.zeros(3, F), "bias": np.zeros(3, F)}, "at least 2D"),
    ("relu-grad-shapes", "ReluGrad", {"gradients": np.zeros(3, F), "features": np.zeros(2, F)}, "same shape"),
    ("xent-shapes", "SoftmaxCrossEntropyWithLogits", {"features": np.zeros((2, 3), F), "labels": np.zeros((2, 4), F)},
     "broadcastable"),
]


@pytest.mark.parametrize("rid,op,kwargs,match", ERRORS, ids=[r[0] for r in ERRORS])
def test_runtime_errors(rid, op, kwargs, match):
    with pytest.raises(errors.InvalidArgumentError, match=match):
        registry.call(op, **kwargs)


ROWS = nn_rows()


@pytest.mark.parametrize("rid,op,kwargs", ROWS, ids=[r[0] for r in ROWS])
def test_vs_tf_raw_ops(rid, op, kwargs):
    tf = pytest.importorskip("tensorflow")
    from tests.ops.tf_compare import distance

    d = distance(tf, op, kwargs)
    assert d <= TF_BUDGETS[op], f"{rid}: {d} ULP from tf.raw_ops.{op} > budget {TF_BUDGETS[op]}"


def test_every_nn_op_has_a_budget_and_a_tf_row():
    exercised = {r[1] for r in ROWS}
    assert [op for op in NN_OPS if op not in TF_BUDGETS] == []
    assert [op for op in NN_OPS if op not in exercised] == []
