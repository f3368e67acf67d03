"""``create_partitioned_variables`` with integer and float64 initializers
(issue 26; TF's partitioned_variables_test ``testVecConstantInit``,
``testConstantInit``): a Tensor initializer gives the parts its dtype; a NumPy
one is converted to ``dtype``. TF accepts both; ref raised "Initializer type
int32 and explicit dtype float32 don't match". Checked against TF where it is
installed.
"""
from __future__ import annotations

import numpy as np
import pytest

import ref

ARANGE = np.arange(8).reshape(2, 4)

# (case, initializer(tf), shape, slicing, dtype kwargs, the parts' dtype, the parts as slices of the value)
ROWS = [
    ("vec_const_int32", lambda tf: tf.constant([1, 2, 3, 4]), [4], [4], {}, "int32",
     [np.array([v]) for v in (1, 2, 3, 4)]),
    ("const_2d_int32", lambda tf: tf.constant((ARANGE + 1).astype(np.int32)), [2, 4], [1, 2], {}, "int32",
     [ARANGE[:, :2] + 1, ARANGE[:, 2:] + 1]),
    ("const_2d_float64", lambda tf: tf.constant(ARANGE.astype(np.float64)), [2, 4], [1, 2], {}, "float64",
     [ARANGE[:, :2], ARANGE[:, 2:]]),
    ("numpy_int64_to_float32", lambda tf: ARANGE, [2, 4], [1, 2], {}, "float32", [ARANGE[:, :2], ARANGE[:, 2:]]),
    ("numpy_float64_to_float32", lambda tf: ARANGE.astype(np.float64), [2, 4], [1, 2], {}, "float32",
     [ARANGE[:, :2], ARANGE[:, 2:]]),
    ("numpy_float64_as_float64", lambda tf: ARANGE.astype(np.float64), [2, 4], [1, 2], {"dtype": "float64"},
     "float64", [ARANGE[:, :2], ARANGE[:, 2:]]),
    ("rows_of_int32", lambda tf: tf.constant(ARANGE.astype(np.int32)), [2, 4], [2, 1], {}, "int32", [ARANGE[:1], ARANGE[1:]]),
]


def _build(tf, create, init, shape, slicing, kwargs):
    with tf.Graph().as_default():
        vs = create(shape, slicing, init(tf), **{k: tf.as_dtype(v) for k, v in kwargs.items()})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [v.dtype.base_dtype.name for v in vs], sess.run(vs)


def _check(got, dtype, parts):
    dtypes_, values = got
    assert dtypes_ == [dtype] * len(parts)
    for value, part in zip(values, parts):
        assert value.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(value, part.astype(dtype))


@pytest.mark.parametrize("case,init,shape,slicing,kwargs,dtype,parts", ROWS, ids=[r[0] for r in ROWS])
def test_partitioned_initializer_dtypes(case, init, shape, slicing, kwargs, dtype, parts):
    from ref.graph_ops.variable_scope import create_partitioned_variables
    _check(_build(ref, create_partitioned_variables, init, shape, slicing, kwargs), dtype, parts)


@pytest.mark.parametrize("case,init,shape,slicing,kwargs,dtype,parts", ROWS, ids=[r[0] for r in ROWS])
def test_rows_match_tf(case, init, shape, slicing, kwargs, dtype, parts):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops.partitioned_variables import create_partitioned_variables
    _check(_build(tf, create_partitioned_variables, init, shape, slicing, kwargs), dtype, parts)


def test_get_variable_still_checks_the_initializer_dtype():
    """``get_variable`` (unlike the partitioned path) refuses a mismatch, as TF."""
    with ref.Graph().as_default(), pytest.raises(ValueError, match="don't match"):
        ref.get_variable("v", dtype=ref.float32, initializer=ref.constant([1, 2]))
