"""``device_v2`` (TF's ``ops.device_v2``, the v2 ``tf.device``) against TensorFlow: a
device name or DeviceSpec sets the ops' device as ``device`` does; a device function
is a RuntimeError."""
import pytest

import ref
from ref.framework import graph as _under_test  # noqa: F401  (the module these tests cover)
from ref.framework.graph import device_v2

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1
from tensorflow.python.framework import ops as tf_ops  # noqa: E402


@pytest.mark.parametrize("name", ["cpu:0", "/device:CPU:0", "/job:worker/task:1", ""])
def test_device_v2_sets_the_device_as_tf(name):
    def placed(t, dv2):
        with t.Graph().as_default():
            with dv2(name):
                return t.constant(1.0).op.device
    assert placed(ref, device_v2) == placed(tf1, tf_ops.device_v2)


def test_device_v2_refuses_a_function_as_tf():
    for t, dv2 in ((ref, device_v2), (tf1, tf_ops.device_v2)):
        with t.Graph().as_default():
            with pytest.raises(RuntimeError, match="does not support functions"):
                dv2(lambda op: "/cpu:0")
