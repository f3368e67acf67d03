"""``RefSelect`` (ref.ops.control): the reference ``inputs[index]``, forwarded so
that an assignment through it updates that variable; its static shape is the
inputs' when all are fully defined and equal, else unknown. TensorFlow's
``tf.raw_ops.RefSelect`` on reference variables is the oracle."""
import numpy as np
import pytest

import ref
from ref.ops import control as _under_test  # noqa: F401
from ref.framework.op_def_library import apply_op
from tests.graph_ops._graphdef import tf1_behaviour

# (initial values of the variables, or None: a variable of unknown shape; index fed)
ROWS = [
    ([[[1, 2]], [[2], [1]]], 0),             # known, different shapes
    ([[[1, 2]], [[3, 4]]], 1),               # known, the same shape
    ([[1.0, 2.0, 3.0], None, [4.0]], 0),     # one of unknown shape
    ([[5], [6], [7]], 2),
]


def _run(lib, raw_select, values, index):
    with lib.Graph().as_default():
        i = lib.placeholder(lib.int32, name="index")
        vs, feeds = [], {}
        for k, v in enumerate(values):
            if v is None:
                p = lib.placeholder(lib.float32, name=f"p{k}")
                feeds[p] = np.array([9.0, 9.0], np.float32)
                vs.append(lib.Variable(p, validate_shape=False, use_resource=False))
            else:
                vs.append(lib.Variable(v, use_resource=False))
        s = raw_select(i, [v._ref() for v in vs])
        shape = s.shape.as_list() if s.shape.ndims is not None else None
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer(), feeds)
            picked = sess.run(s, {i: index})
            sess.run(lib.assign(s, picked * 2, validate_shape=False), {i: index})
            after = sess.run([v.value() for v in vs])
            with pytest.raises(lib.errors.InvalidArgumentError, match=r"Index must be in the range \[0, "):
                sess.run(s, {i: len(values)})
        return shape, s.dtype.name, picked, after


@pytest.mark.parametrize("values,index", ROWS)
def test_ref_select_as_tf(values, index):
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    with tf1_behaviour():
        want = _run(v1, lambda i, xs: tf.raw_ops.RefSelect(index=i, inputs=xs), values, index)
    got = _run(ref, lambda i, xs: apply_op("RefSelect", index=i, inputs=xs), values, index)
    assert got[:2] == want[:2]
    np.testing.assert_array_equal(got[2], want[2])
    for g, w in zip(got[3], want[3]):
        np.testing.assert_array_equal(g, w)
