"""The reference evaluator: the whole interpreter in a few lines, for reading.

Walk the ops a run needs in plan order, read each op's inputs from an
environment, call its kernel with the inputs and attrs, bind its outputs.
``executor.execute`` does the same work faster and must give the same bits
(``tests/session/test_reference_evaluator.py``).
"""
from __future__ import annotations

from ref.types import errors
from ref.ops.control import DEAD
from ref.session.interpreter import frames
from ref.session.interpreter.failures import KERNEL_ERRORS, live, op_error, placeholder_error
from ref.session.interpreter.plan import needed_ops
from ref.session.interpreter.state import Ref, RunContext
from ref.session.interpreter.steps import accepts_out, aliased_outputs, bind_outputs, commit

__all__ = ["evaluate", "run_frames"]


def evaluate(fetches, feeds, state, targets=()):
    """The values of ``fetches`` (Tensors) after running the ops they and
    ``targets`` need, with ``feeds`` ({Tensor: value}) in place, against
    ``state`` (a ``RunState``): JAX autodidax's ``eval_jaxpr`` for a TF1 graph.

    No plan, caching, constant folding, slot sharing, dropping or buffer
    donation, and every output counts as needed. Control flow and queues work
    as in ``execute``: a ``ctx`` kernel's sub-graphs (while/cond bodies) run
    through ``evaluate`` again. Not here: run-metadata tracing. A fed output of
    a multi-output op that runs for another output keeps its fed value, as in
    TensorFlow. ``REF_REFERENCE_EVALUATOR=1`` makes every ``Session.run`` use
    this function.
    """
    frame_plan = frames.frame_plan(fetches, targets, feeds)
    if frame_plan is not None:  # TF 1.x control flow: frames, iterations, dead tensors
        return run_frames(frame_plan, feeds, state)
    store = state.store
    env = dict(feeds)  # Tensor -> value; a variable's tensor holds a Ref into the store
    for op in needed_ops(fetches, targets, feeds):
        opdef = op._opdef
        if op._type == "Placeholder":
            raise placeholder_error(op)
        if opdef.creates_ref:
            env[op._outputs[0]] = Ref(op._attrs.get("shared_name") or op.name)
            continue
        if op._type != "Merge" and any(env[t] is DEAD for t in op._inputs):
            env.update((t, DEAD) for t in op._outputs if t not in feeds)  # a Switch's untaken branch
            continue
        kwargs = {k: op._attrs[k] for k in opdef.attrs if k in op._attrs}
        for name, src in op.named_inputs().items():
            raw = name in opdef.refs or name in opdef.raw_inputs  # the op takes the Ref itself
            kwargs[name] = ([_read(env[t], raw, store, op) for t in src] if isinstance(src, list)
                            else _read(env[src], raw, store, op))
        if opdef.ctx:
            kwargs["ctx"] = RunContext(state, op, None, _evaluate_function)
        try:
            if opdef.refs:  # a variable update: the one commit path, without donation
                keys = [[r.key for r in kwargs[n]] if isinstance(kwargs[n], list) else kwargs[n].key
                        for n in opdef.refs]
                new = commit(opdef, opdef.refs, keys, kwargs, store, op)
                outputs = bind_outputs(opdef, aliased_outputs(opdef), new, keys, len(op._outputs))
            else:
                outputs = opdef.kernel(**kwargs)
                if len(opdef.outputs) == 1 and not opdef.outputs[0].startswith("*"):
                    outputs = (outputs,)  # a one-output kernel returns the value itself
        except KERNEL_ERRORS as e:
            raise op_error(e, op) from (None if isinstance(e, errors.OpError) else e)
        env.update((t, v) for t, v in zip(op._outputs, outputs) if t not in feeds)
    return [_read(live(env[t], i), False, store, t.op) for i, t in enumerate(fetches)]


def run_frames(frame_plan, feeds, state, trace=None, allow_dead=False):
    """The fetched values of a :class:`~ref.session.interpreter.frames.FramePlan`
    run: :mod:`~ref.session.interpreter.frames` schedules the ops over frames and
    iterations and calls :func:`run_op` for every op that is not control flow."""
    store = state.store

    def read(value, op):
        return _read(value, False, store, op)

    values = frames.run(frame_plan, feeds, lambda op, vals: run_op(op, vals, state), read, trace)
    return [v if allow_dead and v is DEAD else read(live(v, i), t.op)
            for i, (v, t) in enumerate(zip(values, frame_plan.fetches))]


def run_op(op, values, state):
    """The outputs (a tuple) of one op on its input ``values`` (in ``op.inputs``
    order): :func:`evaluate`'s step for a single op, used by the executors that
    schedule ops one at a time (TF1 frames, a distributed partition). Unlike
    :func:`evaluate`, a variable update here gets the stored arrays as ``out=``
    when they are the store's alone, so it runs in place as TF's kernels do."""
    store = state.store
    opdef = op._opdef
    if op._type == "Placeholder":
        raise placeholder_error(op)
    if opdef.creates_ref:
        return (Ref(op._attrs.get("shared_name") or op.name),)
    env = dict(zip(op._inputs, values))
    kwargs = {k: op._attrs[k] for k in opdef.attrs if k in op._attrs}
    for name, src in op.named_inputs().items():
        raw = name in opdef.refs or name in opdef.raw_inputs
        kwargs[name] = ([_read(env[t], raw, store, op) for t in src] if isinstance(src, list)
                        else _read(env[src], raw, store, op))
    if opdef.ctx:
        kwargs["ctx"] = RunContext(state, op, None, _evaluate_function)
    try:
        if opdef.refs:
            keys = [[r.key for r in kwargs[n]] if isinstance(kwargs[n], list) else kwargs[n].key
                    for n in opdef.refs]
            # the stored arrays as ``out=`` when they are the store's alone (in place, as TF)
            new = commit(opdef, opdef.refs, keys, kwargs, store, op, accepts_out(opdef.kernel))
            return tuple(bind_outputs(opdef, aliased_outputs(opdef), new, keys, len(op._outputs)))
        outputs = opdef.kernel(**kwargs)
    except KERNEL_ERRORS as e:
        raise op_error(e, op) from (None if isinstance(e, errors.OpError) else e)
    if len(opdef.outputs) == 1 and not opdef.outputs[0].startswith("*"):
        return (outputs,)
    return tuple(outputs) if outputs is not None else ()


def _evaluate_function(func, inputs, state):
    """A function graph's outputs (while/cond body), by :func:`evaluate`."""
    return evaluate(func.outputs, dict(zip(func.inputs, inputs)), state, func.targets)


def _read(value, raw, store, op):
    """An input's value: a variable's stored value, unless the op takes the reference (``raw``)."""
    return store.read(value.key, op) if value.__class__ is Ref and not raw else value
