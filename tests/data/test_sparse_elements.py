"""SparseTensor elements in tf.data as TF1 graph mode builds them: a sparse
component travels through the dataset ops as one ``variant`` tensor
(``SerializeSparse``/``SerializeManySparse`` with ``out_type=variant``) and
``get_next()`` or a dataset function gets it back with ``DeserializeSparse``;
``output_classes`` says ``SparseTensor``. Against TensorFlow: the elements, the
classes and the GraphDef."""
import os
import sys

import numpy as np
import pytest

import ref
from ref.data import dataset_ops as _under_test  # noqa: F401  (the module these tests cover)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "graph_ops"))
from _graphdef import differences, graph_def, tf_v1  # noqa: E402

tf1 = tf_v1()


def _st(t):
    return t.SparseTensor([[0, 0], [1, 2], [2, 1], [3, 3]], np.asarray([1.0, 2.0, 3.0, 4.0], np.float32), [4, 5])


PIPELINES = {
    "slices": lambda t: t.data.Dataset.from_tensor_slices(_st(t)),
    "tensors": lambda t: t.data.Dataset.from_tensors(_st(t)).repeat(2),
    "slices_tuple_with_dense": lambda t: t.data.Dataset.from_tensor_slices((_st(t), np.arange(4))),
    "sparse_value_input": lambda t: t.data.Dataset.from_tensor_slices(t.SparseTensorValue(
        [[0, 1], [2, 0]], np.asarray([5, 6], np.int64), [3, 2])),
    "map_receives_sparse": lambda t: t.data.Dataset.from_tensor_slices(_st(t)).map(
        lambda s: t.sparse.to_dense(s) * 2.0),
    "map_returns_sparse": lambda t: t.data.Dataset.from_tensor_slices(_st(t)).map(
        lambda s: t.SparseTensor(s.indices, s.values * 10.0, s.dense_shape)),
    "map_dense_to_sparse": lambda t: t.data.Dataset.range(1, 4).map(
        lambda x: t.SparseTensor([[0], [2]], t.stack([x, x * x]), [5])),
    "batch": lambda t: t.data.Dataset.from_tensor_slices(_st(t)).batch(3),
    "batch_drop_remainder_shuffle": lambda t: t.data.Dataset.from_tensor_slices(_st(t)).shuffle(4, seed=2)
        .batch(2, drop_remainder=True),
}


def _elements(t, build):
    with t.Graph().as_default():
        ds = build(t)
        classes = t.data.get_output_classes(ds)
        it = t.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        out = []
        with t.Session() as s:
            s.run(it.initializer)
            while True:
                try:
                    out.append(s.run(nxt))
                except t.errors.OutOfRangeError:
                    break
    return out, classes


def _flat(x):
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):
        return [("sparse",), x.indices, x.values, x.dense_shape]
    if isinstance(x, (tuple, list)):
        return [v for e in x for v in _flat(e)]
    return [np.asarray(x)]


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_elements_and_classes_match_tf(name):
    (got, got_classes), (want, want_classes) = _elements(ref, PIPELINES[name]), _elements(tf1, PIPELINES[name])
    names = lambda cs: [c.__name__ for c in (cs if isinstance(cs, tuple) else (cs,))]  # noqa: E731
    assert names(got_classes) == names(want_classes)
    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        fg, fw = _flat(g), _flat(w)
        assert len(fg) == len(fw)
        for a, b in zip(fg, fw):
            if isinstance(a, tuple):
                assert a == b
                continue
            assert a.dtype == np.asarray(b).dtype and a.shape == np.asarray(b).shape, (a, b)
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_graph_def_matches_tf(name):
    def snippet(t):
        ds = PIPELINES[name](t)
        t.data.make_initializable_iterator(ds).get_next()
    diff = differences(graph_def(ref, snippet), graph_def(tf1, snippet))
    assert not diff, "\n".join(diff)


def test_static_shapes_match_tf():
    def shapes(t):
        with t.Graph().as_default():
            ds = t.data.Dataset.from_tensor_slices(_st(t)).batch(2)
            x = t.data.make_one_shot_iterator(ds).get_next()
            return (ds.output_shapes.as_list(), x.indices.shape.as_list(), x.values.shape.as_list(),
                    x.dense_shape.shape.as_list())
    assert shapes(ref) == shapes(tf1)


def test_padded_batch_of_sparse_is_a_type_error_as_in_tf():
    for t in (ref, tf1):
        with t.Graph().as_default():
            with pytest.raises(TypeError, match="only supported for datasets that produce tensor elements"):
                t.data.Dataset.from_tensor_slices(_st(t)).padded_batch(2)
