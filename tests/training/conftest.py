"""Fixtures for the queue / coordinator / input-pipeline tests: ``rtf`` is the
TF1 namespace of ref with this area's names in place (``tf.FIFOQueue``,
``tf.train.batch``...), ``tf1`` is tensorflow.compat.v1 (graph mode)."""
import types

import pytest

import ref
from ref.graph_ops import data_flow_ops
from ref.training import input as input_ops
from ref.training import coordinator, queue_runner


class _Namespace(types.SimpleNamespace):
    """Attributes given here first, then those of ``fallback``."""

    def __init__(self, fallback, **names):
        super().__init__(**names)
        object.__setattr__(self, "_fallback", fallback)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "_fallback"), name)


def ref_namespace():
    train_names = {n: getattr(m, n) for m in (coordinator, queue_runner, input_ops) for n in m.__all__}
    train = _Namespace(ref.train, **train_names)
    return _Namespace(ref, train=train, **{n: getattr(data_flow_ops, n) for n in data_flow_ops.__all__})


@pytest.fixture(scope="session")
def rtf():
    return ref_namespace()


@pytest.fixture(scope="module")  # restored after each module: later tests see TF's defaults
def tf1():
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    was = v1.resource_variables_enabled()
    v1.disable_resource_variables()
    yield v1
    if was:
        v1.enable_resource_variables()
