"""tf.data pipelines against TensorFlow: the same elements in the same order
(shuffles bit for bit for the same seeds) and the same dataset ops in the GraphDef."""
import gzip
import os

import numpy as np
import pytest

import ref
from ref.data import dataset_ops as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1


def _x(n=10):
    return np.arange(n, dtype=np.float32)


# Each pipeline takes the module (ref or tf.compat.v1) and a scratch dir and returns a dataset.
PIPELINES = {
    "slices_map_shuffle_repeat_batch": lambda t, d: t.data.Dataset.from_tensor_slices((_x(), np.arange(10)))
        .map(lambda x, y: (x * 2.0, y), num_parallel_calls=2).shuffle(5, seed=3).repeat(2)
        .batch(3, drop_remainder=True).prefetch(1),
    "range_filter_take_skip": lambda t, d: t.data.Dataset.range(20).filter(lambda x: x % 3 > 0).take(9).skip(2),
    "shuffle_big_buffer": lambda t, d: t.data.Dataset.range(50).shuffle(100, seed=7),
    "shuffle_no_reshuffle": lambda t, d: t.data.Dataset.range(12).shuffle(4, seed=1, reshuffle_each_iteration=False)
        .repeat(3),
    "shuffle_graph_seed": lambda t, d: _graph_seed(t, 5, lambda: t.data.Dataset.range(30).shuffle(8).batch(4)),
    "shuffle_and_repeat": lambda t, d: t.data.Dataset.range(7).apply(
        t.data.experimental.shuffle_and_repeat(3, 4, seed=11)),
    "tensors_unbatch": lambda t, d: t.data.Dataset.from_tensors(np.arange(6).reshape(3, 2)).repeat(2).unbatch(),
    "dict_elements": lambda t, d: t.data.Dataset.from_tensor_slices({"a": _x(4), "b": np.arange(4) * 3})
        .map(lambda e: {"s": e["a"] + 1.0, "b": e["b"]}).batch(3),
    "padded_batch": lambda t, d: t.data.Dataset.range(1, 6).map(lambda x: t.fill([x], x))
        .padded_batch(2, padded_shapes=[None]),
    "padded_batch_fixed": lambda t, d: t.data.Dataset.range(1, 4).map(lambda x: t.fill([x], x))
        .padded_batch(2, padded_shapes=[5], padding_values=np.int64(-1), drop_remainder=True),
    "zip_concat": lambda t, d: t.data.Dataset.zip((t.data.Dataset.range(3), t.data.Dataset.range(10, 14)))
        .concatenate(t.data.Dataset.zip((t.data.Dataset.range(2), t.data.Dataset.range(2)))),
    "interleave": lambda t, d: t.data.Dataset.range(1, 6).interleave(
        lambda x: t.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=2),
    "interleave_autotune_cycle": lambda t, d: t.data.Dataset.range(1, 9).interleave(
        lambda x: t.data.Dataset.from_tensors(x).repeat(3)),
    "interleave_parallel": lambda t, d: t.data.Dataset.range(1, 6).interleave(
        lambda x: t.data.Dataset.range(x), cycle_length=3, num_parallel_calls=2),
    "flat_map_capture": lambda t, d: t.data.Dataset.range(3).flat_map(
        lambda x: t.data.Dataset.range(x).map(lambda y: y + t.constant(100, t.int64))),
    "cache_repeat": lambda t, d: t.data.Dataset.range(4).map(lambda x: x * x).cache().repeat(2),
    "map_and_batch": lambda t, d: t.data.Dataset.range(7).apply(
        t.data.experimental.map_and_batch(lambda x: (x, -x), 3)),
    "parallel_interleave": lambda t, d: t.data.Dataset.range(4).apply(t.data.experimental.parallel_interleave(
        lambda x: t.data.Dataset.range(x, x + 3), cycle_length=2)),
    "from_generator": lambda t, d: t.data.Dataset.from_generator(
        _gen, (t.int64, t.float32), (t.TensorShape([]), t.TensorShape([None])), args=(3,)).repeat(2),
    "from_generator_strings": lambda t, d: t.data.Dataset.from_generator(lambda: iter([b"x", b"yz"]), t.string)
        .batch(2),
    "text_lines": lambda t, d: t.data.TextLineDataset([os.path.join(d, "a.txt"), os.path.join(d, "b.txt")]),
    "text_lines_gzip": lambda t, d: t.data.TextLineDataset(os.path.join(d, "c.txt.gz"), compression_type="GZIP"),
    "tfrecords": lambda t, d: t.data.TFRecordDataset([os.path.join(d, "r.tfrecord")]).map(
        lambda s: t.strings.length(s) if hasattr(t, "strings") and hasattr(t.strings, "length") else s),
    "tfrecords_zlib": lambda t, d: t.data.TFRecordDataset(os.path.join(d, "z.tfrecord"), compression_type="ZLIB"),
    "fixed_length": lambda t, d: t.data.FixedLengthRecordDataset(os.path.join(d, "f.bin"), 3, header_bytes=2,
                                                                 footer_bytes=1),
}


def _gen(n):
    for i in range(int(n)):
        yield i, np.full([i], i, np.float32)


def _graph_seed(t, seed, build):
    t.set_random_seed(seed)
    return build()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("data")
    (d / "a.txt").write_bytes(b"one\ntwo\r\nthree")
    (d / "b.txt").write_bytes(b"four\n\nsix\n")
    (d / "c.txt.gz").write_bytes(gzip.compress(b"g1\ng2\n"))
    with ref.python_io.TFRecordWriter(str(d / "r.tfrecord")) as w:
        for r in (b"a", b"bb", b"", b"dddd"):
            w.write(r)
    with ref.python_io.TFRecordWriter(str(d / "z.tfrecord"), ref.python_io.TFRecordOptions("ZLIB")) as w:
        for r in (b"zz", b"y"):
            w.write(r)
    (d / "f.bin").write_bytes(b"HH" + bytes(range(9)) + b"F")
    return str(d)


def _run(t, build, d, one_shot):
    with t.Graph().as_default() as g:
        ds = build(t, d)
        it = t.data.make_one_shot_iterator(ds) if one_shot else t.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        out = []
        with t.Session() as s:
            if not one_shot:
                s.run(it.initializer)
            while True:
                try:
                    out.append(s.run(nxt))
                except t.errors.OutOfRangeError:
                    break
        ops = [(n.name, n.op) for n in g.as_graph_def().node if "Dataset" in n.op or "Iterator" in n.op
               or n.name.startswith("seed")]
    return out, ops


def _same(a, b):
    if isinstance(a, dict):
        assert sorted(a) == sorted(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("one_shot", [True, False])
@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_elements_and_ops_match_tf(name, one_shot, files):
    if name == "tfrecords":
        build = lambda t, d: t.data.TFRecordDataset([os.path.join(d, "r.tfrecord")])  # noqa: E731
    else:
        build = PIPELINES[name]
    got, got_ops = _run(ref, build, files, one_shot)
    want, want_ops = _run(tf1, build, files, one_shot)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _same(g, w)
    assert got_ops == want_ops


def test_reinitializing_reshuffles_as_tf():
    def orders(t):
        with t.Graph().as_default():
            it = t.data.make_initializable_iterator(t.data.Dataset.range(10).shuffle(10, seed=4))
            nxt = it.get_next()
            with t.Session() as s:
                res = []
                for _ in range(3):
                    s.run(it.initializer)
                    res.append([int(s.run(nxt)) for _ in range(10)])
        return res
    assert orders(ref) == orders(tf1)
