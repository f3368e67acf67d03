"""TopKV2/TopK over every floating dtype against TensorFlow: the values in descending
order and their indices (ties: the lower index first), bfloat16 included (an ml_dtypes
type NumPy reports as kind "V", which sorted as integers before)."""
import numpy as np
import pytest

import ref
from ref.ops import top_k as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

_RNG = np.random.RandomState(7)
_X = _RNG.permutation(np.linspace(0, 100, 4 * 300)).reshape(4, 300)
_TIES = np.round(_RNG.uniform(-3, 3, (3, 50)) * 2) / 2


@pytest.mark.parametrize("k", [1, 7, 299])
@pytest.mark.parametrize("data", ["spread", "ties"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64"])
def test_top_k_matches_tf(dtype, data, k):
    base = _X if data == "spread" else _TIES
    k = min(k, base.shape[-1])

    def run(t):
        with t.Graph().as_default(), t.Session() as s:
            x = t.constant(base.astype(np.float32), dtype=t.float32)
            return s.run(t.nn.top_k(t.cast(x, getattr(t, dtype)), k))
    (gv, gi), (wv, wi) = run(ref), run(tf1)
    assert gv.dtype == wv.dtype
    np.testing.assert_array_equal(gv.astype(np.float64), wv.astype(np.float64))
    np.testing.assert_array_equal(gi, wi)
