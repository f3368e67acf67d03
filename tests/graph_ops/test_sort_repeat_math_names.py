"""tf.sort / tf.argsort / tf.repeat, the trigonometric and safe math builders,
tf.io's base64 and tf.is_tensor / tf.get_static_value against TF 2.21
(tf.compat.v1, TF1 behaviour): the same GraphDef node for node, and the same
values for fed inputs."""
import numpy as np
import pytest

from ref.graph_ops import math_trig, repeat_ops, sort_ops  # noqa: F401  (the builders under test)
from _graphdef import assert_same_graph, fed_values, graph_only, tf_v1

_RNG = np.random.default_rng(7)
_F = _RNG.standard_normal((3, 4)).astype(np.float32)
_F[0, 1] = _F[2, 3]  # a tie: top_k keeps index order
_I = _RNG.integers(-9, 10, (3, 4)).astype(np.int32)
_U = _RNG.integers(0, 255, (5,)).astype(np.uint8)


def _fx(tf, shape=(3, 4), dtype=None, name="x"):
    return tf.placeholder(dtype or tf.float32, list(shape) if shape is not None else None, name=name)


def sorts(tf):
    x, i = _fx(tf), _fx(tf, dtype=tf.int32, name="i")
    u = _fx(tf, (5,), tf.uint8, "u")
    outs = [tf.sort(x), tf.sort(x, direction="DESCENDING"), tf.sort(x, axis=0), tf.argsort(x),
            tf.argsort(x, axis=0, direction="DESCENDING"), tf.sort(i), tf.argsort(i, axis=-2), tf.sort(u)]
    return outs, {x: _F, i: _I, u: _U}


def sort_unknown_rank(tf):
    x = _fx(tf, None)
    return [tf.sort(x, axis=0), tf.argsort(x, axis=1, direction="DESCENDING")], {x: _F}


def repeats(tf):
    x, i = _fx(tf), _fx(tf, dtype=tf.int32, name="i")
    r = tf.placeholder(tf.int32, [4], name="r")
    outs = [tf.repeat(x, 2), tf.repeat(x, 3, axis=1), tf.repeat(x, [1, 0, 2], axis=0), tf.repeat(i, r, axis=1),
            tf.repeat(i, [2], axis=-1), tf.repeat(tf.constant(5.0), 3)]
    return outs, {x: _F, i: _I, r: np.int32([0, 1, 2, 3])}


def repeat_unknown(tf):
    x = _fx(tf, (None, 4))
    return [tf.repeat(x, [1, 2, 0, 1], axis=1), tf.repeat(x, 2, axis=0)], {x: _F}


def trig_and_safe(tf):
    x, y = _fx(tf), _fx(tf, name="y")
    xs = np.where(np.arange(12).reshape(3, 4) % 3 == 0, 0, _F).astype(np.float32)
    ys = np.abs(_F[::-1]) + 0.1
    outs = [tf.sinh(x), tf.cosh(x), tf.atan(x), tf.asin(x / 4), tf.acos(x / 4), tf.acosh(ys + 1),
            tf.math.atanh(x / 4), tf.atan2(x, y), tf.math.xlogy(x, y), tf.math.xdivy(x, y), tf.math.xlog1py(x, y),
            tf.math.multiply_no_nan(x, y), tf.math.reciprocal_no_nan(x), tf.math.divide_no_nan(y, x),
            tf.math.log_sigmoid(x * 20), tf.math.reduce_euclidean_norm(x, 1), tf.truncatemod(x, 0.7),
            tf.trace(tf.reshape(tf.tile(x, [3, 1]), [3, 3, 4])[:, :, :3])]
    return outs, {x: xs, y: ys}


def base64(tf):
    s = tf.placeholder(tf.string, [3], name="s")
    enc = tf.io.encode_base64(s)
    return [enc, tf.io.encode_base64(s, pad=True), tf.io.decode_base64(enc)], {
        s: np.array([b"", b"hello?>", bytes(range(200, 256))], dtype=object)}


SNIPPETS = [sorts, sort_unknown_rank, repeats, repeat_unknown, trig_and_safe, base64]


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda f: f.__name__)
def test_graph_def_is_tensorflows(snippet):
    assert_same_graph(graph_only(snippet))


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda f: f.__name__)
def test_values_are_tensorflows(snippet):
    import ref
    got, want = fed_values(ref, snippet), fed_values(tf_v1(), snippet)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=4e-7, atol=0, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)


def test_bad_base64_is_invalid_argument_as_in_tf():
    import ref
    tf = tf_v1()
    for lib, err in ((ref, ref.errors.InvalidArgumentError), (tf, tf.errors.InvalidArgumentError)):
        with pytest.raises(err):
            fed_values(lib, lambda t: ([t.io.decode_base64(t.constant(["ab*d"]))], {}))


def test_sort_argument_errors_are_tensorflows():
    import ref
    for lib in (ref, tf_v1()):
        with lib.Graph().as_default():
            x = lib.placeholder(lib.float32, [3])
            with pytest.raises(ValueError, match="direction"):
                lib.sort(x, direction="UP")
            with pytest.raises(ValueError, match="constant scalar"):
                lib.sort(x, axis=lib.placeholder(lib.int32, []))


def test_is_tensor_and_get_static_value_are_tensorflows():
    import ref
    for lib in (ref, tf_v1()):
        with lib.Graph().as_default():
            objs = [lib.constant(1.0), lib.Variable(1.0), lib.SparseTensor([[0]], [1.0], [2]),
                    lib.IndexedSlices(lib.constant([1.0]), lib.constant([0])), np.ones(2), 3.0, [1.0]]
            assert [lib.is_tensor(o) for o in objs] == [True, True, True, True, False, False, False]
            assert lib.get_static_value(lib.cast(lib.constant([1, 2]), lib.float32)).tolist() == [1.0, 2.0]
            assert lib.get_static_value(lib.constant([1, 2]) * 3) is None  # Mul does not fold in Python
            assert lib.get_static_value(lib.placeholder(lib.float32)) is None


@pytest.mark.parametrize("path", ["queue.FIFOQueue", "queue.PaddingFIFOQueue", "queue.PriorityQueue",
                                  "queue.RandomShuffleQueue", "queue.QueueBase", "io.PaddingFIFOQueue", "io.decode_png",
                                  "io.encode_jpeg", "io.serialize_sparse", "version.VERSION",
                                  "version.GRAPH_DEF_VERSION", "no_gradient", "math.divide_no_nan", "linalg.trace"])
def test_namespaces_name_what_tf_names(path):
    """Each name resolves in both (and tf.io has no FIFOQueue in TF either)."""
    import ref
    tf = tf_v1()

    def resolve(lib):
        obj = lib
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    ours, theirs = resolve(ref), resolve(tf)
    if isinstance(theirs, (str, int)):
        assert ours == theirs
    else:
        assert callable(ours) and getattr(ours, "__name__", "").lower().strip("_") != ""


def test_tf_io_has_no_fifo_queue_as_in_tf():
    import ref
    assert hasattr(ref.io, "FIFOQueue") == hasattr(tf_v1().io, "FIFOQueue") == False  # noqa: E712
