"""``tf.train.ClusterSpec``: the jobs of a cluster and their tasks' addresses.

Seed 004_96791d6311aaba71.txt, ``class tf.train.ClusterSpec``: "A
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

__all__ = ["ClusterSpec", "cluster_from_env"]


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


def cluster_from_env(environ=None):
    """``(ClusterSpec, job_name, task_index)`` from the ``TF_CONFIG`` environment variable.

    ``TF_CONFIG`` is the JSON that TensorFlow's ``TFConfigClusterResolver`` and
    Estimator read and that ``python -m ref cluster run`` sets for every task::

        {"cluster": {"ps": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223"]},
         "task": {"type": "worker", "index": 0}}

    Without ``TF_CONFIG`` (or when it is empty) the result is an empty
    ``ClusterSpec`` and ``None, None``, as TensorFlow's resolver reports a
    non-distributed run. A malformed value is a ValueError naming it.
    """
    text = (os.environ if environ is None else environ).get("TF_CONFIG", "").strip()
    if not text:
        return ClusterSpec({}), None, None
    try:
        config = json.loads(text)
        task = config.get("task") or {}
        cluster = ClusterSpec(_json_cluster(config.get("cluster") or {}))
        job_name = task.get("type")
        task_index = int(task["index"]) if "index" in task else (0 if job_name is not None else None)
    except (ValueError, TypeError, AttributeError) as exc:
        raise ValueError(f"TF_CONFIG is not a valid cluster configuration ({exc}): {text!r}") from None
    return cluster, job_name, task_index
