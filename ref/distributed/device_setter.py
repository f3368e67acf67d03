"""``tf.train.replica_device_setter``: place variables on ps tasks, the rest on the worker.

TF's API reference, ``tf.compat.v1.train.replica_device_setter``:
"By default, only Variable ops are placed on ps tasks, and the placement
strategy is round-robin over all ps tasks." "If cluster is None, and ps_tasks
is 0, the returned function is a no-op. Otherwise, the value of ps_tasks is
derived from cluster." The merging "adds constraints to fields that are yet
unset by a more inner context".

The device function sees ``op.device``: the device the inner scopes chose
(TensorFlow applies the device stack innermost first), so
``with device("/job:moon")`` inside the setter keeps a variable on that job
without a task, and an explicit ``/job:ps`` gets its task.

A variable's ops follow its variable op: a reference variable's ``Assign``,
``read`` and every op taking it as a ref input (``AssignAdd``, ``ApplyAdam``, ...)
are colocated with it; a resource variable's initializer ``AssignVariableOp``
and its first ``ReadVariableOp`` get the handle's device, and the
optimizers colocate their ``ResourceApply*`` updates with it. Other reads
(``value()``) and ``assign_add`` on a resource variable get no device of their
own (``value()``) or the worker's, as in TensorFlow: its placer puts an op that
takes a resource handle where the resource lives.
"""
from __future__ import annotations

from ref.types.device_spec import DeviceSpec
from ref.distributed.cluster import ClusterSpec

__all__ = ["replica_device_setter", "STANDARD_PS_OPS"]

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp", "ResourceConditionalAccumulator",
                   "DecisionTreeResource")


class _RoundRobinStrategy:
    """Task 0, 1, ..., num_tasks - 1, 0, 1, ... for successive ps ops."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (task + 1) % self._num_tasks
        return task


class _ReplicaDeviceChooser:
    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        """The device of ``op``: a ps task for ps ops, else the worker device,
        merged with (fields set by inner scopes win) ``op.device``."""
        current = getattr(op, "device", "") or ""
        if not self._merge_devices and current:
            return current
        current_spec = DeviceSpec.from_string(current)
        op_type = getattr(op, "type", None)
        if self._ps_tasks and self._ps_device and op_type in self._ps_ops:
            ps_spec = DeviceSpec.from_string(self._ps_device)
            if ps_spec.job and (not current_spec.job or current_spec.job == ps_spec.job):
                ps_spec = ps_spec.replace(task=self._ps_strategy(op))
            return ps_spec.make_merged_spec(current_spec).to_string()
        worker_spec = DeviceSpec.from_string(self._worker_device or "")
        return worker_spec.make_merged_spec(current_spec).to_string()


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for ``tf.device`` (None -- no placement -- when there are no ps tasks)."""
    if cluster is not None:
        spec = (cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)).as_dict()
        ps_job = DeviceSpec.from_string(ps_device).job
        if spec.get(ps_job) is None:
            return None
        ps_tasks = len(spec[ps_job])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    return _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                 ps_strategy).device_function
