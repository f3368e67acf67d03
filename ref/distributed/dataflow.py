"""Running a partition whose ``_Recv`` nodes wait on other tasks: a small dataflow executor.

A partition of TensorFlow's master (one per device), or of ref's master exchanging
tensors directly, receives values from other tasks' partitions of the same step while
it runs, and sends them values they wait for: the ps partition reads a variable, sends
it to the worker, and later receives the gradient to apply. Running it as one plan
after every input arrived would deadlock; TensorFlow's executor runs each node when
its inputs are there. So does :func:`run`:

* each op waits for its distinct input tensors and its control inputs; a ``_Recv``
  (imported as a placeholder) is done when its value arrives, a client-terminated
  one (fed by the master) at once;
* every ``_Recv`` from another task is asked for at the start, each on its own
  thread (``recv(key)`` blocks: a ``RecvTensor`` call, or the local rendezvous), or a
  batch of them from one task on one thread (``recv_many``: ref's tensor channel);
  arrivals go into an inbox the run waits on (``ref.ops.blocking.wait``: bounded by
  the run's deadline, ended by its cancellation);
* ready ops run one at a time in the partition's order (the interpreter's
  ``run_op``: the same kernels and variable commits as a local Session); an op with
  a dead input (below an untaken ``Switch``) is dead itself, except ``Merge``;
* a ``_Send`` to another task fires as soon as its value (and its control inputs)
  is done, before the next op runs: ``publish(key, value, is_dead)`` (a gradient goes
  to the ps while the worker computes the next one, as TF's executor sends at once);
* a value is dropped once its last consumer ran (TF's executor releases an entry when
  its last input count is taken), unless the caller keeps it (the master's fetches): a
  variable read that was sent to another task then no longer refers to the stored
  array, so the update later in the step runs in place on it.

While loops whose frames span tasks are not run here (RegisterGraph refuses them).
"""
from __future__ import annotations

import heapq
import threading
import time
from concurrent import futures

from ref.types import errors
from ref.ops import blocking
from ref.ops.control import DEAD
from ref.session.interpreter import Ref
from ref.session.interpreter.reference import run_op

__all__ = ["DataflowGraph", "run", "FRAME_OPS"]

# the threads that wait for values from other tasks (one per pending _Recv); a waiting
# recv holds one until its value arrives, its step ends, or its deadline passes
_RECV_POOL = futures.ThreadPoolExecutor(max_workers=256, thread_name_prefix="ref-recv")

FRAME_OPS = frozenset({"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration",
                       "LoopCond"})


class DataflowGraph:
    """The schedule of one partition, computed once at RegisterGraph.

    ``ops``: the partition's ops (not its ``_Recv`` placeholders) in import order;
    ``sources``: placeholder op -> its tensor; ``sends``: ``[(key, tensor, control ops)]``
    of the ``_Send`` nodes to other tasks.
    """

    def __init__(self, ops, sources, sends):
        self.ops = list(ops)
        self.sends = list(sends)
        index = {op: i for i, op in enumerate(self.ops)}
        n = len(self.ops)
        self.need = [0] * (n + len(self.sends))
        self.by_tensor, self.by_op = {}, {}
        for i, op in enumerate(self.ops):
            for t in set(op.inputs):
                self.need[i] += 1
                self.by_tensor.setdefault(t, []).append(i)
            for c in set(op.control_inputs):
                self.need[i] += 1
                self.by_op.setdefault(c, []).append(i)
        for j, (_, t, ctrl) in enumerate(self.sends):
            self.need[n + j] += 1
            self.by_tensor.setdefault(t, []).append(n + j)
            for c in set(ctrl):
                self.need[n + j] += 1
                self.by_op.setdefault(c, []).append(n + j)
        self.sources = dict(sources)
        self.index = index
        # ops that compute nothing and read no variable (NoOp, Identity of a value: a
        # gradient's gate): run as soon as they are ready, ahead of the partition's order, so
        # that a value another task waits for is sent when it is computed, not when every op
        # before its gate in the partition's order has run. Their order changes no value.
        self.prompt = [op.type == "NoOp" or (op.type == "Identity" and not op.inputs[0].dtype.is_ref_dtype)
                       for op in self.ops]
        # each op's (and send's) distinct input tensors, and how many consumers each tensor has
        self.inputs = [tuple(set(op.inputs)) for op in self.ops] + [(t,) for _, t, _ in self.sends]
        self.uses = {t: len(c) for t, c in self.by_tensor.items()}


def run(graph, feeds, state, recvs, recv, publish, trace=None, where="", keep=(), recv_many=None):
    """Runs every op of ``graph`` (a :class:`DataflowGraph`); returns ``{tensor: value}``
    of the tensors in ``keep`` (each other value is dropped after its last consumer).

    ``feeds``: {placeholder tensor: value} known at the start; ``recvs``: {key: placeholder
    tensor} to ask for with ``recv(key) -> (value, is_dead)`` (called on other threads);
    ``publish(key, value, is_dead)`` for each send to another task. With a ``trace`` list,
    appends ``(op, start_ns, end_ns, outputs)`` for each op run. ``recv_many(keys)``, when
    given, batches the asks: it returns ``[(keys of a batch, produce)]``, each ``produce()``
    yielding ``(key, value, is_dead)`` of its keys as they arrive (one thread per batch);
    the keys in no batch are asked with ``recv``.
    """
    n = len(graph.ops)
    need = list(graph.need)
    uses = dict(graph.uses)
    keep = frozenset(keep)
    env = {}
    arrived = set()
    ready = []  # ops ready to run, a heap of their indices: the partition's order
    sends = []  # sends ready to fire and prompt ops: before any other op (another task waits for them)
    cv = threading.Condition()
    inbox = []

    def available(t, value):
        consumers = graph.by_tensor.get(t, ())
        if consumers or t in keep:
            env[t] = value
        for c in consumers:
            need[c] -= 1
            if not need[c]:
                push(c)

    def push(c):
        if c >= n or graph.prompt[c]:
            sends.append(c)
        else:
            heapq.heappush(ready, c)

    def consumed(c):
        for t in graph.inputs[c]:
            uses[t] -= 1
            if not uses[t] and t not in keep:
                del env[t]

    def done(op):
        for c in graph.by_op.get(op, ()):
            need[c] -= 1
            if not need[c]:
                push(c)

    for c, k in enumerate(need):
        if not k:
            push(c)

    def fetch(key, t):
        try:
            value, dead = recv(key)
            item = (t, DEAD if dead else value, None)
        except errors.OpError as e:
            item = (t, None, e)
        except Exception as e:  # a transport failure becomes the run's error
            item = (t, None, errors.InternalError(None, None, f"RecvTensor for {key}: {e}"))
        with cv:
            inbox.append(item)
            cv.notify_all()

    def fetch_many(keys, produce):
        try:
            for key, value, dead in produce():
                with cv:
                    inbox.append((recvs[key], DEAD if dead else value, None))
                    cv.notify_all()
                value = None
            return
        except errors.OpError as e:
            item = (recvs[keys[0]], None, e)
        except Exception as e:  # a transport failure becomes the run's error
            item = (recvs[keys[0]], None, errors.InternalError(None, None, f"RecvTensor for {keys[0]}: {e}"))
        with cv:
            inbox.append(item)
            cv.notify_all()

    batched = set()
    for keys, produce in (recv_many(list(recvs)) if recv_many is not None and recvs else ()):
        batched.update(keys)
        _RECV_POOL.submit(fetch_many, keys, produce)
    for key, t in recvs.items():
        if key not in batched:
            _RECV_POOL.submit(fetch, key, t)
    for t, value in feeds.items():
        available(t, value)
        done(t.op)
    left = n + len(graph.sends)
    pending = len(recvs)
    while left:
        while ready or sends:
            c = sends.pop() if sends else heapq.heappop(ready)
            left -= 1
            if c >= n:
                key, t, _ = graph.sends[c - n]
                _publish(publish, key, env[t], state, t)
            else:
                op = graph.ops[c]
                _run(op, env, state, trace, available)
                done(op)
            consumed(c)
        if not left:
            break
        if not pending:
            stuck = [op.name for i, op in enumerate(graph.ops) if need[i] > 0][:5]
            raise errors.InternalError(None, None, f"partition on {where} cannot finish: {', '.join(stuck)} "
                                                   "wait for inputs that never come (a cycle?)")
        with cv:
            while not inbox:
                blocking.wait(cv, "_Recv", lambda: f"{pending} value(s) from other tasks not received yet "
                                                   f"({_waited(recvs, arrived)})")
            items, inbox[:] = list(inbox), []
        while items:
            t, value, error = items.pop()
            pending -= 1
            if error is not None:
                raise error
            arrived.add(t)
            available(t, value)
            done(t.op)
        value = None
    return env


def _publish(publish, key, value, state, t):
    """One send to another task (a function: no reference to the value outlives it)."""
    if value.__class__ is Ref:
        value = state.store.read(value.key, t.op)
    publish(key, value, value is DEAD)


def _run(op, env, state, trace, available):
    """Runs one op on its inputs' values; its outputs become available. A function, so that
    no local reference to an input (a variable read) outlives the op."""
    values = [env[t] for t in op.inputs]
    start = time.time_ns() if trace is not None else 0
    if op.type not in ("Merge", "RefMerge") and any(v is DEAD for v in values):
        outputs = (DEAD,) * len(op.outputs)
    else:
        outputs = run_op(op, values, state)
    if trace is not None:
        trace.append((op, start, time.time_ns(), list(outputs)))
    for t, v in zip(op.outputs, outputs):
        available(t, v)


def _waited(recvs, arrived):
    """The values still awaited, with the task each comes from (for a deadline's error)."""
    left = [key.split(";") for key, t in recvs.items() if t not in arrived]
    return "; ".join(f"{k[3]} from {k[0].split('/device:')[0]}" for k in left[:3] if len(k) == 5)
