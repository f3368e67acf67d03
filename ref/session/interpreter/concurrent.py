"""The step loop for plans with ops that may block (queue enqueue and dequeue,
accumulator and barrier takes, ``py_func``): :func:`execute_concurrently`.

TF's executor runs every ready op on its inter-op threads, so two ops of one
``Session.run`` that wait on each other -- a dequeue fetched together with the
enqueue that feeds it, two ``py_func`` handing values through a Python queue --
both finish. ``ref`` runs the steps one at a time in the plan's order, and
here a step that may block starts on a helper thread: if it finishes, or (a
``py_func``) is still running after :data:`PY_FUNC_GRACE_S`, or waits inside a
kernel (``ref.ops.blocking.wait`` says so), the loop goes on with the later
steps that do not depend on it, and takes its outputs when a step needs them or
the plan ends. Steps that do not block run on the calling thread in the plan's
order, so a plan whose blocking ops never wait computes the same values in the
same order as the plain loop.

An error anywhere cancels the ops still waiting (their runs raise
CancelledError) and the first error in the plan's order is raised, as TF
reports a failed step's first error; every helper is joined first.
"""
from __future__ import annotations

import threading
import time

from ref.types import errors
from ref.ops import blocking
from ref.ops.control import DEAD
from ref.session.interpreter.failures import KERNEL_ERRORS, op_error
from ref.session.interpreter.state import Ref
from ref.session.interpreter.steps import POSITIONAL, is_pure

__all__ = ["MAY_BLOCK", "may_block", "needs_concurrency", "execute_concurrently", "PY_FUNC_GRACE_S"]

_QUEUE = ("QueueEnqueue", "QueueEnqueueMany", "QueueDequeue", "QueueDequeueMany", "QueueDequeueUpTo", "QueueClose")
PY_FUNCS = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc"})
MAY_BLOCK = frozenset(_QUEUE + tuple(q + "V2" for q in _QUEUE) + (
    "BarrierTakeMany", "BarrierInsertMany", "BarrierClose", "AccumulatorTakeGradient",
    "ResourceAccumulatorTakeGradient", "SparseAccumulatorTakeGradient")) | PY_FUNCS
"""Op types whose kernel may wait for another op (or thread)."""

PY_FUNC_GRACE_S = 0.05
"""A ``py_func`` still running after this long lets the later steps run beside it."""

DEADLINE_GRACE_S = 0.2
"""Past the run's deadline, how long the loop leaves a waiting kernel to raise its own
DeadlineExceededError (naming its op) before it raises one itself (a ``py_func``
waiting in Python has no deadline of its own)."""


def may_block(step) -> bool:
    return step.op is not None and step.op._type in MAY_BLOCK


def needs_concurrency(plan) -> bool:
    """Whether some step that may block is followed by a step that does not depend
    on it (the only case where running steps beside a waiting one changes
    anything): a queue runner's dequeue-then-enqueue, each step needing the one
    before, stays in the plain loop."""
    steps = plan.steps
    blockers = [i for i, st in enumerate(steps) if may_block(st)]
    if not blockers:
        return False
    deps = step_dependencies(plan)
    for b in blockers:
        after = {b}
        for i in range(b + 1, len(steps)):
            if deps[i] & after:
                after.add(i)
            else:
                return True
    return False


def _runs_ahead(step) -> bool:
    """Whether ``step`` may run while an earlier step waits: pure ops, the ops that
    may block themselves (the enqueue a dequeue waits for) and ``Assert`` (a failing
    check cancels the wait). Other stateful ops (variable updates, accumulator
    applies) keep their place after every earlier step, as in the plain loop."""
    return may_block(step) or step.op._type == "Assert" or (step.opdef is not None and is_pure(step.opdef))


class _Helper:
    """One step's kernel on its own thread, under the calling thread's run."""

    def __init__(self, call, run):
        self.done, self.blocked = threading.Event(), threading.Event()
        self.result = self.error = None
        self.start_ns = time.time_ns()
        self.end_ns = None
        threading.Thread(target=self._main, args=(call, run), daemon=True, name="ref-inter-op").start()

    def _main(self, call, run):
        try:
            with blocking.adopt(run, self.blocked):
                self.result = call()
        except BaseException as e:  # handed to the loop, which raises it as the step's error
            self.error = e
        finally:
            self.end_ns = time.time_ns()
            self.done.set()
            self.blocked.set()


def execute_concurrently(plan, feeds, state, run_step, finish, trace=None):
    """Runs ``plan``'s steps as the module docstring says; returns ``finish(env)``
    (the plain loop's fetch handling). ``run_step`` runs a non-positional step."""
    own_run = blocking.current() is None
    with (blocking.bounded() if own_run else _nothing()) as run:
        run = run or blocking.current()
        return _loop(plan, feeds, state, run_step, finish, trace, run)


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _loop(plan, feeds, state, run_step, finish, trace, run):
    env = list(plan.template)
    for t, s in plan.feed_slots:
        env[s] = feeds[t]
    store = state.store
    steps = plan.steps
    pending, deferred = {}, []  # step index -> _Helper; steps put off, in plan order

    def args_of(step):
        args = []
        for src, deref in step.reads:
            v = env[src]
            if deref and v.__class__ is Ref:
                v = store.read(v.key, step.op)
            args.append(v)
        return args

    def call_of(step, args):
        if step.kind == POSITIONAL:
            return lambda: step.kernel(*args, **step.attrs)
        return lambda: run_step(step, args, state)

    def store_result(step, result):
        outs = step.outputs
        if step.kind == POSITIONAL:
            env[step.out0] = result
        elif outs:
            if step.multi:
                for s, v in zip(outs, result):
                    env[s] = v
            else:
                env[outs[0]] = result

    deps = step_dependencies(plan)
    waiting = set()  # steps pending or put off

    def ready(i):
        return not (deps[i] & waiting)

    def hold(i):
        waiting.add(i)

    def release(i):
        waiting.discard(i)

    def fail(i, e):
        """Cancel what still waits, join it, and raise step ``i``'s error (the first in plan order)."""
        run.cancel(f"{steps[i].op.name} failed")
        for h in pending.values():
            h.done.wait()
        raise op_error(e, steps[i].op) from (None if isinstance(e, errors.OpError) else e)

    def run_one(i):
        """Runs step ``i`` (its inputs are there); False when it is left waiting on a helper."""
        step = steps[i]
        if step.deadable and (any(env[src] is DEAD for src, _ in step.reads) or
                              any(env[s] is DEAD for s in step.dead_controls)):
            for s in step.outputs:
                env[s] = DEAD
            return True
        args = args_of(step)
        call = call_of(step, args)
        if may_block(step):
            helper = _Helper(call, run)
            helper.blocked.wait(PY_FUNC_GRACE_S if step.op._type in PY_FUNCS else None)
            if not helper.done.is_set():
                pending[i] = helper
                hold(i)
                return False
            if helper.error is not None:
                if isinstance(helper.error, KERNEL_ERRORS):
                    fail(i, helper.error)
                raise helper.error
            result, start, end = helper.result, helper.start_ns, helper.end_ns
        else:
            start = time.time_ns() if trace is not None else 0
            try:
                result = call()
            except KERNEL_ERRORS as e:
                fail(i, e)
            end = time.time_ns() if trace is not None else 0
        store_result(step, result)
        if trace is not None:
            trace.append((step.op, start, end, [env[s] for s in step.outputs]))
        return True

    def collect():
        """Takes the outputs of the helpers that finished; errors as :func:`fail`."""
        for i in sorted(pending):
            h = pending[i]
            if h.done.is_set():
                del pending[i]
                if h.error is not None:
                    if isinstance(h.error, KERNEL_ERRORS):
                        fail(i, h.error)
                    raise h.error
                release(i)
                store_result(steps[i], h.result)
                if trace is not None:
                    trace.append((steps[i].op, h.start_ns, h.end_ns, [env[s] for s in steps[i].outputs]))

    for i, step in enumerate(steps):
        if pending:
            collect()
        if ready(i) and (not pending or _runs_ahead(step)):
            run_one(i)
        else:
            deferred.append(i)
            hold(i)
    while deferred or pending:
        progressed = False
        collect()
        for n, i in enumerate(deferred):
            step = steps[i]
            if deps[i] & (waiting - {i}):
                continue
            if not _runs_ahead(step) and (pending or n > 0):  # stateful: after every earlier step
                continue
            deferred.remove(i)
            release(i)
            run_one(i)
            progressed = True
            break
        if not progressed and pending:
            next(iter(pending.values())).done.wait(0.005)
            late = run.deadline is not None and time.monotonic() > run.deadline + DEADLINE_GRACE_S
            if run.cancelled is not None or late:  # a waiting kernel raises its own error first
                reason = run.cancelled or "the run's deadline passed"
                run.cancel(reason)
                for h in pending.values():
                    h.done.wait(DEADLINE_GRACE_S)
                blocking.check("Session.run")
    return finish(env)



def step_dependencies(plan):
    """For each step, the earlier steps it needs done first: the producers of its
    inputs and its control inputs, looking through ops that are not steps (a
    ``NoOp`` grouping updates, an ``Identity`` folded away) to the steps behind
    them. Made once per plan."""
    cached = getattr(plan, "_step_deps", None)
    if cached is not None:
        return cached
    index = {st.op: i for i, st in enumerate(plan.steps) if st.op is not None}
    behind = {}  # a non-step op -> the steps it stands for

    def steps_of(op, seen):
        if op in index:
            return {index[op]}
        if op in behind:
            return behind[op]
        if op in seen:
            return set()
        seen.add(op)
        out = set()
        for t in op._inputs:
            out |= steps_of(t.op, seen)
        for c in op._control_inputs:
            out |= steps_of(c, seen)
        behind[op] = out
        return out

    deps = []
    for st in plan.steps:
        d = set()
        if st.op is not None:
            for t in st.op._inputs:
                d |= steps_of(t.op, set())
            for c in st.op._control_inputs:
                d |= steps_of(c, set())
        deps.append(frozenset(d))
    plan._step_deps = deps
    return deps
