"""``tf.config``: the devices this process sees and the runtime's settings
(``ref/session/runtime_config.py``): ``list_physical_devices('GPU')`` is empty
on a machine without a CUDA device, as in TF."""
from types import SimpleNamespace as _Namespace

from ref.session.runtime_config import (LogicalDevice, PhysicalDevice, get_memory_growth,  # noqa: F401
                                        get_soft_device_placement, get_visible_devices, list_logical_devices,
                                        list_physical_devices, set_memory_growth, set_soft_device_placement,
                                        set_visible_devices)
from ref.session import runtime_config as _rc
from ref.platform import modes as _modes

__all__ = ["LogicalDevice", "PhysicalDevice", "get_soft_device_placement", "get_visible_devices",
           "list_logical_devices", "list_physical_devices", "set_soft_device_placement", "set_visible_devices",
           "experimental", "optimizer", "threading"]

threading = _Namespace(get_inter_op_parallelism_threads=_rc.get_inter_op_parallelism_threads,
                       get_intra_op_parallelism_threads=_rc.get_intra_op_parallelism_threads,
                       set_inter_op_parallelism_threads=_rc.set_inter_op_parallelism_threads,
                       set_intra_op_parallelism_threads=_rc.set_intra_op_parallelism_threads)
optimizer = _Namespace(get_experimental_options=_rc.get_optimizer_experimental_options,
                       set_experimental_options=_rc.set_optimizer_experimental_options)
experimental = _Namespace(get_memory_growth=get_memory_growth, set_memory_growth=set_memory_growth,
                          get_visible_devices=get_visible_devices, set_visible_devices=set_visible_devices,
                          list_logical_devices=list_logical_devices, list_physical_devices=list_physical_devices,
                          enable_op_determinism=_modes.enable_op_determinism)

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.config", name)
