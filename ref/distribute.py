"""``tf.distribute`` for TF1 graphs (``ref/graph_ops/distribute_lib.py``): the
default strategy, the replica and cross-replica contexts, and
``MirroredStrategy`` over one local device."""
from ref.graph_ops.distribute_lib import (MirroredStrategy, ReduceOp, ReplicaContext, Strategy,  # noqa: F401
                                          StrategyExtended, get_loss_reduction,
                                          get_replica_context, get_strategy, has_strategy,
                                          in_cross_replica_context)

__all__ = ["MirroredStrategy", "ReduceOp", "ReplicaContext", "Strategy", "StrategyExtended",
           "get_loss_reduction", "get_replica_context", "get_strategy",
           "has_strategy", "in_cross_replica_context"]

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.distribute", name)
