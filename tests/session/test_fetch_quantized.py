"""Fetching a quantized tensor (qint8, quint8, qint16, quint16, qint32) returns its plain integers,
as TF's Session does (ref holds them in TF's one-field structured NumPy dtypes); run twice, the
second run taking the cached fast path."""
import numpy as np
import pytest

import ref
from ref.session import session as _under_test  # noqa: F401

QUANTIZED = ["qint8", "quint8", "qint16", "quint16", "qint32"]


def _fetch(tf, name, value):
    g = tf.Graph()
    with g.as_default():
        x = tf.cast(tf.constant(value), tf.as_dtype(name))
        back = tf.cast(x, tf.int32)
        with tf.Session(graph=g) as s:
            runs = [s.run(x) for _ in range(2)] + [s.run([x, back])[0]]
    return [(np.asarray(r).dtype.str, np.asarray(r).tolist(), type(r).__name__) for r in runs]


@pytest.mark.parametrize("name", QUANTIZED)
@pytest.mark.parametrize("value", [[0, 40, 70], 5], ids=["vector", "scalar"])
def test_fetch_quantized_as_tf(name, value):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _fetch(ref, name, value) == _fetch(tf, name, value)
