"""The interpreter: run a pruned, ordered plan of ops over an environment.

A :class:`Plan` is built once per (fetches, feeds, targets) and cached: the ops
the fetches need, pruned at fed tensors, in creation order -- which is a
topological order, since an op's inputs always exist before it -- with, for
every tensor, the last step that reads it (so its value can be dropped early).

:func:`execute` walks the plan: gather inputs from the environment, call the
kernel, bind the outputs. Variables are references (:class:`Ref`) into the
session's :class:`StateStore`; an op reading a ref input gets the stored value,
and a stateful op's new values are committed back. When no one else holds the
stored arrays, a training kernel is handed them as ``out=`` buffers and
updates in place, at memory bandwidth -- a caller of the pure kernel never sees
that.
"""
from __future__ import annotations

import inspect
import sys
import threading

from ref import errors
from ref.ops.context import seeded_generator


class Ref:
    """The value of a variable's ref/resource tensor: a key into the state store."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key

    def __repr__(self):
        return f"Ref({self.key!r})"


class StateStore:
    """Variable values of one Session, by variable key (container/shared name)."""

    def __init__(self):
        self.values = {}
        self.lock = threading.RLock()

    def read(self, key, op):
        try:
            return self.values[key]
        except KeyError:
            raise errors.FailedPreconditionError(
                None, op, f"Attempting to use uninitialized value {key}"
                          + _where(op)) from None


def _where(op) -> str:
    if op is None:
        return ""
    tb = op._traceback
    at = f" (defined at {tb[0]}:{tb[1]})" if tb else ""
    return f"\n\t [[node {op.name}{at} ]]"


class Plan:
    """The ops to run for one (fetches, feeds, targets) signature, in order."""

    def __init__(self, fetch_tensors, target_ops, feed_tensors):
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
        self.ops = [needed[i] for i in sorted(needed)]
        self.fed = fed
        # last reader of each tensor (fetched tensors are kept to the end)
        last = {}
        for i, op in enumerate(self.ops):
            for t in op._inputs:
                last[t] = i
        for t in fetch_tensors:
            last[t] = len(self.ops)
        self.drop_after = [[] for _ in self.ops]
        for t, i in last.items():
            if i < len(self.ops) and t not in fed:
                self.drop_after[i].append(t)
        self.steps = [_Step(op) for op in self.ops]


class _Step:
    """Everything about one op the evaluator needs, precomputed."""

    __slots__ = ("op", "opdef", "kernel", "attrs", "inputs", "refs", "outputs", "donate", "ctx")

    def __init__(self, op):
        opdef = op._opdef
        self.op = op
        self.opdef = opdef
        self.kernel = opdef.kernel
        self.attrs = {k: op._attrs[k] for k in opdef.attrs if k in op._attrs}
        named = op.named_inputs()
        self.inputs = [(n, named[n], isinstance(named[n], list), n in opdef.refs,
                        n in opdef.raw_inputs) for n in opdef.inputs]
        self.refs = opdef.refs
        self.outputs = op._outputs
        self.ctx = opdef.ctx
        self.donate = bool(opdef.refs) and _accepts_out(opdef.kernel)


_ACCEPTS_OUT = {}


def _accepts_out(kernel) -> bool:
    if kernel not in _ACCEPTS_OUT:
        try:
            _ACCEPTS_OUT[kernel] = "out" in inspect.signature(kernel).parameters
        except (TypeError, ValueError):
            _ACCEPTS_OUT[kernel] = False
    return _ACCEPTS_OUT[kernel]


# A stored array is ours alone when only the store and this frame refer to it.
_OWN_REFCOUNT = 3


def _donatable(store_values, key):
    arr = store_values.get(key)
    return (arr is not None and getattr(arr, "base", 0) is None and arr.flags.writeable
            and sys.getrefcount(arr) <= _OWN_REFCOUNT)


class RunContext:
    """What a ``ctx=True`` kernel sees inside a Session."""

    __slots__ = ("session", "op")

    def __init__(self, session, op):
        self.session = session
        self.op = op

    @property
    def rng(self):
        rngs = self.session._rngs
        gen = rngs.get(self.op.name)
        if gen is None:
            gen = rngs.setdefault(self.op.name, seeded_generator(self.op._attrs.get("seed", 0),
                                                                 self.op._attrs.get("seed2", 0)))
        return gen

    @property
    def resources(self):
        return self.session._resources

    def run_subgraph(self, func, inputs):
        """Runs a function graph (while/cond body) on ``inputs`` with this session's state."""
        return self.session._run_function(func, inputs)


def execute(plan: Plan, feeds: dict, session, fetch_tensors):
    """Runs ``plan``; returns the values of ``fetch_tensors`` (refs dereferenced)."""
    env = dict(feeds)
    store = session._store
    values = store.values
    for i, step in enumerate(plan.steps):
        op = step.op
        opdef = step.opdef
        if opdef.creates_ref:
            env[step.outputs[0]] = Ref(op._attrs.get("shared_name") or op.name)
            continue
        if op._type == "Placeholder":
            t = step.outputs[0]
            raise errors.InvalidArgumentError(
                None, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                          f"{op._attrs['dtype'].name}" + (f" and shape {_shape_str(t.shape)}"
                                                          if t.shape.ndims is not None else "") + _where(op))
        kwargs = dict(step.attrs)
        ref_keys = []
        for name, src, is_list, is_ref, raw in step.inputs:
            if is_ref:
                r = env[src]
                ref_keys.append(r.key)
                continue
            if is_list:
                vals = []
                for t in src:
                    v = env[t]
                    if v.__class__ is Ref and not raw:
                        v = store.read(v.key, op)
                    vals.append(v)
                kwargs[name] = vals
            else:
                v = env[src]
                if v.__class__ is Ref and not raw:
                    v = store.read(v.key, op)
                kwargs[name] = v
        if step.ctx:
            kwargs["ctx"] = RunContext(session, op)
        try:
            if ref_keys:
                result = _run_stateful(step, kwargs, ref_keys, store, op)
            else:
                result = step.kernel(**kwargs)
        except errors.OpError as e:
            if e.op is not None:
                raise
            raise type(e)(None, op, e.message + _where(op)) from None
        except (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError) as e:
            raise errors.InvalidArgumentError(None, op, f"{e}" + _where(op)) from e
        outs = step.outputs
        if outs:
            if len(outs) == 1 and not isinstance(result, (tuple, list)):
                env[outs[0]] = result
            else:
                for t, v in zip(outs, result):
                    env[t] = v
        for t in plan.drop_after[i]:
            env.pop(t, None)
    out = []
    for t in fetch_tensors:
        v = env[t]
        if v.__class__ is Ref:
            v = store.read(v.key, t.op)
        out.append(v)
    return out


def _run_stateful(step, kwargs, ref_keys, store, op):
    """Reads the refs, runs the kernel, commits new values; returns the op's outputs."""
    opdef = step.opdef
    with store.lock:
        values = store.values
        allow = opdef.allow_uninitialized
        for name, key in zip(opdef.refs, ref_keys):
            if key in values:
                kwargs[name] = values[key]
            elif name in allow:
                kwargs[name] = None
            else:
                store.read(key, op)
        if step.donate and all(_donatable(values, k) for k in ref_keys):
            kwargs["out"] = tuple(values[k] for k in ref_keys)
        result = step.kernel(**kwargs)
        n = len(opdef.refs)
        new = result if isinstance(result, tuple) else (result,)
        for key, v in zip(ref_keys, new[:n]):
            if v is not None:
                values[key] = v
    rest = list(new[n:])
    outs = []
    for out_name in opdef.outputs:
        if out_name in opdef.ref_outputs:
            outs.append(Ref(ref_keys[opdef.refs.index(opdef.ref_outputs[out_name])]))
        else:
            outs.append(rest.pop(0))
    return outs[0] if len(outs) == 1 else tuple(outs)


def _shape_str(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"
