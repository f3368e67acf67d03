"""``Dataset.take_while`` / ``unique`` / ``enumerate`` and their
``tf.data.experimental`` spellings (``take_while``, ``unique``,
``enumerate_dataset``, ``unbatch``): elements and GraphDefs against TF 2.21's
``tf.compat.v1`` on the same pipelines; TF's TypeError for an unsupported
``unique`` dtype and ValueError for a non-boolean predicate."""
import os
import sys

import numpy as np
import pytest

import ref
from ref.data import experimental as _under_test  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "graph_ops"))
from _graphdef import assert_same_graph  # noqa: E402


def _elements(tf, build):
    with tf.Graph().as_default():
        it = tf.data.make_one_shot_iterator(build(tf))
        nxt = it.get_next()
        out = []
        with tf.Session() as sess:
            while True:
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return out


PIPELINES = [
    ("take_while", lambda tf: tf.data.Dataset.range(10).take_while(lambda x: x < 4)),
    ("take_while-captured", lambda tf: tf.data.Dataset.from_tensor_slices([3, 1, 4, 1, 5]).apply(
        tf.data.experimental.take_while(lambda x: tf.not_equal(x, tf.constant(5))))),
    ("unique-ints", lambda tf: tf.data.Dataset.from_tensor_slices([1, 37, 2, 37, 2, 1]).unique()),
    ("unique-strings", lambda tf: tf.data.Dataset.from_tensor_slices(["a", "b", "a", "c", "b"]).apply(
        tf.data.experimental.unique())),
    ("unique-vectors", lambda tf: tf.data.Dataset.from_tensor_slices(
        np.int64([[1, 2], [1, 2], [2, 1]])).unique()),
    ("enumerate", lambda tf: tf.data.Dataset.from_tensor_slices(["a", "b", "c"]).enumerate(5)),
    ("enumerate_dataset", lambda tf: tf.data.Dataset.range(3).apply(tf.data.experimental.enumerate_dataset())),
    ("unbatch", lambda tf: tf.data.Dataset.from_tensors(np.float32([[1, 2], [3, 4]])).apply(
        tf.data.experimental.unbatch())),
]


def _same(a, b):
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


@pytest.mark.parametrize("rid,build", PIPELINES, ids=[p[0] for p in PIPELINES])
def test_elements_are_tensorflows(rid, build):
    real = pytest.importorskip("tensorflow")
    got, want = _elements(ref, build), _elements(real.compat.v1, build)
    assert len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want)), (got, want)


@pytest.mark.parametrize("rid,build", PIPELINES, ids=[p[0] for p in PIPELINES])
def test_graph_def_is_tensorflows(rid, build):
    assert_same_graph(lambda tf: tf.data.make_initializable_iterator(build(tf)).get_next())


ERRORS = [
    ("unique-float", lambda tf: tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32)).unique(),
     TypeError, "does not support type"),
    ("take_while-int-predicate", lambda tf: tf.data.Dataset.range(3).take_while(lambda x: x), ValueError,
     "must return a `tf.bool` scalar tensor"),
]


@pytest.mark.parametrize("rid,build,err,match", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_as_tensorflow(rid, build, err, match):
    real = pytest.importorskip("tensorflow")
    for tf in (real.compat.v1, ref):
        with tf.Graph().as_default(), pytest.raises(err, match=match):
            build(tf)
