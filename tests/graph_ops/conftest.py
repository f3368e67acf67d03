import pytest

from _vars_ns import ref_namespace


@pytest.fixture(scope="session")
def rtf():
    return ref_namespace()


@pytest.fixture(scope="module")  # restored after each module: later tests see TF's defaults
def tf1():
    """tensorflow.compat.v1 with reference (non-resource) variables, as TF1 graph mode."""
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    was = v1.resource_variables_enabled()
    v1.disable_resource_variables()
    yield v1
    if was:
        v1.enable_resource_variables()
