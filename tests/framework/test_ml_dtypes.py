"""bfloat16, the float8 types and int4/uint4/int2/uint2 as ml_dtypes NumPy types,
with TF's enum numbers, classification and limits; bfloat16 through scatter ops."""
import numpy as np
import pytest

import ref.framework  # noqa: F401  (the package these tests cover)
import ref
from ref.types import dtypes

NAMES = ["bfloat16", "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz",
         "int4", "uint4", "int2", "uint2"]


@pytest.mark.parametrize("name", NAMES)
def test_dtype_matches_tf(name):
    pytest.importorskip("tensorflow")
    from tensorflow.python.framework import dtypes as tfd
    want, got = getattr(tfd, name), getattr(dtypes, name)
    assert got.as_datatype_enum == want.as_datatype_enum
    assert got.as_numpy_dtype is want.as_numpy_dtype
    assert (got.is_floating, got.is_integer, got.is_unsigned) == (want.is_floating, want.is_integer, want.is_unsigned)
    assert (got.min, got.max) == (want.min, want.max)
    assert dtypes.as_dtype(np.dtype(want.as_numpy_dtype)) == got
    assert dtypes.as_dtype(want.as_datatype_enum) == got


@pytest.mark.parametrize("op", ["scatter_add", "scatter_sub", "scatter_update", "scatter_max", "scatter_min"])
def test_bfloat16_scatter_matches_tf(op):
    tf = pytest.importorskip("tensorflow").compat.v1
    bf = dtypes.bfloat16.as_numpy_dtype
    init = np.array([1.0, -2.0, 3.5, 0.25], bf)
    upd = np.array([1.5, 2.5], bf)
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            v = lib.Variable(init)
            r = getattr(lib, op)(v, [0, 2], upd)
            e = lib.nn.embedding_lookup(v, [3, 0])
            with lib.Session() as s:
                s.run(v.initializer)
                a = s.run(r)
                out.append((a.dtype, a.tolist(), s.run(e).tolist()))
    assert out[0] == out[1]
