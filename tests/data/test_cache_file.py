"""Dataset.cache(filename) against TensorFlow: TF's file format both ways
(a cache ref wrote feeds TF's pipeline and the reverse, the source never
consulted again), elements through repeat, TF's AlreadyExistsError for a
second writer, and a walk abandoned part-way leaving nothing behind."""
import os

import numpy as np
import pytest

import ref
from ref.data import dataset_ops as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

SOURCES = {
    "ints": lambda t: t.data.Dataset.range(7),
    "tuples_with_strings": lambda t: t.data.Dataset.from_tensor_slices(
        (np.arange(5, dtype=np.float32).reshape(5, 1) * 1.5, np.array([b"a", b"bb", b"", b"dddd", b"e"]))),
    "mapped_batches": lambda t: t.data.Dataset.range(10).map(lambda x: (x * 2, t.cast(x, t.int32))).batch(3),
}
EMPTY = {
    "ints": lambda t: t.data.Dataset.range(0),
    "tuples_with_strings": lambda t: t.data.Dataset.from_tensor_slices(
        (np.zeros((0, 1), np.float32), np.array([], dtype=object).astype(bytes))),
    "mapped_batches": lambda t: t.data.Dataset.range(0).map(lambda x: (x * 2, t.cast(x, t.int32))).batch(3),
}


def _walk(t, make, path, repeat=1):
    with t.Graph().as_default():
        ds = make(t).cache(path).repeat(repeat)
        nxt = t.data.make_one_shot_iterator(ds).get_next() if hasattr(t.data, "make_one_shot_iterator") \
            else ds.make_one_shot_iterator().get_next()
        out = []
        with t.Session() as s:
            while True:
                try:
                    out.append(s.run(nxt))
                except t.errors.OutOfRangeError:
                    return out


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        x, y = (x, y) if isinstance(x, tuple) else ((x,), (y,))
        for u, v in zip(x, y):
            np.testing.assert_array_equal(u, v)
            assert np.asarray(u).dtype == np.asarray(v).dtype


@pytest.mark.parametrize("name", sorted(SOURCES))
@pytest.mark.parametrize("writer", ["ref", "tf"])
def test_cache_files_are_tfs_both_ways(tmp_path, name, writer):
    path = str(tmp_path / "cache")
    w, r = (ref, tf1) if writer == "ref" else (tf1, ref)
    first = _walk(w, SOURCES[name], path, repeat=2)
    assert sorted(os.listdir(tmp_path)) == ["cache.data-00000-of-00001", "cache.index"]
    again = _walk(r, EMPTY[name], path)  # an empty source: the elements come from the file
    _same(again, first[:len(first) // 2])
    _same(first, _walk(tf1, SOURCES[name], str(tmp_path / "tf_only"), repeat=2))


def test_second_writer_gets_tfs_already_exists(tmp_path):
    path = str(tmp_path / "c")
    for t in (ref, tf1):
        with t.Graph().as_default():
            ds = t.data.Dataset.range(5).cache(path)
            a = t.data.make_one_shot_iterator(ds).get_next()
            b = t.data.make_one_shot_iterator(ds).get_next()
            with t.Session() as s:
                assert s.run(a) == 0
                assert open(path + "_0.lockfile").read().startswith("Created at: ")
                with pytest.raises(t.errors.AlreadyExistsError,
                                   match="concurrent caching iterator running - cache lockfile already exists"):
                    s.run(b)
        assert not os.path.exists(path + "_0.lockfile")
        for f in os.listdir(tmp_path):
            os.remove(tmp_path / f)


def test_abandoned_walk_leaves_no_cache(tmp_path):
    for t in (ref, tf1):
        path = str(tmp_path / t.__name__.split(".")[0])
        with t.Graph().as_default():
            ds = t.data.Dataset.range(5).cache(path)
            it = t.data.make_initializable_iterator(ds)
            nxt = it.get_next()
            with t.Session() as s:
                s.run(it.initializer)
                s.run(nxt), s.run(nxt)
                s.run(it.initializer)  # the partial cache is discarded; the walk starts over
                assert [s.run(nxt) for _ in range(5)] == [0, 1, 2, 3, 4]
                with pytest.raises(t.errors.OutOfRangeError):
                    s.run(nxt)
        assert sorted(f for f in os.listdir(tmp_path) if f.startswith(os.path.basename(path))) == [
            os.path.basename(path) + ".data-00000-of-00001", os.path.basename(path) + ".index"]
