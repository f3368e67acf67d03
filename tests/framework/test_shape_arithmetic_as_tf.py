"""Static shapes built from arithmetic on ``tf.shape(x)[i]`` (ref.framework.tensor_util,
ref.ops.array's Reshape shape function) as TF's C++ shape refiner infers them.

TF's ``EvaluateConstantTensor`` reads ``shape(x)[i]`` of a *partly* known ``x``
from the known dimension i (TryInferFromShapes) and then evaluates what is
built on it -- ``shape(x)[1] * 2``, ``shape(x)[1] * shape(x)[2]`` -- so a
``Reshape``, ``ScatterNd``, ``Fill`` or ``Tile`` fed ``tf.stack`` of such
scalars gets those dimensions, and a later ``Reshape`` gradient can be a
``Const`` shape (SegNet's argmax ``unpool`` helper is the public program that
showed it). Each row builds a snippet under ref and under TF 2.21's
``tf.compat.v1`` and compares the static shapes of its outputs; the
gradient row compares the GraphDefs node for node."""
import os
import sys

import numpy as np
import pytest

import ref.framework  # noqa: F401  (the package these tests cover)
import ref
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "graph_ops"))
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1  # noqa: E402


def _x(t):
    return t.placeholder(t.float32, [None, 4, 6, 3])


def _reshape_mul(t):
    x = _x(t)
    s = t.shape(x)
    return [t.reshape(t.zeros([5, 144]), t.stack([s[0], s[1] * 2, s[2] * s[3]])),
            t.reshape(t.placeholder(t.float32, [None]), [s[0], s[1] * 2, s[3]])]


def _reshape_sum_and_unknown(t):
    x = t.placeholder(t.float32, [None, 4, None, 3])
    s = t.shape(x)
    return [t.reshape(x, t.stack([s[0], s[1] + s[3], s[2]])),  # s[2] unknown: stays unknown
            t.reshape(x, t.stack([s[1] - 1, -1]))]


def _scatter_nd_cast(t):
    x = _x(t)
    s = t.shape(x)
    shape = t.cast([s[0], s[1] * s[2] * s[3]], t.int64)
    return [t.scatter_nd(t.zeros([7, 2], t.int64), t.zeros([7]), shape)]


def _fill_tile_slice(t):
    x = _x(t)
    s = t.shape(x)
    return [t.zeros(t.stack([s[1] * s[2], s[3] // 2])), t.tile(x, t.stack([1, s[3] - 2, 1, s[1] // 4])),
            t.slice(x, [0, 0, 0, 0], t.stack([-1, s[1] - 1, s[2] // 2, -1]))]


ROWS = {"reshape_mul": _reshape_mul, "reshape_sum_and_unknown": _reshape_sum_and_unknown,
        "scatter_nd_cast": _scatter_nd_cast, "fill_tile_slice": _fill_tile_slice}


def _shapes(lib, snippet):
    ctx = tf1_behaviour() if lib is not ref else None
    if ctx is not None:
        ctx.__enter__()
    try:
        with lib.Graph().as_default():
            return [o.shape.as_list() if o.shape.ndims is not None else None for o in snippet(lib)]
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)


@pytest.mark.parametrize("name", list(ROWS))
def test_static_shapes_as_tf(name):
    assert _shapes(ref, ROWS[name]) == _shapes(tf_v1(), ROWS[name])


def _unpool_gradient(t):
    x = t.placeholder(t.float32, [None, 4, 4, 2])
    pool, ind = t.nn.max_pool_with_argmax(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    s = t.shape(pool)
    out_shape = [s[0], s[1] * 2, s[2] * 2, s[3]]
    n = t.reduce_prod(s)
    b = t.ones_like(ind) * t.reshape(t.range(t.cast(s[0], t.int64), dtype=ind.dtype), [s[0], 1, 1, 1])
    idx = t.concat([t.reshape(b, [n, 1]), t.reshape(ind, [n, 1])], 1)
    flat = t.scatter_nd(idx, t.reshape(pool, [n]), t.cast([out_shape[0], out_shape[1] * out_shape[2] * out_shape[3]],
                                                          t.int64))
    up = t.reshape(t.reshape(flat, out_shape), [-1, 4, 4, 2])
    return t.gradients(t.reduce_sum(t.square(up)), [x])


def test_unpool_gradient_graph_def():
    # the Reshape gradients take Const shapes once [?, 4, 4, 2] is known, as TF's
    assert_same_graph(_unpool_gradient)


def test_values_unchanged():
    # the sharper static shapes change no value: the unpooled gradient is 2 * max at the argmax
    v = np.random.RandomState(0).rand(2, 4, 4, 2).astype(np.float32)
    with ref.Graph().as_default() as g:
        (grad,) = _unpool_gradient(ref)
        with ref.Session() as sess:
            got = sess.run(grad, {g.get_tensor_by_name("Placeholder:0"): v})
    win = v.reshape(2, 2, 2, 2, 2, 2).transpose(0, 1, 3, 5, 2, 4).reshape(2, 2, 2, 2, 4)
    want = np.zeros_like(v)
    for b, i, j, c in np.ndindex(2, 2, 2, 2):
        k = int(np.argmax(win[b, i, j, c]))
        want[b, 2 * i + k // 2, 2 * j + k % 2, c] = 2 * win[b, i, j, c, k]
    np.testing.assert_array_equal(got, want)
