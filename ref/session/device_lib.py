"""The devices of this process as ``DeviceAttributes`` protos (TF's
``tensorflow/python/client/device_lib.py``): ``list_local_devices``."""
from __future__ import annotations

from ref import protos
from ref.session.devices import local_devices

__all__ = ["list_local_devices"]


def list_local_devices(session_config=None) -> list:
    """One ``DeviceAttributes`` per local device, named without the job as TF's
    (``/device:CPU:0``): type, memory limit, incarnation and an empty locality.
    ``session_config`` (a ``ConfigProto``) limits the devices as a Session's
    ``device_count`` does."""
    out = []
    for name, device_type, memory_limit, incarnation in local_devices(session_config):
        m = protos.device_attributes_pb2.DeviceAttributes(
            name="/device:" + name.rpartition("/device:")[2], device_type=device_type,
            memory_limit=memory_limit, incarnation=incarnation, xla_global_id=-1)
        m.locality.SetInParent()
        out.append(m)
    return out
