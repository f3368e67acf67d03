"""import_graph_def against TF: argument checks, input types, node renaming,
colocation and devices, ``_output_shapes``, unused input_map keys. Each row runs
the same snippet on ref and on ``tensorflow.compat.v1`` and compares what it
observes (names, devices, or the error's kind and TF's message)."""
import re

import pytest
from google.protobuf import text_format

from ref.framework import importer as _under_test  # noqa: F401
import ref

PH_INT = "node { name: 'A' op: 'Placeholder' attr { key: 'dtype' value { type: DT_INT32 } } }"
PH_FLOAT = "node { name: 'A' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } }"
ID_FLOAT = "node { name: 'B' op: 'Identity' input: 'A:0' attr { key: 'T' value { type: DT_FLOAT } } }"
NOOP = "node {{ name: '{0}' op: 'NoOp' {1} }}"


def _gd(tf, text):
    gd = tf.GraphDef()
    text_format.Merge(text, gd)
    return gd


def _coloc(*names):
    return "attr { key: '_class' value { list { " + " ".join(f"s: 'loc:@{n}'" for n in names) + " } } }"


def _imp(text, **kw):
    """Imports ``text`` into a fresh graph; the returned ops' names."""
    def run(tf):
        with tf.Graph().as_default():
            out = tf.import_graph_def(_gd(tf, text), **kw)
            return None if out is None else [x.name for x in out]
    return run


def _twice(tf):
    """name="" twice, then a GraphDef naming a node after an existing scope."""
    with tf.Graph().as_default():
        gd = _gd(tf, PH_FLOAT + ID_FLOAT)
        names = [x.name for _ in range(3) for x in tf.import_graph_def(gd, return_elements=["A", "B"], name="")]
        with tf.name_scope("foo"):
            tf.constant(1)
        with tf.name_scope("unused"):
            pass
        names += [x.name for x in tf.import_graph_def(_gd(tf, NOOP.format("foo", "") + NOOP.format("unused", "")),
                                                      return_elements=["foo", "unused"], name="")]
        return names


def _placed(text, device_fn=None, name="imported"):
    """(name, device, colocation groups) of every imported op."""
    def run(tf):
        with tf.Graph().as_default():
            with tf.device(device_fn):
                tf.import_graph_def(_gd(tf, text), name=name)
            return [(op.name, op.device, op.colocation_groups()) for op in tf.get_default_graph().get_operations()]
    return run


def _two_input_ops(tf):
    """The ops a device function sees with two inputs while a graph is imported."""
    with tf.Graph().as_default() as g:
        a = tf.constant(1.0)
        _ = a + a
        _ = tf.identity(a)
    gd = g.as_graph_def()
    seen = []
    with tf.Graph().as_default():
        with tf.device(lambda op: (seen.append(op.name) if len(op.inputs) == 2 else None, "")[1]):
            tf.import_graph_def(gd)
    return seen


def _input_types(tf):
    with tf.Graph().as_default() as g:
        v = tf.Variable(1.0, name="v", use_resource=False)
        tf.assign(v, 2.0, name="set")
        _ = v + 1.0
    gd = g.as_graph_def()
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(gd, name="")
        return [(op.name, [d.name for d in op._input_types]) for op in g2.get_operations() if op.type in ("Assign",
                                                                                                          "AddV2")]


def _map(key_value):
    def run(tf):
        with tf.Graph().as_default():
            value = tf.constant(5.0) if key_value == "const" else tf.Variable(5.0, use_resource=False)
            out = tf.import_graph_def(_gd(tf, PH_FLOAT + ID_FLOAT), input_map={b"A:0": value}, return_elements=["B"],
                                      name="" if key_value == "variable" else "imp")
            return [t.name for t in out[0].inputs]
    return run


def _unused_output(tf):
    with tf.Graph().as_default():
        tf.import_graph_def(_gd(tf, PH_FLOAT), input_map={"A:2": tf.constant(5.0)})


def _bad_arg(**kw):
    def run(tf):
        with tf.Graph().as_default():
            args = dict(kw)
            tf.import_graph_def(args.pop("graph_def", None) or _gd(tf, PH_FLOAT), **args)
    return run


# (row id, snippet, None (results equal) or (error kind, a regex both messages match))
ROWS = [
    ("type_mismatch", _imp(PH_INT + ID_FLOAT),
     ("ValueError", r"Input 0 of node import/B was passed int32 from import/A:0 incompatible with expected float\.")),
    ("too_many_inputs", _imp(PH_FLOAT + ID_FLOAT.replace("input: 'A:0'", "input: 'A:0' input: 'A:0'")),
     ("ValueError", "NodeDef expected inputs 'float' do not match 2 inputs specified")),
    ("not_a_graph_def", _bad_arg(graph_def=7), ("TypeError", "^Argument `graph_def` must be a GraphDef proto\\.$")),
    ("input_map_list", _bad_arg(input_map=[1]),
     ("TypeError", "^Argument `input_map` must be a dictionary. Obtained list$")),
    ("input_map_int_key", _bad_arg(input_map={1: 2}),
     ("TypeError", r"^All keys for argument `input_map` must be strings\. Obtained keys: \[1\]$")),
    ("return_elements_ints", _bad_arg(return_elements=[1]),
     ("TypeError", r"^Argument `return_elements` must be a list of strings\. Obtained \[1\]\.$")),
    ("return_bad_index", _imp(PH_FLOAT, return_elements=["A:1"]),
     ("ValueError", r"^Invalid return output 1 of node 'A', which has 1 output\(s\)")),
    ("return_two_colons", _imp(PH_FLOAT, return_elements=["A:B:0"]),
     ("ValueError", "^Cannot convert 'A:B:0' to a tensor name. Tensor names should not contain more than 1 `:`. "
                    "Obtained 2$")),
    ("return_bytes", _imp(PH_FLOAT + ID_FLOAT, return_elements=[b"A", b"B:0"]), None),
    ("input_map_bytes_key", _map("const"), None),
    ("input_map_variable_needs_name", _map("variable"),
     ("ValueError", "^tf.import_graph_def\\(\\) requires a non-empty `name` if `input_map` contains non-Tensor")),
    ("input_map_unused_output", _unused_output,
     ("ValueError", r"^Attempted to map inputs that were not found in graph_def: \[A:2\]$")),
    ("renamed_on_clash", _twice, None),
    ("colocated_takes_device", _placed(NOOP.format("A", "device: '/device:CPU:0' " + _coloc("A"))
                                       + NOOP.format("B", _coloc("A")), name=""), None),
    ("colocated_own_device_dropped", _placed(NOOP.format("A", _coloc("A"))
                                             + NOOP.format("B", "device: '/device:CPU:0' " + _coloc("A"))), None),
    ("colocated_device_fn", _placed(NOOP.format("A", "") + NOOP.format("B", "") + NOOP.format("C", _coloc("A", "B")),
                                    device_fn=lambda op: "/device:B:0" if "B" in op.name else ""), None),
    ("colocated_unknown", _placed(NOOP.format("B", _coloc("A"))),
     ("ValueError", "^Node 'B' expects to be colocated with unknown node 'A'")),
    ("output_shapes_inconsistent",
     _imp(PH_FLOAT + "node { name: 'B' op: 'L2Loss' input: 'A:0' attr { key: 'T' value { type: DT_FLOAT } } "
          "attr { key: '_output_shapes' value { list { shape { dim { size: 43 } } } } } }"),
     ("ValueError", r"Node 'import/B' has an _output_shapes attribute inconsistent with the GraphDef for output #0")),
    ("device_fn_sees_inputs", _two_input_ops, None),
    ("input_types", _input_types, None),
]


def _observe(tf, snippet):
    try:
        return "ok", snippet(tf)
    except (TypeError, ValueError) as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize("snippet, error", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_import_graph_def_as_tf(snippet, error):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _observe(tf, snippet), _observe(ref, snippet)
    if error is None:
        assert want[0] == "ok", want
        assert got == want
    else:
        kind, pattern = error
        assert want[0] == kind and re.search(pattern, want[1]), want  # the row states TF's behaviour
        assert got[0] == kind and re.search(pattern, got[1]), got
