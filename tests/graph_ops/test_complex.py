"""tf.complex/real/imag/conj/angle/abs on complex64 and complex128: values,
dtypes and gradients compared with tensorflow.compat.v1; raw kernels on
NumPy values."""
import numpy as np
import pytest

import ref
import ref.raw_ops as raw
from tests.graph_ops._interop import compare
from ref.graph_ops import complex_ops as _under_test  # noqa: F401  (the module these tests cover)

RE = np.array([1.0, -2.0, 0.5], np.float32)
IM = np.array([3.0, -4.0, 0.0], np.float32)


def _parts(tf, dtype):
    return tf.constant(RE.astype(dtype)), tf.constant(IM.astype(dtype))


def _values(dtype):
    def build(tf):
        x, y = _parts(tf, dtype)
        z = tf.complex(x, y)
        return [z, tf.real(z), tf.imag(z), tf.conj(z), tf.angle(z), tf.abs(z), tf.real(x), tf.imag(x), tf.conj(x),
                tf.angle(tf.constant([-1.0, 2.0], dtype)), tf.complex(x, tf.constant(dtype(2)))]
    return build


def _grads(dtype):
    def build(tf):
        x, y = _parts(tf, dtype)
        z = tf.complex(x, y)
        w = z * z + tf.exp(z) / (z + 2.0) - tf.square(tf.conj(z)) + tf.log(z + 5.0)
        loss = tf.reduce_sum(tf.real(w) + 2.0 * tf.imag(w) + tf.angle(z) + tf.abs(z * 3.0))
        return tf.gradients(loss, [x, y])
    return build


def _complex_grad(dtype):
    def build(tf):
        z = tf.constant(np.array([1 + 2j, 3 - 1j], dtype))
        return tf.gradients(tf.reduce_sum(tf.abs(z * z) + tf.real(tf.exp(z)) + tf.imag(z / (z + 1))), z)
    return build


CASES = {f"values_{d.__name__}": _values(d) for d in (np.float32, np.float64)}
CASES.update({f"grads_{d.__name__}": _grads(d) for d in (np.float32, np.float64)})
CASES.update({f"complex_grad_{d.__name__}": _complex_grad(d) for d in (np.complex64, np.complex128)})


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tensorflow(case):
    compare(CASES[case], rtol=2e-6)


def test_mixed_part_types_raise():
    with ref.Graph().as_default():
        with pytest.raises(TypeError, match="must be consistent, and one of"):
            ref.complex(ref.constant(1.0), ref.constant(1.0, ref.float64))


# Raw kernels: (op, kwargs, NumPy oracle)
RAW = [
    ("Complex", dict(real=np.float32([1, 2]), imag=np.float32(3)), np.array([1 + 3j, 2 + 3j], np.complex64)),
    ("Complex", dict(real=np.float64(1), imag=np.float64(-1), Tout=ref.complex128), np.complex128(1 - 1j)),
    ("Real", dict(input=np.complex64([1 + 2j])), np.float32([1])),
    ("Imag", dict(input=np.complex128(1 + 2j), Tout=ref.float64), np.float64(2)),
    ("Angle", dict(input=np.complex64([1j, -1])), np.float32([np.pi / 2, np.pi])),
    ("ComplexAbs", dict(x=np.complex64([3 + 4j])), np.float32([5])),
    ("Conj", dict(input=np.complex128([1 + 2j])), np.complex128([1 - 2j])),
]


@pytest.mark.parametrize("op,kwargs,want", RAW, ids=[r[0] + str(i) for i, r in enumerate(RAW)])
def test_raw_kernels(op, kwargs, want):
    got = getattr(raw, op)(**kwargs)
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
