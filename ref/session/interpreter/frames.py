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
  parent frame only if its loop never sent a live one, once the loop is done
  (all its Enters ran and nothing in it waits; as a last resort, once nothing
  else can run);
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
kept per instance until it runs. For speed (issue 31) a plan's ops are linked
once into ``_Node`` s (consumers as (node, input index), the ready queue's rank,
the kernel call as a ``Step``), and the main loop runs plain one-output kernels,
``Identity`` and the loop ops in place; the ready queue's keys, and so the
order of every op, are those above (``bench/README.md``, "TF 1.x while loops").
"""
from __future__ import annotations

import collections
import heapq
import time

import numpy as np

from ref.types import errors
from ref.ops import blocking
from ref.ops.control import DEAD
from ref.session.interpreter.failures import KERNEL_ERRORS, op_error
from ref.session.interpreter.state import Ref
from ref.session.interpreter.steps import KERNEL, POSITIONAL, Step

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
            # a control input on an op whose outputs are all fed is met by the feed (TF's fed placeholder)
            stack.extend(c for c in op._control_inputs
                         if c._id not in needed and not (c._outputs and all(t in fed for t in c._outputs)))
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
        if self.has_loops:
            _check_frames(self, fed)


_SOURCE = object()  # the root frame's source, before every op without inputs (TF's source node)


def _check_frames(plan, fed):
    """TF's ``BuildControlFlowInfo``: each op's frame, found breadth-first from the
    source (an Enter opens its ``frame_name`` inside its input's frame, an Exit
    hands on to the enclosing one); an op reached from two different frames
    raises InvalidArgumentError ("has inputs from different frames")."""
    info = {_SOURCE: (_SOURCE, _SOURCE, "")}  # op -> (frame's Enter or _SOURCE, enclosing frame, frame name)
    reached_from = {}
    in_plan = {op._id for op in plan.ops}

    def edges(node):
        if node is _SOURCE:
            out = [op for op in plan.ops
                   if all(t in fed or t.op._id not in in_plan for t in op._inputs) and plan.n_inputs[op][1] == 0]
            return out + [c for t in plan.feeds for c, _ in plan.data_consumers.get(t, ())]
        return [c for t in node._outputs if t not in fed for c, _ in plan.data_consumers.get(t, ())] + \
            plan.control_consumers.get(node, [])

    ready = collections.deque([_SOURCE])
    while ready:
        node = ready.popleft()
        frame, parent, name = info[node]
        if node is not _SOURCE and node._type in _EXIT:
            frame, parent, name = info[parent]
        for out in edges(node):
            seen = out in reached_from
            if not seen:
                reached_from[out] = node
                ready.append(out)
            if out._type in _ENTER:
                if seen:
                    other = info[info[out][1]][2]
                    if other != name:
                        _different_frames(out, node, name, reached_from[out], other)
                else:
                    info[out] = (out, frame, out._attrs.get("frame_name", ""))
            elif seen:
                if info[out][2] != name:
                    _different_frames(out, node, name, reached_from[out], info[out][2])
            else:
                info[out] = (frame, parent, name)


def _different_frames(op, a, a_frame, b, b_frame):
    def node(x):
        return "{{node " + (x.name if x is not _SOURCE else "_SOURCE") + "}}"
    raise errors.InvalidArgumentError(
        None, op, f"{node(op)} has inputs from different frames. The input {node(a)} is in frame '{a_frame}'. "
                  f"The input {node(b)} is in frame '{b_frame}'.")


def frame_plan(fetch_tensors, target_ops, feed_tensors):
    """A :class:`FramePlan` when the ops the run needs include TF 1.x control flow, else None."""
    plan = FramePlan(fetch_tensors, target_ops, feed_tensors)
    return plan if plan.has_control_flow else None


# Node kinds: how an op instance is scheduled and what running it means.
_OTHER, _K_SWITCH, _K_MERGE, _K_ENTER, _K_EXIT, _K_NEXT, _K_LOOPCOND, _K_TRIGGER = range(8)
_KIND = {**{t: _K_SWITCH for t in _SWITCH}, **{t: _K_MERGE for t in _MERGE}, **{t: _K_ENTER for t in _ENTER},
         **{t: _K_EXIT for t in _EXIT}, **{t: _K_NEXT for t in _NEXT}, "LoopCond": _K_LOOPCOND,
         "ControlTrigger": _K_TRIGGER}


class _Node:
    """One op of a :class:`FramePlan` with what scheduling it needs, precomputed
    once per plan: its consumers as (node, input index) per output, its rank in
    the ready queue, and how its kernel is called (a :class:`Step` on the op's
    own input positions, or None: ``run_op`` runs it)."""

    __slots__ = ("op", "idx", "kind", "n_data", "n_control", "rank", "outs", "controls", "entering", "single",
                 "frame_name", "window", "is_constant", "step", "positional", "dead_outputs", "fast",
                 "forward")

    def __init__(self, op, idx, plan):
        self.op, self.idx = op, idx
        self.kind = _KIND.get(op._type, _OTHER)
        self.n_data, self.n_control = plan.n_inputs[op]
        self.rank = (int(op in plan.updates) << 40) | op._id  # variable updates last, then op id
        self.entering = plan.entering.get(op, 0)
        # fires on its first (only) input: no instance kept in between
        self.single = self.kind != _K_MERGE and self.n_data + self.n_control == 1
        self.frame_name = op._attrs.get("frame_name") if self.kind == _K_ENTER else None
        self.window = max(1, int(op._attrs.get("parallel_iterations", 10))) if self.kind == _K_ENTER else None
        self.is_constant = bool(op._attrs.get("is_constant")) if self.kind == _K_ENTER else False
        self.dead_outputs = (DEAD,) * len(op._outputs)
        self.step, self.positional = None, False
        opdef = op._opdef
        if (self.kind in (_OTHER, _K_TRIGGER) and opdef.kernel is not None and not opdef.refs and not opdef.ctx
                and not opdef.creates_ref and op._type != "Placeholder"):
            inputs = list(op._inputs)
            step = Step(op, KERNEL, inputs.index, list(range(len(op._outputs))))
            self.step = step
            self.positional = (step.kind == POSITIONAL and
                               [s for s, _ in step.reads] == list(range(len(inputs))))
        self.forward = op._type in ("Identity", "RefIdentity")  # its kernel hands its input on as it is (a Ref too)
        # run in the executor's loop: one output, a positional kernel or Identity
        self.fast = self.kind == _OTHER and len(op._outputs) == 1 and (self.positional or self.forward)


def _link(plan):
    """The plan's :class:`_Node` s, linked to their consumers (made on its first run)."""
    nodes = {op: _Node(op, i, plan) for i, op in enumerate(plan.ops)}
    fed, fetched = set(plan.feeds), set(plan.fetches)
    for op, node in nodes.items():
        node.outs = tuple((t, t in fetched, tuple((nodes[c], i) for c, i in plan.data_consumers.get(t, ())))
                          if t not in fed else None for t in op._outputs)
        node.controls = tuple(nodes[c] for c in plan.control_consumers.get(op, ()))
    plan.feed_consumers = {t: (t, t in fetched, tuple((nodes[c], i) for c, i in plan.data_consumers.get(t, ())))
                           for t in plan.feeds}
    plan.source_nodes = [nodes[op] for op in plan.sources]
    plan.enter_counts = collections.Counter(n.frame_name for n in nodes.values() if n.kind == _K_ENTER)
    plan.nodes = nodes
    return nodes


class _Frame:
    __slots__ = ("parent", "parent_iter", "children", "invariants", "iterations", "dead_exits", "live_exits",
                 "window", "open", "total", "done", "deferred", "name", "entered")

    def __init__(self, parent, parent_iter, window=None, name=""):
        self.parent, self.parent_iter = parent, parent_iter  # parent None: the root frame
        self.name = name  # the Enters' frame_name
        self.entered = 0  # how many of its Enters have run (live or dead)
        self.children = {}  # (iteration, frame_name) -> _Frame
        self.invariants = []  # (consumer node, input index, value) of constant Enters
        self.iterations = 1
        self.dead_exits = []  # Exit nodes that ran dead, in order
        self.live_exits = set()
        self.window = window  # parallel_iterations (None: the root frame, no bound)
        self.open = {}  # iteration -> its instances not run yet (waiting or ready, child frames' work included)
        self.total = 0  # sum of open
        self.done = 0  # iterations below this one are done
        self.deferred = []  # (NextIteration node, outputs, iteration) held back by the window


class _Instance:
    """An op instance waiting for more of its inputs."""

    __slots__ = ("values", "arrived", "controls", "dead", "dead_data")

    def __init__(self, n_data):
        self.values = [None] * n_data
        self.arrived = 0
        self.controls = 0
        self.dead = False
        self.dead_data = 0


_INDEX = tuple(np.int32(i) for i in range(8))  # a Merge's value_index (immutable scalars, shared)
_FIRED = object()  # instances[key] of a Merge that fired: later inputs of its iteration are ignored


def run(plan: FramePlan, feeds: dict, run_op, read, trace=None):
    """Runs ``plan`` with ``feeds`` ({Tensor: value}); returns the fetched values
    (DEAD for a fetch on an untaken branch). ``run_op(op, values)`` runs any
    other op on its input values and returns its outputs; ``read(value, op)``
    dereferences a variable's value (a predicate may be one). With a ``trace``
    list, appends ``(op, start_ns, end_ns, outputs)`` for each op run."""
    if getattr(plan, "nodes", None) is None:
        _link(plan)
    root = _Frame(None, 0)
    order = [root]  # frames in creation order
    instances = {}  # (node index, frame, iteration) -> _Instance waiting for more inputs (and fired Merges)
    ready = []
    seq = 0
    results = {}
    heappush, heappop = heapq.heappush, heapq.heappop

    def opened(f, it):
        """An instance of (f, it) waits or is ready: the iteration is not done."""
        while True:
            o = f.open
            o[it] = o.get(it, 0) + 1
            f.total += 1
            if f.total != 1 or f.parent is root:
                return
            f, it = f.parent, f.parent_iter

    def closed(f, it):
        """An instance of (f, it) ran; a done iteration lets a held-back one start."""
        while True:
            o = f.open
            n = o[it] - 1
            if n:
                o[it] = n
            else:
                del o[it]
                advance(f)
            f.total -= 1
            if f.total or f.parent is root:
                return
            f, it = f.parent, f.parent_iter

    def advance(f, force=False):
        """Marks finished iterations done and starts the held-back ones the window now admits."""
        while f.done < f.iterations and f.done not in f.open:
            f.done += 1
        while f.deferred and (force or f.deferred[0][2] + 1 < f.done + f.window):
            node, outputs, it = f.deferred.pop(0)
            send(node, outputs, f, it, False, True)

    def arrive(node, index, value, frame, it):
        """Data input ``index`` (None: a control input) of ``node`` in (frame, it) has arrived."""
        nonlocal seq
        if node.single:  # its one input: it fires now
            if frame is not root:  # inline opened(frame, it)
                o = frame.open
                o[it] = o.get(it, 0) + 1
                frame.total += 1
                if frame.total == 1 and frame.parent is not root:
                    opened(frame.parent, frame.parent_iter)
            seq += 1
            heappush(ready, (node.rank, seq, node, frame, it, [value] if index is not None else (),
                             value is DEAD and (index is not None or node.kind != _K_TRIGGER)))
            return
        key = (node.idx, frame, it)
        inst = instances.get(key)
        if inst is None:
            inst = instances[key] = _Instance(node.n_data)
            if frame is not root:  # inline opened(frame, it)
                o = frame.open
                o[it] = o.get(it, 0) + 1
                frame.total += 1
                if frame.total == 1 and frame.parent is not root:
                    opened(frame.parent, frame.parent_iter)
        elif inst is _FIRED:
            return  # a Merge that already ran
        dead = value is DEAD
        kind = node.kind
        if index is None:
            inst.controls += 1
            if dead and kind != _K_MERGE and kind != _K_TRIGGER:
                inst.dead = True
        else:
            inst.values[index] = value
            inst.arrived += 1
            if dead:
                inst.dead_data += 1
                if kind != _K_MERGE:
                    inst.dead = True
        if kind == _K_MERGE:
            if inst.controls < node.n_control:
                return
            live = False
            for v in inst.values:
                if v is not None and v is not DEAD:
                    live = True
                    break
            need_dead = node.entering if it == 0 else node.n_data
            if live or (inst.dead_data >= need_dead > 0):
                instances[key] = _FIRED
                seq += 1
                heappush(ready, (node.rank, seq, node, frame, it, inst.values, False))
            return
        if inst.arrived == node.n_data and inst.controls == node.n_control:
            del instances[key]
            seq += 1
            heappush(ready, (node.rank, seq, node, frame, it, inst.values, inst.dead))

    def new_iteration(f, it):
        while f.iterations <= it:
            blocking.check("While loop")  # the run's deadline (timeout_in_ms) and cancellation, every iteration
            k = f.iterations
            for node, index, value in f.invariants:
                arrive(node, index, value, f, k)
            f.iterations += 1

    def send(node, outputs, frame, it, dead, admitted=False):
        """Hands ``node``'s outputs (and its control signal) to its consumers."""
        kind = node.kind
        if kind == _K_ENTER:
            child = frame.children.get((it, node.frame_name))
            if child is None:
                child = frame.children[(it, node.frame_name)] = _Frame(frame, it, node.window, node.frame_name)
                order.append(child)
            child.entered += 1
            if node.is_constant:
                n = child.iterations
                value = outputs[0]
                for c, i in node.outs[0][2] if node.outs[0] is not None else ():
                    child.invariants.append((c, i, value))
                    for k in range(n):
                        arrive(c, i, value, child, k)
                signal = DEAD if dead else True
                for c in node.controls:
                    for k in range(n):
                        arrive(c, None, signal, child, k)
                return
            frame, it = child, 0
        elif kind == _K_EXIT:
            if dead:
                frame.dead_exits.append(node)
                return
            frame.live_exits.add(node)
            frame, it = frame.parent, frame.parent_iter
        elif kind == _K_NEXT:
            if dead:
                return  # deadness stops here: the loop is over
            if not admitted and frame.window is not None and (frame.deferred or it + 1 >= frame.done + frame.window):
                frame.deferred.append((node, outputs, it))  # parallel_iterations: iteration it + 1 waits
                return
            new_iteration(frame, it + 1)
            it += 1
        at_root = frame is root
        for out, value in zip(node.outs, outputs):
            if out is None:
                continue  # a fed tensor
            tensor, fetched, consumers = out
            if fetched and at_root:
                results[tensor] = value
            for c, i in consumers:
                arrive(c, i, value, frame, it)
        if node.controls:
            signal = DEAD if dead else True
            for c in node.controls:
                arrive(c, None, signal, frame, it)

    def flush(f):
        """Sends ``f``'s dead Exits (those that never sent a live value) to its parent frame."""
        exits, f.dead_exits = f.dead_exits, []
        sent = False
        for node in dict.fromkeys(exits):
            if node in f.live_exits:
                continue
            f.live_exits.add(node)
            sent = True
            for out in node.outs:
                if out is None:
                    continue
                if f.parent is root and out[1]:
                    results[out[0]] = DEAD
                for c, i in out[2]:
                    arrive(c, i, DEAD, f.parent, f.parent_iter)
            for c in node.controls:
                arrive(c, None, DEAD, f.parent, f.parent_iter)
        return sent

    enters = plan.enter_counts
    for tensor, value in feeds.items():
        _, fetched, consumers = plan.feed_consumers[tensor]
        if fetched:
            results[tensor] = value
        for c, i in consumers:
            arrive(c, i, value, root, 0)
    for node in plan.source_nodes:
        seq += 1
        heappush(ready, (node.rank, seq, node, root, 0, (), False))

    while True:
        while ready:
            _, _, node, frame, it, values, dead = heappop(ready)
            kind = node.kind
            if dead:
                send(node, node.dead_outputs, frame, it, True)
            elif kind == _K_MERGE:
                for live, v in enumerate(values):
                    if v is not None and v is not DEAD:
                        send(node, (v, _INDEX[live] if live < 8 else np.int32(live)), frame, it, False)
                        break
                else:
                    send(node, (DEAD, DEAD), frame, it, True)
            elif trace is None:
                if node.fast:  # one output, consumers in its frame
                    if node.forward:
                        value = values[0]
                    else:  # a kernel called positionally
                        step = node.step
                        for v in values:
                            if v.__class__ is Ref:
                                values = [read(x, node.op) if x.__class__ is Ref else x for x in values]
                                break
                        try:
                            value = step.kernel(*values, **step.attrs)
                        except KERNEL_ERRORS as e:
                            raise op_error(e, node.op) from (None if isinstance(e, errors.OpError) else e)
                    out = node.outs[0]
                    if out is not None:
                        if out[1] and frame is root:
                            results[out[0]] = value
                        for c, i in out[2]:
                            if c.single:  # inline arrive(c, i, value, frame, it) of a live value
                                if frame is not root:
                                    o = frame.open
                                    o[it] = o.get(it, 0) + 1
                                    frame.total += 1
                                    if frame.total == 1 and frame.parent is not root:
                                        opened(frame.parent, frame.parent_iter)
                                seq += 1
                                heappush(ready, (c.rank, seq, c, frame, it, [value], False))
                            else:
                                arrive(c, i, value, frame, it)
                    for c in node.controls:
                        arrive(c, None, True, frame, it)
                elif kind == _K_NEXT or kind == _K_EXIT or kind == _K_ENTER:
                    send(node, (values[0],), frame, it, False)
                elif kind == _K_LOOPCOND and values[0].__class__ is np.ndarray and values[0].dtype == np.bool_:
                    send(node, (values[0],), frame, it, False)  # np.asarray(pred, dtype=bool) is pred itself
                elif kind == _K_SWITCH and values[1].__class__ is np.ndarray and values[1].ndim == 0:
                    send(node, (DEAD, values[0]) if values[1] else (values[0], DEAD), frame, it, False)
                else:
                    send(node, _run(node, values, run_op, read), frame, it, False)
            else:
                start = time.time_ns()
                outputs = _run(node, values, run_op, read)
                trace.append((node.op, start, time.time_ns(), list(outputs)))
                send(node, outputs, frame, it, False)
            if frame is not root:  # inline closed(frame, it)
                o = frame.open
                n = o[it] - 1
                if n:
                    o[it] = n
                else:
                    del o[it]
                    advance(frame)
                frame.total -= 1
                if not frame.total and frame.parent is not root:
                    closed(frame.parent, frame.parent_iter)
        # quiescent: a loop that is done (TF's DeleteFrame: every Enter ran, no instance of it waits)
        # and never sent a live value through an Exit sends a dead one; loops still waiting keep theirs
        pending = False
        for f in order:
            if f.dead_exits and not f.total and not f.deferred and f.entered >= enters.get(f.name, 0):
                pending = flush(f) or pending
        if not pending:  # nothing can run: iterations held back by parallel_iterations start after all
            for f in order:
                if f.deferred:
                    advance(f, force=True)
                    pending = True
        if not pending:  # still nothing: the loops that wait hear of their dead Exits too
            for f in order:
                pending = flush(f) or pending
        if not pending:
            break
    out = []
    for t in plan.fetches:
        if t not in results:
            raise errors.InternalError(None, t.op, f"{t.name} was never computed: its frame did not complete")
        out.append(results[t])
    return out


def _run(node, values, run_op, read):
    """The outputs of ``node``'s op on live input ``values``."""
    step = node.step
    if step is not None:  # a kernel called here, as the step loop calls it
        op = node.op
        if node.positional:
            for v in values:
                if v.__class__ is Ref:  # a variable's value, read now
                    values = [read(x, op) if x.__class__ is Ref else x for x in values]
                    break
        try:
            if node.positional:
                return (step.kernel(*values, **step.attrs),)
            args = []
            for s, deref in step.reads:
                v = values[s]
                args.append(read(v, op) if deref and v.__class__ is Ref else v)
            result = step.kernel(**step.keywords(args))
        except KERNEL_ERRORS as e:
            raise op_error(e, op) from (None if isinstance(e, errors.OpError) else e)
        if step.multi:
            return tuple(result) if result is not None else ()
        return (result,)
    kind = node.kind
    if kind == _K_SWITCH:
        pred = read(values[1], node.op)
        if np.ndim(pred) != 0:
            raise errors.InvalidArgumentError(None, node.op, f"The second input must be a scalar, but it has "
                                                             f"shape {list(np.shape(pred))}")
        return (DEAD, values[0]) if bool(pred) else (values[0], DEAD)
    if kind == _K_ENTER or kind == _K_EXIT or kind == _K_NEXT:
        return (values[0],)
    if kind == _K_LOOPCOND:
        return (np.asarray(read(values[0], node.op), dtype=bool),)
    return tuple(run_op(node.op, values))
