"""``tf.tpu`` (compat.v1): the parts of TF's TPU API that make sense without a
TPU -- ``XLAOptions``, ``shard`` (run here shard by shard on the CPU) and
``shutdown_system`` (builds TF's op; running it fails as on a TPU-less TF).
"""
from __future__ import annotations

import collections

from ref.framework.graph import Operation, device
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops
from ref.graph_ops.control_flow_ops import group

__all__ = ["XLAOptions", "shard", "shutdown_system"]


class XLAOptions(collections.namedtuple(
        "XLAOptions", ["use_spmd_for_xla_partitioning", "enable_xla_dynamic_padder", "use_shardy_partitioner"])):
    """XLA compilation options (recorded; ref compiles nothing).

    Attributes:
      use_spmd_for_xla_partitioning: Boolean. Whether to use XLA's SPMD
        partitioner instead of the MPMD one when partitioning is requested.
      enable_xla_dynamic_padder: Boolean. Whether XLA pads dynamic-shape inputs.
      use_shardy_partitioner: Boolean. Whether to use the Shardy partitioner.
    """

    def __new__(cls, use_spmd_for_xla_partitioning=True, enable_xla_dynamic_padder=True,
                use_shardy_partitioner=False):
        return super().__new__(cls, use_spmd_for_xla_partitioning, enable_xla_dynamic_padder,
                               use_shardy_partitioner)


def _tpu_system_device_name(job):
    return "/device:TPU_SYSTEM:0" if job is None else f"/job:{job}/device:TPU_SYSTEM:0"


def shutdown_system(job=None):
    """Shuts down a running distributed TPU system.

    Builds a ``ShutdownDistributedTPU`` op on ``/device:TPU_SYSTEM:0`` (or
    ``/job:<job>/device:TPU_SYSTEM:0``) and returns it. ref has no TPU system:
    running the op raises ``InvalidArgumentError``, as a CPU-only TensorFlow does.

    Args:
      job: The job (the XXX in ``/job:XXX``) that holds the TPU devices to shut
        down; None when there is a single job.
    """
    with device(_tpu_system_device_name(job)):
        return apply_op("ShutdownDistributedTPU")


def shard(computation, inputs=None, num_shards=1, input_shard_axes=None, outputs_from_all_shards=True,
          output_shard_axes=None, infeed_queue=None, device_assignment=None, name=None, xla_options=None):
    """Shards ``computation`` for parallel execution (here: one shard after another on the CPU).

    Each input is split into ``num_shards`` pieces along its ``input_shard_axes``
    entry (``None``: axis 0 for all) and ``computation`` is called on each
    shard's pieces. Tensors ``computation`` captures lexically are shared by all
    shards. When ``outputs_from_all_shards`` is true (a bool, or one per
    output), each output of the shards is concatenated along its
    ``output_shard_axes`` entry (``None``: axis 0; scalar outputs are stacked);
    otherwise it is taken from one shard (the first). Inputs and outputs must
    be at least rank 1, inputs divisible by ``num_shards`` along their axis.
    ``infeed_queue``, ``device_assignment``, ``name`` and ``xla_options`` are
    accepted and ignored (no TPU). A computation with no outputs gives a list
    with one Operation.

    Returns:
      A list of output tensors.

    Raises:
      ValueError: If num_shards <= 0, if len(input_shard_axes) != len(inputs),
        or if len(output_shard_axes) != the number of outputs.
    """
    del infeed_queue, device_assignment, name, xla_options
    if num_shards <= 0:
        raise ValueError(f"num_shards must be a positive integer. Received {num_shards}")
    inputs = [] if inputs is None else inputs
    if not isinstance(inputs, list):
        raise TypeError(f"tpu.shard()'s inputs must be a list of Tensors or None. Received {type(inputs)}")
    inputs = [convert_to_tensor(x) for x in inputs]
    if input_shard_axes is None:
        input_shard_axes = [0] * len(inputs)
    if len(inputs) != len(input_shard_axes):
        raise ValueError("Length of input_shard_axes must be equal to the number of inputs. Received "
                         f"{len(inputs)} inputs and {len(input_shard_axes)} input_shard_axes.")
    for x in inputs:
        if x.shape.ndims == 0:
            raise ValueError(f"tpu.shard() inputs must be at least rank 1; {x.name} is a scalar")
    if inputs:
        pieces = [array_ops.split(x, num_shards, axis=axis) for axis, x in zip(input_shard_axes, inputs)]
        per_shard = [list(p) for p in zip(*pieces)]
    else:
        per_shard = [[] for _ in range(num_shards)]

    outputs = []
    for args in per_shard:
        out = computation(*args)
        if out is None or isinstance(out, Operation):
            outputs.append(None if out is None else out)
            continue
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        outputs.append([o if isinstance(o, Operation) else convert_to_tensor(o) for o in out])
    if any(o is None or isinstance(o, Operation) for o in outputs):
        return [group(*[o for o in outputs if o is not None])]
    tensors = [[o for o in shard_out if not isinstance(o, Operation)] for shard_out in outputs]
    num_outputs = len(tensors[0])
    if num_outputs == 0:
        return [group(*[o for shard_out in outputs for o in shard_out])]

    if output_shard_axes is None:
        output_shard_axes = [0] * num_outputs
    if num_outputs != len(output_shard_axes):
        raise ValueError("Length of output_shard_axes must be equal to the number of outputs. Received "
                         f"{num_outputs} outputs and {len(output_shard_axes)} output_shard_axes.")
    if isinstance(outputs_from_all_shards, bool):
        outputs_from_all_shards = [outputs_from_all_shards] * num_outputs
    if num_outputs != len(outputs_from_all_shards):
        raise ValueError("Length of outputs_from_all_shards must be equal to the number of outputs. Received "
                         f"{num_outputs} outputs  and {len(outputs_from_all_shards)} outputs_from_all_shards.")
    results = []
    for axis, all_shards, xs in zip(output_shard_axes, outputs_from_all_shards, zip(*tensors)):
        if not all_shards:
            results.append(xs[0])
        elif xs[0].shape.ndims == 0:
            results.append(array_ops.stack(list(xs)))
        else:
            results.append(array_ops.concat(list(xs), axis=axis))
    return results


from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.tpu", name)
