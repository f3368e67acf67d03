"""A pooling window size below 1 (TF's ``testIncoorectKSize``): graph construction
takes it (TF's shape functions never look at the sign), the kernel rejects it with
InvalidArgumentError in TF's words (``maxpooling_op.cc``/``avgpooling_op.cc``).
Static shapes, error kinds and messages against TensorFlow, one row per case."""
import sys

import pytest

from ref.ops import pooling as _under_test  # noqa: F401
import ref

# (id, builder name in nn_ops, ksize, padding)
ROWS = [
    ("max_pool_v2-neg-same", "max_pool_v2", [1, -1, -1, 1], "SAME"),
    ("max_pool_v2-zero-same", "max_pool_v2", [1, 0, 2, 1], "SAME"),
    ("max_pool_v2-neg-valid", "max_pool_v2", [1, -2, 2, 1], "VALID"),
    ("max_pool-neg-valid", "max_pool", [1, 2, -1, 1], "VALID"),
    ("avg_pool-neg-same", "avg_pool", [1, -1, -1, 1], "SAME"),
    ("avg_pool-zero-valid", "avg_pool", [1, 0, 2, 1], "VALID"),
]


def _outcome(lib, nn_ops, fn, ksize, padding):
    with lib.Graph().as_default():
        y = getattr(nn_ops, fn)(lib.ones([3, 4, 4, 5]), ksize, [1, 2, 2, 1], padding)
        shape = y.shape.as_list()
        with lib.Session() as s:
            try:
                s.run(y)
            except lib.errors.OpError as e:
                return shape, type(e).__name__, e.message
    return shape, None, None


@pytest.mark.parametrize("rid,fn,ksize,padding", ROWS, ids=[r[0] for r in ROWS])
def test_matches_tf(rid, fn, ksize, padding):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops import nn_ops as tf_nn_ops
    from ref.graph_ops import conv_ops
    want = _outcome(tf, tf_nn_ops, fn, ksize, padding)
    got = _outcome(ref, conv_ops, fn, ksize, padding)
    assert got[:2] == want[:2]
    assert got[2].split("\n")[0].split(" [[")[0] in want[2], (got, want)  # TF wraps it in its node report


# an attr value beyond int64 (TF's AttrValue conversion): ValueError at graph construction
BIG_ROWS = [
    ("max_pool_v2-ksize", lambda o, lib: o.max_pool_v2(lib.ones([3, 4, 4, 5]), ksize=sys.maxsize + 100, strides=2,
                                                        padding="SAME")),
    ("max_pool-strides", lambda o, lib: o.max_pool(lib.ones([3, 4, 4, 5]), 2, [1, 2 ** 64, 2, 1], "SAME")),
    ("avg_pool-negative", lambda o, lib: o.avg_pool(lib.ones([3, 4, 4, 5]), [1, -(2 ** 63) - 1, 2, 1], 2, "SAME")),
]


@pytest.mark.parametrize("rid,f", BIG_ROWS, ids=[r[0] for r in BIG_ROWS])
def test_attr_beyond_int64_raises_as_tf(rid, f):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops import nn_ops as tf_nn_ops
    from ref.graph_ops import conv_ops
    for lib, mod in ((tf, tf_nn_ops), (ref, conv_ops)):
        with lib.Graph().as_default(), pytest.raises(ValueError):
            f(mod, lib)
