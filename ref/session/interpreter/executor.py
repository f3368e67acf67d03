"""Running a :class:`~ref.session.interpreter.plan.Plan`: the step loop
(:func:`execute`), which after :data:`COMPILE_AFTER` runs hands the plan to the
code it is compiled into (``codegen``), and function graphs (while/cond bodies,
:func:`run_function`).

A variable's tensor holds a :class:`~ref.session.interpreter.state.Ref`; an op
reading a ref input gets the stored value, a non-ref input fed by a ref is
dereferenced when its consumer runs, and a stateful op's new values are
committed back (``steps.commit``). Below a ``Switch`` an op whose input is
``DEAD`` does not run and its outputs are dead too.
"""
from __future__ import annotations

import threading
import time
import weakref

from ref.types import errors
from ref.ops.control import DEAD
from ref.session.interpreter.codegen import compile_plan
from ref.session.interpreter.concurrent import execute_concurrently, may_block
from ref.session.interpreter.failures import KERNEL_ERRORS, live, op_error, placeholder_error
from ref.session.interpreter.plan import Plan
from ref.session.interpreter.reference import run_frames
from ref.session.interpreter.state import Ref, RunContext
from ref.session.interpreter.steps import PLACEHOLDER, POSITIONAL, STATEFUL, run_update

__all__ = ["execute", "run_function", "run_step", "COMPILE_AFTER"]

COMPILE_AFTER = 1
"""Runs of a plan through the step loop before :func:`compile_plan` turns it into code."""


def execute(plan: Plan, feeds: dict, state, fetch_tensors=None, trace=None, allow_dead=False):
    """Runs ``plan`` with ``feeds`` ({Tensor: value}) against ``state`` (a
    ``RunState``); returns the fetched values (variables dereferenced). With a
    ``trace`` list, appends ``(op, start_ns, end_ns, outputs)`` for each step
    run (``RunOptions.trace_level``).

    A plan run more than :data:`COMPILE_AFTER` times runs as the Python function
    :func:`compile_plan` writes for it: the same kernel calls in the same order,
    without the loop's bookkeeping. ``allow_dead``: a fetched tensor on a
    Switch's untaken branch comes back as :data:`~ref.ops.control.DEAD` instead
    of TF's "does not have value" (a worker's partition hands deadness on, as
    TF's rendezvous does with ``is_dead``)."""
    if plan.frames is not None:  # TF 1.x control flow
        return run_frames(plan.frames, feeds, state, trace, allow_dead)
    if trace is not None:  # a Const's value is the plan's own; TF's step stats still list the op
        now = time.time_ns()
        trace.extend((op, now, now, [plan.template[s]]) for op, s in plan.consts)
    if trace is None:
        run = plan.compiled
        if run is not None:
            return run(feeds, state)
        plan.runs += 1
        if plan.runs > COMPILE_AFTER and plan.compilable:
            plan.compiled = run = compile_plan(plan, run_step)
            return run(feeds, state)
    if plan.may_block:  # a step may wait on another: the ready steps run beside it (concurrent.py)
        return execute_concurrently(plan, feeds, state, run_step,
                                    lambda env: _fetched(plan, env, state.store, fetch_tensors, allow_dead), trace)
    env = list(plan.template)
    for t, s in plan.feed_slots:
        env[s] = feeds[t]
    store = state.store
    for step in plan.steps:
        if trace is not None:
            start = time.time_ns()
        if step.deadable and (any(env[src] is DEAD for src, _ in step.reads) or
                              any(env[s] is DEAD for s in step.dead_controls)):
            for s in step.outputs:  # an op on a Switch's untaken branch does not run
                env[s] = DEAD
            continue
        args = []
        for src, deref in step.reads:  # the one input-gathering loop, for every kind of step
            v = env[src]
            if deref and v.__class__ is Ref:
                v = store.read(v.key, step.op)
            args.append(v)
        if step.kind == POSITIONAL:
            try:
                env[step.out0] = step.kernel(*args, **step.attrs)
            except KERNEL_ERRORS as e:
                raise op_error(e, step.op) from (None if isinstance(e, errors.OpError) else e)
        else:
            try:
                result = run_step(step, args, state)
            except KERNEL_ERRORS as e:
                raise op_error(e, step.op) from (None if isinstance(e, errors.OpError) else e)
            outs = step.outputs
            if outs:
                if step.multi:
                    for s, v in zip(outs, result):
                        env[s] = v
                else:
                    env[outs[0]] = result
        if trace is not None:
            trace.append((step.op, start, time.time_ns(), [env[s] for s in step.outputs]))
        for s in step.drops:
            env[s] = None
    return _fetched(plan, env, store, fetch_tensors, allow_dead)


def _fetched(plan, env, store, fetch_tensors, allow_dead):
    """The fetched values of a finished step loop (variables dereferenced)."""
    out = []
    for i, (s, t) in enumerate(zip(plan.fetch_slots, fetch_tensors or [None] * len(plan.fetch_slots))):
        v = env[s] if allow_dead and env[s] is DEAD else live(env[s], i)
        if v.__class__ is Ref:
            v = store.read(v.key, t.op if t is not None else None)
        out.append(v)
    if plan.fetch_to_host is not None:  # a plan with GPU steps: fetched values come back to the host
        out = [plan.fetch_to_host(v) for v in out]
    return out


def run_step(step, args, state):
    """One step that is not a plain positional call (keywords, list inputs,
    several outputs, a run context, variable updates): returns the kernel's
    result (a sequence when the step has several outputs)."""
    if step.kind == PLACEHOLDER:
        raise placeholder_error(step.op)
    kwargs = step.keywords(args)
    if step.ctx:
        kwargs["ctx"] = RunContext(state, step.op, step, run_function)
    if step.kind == STATEFUL:
        return run_update(step, kwargs, step.ref_keys(args), state.store)
    return step.kernel(**kwargs)


_FUNCTION_PLANS = weakref.WeakKeyDictionary()  # function graph -> its Plan (a plan holds no state)
_FUNCTION_PLANS_LOCK = threading.Lock()


def run_function(func, inputs, state):
    """Runs a function graph (``ref.ops.control``'s while/cond bodies) on
    ``inputs`` against ``state``; returns its outputs' values. Its plan is made
    once per function graph."""
    plan = _FUNCTION_PLANS.get(func)
    if plan is None:
        plan = Plan(func.outputs, func.targets, func.inputs)
        with _FUNCTION_PLANS_LOCK:
            plan = _FUNCTION_PLANS.setdefault(func, plan)
    return execute(plan, dict(zip(func.inputs, inputs)), state, func.outputs)
