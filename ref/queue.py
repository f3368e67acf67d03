"""``tf.queue``: the queue classes under their TF 1.13+ names."""
from ref.graph_ops.data_flow_ops import (FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase,  # noqa: F401
                                         RandomShuffleQueue)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]

from ref import _coverage  # noqa: E402


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.queue", name)
