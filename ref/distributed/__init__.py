"""Distributed training: ``ClusterSpec`` and ``cluster_from_env`` (cluster.py),
``Server`` (server.py: a task serving TensorFlow's Master and Worker services over
gRPC -- worker.py, master.py, placement.py, partition.py, rpc.py -- or the
``protocol="inprocess"`` stand-in), ``Session("grpc://...")`` (remote_session.py),
``replica_device_setter`` (device_setter.py), gradient accumulators and
``SyncReplicasOptimizer`` (sync_replicas.py), TLS, tokens and server limits
(security.py: ``ServerSecurity``, ``ClientSecurity``, ``set_client_security``; certs.py: a
throwaway local CA), the ``python -m ref server``/``cluster``
tools (launcher.py) and fault injection for tests (testing.py)."""
from ref.distributed.cluster import ClusterSpec, TFConfigClusterResolver, cluster_from_env  # noqa: F401
from ref.distributed.security import ClientSecurity, ServerSecurity, set_client_security  # noqa: F401
from ref.distributed import remote_session  # noqa: F401  (registers the "grpc://" Session target)
