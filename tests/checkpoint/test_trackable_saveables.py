"""Trackable state between TF1 saveables and TF2's ``_serialize_to_tensors``
(``ref.checkpoint.saveable_object_util``, ``ref.checkpoint.trackable_base``)
against TF's own ``saveable_object_util``: which classes count as defining
``_serialize_to_tensors``, the converter's tensor dict, its restore (values
assigned in a graph) and its errors."""
import numpy as np
import pytest

from ref.checkpoint import saveable_object_util as _under_test  # noqa: F401
from tests.graph_ops._graphdef import tf1_behaviour

tensorflow = pytest.importorskip("tensorflow")


def _ref():
    import ref
    from ref.checkpoint import saveable_object_util, trackable_base
    from ref.framework import saveable_object
    return ref, trackable_base, saveable_object, saveable_object_util


def _tf():
    from tensorflow.python.trackable import base
    from tensorflow.python.training.saving import saveable_object, saveable_object_util
    return tensorflow.compat.v1, base, saveable_object, saveable_object_util


BACKENDS = {"ref": _ref, "tf": _tf}


# -- which objects define _serialize_to_tensors: (class body built from the base) ----------------
def _classes(base):
    class Serializes(base.Trackable):
        def _serialize_to_tensors(self):
            return {}

    class Plain(base.Trackable):
        pass

    class GathersBelowSerializes(Serializes):
        def _gather_saveables_for_checkpoint(self):
            return {}

    class SerializesBelowGathers(GathersBelowSerializes):
        def _serialize_to_tensors(self):
            return {}

    instance_attr = Plain()
    instance_attr._serialize_to_tensors = lambda: {}
    return {"serializes": Serializes(), "plain": Plain(), "gathers_below": GathersBelowSerializes(),
            "serializes_below": SerializesBelowGathers(), "instance_attribute": instance_attr,
            "base": base.Trackable()}


@pytest.mark.parametrize("name", sorted(_classes(_ref()[1])))
def test_has_serialize_to_tensor_matches_tf(name):
    got = {b: fn()[3].trackable_has_serialize_to_tensor(_classes(fn()[1])[name]) for b, fn in BACKENDS.items()}
    assert got["ref"] == got["tf"]


# -- the converter of a Trackable's saveables: (specs each saveable has: (local name, slice)) -------
CONVERTER_ROWS = {
    "none": [],
    "one": [("a", "")],
    "renamed": [("a-value", "")],
    "two_specs": [("x", ""), ("y", "")],
}


def _converter_program(backend, specs):
    tf, base, saveable_object, sou = BACKENDS[backend]()

    class VarSaveable(saveable_object.SaveableObject):
        def __init__(self, var, name):
            super().__init__(var, [saveable_object.SaveSpec(var.read_value(), "", name)], name)

        def restore(self, restored_tensors, restored_shapes):
            return self.op.assign(restored_tensors[0])

    with tf.Graph().as_default():
        variables = {n: tf.Variable(float(i + 5), use_resource=True) for i, (n, _) in enumerate(specs)}

        class Holder(base.Trackable):
            def _gather_saveables_for_checkpoint(self):
                return {n: (lambda name, n=n: VarSaveable(variables[n], name)) for n in variables}

        obj = Holder()
        factories = sou.saveable_objects_from_trackable(obj)
        converter = sou.SaveableCompatibilityConverter(obj, [f(n) for n, f in factories.items()])
        tensors = converter._serialize_to_tensors()
        out = {"keys": sorted(tensors)}
        errors = []
        for bad in ({}, {"missing": 1.0}) if specs else ({"": 0.0},):
            try:
                converter._restore_from_tensors(bad)
                errors.append(None)
            except ValueError as e:
                errors.append(str(e).split(" because")[0].split(" <")[0])
        out["errors"] = errors
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["saved"] = sorted((k, float(sess.run(t))) for k, t in tensors.items())
            restore = converter._restore_from_tensors({k: float(10 * (i + 1)) for i, k in enumerate(sorted(tensors))})
            sess.run(list(restore.values()) if isinstance(restore, dict) else restore)
            out["restored"] = sorted((n, float(sess.run(v))) for n, v in variables.items())
    return out


@pytest.mark.parametrize("row", sorted(CONVERTER_ROWS))
def test_saveable_compatibility_converter_matches_tf(row):
    got = _converter_program("ref", CONVERTER_ROWS[row])
    with tf1_behaviour():
        want = _converter_program("tf", CONVERTER_ROWS[row])
    assert got == want
    np.testing.assert_equal(len(got["keys"]), len(CONVERTER_ROWS[row]))
