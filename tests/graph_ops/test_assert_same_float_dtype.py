"""``assert_same_float_dtype`` as TF's: None items ignored, SparseTensors and
Tensors alike, the expected dtype checked, TF's ValueError wording."""
import pytest

import ref
from ref.graph_ops import check_ops as _under_test  # noqa: F401


def _f(t):
    return t.constant(3.0)


def _i(t):
    return t.constant(3)


def _sp(t):
    return t.SparseTensor(t.constant([[1], [2]], t.int64), t.constant([1.5, -2.0]), t.constant([5], t.int64))


ROWS = [
    ("none_none", lambda t: (None, None)),
    ("empty", lambda t: ([], None)),
    ("empty_float32", lambda t: ([], t.float32)),
    ("nones", lambda t: ([None, None], None)),
    ("nones_float32", lambda t: ([None, None], t.float32)),
    ("const_float32", lambda t: ([_f(t)], t.float32)),
    ("const_int32", lambda t: ([_f(t)], t.int32)),
    ("sparse_float32", lambda t: ([_sp(t)], t.float32)),
    ("sparse_int32", lambda t: ([_sp(t)], t.int32)),
    ("mixed_float64", lambda t: ([_f(t), None, _sp(t)], t.float64)),
    ("const_and_sparse", lambda t: ([_f(t), _sp(t)], None)),
    ("sparse_and_int", lambda t: ([_sp(t), _i(t)], None)),
    ("ints", lambda t: ([_i(t), _i(t)], None)),
    ("float64", lambda t: ([t.constant(1.0, t.float64)], None)),
]


def _outcome(lib, build):
    with lib.Graph().as_default():
        tensors, dtype = build(lib)
        try:
            return lib.debugging.assert_same_float_dtype(tensors, dtype).name
        except ValueError as e:
            return "ValueError", str(e)


@pytest.mark.parametrize("case,build", ROWS, ids=[r[0] for r in ROWS])
def test_assert_same_float_dtype_as_tf(case, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _outcome(ref, build) == _outcome(tf, build)
