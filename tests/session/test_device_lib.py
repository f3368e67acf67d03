"""``device_lib.list_local_devices`` (TF's ``tensorflow/python/client/device_lib.py``):
the local devices as ``DeviceAttributes`` protos, compared with TF's."""
import pytest

from ref.protos import config_pb2
from ref.session import device_lib


# (ConfigProto.device_count, the devices TF lists on a CPU-only machine)
ROWS = [
    (None, [("/device:CPU:0", "CPU")]),
    ({"CPU": 1}, [("/device:CPU:0", "CPU")]),
    ({"GPU": 0}, [("/device:CPU:0", "CPU")]),
]


def _listing(devices):
    return [(d.name, d.device_type) for d in devices]


@pytest.mark.parametrize("device_count,expected", ROWS)
def test_list_local_devices(device_count, expected):
    config = None if device_count is None else config_pb2.ConfigProto(device_count=device_count)
    devices = device_lib.list_local_devices(config)
    assert _listing(devices)[:1] == expected
    cpu = devices[0]
    assert cpu.memory_limit == 268435456 and cpu.incarnation != 0 and cpu.HasField("locality")
    assert cpu.xla_global_id == -1


@pytest.mark.parametrize("device_count,expected", ROWS)
def test_list_local_devices_as_tf(device_count, expected):
    pytest.importorskip("tensorflow")
    from tensorflow.core.protobuf import config_pb2 as tf_config_pb2
    from tensorflow.python.client import device_lib as tf_device_lib

    tf_config = None if device_count is None else tf_config_pb2.ConfigProto(device_count=device_count)
    theirs = [d for d in tf_device_lib.list_local_devices(tf_config) if d.device_type == "CPU"]
    config = None if device_count is None else config_pb2.ConfigProto(device_count=device_count)
    ours = [d for d in device_lib.list_local_devices(config) if d.device_type == "CPU"]
    assert _listing(ours) == _listing(theirs)
    for a, b in zip(ours, theirs):
        assert (a.memory_limit, a.xla_global_id, a.HasField("locality")) == \
            (b.memory_limit, b.xla_global_id, b.HasField("locality"))
