"""Build one TF1 snippet under ``ref`` and under ``tensorflow.compat.v1`` (TF1
behaviour: reference variables, TF1 control flow, no tensor equality, set for
the snippet only) and compare the two GraphDefs node for node.

A snippet is ``snippet(tf) -> None``; it builds into a fresh default graph.
A node is compared by name, op, data inputs in order, control inputs in order (a GraphDef sorts them by name),
and its attrs; nodes are compared in creation order (so op ids, hence op seeds
of random ops without an op seed, agree). Tensor attrs are compared by dtype,
shape and values (TF may write the same tensor as ``tensor_content`` or as a
repeated field; both read back the same).

Deliberate exclusions (``EXCLUDED_ATTRS``): ``_has_manual_control_dependencies``,
which TF 2 sets on an op after it was created, when the op becomes a control
input (a marker for ``tf.function``'s automatic control dependencies; a TF1
graph runs the same without it, and ref's operations are immutable once
made). Every other attr TF writes is compared. Two attrs only ref writes are
skipped too (``REF_PRIVATE_ATTRS``): ``_fsync`` on the Saver's ``SaveV2`` and
``_ref_shape`` on its restore ``Assign`` ops -- underscore attrs, which TF
ignores on import, that keep ref's Saver behaviour (durable writes, TF's
shape check of an uninitialized variable) across a meta-graph round trip. Attrs whose
value is TF's registered default may be left out by either side (TF writes
every attr of the op def; a GraphDef read back with a default filled in is the
same graph), so a key missing on one side is compared with the op def's
default. A function attr naming a traced function (``__inference_<name>_<n>``,
a dataset op's ``f``) is compared without the final ``_<n>``, TF's
process-wide uid counter; a one-shot iterator's ``dataset_factory``
(``_make_dataset_<hash>``, the hash a fingerprint of a body holding such uids) is
compared without the hash; a ``shared_name`` ending in a uuid4 (a lookup table's,
which TF draws anew per table, so two TF runs differ) is compared with the
uuid masked.
"""
import contextlib
import os
import re

import numpy as np
import pytest

# tf.compat.v1.layers needs the Keras 2 package (tf-keras); read when first used.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

EXCLUDED_ATTRS = ("_has_manual_control_dependencies",)
_FUNC_COUNTER = re.compile(r"_\d+$")
_DEFUN_HASH = re.compile(r"^(_make_dataset)_[A-Za-z0-9_-]{11}$")
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
REF_PRIVATE_ATTRS = ("_fsync", "_ref_shape")


def tf_v1():
    return pytest.importorskip("tensorflow").compat.v1


@contextlib.contextmanager
def tf1_behaviour():
    """TF1's builders without touching eager mode (the graph is built inside a
    ``tf.Graph``): reference variables, v1 control flow, v1 shapes, ``==`` by
    identity. Restored on exit."""
    from tensorflow.python import tf2
    from tensorflow.python.framework import tensor, tensor_shape
    from tensorflow.python.ops import control_flow_util, resource_variables_toggle as rv

    saved = (tf2.enabled(), rv.resource_variables_enabled(), control_flow_util.ENABLE_CONTROL_FLOW_V2,
             tensor.Tensor._USE_EQUALITY, tensor_shape._TENSORSHAPE_V2_OVERRIDE)
    tf2.disable()
    rv.disable_resource_variables()
    control_flow_util.ENABLE_CONTROL_FLOW_V2 = False
    tensor.Tensor._USE_EQUALITY = False
    tensor_shape._TENSORSHAPE_V2_OVERRIDE = False
    try:
        yield
    finally:
        (tf2.enable if saved[0] else tf2.disable)()
        (rv.enable_resource_variables if saved[1] else rv.disable_resource_variables)()
        (control_flow_util.ENABLE_CONTROL_FLOW_V2, tensor.Tensor._USE_EQUALITY,
         tensor_shape._TENSORSHAPE_V2_OVERRIDE) = saved[2:]


def graph_def(lib, snippet):
    """The snippet's GraphDef as TF's protobuf class (ref's parsed from its bytes)."""
    from tensorflow.core.framework import graph_pb2

    tf = tf_v1()
    ctx = tf1_behaviour() if lib is tf else contextlib.nullcontext()
    with ctx:
        g = lib.Graph()
        with g.as_default():
            snippet(lib)
        gd = g.as_graph_def()
    out = graph_pb2.GraphDef()
    out.ParseFromString(gd.SerializeToString())
    return out


def fetched_values(lib, snippet, seed=None):
    """``snippet(lib)``'s fetches run once in a fresh graph of ``lib`` after its
    global and local variables are initialized (TensorFlow under TF1 behaviour);
    ``seed``: the graph seed set before the snippet builds."""
    is_ref = lib.__name__.startswith("ref")
    with (contextlib.nullcontext() if is_ref else tf1_behaviour()), lib.Graph().as_default():
        if seed is not None:
            lib.set_random_seed(seed)
        outs = snippet(lib)
        with lib.Session() as s:
            s.run([lib.global_variables_initializer(), lib.local_variables_initializer()])
            return s.run(outs)


def graph_only(snippet):
    """A snippet returning ``(fetches, feeds)`` as one that only builds (for :func:`assert_same_graph`)."""
    return lambda tf: snippet(tf) and None


def fed_values(lib, snippet):
    """``snippet(lib)`` returns ``(fetches, feeds)``: the fetches run once, fed, in a fresh
    graph of ``lib`` (TensorFlow under TF1 behaviour)."""
    is_ref = lib.__name__.startswith("ref")
    with (contextlib.nullcontext() if is_ref else tf1_behaviour()), lib.Graph().as_default() as g:
        fetches, feeds = snippet(lib)
        with lib.Session(graph=g) as sess:
            return sess.run(fetches, feed_dict=feeds)


def ref_and_tf_values(snippet, seed=None):
    """(ref's values, TF's values) of :func:`fetched_values`."""
    import ref
    return fetched_values(ref, snippet, seed), fetched_values(tf_v1(), snippet, seed)


def _op_defaults(op_type):
    from tensorflow.python.framework import op_def_registry

    op_def = op_def_registry.get(op_type)
    if op_def is None:
        return {}
    return {a.name: a.default_value for a in op_def.attr if a.HasField("default_value")}


def _attr(value):
    from tensorflow.python.framework import tensor_util

    if value.HasField("tensor"):
        a = tensor_util.MakeNdarray(value.tensor)
        if a.dtype.kind in "fc":  # NaN == NaN here: compare the bits' pattern, not IEEE equality
            return ("tensor", a.dtype.str, a.shape, np.where(np.isnan(a), "nan", a.astype(object)).tolist())
        return ("tensor", a.dtype.str, a.shape, a.tolist())
    return value.SerializeToString(deterministic=True)


def describe(node):
    """(name, op, data inputs, control inputs (in the GraphDef's order), {attr: value}) of one NodeDef."""
    data = [i for i in node.input if not i.startswith("^")]
    control = [i for i in node.input if i.startswith("^")]  # in order: a GraphDef sorts them by name
    attrs = {k: _attr(v) for k, v in node.attr.items() if k not in EXCLUDED_ATTRS + REF_PRIVATE_ATTRS}
    for k, v in node.attr.items():
        if v.HasField("func") and _FUNC_COUNTER.search(v.func.name) and v.func.name.startswith("__inference_"):
            # a traced function's name ends in TF's process-wide uid counter
            attrs[k] = ("func", _FUNC_COUNTER.sub("", v.func.name), sorted(v.func.attr))
        elif v.HasField("func") and _DEFUN_HASH.match(v.func.name):
            # a Defun's function is named "<base>_<hash>"; TF's hash covers nested functions' uids
            attrs[k] = ("defun", _DEFUN_HASH.match(v.func.name).group(1), sorted(v.func.attr))
    if node.attr["_gradient_op_type"].s.startswith(b"CustomGradient-"):
        # a custom gradient's rule name ends in a process-wide uid (TF's ops.uid(), ref's own)
        attrs["_gradient_op_type"] = ("custom_gradient", int(node.attr["_gradient_op_type"].s.rsplit(b"-", 1)[1]))
    if "shared_name" in node.attr and _UUID.search(node.attr["shared_name"].s):
        # a lookup table's shared_name ends in a uuid4 TF draws per table (two TF runs differ too)
        attrs["shared_name"] = ("uuid", _UUID.sub(b"<uuid4>", node.attr["shared_name"].s))
    if node.op in _PY_FUNC_OPS and node.attr["token"].s.startswith(b"pyfunc_"):
        attrs["token"] = ("pyfunc", int(node.attr["token"].s.rsplit(b"_", 1)[1]))
    for k, v in _op_defaults(node.op).items():
        attrs.setdefault(k, _attr(v))
    return node.name, node.op, data, control, attrs


def _py_func_tokens_from_zero(described):
    """A py_func's ``token`` is "pyfunc_<n>" with n from a process-wide counter (TF's
    FuncRegistry, ref's too): counted from the graph's first one instead. A custom
    gradient's ``_gradient_op_type`` ("CustomGradient-<uid>") takes TF's ``ops.uid()``,
    which other constructs advance too: it is compared by its rank in the graph."""
    for key in ("token", "_gradient_op_type"):
        tokens = sorted({d[4][key][1] for d in described if isinstance(d[4].get(key), tuple)})
        if not tokens:
            continue
        renumber = {t: (t - tokens[0] if key == "token" else i) for i, t in enumerate(tokens)}
        out = []
        for d in described:
            if isinstance(d[4].get(key), tuple):
                d = d[:4] + (dict(d[4], **{key: (d[4][key][0], renumber[d[4][key][1]])}),)
            out.append(d)
        described = out
    return described


_PY_FUNC_OPS = ("PyFunc", "PyFuncStateless", "EagerPyFunc")


def differences(ref_gd, tf_gd, limit=12):
    """Readable lines for every node where the two GraphDefs differ ([] when equal)."""
    got = _py_func_tokens_from_zero([describe(n) for n in ref_gd.node])
    want = _py_func_tokens_from_zero([describe(n) for n in tf_gd.node])
    lines = []
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else None
        w = want[i] if i < len(want) else None
        if g == w:
            continue
        if g is None or w is None or g[:4] != w[:4]:
            lines.append(f"node {i}: ref {g[:4] if g else None} tf {w[:4] if w else None}")
        else:
            keys = sorted(set(g[4]) | set(w[4]))
            bad = [k for k in keys if g[4].get(k) != w[4].get(k)]
            lines.append(f"node {i} {w[0]}: attrs {bad}: ref {[g[4].get(k) for k in bad]} "
                         f"tf {[w[4].get(k) for k in bad]}")
        if len(lines) >= limit:
            break
    return lines


def assert_same_graph(snippet):
    import ref

    tf = tf_v1()
    want = graph_def(tf, snippet)
    got = graph_def(ref, snippet)
    diff = differences(got, want)
    assert not diff, f"{len(got.node)} ref nodes, {len(want.node)} tf nodes\n" + "\n".join(diff)
