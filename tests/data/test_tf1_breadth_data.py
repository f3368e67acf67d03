"""TF1 ``tf.data`` names added for breadth: ``Dataset.window`` (``WindowDataset``),
``tf.data.experimental.CsvDataset`` (``CSVDatasetV2``), ``make_csv_dataset`` and ``tf.data.Options``
with ``Dataset.with_options`` (``OptionsDataset``) against TensorFlow -- the same elements in the same order, errors of the same
kind, the same GraphDef (functions compared by signature and body ops, as in
test_experimental.py)."""
import os
import re
import sys
import tempfile

import numpy as np
import pytest

import ref
from ref.data import dataset_ops as _under_test  # noqa: F401  (the module these tests cover)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "graph_ops"))
from _graphdef import describe, graph_def, tf1_behaviour, tf_v1  # noqa: E402

tf1 = tf_v1()


def _batched(ds, n=10):
    return ds.flat_map(lambda w: w.batch(n))


_DIR = tempfile.mkdtemp(prefix="tf1_breadth_csv_")


def _csv(name, text):
    path = os.path.join(_DIR, name)
    with open(path, "wb") as f:
        f.write(text)
    return path


CSV = _csv("a.csv", b'x,y,z\n1,2.5,"he said ""hi"", ok"\n3,,plain\r\n,4,"multi\nline"\n5,6,NA')
CSV_CLEAN = _csv("b.csv", b"7;1e3;a\n-8;-0.5;b\r9;nan;c")
CSV_BAD = _csv("c.csv", b'1,x"y\n2,"a"b\n3,"open')
CSV_GZ = _csv("d.csv.gz", __import__("gzip").compress(b"1,2\n3,4\n"))


for _i in range(2):
    _csv(f"m{_i}.csv", f'a,b,c,label\n1,2.5,x,0\n{_i},,y,1\n3,4.5,"q,z",{_i}\n'.encode())
MANY = os.path.join(_DIR, "m*.csv")


def _csv_ds(t, files, defaults, **kw):
    return t.data.experimental.CsvDataset(files, defaults, **kw)


def _options(t, **settings):
    """A ``tf.data.Options`` with ``settings`` ("a.b": value sets a nested option)."""
    o = t.data.Options()
    for key, value in settings.items():
        *path, last = key.split("__")
        target = o
        for p in path:
            target = getattr(target, p)
        setattr(target, last, value(t) if callable(value) else value)
    return o


OPTIONS = {
    "default": {},
    "deterministic_slack": {"experimental_deterministic": False, "experimental_slack": True},
    "optimization": {"experimental_optimization__map_parallelization": True,
                     "experimental_optimization__apply_default_optimizations": False,
                     "experimental_optimization__map_and_batch_fusion": True},
    "threading": {"threading__private_threadpool_size": 4, "experimental_threading__max_intra_op_parallelism": 1},
    "distribute_autotune": {"experimental_distribute__auto_shard_policy":
                            lambda t: t.data.experimental.AutoShardPolicy.OFF,
                            "autotune__ram_budget": 1 << 33, "autotune__enabled": False},
    "external_state": {"experimental_external_state_policy": lambda t: t.data.experimental.ExternalStatePolicy.FAIL},
}


def _serialized(t, settings):
    o = _options(t, **settings)
    return o.serialize() if t is ref else o._to_proto().SerializeToString()


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_options_serialize_as_tf(name):
    assert _serialized(ref, OPTIONS[name]) == _serialized(tf1, OPTIONS[name])


def test_options_refuse_unknown_names_and_merge():
    o = ref.data.Options()
    with pytest.raises(AttributeError, match="Cannot set the property bogus on Options."):
        o.bogus = 1
    a, b = _options(ref, experimental_deterministic=False, threading__private_threadpool_size=2), \
        _options(ref, threading__max_intra_op_parallelism=1, experimental_deterministic=True)
    m = a.merge(b)
    assert (m.deterministic, m.threading.private_threadpool_size, m.threading.max_intra_op_parallelism) == (True, 2, 1)
    with tf1_behaviour(), tf1.Graph().as_default(), ref.Graph().as_default():
        got = ref.data.Dataset.range(3).with_options(a).map(lambda x: x).with_options(b).options()
        want = tf1.data.Dataset.range(3).with_options(_options(tf1, experimental_deterministic=False,
                                                               threading__private_threadpool_size=2)).map(
            lambda x: x).with_options(_options(tf1, threading__max_intra_op_parallelism=1,
                                               experimental_deterministic=True)).options()
        assert got.serialize() == want._to_proto().SerializeToString()


# Each pipeline takes the module (ref or tf.compat.v1) and returns a dataset.
PIPELINES = {
    "window_shift": lambda t: _batched(t.data.Dataset.range(7).window(3, shift=2)),
    "window_default_shift": lambda t: _batched(t.data.Dataset.range(7).window(3)),
    "window_drop_remainder": lambda t: _batched(t.data.Dataset.range(7).window(3, shift=2, drop_remainder=True)),
    "window_stride": lambda t: _batched(t.data.Dataset.range(7).window(2, shift=1, stride=2)),
    "window_shift_past_span": lambda t: _batched(t.data.Dataset.range(9).window(2, shift=4)),
    "window_size_one": lambda t: _batched(t.data.Dataset.range(3).window(1)),
    "window_longer_than_input": lambda t: _batched(t.data.Dataset.range(3).window(5)),
    "window_longer_than_input_dropped": lambda t: t.data.Dataset.range(3).window(5, drop_remainder=True)
        .flat_map(lambda w: w.batch(5)).concatenate(t.data.Dataset.range(1)),
    "window_tuple_dict": lambda t: t.data.Dataset.from_tensor_slices(
        ({"a": np.arange(5, dtype=np.int32)}, np.array([b"v", b"w", b"x", b"y", b"z"]))).window(2).flat_map(
        lambda d, s: t.data.Dataset.zip((d["a"].batch(2), s.batch(2)))),
    "window_matrix_rows": lambda t: t.data.Dataset.from_tensor_slices(np.arange(12.0, dtype=np.float32)
                                                                      .reshape(6, 2)).window(4, 3).flat_map(
        lambda w: w.batch(4, drop_remainder=False)),
    "window_reduce_each": lambda t: t.data.Dataset.range(10).window(4, 2).map(
        lambda w: w.reduce(np.int64(0), lambda s, x: s + x)),
    "window_zero_size": lambda t: _batched(t.data.Dataset.range(3).window(0)),
    "window_zero_shift": lambda t: _batched(t.data.Dataset.range(3).window(2, shift=0)),
    "window_negative_stride": lambda t: _batched(t.data.Dataset.range(3).window(2, stride=-1)),
    "csv_quotes_defaults_na": lambda t: _csv_ds(t, CSV, [t.int64, [0.0], ["dflt"]], header=True, na_value="NA"),
    "csv_select_cols": lambda t: _csv_ds(t, CSV, [0, ""], header=True, select_cols=[0, 2]),
    "csv_too_few_outputs": lambda t: _csv_ds(t, CSV, [t.int32, t.float32], header=True),
    "csv_header_as_record": lambda t: _csv_ds(t, CSV, [t.string] * 3),
    "csv_no_quote_delim": lambda t: _csv_ds(t, CSV, [t.string] * 3, use_quote_delim=False),
    "csv_two_files": lambda t: _csv_ds(t, [CSV_CLEAN, CSV_CLEAN], [t.int32, t.float64, t.string], field_delim=";"),
    "csv_float32_int64": lambda t: _csv_ds(t, CSV_CLEAN, [t.int64, t.float32, [b"z"]], field_delim=";").batch(2),
    "csv_not_an_int": lambda t: _csv_ds(t, CSV_CLEAN, [t.int32, t.int32, t.string], field_delim=";"),
    "csv_bad_quotes": lambda t: _csv_ds(t, CSV_BAD, [t.int32, t.string]),
    "csv_gzip": lambda t: _csv_ds(t, CSV_GZ, [t.int64, t.int64], compression_type="GZIP"),
    "csv_two_char_delim": lambda t: _csv_ds(t, CSV_CLEAN, [t.string], field_delim=";;"),
    "csv_select_not_increasing": lambda t: _csv_ds(t, CSV_CLEAN, [t.string, t.string], select_cols=[1, 0]),
    "with_options": lambda t: t.data.Dataset.range(5).with_options(_options(t, **OPTIONS["threading"])).map(
        lambda x: x + 1).with_options(_options(t, experimental_deterministic=False)).batch(2),
    "make_csv_dataset_label_inferred": lambda t: t.data.experimental.make_csv_dataset(
        MANY, 2, label_name="label", shuffle=False, num_epochs=1),
    "make_csv_dataset_select_defaults": lambda t: t.data.experimental.make_csv_dataset(
        MANY, 4, select_columns=["a", "c"], column_defaults=[t.int64, ""], shuffle=False, num_epochs=2,
        num_parallel_reads=2),
    "make_csv_dataset_names_ignore_errors": lambda t: t.data.experimental.make_csv_dataset(
        [MANY], 3, column_names=["w", "x", "y", "z"], shuffle=False, num_epochs=1,
        ignore_errors=True),
    "csv_map_batch": lambda t: _csv_ds(t, CSV_CLEAN, [t.int64, t.float32, t.string], field_delim=";").map(
        lambda a, b, c: (a * 2, b + 1.0)).batch(3),
}


def _elements(t, build):
    with tf1_behaviour(), t.Graph().as_default():
        it = t.data.make_initializable_iterator(build(t))
        nxt = it.get_next()
        out = []
        with t.Session() as s:
            try:
                s.run(it.initializer)
            except t.errors.OpError as e:
                return type(e).__name__
            while True:
                try:
                    out.append(s.run(nxt))
                except t.errors.OutOfRangeError:
                    return out
                except t.errors.OpError as e:
                    return out + [type(e).__name__]


def _same(a, b):
    if isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b), (a, b)
        a, b = list(a.values()), list(b.values())
    if isinstance(b, (tuple, list)):
        assert isinstance(a, (tuple, list)) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(b, str):
        assert a == b
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape, (a, b)
        np.testing.assert_array_equal(a, b)


_COUNTER = re.compile(r"_\d+$")


def _normalized(gd):
    def desc(node):
        name, op, data, control, attrs = describe(node)
        for k, v in node.attr.items():
            if v.HasField("func"):
                attrs[k] = ("func", _COUNTER.sub("", v.func.name), sorted(v.func.attr))
        return name, op, data, control, attrs

    lib = {_COUNTER.sub("", f.signature.name): (([a.type for a in f.signature.input_arg],
                                                  [a.type for a in f.signature.output_arg]),
                                                 sorted(n.op for n in f.node_def if n.op != "NoOp"))
           for f in gd.library.function}
    return [desc(n) for n in gd.node], lib


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_elements_match_tf(name):
    want = _elements(tf1, PIPELINES[name])
    _same(_elements(ref, PIPELINES[name]), want)


# Rows whose GraphDef is not TF's yet (xfail, strict), with what differs.
GRAPH_GAPS = {name: "make_csv_dataset's LegacyParallelInterleaveDatasetV2 node: its attrs differ from TF's (the "
                    "inputs and the rest of the pipeline match); not diagnosed yet"
              for name in PIPELINES if name.startswith("make_csv_dataset")}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[pytest.mark.xfail(reason=GRAPH_GAPS[n], strict=True)] if n in GRAPH_GAPS else [])
    for n in sorted(PIPELINES)])
def test_graph_def_matches_tf(name):
    def snippet(t):
        PIPELINES[name](t)
    got_nodes, got_lib = _normalized(graph_def(ref, snippet))
    want_nodes, want_lib = _normalized(graph_def(tf1, snippet))
    assert got_nodes == want_nodes
    assert got_lib == want_lib


def test_window_structure_is_tf1s():
    """Each component of a window element is a DatasetSpec, its own legacy type/shape/class."""
    with ref.Graph().as_default():
        ds = ref.data.Dataset.from_tensor_slices((np.arange(3), np.zeros([3, 2], np.float32))).window(2)
        types, shapes = ds.output_types, ds.output_shapes
        assert [type(s).__name__ for s in types] == ["DatasetSpec", "DatasetSpec"]
        assert types == shapes == ds.output_classes == ds.element_spec
        assert types[1].element_spec.shape.as_list() == [2]
