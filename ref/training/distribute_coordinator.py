"""The distribute coordinator's worker context (TF's ``distribute_coordinator._WorkerContext``):
what one task of a cluster is while it runs a worker function -- its task type and id,
whether it is the chief, the master it connects to, and the strategy's say on whether it
checkpoints and writes summaries. ``MonitoredTrainingSession`` made inside one picks its
hooks and session creator from it (``ref.training.monitored``)."""
from __future__ import annotations

import copy

from ref.graph_ops import distribute_lib
from ref.training.monitored import ChiefSessionCreator, WorkerSessionCreator

__all__ = ["_TaskType", "_WorkerContext"]


class _TaskType:
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"
    CLIENT = "client"


def _jobs(cluster_spec):
    """``{job: [address, ...]}`` of a ClusterSpec or its dict (``{index: address}`` allowed)."""
    jobs = cluster_spec if isinstance(cluster_spec, dict) else cluster_spec.as_dict()
    return {job: [tasks[i] for i in sorted(tasks)] if isinstance(tasks, dict) else list(tasks)
            for job, tasks in jobs.items()}


class _WorkerContext:
    """The context of one task; ``with`` it, ``get_current_worker_context()`` returns it."""

    def __init__(self, strategy, cluster_spec, task_type, task_id, session_config=None, rpc_layer="grpc",
                 worker_barrier=None):
        self._strategy = strategy
        self._cluster_spec = cluster_spec
        self._task_type = task_type
        self._task_id = task_id
        self._session_config = session_config
        self._worker_barrier = worker_barrier
        self._rpc_layer = rpc_layer
        self._master_target = self._get_master_target()
        jobs = _jobs(cluster_spec) if cluster_spec else {}
        self._num_workers = len(jobs.get(_TaskType.WORKER, [])) + len(jobs.get(_TaskType.CHIEF, []))
        self._is_chief_node = self._is_chief()

    def _debug_message(self):
        if self._cluster_spec:
            return "[cluster_spec: %r, task_type: %r, task_id: %r]" % (self._cluster_spec, self.task_type,
                                                                       self.task_id)
        return "[local]"

    def __enter__(self):
        if distribute_lib.get_current_worker_context():
            raise ValueError("You cannot run distribute coordinator in a `worker_fn`.\t" + self._debug_message())
        distribute_lib.set_current_worker_context(self)

    def __exit__(self, *exc):
        distribute_lib.set_current_worker_context(None)

    def _get_master_target(self):
        """``<rpc layer>://<address>`` of this task (no cluster, or an evaluator: ``""``)."""
        if not self._cluster_spec or self._task_type == _TaskType.EVALUATOR:
            return ""
        jobs = _jobs(self._cluster_spec)
        if not self._task_type:
            task_type = _TaskType.CHIEF if _TaskType.CHIEF in jobs else _TaskType.WORKER
            task_id = 0
        else:
            task_type, task_id = self._task_type, self._task_id
        prefix = self._rpc_layer + "://" if self._rpc_layer else ""
        return prefix + jobs[task_type][task_id or 0]

    def _is_chief(self):
        if not self._cluster_spec or self._task_type in (_TaskType.CHIEF, _TaskType.EVALUATOR, None):
            return True
        return (_TaskType.CHIEF not in _jobs(self._cluster_spec) and self._task_type == _TaskType.WORKER
                and self._task_id == 0)

    def wait_for_other_workers(self):
        """Blocks on the worker barrier, if any (ValueError without one in a multi-worker cluster)."""
        if self._worker_barrier:
            self._worker_barrier.wait()
        elif self._cluster_spec and self._num_workers > 1:
            raise ValueError("`worker_barrier is not set in the worker context.` \t" + self._debug_message())

    def session_creator(self, scaffold=None, config=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        max_wait_secs=7200):
        """A ChiefSessionCreator where the strategy initializes variables (or none is set), else a
        WorkerSessionCreator; ``config`` merged with the context's session config."""
        if config:
            session_config = copy.deepcopy(config)
            if self._session_config is not None:
                session_config.MergeFrom(self._session_config)
        else:
            session_config = self._session_config
        if not self._strategy or self._strategy.extended.experimental_should_init:
            return ChiefSessionCreator(scaffold, master=self.master_target, config=session_config,
                                       checkpoint_dir=checkpoint_dir,
                                       checkpoint_filename_with_path=checkpoint_filename_with_path)
        return WorkerSessionCreator(scaffold, master=self.master_target, config=session_config,
                                    max_wait_secs=max_wait_secs)

    @property
    def session_config(self):
        return copy.deepcopy(self._session_config)

    @property
    def has_barrier(self):
        return self._worker_barrier is not None

    @property
    def distributed_mode(self):
        return bool(self._cluster_spec) and self._task_type != _TaskType.EVALUATOR

    @property
    def cluster_spec(self):
        return copy.deepcopy(self._cluster_spec)

    @property
    def task_type(self):
        return self._task_type

    @property
    def task_id(self):
        return self._task_id

    @property
    def master_target(self):
        return self._master_target

    @property
    def is_chief(self):
        return self._is_chief_node

    @property
    def num_workers(self):
        return self._num_workers

    @property
    def experimental_should_init(self):
        return self._strategy.extended.experimental_should_init

    @property
    def should_checkpoint(self):
        return self._strategy.extended.should_checkpoint

    @property
    def should_save_summary(self):
        return self._strategy.extended.should_save_summary
