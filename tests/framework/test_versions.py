"""GraphDef version numbers and import_graph_def's version gate, against TF."""
import pytest

import ref.framework  # noqa: F401  (the package these tests cover)
import ref

NAMES = ["GRAPH_DEF_VERSION", "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER"]


@pytest.mark.parametrize("name", NAMES)
def test_version_numbers_are_tfs(name):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert getattr(ref, name) == getattr(tf, name)


VERSIONS = [
    ("ok", dict(producer=5)),
    ("old_producer", dict(producer=-1)),
    ("new_consumer", dict(producer=30, min_consumer=10 ** 6)),
    ("bad_consumer", dict(producer=30, bad_consumers=["GRAPH_DEF_VERSION"])),
]


def _import(tf, kw, existing):
    kw = {k: ([tf.GRAPH_DEF_VERSION] if v == ["GRAPH_DEF_VERSION"] else v) for k, v in kw.items()}
    with tf.Graph().as_default() as g:
        if existing:
            tf.constant(1.0)
        gd = tf.GraphDef()
        for k, v in kw.items():
            if isinstance(v, list):
                getattr(gd.versions, k).extend(v)
            else:
                setattr(gd.versions, k, v)
        try:
            tf.import_graph_def(gd)
        except ValueError as e:
            return str(e)
        v = g.graph_def_versions
        return (v.producer, v.min_consumer, g.as_graph_def().versions.producer)


@pytest.mark.parametrize("existing", [False, True])
@pytest.mark.parametrize("case,kw", VERSIONS, ids=[v[0] for v in VERSIONS])
def test_import_version_gate(case, kw, existing):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _import(ref, kw, existing) == _import(tf, kw, existing)


def test_switch_to_thread_local_keeps_building():
    with ref.Graph().as_default() as g:
        g.switch_to_thread_local()
        with ref.control_dependencies([ref.no_op(name="first")]):
            c = ref.constant(1.0)
        assert [op.name for op in c.op.control_inputs] == ["first"]
