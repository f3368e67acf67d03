"""``Relu`` on large float arrays takes NumPy's vector loop (maximum against a
zero array): the bits must be those of ``max(x, 0)`` against a scalar zero,
special values included (-0.0, NaN payloads, infinities, subnormals)."""
import numpy as np
import pytest

import ref.raw_ops as raw
from ref.ops import nn as _under_test  # noqa: F401  (the module these tests cover)

SPECIAL = [-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1e-45, -1e-45, 1.0, -1.0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(5,), (300,), (40, 33), (16, 16, 3)])
@pytest.mark.parametrize("transposed", [False, True])
def test_relu_bits_are_max_with_scalar_zero(dtype, shape, transposed):
    rng = np.random.RandomState(0)
    x = rng.randn(*shape).astype(dtype)
    flat = x.reshape(-1)
    flat[:len(SPECIAL)] = np.array(SPECIAL, dtype)[:flat.size]
    if dtype == np.float32 and flat.size > 20:  # NaNs with payloads
        flat[10:13] = np.array([0x7fc00001, 0xffc00002, 0x7f800001], np.uint32).view(np.float32)
    if transposed:
        x = x.T
    got = raw.Relu(features=x)
    want = np.maximum(x, np.zeros((), dtype))
    assert got.dtype == dtype and got.shape == x.shape
    assert got.tobytes() == np.ascontiguousarray(want).tobytes()
