"""``strip_default_attrs``: an attr equal to its op definition's default is left
out of the exported GraphDef, type attrs included (``Complex``'s ``T``,
``Sum``'s ``Tidx``), as TF's ``export_scoped_meta_graph`` leaves it out.

Oracle: TensorFlow. Each row builds one snippet under ref and under
``tensorflow.compat.v1`` (TF1 behaviour), exports it with
``strip_default_attrs=True`` (and False) and compares, node by node, the attr
names kept. A second table checks ref's type-attr defaults against TF's op
definitions for every op both declare."""
import contextlib
import os
import sys

import pytest

import ref
from ref.checkpoint import meta_graph as _under_test  # noqa: F401
from ref.ops import registry

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "graph_ops"))
from _graphdef import tf1_behaviour, tf_v1  # noqa: E402

# ref-only underscore attrs (see tests/graph_ops/_graphdef.py) and TF 2's marker attr
PRIVATE = ("_fsync", "_ref_shape", "_has_manual_control_dependencies")


def _complex(dtype):
    def snippet(tf):
        tf.complex(tf.constant(1.0, dtype), tf.constant(2.0, dtype), name="c")
    return snippet


def _sum(index_dtype):
    def snippet(tf):
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        tf.reduce_sum(x, tf.constant([1], index_dtype), name="s")
    return snippet


def _pad_reshape_concat(tf):
    x = tf.constant([[1.0, 2.0]])
    p = tf.pad(x, [[1, 0], [0, 1]], name="p")
    r = tf.reshape(p, [-1], name="r")
    tf.concat([r, r], 0, name="cat")
    tf.argmax(x, 1, name="am")
    tf.expand_dims(x, 0, name="ed")
    tf.fill([2, 3], 1.5, name="f")


def _int64_indices(tf):
    x = tf.constant([[1.0, 2.0]])
    tf.pad(x, tf.constant([[1, 0], [0, 1]], tf.int64), name="p")
    tf.reshape(x, tf.constant([-1], tf.int64), name="r")
    tf.argmax(x, 1, output_type=tf.int64, name="am")


ROWS = {
    "complex_float32": _complex("float32"),
    "complex_float64": _complex("float64"),
    "sum_int32_axis": _sum("int32"),
    "sum_int64_axis": _sum("int64"),
    "pad_reshape_concat_argmax": _pad_reshape_concat,
    "int64_index_inputs": _int64_indices,
}


def _attr_names(tf, snippet, strip):
    ctx = tf1_behaviour() if tf is not ref else contextlib.nullcontext()
    with ctx, tf.Graph().as_default():
        snippet(tf)
        mgd, _ = tf.train.export_meta_graph(strip_default_attrs=strip), None
    nodes = {n.name: sorted(k for k in n.attr if k not in PRIVATE) for n in mgd.graph_def.node}
    return nodes, mgd.meta_info_def.stripped_default_attrs


@pytest.mark.parametrize("strip", [True, False])
@pytest.mark.parametrize("name", sorted(ROWS))
def test_kept_attrs_match_tf(name, strip):
    tf = tf_v1()
    got, got_flag = _attr_names(ref, ROWS[name], strip)
    want, want_flag = _attr_names(tf, ROWS[name], strip)
    assert got == want
    assert got_flag == want_flag == strip


def test_stripped_graph_imports_and_runs():
    with ref.Graph().as_default():
        _complex("float32")(ref)
        mgd = ref.train.export_meta_graph(strip_default_attrs=True)
    with ref.Graph().as_default() as g:
        ref.train.import_meta_graph(mgd)
        c = g.get_tensor_by_name("c:0")
        assert c.dtype == ref.complex64
        with ref.Session() as sess:
            assert sess.run(c) == 1 + 2j


OPS = sorted(registry.registered())


def test_type_attr_defaults_match_tf():
    pytest.importorskip("tensorflow")
    from tensorflow.python.framework import dtypes as tf_dtypes, op_def_registry
    mismatched = []
    for name in OPS:
        tf_def = op_def_registry.get(name)
        if tf_def is None:
            continue
        declared = registry.get(name).attrs
        want = {a.name: tf_dtypes.as_dtype(a.default_value.type).name for a in tf_def.attr
                if a.type == "type" and a.HasField("default_value") and a.name not in declared}
        got = {k: v.name for k, v in registry.type_defaults(name).items()}
        if got != want:
            mismatched.append((name, got, want))
    assert not mismatched, mismatched[:10]
