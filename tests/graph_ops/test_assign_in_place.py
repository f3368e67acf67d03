"""Assign and AssignVariableOp write into the variable's own buffer when a
Session donates it (``out=``), as TF's Assign copies into the existing buffer:
same values as a fresh copy, and never visible through an array the caller
still holds (the Session donates only buffers nothing else refers to)."""
import numpy as np
import pytest

import ref
from ref.ops import state
from ref.graph_ops import state_ops as _under_test  # noqa: F401  (the module these tests cover)

CASES = [  # (old value, new value, copied in place?)
    (np.zeros((2, 3), np.float32), np.arange(6, dtype=np.float32).reshape(2, 3), True),
    (np.zeros(4, np.float64), np.full(4, 2.5), True),
    (np.zeros(4, np.float32), np.ones(5, np.float32), False),   # another shape: a new array
    (np.zeros(4, np.float32), np.ones(4, np.float64), False),   # another dtype: a new array
]


@pytest.mark.parametrize("old,new,in_place", CASES)
def test_assign_kernel_out(old, new, in_place):
    buf = old.copy()
    got = state.assign(buf, new, validate_shape=False, out=(buf,))
    assert (got is buf) == in_place
    assert got.dtype == new.dtype and np.array_equal(got, new)
    assert got is not new and not np.shares_memory(got, new)


@pytest.mark.parametrize("old,new,in_place", CASES)
def test_assign_variable_op_kernel_out(old, new, in_place):
    buf = old.copy()
    got = state.assign_variable_op(buf, new, out=(buf,))
    assert (got is buf) == in_place
    assert np.array_equal(got, new) and not np.shares_memory(got, new)


@pytest.mark.parametrize("use_resource", [False, True])
def test_fetched_value_is_not_overwritten(use_resource):
    with ref.Graph().as_default():
        v = ref.get_variable("v", initializer=np.zeros(3, np.float32), use_resource=use_resource)
        p = ref.placeholder(ref.float32, [3])
        op = v.assign(p)
        with ref.Session() as s:
            s.run(v.initializer)
            held = s.run(v)
            for k in range(1, 4):
                s.run(op, {p: np.full(3, k, np.float32)})
                assert np.array_equal(held, np.zeros(3, np.float32))
                assert np.array_equal(s.run(v), np.full(3, k, np.float32))


@pytest.mark.parametrize("use_resource", [False, True])
def test_restore_into_initialized_variables(tmp_path, use_resource):
    with ref.Graph().as_default():
        v = ref.get_variable("v", initializer=np.arange(5, dtype=np.float32), use_resource=use_resource)
        saver = ref.train.Saver([v])
        with ref.Session() as s:
            s.run(v.initializer)
            path = saver.save(s, str(tmp_path / "m"))
            s.run(v.assign(np.zeros(5, np.float32)))
            held = s.run(v)
            saver.restore(s, path)
            assert np.array_equal(s.run(v), np.arange(5, dtype=np.float32))
            assert np.array_equal(held, np.zeros(5, np.float32))
