"""TF's deprecated reference-handle stack ops (``Stack``, ``StackPush``,
``StackPop``, ``StackClose``): a table of push/pop programs run by ref and by
TF (``gen_data_flow_ops``), the popped values and the errors equal."""
import numpy as np
import pytest

from ref.ops import stack as _under_test  # noqa: F401


def _push_pop(lib, gen):
    h = gen._stack(lib.float32, stack_name="foo")
    c = gen.stack_push(h, [[4.0, 5.0]])
    with lib.control_dependencies([c]):
        return gen.stack_pop(h, lib.float32)


def _lifo(lib, gen):
    h = gen._stack(lib.int32, stack_name="s")
    c1 = gen.stack_push(h, 1)
    with lib.control_dependencies([c1]):
        c2 = gen.stack_push(h, 2)
    with lib.control_dependencies([c2]):
        p1 = gen.stack_pop(h, lib.int32)
    with lib.control_dependencies([p1]):
        p2 = gen.stack_pop(h, lib.int32)
    return lib.stack([p1, p2])


def _swap(lib, gen):
    h = gen._stack(lib.float32, stack_name="foo")
    c = gen.stack_push(h, lib.constant(np.arange(50, dtype=np.float32)), swap_memory=True)
    with lib.control_dependencies([c]):
        return gen.stack_pop(h, lib.float32)


def _pop_empty(lib, gen):
    h = gen._stack(lib.float32, stack_name="foo")
    return gen.stack_pop(h, lib.float32)


ROWS = [(_push_pop, None), (_lifo, None), (_swap, None), (_pop_empty, "InvalidArgumentError")]


def _run(lib, gen, program):
    with lib.Graph().as_default():
        fetch = program(lib, gen)
        with lib.Session() as sess:
            try:
                return sess.run(fetch), None
            except lib.errors.OpError as e:
                return None, type(e).__name__


@pytest.mark.parametrize("program,error", ROWS, ids=[p.__name__ for p, _ in ROWS])
def test_stack_v1_as_tf(program, error):
    import ref
    from ref.framework.op_def_library import apply_op
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops import gen_data_flow_ops

    class RefGen:
        _stack = staticmethod(lambda elem_type, stack_name="": apply_op("Stack", elem_type=elem_type,
                                                                         stack_name=stack_name))
        stack_push = staticmethod(lambda handle, elem, swap_memory=False: apply_op(
            "StackPush", handle=handle, elem=elem, swap_memory=swap_memory))
        stack_pop = staticmethod(lambda handle, elem_type: apply_op("StackPop", handle=handle, elem_type=elem_type))
        stack_close = staticmethod(lambda handle: apply_op("StackClose", handle=handle))

    got, got_err = _run(ref, RefGen, program)
    want, want_err = _run(tf, gen_data_flow_ops, program)
    assert got_err == want_err == error
    if error is None:
        np.testing.assert_array_equal(got, want)
        assert np.asarray(got).dtype == np.asarray(want).dtype
