"""The tf.data, image and file ops ref declares have TensorFlow's op
definitions: the same input, output and attr names (so GraphDefs carry TF's
NodeDefs and tf.raw_ops calls read the same)."""
import pytest

from ref.ops import registry

tf = pytest.importorskip("tensorflow")

MODULES = ("ref.ops.dataset.datasets", "ref.ops.dataset.files", "ref.ops.dataset.iterators", "ref.ops.image",
           "ref.ops.image_resize", "ref.ops.image_color")
OPS = sorted(n for n, d in registry.registered().items()
             if d.kernel.__module__ in MODULES or n in ("ReadFile", "WriteFile"))


def test_the_families_are_declared():
    assert {"TensorSliceDataset", "ShuffleDataset", "IteratorGetNext", "DecodeJpeg", "ResizeBilinear",
            "GeneratorDataset", "TFRecordDatasetV2"} <= set(OPS)


@pytest.mark.parametrize("name", OPS)
def test_op_def_matches_tf(name):
    from tensorflow.python.framework import op_def_registry
    tf_def = op_def_registry.get(name)
    assert tf_def is not None, f"TensorFlow has no op {name}"
    od = registry.get(name)
    assert list(od.inputs) == [a.name for a in tf_def.input_arg]
    assert [o.lstrip("*") for o in od.outputs] == [a.name for a in tf_def.output_arg]
    tf_attrs = {a.name for a in tf_def.attr}
    type_attrs = set(od.type_attrs) | {a for a in od.list_inputs.values() if a}
    assert set(od.attrs) | type_attrs <= tf_attrs, sorted((set(od.attrs) | type_attrs) - tf_attrs)
    inferred = {a.name for a in tf_def.attr if a.type in ("type", "list(type)") or a.name == "N"}
    assert tf_attrs - set(od.attrs) - type_attrs <= inferred, sorted(tf_attrs - set(od.attrs) - inferred)
