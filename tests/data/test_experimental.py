"""``tf.data.experimental`` transformations and ``Dataset.reduce`` /
``get_single_element`` against TensorFlow: the same elements in the same order
(random sampling bit for bit for the same seeds) and the same GraphDef, the
functions of the dataset ops included (a function's name ends in TF's global
counter, which is left out; a function is compared by its signature and the
ops of its body: ref's FunctionDef export names arguments ``arg0`` where TF
names them after the traced tensors)."""
import os
import re
import sys

import numpy as np
import pytest

import ref
from ref.data import experimental as _under_test  # noqa: F401  (the module these tests cover)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "graph_ops"))
from _graphdef import describe, graph_def, tf_v1  # noqa: E402

tf1 = tf_v1()


def _bucket(t, modulus=7, **kw):
    return t.data.Dataset.range(1, 12).map(lambda x: t.fill([x % modulus + 1], x)).apply(
        t.data.experimental.bucket_by_sequence_length(lambda x: t.shape(x)[0], [3, 5], [2, 3, 1], **kw))


# Each pipeline takes the module (ref or tf.compat.v1) and returns a dataset.
PIPELINES = {
    "scan": lambda t: t.data.Dataset.range(6).apply(
        t.data.experimental.scan(np.int64(0), lambda s, x: (s + x, s * x))),
    "scan_tuple_state": lambda t: t.data.Dataset.range(5).apply(
        t.data.experimental.scan((np.int64(1), np.float32(0.5)), lambda s, x: ((s[0] * 2, s[1] + 1.0), s[0] + x))),
    "scan_shape_relaxed": lambda t: t.data.Dataset.range(4).apply(
        t.data.experimental.scan(np.zeros([0], np.int64), lambda s, x: (t.concat([s, [x]], 0), t.size(s)))),
    "counter": lambda t: t.data.experimental.Counter(2, 3).take(6),
    "counter_zip": lambda t: t.data.Dataset.zip((t.data.experimental.Counter(), t.data.Dataset.range(5, 9))),
    "group_by_window": lambda t: t.data.Dataset.range(13).apply(t.data.experimental.group_by_window(
        lambda x: x % 3, lambda k, d: d.batch(2), window_size=4)),
    "group_by_window_size_func": lambda t: t.data.Dataset.range(15).apply(t.data.experimental.group_by_window(
        lambda x: x % 2, lambda k, d: d.map(lambda v: v + k * 100).batch(5), window_size_func=lambda k: k + 2)),
    "group_by_window_tuple": lambda t: t.data.Dataset.from_tensor_slices((np.arange(8), np.arange(8) * 1.5)).apply(
        t.data.experimental.group_by_window(lambda a, b: a % 2, lambda k, d: d.batch(3), window_size=3)),
    "bucket_by_sequence_length": lambda t: _bucket(t),
    "bucket_no_padding": lambda t: t.data.Dataset.range(1, 9).map(lambda x: (x, x * 2)).apply(
        t.data.experimental.bucket_by_sequence_length(lambda x, y: t.cast(x, t.int32), [4], [3, 2],
                                                      no_padding=True)),
    "bucket_pad_to_boundary": lambda t: _bucket(t, 4, pad_to_bucket_boundary=True),
    "bucket_padding_values": lambda t: _bucket(t, padding_values=np.int64(-1), padded_shapes=[8]),
    "sample_from_datasets": lambda t: t.data.experimental.sample_from_datasets(
        [t.data.Dataset.range(5), t.data.Dataset.range(100, 110)], [0.3, 0.7], seed=5),
    "sample_uniform_three": lambda t: t.data.experimental.sample_from_datasets(
        [t.data.Dataset.range(i * 10, i * 10 + 4) for i in range(3)], seed=11),
    "sample_zero_weight": lambda t: t.data.experimental.sample_from_datasets(
        [t.data.Dataset.range(3), t.data.Dataset.range(10, 13), t.data.Dataset.range(20, 23)], [0.5, 0.0, 0.5],
        seed=2),
    "sample_weights_dataset": lambda t: t.data.experimental.sample_from_datasets(
        [t.data.Dataset.range(4), t.data.Dataset.range(10, 14)],
        t.data.Dataset.from_tensor_slices(np.asarray([[0.9, 0.1], [0.1, 0.9]] * 4, np.float32)), seed=7),
    "sample_graph_seed": lambda t: _graph_seed(t, 4, lambda: t.data.experimental.sample_from_datasets(
        [t.data.Dataset.range(6), t.data.Dataset.range(50, 56)])),
    "choose_from_datasets": lambda t: t.data.experimental.choose_from_datasets(
        [t.data.Dataset.range(3), t.data.Dataset.range(10, 14)], t.data.Dataset.from_tensor_slices(
            np.asarray([1, 0, 1, 1, 0, 0, 0, 1, 1], np.int64))),
    "ignore_errors_map": lambda t: t.data.Dataset.from_tensor_slices(np.asarray([1.0, 2.0, 0.0, 4.0], np.float32))
        .map(lambda x: t.debugging.check_numerics(1.0 / x, "inf")).apply(t.data.experimental.ignore_errors()),
    "ignore_errors_batch_after": lambda t: t.data.Dataset.range(10).map(
        lambda x: t.gather([1, 2, 3, 4, 5, 6], x)).apply(t.data.experimental.ignore_errors()).batch(4),
}


def _graph_seed(t, seed, build):
    t.set_random_seed(seed)
    return build()


def _elements(t, build):
    with t.Graph().as_default():
        it = t.data.make_initializable_iterator(build(t))
        nxt = it.get_next()
        out = []
        with t.Session() as s:
            for _ in range(2):  # a second initialization walks the same elements again
                s.run(it.initializer)
                while True:
                    try:
                        out.append(s.run(nxt))
                    except t.errors.OutOfRangeError:
                        break
    return out


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_array_equal(a, b)


_COUNTER = re.compile(r"_\d+$")


def _normalized(gd):
    """Nodes (by :func:`describe`, function names without their counter) and the
    library's functions by normalized name: their signature and nodes."""
    def desc(node):
        name, op, data, control, attrs = describe(node)
        for k, v in node.attr.items():
            if v.HasField("func"):
                attrs[k] = ("func", _COUNTER.sub("", v.func.name), sorted(v.func.attr))
        return name, op, data, control, attrs

    nodes = [desc(n) for n in gd.node]
    lib = {}
    for f in gd.library.function:
        if f.signature.name.startswith("assert_less_Assert_AssertGuard_"):
            continue  # cond branches inside a dataset function: ref returns a Const where TF has an Identity
        ops = sorted(n.op for n in f.node_def if n.op != "NoOp")  # TF's automatic control dependencies
        sig = ([a.type for a in f.signature.input_arg], [a.type for a in f.signature.output_arg])
        lib[_COUNTER.sub("", f.signature.name)] = (sig, ops)
    return nodes, lib


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_elements_match_tf(name):
    got, want = _elements(ref, PIPELINES[name]), _elements(tf1, PIPELINES[name])
    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        _same(g, w)


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_graph_def_matches_tf(name):
    def snippet(t):
        PIPELINES[name](t)
    got_nodes, got_lib = _normalized(graph_def(ref, snippet))
    want_nodes, want_lib = _normalized(graph_def(tf1, snippet))
    assert [n[:2] for n in got_nodes] == [n[:2] for n in want_nodes]
    for g, w in zip(got_nodes, want_nodes):
        assert g == w, (g, w)
    assert sorted(got_lib) == sorted(want_lib)
    for k in want_lib:
        assert got_lib[k] == want_lib[k], k


def _value(t, build):
    with t.Graph().as_default():
        v = build(t)
        with t.Session() as s:
            return s.run(v)


VALUES = {
    "reduce_sum": lambda t: t.data.Dataset.range(6).reduce(np.int64(0), lambda s, x: s + x),
    "reduce_tuple": lambda t: t.data.Dataset.from_tensor_slices(np.arange(5.0, dtype=np.float32)).reduce(
        (np.float32(0), np.int64(0)), lambda s, x: (s[0] + x * x, s[1] + 1)),
    "reduce_concat": lambda t: t.data.Dataset.range(4).reduce(np.zeros([0], np.int64),
                                                               lambda s, x: t.concat([s, [x * 10]], 0)),
    "single_element": lambda t: t.data.experimental.get_single_element(
        t.data.Dataset.from_tensors((np.arange(3), np.float32(2.5)))),
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_and_graph_match_tf(name):
    _same(_value(ref, VALUES[name]), _value(tf1, VALUES[name]))

    def snippet(t):
        VALUES[name](t)
    got, want = _normalized(graph_def(ref, snippet)), _normalized(graph_def(tf1, snippet))
    assert got == want


ERRORS = {
    "single_empty": (lambda t: t.data.experimental.get_single_element(t.data.Dataset.range(0)),
                     "InvalidArgumentError", "Dataset was empty."),
    "single_two": (lambda t: t.data.experimental.get_single_element(t.data.Dataset.range(2)),
                   "InvalidArgumentError", "Dataset had more than one element."),
    "choose_out_of_range": (lambda t: t.data.make_one_shot_iterator(t.data.experimental.choose_from_datasets(
        [t.data.Dataset.range(3)], t.data.Dataset.range(1, 2))).get_next(),
        "InvalidArgumentError", "Selector index out of range: 1 >= 1"),
    "map_error_without_ignore": (lambda t: t.data.make_one_shot_iterator(t.data.Dataset.range(3).map(
        lambda x: t.gather([1], x))).get_next(), "InvalidArgumentError", None),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_tf(name):
    build, kind, message = ERRORS[name]

    def first_error(t):
        with t.Graph().as_default():
            v = build(t)
            with t.Session() as s:
                for _ in range(5):
                    try:
                        s.run(v)
                    except t.errors.OpError as e:
                        return type(e).__name__, e.message
        return None, None
    got, want = first_error(ref), first_error(tf1)
    assert got[0] == want[0] == kind
    if message:
        assert message in got[1] and message in want[1]


def test_build_errors_match_tf():
    for t in (ref, tf1):
        with t.Graph().as_default():
            with pytest.raises(ValueError, match="window_size"):
                t.data.Dataset.range(3).apply(t.data.experimental.group_by_window(lambda x: x, lambda k, d: d))
            with pytest.raises(ValueError, match="bucket_batch_sizes"):
                t.data.Dataset.range(3).apply(t.data.experimental.bucket_by_sequence_length(
                    lambda x: x, [2], [1]))
            with pytest.raises(TypeError, match="choice_dataset"):
                t.data.experimental.choose_from_datasets([t.data.Dataset.range(2)], t.data.Dataset.range(2).batch(1))
