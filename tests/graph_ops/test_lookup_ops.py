"""``tf.lookup`` tables, their initializers and kernels, ``tables_initializer``,
the string hash buckets, and a mutable table's checkpoint: each case built in
ref and in ``tensorflow.compat.v1`` (graph mode) and compared."""
from __future__ import annotations

import os

import numpy as np
import pytest

import ref

VOCAB = "emerson\t10\t1.5\nlake\t20\t2.5\npalmer\t30\t3.5\n"
KEYS = ["emerson", "lake", "xyz", "palmer", "zzz"]


@pytest.fixture
def vocab(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text(VOCAB)
    return str(path)


def _lookup_ops(t):
    """The module with TF's lookup helpers outside the tf namespace (index_table_from_file, ...)."""
    if t is ref:
        from ref.graph_ops import lookup_ops
        return lookup_ops
    import importlib
    return importlib.import_module("tensorflow.python.ops.lookup_ops")


def _kv(t, keys, values, kd=None, vd=None):
    return t.lookup.KeyValueTensorInitializer(keys, values, kd, vd)


# (name, build(tf, vocab_path) -> tensor or SparseTensor); tables_initializer runs first.
CASES = [
    ("static string->int64", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, ["emerson", "lake", "palmer"], t.constant([0, 1, 2], t.int64)), -1).lookup(t.constant(KEYS))),
    ("static int64->string", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, t.constant([3, 5], t.int64), ["x", "y"]), "UNK").lookup(t.constant([[3, 4], [5, 5]], t.int64))),
    ("static int32->float", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, t.constant([1, 2]), t.constant([0.5, 1.5])), -1.0).lookup(t.constant([2, 7, 1]))),
    ("static size", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, ["a", "b", "a"], t.constant([0, 1, 0], t.int64)), -1).size()),
    ("static sparse keys", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, ["a", "b"], t.constant([0, 1], t.int64)), -1).lookup(
        t.SparseTensor([[0, 0], [1, 2]], t.constant(["b", "q"]), [2, 3]))),
    ("static getitem", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, ["a"], t.constant([7], t.int64)), -1)[t.constant(["a", "b"])]),
    ("text file columns", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.string, 0, t.int64, 1), -1).lookup(t.constant(KEYS))),
    ("text file float column", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.string, 0, t.float32, 2), 0.0).lookup(t.constant(KEYS))),
    ("text file whole line -> line number", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.string, t.lookup.TextFileIndex.WHOLE_LINE, t.int64,
                                     t.lookup.TextFileIndex.LINE_NUMBER),
        -1).lookup(t.constant(["lake\t20\t2.5", "emerson", "palmer\t30\t3.5"]))),
    ("text file line number -> column", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.int64, t.lookup.TextFileIndex.LINE_NUMBER, t.string, 0), "UNK").lookup(
        t.constant([0, 2, 3], t.int64))),
    ("text file vocab_size", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.string, 0, t.int64, t.lookup.TextFileIndex.LINE_NUMBER, vocab_size=2),
        -1).lookup(t.constant(KEYS))),
    ("text file offset", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.string, 0, t.int64, t.lookup.TextFileIndex.LINE_NUMBER,
                                     value_index_offset=100), -1).lookup(t.constant(KEYS))),
    ("text file int32 column offset", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.string, 0, t.int32, 1, value_index_offset=5), -1).lookup(
        t.constant(KEYS))),
    ("vocabulary oov", lambda t, v: t.lookup.StaticVocabularyTable(
        _kv(t, ["a", "b"], t.constant([0, 1], t.int64)), 5).lookup(t.constant(["a", "b", "c", "dd", "emerson"]))),
    ("vocabulary size", lambda t, v: t.lookup.StaticVocabularyTable(
        _kv(t, ["a", "b"], t.constant([0, 1], t.int64)), 5).size()),
    ("vocabulary int keys", lambda t, v: t.lookup.StaticVocabularyTable(
        _kv(t, t.constant([7, 9], t.int64), t.constant([0, 1], t.int64)), 3).lookup(
        t.constant([7, 8, 9, 100, -4], t.int64))),
    ("vocabulary from file", lambda t, v: t.lookup.StaticVocabularyTable(
        t.lookup.TextFileInitializer(v, t.string, 0, t.int64, t.lookup.TextFileIndex.LINE_NUMBER), 2).lookup(
        t.constant(KEYS))),
    ("vocabulary sparse", lambda t, v: t.lookup.StaticVocabularyTable(
        _kv(t, ["a"], t.constant([0], t.int64)), 4).lookup(
        t.SparseTensor([[0, 1], [2, 2]], t.constant(["a", "zz"]), [3, 3]))),
    ("index_table_from_file oov", lambda t, v: _lookup_ops(t).index_table_from_file(
        v, num_oov_buckets=2, key_column_index=0).lookup(t.constant(KEYS))),
    ("index_table_from_tensor int", lambda t, v: _lookup_ops(t).index_table_from_tensor(
        t.constant([10, 20, 30], t.int64), num_oov_buckets=3, dtype=t.int64).lookup(t.constant([20, 7, 30], t.int64))),
    ("index_table_from_tensor default", lambda t, v: _lookup_ops(t).index_table_from_tensor(
        ["a", "b"], default_value=-5).lookup(t.constant(["b", "c"]))),
    ("index_to_string_table_from_file", lambda t, v: _lookup_ops(t).index_to_string_table_from_file(
        v, value_column_index=0).lookup(t.constant([2, 0, 9], t.int64))),
    ("index_to_string_table_from_tensor", lambda t, v: _lookup_ops(t).index_to_string_table_from_tensor(
        ["x", "y"], default_value="?").lookup(t.constant([1, 5], t.int64))),
    ("IdTableWithHashBuckets legacy", lambda t, v: _lookup_ops(t).IdTableWithHashBuckets(
        None, 7, hasher_spec=_lookup_ops(t).HasherSpec("legacy", None)).lookup(t.constant(["a", "bcd"]))),
    ("IdTableWithHashBuckets strong", lambda t, v: _lookup_ops(t).IdTableWithHashBuckets(
        t.lookup.StaticHashTable(_kv(t, ["a"], t.constant([0], t.int64)), -1), 5,
        hasher_spec=_lookup_ops(t).StrongHashSpec((11, 13))).lookup(t.constant(["a", "q", "zz"]))),
    ("hash bucket fast", lambda t, v: t.string_to_hash_bucket_fast(
        ["", "a", "bb", "x" * 17, "y" * 40, "z" * 100, "emerson"], 1000)),
    ("strings.to_hash_bucket_fast", lambda t, v: t.strings.to_hash_bucket_fast(t.constant([["a", "b"]]), 3)),
    ("hash bucket legacy", lambda t, v: t.string_to_hash_bucket(["", "a", "bb", "x" * 17, "emerson"], 1000)),
    ("strings.to_hash_bucket", lambda t, v: t.strings.to_hash_bucket(t.constant(["a", "bcdefghij"]), 5)),
    ("hash bucket strong", lambda t, v: t.string_to_hash_bucket_strong(
        ["", "a", "bbbbbbbb", "x" * 17, "emerson"], 1000, [1, 2])),
    ("as_string int", lambda t, v: t.as_string(t.constant([0, -5, 123], t.int64))),
    ("as_string float", lambda t, v: t.as_string(t.constant([1.5, -0.25], t.float32), precision=2)),
    ("as_string width fill", lambda t, v: t.as_string(t.constant([7, 42]), width=4, fill="0")),
    ("as_string bool", lambda t, v: t.as_string(t.constant([True, False]))),
]


def _run(lib, build, path):
    with lib.Graph().as_default(), lib.Session() as s:
        out = build(lib, path)
        s.run(lib.tables_initializer())
        return s.run(out)


@pytest.mark.parametrize("name,build", CASES, ids=[c[0] for c in CASES])
def test_tables_match_tf(name, build, vocab):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _run(tf, build, vocab), _run(ref, build, vocab)
    if hasattr(want, "indices"):
        np.testing.assert_array_equal(got.indices, want.indices)
        want, got = want.values, got.values
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tolist() == want.tolist()


def _mutable(t):
    m = t.lookup.experimental.MutableHashTable(t.string, t.int64, -1)
    mv = t.lookup.experimental.MutableHashTable(t.int64, t.float32, [0.0, 0.0], name="vec")
    dn = t.lookup.experimental.DenseHashTable(t.int64, t.int64, -1, -1, -2, initial_num_buckets=8)
    updates = [
        [m.insert(t.constant(["a", "b", "c"]), t.constant([1, 2, 3], t.int64)),
         mv.insert(t.constant([5, 6], t.int64), t.constant([[1.0, 2.0], [3.0, 4.0]]))],
        [m.remove(t.constant(["b"])), m.insert(t.constant(["c"]), t.constant([30], t.int64)),
         dn.insert(t.constant([1, 9, 17, 3, 4, 5, 6], t.int64), t.constant([10, 90, 170, 30, 40, 50, 60], t.int64))],
        [dn.erase(t.constant([9], t.int64))],
    ]
    ds = t.lookup.experimental.DenseHashTable(t.string, t.float32, -1.0, "", "$", initial_num_buckets=4,
                                             name="strings")
    updates.append([ds.insert(t.constant(["a", "bb", "ccc", "dddd"]), t.constant([1.0, 2.0, 3.0, 4.0]))])
    updates.append([ds.erase(t.constant(["bb"]))])
    reads = [ds.lookup(t.constant(["a", "bb", "dddd", "zz"])), ds.size(), m.lookup(t.constant(["a", "b", "c", "d"])), mv.lookup(t.constant([[5, 7], [6, 6]], t.int64)),
             m.lookup(t.constant(["a", "z"]), dynamic_default_values=t.constant([100, 200], t.int64)),
             dn.lookup(t.constant([1, 9, 17, 2], t.int64)), m.size(), mv.size(), dn.size()]
    return (m, mv, dn), updates, reads


def _mutable_run(lib):
    with lib.Graph().as_default(), lib.Session() as s:
        (m, mv, dn), updates, reads = _mutable(lib)
        for u in updates:
            s.run(u)
        got = s.run(reads)
        mk, mvals = s.run(m.export())
        dk, dv = s.run(dn.export())  # the bucket arrays, as TF lays them out
        sk, sv = s.run(lib.get_default_graph().get_collection(lib.GraphKeys.SAVEABLE_OBJECTS)[-1].op.export())
        return got, sorted(zip(mk.tolist(), mvals.tolist())), (dk.tolist(), dv.tolist()), (sk.tolist(), sv.tolist())


def test_mutable_tables_match_tf():
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _mutable_run(tf), _mutable_run(ref)
    for w, g in zip(want[0], got[0]):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)
    assert got[1:] == want[1:]


def _save(lib, directory):
    with lib.Graph().as_default(), lib.Session() as s:
        _, updates, _ = _mutable(lib)
        for u in updates:
            s.run(u)
        return lib.train.Saver().save(s, os.path.join(directory, "model"))


def _restore_and_read(lib, path):
    with lib.Graph().as_default(), lib.Session() as s:
        _, _, reads = _mutable(lib)
        lib.train.Saver().restore(s, path)
        return s.run(reads)


@pytest.mark.parametrize("writer,reader", [("tf", "ref"), ("ref", "tf"), ("ref", "ref")])
def test_mutable_table_checkpoint(writer, reader, tmp_path):
    """Saved as ``<name>-keys``/``<name>-values``; either library restores the other's checkpoint."""
    tf = pytest.importorskip("tensorflow").compat.v1
    libs = {"tf": tf, "ref": ref}
    path = _save(libs[writer], str(tmp_path))
    names = sorted(tf.train.NewCheckpointReader(path).get_variable_to_shape_map())
    assert names == ["MutableDenseHashTable-keys", "MutableDenseHashTable-values", "MutableHashTable-keys",
                     "MutableHashTable-values", "strings-keys", "strings-values", "vec-keys", "vec-values"]
    want = _restore_and_read(tf, _save(tf, str(tmp_path / "expected")))
    got = _restore_and_read(libs[reader], path)
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)


def test_saver_takes_a_table_in_var_list(tmp_path):
    with ref.Graph().as_default(), ref.Session() as s:
        m = ref.lookup.experimental.MutableHashTable(ref.string, ref.int64, -1, checkpoint=False)
        s.run(m.insert(ref.constant(["k"]), ref.constant([5], ref.int64)))
        path = ref.train.Saver({"my_table": m}).save(s, str(tmp_path / "m"))
    assert sorted(ref.train.NewCheckpointReader(path).get_variable_to_shape_map()) == ["my_table-keys",
                                                                                        "my_table-values"]


def test_collections_and_initializer():
    with ref.Graph().as_default():
        assert ref.tables_initializer().type == "NoOp"
        table = ref.lookup.StaticHashTable(_kv(ref, ["a"], ref.constant([1], ref.int64)), -1)
        assert ref.get_collection(ref.GraphKeys.TABLE_INITIALIZERS) == [table.initializer]
        assert table.initializer.type == "LookupTableImportV2"
        init = ref.initialize_all_tables()
        assert init.type == "NoOp" and init.name == "init_all_tables_1"
        assert list(init.control_inputs) == [table.initializer]
        assert ref.initializers.tables_initializer is ref.tables_initializer
        assert table.name == "hash_table" and table.key_dtype == ref.string and table.value_dtype == ref.int64
        m = ref.lookup.experimental.MutableHashTable(ref.int64, ref.int64, 0)
        assert m.name == "MutableHashTable"
        assert len(ref.get_collection(ref.GraphKeys.SAVEABLE_OBJECTS)) == 1


# (name, build(tf, vocab) -> op to run, error class name, message regex): run-time failures, as TF raises them.
RUN_ERRORS = [
    ("not initialized", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, ["a"], t.constant([1], t.int64)), -1).lookup(t.constant(["a"])), "FailedPreconditionError",
     "Table not initialized"),
    ("duplicate key", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, ["a", "a"], t.constant([1, 2], t.int64)), -1).initializer, "FailedPreconditionError",
     "HashTable has different value for same key. Key a has 1 and trying to add value 2"),
    ("vocab_size too large", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.string, 0, t.int64, 1, vocab_size=5), -1).initializer,
     "InvalidArgumentError", "Invalid vocab_size in .*: expected 5 but got 3"),
    ("too few columns", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.string, 0, t.int64, 4), -1).initializer,
     "InvalidArgumentError", "Invalid number of columns in .* line 0 .* expected at least 5 got 3"),
    ("bad number", lambda t, v: t.lookup.StaticHashTable(
        t.lookup.TextFileInitializer(v, t.int64, 0, t.int64, 1), -1).initializer,
     "InvalidArgumentError", "Field emerson in line 0 is not a valid int64"),
    ("insert shape", lambda t, v: t.lookup.experimental.MutableHashTable(t.int64, t.int64, 0).insert(
        t.constant([1, 2], t.int64), t.constant([1], t.int64)), "InvalidArgumentError",
     r"Expected shape \[2\] for value, got \[1\]"),
    ("dense empty key", lambda t, v: t.lookup.experimental.DenseHashTable(
        t.int64, t.int64, 0, -1, -2, initial_num_buckets=4).insert(t.constant([-1], t.int64), t.constant([1], t.int64)),
     "InvalidArgumentError", "Using the empty_key as a table key is not allowed"),
    ("empty initializer", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, t.constant([], t.string), t.constant([], t.int64)), -1).initializer, "InvalidArgumentError",
     "keys and values cannot be empty tensors"),
    ("unregistered dtypes", lambda t, v: t.lookup.StaticHashTable(
        _kv(t, t.constant([1]), t.constant([2], t.int64)), -1).initializer, "InvalidArgumentError",
     "No OpKernel was registered to support Op 'HashTableV2'"),
    ("dense buckets", lambda t, v: t.lookup.experimental.DenseHashTable(
        t.int64, t.int64, 0, -1, -2, initial_num_buckets=6).size(), "InvalidArgumentError",
     "Number of buckets must be at least 4 and a power of 2, got: 6"),
]


@pytest.mark.parametrize("name,build,error,message", RUN_ERRORS, ids=[c[0] for c in RUN_ERRORS])
def test_run_time_errors_match_tf(name, build, error, message, vocab):
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf, ref):
        with lib.Graph().as_default(), lib.Session() as s:
            op = build(lib, vocab)
            with pytest.raises(getattr(lib.errors, error), match=message):
                s.run(op)


def test_empty_line_is_an_error(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("a\n\nb\n")
    with ref.Graph().as_default(), ref.Session() as s:
        t = ref.lookup.StaticHashTable(ref.lookup.TextFileInitializer(
            str(path), ref.string, -2, ref.int64, -1), -1)
        with pytest.raises(ref.errors.InvalidArgumentError, match="empty line found"):
            s.run(t.initializer)


def test_reinitialising_with_the_same_data_is_a_no_op():
    with ref.Graph().as_default(), ref.Session() as s:
        t = ref.lookup.StaticHashTable(_kv(ref, ["a"], ref.constant([1], ref.int64)), -1)
        s.run(t.initializer)
        s.run(t.initializer)
        assert s.run(t.lookup(ref.constant(["a"]))).tolist() == [1]


@pytest.mark.parametrize("call,error", [
    (lambda t: t.lookup.StaticVocabularyTable(_kv(t, ["a"], t.constant([0], t.int64)), 0), ValueError),
    (lambda t: t.lookup.StaticHashTable(_kv(t, ["a"], t.constant([0], t.int64)), -1).lookup(t.constant([1])),
     TypeError),
    (lambda t: t.lookup.TextFileInitializer("f", t.string, -1, t.int64, 0), ValueError),
    (lambda t: t.lookup.TextFileInitializer("f", t.string, 0, t.int32, -1), ValueError),
    (lambda t: t.lookup.TextFileInitializer("", t.string, 0, t.int64, 1), ValueError),
    (lambda t: t.lookup.TextFileInitializer("f", t.string, 0, t.int64, 1, vocab_size=0), ValueError),
    (lambda t: t.lookup.StaticVocabularyTable(_kv(t, ["a"], t.constant([0], t.int32)), 2), TypeError),
    (lambda t: _lookup_ops(t).StrongHashSpec([1, 2, 3]), ValueError),
    (lambda t: _lookup_ops(t).StrongHashSpec([1, "2"]), TypeError),
    (lambda t: _lookup_ops(t).index_table_from_file(None), ValueError),
    (lambda t: t.lookup.StaticHashTable(t.lookup.KeyValueTensorInitializer(
        t.constant(["a", "b"]), t.constant([0, 1, 2], t.int64)), -1), ValueError),
    (lambda t: t.lookup.StaticHashTable(t.lookup.TextFileInitializer(
        t.constant(["f", "g"]), t.string, -2, t.int64, -1), -1), ValueError),
])
def test_construction_errors_match_tf(call, error):
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf, ref):
        with lib.Graph().as_default(), pytest.raises(error):
            call(lib)


class _CheckpointedOp:
    """TF's saver_test_utils.CheckpointedOp: a raw MutableHashTableV2 with a
    custom SaveableObject (the pattern of TF's saver_test basicSaveRestore)."""

    def __init__(self, lib, name):
        from ref.framework.op_def_library import apply_op as ref_apply
        real = pytest.importorskip("tensorflow")
        self.lib, self.name = lib, name
        if lib is ref:
            self.op = lambda op_type, **kw: ref_apply(op_type, **kw)
        else:
            self.op = lambda op_type, **kw: getattr(real.raw_ops, op_type)(**kw)
        self.table_ref = self.op("MutableHashTableV2", key_dtype=lib.string, value_dtype=lib.float32, name=name)
        if lib is ref:
            builder = ref.train.BaseSaverBuilder
        else:
            import importlib
            builder = importlib.import_module("tensorflow.python.training.saver").BaseSaverBuilder
        outer = self

        class CustomSaveable(builder.SaveableObject):
            def __init__(self, table, name):
                keys, values = table.export()
                super().__init__(table, [builder.SaveSpec(keys, "", name + "-keys"),
                                         builder.SaveSpec(values, "", name + "-values")], name)

            def restore(self, restored_tensors, shapes):
                return outer.op("LookupTableImportV2", table_handle=outer.table_ref, keys=restored_tensors[0],
                                values=restored_tensors[1])
        self.saveable = CustomSaveable(self, name)
        lib.add_to_collection(lib.GraphKeys.SAVEABLE_OBJECTS, self.saveable)

    def insert(self, k, v):
        return self.op("LookupTableInsertV2", table_handle=self.table_ref, keys=self.lib.constant(k),
                       values=self.lib.constant(v))

    def export(self):
        return self.op("LookupTableExportV2", table_handle=self.table_ref, Tkeys=self.lib.string,
                       Tvalues=self.lib.float32)


def test_custom_saveable_over_a_raw_table(tmp_path):
    """TF's saver_test ``basicSaveRestore``: a raw MutableHashTableV2 saved through a custom SaveableObject."""
    tf = pytest.importorskip("tensorflow").compat.v1
    results = {}
    for name, lib in (("tf", tf), ("ref", ref)):
        path = str(tmp_path / name / "ck")
        with lib.Graph().as_default(), lib.Session() as s:
            v2 = _CheckpointedOp(lib, "v2")
            s.run(v2.insert("k1", 30.0))
            lib.train.Saver({"v2": v2.saveable}).save(s, path)
        with lib.Graph().as_default(), lib.Session() as s:
            v2 = _CheckpointedOp(lib, "v2")
            empty = s.run(v2.export())
            s.run(v2.insert("k1000", 3000.0))
            lib.train.Saver({"v2": v2.saveable}).restore(s, path)
            results[name] = (empty[0].tolist(), s.run(v2.export()))
    assert results["ref"][0] == results["tf"][0] == []
    assert [x.tolist() for x in results["ref"][1]] == [x.tolist() for x in results["tf"][1]] == [[b"k1"], [30.0]]
