"""TF's module-level ``dtypes._np_bfloat16`` (tests build bfloat16 NumPy scalars with it,
e.g. moving_averages_test): the same scalar type as TF's and as ``bfloat16.as_numpy_dtype``."""
import numpy as np
import pytest

from ref.types import dtypes as _under_test

ROWS = [("value", 1.0 / 3.0), ("negative", -2.5), ("large", 3e38)]


@pytest.mark.parametrize("rid,value", ROWS, ids=[r[0] for r in ROWS])
def test_np_bfloat16_matches_tf(rid, value):
    tf_dtypes = pytest.importorskip("tensorflow.python.framework.dtypes")
    assert _under_test._np_bfloat16 is tf_dtypes._np_bfloat16
    assert _under_test._np_bfloat16 is _under_test.bfloat16.as_numpy_dtype
    got, want = _under_test._np_bfloat16(value), tf_dtypes._np_bfloat16(value)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes()
