"""tf.graph_util against TF: extract_sub_graph, remove_training_nodes,
convert_variables_to_constants, must_run_on_cpu, on GraphDefs built by TF and
parsed into ref's protos (the same bytes in, the same nodes out)."""
import numpy as np
import pytest

import ref.framework  # noqa: F401  (the package these tests cover)
import ref
from ref.protos import graph_pb2


def _tf_graph(tf):
    with tf.Graph().as_default() as g:
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        c = tf.add(a, b, name="c")
        tf.identity(c, name="d")
        ident = tf.identity(a, name="ident")
        cn = tf.debugging.check_numerics(ident, "m", name="check")
        sg = tf.stop_gradient(ident, name="sg")
        tf.add(cn, 1.0, name="after_check")
        with tf.control_dependencies([ident]):
            tf.multiply(sg, 2.0, name="e")
        tf.multiply(tf.identity(b, name="prot"), 3.0, name="f")
    return g.as_graph_def()


def _nodes(gd):
    return [(n.name, n.op, list(n.input)) for n in gd.node]


def _both(tf, fn):
    tgd = _tf_graph(tf)
    rgd = graph_pb2.GraphDef.FromString(tgd.SerializeToString())
    return fn(tf, tgd), fn(ref, rgd)


EXTRACT = [["d"], ["e"], ["c", "f"], ["a"]]


@pytest.mark.parametrize("dest", EXTRACT, ids=["-".join(d) for d in EXTRACT])
def test_extract_sub_graph(dest):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _both(tf, lambda lib, gd: _nodes(lib.graph_util.extract_sub_graph(gd, dest)))
    assert got == want


@pytest.mark.parametrize("bad", [("d", TypeError), (["nope"], AssertionError)])
def test_extract_sub_graph_errors(bad):
    tf = pytest.importorskip("tensorflow").compat.v1
    dest, kind = bad
    for lib, gd in zip((tf, ref), (_tf_graph(tf), graph_pb2.GraphDef.FromString(_tf_graph(tf).SerializeToString()))):
        with pytest.raises(kind):
            lib.graph_util.extract_sub_graph(gd, dest)


@pytest.mark.parametrize("protected", [None, ["prot"], ["ident", "sg"]])
def test_remove_training_nodes(protected):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _both(tf, lambda lib, gd: _nodes(lib.graph_util.remove_training_nodes(gd, protected)))
    assert got == want


def test_must_run_on_cpu():
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _both(tf, lambda lib, gd: [lib.graph_util.must_run_on_cpu(n, p) for n in gd.node for p in (0, 1)])
    assert got == want


@pytest.mark.parametrize("blacklist", [None, ["w"]])
@pytest.mark.parametrize("use_resource", [False, True])
def test_convert_variables_to_constants(use_resource, blacklist):
    tf = pytest.importorskip("tensorflow").compat.v1
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default() as g:
            v = lib.get_variable("v", initializer=np.float32([[1.0, 2.0], [3.0, 4.0]]), use_resource=use_resource)
            w = lib.get_variable("w", initializer=np.float32(5.0), use_resource=use_resource)
            x = lib.placeholder(lib.float32, [None, 2], name="x")
            lib.identity(lib.matmul(x, v) * w, name="out")
            with lib.Session() as s:
                s.run(lib.global_variables_initializer())
                frozen = lib.graph_util.convert_variables_to_constants(s, g.as_graph_def(), ["out"],
                                                                       variable_names_blacklist=blacklist)
        ops = sorted((n.name, n.op) for n in frozen.node if n.name in ("v", "w") or n.op == "Const")
        if blacklist:
            out.append(ops)
            continue
        with lib.Graph().as_default():
            gd = graph_pb2.GraphDef.FromString(frozen.SerializeToString()) if lib is ref else frozen
            (o,) = lib.import_graph_def(gd, return_elements=["out:0"], name="")
            with lib.Session() as s:
                out.append((ops, s.run(o, {"x:0": np.float32([[1.0, 1.0]])}).tolist()))
    assert out[0] == out[1]
