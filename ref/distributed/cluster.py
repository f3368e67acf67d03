"""``tf.train.ClusterSpec``: the jobs of a cluster and their tasks' addresses.

TF docs, "Training" (Korean edition), ``class tf.train.ClusterSpec``: "A
``tf.train.ClusterSpec`` represents the set of processes that participate in a
distributed TensorFlow computation." A cluster is given as a dict mapping job
names to a list of addresses (task ``i`` is element ``i``) or to a dict of
(possibly sparse) task index -> address, as a ``ClusterDef`` proto, or as
another ``ClusterSpec``. ``as_cluster_def`` lists the jobs sorted by name, as
TensorFlow does, so the proto is deterministic.
"""
from __future__ import annotations

import json
import os

from ref.protos import cluster_pb2

__all__ = ["ClusterSpec", "cluster_from_env", "TFConfigClusterResolver"]


def _as_str(value, what):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    raise TypeError(f"{what} {value!r} must be bytes or unicode")


def _is_cluster_def(obj) -> bool:
    """Our ClusterDef, or any protobuf message of that name (TensorFlow's)."""
    if isinstance(obj, cluster_pb2.ClusterDef):
        return True
    desc = getattr(obj, "DESCRIPTOR", None)
    return desc is not None and getattr(desc, "name", None) == "ClusterDef" and hasattr(obj, "SerializeToString")


class ClusterSpec:
    """Represents a cluster as a set of "tasks", organized into "jobs"."""

    def __init__(self, cluster):
        if isinstance(cluster, dict):
            spec = {}
            for job_name, tasks in cluster.items():
                if isinstance(tasks, (list, tuple)):
                    spec[job_name] = dict(enumerate(tasks))
                elif isinstance(tasks, dict):
                    spec[job_name] = {int(i): t for i, t in tasks.items()}
                else:
                    raise TypeError(f"The tasks for job {job_name!r} must be a list or a dictionary from "
                                    "integers to strings.")
            self._cluster_spec = spec
            self._cluster_def = self._make_cluster_def()
        elif isinstance(cluster, ClusterSpec) or _is_cluster_def(cluster):
            source = cluster.as_cluster_def() if isinstance(cluster, ClusterSpec) else cluster
            self._cluster_def = cluster_pb2.ClusterDef.FromString(source.SerializeToString())
            self._cluster_spec = {job.name: dict(job.tasks.items()) for job in self._cluster_def.job}
        else:
            raise TypeError("`cluster` must be a dictionary mapping one or more job names to lists of network "
                            "addresses, or a `ClusterDef` protocol buffer")

    def _make_cluster_def(self):
        cluster_def = cluster_pb2.ClusterDef()
        for job_name, tasks in sorted(self._cluster_spec.items()):
            job_def = cluster_def.job.add()
            job_def.name = _as_str(job_name, "Job name")
            for i, address in sorted(tasks.items()):
                job_def.tasks[i] = _as_str(address, "Task address")
        return cluster_def

    # -- comparisons ----------------------------------------------------------------
    def __bool__(self):
        return bool(self._cluster_spec)

    def __eq__(self, other):
        return self._cluster_spec == other

    def __ne__(self, other):
        return self._cluster_spec != other

    __hash__ = None

    def __repr__(self):
        d = self.as_dict()
        return "ClusterSpec({" + ", ".join(f"{k!r}: {d[k]!r}" for k in sorted(d)) + "})"

    # -- views ----------------------------------------------------------------------
    def as_dict(self):
        """Job name -> list of addresses when its task indices are 0..n-1, else
        a dict task index -> address."""
        out = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                out[job] = {}
            elif max(indices) + 1 == len(indices):
                out[job] = self.job_tasks(job)
            else:
                out[job] = {i: self.task_address(job, i) for i in indices}
        return out

    def as_cluster_def(self):
        """This cluster as a ``ClusterDef`` protocol buffer."""
        return self._cluster_def

    @property
    def jobs(self):
        """The job names of this cluster."""
        return list(self._cluster_spec)

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r}") from None

    def num_tasks(self, job_name):
        """The number of tasks of ``job_name`` (ValueError when there is no such job)."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """The sorted task indices of ``job_name``."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        """The address of task ``task_index`` of ``job_name``."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name):
        """A list indexed by task index of the addresses of ``job_name``'s tasks
        (None where a sparse job has no such task)."""
        job = self._job(job_name)
        out = [None] * (max(job) + 1)
        for i, address in job.items():
            out[i] = address
        return out


def _json_cluster(cluster):
    """A JSON cluster dict as ``ClusterSpec`` takes it: task-index keys become ints."""
    if not isinstance(cluster, dict):
        raise ValueError(f"a cluster must be a JSON object of job name -> addresses, not {cluster!r}")
    return {job: ({int(i): a for i, a in tasks.items()} if isinstance(tasks, dict) else tasks)
            for job, tasks in cluster.items()}


def _tf_config(environ=None):
    text = (os.environ if environ is None else environ).get("TF_CONFIG", "").strip()
    if not text:
        return {}
    try:
        config = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"TF_CONFIG is not JSON ({exc}): {text!r}") from None
    if not isinstance(config, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object: {text!r}")
    return config


def cluster_from_env(environ=None):
    """``(ClusterSpec, job_name, task_index)`` from the ``TF_CONFIG`` environment variable.

    ``TF_CONFIG`` is the JSON that TensorFlow's ``TFConfigClusterResolver`` and
    Estimator read and that ``python -m ref cluster run`` sets for every task::

        {"cluster": {"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223"]},
         "task": {"type": "worker", "index": 0}}

    As with TensorFlow's resolver, a missing ``cluster`` is an empty
    ``ClusterSpec`` and a missing ``type`` or ``index`` is None (``Server``
    then takes the job's only task). A malformed value is a ValueError naming
    ``TF_CONFIG``.
    """
    config = _tf_config(environ)
    try:
        task = config.get("task") or {}
        cluster = ClusterSpec(_json_cluster(config.get("cluster") or {}))
        job_name = str(task["type"]) if "type" in task else None
        task_index = int(task["index"]) if "index" in task else None
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"TF_CONFIG is not a valid cluster configuration ({exc}): {config!r}") from None
    return cluster, job_name, task_index


class TFConfigClusterResolver:
    """``tf.distribute.cluster_resolver.TFConfigClusterResolver``: the cluster from ``TF_CONFIG``.

    ``task_type``, ``task_id`` and ``rpc_layer`` given here override the
    environment's; ``TF_CONFIG`` is read again on every access, as TensorFlow does.
    """

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self._environment = environment

    @property
    def task_type(self):
        return str(self._task_type) if self._task_type is not None else cluster_from_env()[1]

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        return int(self._task_id) if self._task_id is not None else cluster_from_env()[2]

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        return self._rpc_layer if self._rpc_layer is not None else _tf_config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    @property
    def environment(self):
        return self._environment

    def cluster_spec(self):
        """The ``ClusterSpec`` of ``TF_CONFIG``'s ``cluster`` (empty without one)."""
        return cluster_from_env()[0]

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The session target for a task: ``TF_CONFIG``'s ``session_master`` when set; ``""``
        for a cluster of one task; else ``rpc_layer://address`` (just the address without an
        rpc layer) of the given task, by default this one."""
        session_master = _tf_config().get("session_master")
        if session_master is not None:
            return session_master
        cluster = self.cluster_spec()
        if not cluster.jobs or (len(cluster.jobs) == 1 and len(cluster.job_tasks(cluster.jobs[0])) == 1):
            return ""
        address = cluster.task_address(self.task_type if task_type is None else task_type,
                                       self.task_id if task_id is None else task_id)
        rpc_layer = self.rpc_layer if rpc_layer is None else rpc_layer
        return f"{rpc_layer}://{address}" if rpc_layer else address
