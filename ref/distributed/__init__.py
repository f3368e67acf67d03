"""Distributed training: ``ClusterSpec`` (cluster.py), ``Server`` (server.py),
``replica_device_setter`` (device_setter.py), gradient accumulators
(accumulator_ops.py), ``SyncReplicasOptimizer`` (sync_replicas.py), TF's
master/worker RPCs (rpc.py) and the client of a remote master behind
``Session("grpc://...")`` (remote_session.py, registered here)."""
from ref.distributed import remote_session  # noqa: F401  (registers the "grpc://" Session target)
