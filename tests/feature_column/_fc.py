"""Shared by the feature-column tables: build one snippet under ``ref`` and
under TF 2.21's ``tf.compat.v1`` (TF1 behaviour, in a graph of its own), run
it fed, and compare GraphDefs with the lookup tables' random ``shared_name``
(``hash_table_<uuid4>``, on both sides) masked."""
import contextlib
import re

import numpy as np

from tests.graph_ops._graphdef import differences, graph_def, tf1_behaviour, tf_v1

_UUID_TABLE = re.compile(rb"hash_table_[0-9a-f-]{36}")


def masked(gd):
    for node in gd.node:
        if "shared_name" in node.attr and _UUID_TABLE.fullmatch(node.attr["shared_name"].s):
            node.attr["shared_name"].s = b"hash_table_UUID"
    return gd


def assert_same_graph(snippet):
    import ref

    want, got = masked(graph_def(tf_v1(), snippet)), masked(graph_def(ref, snippet))
    diff = differences(got, want)
    assert not diff, f"{len(got.node)} ref nodes, {len(want.node)} tf nodes\n" + "\n".join(diff)


def _context(lib):
    return contextlib.nullcontext() if lib.__name__.startswith("ref") else tf1_behaviour()


class Steps:
    """Fetches run in two session runs: ``first`` (e.g. assignments), then ``then``."""

    def __init__(self, first, then):
        self.first, self.then = first, then


def feeds_for(graph, values):
    """Feeds by placeholder name; a (indices, values, shape) triple feeds a
    sparse placeholder of that name."""
    feeds = {}
    for name, v in values.items():
        if isinstance(v, tuple):
            for part, x in zip(("indices", "values", "shape"), v):
                feeds[graph.get_tensor_by_name(f"{name}/{part}:0")] = x
        else:
            feeds[graph.get_tensor_by_name(f"{name}:0")] = v
    return feeds


def run(lib, snippet, values=None, seed=None):
    """``snippet(lib)``'s fetches after variables and tables are initialized, fed
    ``values`` (a :class:`Steps` runs its ``first`` fetches before)."""
    with _context(lib), lib.Graph().as_default() as g:
        if seed is not None:
            lib.set_random_seed(seed)
        out = snippet(lib)
        with lib.Session(graph=g) as s:
            s.run([lib.global_variables_initializer(), lib.tables_initializer()])
            if isinstance(out, Steps):
                s.run(out.first)
                out = out.then
            return s.run(out, feeds_for(g, values or {}))


def both(snippet, values=None, seed=None):
    import ref

    return run(ref, snippet, values, seed), run(tf_v1(), snippet, values, seed)


def in_graph(lib, fn):
    """``fn(lib)`` inside a fresh graph of ``lib`` (TF under TF1 behaviour)."""
    with _context(lib), lib.Graph().as_default():
        return fn(lib)


def error_of(fn):
    """(exception class name, message) of ``fn()``, or None."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the kind is what is compared
        return type(e).__name__, str(e)
    return None


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    np.testing.assert_array_equal(a, b)
