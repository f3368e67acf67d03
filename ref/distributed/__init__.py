"""Distributed training: ``ClusterSpec`` (cluster.py), ``Server`` (server.py: a task
serving TensorFlow's Master and Worker services over gRPC, worker.py, master.py,
rpc.py; or the ``protocol="inprocess"`` stand-in), ``replica_device_setter``
(device_setter.py), gradient accumulators (accumulator_ops.py) and
``SyncReplicasOptimizer`` (sync_replicas.py)."""
