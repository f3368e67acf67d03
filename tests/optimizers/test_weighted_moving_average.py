"""``moving_averages.weighted_moving_average`` (issue 26; TF's
moving_averages_test ``testWeightedMovingAverage``): ``moving_average(value *
weight) / moving_average(weight)``, each average updated as ``avg -= (avg - x)
* (1 - decay)`` in the value's dtype (``1 - decay`` computed in Python first),
without debiasing, in two zero-initialized variables ``<scope>/value_x_weight``
and ``<scope>/weight``. The oracle is that formula in NumPy; the rows are
compared with TF where it is installed.
"""
from __future__ import annotations

import numpy as np
import pytest

import ref

# (case, value, weight, decay, number of updates, name)
ROWS = [
    ("scalar", 10.0, 2.0, 0.9, 3, None),
    ("vector", [10.0, 4.0], [2.0, 1.0], 0.5, 2, "wavg"),
    ("vector_scalar_weight", [1.0, -3.0, 5.0], 0.25, 0.99, 4, None),
    ("float64", np.array([2.0, 8.0]), np.array([1.0, 3.0]), 0.7, 3, None),
]


def _oracle(value, weight, decay, steps):
    dt = np.asarray(value).dtype if isinstance(value, np.ndarray) else np.float32
    value, weight = np.asarray(value, dt), np.asarray(weight, dt)
    one_minus = np.asarray(1.0 - decay, dt)  # a Python decay: 1 - decay in Python, then the dtype
    num, den = np.zeros_like(value * weight), np.zeros_like(weight)
    out = []
    for _ in range(steps):
        num = num - (num - value * weight) * one_minus
        den = den - (den - weight) * one_minus
        out.append(num / den)
    return out


def _run(tf, moving_averages, value, weight, decay, steps, name):
    with tf.Graph().as_default():
        dt = tf.float64 if isinstance(value, np.ndarray) else tf.float32
        v, w = tf.constant(value, dtype=dt), tf.constant(weight, dtype=dt)
        avg = moving_averages.weighted_moving_average(v, decay, w, name=name)
        names = sorted(x.op.name for x in tf.global_variables())
        trainable = tf.trainable_variables()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [sess.run(avg) for _ in range(steps)], names, trainable, avg.op.name


def _check(got, value, weight, decay, steps, name):
    values, names, trainable, op_name = got
    scope = name or "WeightedMovingAvg"
    assert names == [f"{scope}/value_x_weight", f"{scope}/weight"] and trainable == []
    assert op_name == f"{scope}/{scope}"
    for g, want in zip(values, _oracle(value, weight, decay, steps)):
        assert g.dtype == want.dtype
        np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("case,value,weight,decay,steps,name", ROWS, ids=[r[0] for r in ROWS])
def test_weighted_moving_average(case, value, weight, decay, steps, name):
    from ref.optimizers import moving_averages
    _check(_run(ref, moving_averages, value, weight, decay, steps, name), value, weight, decay, steps, name)


@pytest.mark.parametrize("case,value,weight,decay,steps,name", ROWS, ids=[r[0] for r in ROWS])
def test_rows_match_tf(case, value, weight, decay, steps, name):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.training import moving_averages
    _check(_run(tf, moving_averages, value, weight, decay, steps, name), value, weight, decay, steps, name)
