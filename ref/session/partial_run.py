"""``Session.partial_run_setup`` / ``partial_run``: one step run in pieces.

The setup names every fetch and feed of the step. Each ``partial_run`` feeds
some of the feeds and fetches some of the fetches; what earlier pieces computed
is remembered and fed back, so no op of the step runs twice (a variable update
happens once). TF's checks and messages: a fetch or feed not named in the
setup, fetched or fed twice, or a setup feed needed but not fed yet
(InvalidArgumentError).
"""
from __future__ import annotations

import itertools
import threading

from ref.types import dtypes, errors
from ref.framework.graph import Operation, Tensor
from ref.session.interpreter import needed_ops

_IDS = itertools.count()


def _err(message):
    return errors.InvalidArgumentError(None, None, message)


def _name(e):
    return e.name


class PartialRun:
    """The state of one partial run: the setup's fetches and feeds, what was fed
    and fetched, and every value computed so far."""

    def __init__(self, graph, fetches, feeds):
        self.fetches = list(fetches)
        self.feeds = list(feeds)
        if not self.fetches:
            raise _err("Must specify at least one target to fetch or execute.")
        self.fed, self.fetched = set(), set()
        self.known = {}  # Tensor -> value, the feeds and computed values so far
        self.lock = threading.Lock()
        self.handle = (",".join(map(_name, self.feeds)) + "->" + ",".join(map(_name, self.fetches))
                       + f"//{next(_IDS)}/;0")

    def check(self, fetches, feeds):
        """TF's checks on one piece (before anything runs)."""
        for f in fetches:
            if f not in self.fetches:
                raise _err(f"The fetch {f.name} was not specified in partial_run_setup.")
            if f in self.fetched:
                raise _err(f"The fetch {f.name} has already been fetched.")
        for t in feeds:
            if t not in self.feeds:
                raise _err(f"The feed {t.name} was not specified in partial_run_setup.")
            if t in self.fed:
                raise _err(f"The feed {t.name} has already been fed.")

    def needed(self, fetches, new_feeds):
        """The tensors to compute (fetches first, then every other output of the
        ops they need, kept for later pieces) and the setup feeds still missing."""
        fed = set(self.known) | set(new_feeds)
        tensors = [f for f in fetches if isinstance(f, Tensor)]
        targets = [f for f in fetches if isinstance(f, Operation)]
        ops = needed_ops(tensors, targets, list(fed))
        missing = [t for op in ops for t in op.outputs if t in self.feeds and t not in fed]
        extra = [t for op in ops for t in op.outputs
                 if t not in fed and t not in tensors and _keepable(t.dtype)]
        return tensors, targets, extra, missing


def _keepable(dtype):
    base = dtype.base_dtype
    return base not in (dtypes.resource, dtypes.variant) and base.is_numpy_compatible
