"""stateless_random_crop (ref/graph_ops/image_ops.py) against TF's
``random_crop_ops.stateless_random_crop``: the same crop for the same seed
(offsets from stateless_random_uniform), the size check, and the GraphDef."""
import numpy as np
import pytest

import ref
from ref.graph_ops import image_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph

_IMAGE = np.arange(5 * 7 * 3, dtype=np.float32).reshape(5, 7, 3)

# (size, seed)
ROWS = [((2, 3, 3), (1, 2)), ((5, 7, 3), (3, 4)), ((1, 1, 1), (0, 0)), ((4, 2, 2), (7, -9)), ((3, 6, 1), (123, 456))]


def _crop_fn(lib):
    if lib is ref:
        return _under_test.stateless_random_crop
    from tensorflow.python.ops import random_crop_ops
    return random_crop_ops.stateless_random_crop


@pytest.mark.parametrize("size,seed", ROWS)
def test_same_crop_as_tensorflow(size, seed):
    tf = pytest.importorskip("tensorflow").compat.v1
    got = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            out = _crop_fn(lib)(lib.constant(_IMAGE), size, seed=seed)
            with lib.Session() as s:
                got.append((s.run(out), out.shape.as_list()))
    np.testing.assert_array_equal(got[1][0], got[0][0])
    assert got[1][1] == got[0][1]


def test_size_larger_than_value_fails():
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf, ref):
        with lib.Graph().as_default():
            out = _crop_fn(lib)(lib.constant(_IMAGE), [6, 1, 1], seed=(1, 2))
            with lib.Session() as s, pytest.raises(lib.errors.InvalidArgumentError, match="Need value.shape >= size"):
                s.run(out)


def _graph(tf):
    _crop_fn(tf)(tf.placeholder(tf.float32, [5, 7, 3], name="image"), [2, 3, 3], seed=(1, 2))
    _crop_fn(tf)(tf.placeholder(tf.int32, [4, 4], name="m"), [2, 2], seed=tf.constant([5, 6]), name="crop")


def test_graph_is_tensorflows():
    pytest.importorskip("tensorflow")
    assert_same_graph(_graph)
