"""The process-wide runtime settings behind ``tf.config`` (TF's eager context
config, which a TF 2.x ``Session`` created without a ``ConfigProto`` starts
from): the physical and logical devices, which are visible, GPU memory growth,
soft placement and the thread-pool sizes.

A physical device is named ``/physical_device:CPU:0``, a logical one
``/device:CPU:0``. Like TF, the visible devices and memory growth can only be
changed before the runtime is initialized -- as in TF with v2 behaviour
disabled, Sessions do not initialize it; listing the logical devices does --
and setting memory growth on a CPU is a ValueError.
"""
from __future__ import annotations

import collections
import threading

from ref.session.devices import local_devices

PhysicalDevice = collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = collections.namedtuple("LogicalDevice", ["name", "device_type"])

_LOCK = threading.Lock()
_STATE = {"visible": None, "growth": {}, "soft_placement": False, "intra": 0, "inter": 0, "initialized": False}


def _physical():
    return [PhysicalDevice("/physical_device:" + name.rpartition("/device:")[2], device_type)
            for name, device_type, _, _ in local_devices()]


def list_physical_devices(device_type=None) -> list:
    """The devices of this process (``device_type``: 'CPU', 'GPU' or None for all)."""
    return [d for d in _physical() if device_type is None or d.device_type == str(device_type).upper()]


def get_visible_devices(device_type=None) -> list:
    visible = _STATE["visible"]
    devices = _physical() if visible is None else list(visible)
    return [d for d in devices if device_type is None or d.device_type == str(device_type).upper()]


def set_visible_devices(devices, device_type=None) -> None:
    """Only ``devices`` (of ``device_type``, or of every type) stay visible; a CPU
    must remain. RuntimeError once the runtime is initialized, as TF."""
    if isinstance(devices, PhysicalDevice):
        devices = [devices]
    devices = list(devices)
    with _LOCK:
        if _STATE["initialized"]:
            raise RuntimeError("Visible devices cannot be modified after being initialized")
        known = _physical()
        for d in devices:
            if d not in known:
                raise ValueError(f"Unrecognized device: {d!r}")
        keep = [d for d in get_visible_devices() if device_type is not None and d.device_type != device_type.upper()]
        new = keep + [d for d in devices if device_type is None or d.device_type == device_type.upper()]
        if not any(d.device_type == "CPU" for d in new):
            raise ValueError("CPU must remain visible")
        _STATE["visible"] = new


def list_logical_devices(device_type=None) -> list:
    """The visible devices as the runtime names them; initializes the runtime (device settings fixed)."""
    _STATE["initialized"] = True
    return [LogicalDevice("/device:" + d.name.rpartition("/physical_device:")[2], d.device_type)
            for d in get_visible_devices(device_type)]


def get_memory_growth(device) -> bool:
    if device not in _physical():
        raise ValueError(f"Unrecognized device: {device!r}")
    return _STATE["growth"].get(device, False)


def set_memory_growth(device, enable) -> None:
    if device not in _physical():
        raise ValueError(f"Unrecognized device: {device!r}")
    if device.device_type != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    with _LOCK:
        if _STATE["initialized"]:
            raise RuntimeError("Physical devices cannot be modified after being initialized")
        _STATE["growth"][device] = bool(enable)


def get_soft_device_placement() -> bool:
    return _STATE["soft_placement"]


def set_soft_device_placement(enabled) -> None:
    _STATE["soft_placement"] = bool(enabled)


def get_intra_op_parallelism_threads() -> int:
    """Threads one kernel may use in a Session created without a ConfigProto (0: all cores)."""
    return _STATE["intra"]


def set_intra_op_parallelism_threads(num_threads) -> None:
    _STATE["intra"] = int(num_threads)


def get_inter_op_parallelism_threads() -> int:
    return _STATE["inter"]


def set_inter_op_parallelism_threads(num_threads) -> None:
    _STATE["inter"] = int(num_threads)


# tf.config.optimizer's experimental options (Grappler's RewriterConfig): the toggles a
# program set, over TF's two always-reported booleans; a name TF does not know is ignored, as in TF
_OPTIMIZER_TOGGLES = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping",
                      "arithmetic_optimization", "dependency_optimization", "loop_optimization",
                      "function_optimization", "debug_stripper", "scoped_allocator_optimization",
                      "pin_to_host_optimization", "implementation_selector", "auto_mixed_precision",
                      "auto_mixed_precision_onednn_bfloat16", "auto_mixed_precision_mkl", "use_plugin_optimizers")
_OPTIMIZER_OPTIONS = {"disable_model_pruning": False, "disable_meta_optimizer": False}


def get_optimizer_experimental_options() -> dict:
    """``tf.config.optimizer.get_experimental_options()``: the options in effect."""
    return dict(_OPTIMIZER_OPTIONS)


def set_optimizer_experimental_options(options) -> None:
    """``tf.config.optimizer.set_experimental_options``: booleans by name (``min_graph_nodes``: an int)."""
    for name, value in options.items():
        if name in _OPTIMIZER_TOGGLES or name in ("disable_model_pruning", "disable_meta_optimizer"):
            _OPTIMIZER_OPTIONS[name] = bool(value)
        elif name == "min_graph_nodes":
            _OPTIMIZER_OPTIONS[name] = int(value)
