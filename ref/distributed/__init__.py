"""Distributed training: ``ClusterSpec`` and ``cluster_from_env`` (cluster.py),
``Server`` (server.py), ``replica_device_setter`` (device_setter.py), gradient
accumulators and ``SyncReplicasOptimizer`` (sync_replicas.py), TensorFlow's
RPCs (rpc.py), the ``python -m ref server``/``cluster`` tools (launcher.py) and
fault injection for tests (testing.py)."""
from ref.distributed.cluster import ClusterSpec, TFConfigClusterResolver, cluster_from_env  # noqa: F401
