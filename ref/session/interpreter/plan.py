"""Plan building: which ops a run needs, in what order (:func:`needed_ops`), and
the :class:`Plan` that runs them over a flat environment of slots.

* the ops the fetches need: pruned at fed tensors, in creation order -- a
  topological order, since an op's inputs always exist before it -- except that
  in-place variable updates wait for the reads that nothing orders after them;
  pure ops whose outputs nothing reads (only a control dependency asks for
  them) do not run, as TF's grappler makes them NoOps;
* every tensor gets a slot; what never changes is computed once into the
  plan's template: ``Const`` values, the references variables produce, and pure
  ops whose inputs are all constant (constant folding);
* ``NoOp`` steps vanish and an ``Identity``'s output shares its input's slot;
* each value is dropped after its last reader;
* below a ``Switch``, steps check their inputs for ``DEAD`` (``deadable``), and
  the control inputs that may be dead (a cond branch's pivot: ``dead_controls``);
  a plan with while-loop ops (or a variable's reference through a cond) runs in
  :mod:`ref.session.interpreter.frames` instead.
"""
from __future__ import annotations

import heapq

from ref.session.interpreter import frames, grappler
from ref.session.interpreter.concurrent import MAY_BLOCK, needs_concurrency

# A worker's partition of a distributed step (its sends and receives): its steps run one at a
# time in the plan's order, as the master and the other tasks' partitions expect.
_PARTITION_OPS = frozenset({"_Send", "_Recv", "_HostSend", "_HostRecv"})
from ref.session.interpreter.state import Ref
from ref.session.interpreter.steps import KERNEL, PLACEHOLDER, STATEFUL, Step, is_pure

__all__ = ["needed_ops", "Plan", "is_pure"]


def needed_ops(fetch_tensors, target_ops, feed_tensors) -> list:
    """The ops that computing ``fetch_tensors`` and running ``target_ops`` need,
    pruned at fed tensors, in a topological order (data and control inputs
    first). An op whose outputs are all fed does not run.

    Among ops ready at the same time, those that update a variable in place
    (ref inputs: ``Assign*``, ``Apply*``, ``Scatter*``) wait until no other op
    is ready, then creation order decides. So a read that no dependency orders
    after an update sees the value from before the run's updates, as TF's
    executor gives it in practice: a hook's global-step read built after the
    training op still sees the step before this run's increment."""
    fed = set(feed_tensors)
    needed = {}
    stack = [t.op for t in fetch_tensors if t not in fed] + list(target_ops)
    while stack:
        op = stack.pop()
        if op._id in needed:
            continue
        needed[op._id] = op
        for t in op._inputs:
            if t not in fed and t.op._id not in needed:
                stack.append(t.op)
        stack.extend(c for c in op._control_inputs if c._id not in needed)
    ops = [needed[i] for i in sorted(needed)]
    ops = [op for op in ops if not (op._outputs and all(t in fed for t in op._outputs))]
    if any(t.op._id > op._id for op in ops for t in op._inputs):
        ops = _creation_order_topological(ops)  # a cond rewired an input to a later Switch
    ops = _prune_unread(ops, fetch_tensors, target_ops)
    if not any(_rank(op) for op in ops):
        return ops  # creation order is already a topological order
    return _readers_first(ops, fed)


def _creation_order_topological(ops):
    """``ops`` in a topological order (inputs first), otherwise in creation order."""
    ids = {op._id: op for op in ops}
    waiting, users = {}, {}
    for op in ops:
        deps = {t.op._id for t in op._inputs if t.op._id in ids} | {c._id for c in op._control_inputs if c._id in ids}
        waiting[op._id] = len(deps)
        for d in deps:
            users.setdefault(d, []).append(op._id)
    ready = [i for i, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(ids[i])
        for u in users.get(i, ()):
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    return order


# Pure ops that TF's dependency optimizer keeps even when nothing reads them: their
# point is the error they raise (grappler's ``do_not_rewrite_ops``).
_KEEP_UNREAD = frozenset({"CheckNumerics", "Assert", "Placeholder"})


def _prune_unread(ops, fetch_tensors, target_ops):
    """``ops`` (in creation order) without the pure ones whose outputs no kept op
    reads and no fetch returns: ops only a control dependency asks for, like the
    values ``gradients()`` computes for a placeholder and gates with ``tf.tuple``.
    TF's grappler turns them into NoOps (``DependencyOptimizer``), so they neither
    run nor raise there; a target op itself always runs, as do ops that pass a
    variable's reference on (``Identity``)."""
    live = set(fetch_tensors)
    targets = {op._id for op in target_ops}
    kept = []
    for op in reversed(ops):
        opdef = op._opdef
        if (op._outputs and op._id not in targets and is_pure(opdef) and not opdef.raw_inputs
                and op._type not in _KEEP_UNREAD and not any(t in live for t in op._outputs)):
            continue
        kept.append(op)
        live.update(op._inputs)
    kept.reverse()
    return kept


# Cancellation: kernels that may wait on another step (a dequeue from an empty
# queue, an accumulator's take) run after every op that does not depend on them, so
# a failing op of the same run (an Assert) ends the step before they block; TF
# cancels them. Sorted last among ready ops by ``_rank``.
_MAY_BLOCK = frozenset({
    "QueueDequeue", "QueueDequeueV2", "QueueDequeueMany", "QueueDequeueManyV2", "QueueDequeueUpTo",
    "QueueDequeueUpToV2", "AccumulatorTakeGradient", "SparseAccumulatorTakeGradient",
    "ResourceAccumulatorTakeGradient", "ReaderRead", "ReaderReadV2", "ReaderReadUpTo", "ReaderReadUpToV2",
    "BarrierTakeMany", "QueueEnqueue", "QueueEnqueueV2", "QueueEnqueueMany", "QueueEnqueueManyV2",
})


def _rank(op) -> int:
    """0: runs as soon as it is ready; 1: updates a variable in place; 2: may block."""
    if op._type in _MAY_BLOCK:
        return 2
    return 1 if _updates_in_place(op) else 0


def _updates_in_place(op) -> bool:
    """Whether ``op`` may change a variable it takes by reference
    (IsVariableInitialized takes one only to look at it)."""
    return bool(op._opdef.refs) and op._type != "IsVariableInitialized"


def _readers_first(ops, fed):
    """``ops`` (in creation order) reordered by Kahn's algorithm: ready ops
    without ref inputs first, each group in creation order."""
    index = {op._id: op for op in ops}
    waiting = {}
    users = {}
    for op in ops:
        deps = {t.op._id for t in op._inputs if t not in fed and t.op._id in index}
        deps.update(c._id for c in op._control_inputs if c._id in index)
        waiting[op._id] = len(deps)
        for d in deps:
            users.setdefault(d, []).append(op._id)
    ready = [(_rank(op), op._id) for op in ops if waiting[op._id] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, i = heapq.heappop(ready)
        order.append(index[i])
        for u in users.get(i, ()):
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, (_rank(index[u]), u))
    return order


class Plan:
    """The steps to run for one (fetches, feeds, targets) signature. ``values_fed``:
    the feeds are values, never a variable's :class:`Ref` (``Session.run``'s feeds;
    a function body's inputs can be Refs)."""

    consts = ()  # (Const op, slot) of the template; a plan of frames has none

    def __init__(self, fetch_tensors, target_ops, feed_tensors, values_fed=False):
        # a plan holding TF 1.x loops (Enter/Exit/NextIteration) runs in
        # ref.session.interpreter.frames (reference.run_frames), not as steps; conds only: steps
        self.frames = frames.frame_plan(fetch_tensors, target_ops, feed_tensors)
        if self.frames is not None and (self.frames.has_loops or not self._build_steps(
                fetch_tensors, target_ops, feed_tensors, values_fed)):
            self.ops, self.values_fed, self.steps, self.runs = self.frames.ops, values_fed, [], 0
            self.compiled, self.compilable, self.fetch_ops = None, False, [t.op for t in fetch_tensors]
            self.may_block = False
            return
        if self.frames is not None:  # a plan with conds only runs as steps, dead tensors checked
            self.frames = None
            return
        self._build_steps(fetch_tensors, target_ops, feed_tensors, values_fed)

    def _build_steps(self, fetch_tensors, target_ops, feed_tensors, values_fed):
        """Builds the steps; False (nothing kept) when an op's deadness comes from a
        control input the steps cannot check (TF 1.x cond ops run in frames then)."""
        self.ops = needed_ops(fetch_tensors, target_ops, feed_tensors)
        in_plan = set(self.ops)
        self.values_fed = values_fed

        slot = {}
        count = [0]
        fed = set(feed_tensors)
        rank_memo = {}
        preserved = {t.op for t in fetch_tensors} | set(target_ops)

        def new_slot():
            count[0] += 1
            return count[0] - 1

        def slot_of(t):
            if t not in slot:
                slot[t] = new_slot()
            return slot[t]

        def output_slot(t):
            # A fed output of an op that runs for another output keeps its fed value
            # (as in TF): the op writes that output to a slot nobody reads.
            return new_slot() if t in fed else slot_of(t)

        self.feed_slots = [(t, slot_of(t)) for t in feed_tensors]
        template = {}
        consts = []  # (Const op, its slot): values of the template, still ops a trace lists (TF's step stats)
        steps = []
        maybe_dead = set()  # tensors downstream of a Switch: their consumers check for DEAD
        dead_ops = set()  # ops that may not run (a dead data or control input)
        if any(op._type in ("Merge", "RefMerge") for op in self.ops):
            # a Merge whose Switch ran elsewhere (a worker's partition): a fed value may be dead
            maybe_dead.update(feed_tensors)

        def control_slot(c):
            """The slot whose DEAD says control input ``c`` did not run, or None."""
            while c not in in_plan and c._type in ("Identity", "RefIdentity"):
                c = c._inputs[0].op  # a pruned pivot: it shares its input's deadness
            if c not in in_plan or not c._outputs or c._type == "Merge":
                return None
            return slot_of(c._outputs[0])

        for op in self.ops:
            opdef = op._opdef
            if op._type in ("RefSwitch", "RefMerge"):  # a variable's reference through a cond: frames
                return False
            dead_controls = [c for c in op._control_inputs if c in dead_ops]
            if op._type in ("Switch", "RefSwitch") or dead_controls or any(t in maybe_dead for t in op._inputs):
                maybe_dead.update(op._outputs)
                dead_ops.add(op)
            control_slots = tuple(control_slot(c) for c in dead_controls)
            if None in control_slots or (dead_controls and op._type in ("Identity", "Merge", "RefMerge")):
                return False
            if control_slots and op._type == "Const":  # a branch's constant: dead with its pivot
                step = Step(op, KERNEL, slot_of, [output_slot(t) for t in op._outputs])
                step.deadable, step.dead_controls = True, control_slots
                steps.append(step)
                continue
            if op._type in ("Identity", "RefIdentity"):
                # An identity is a second name for its input's value (or reference): share the slot.
                slot[op._outputs[0]] = slot_of(op._inputs[0])
                continue
            outs = [output_slot(t) for t in op._outputs]
            if op._type == "NoOp":
                continue
            if op._type == "Const":
                template[outs[0]] = op._attrs["value"]
                consts.append((op, outs[0]))
                continue
            if opdef.creates_ref:
                template[outs[0]] = Ref(op._attrs.get("shared_name") or op.name)
                continue
            if op._type == "Placeholder":
                steps.append(Step(op, PLACEHOLDER, slot_of, outs))
                continue
            step = Step(op, STATEFUL if opdef.refs else KERNEL, slot_of, outs)
            step.deadable = op._type != "Merge" and (bool(control_slots) or any(t in maybe_dead for t in op._inputs))
            step.dead_controls = control_slots
            if is_pure(opdef) and step.inputs_constant(template):
                folded = step.fold(template)
                if folded is not None:
                    template.update(folded)
                    continue
            rewritten = grappler.division_kernel(op, fed, rank_memo)  # after folding, as TF's order
            if rewritten is not None:
                step.kernel = rewritten
            log_softmax = grappler.log_of_softmax(op, in_plan, fed, preserved)
            if log_softmax is not None:
                sm_step = next((st for st in reversed(steps) if st.op is op._inputs[0].op), None)
                if sm_step is not None:
                    sm_step.kernel, step.kernel = log_softmax
            steps.append(step)
        self.fetch_slots = [slot_of(t) for t in fetch_tensors]
        self.size = count[0]
        self.template = [template.get(i) for i in range(self.size)]
        self.consts = consts
        # drop each value after its last reader (fetched values are kept)
        last = {}
        for i, step in enumerate(steps):
            for s, _ in step.reads:
                last[s] = i
            for s in step.dead_controls:
                last[s] = i
        keep = set(self.fetch_slots)
        drops = [[] for _ in steps]
        for s, i in last.items():
            if s not in keep:
                drops[i].append(s)
        for step, d in zip(steps, drops):
            step.drops = tuple(d)
            step.needed = frozenset(i for i, s in enumerate(step.outputs) if s in last or s in keep)
        self.steps = steps
        self.fetch_ops = [t.op for t in fetch_tensors]
        self.runs = 0
        self.compiled = None
        # A step that may wait on another (a dequeue fed by an enqueue of the same run, a py_func)
        # runs on a helper thread while the ready steps go on (concurrent.py); with one step
        # there is nothing to run beside it.
        self.steps = steps
        self.may_block = len(steps) > 1 and any(st.op is not None and st.op._type in MAY_BLOCK for st in steps) \
            and not any(st.op is not None and st.op._type in _PARTITION_OPS for st in steps) \
            and needs_concurrency(self)
        # Plans below a Switch stay in the step loop: compiled code has no dead-tensor bookkeeping.
        self.compilable = not maybe_dead and not self.may_block
        # Set by ref.session.devices for a plan with GPU steps: a fetched value's host copy.
        self.fetch_to_host = None
        return True


