"""An attr passed as None takes its default, as TF's generated op wrappers do
(``if batch_dims is None: batch_dims = 0``): a table of ops built with None
attrs, their attrs against TF's."""
import pytest

from ref.framework.op_def_library import apply_op

ROWS = [
    ("GatherV2", dict(params=[[1, 2], [3, 4]], indices=[[1], [0]], axis=1, batch_dims=None), "batch_dims"),
    ("Cumsum", dict(x=[1.0, 2.0], axis=0, exclusive=None, reverse=None), "exclusive"),
    ("Cumsum", dict(x=[1.0, 2.0], axis=0, exclusive=None, reverse=None), "reverse"),
    ("OneHot", dict(indices=[0, 2], depth=3, on_value=1.0, off_value=0.0, axis=None), "axis"),
]


@pytest.mark.parametrize("op_type,kwargs,attr", ROWS)
def test_none_attr_is_default_as_tf(op_type, kwargs, attr):
    import ref
    tf = pytest.importorskip("tensorflow")
    with ref.Graph().as_default():
        got = apply_op(op_type, **kwargs).op.get_attr(attr)
    with tf.Graph().as_default():
        want = getattr(tf.raw_ops, op_type)(**kwargs).op.get_attr(attr)
    assert got == want
