"""``EnsureShape``'s run-time error names the input tensor as TF's kernel does
(its producer's name for output 0, ``name:k`` otherwise); compared with TF.
A fed placeholder is left out: TF names it after its feed rewrite (``_arg_ph_0_0``)."""
import numpy as np
import pytest

import ref
from ref.ops import array as _under_test  # noqa: F401

ROWS = [  # (name, build(lib) -> (fetch, placeholder), fed value)
    ("op_output_0", lambda t: (lambda p: (t.ensure_shape(t.divide(p, 3, name="MyDivide"), (3, 3, 3)), p))(
        t.placeholder(t.int32)), [[1], [2]]),
    ("op_output_1", lambda t: (lambda p: (t.ensure_shape(t.split(p, 2, axis=1)[1], (3, 1)), p))(
        t.placeholder(t.float32, [None, 2])), np.ones([2, 2], np.float32)),
    ("unknown_dims", lambda t: (lambda p: (t.ensure_shape(p / 3, (None, None, 3)), p))(
        t.placeholder(t.int32)), [[1], [2]]),
]


def _message(lib, build, value):
    with lib.Graph().as_default():
        fetch, p = build(lib)
        with lib.Session() as sess:
            try:
                sess.run(fetch, {p: value})
            except lib.errors.InvalidArgumentError as e:
                return e.message
    return None


@pytest.mark.parametrize("case,build,value", ROWS, ids=[r[0] for r in ROWS])
def test_ensure_shape_error_names_input_as_tf(case, build, value):
    tf = pytest.importorskip("tensorflow").compat.v1
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "graph_ops"))
    from _graphdef import tf1_behaviour
    with tf1_behaviour():
        want = _message(tf, build, value)
    got = _message(ref, build, value)
    assert got is not None and want is not None
    assert got.splitlines()[0] in want
