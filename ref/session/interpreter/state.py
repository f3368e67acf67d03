"""What a graph runs against: :class:`RunState` (variable values, random
generators, resources) and what a ``ctx=True`` kernel sees of it (:class:`RunContext`).

A ``Session`` owns one :class:`RunState`, or shares an in-process server's; a
distributed worker session shares its task's store and resources and keeps its
own generators (TF's ``OpSegment``). The interpreter (``evaluate``,
``execute``) is handed the state and never the Session.
"""
from __future__ import annotations

import itertools
import threading

from ref.types import errors
from ref.platform import modes
from ref.ops.context import seeded_generator
from ref.ops.philox import PhiloxRandom
from ref.session.interpreter.failures import where

__all__ = ["Ref", "StateStore", "StepContainer", "RunState", "RunContext"]

_STEP_IDS = itertools.count(1)


class Ref:
    """The value of a variable's ref/resource tensor: a key into the state store."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __repr__(self):
        return f"Ref({self.key!r})"


class StateStore:
    """Variable values by variable key (container/shared name), and the lock a
    variable update holds (``steps.commit``)."""

    def __init__(self):
        self.values = {}
        self.lock = threading.RLock()

    def read(self, key, op):
        try:
            return self.values[key]
        except KeyError:
            raise errors.FailedPreconditionError(
                None, op, f"Attempting to use uninitialized value {key}" + where(op)) from None


class StepContainer:
    """One run's own resources (TF's per-step container ``__per_step_<id>`` of
    the resource manager): the store keys of the ``TemporaryVariable`` s this
    run made, by unique name. They go when the run ends."""

    __slots__ = ("name", "keys")

    def __init__(self):
        self.name = f"__per_step_{next(_STEP_IDS)}"
        self.keys = {}


class RunState:
    """The state runs share: ``store`` (a :class:`StateStore`), ``rngs`` (each
    stateful random op's generator, by op name) and ``resources`` (queues,
    accumulators, readers, tables, by key). Parts passed in are shared with
    whoever else holds them; the others start empty. ``step`` is the
    :class:`StepContainer` of one run (:meth:`begin_step`), None outside a run."""

    __slots__ = ("store", "rngs", "resources", "step")

    def __init__(self, store=None, rngs=None, resources=None, step=None):
        self.store = StateStore() if store is None else store
        self.rngs = {} if rngs is None else rngs
        self.resources = {} if resources is None else resources
        self.step = step

    def begin_step(self):
        """This state for one run: everything shared, plus a new step container."""
        return RunState(self.store, self.rngs, self.resources, StepContainer())

    def end_step(self):
        """Drops what the run left in its step container (a temporary variable
        nobody destroyed), as TF deletes a step's container when the step ends."""
        step = self.step
        if step is not None and step.keys:
            with self.store.lock:
                for key in step.keys.values():
                    self.store.values.pop(key, None)
            step.keys.clear()

    def close_resources(self):
        """Closes (else cancels) every resource and forgets them: blocked ops
        raise CancelledError. A resource's own failure to close is ignored."""
        for res in list(self.resources.values()):
            closer = getattr(res, "close", None) or getattr(res, "cancel", None)
            if closer is not None:
                try:
                    closer()
                except Exception:
                    pass
        self.resources.clear()


class RunContext:
    """What a ``ctx=True`` kernel sees: its op, the run's state, whether the plan
    reads each output, and ``run_subgraph`` (while/cond bodies) through
    ``runner(func, inputs, state)`` -- the interpreter running this op."""

    __slots__ = ("state", "op", "step", "runner")

    def __init__(self, state, op, step, runner):
        self.state = state
        self.op = op
        self.step = step  # None under the reference evaluator: every output counts as needed
        self.runner = runner

    def output_needed(self, i) -> bool:
        """Whether the running plan reads (or fetches) output ``i`` of this op."""
        return self.step is None or i in self.step.needed

    @property
    def op_name(self):
        return self.op.name

    @property
    def rng(self):
        """This op's NumPy generator (Multinomial, RandomGamma), kept in the state."""
        return self._generator(self.op.name, seeded_generator)

    @property
    def philox(self):
        """This op's Philox generator (TF's random numbers), kept in the state."""
        return self._generator(("philox", self.op.name), PhiloxRandom)

    def _generator(self, key, make):
        """The state's generator under ``key``, made from the op's seeds on first use."""
        rngs = self.state.rngs
        gen = rngs.get(key)
        if gen is None:
            attrs = self.op._attrs
            if not attrs.get("seed", 0) and not attrs.get("seed2", 0) and modes.is_op_determinism_enabled():
                raise errors.InvalidArgumentError(
                    None, None, "When determinism is enabled, random ops must have a seed specified.")
            gen = rngs.setdefault(key, make(self.op._attrs.get("seed", 0), self.op._attrs.get("seed2", 0)))
        return gen

    @property
    def resources(self):
        return self.state.resources

    @property
    def store(self):
        """The variable store (``DestroyResourceOp`` deletes from it)."""
        return self.state.store

    @staticmethod
    def reference(key):
        """The reference (a :class:`Ref`) to the store's value under ``key``: a ref output."""
        return Ref(key)

    @property
    def step_container(self):
        """The run's :class:`StepContainer` (None when the op runs outside a Session run)."""
        return self.state.step

    def run_subgraph(self, func, inputs):
        """Runs a function graph (while/cond body) on ``inputs`` with this run's state."""
        return self.runner(func, inputs, self.state)
