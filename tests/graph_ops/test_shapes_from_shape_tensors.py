"""Static shapes TF's shape refiner reads from partially known shape tensors:
``Tile`` multiples and ``Reshape`` shapes packed from ``shape(x)[i]`` (a known
dimension of a partially known ``x``), and from a ``ShapeN`` output (only when
the shaped tensor is computed from constants: TF then evaluates it)."""
import numpy as np
import pytest

from ref.graph_ops import array_ops as _under_test  # noqa: F401
import ref
from _graphdef import tf1_behaviour, tf_v1

K = np.ones([3, 3, 1, 1], np.float32)

SNIPPETS = {
    "tile_by_known_channel": lambda t: t.tile(K, [1, 1, t.shape(t.placeholder(t.float32, [1, None, None, 3]))[-1], 1]),
    "tile_by_unknown_dim": lambda t: t.tile(K, [1, 1, t.shape(t.placeholder(t.float32, [None, 4]))[0], 1]),
    "tile_partial_input": lambda t: t.tile(t.placeholder(t.float32, [None, 2]),
                                           [2, t.shape(t.placeholder(t.float32, [5, 3]))[1]]),
    "tile_shape_n_of_constant": lambda t: t.tile(K, [1, 1, t.shape_n([t.constant(np.ones([4, 5], np.float32)),
                                                                      t.constant(1.0)])[0][1], 1]),
    "tile_shape_n_of_placeholder": lambda t: t.tile(K, [1, 1, t.shape_n([t.placeholder(t.float32, [4, 5])])[0][1], 1]),
    "reshape_by_known_dim": lambda t: t.reshape(t.placeholder(t.float32, [None, 6]),
                                                [t.shape(t.placeholder(t.float32, [2, None]))[0], -1]),
    "reshape_by_negative_index": lambda t: t.reshape(t.placeholder(t.float32, [None]),
                                                     [t.shape(t.placeholder(t.float32, [None, 7]))[-1], -1]),
}


def _shape(t, name):
    with t.Graph().as_default():
        out = SNIPPETS[name](t)
        return out.shape.as_list() if out.shape.ndims is not None else None


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_static_shape_is_tfs(name):
    tf = tf_v1()
    with tf1_behaviour():
        want = _shape(tf, name)
    assert _shape(ref, name) == want
