"""Iterators: initialization, string handles, errors inside functions, the
background threads of prefetch, and GraphDefs TensorFlow imports and runs."""
import threading
import time

import numpy as np
import pytest

import ref
from ref.data import iterator_ops as _under_test  # noqa: F401  (the module these tests cover)


def _drain(sess, t):
    out = []
    while True:
        try:
            out.append(sess.run(t))
        except ref.errors.OutOfRangeError:
            return out


def test_from_structure_reinitializable():
    with ref.Graph().as_default():
        a = ref.data.Dataset.range(3)
        b = ref.data.Dataset.range(10, 12)
        it = ref.data.Iterator.from_structure(a.output_types, a.output_shapes)
        nxt = it.get_next()
        ia, ib = it.make_initializer(a), it.make_initializer(b)
        assert ia.type == "MakeIterator" and ia.name == "make_initializer"
        with ref.Session() as s:
            with pytest.raises(ref.errors.FailedPreconditionError):
                s.run(nxt)
            s.run(ia)
            assert _drain(s, nxt) == [0, 1, 2]
            s.run(ib)
            assert _drain(s, nxt) == [10, 11]
            s.run(ia)
            assert s.run(nxt) == 0
        with pytest.raises(TypeError):
            it.make_initializer(ref.data.Dataset.from_tensors(np.float32(1)))


def test_string_handle_feeds_the_iterator():
    with ref.Graph().as_default():
        train = ref.data.Dataset.range(100).make_one_shot_iterator()
        val = ref.data.Dataset.range(5).map(lambda x: -x).make_initializable_iterator()
        h = ref.placeholder(ref.string, [])
        it = ref.data.Iterator.from_string_handle(h, train.output_types, train.output_shapes)
        nxt = it.get_next()
        with ref.Session() as s:
            th, vh = s.run([train.string_handle(), val.string_handle()])
            s.run(val.initializer)
            assert [s.run(nxt, {h: th}) for _ in range(2)] == [0, 1]
            assert [s.run(nxt, {h: vh}) for _ in range(2)] == [0, -1]
            assert s.run(nxt, {h: th}) == 2


@pytest.mark.parametrize("op_type, build", [
    ("MapDataset", lambda d: d.map(lambda x: ref.debugging.check_numerics(x, "bad") if hasattr(ref, "debugging")
                                   and hasattr(ref.debugging, "check_numerics") else ref.check_numerics(x, "bad"))),
    ("FilterDataset", lambda d: d.filter(lambda x: ref.check_numerics(x, "bad") > 0)),
])
def test_error_in_function_names_dataset_op_and_function(op_type, build):
    with ref.Graph().as_default():
        ds = build(ref.data.Dataset.from_tensor_slices(np.array([1.0, np.inf], np.float32)))
        nxt = ref.data.make_one_shot_iterator(ds).get_next()
        with ref.Session() as s:
            s.run(nxt)
            with pytest.raises(ref.errors.InvalidArgumentError) as e:
                s.run(nxt)
    assert op_type in str(e.value) and "__inference_Dataset_" in str(e.value)


def test_output_structure():
    with ref.Graph().as_default():
        ds = ref.data.Dataset.from_tensor_slices({"x": np.zeros((4, 2), np.float32), "y": np.arange(4)})
        ds = ds.batch(2, drop_remainder=True)
        assert ds.output_types == {"x": ref.float32, "y": ref.int64}
        assert ds.output_shapes["x"].as_list() == [2, 2] and ds.output_shapes["y"].as_list() == [2]
        assert ds.output_classes == {"x": ref.Tensor, "y": ref.Tensor}
        it = ref.data.make_one_shot_iterator(ds)
        assert ref.data.get_output_types(it) == ds.output_types
        el = it.get_next()
        assert el["x"].shape.as_list() == [2, 2]


def _data_threads():
    return [t for t in threading.enumerate() if t.name == "ref-tf-data"]


def test_prefetch_threads_end_with_the_session():
    before = len(_data_threads())
    with ref.Graph().as_default():
        ds = ref.data.Dataset.range(10 ** 9).map(lambda x: x + 1).prefetch(3)
        nxt = ref.data.make_one_shot_iterator(ds).get_next()
        s = ref.Session()
        assert s.run(nxt) == 1
        assert len(_data_threads()) == before + 1
        s.close()
    deadline = time.time() + 5
    while len(_data_threads()) > before and time.time() < deadline:
        time.sleep(0.05)
    assert len(_data_threads()) == before


def test_tf_imports_and_runs_our_graph_def():
    tf = pytest.importorskip("tensorflow")
    tf1 = tf.compat.v1
    with ref.Graph().as_default() as g:
        c = ref.constant(3.0)
        ds = ref.data.Dataset.from_tensor_slices((np.arange(7, dtype=np.float32), np.arange(7)))
        ds = ds.map(lambda x, y: (x * c, y)).filter(lambda x, y: y % 3 > 0).shuffle(4, seed=2).batch(2).prefetch(1)
        it = ds.make_initializable_iterator()
        one_shot = ref.data.Dataset.range(4).interleave(lambda x: ref.data.Dataset.range(x), 2).make_one_shot_iterator()
        nxt, nxt2 = it.get_next(), one_shot.get_next()
        gd = g.as_graph_def()
        with ref.Session() as s:
            s.run(it.initializer)
            want, want2 = _drain(s, nxt), _drain(s, nxt2)
    with tf1.Graph().as_default():
        tf1.import_graph_def(tf1.GraphDef.FromString(gd.SerializeToString()), name="")
        with tf1.Session() as s:
            s.run(it.initializer.name)
            got, got2 = [], []
            for out, names in ((got, [t.name for t in nxt]), (got2, nxt2.name)):
                while True:
                    try:
                        out.append(s.run(names))
                    except tf.errors.OutOfRangeError:
                        break
    assert len(got) == len(want) and got2 == want2
    for a, b in zip(got, want):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
