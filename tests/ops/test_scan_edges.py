"""Cumsum/Cumprod at the edges, against ``tf.raw_ops``: empty inputs (every
``exclusive``/``reverse`` combination, both axis spellings) and TF's
InvalidArgumentError messages for a non-scalar or out-of-range axis."""
import numpy as np
import pytest

from ref.ops import sequence as _under_test  # noqa: F401
from ref.ops import registry
from ref.types import errors

EMPTY = [(op, dtype, axis, excl, rev) for op in ("Cumsum", "Cumprod") for dtype in ("float32", "int64")
         for axis in (0, -1) for excl in (False, True) for rev in (False, True)]


@pytest.mark.parametrize("op,dtype,axis,exclusive,reverse", EMPTY)
def test_empty_as_tf(op, dtype, axis, exclusive, reverse):
    tf = pytest.importorskip("tensorflow")
    x = np.zeros([0], dtype)
    got = registry.get(op).kernel(x=x, axis=np.int32(axis), exclusive=exclusive, reverse=reverse)
    want = getattr(tf.raw_ops, op)(x=x, axis=axis, exclusive=exclusive, reverse=reverse).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape


BAD_AXIS = [("Cumsum", [0]), ("Cumprod", [[1]]), ("Cumsum", 2), ("Cumprod", -3)]


@pytest.mark.parametrize("op,axis", BAD_AXIS)
def test_bad_axis_message_as_tf(op, axis):
    tf = pytest.importorskip("tensorflow")
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    with pytest.raises(tf.errors.InvalidArgumentError) as want:
        getattr(tf.raw_ops, op)(x=x, axis=axis)
    with pytest.raises(errors.InvalidArgumentError) as got:
        registry.get(op).kernel(x=x, axis=np.asarray(axis, np.int32))
    assert str(got.value.message) in want.value.message
