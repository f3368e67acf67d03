"""A TensorShape given where a shape tensor is expected converts as TF converts
one (a 1-D int32 ``shape_as_tensor``, int64 when a dim needs it); a partially
known or unknown-rank TensorShape raises TF's ValueError -- an unknown dim is
never read as -1. Rows against TF 2.21 (compat.v1, graph mode): the converted
value and dtype, or the error's kind and message."""
import numpy as np
import pytest

from ref.framework import op_def_library as _under_test  # noqa: F401
import ref

BUILDERS = {
    "convert_to_tensor": lambda tf, x, s: tf.convert_to_tensor(s),
    "convert_int64": lambda tf, x, s: tf.convert_to_tensor(s, dtype=tf.int64),
    "convert_float": lambda tf, x, s: tf.convert_to_tensor(s, dtype=tf.float32),
    "reshape": lambda tf, x, s: tf.reshape(x, s),
    "broadcast_to": lambda tf, x, s: tf.broadcast_to(x, s),
    "zeros": lambda tf, x, s: tf.zeros(s),
    "ones": lambda tf, x, s: tf.ones(s, tf.int32),
    "fill": lambda tf, x, s: tf.fill(s, 1.0),
    "random_normal": lambda tf, x, s: tf.random_normal(s, seed=1),
    "random_uniform": lambda tf, x, s: tf.random_uniform(s, seed=1),
    "scatter_nd": lambda tf, x, s: tf.scatter_nd([[0]], [[1.0, 2.0, 3.0]], s),
}

SHAPES = {
    "known": [2, 3],
    "unknown_dim": [None, 3],
    "unknown_last": [2, None],
    "unknown_rank": None,
    "scalar": [],
    "big": [2 ** 31, 1],
}

ROWS = [(b, s) for b in BUILDERS for s in SHAPES
        if not (s == "big" and b not in ("convert_to_tensor", "convert_int64"))
        and not (s == "scalar" and b == "scatter_nd")]  # its shape-function message is worded otherwise


def _build(lib, builder, shape):
    with lib.Graph().as_default():
        x = lib.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        try:
            out = BUILDERS[builder](lib, x, lib.TensorShape(shape))
        except (TypeError, ValueError) as e:
            return type(e).__name__, str(e).split(" for '")[0]  # shape-function errors: up to the node
        head = (out.dtype.name, out.shape.as_list() if out.shape.ndims is not None else None)
        if builder.startswith("random") or shape == SHAPES["big"]:
            return head
        with lib.Session() as sess:
            return head + (sess.run(out).tolist(),)


@pytest.mark.parametrize("builder,shape", ROWS, ids=[f"{b}-{s}" for b, s in ROWS])
def test_tensor_shape_argument_as_tf(builder, shape):
    tf = pytest.importorskip("tensorflow").compat.v1
    tf.disable_v2_tensorshape()  # TF 1.x shapes, as ref's default (messages print "?")
    try:
        want = _build(tf, builder, SHAPES[shape])
    finally:
        tf.enable_v2_tensorshape()
    assert _build(ref, builder, SHAPES[shape]) == want
