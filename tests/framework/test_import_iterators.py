"""Graphs holding dataset iterators (ops whose ``output_shapes`` attr is their own,
not an inferred one) survive ``export_meta_graph``/``import_meta_graph`` into a fresh
graph and run there (saver_test's testPreserveDatasetAndFunctions): the values read
until OutOfRange, against TensorFlow, one row per pipeline and export path."""
import numpy as np
import pytest

from ref.framework import importer as _under_test  # noqa: F401
import ref


def range_map_one_shot(lib):
    ds = lib.data.Dataset.range(5).map(lambda x: x * x)
    return lib.data.make_one_shot_iterator(ds).get_next()


def slices_batch_one_shot(lib):
    ds = lib.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.float32).reshape(5, 2)).batch(2)
    return lib.data.make_one_shot_iterator(ds).get_next()


def tuple_elements_one_shot(lib):
    ds = lib.data.Dataset.from_tensor_slices((np.arange(3), np.array([1.5, 2.5, 3.5], np.float32)))
    a, b = lib.data.make_one_shot_iterator(ds.map(lambda x, y: (x + 1, y * 2))).get_next()
    return lib.cast(a, lib.float32) + b


ROWS = [(f, kw) for f in (range_map_one_shot, slices_batch_one_shot, tuple_elements_one_shot)
        for kw in ({}, {"clear_devices": True}, {"clear_devices": True, "from_graph_def": True})]


def _values(lib, build, kw):
    g = lib.Graph()
    with g.as_default():
        lib.identity(build(lib), name="output")
        kw = dict(kw)
        if kw.pop("from_graph_def", False):
            kw["graph_def"] = g.as_graph_def()
        meta = lib.train.export_meta_graph(**kw)
    out = []
    with lib.Graph().as_default(), lib.Session() as s:
        lib.train.import_meta_graph(meta, import_scope="new_model")
        while True:
            try:
                out.append(s.run("new_model/output:0"))
            except lib.errors.OutOfRangeError:
                return out


@pytest.mark.parametrize("build,kw", ROWS, ids=[f"{f.__name__}-{'-'.join(kw) or 'plain'}" for f, kw in ROWS])
def test_matches_tf(build, kw):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _values(tf, build, kw)
    got = _values(ref, build, kw)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)
