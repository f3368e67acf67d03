"""tf.test.compute_gradient on complex inputs/outputs: TF's layout (a complex
element is two reals) and TF's numbers."""
import numpy as np
import pytest

import ref.grad  # noqa: F401  (the package these tests cover)
import ref

CASES = [
    ("square", lambda tf, x: x * x, [], np.complex64(1.0 + 2.0j)),
    ("conj_mul", lambda tf, x: x * tf.conj(x), [2], np.complex64([1.0 + 1.0j, -0.5 + 2.0j])),
    ("real_out", lambda tf, x: tf.real(x) * tf.imag(x), [2], np.complex64([1.0 + 1.0j, 3.0 - 2.0j])),
    ("complex_out", lambda tf, x: tf.complex(x, 2.0 * x), [2], np.float32([0.5, -1.5])),
    ("real", lambda tf, x: x * x, [3], np.float32([1.0, 2.0, 3.0])),
]


@pytest.mark.parametrize("case,build,shape,value", CASES, ids=[c[0] for c in CASES])
def test_compute_gradient_complex_matches_tf(case, build, shape, value):
    tf = pytest.importorskip("tensorflow").compat.v1
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default(), lib.Session():
            x = lib.constant(value)
            y = build(lib, x)
            out.append(lib.test.compute_gradient(x, shape, y, y.shape.as_list(), x_init_value=value))
    (tt, tn), (rt, rn) = out
    assert rt.shape == tt.shape and rn.shape == tn.shape
    np.testing.assert_allclose(rt, tt, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rn, tn, rtol=1e-2, atol=1e-2)
