"""In-process distributed training: ``ClusterSpec`` (cluster.py), ``Server``
(server.py, an in-process master), ``replica_device_setter`` (device_setter.py),
gradient accumulators (accumulator_ops.py) and ``SyncReplicasOptimizer``
(sync_replicas.py)."""
