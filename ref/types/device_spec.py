"""``DeviceSpec``: parse, merge and print device strings like
``/job:ps/replica:0/task:0/device:CPU:0`` (TensorFlow's device names)."""
from __future__ import annotations

import re

_FIELD = re.compile(r"^(job|replica|task|device|cpu|gpu):?(.*)$", re.IGNORECASE)


class DeviceSpec:
    """A (partial) device specification; unspecified fields are None."""

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = device_type.upper() if device_type and device_type != "*" else device_type
        self.device_index = None if device_index in (None, "*") else int(device_index)

    @classmethod
    def from_string(cls, spec: str) -> "DeviceSpec":
        d = cls()
        d._parse(spec or "")
        return d

    def _parse(self, spec: str):
        for part in (p for p in spec.split("/") if p):
            bits = part.split(":")
            key = bits[0].lower()
            if key == "job" and len(bits) == 2:
                self.job = bits[1]
            elif key == "replica" and len(bits) == 2:
                self.replica = int(bits[1])
            elif key == "task" and len(bits) == 2:
                self.task = int(bits[1])
            elif key == "device" and len(bits) in (2, 3):
                self.device_type = bits[1].upper() if bits[1] != "*" else "*"
                self.device_index = int(bits[2]) if len(bits) == 3 and bits[2] != "*" else None
            elif key in ("cpu", "gpu", "tpu") and len(bits) in (1, 2):  # "CPU", legacy "/cpu:0"
                self.device_type = key.upper()
                self.device_index = int(bits[1]) if len(bits) == 2 and bits[1] != "*" else None
            else:
                raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
        return self

    def merge_from(self, dev: "DeviceSpec"):
        """Fields set in ``dev`` override this spec's (TF's DeviceSpec.merge_from)."""
        for f in self.__slots__:
            v = getattr(dev, f)
            if v is not None:
                setattr(self, f, v)

    def make_merged_spec(self, dev: "DeviceSpec") -> "DeviceSpec":
        out = self.copy()
        out.merge_from(dev)
        return out

    def replace(self, **kwargs) -> "DeviceSpec":
        out = self.copy()
        for k, v in kwargs.items():
            setattr(out, k, v)
        return out

    def copy(self) -> "DeviceSpec":
        return DeviceSpec(self.job, self.replica, self.task, self.device_type, self.device_index)

    def parse_from_string(self, spec):
        self._parse(spec)
        return self

    def to_string(self) -> str:
        out = ""
        if self.job is not None:
            out += f"/job:{self.job}"
        if self.replica is not None:
            out += f"/replica:{self.replica}"
        if self.task is not None:
            out += f"/task:{self.task}"
        if self.device_type is not None:
            idx = "*" if self.device_index is None else self.device_index
            out += f"/device:{self.device_type}:{idx}"
        return out

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return f"DeviceSpec({self.to_string()!r})"


def canonical_name(device) -> str:
    if device is None:
        return ""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


def merge_device(outer: str, inner: str) -> str:
    """The device of an op under ``with device(outer): with device(inner):``."""
    spec = DeviceSpec.from_string(outer)
    spec.merge_from(DeviceSpec.from_string(inner))
    return spec.to_string()
