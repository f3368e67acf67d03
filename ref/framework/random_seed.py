"""Graph-level and op-level random seeds (TF's ``framework/random_seed.py``)."""
from __future__ import annotations

from ref.platform import modes
from ref.framework.graph import get_default_graph

# ---------------------------------------------------------------------------
# Random seeds (TF's graph-level + op-level rules)
# ---------------------------------------------------------------------------

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def set_random_seed(seed):
    """Sets the graph-level random seed of the default graph."""
    get_default_graph().seed = seed


def get_seed(op_seed):
    """(graph seed, op seed) for a random op, as TF's ``random_seed.get_seed``:
    graph seed set and op seed not -> op seed from the graph's counter of such
    ops (0, 1, 2, ... -- TF 1.x used the graph's last op id instead; today's
    ``tf.compat.v1`` counts, and so does ref, to give its numbers); op seed set
    and graph seed not -> DEFAULT_GRAPH_SEED; neither -> (None, None). Seeds
    are taken modulo 2**31 - 1."""
    g = get_default_graph()
    global_seed = g.seed
    if global_seed is not None:
        if op_seed is None:
            with g._lock:
                op_seed = g._seed_offset
                g._seed_offset += 1
        seeds = (int(global_seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        if modes.is_op_determinism_enabled():
            raise RuntimeError("Random ops require a seed to be set when determinism is enabled. Please set a "
                               "seed before running the op, e.g. by calling tf.random.set_seed(1).")
        seeds = (None, None)
    if seeds == (0, 0):  # (0, 0) would mean "nondeterministic" to the kernels
        seeds = (0, _MAXINT32)
    return seeds
