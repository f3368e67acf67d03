"""resources.py (RESOURCES collections) and is_resource_variable, against TF 2.21."""
import numpy as np
import pytest

from ref.graph_ops import resources as _under_test  # noqa: F401
import ref
from ref.graph_ops import resource_variable_ops


def _program(lib, resources, rvo, register):
    """Registers ``register`` resources (two variables' handles) and reports/initializes them."""
    with lib.Graph().as_default():
        a = lib.Variable(1.0, name="a", use_resource=True)
        b = lib.Variable(2.0, name="b", use_resource=True)
        picked = [a, b][:register]
        for i, v in enumerate(picked):
            resources.register_resource(v.handle, v.initializer, v.is_initialized(), is_shared=(i == 0))
        with lib.Session() as sess:
            before = sess.run(resources.report_uninitialized_resources())
            sess.run(resources.initialize_resources(resources.shared_resources() + resources.local_resources()))
            after = sess.run(resources.report_uninitialized_resources())
        flags = [rvo.is_resource_variable(x) for x in (a, lib.Variable(3.0, use_resource=False), 1.0)]
        return [list(before), list(after), len(resources.shared_resources()), len(resources.local_resources()),
                flags]


@pytest.mark.parametrize("register", [0, 1, 2])
def test_resources_as_tensorflow(register):
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.ops import resources as tf_resources, resource_variable_ops as tf_rvo
    got = _program(ref, _under_test, resource_variable_ops, register)
    want = _program(tf.compat.v1, tf_resources, tf_rvo, register)
    assert got == want
    assert np.asarray(got[0]).size == register
