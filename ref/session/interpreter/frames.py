"""TF 1.x dataflow control flow at run time: frames, iterations and dead tensors.

A graph built by ``tf.cond``/``tf.while_loop`` in TF 1.x form holds ``Switch``,
``Merge``, ``Enter``, ``Exit``, ``NextIteration`` and ``LoopCond`` ops, and
while loops make it cyclic (``Merge`` reads ``NextIteration``). Such a plan is
run here by a small dataflow executor in the manner of TF's executor
(``core/common_runtime/executor.cc``, "Control-flow" in TF's whitepaper on
dynamic control flow):

* every value is tagged with its *frame* and *iteration*. The root frame is
  ``()``; an ``Enter`` with ``frame_name`` ``f`` run in frame ``F``,
  iteration ``i`` hands its value to child frame ``(F, i, f)``, iteration 0
  (``is_constant``: to every iteration of it); ``NextIteration`` hands its
  value to the next iteration of its frame, ``Exit`` to the parent frame;
* an op instance (op, frame, iteration) runs once all its data and control
  inputs have arrived in its frame and iteration. ``Merge`` runs as soon as
  one live data input arrives (or once all its entering inputs arrived dead);
* ``Switch`` sends its data to one output; the other gets :data:`DEAD`. An op
  with a dead input (data or control) does not run: its outputs are dead.
  Deadness stops at ``NextIteration``; a dead ``Exit`` value reaches the
  parent frame only if its loop never sent a live one, once the loop is done;
* ``ControlTrigger`` runs even when its control inputs are dead;
* every new iteration checks the run's deadline and cancellation
  (:func:`ref.ops.blocking.check`);
* among ready instances, those not updating a variable in place run first,
  then the lower op id and the earlier arrival: runs are deterministic;
* ``parallel_iterations`` (the loop's Enter attr) bounds the iterations of a
  frame in flight, as TF's executor does: iteration ``i + n`` starts (its
  NextIteration values are held back) only once iteration ``i`` is done, no
  instance of it (nor of a loop nested in it) waiting or ready.

The kernels of other ops are run by the interpreter's callback; values are
kept per instance until it runs.
"""
from __future__ import annotations

import heapq
import time

import numpy as np

from ref.types import errors
from ref.ops import blocking
from ref.ops.control import DEAD

__all__ = ["CONTROL_FLOW_OPS", "FramePlan", "frame_plan", "run"]

CONTROL_FLOW_OPS = frozenset({"Switch", "RefSwitch", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
                              "NextIteration", "RefNextIteration", "LoopCond"})
_SWITCH = frozenset({"Switch", "RefSwitch"})
_MERGE = frozenset({"Merge", "RefMerge"})
_ENTER = frozenset({"Enter", "RefEnter"})
_EXIT = frozenset({"Exit", "RefExit"})
_NEXT = frozenset({"NextIteration", "RefNextIteration"})
_LOOP_OPS = _ENTER | _EXIT | _NEXT | {"LoopCond"}
_FORWARD = frozenset({"LoopCond", "Identity", "RefIdentity"})


class FramePlan:
    """The ops a run needs (data and control inputs, pruned at fed tensors)
    and who consumes what."""

    def __init__(self, fetch_tensors, target_ops, feed_tensors):
        fed = set(feed_tensors)
        needed, stack = {}, [t.op for t in fetch_tensors if t not in fed] + list(target_ops)
        while stack:
            op = stack.pop()
            if op._id in needed:
                continue
            needed[op._id] = op
            stack.extend(t.op for t in op._inputs if t not in fed and t.op._id not in needed)
            stack.extend(c for c in op._control_inputs if c._id not in needed)
        self.ops = [needed[i] for i in sorted(needed)]
        self.has_control_flow = any(op._type in CONTROL_FLOW_OPS for op in self.ops)
        self.has_loops = any(op._type in _LOOP_OPS for op in self.ops)  # else only conds: steps can run it
        self.fetches = list(fetch_tensors)
        self.feeds = list(feed_tensors)
        ids = set(needed)
        self.data_consumers = {}  # Tensor -> [(op, input index)]
        self.control_consumers = {}  # Operation -> [op]
        self.n_inputs = {}
        for op in self.ops:
            n_control = 0
            for c in op._control_inputs:
                if c._id in ids:
                    self.control_consumers.setdefault(c, []).append(op)
                    n_control += 1
            for i, t in enumerate(op._inputs):
                self.data_consumers.setdefault(t, []).append((op, i))
            self.n_inputs[op] = (len(op._inputs), n_control)
        # a Merge in iteration 0 hears only from its inputs that are not NextIteration
        self.entering = {op: sum(1 for t in op._inputs if t.op._type not in _NEXT)
                         for op in self.ops if op._type in _MERGE}
        self.sources = [op for op in self.ops if not op._inputs and self.n_inputs[op][1] == 0]
        self.updates = {op for op in self.ops if op._opdef.refs and op._type != "IsVariableInitialized"}


def frame_plan(fetch_tensors, target_ops, feed_tensors):
    """A :class:`FramePlan` when the ops the run needs include TF 1.x control flow, else None."""
    plan = FramePlan(fetch_tensors, target_ops, feed_tensors)
    return plan if plan.has_control_flow else None


class _Frame:
    __slots__ = ("key", "parent", "parent_iter", "invariants", "iterations", "dead_exits", "live_exits", "window",
                 "open", "total", "done", "deferred")

    def __init__(self, key, parent, parent_iter, window=None):
        self.key, self.parent, self.parent_iter = key, parent, parent_iter
        self.invariants = []  # (consumer op, input index, value) of constant Enters
        self.iterations = 1
        self.dead_exits = []  # Exit ops that ran dead, in order
        self.live_exits = set()
        self.window = window  # parallel_iterations (None: the root frame, no bound)
        self.open = {}  # iteration -> its instances not run yet (waiting or ready, child frames' work included)
        self.total = 0  # sum of open
        self.done = 0  # iterations below this one are done
        self.deferred = []  # (NextIteration op, outputs, iteration) held back by the window


class _Instance:
    __slots__ = ("values", "arrived", "controls", "dead", "dead_data", "fired")

    def __init__(self, n_data):
        self.values = [None] * n_data
        self.arrived = 0
        self.controls = 0
        self.dead = False
        self.dead_data = 0
        self.fired = False


def run(plan: FramePlan, feeds: dict, run_op, read, trace=None):
    """Runs ``plan`` with ``feeds`` ({Tensor: value}); returns the fetched values
    (DEAD for a fetch on an untaken branch). ``run_op(op, values)`` runs any
    other op on its input values and returns its outputs; ``read(value, op)``
    dereferences a variable's value (a predicate may be one). With a ``trace``
    list, appends ``(op, start_ns, end_ns, outputs)`` for each op run."""
    frames = {(): _Frame((), None, 0)}
    order = [()]  # frames in creation order
    instances = {}
    ready = []
    seq = [0]
    results = {}
    fed = set(feeds)
    fetch_set = set(plan.fetches)

    def instance(op, frame, it):
        key = (op, frame, it)
        inst = instances.get(key)
        if inst is None:
            inst = instances[key] = _Instance(plan.n_inputs[op][0])
            if frame:
                opened(frame, it)
        return key, inst

    def opened(frame, it):
        """An instance of (frame, it) waits or is ready: the iteration is not done."""
        f = frames[frame]
        f.open[it] = f.open.get(it, 0) + 1
        f.total += 1
        if f.total == 1 and f.parent:
            opened(f.parent, f.parent_iter)

    def closed(frame, it):
        """An instance of (frame, it) ran; a done iteration lets a held-back one start."""
        f = frames[frame]
        n = f.open[it] - 1
        if n:
            f.open[it] = n
        else:
            del f.open[it]
            advance(f)
        f.total -= 1
        if f.total == 0 and f.parent:
            closed(f.parent, f.parent_iter)

    def advance(f, force=False):
        """Marks finished iterations done and starts the held-back ones the window now admits."""
        while f.done < f.iterations and f.done not in f.open:
            f.done += 1
        while f.deferred and (force or f.deferred[0][2] + 1 < f.done + f.window):
            op, outputs, it = f.deferred.pop(0)
            send(op, outputs, f.key, it, False, True)

    def push(op, frame, it):
        seq[0] += 1
        heapq.heappush(ready, (op in plan.updates, op._id, seq[0], op, frame, it))

    def arrive(op, index, value, frame, it):
        """Data input ``index`` (None: a control input) of ``op`` in (frame, it) has arrived."""
        key, inst = instance(op, frame, it)
        if inst.fired:
            return  # a Merge that already ran
        dead = value is DEAD
        n_data, n_control = plan.n_inputs[op]
        if index is None:
            inst.controls += 1
            if dead and op._type not in _MERGE and op._type != "ControlTrigger":
                inst.dead = True
        else:
            inst.values[index] = value
            inst.arrived += 1
            if dead:
                inst.dead_data += 1
                if op._type not in _MERGE:
                    inst.dead = True
        if op._type in _MERGE:
            if inst.controls < n_control:
                return
            live = next((i for i, v in enumerate(inst.values) if v is not None and v is not DEAD), None)
            need_dead = plan.entering[op] if it == 0 else n_data
            if live is not None or (inst.dead_data >= need_dead > 0):
                inst.fired = True
                push(op, frame, it)
            return
        if inst.arrived == n_data and inst.controls == n_control:
            inst.fired = True
            push(op, frame, it)

    def new_iteration(frame, it):
        f = frames[frame]
        blocking.check("While loop")  # the run's deadline (timeout_in_ms) and cancellation, every iteration
        while f.iterations <= it:
            for op, index, value in f.invariants:
                arrive(op, index, value, frame, f.iterations)
            f.iterations += 1

    def send(op, outputs, frame, it, dead, admitted=False):
        """Hands ``op``'s outputs (and its control signal) to its consumers."""
        t = op._type
        if t in _ENTER:
            child = (frame, it, op._attrs["frame_name"])
            if child not in frames:
                frames[child] = _Frame(child, frame, it, max(1, int(op._attrs.get("parallel_iterations", 10))))
                order.append(child)
            dest = [(child, 0)]
            if op._attrs.get("is_constant"):
                f = frames[child]
                dest = [(child, k) for k in range(f.iterations)]
                for c_op, i in plan.data_consumers.get(op._outputs[0], ()):
                    f.invariants.append((c_op, i, outputs[0]))
        elif t in _EXIT:
            f = frames[frame]
            if dead:
                f.dead_exits.append(op)
                return
            f.live_exits.add(op)
            dest = [(f.parent, f.parent_iter)]
        elif t in _NEXT:
            if dead:
                return  # deadness stops here: the loop is over
            f = frames[frame]
            if not admitted and f.window is not None and (f.deferred or it + 1 >= f.done + f.window):
                f.deferred.append((op, outputs, it))  # parallel_iterations: iteration it + 1 waits
                return
            new_iteration(frame, it + 1)
            dest = [(frame, it + 1)]
        else:
            dest = [(frame, it)]
        for tensor, value in zip(op._outputs, outputs):
            if tensor in fed:
                continue
            if tensor in fetch_set and dest[0][0] == ():
                results[tensor] = value
            for c_op, i in plan.data_consumers.get(tensor, ()):
                for fr, k in dest:
                    arrive(c_op, i, value, fr, k)
        for c_op in plan.control_consumers.get(op, ()):
            for fr, k in dest:
                arrive(c_op, None, DEAD if dead else True, fr, k)

    for tensor, value in feeds.items():
        if tensor in fetch_set:
            results[tensor] = value
        for c_op, i in plan.data_consumers.get(tensor, ()):
            arrive(c_op, i, value, (), 0)
    for op in plan.sources:
        instances[(op, (), 0)] = inst = _Instance(0)
        inst.fired = True
        push(op, (), 0)

    while True:
        while ready:
            _, _, _, op, frame, it = heapq.heappop(ready)
            key = (op, frame, it)
            inst = instances.get(key)
            if op._type not in _MERGE:
                instances.pop(key, None)
            values = inst.values if inst is not None else []
            dead = inst is not None and inst.dead
            if op._type in _MERGE:
                live = next((i for i, v in enumerate(values) if v is not None and v is not DEAD), None)
                inst.values = [None] * len(values)
                if live is None:
                    send(op, (DEAD, DEAD), frame, it, True)
                else:
                    send(op, (values[live], np.int32(live)), frame, it, False)
            elif dead:
                send(op, (DEAD,) * len(op._outputs), frame, it, True)
            elif trace is None:
                send(op, _run(op, values, run_op, read), frame, it, False)
            else:
                start = time.time_ns()
                outputs = _run(op, values, run_op, read)
                trace.append((op, start, time.time_ns(), list(outputs)))
                send(op, outputs, frame, it, False)
            if frame and inst is not None:
                closed(frame, it)
        # quiescent: loops that never sent a live value through an Exit send a dead one
        pending = False
        for key in order:
            f = frames[key]
            exits, f.dead_exits = f.dead_exits, []
            for op in dict.fromkeys(exits):
                if op in f.live_exits:
                    continue
                f.live_exits.add(op)
                pending = True
                for tensor in op._outputs:
                    if f.parent == () and tensor in fetch_set:
                        results[tensor] = DEAD
                    for c_op, i in plan.data_consumers.get(tensor, ()):
                        arrive(c_op, i, DEAD, f.parent, f.parent_iter)
                for c_op in plan.control_consumers.get(op, ()):
                    arrive(c_op, None, DEAD, f.parent, f.parent_iter)
        if not pending:  # nothing can run: iterations held back by parallel_iterations start after all
            for key in order:
                f = frames[key]
                if f.deferred:
                    advance(f, force=True)
                    pending = True
        if not pending:
            break
    out = []
    for t in plan.fetches:
        if t not in results:
            raise errors.InternalError(None, t.op, f"{t.name} was never computed: its frame did not complete")
        out.append(results[t])
    return out


def _run(op, values, run_op, read):
    """The outputs of ``op`` on live input ``values``."""
    t = op._type
    if t in _SWITCH:
        pred = read(values[1], op)
        if np.ndim(pred) != 0:
            raise errors.InvalidArgumentError(None, op, f"The second input must be a scalar, but it has shape "
                                                        f"{list(np.shape(pred))}")
        return (DEAD, values[0]) if bool(pred) else (values[0], DEAD)
    if t in _ENTER or t in _EXIT or t in _NEXT:
        return (values[0],)
    if t == "LoopCond":
        return (np.asarray(read(values[0], op), dtype=bool),)
    return tuple(run_op(op, values))
