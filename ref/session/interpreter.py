"""The interpreter: run the ops a ``Session.run`` needs, over an environment.

:func:`evaluate` is the whole idea in a few lines, for reading: walk the ops in
plan order, read each op's inputs from the environment, call its kernel with
the inputs and attrs, bind its outputs. :func:`execute` does the same work
faster, over a :class:`Plan` built once per (fetches, feeds, targets) and
cached:

* the ops the fetches need (:func:`needed_ops`): pruned at fed tensors, in
  creation order -- a topological order, since an op's inputs always exist
  before it -- except that in-place variable updates wait for the reads that
  nothing orders after them;
* every tensor gets a slot in a flat environment list;
* what never changes is computed once into the environment's template:
  ``Const`` values, the references variables produce, and pure ops whose inputs
  are all constant (constant folding);
* ``NoOp`` steps vanish (creation order already honours control dependencies)
  and an ``Identity``'s output shares its input's slot;
* each tensor's last reader is known, so its value is dropped right after;
* below a ``Switch`` (TF 1.x control flow in imported GraphDefs), an op whose
  input is :data:`~ref.ops.control.DEAD` (the branch not taken) does not run
  and its outputs are dead too; ``Merge`` forwards its live input, and
  fetching a dead tensor is TF's "Retval[i] does not have value".
* pure ops whose outputs nothing reads (only a control dependency asks for
  them: the values ``gradients()`` gates with ``tf.tuple`` for a placeholder)
  do not run, as TF's grappler makes them NoOps (:func:`needed_ops`);
* from its second run on, a plan runs as Python code written for it
  (:func:`compile_plan`): one line per kernel call, values in local variables.

Variables are references (:class:`Ref`) into the session's :class:`StateStore`;
an op reading a ref input gets the stored value, a non-ref input fed by a ref is
dereferenced when its consumer runs, and a stateful op's new values are
committed back. When nothing else holds the stored arrays, a training kernel is
handed them as ``out=`` buffers and updates in place, at memory bandwidth -- a
caller of the pure kernel never sees that. ``tests/session/test_reference_evaluator.py``
checks that both give the same bits.
"""
from __future__ import annotations

import bisect
import heapq
import inspect
from keyword import iskeyword
import sys
import threading
import time

import numpy as np

from ref.types import errors
from ref.ops.context import seeded_generator
from ref.ops import fused as fused_ops, gemm
from ref.ops.control import DEAD
from ref.ops.philox import PhiloxRandom


def evaluate(fetches, feeds, session, targets=()):
    """The values of ``fetches`` (Tensors) after running the ops they and
    ``targets`` need, with ``feeds`` ({Tensor: value}) in place: the reference
    evaluator, JAX autodidax's ``eval_jaxpr`` for a TF1 graph.

    No plan, caching, constant folding, slot sharing, dropping or buffer
    donation, and every output counts as needed: :func:`execute` must give the
    same values, bit for bit (``tests/session/test_reference_evaluator.py``).
    Control flow and queues work as there: a ``ctx`` kernel gets a run context
    whose sub-graphs (while/cond bodies) run through ``evaluate`` again. Not
    here: run-metadata tracing (``Session`` keeps :func:`execute` for traced
    runs). A fed output of a multi-output op that runs for another output
    keeps its fed value, as in TensorFlow. ``REF_REFERENCE_EVALUATOR=1`` makes
    every ``Session.run`` use this function.
    """
    store = session._store
    env = dict(feeds)  # Tensor -> value; a variable's tensor holds a Ref into the store
    for op in needed_ops(fetches, targets, feeds):
        opdef = op._opdef
        if op._type == "Placeholder":
            raise _placeholder_error(op)
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
            kwargs["ctx"] = _EvaluateContext(session, op, None)
        try:
            if opdef.refs:
                outputs = _apply_to_store(opdef, kwargs, store, op)
            else:
                outputs = opdef.kernel(**kwargs)
                if len(opdef.outputs) == 1 and not opdef.outputs[0].startswith("*"):
                    outputs = (outputs,)  # a one-output kernel returns the value itself
        except _KERNEL_ERRORS as e:
            raise _op_error(e, op) from (None if isinstance(e, errors.OpError) else e)
        env.update((t, v) for t, v in zip(op._outputs, outputs) if t not in feeds)
    return [_read(_live(env[t], i), False, store, t.op) for i, t in enumerate(fetches)]


def _live(value, i):
    """A fetched value, or TF's error for a tensor on a Switch's untaken branch."""
    if value is DEAD:
        raise errors.InvalidArgumentError(None, None, f"Retval[{i}] does not have value")
    return value


def _read(value, raw, store, op):
    """An input's value: a variable's stored value, unless the op takes the reference (``raw``)."""
    return store.read(value.key, op) if value.__class__ is Ref and not raw else value


def _apply_to_store(opdef, kwargs, store, op):
    """Calls a stateful kernel on the stored values of its ref inputs, stores the
    new values it returns first, and returns the op's outputs (an output that
    aliases a ref input is that input's Ref)."""
    keys = {name: ([r.key for r in kwargs[name]] if isinstance(kwargs[name], list) else kwargs[name].key)
            for name in opdef.refs}
    with store.lock:
        for name, key in keys.items():
            if isinstance(key, list):  # a list of refs (SdcaShrinkL1's weights): values in, new values out
                kwargs[name] = [store.read(k, op) for k in key]
            elif key in store.values:
                kwargs[name] = store.values[key]
            elif name in opdef.allow_uninitialized:  # Assign gives a variable its first value
                kwargs[name] = None
            else:
                store.read(key, op)  # raises FailedPreconditionError: uninitialized
        result = opdef.kernel(**kwargs)
        result = result if isinstance(result, tuple) else (result,)
        for key, new in zip(keys.values(), result):
            if isinstance(key, list):
                store.values.update((k, v) for k, v in zip(key, new) if v is not None)
            elif new is not None:
                store.values[key] = new
    rest = iter(result[len(keys):])
    return tuple(Ref(keys[opdef.ref_outputs[name]]) if name in opdef.ref_outputs else next(rest)
                 for name in opdef.outputs)


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
    ops = _prune_unread(ops, fetch_tensors, target_ops)
    if not any(_rank(op) for op in ops):
        return ops  # creation order is already a topological order
    return _readers_first(ops, fed)


# -- cancellation (issue 27): kernels that may wait on another step (a dequeue from
# an empty queue, an accumulator's take) run after every op that does not depend on
# them, so a failing op of the same run (an Assert) ends the step before they block;
# TF cancels them. Sorted last among ready ops by ``_rank``.
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
        if (op._outputs and op._id not in targets and _is_pure(opdef) and not opdef.raw_inputs
                and op._type not in _KEEP_UNREAD and not any(t in live for t in op._outputs)):
            continue
        kept.append(op)
        live.update(op._inputs)
    kept.reverse()
    return kept


def _updates_in_place(op) -> bool:
    """Whether ``op`` may change a variable it takes by reference
    (IsVariableInitialized takes one only to look at it)."""
    return bool(op._opdef.refs) and op._type != "IsVariableInitialized"


def _readers_first(ops, fed):
    """``ops`` (in creation order) reordered by Kahn's algorithm: ready ops
    without ref inputs first, then in-place updates, then kernels that may block
    (``_rank``), each group in creation order."""
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
                None, op, f"Attempting to use uninitialized value {key}" + _where(op)) from None


_KERNEL_ERRORS = (errors.OpError, ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError)


def _op_error(e, op):
    """A kernel's exception as TF reports it: an OpError naming the op and the
    line that created it (a plain Python error becomes InvalidArgumentError)."""
    if isinstance(e, errors.OpError):
        return e if e.op is not None else type(e)(None, op, e.message + _where(op))
    return errors.InvalidArgumentError(None, op, f"{e}" + _where(op))


def _placeholder_error(op):
    """The error for running a placeholder nobody fed."""
    t = op._outputs[0]
    name = op._attrs["dtype"].name
    return errors.InvalidArgumentError(
        None, op, f"You must feed a value for placeholder tensor '{op.name}' with dtype "
                  f"{_CPP_DTYPE_NAMES.get(name, name)}" + (f" and shape {_shape_str(t.shape)}"
                                                           if t.shape.ndims else "") + _where(op))


# TF's run-time messages name dtypes as its C++ runtime does (DataTypeString).
_CPP_DTYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def _where(op) -> str:
    if op is None:
        return ""
    tb = op._traceback
    at = f" (defined at {tb[0]}:{tb[1]})" if tb else ""
    return f"\n\t [[node {op.name}{at} ]]"


_KERNEL, _STATEFUL, _PLACEHOLDER, _POSITIONAL = range(4)


def _is_pure(opdef) -> bool:
    return (opdef.kernel is not None and not opdef.stateful and not opdef.ctx and not opdef.refs
            and not opdef.creates_ref)


class Plan:
    """The steps to run for one (fetches, feeds, targets) signature. ``values_fed``:
    the feeds are values, never a variable's :class:`Ref` (``Session.run``'s feeds;
    a function body's inputs can be Refs)."""

    def __init__(self, fetch_tensors, target_ops, feed_tensors, values_fed=False):
        self.ops = needed_ops(fetch_tensors, target_ops, feed_tensors)
        self.values_fed = values_fed

        slot = {}
        count = [0]
        fed = set(feed_tensors)

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
        steps = []
        maybe_dead = set()  # tensors downstream of a Switch: their consumers check for DEAD
        for op in self.ops:
            opdef = op._opdef
            if op._type == "Switch" or any(t in maybe_dead for t in op._inputs):
                maybe_dead.update(op._outputs)
            if op._type == "Identity":
                # An identity is a second name for its input's value: share the slot.
                slot[op._outputs[0]] = slot_of(op._inputs[0])
                continue
            outs = [output_slot(t) for t in op._outputs]
            if op._type == "NoOp":
                continue
            if op._type == "Const":
                template[outs[0]] = op._attrs["value"]
                continue
            if opdef.creates_ref:
                template[outs[0]] = Ref(op._attrs.get("shared_name") or op.name)
                continue
            if op._type == "Placeholder":
                steps.append(_Step(op, _PLACEHOLDER, slot_of, outs))
                continue
            step = _Step(op, _STATEFUL if opdef.refs else _KERNEL, slot_of, outs)
            step.deadable = op._type != "Merge" and any(t in maybe_dead for t in op._inputs)
            if _is_pure(opdef) and step.inputs_constant(template):
                folded = step.fold(template)
                if folded is not None:
                    template.update(folded)
                    continue
            steps.append(step)
        self.fetch_slots = [slot_of(t) for t in fetch_tensors]
        self.size = count[0]
        self.template = [template.get(i) for i in range(self.size)]
        # drop each value after its last reader (fetched values are kept)
        last = {}
        for i, step in enumerate(steps):
            for s, _ in step.reads:
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
        # Plans below a Switch stay in the step loop: compiled code has no dead-tensor bookkeeping.
        self.compilable = not maybe_dead


class _Step:
    """Everything about one op the evaluator needs, precomputed."""

    __slots__ = ("op", "kind", "kernel", "attrs", "reads", "layout", "ref_args", "outputs", "multi", "donate",
                 "deadable",
                 "ctx", "drops", "opdef", "ref_outputs", "out0", "needed")

    def __init__(self, op, kind, slot_of, outs):
        opdef = op._opdef
        self.op = op
        self.kind = kind
        self.opdef = opdef
        self.kernel = opdef.kernel
        self.attrs = {k: op._attrs[k] for k in opdef.attrs if k in op._attrs}
        named = op.named_inputs()
        # What execute() reads, in the op's input order with list inputs flattened:
        # (slot, deref); a ref or raw input is handed over as it is (a Ref stays a Ref).
        # ``layout`` names them: (input name, first, end or None for a single input).
        reads, layout, ref_args = [], [], []
        for n in opdef.inputs:
            src = named[n]
            deref = n not in opdef.refs and n not in opdef.raw_inputs
            if n in opdef.refs:  # (name, first read, end read or None for a single ref)
                ref_args.append((n, len(reads), len(reads) + len(src) if isinstance(src, list) else None))
            if isinstance(src, list):
                layout.append((n, len(reads), len(reads) + len(src)))
                reads.extend((slot_of(t), deref) for t in src)
            else:
                layout.append((n, len(reads), None))
                reads.append((slot_of(src), deref))
        self.reads = tuple(reads)
        self.layout = tuple(layout)
        self.ref_args = tuple(ref_args)
        self.outputs = tuple(outs)
        self.multi = not (len(outs) == 1 and len(opdef.outputs) == 1 and not opdef.outputs[0].startswith("*"))
        self.ctx = opdef.ctx
        self.donate = bool(opdef.refs) and _accepts_out(opdef.kernel)
        self.ref_outputs = [(i, opdef.refs.index(opdef.ref_outputs[name]))
                            for i, name in enumerate(opdef.outputs) if name in opdef.ref_outputs]
        self.drops = ()
        self.needed = frozenset(range(len(outs)))
        self.deadable = False
        self.out0 = outs[0] if outs else None
        # The common case: one output, no context, inputs passed positionally when the
        # kernel's first parameters are the op's inputs, in order.
        names = [n for n, _, end in layout if end is None]
        if (kind == _KERNEL and not self.ctx and not self.multi and len(names) == len(layout)
                and all(d for _, d in reads) and _leading_params(self.kernel, len(names)) == names):
            self.kind = _POSITIONAL

    def keywords(self, args):
        """The kernel's keyword arguments: the attrs, then the inputs ``args`` by name."""
        kwargs = self.attrs.copy()
        for name, i, end in self.layout:
            kwargs[name] = args[i] if end is None else args[i:end]
        return kwargs

    def inputs_constant(self, template):
        return all(s in template and not isinstance(template[s], Ref) and template[s] is not DEAD
                   for s, _ in self.reads)

    def fold(self, template):
        """Outputs computed now from constant inputs, or None to leave it to run time."""
        try:
            result = self.kernel(**self.keywords([template[s] for s, _ in self.reads]))
        except Exception:  # report it when the op runs, with its name and line
            return None
        values = result if self.multi else (result,)
        out = {}
        for s, v in zip(self.outputs, values):
            if hasattr(v, "setflags"):
                try:
                    v.setflags(write=False)
                except ValueError:
                    pass
            out[s] = v
        return out


_ACCEPTS_OUT = {}
_LEADING = {}


def _leading_params(kernel, n):
    """The names of ``kernel``'s first ``n`` positional parameters (None if it has fewer)."""
    key = (kernel, n)
    if key not in _LEADING:
        try:
            params = [p for p in inspect.signature(kernel).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
            _LEADING[key] = [p.name for p in params[:n]] if len(params) >= n else None
        except (TypeError, ValueError):
            _LEADING[key] = None
    return _LEADING[key]


def _accepts_out(kernel) -> bool:
    if kernel not in _ACCEPTS_OUT:
        try:
            _ACCEPTS_OUT[kernel] = "out" in inspect.signature(kernel).parameters
        except (TypeError, ValueError):
            _ACCEPTS_OUT[kernel] = False
    return _ACCEPTS_OUT[kernel]


# A stored array is ours alone when only the store and this frame refer to it.
_OWN_REFCOUNT = 3
_getrefcount = sys.getrefcount
_ndarray = np.ndarray


def _owned(values, keys):
    """The stored arrays of ``keys`` when each is the store's alone to donate (an
    ndarray owning its writeable memory that nothing else refers to), else None."""
    own = []
    for k in keys:
        arr = values.get(k)
        if (arr is None or arr.__class__ is not _ndarray or arr.base is not None
                or not arr.flags.writeable or _getrefcount(arr) > _OWN_REFCOUNT):
            return None
        own.append(arr)
    return tuple(own)


class RunContext:
    """What a ``ctx=True`` kernel sees inside a Session."""

    __slots__ = ("session", "op", "step")

    def __init__(self, session, op, step):
        self.session = session
        self.op = op
        self.step = step

    def output_needed(self, i) -> bool:
        """Whether the running plan reads (or fetches) output ``i`` of this op."""
        return i in self.step.needed

    @property
    def op_name(self):
        return self.op.name

    @property
    def rng(self):
        """This op's NumPy generator (Multinomial, RandomGamma), kept by the session."""
        return self._generator(self.op.name, seeded_generator)

    @property
    def philox(self):
        """This op's Philox generator (TF's random numbers), kept by the session."""
        return self._generator(("philox", self.op.name), PhiloxRandom)

    def _generator(self, key, make):
        """The session's generator under ``key``, made from the op's seeds on first use."""
        rngs = self.session._rngs
        gen = rngs.get(key)
        if gen is None:
            gen = rngs.setdefault(key, make(self.op._attrs.get("seed", 0), self.op._attrs.get("seed2", 0)))
        return gen

    @property
    def resources(self):
        return self.session._resources

    def run_subgraph(self, func, inputs):
        """Runs a function graph (while/cond body) on ``inputs`` with this session's state."""
        return self.session._run_function(func, inputs)


class _EvaluateContext(RunContext):
    """The run context :func:`evaluate` hands a kernel: every output counts as
    needed, and sub-graphs run through :func:`evaluate` too."""

    __slots__ = ()

    def output_needed(self, i) -> bool:
        return True

    def run_subgraph(self, func, inputs):
        return evaluate(func.outputs, dict(zip(func.inputs, inputs)), self.session, func.targets)


COMPILE_AFTER = 1
"""Runs of a plan through the step loop before :func:`compile_plan` turns it into code."""


def execute(plan: Plan, feeds: dict, session, fetch_tensors=None, trace=None):
    """Runs ``plan`` with ``feeds`` ({Tensor: value}); returns the fetched values
    (variables dereferenced). With a ``trace`` list, appends ``(op, start_ns,
    end_ns, outputs)`` for each step run (``RunOptions.trace_level``).

    A plan run more than :data:`COMPILE_AFTER` times runs as the Python function
    :func:`compile_plan` writes for it: the same kernel calls in the same order,
    without the loop's bookkeeping."""
    if trace is None:
        run = plan.compiled
        if run is not None:
            return run(feeds, session)
        plan.runs += 1
        if plan.runs > COMPILE_AFTER and plan.compilable:
            plan.compiled = run = compile_plan(plan)
            return run(feeds, session)
    env = list(plan.template)
    for t, s in plan.feed_slots:
        env[s] = feeds[t]
    store = session._store
    for step in plan.steps:
        if trace is not None:
            start = time.time_ns()
        if step.deadable and any(env[src] is DEAD for src, _ in step.reads):
            for s in step.outputs:  # an op on a Switch's untaken branch does not run
                env[s] = DEAD
            continue
        args = []
        for src, deref in step.reads:  # the one input-gathering loop, for every kind of step
            v = env[src]
            if deref and v.__class__ is Ref:
                v = store.read(v.key, step.op)
            args.append(v)
        kind = step.kind
        if kind == _POSITIONAL:
            try:
                env[step.out0] = step.kernel(*args, **step.attrs)
            except _KERNEL_ERRORS as e:
                raise _op_error(e, step.op) from (None if isinstance(e, errors.OpError) else e)
        elif kind == _PLACEHOLDER:
            raise _placeholder_error(step.op)
        else:
            kwargs = step.keywords(args)
            if step.ctx:
                kwargs["ctx"] = RunContext(session, step.op, step)
            try:
                if kind == _STATEFUL:
                    result = _run_stateful(step, kwargs, [args[i].key if end is None else [r.key for r in args[i:end]]
                                                          for _, i, end in step.ref_args], store)
                else:
                    result = step.kernel(**kwargs)
            except _KERNEL_ERRORS as e:
                raise _op_error(e, step.op) from (None if isinstance(e, errors.OpError) else e)
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
    out = []
    for i, (s, t) in enumerate(zip(plan.fetch_slots, fetch_tensors or [None] * len(plan.fetch_slots))):
        v = _live(env[s], i)
        if v.__class__ is Ref:
            v = store.read(v.key, t.op if t is not None else None)
        out.append(v)
    return out


def _run_step(step, args, session, store):
    """One step that is not a plain positional call (keywords, list inputs,
    several outputs, a run context, variable updates), as :func:`execute` runs it:
    returns the kernel's result (a sequence when the step has several outputs)."""
    if step.kind == _PLACEHOLDER:
        raise _placeholder_error(step.op)
    kwargs = step.keywords(args)
    if step.ctx:
        kwargs["ctx"] = RunContext(session, step.op, step)
    if step.kind == _STATEFUL:
        return _run_stateful(step, kwargs, [args[i].key if end is None else [r.key for r in args[i:end]]
                                            for _, i, end in step.ref_args], store)
    return step.kernel(**kwargs)


def _deref(value, store, op):
    """``value``, or the stored value of the variable it refers to."""
    return store.read(value.key, op) if value.__class__ is Ref else value


def _padded(result, n):
    """A multi-output kernel's ``result`` as exactly ``n`` values (missing ones None, as zip leaves them)."""
    result = list(result)
    return result[:n] if len(result) >= n else result + [None] * (n - len(result))


def compile_plan(plan):
    """``plan`` as one Python function ``run(feeds, session) -> fetched values``:
    every value a local variable, each step one line calling its kernel with the
    attrs spelled out, constants and variable keys bound at compile time, values
    dropped after their last reader as in :func:`execute`, and the same
    ``OpError`` for a failing op. No result changes: the kernels, their inputs and
    their order are the plan's."""
    ns = {"_errors": errors, "_KERNEL_ERRORS": _KERNEL_ERRORS, "_op_error": _op_error, "_run_step": _run_step,
          "_update": _update, "_deref": _deref, "_padded": _padded, "_Ref": Ref, "_failed_step": _failed_step,
          "_matmul_pair": _matmul_pair, "_memo": _memo, "_bias_relu": fused_ops.bias_relu,
          "_relu_bias_grads": _relu_bias_grads}
    # what each slot holds: "ref" (a template Ref), "value" (never a Ref), or "any"
    kind = {}
    for i, v in enumerate(plan.template):
        if v is not None:
            kind[i] = "ref" if v.__class__ is Ref else "value"
            ns[f"c{i}"] = v
    lines = ["def run(feeds, session):", "    store = session._store", "    read = store.read"]
    for t, s in plan.feed_slots:
        ns[f"t{s}"] = t
        lines.append(f"    s{s} = feeds[t{s}]")
        kind[s] = "value" if plan.values_fed else "any"  # a function body's inputs can be variables' Refs
    read_slots = {src for step in plan.steps for src, _ in step.reads} | set(plan.fetch_slots)
    for i, v in enumerate(plan.template):
        if v is not None and v.__class__ is not Ref and i in read_slots:
            lines.append(f"    s{i} = c{i}")
    lines.append("    try:")
    body = []
    first_lines = []  # each step's line in the function (which op failed: _failed_step)
    ns["OPS"] = [step.op for step in plan.steps]

    def value_of(slot, deref, n):
        k = kind.get(slot)
        if k is None:  # nothing writes it (the step loop reads None there too)
            return "None"
        if not deref:
            return f"c{slot}" if k == "ref" else f"s{slot}"
        if k == "ref":
            ns[f"k{slot}"] = plan.template[slot].key
            return f"read(k{slot}, OPS[{n}])"
        if k == "value":
            return f"s{slot}"
        return f"(read(s{slot}.key, OPS[{n}]) if s{slot}.__class__ is _Ref else s{slot})"

    paired = _matmul_pairs(plan.steps)
    fetched_slots = set(plan.fetch_slots)
    fused = _fusions(plan.steps, fetched_slots)  # {first step: the step it runs with}
    fused_into = {m: n for n, m in fused.items()}
    shaped = {}  # slot -> the h-variables (shape outputs' bytes) its value is a function of

    def drop(drops):  # the line dropping values after their last reader
        if drops:
            body.append(" = ".join(f"s{d}" for d in drops) + " = None")
    for n, step in enumerate(plan.steps):
        if n - 1 in paired:  # the second of a pair: written with the first
            first_lines.append(first_lines[-1])
            continue
        first_lines.append(len(lines) + len(body) + 1)  # the step's one line (then maybe a drop line)
        if n in fused_into:  # run with an earlier step (_fusions): only its drops are left
            drop(step.drops)
            continue
        args = [value_of(src, deref, n) for src, deref in step.reads]
        if n in fused:
            m = fused[n]
            second = plan.steps[m]
            ns[f"K{n}"], ns[f"K{m}"] = step.kernel, second.kernel
            ns[f"a{n}_0"] = second.attrs.get("data_format", "NHWC") if step.op._type == "ReluGrad" \
                else step.attrs.get("data_format", "NHWC")
            if step.op._type == "BiasAdd":
                body.append(f"s{second.out0} = _bias_relu(K{n}, K{m}, {', '.join(args)}, a{n}_0)")
                kind[second.out0] = "value"
            else:
                body.append(f"s{step.out0}, s{second.out0} = _relu_bias_grads(OPS[{m}], K{n}, K{m}, "
                            f"{', '.join(args)}, a{n}_0)")
                kind[step.out0] = kind[second.out0] = "value"
            drop(step.drops)
            continue
        if n in paired:
            # two independent products at once (_matmul_pair); each names its own op on error
            second = plan.steps[n + 1]
            args2 = [value_of(src, deref, n + 1) for src, deref in second.reads]
            for j, st in ((n, step), (n + 1, second)):
                ns[f"K{j}"], ns[f"A{j}"] = st.kernel, st.attrs
            body.append(f"s{step.out0}, s{second.out0} = _matmul_pair(OPS[{n}], K{n}, ({', '.join(args)},), A{n}, "
                        f"OPS[{n + 1}], K{n + 1}, ({', '.join(args2)},), A{n + 1})")
            kind[step.out0] = kind[second.out0] = "value"
            drop(step.drops + second.drops)
            continue
        if step.kind == _POSITIONAL:
            attrs = []
            for j, (name, v) in enumerate(step.attrs.items()):
                ns[f"a{n}_{j}"] = v
                attrs.append(f"{name}=a{n}_{j}" if name.isidentifier() and not iskeyword(name) else None)
            if None in attrs:
                ns[f"A{n}"] = step.attrs
                attrs = [f"**A{n}"]
            ns[f"K{n}"] = step.kernel
            call = f"K{n}({', '.join(args + attrs)})"
            if step.op._type in _SHAPE_OPS and not step.deadable:
                body.append(f"s{step.out0} = {call}")
                body.append(f"h{n} = s{step.out0}.tobytes()")
                shaped[step.out0] = (f"h{n}",)
            elif roots := _shape_roots(step, shaped, plan.template, fetched_slots):
                # a function of the shapes alone: computed once per shape (_memo)
                key = roots[0] if len(roots) == 1 else f"({', '.join(roots)},)"
                ns[f"M{n}"] = {}
                body.append(f"s{step.out0} = M{n}.get({key})")
                body.append(f"if s{step.out0} is None: s{step.out0} = _memo(M{n}, {key}, {call})")
                shaped[step.out0] = roots
            else:
                body.append(f"s{step.out0} = {call}")
            kind[step.out0] = "value"
        elif (step.kind == _STATEFUL and not step.ctx and all(end is None for _, _, end in step.layout)
              and all(kind.get(step.reads[i][0]) == "ref" for _, i, _ in step.ref_args)):
            # a variable update whose variables are known now: its keyword arguments as one dict display
            ns[f"S{n}"] = step
            ns[f"R{n}"] = [plan.template[step.reads[i][0]].key for _, i, _ in step.ref_args]
            items = []
            for j, (name, v) in enumerate(step.attrs.items()):
                ns[f"a{n}_{j}"] = v
                items.append(f"{name!r}: a{n}_{j}")
            refs = {name for name, _, _ in step.ref_args}
            updater = _in_place_updater(step, ns[f"R{n}"])
            if updater is not None:  # a training step's update: the other inputs positionally
                ns[f"U{n}"] = updater
                call = f"U{n}(store{''.join(', ' + args[i] for name, i, _ in step.layout if name not in refs)})"
            else:
                items += [f"{name!r}: {args[i]}" for name, i, _ in step.layout if name not in refs]
                call = f"_update(S{n}, {{{', '.join(items)}}}, R{n}, store)"
        elif step.kind == _KERNEL and not step.ctx and all(a.isidentifier() and not iskeyword(a) for a in step.attrs):
            # keywords (list inputs as lists), as _run_step would pass them
            items = []
            for j, name in enumerate(step.attrs):
                ns[f"a{n}_{j}"] = step.attrs[name]
                items.append(f"{name}=a{n}_{j}")
            for name, i, end in step.layout:
                items.append(f"{name}={args[i] if end is None else '[' + ', '.join(args[i:end]) + ']'}")
            ns[f"K{n}"] = step.kernel
            call = f"K{n}({', '.join(items)})"
        else:
            ns[f"S{n}"] = step
            call = f"_run_step(S{n}, [{', '.join(args)}], session, store)"
        if step.kind != _POSITIONAL:
            outs = step.outputs
            if not outs:
                body.append(call)
            elif step.multi:
                body.append(f"{', '.join(f's{o}' for o in outs)}, = _padded({call}, {len(outs)})")
            else:
                body.append(f"s{outs[0]} = {call}")
            for o in outs:
                kind[o] = "value" if step.kind == _KERNEL and not step.ctx else "any"
        drop(step.drops)
    lines.extend("        " + b for b in body or ["pass"])
    lines.append("    except _KERNEL_ERRORS as e:")
    lines.append("        raise _op_error(e, OPS[_failed_step(e, LINES)]) from (None if isinstance(e, _errors.OpError) "
                 "else e)")
    ns["LINES"] = first_lines
    fetched = []
    for j, s in enumerate(plan.fetch_slots):
        ns[f"f{j}"] = plan.fetch_ops[j]
        k = kind.get(s)
        if k == "ref":
            ns[f"k{s}"] = plan.template[s].key
            fetched.append(f"read(k{s}, f{j})")
        elif k == "value":
            fetched.append(f"s{s}")
        elif k is None:
            fetched.append("None")
        else:
            fetched.append(f"_deref(s{s}, store, f{j})")
    lines.append(f"    return [{', '.join(fetched)}]")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<ref plan {id(plan):x}>", "exec"), ns)  # noqa: S102 -- our own generated code
    run = ns["run"]
    run.source = source
    return run


_SHAPE_OPS = frozenset({"Shape", "Size", "Rank"})
MEMO_ELEMENTS = 64
"""Values of at most this many elements are what :func:`_memo` keeps."""
MEMO_SHAPES = 32
"""Shapes per step :func:`_memo` remembers (then it starts afresh)."""


def _shape_roots(step, shaped, template, fetched):
    """For :func:`compile_plan`: the h-variables (sorted) when ``step`` is a pure
    positional op whose every input is a function of some ``Shape``/``Size``/``Rank``
    outputs (``shaped``) or a constant -- the arithmetic on a dynamic batch size
    that ``reduce_mean``'s gradient does, say -- and its value is not fetched; else ()."""
    if step.deadable or not _is_pure(step.opdef) or step.out0 in fetched:
        return ()
    roots = set()
    for src, _ in step.reads:
        if src in shaped:
            roots.update(shaped[src])
        elif template[src] is None or template[src].__class__ is Ref:
            return ()
    return tuple(sorted(roots))


def _memo(memo, key, value):
    """``value`` (computed from shapes ``key`` by a pure kernel), kept read-only in
    ``memo`` for the next run with the same shapes when it is small: the step then
    costs a dictionary lookup. Read-only, as a folded constant, so nothing it is
    handed to can change what the next run reads."""
    if getattr(value, "size", MEMO_ELEMENTS + 1) <= MEMO_ELEMENTS and hasattr(value, "setflags"):
        if len(memo) >= MEMO_SHAPES:
            memo.clear()
        value.setflags(write=False)
        memo[key] = value
    return value


def _fusions(steps, fetched):
    """``{n: m}``: step ``n`` runs with step ``m`` in one kernel (``ref.ops.fused``),
    as TF's remapper fuses them: a ``BiasAdd`` with the ``Relu`` that alone reads
    it (the sum not fetched), a ``ReluGrad`` with a ``BiasAddGrad`` of its result."""
    readers = {}
    for i, st in enumerate(steps):
        for src, _ in st.reads:
            readers.setdefault(src, []).append(i)

    def plain(st, op_type):
        return st.kind == _POSITIONAL and not st.deadable and st.op._type == op_type

    out, taken = {}, set()
    for n, st in enumerate(steps):
        if n in taken:
            continue
        if plain(st, "BiasAdd") and st.out0 not in fetched and len(readers.get(st.out0, ())) == 1:
            m = readers[st.out0][0]
            if plain(steps[m], "Relu") and m not in taken:
                out[n] = m
                taken.add(m)
        elif plain(st, "ReluGrad"):
            for m in readers.get(st.out0, ()):
                if plain(steps[m], "BiasAddGrad") and m not in taken and steps[m].reads[0][0] == st.out0:
                    out[n] = m
                    taken.add(m)
                    break
    return out


def _relu_bias_grads(bias_grad_op, relu_grad, bias_add_grad, gradients, features, data_format):
    """:func:`ref.ops.fused.relu_bias_grads` in a compiled plan: an error of the
    ``BiasAddGrad`` kernel names its own op."""
    def bias_grad(backprops, data_format):
        return _call(bias_grad_op, bias_add_grad, (backprops,), {"data_format": data_format})

    return fused_ops.relu_bias_grads(relu_grad, bias_grad, gradients, features, data_format)


def _matmul_pairs(steps):
    """Indices ``n`` of the steps that are a ``MatMul`` followed by another that
    does not read it (a gradient's two products, say): candidates for
    :func:`_matmul_pair`. A step pairs at most once."""
    pairs = set()
    n = 0
    while n + 1 < len(steps):
        a, b = steps[n], steps[n + 1]
        if (a.kind == b.kind == _POSITIONAL and a.op._type == b.op._type == "MatMul" and not a.deadable
                and not b.deadable and all(src != a.out0 for src, _ in b.reads)):
            pairs.add(n)
            n += 2
        else:
            n += 1
    return pairs


def _one_thread_product(args, attrs):
    a, b = args
    if a.__class__ is not np.ndarray or b.__class__ is not np.ndarray or a.ndim != 2 or b.ndim != 2 \
            or a.dtype != b.dtype:
        return False
    m, k = a.shape[::-1] if attrs.get("transpose_a") else a.shape
    n = b.shape[0] if attrs.get("transpose_b") else b.shape[1]
    return gemm.one_thread(m, k, n, a.dtype)


def _call(op, kernel, args, attrs):
    try:
        return kernel(*args, **attrs)
    except _KERNEL_ERRORS as e:
        raise _op_error(e, op) from (None if isinstance(e, errors.OpError) else e)


def _matmul_pair(op_a, kernel_a, args_a, attrs_a, op_b, kernel_b, args_b, attrs_b):
    """Two adjacent ``MatMul`` steps, the second not reading the first, in a
    compiled plan: at once on ``ref``'s matrix threads when each is a product
    that would run on one thread (``gemm.concurrently``) -- TF runs independent
    ops at once too (``inter_op_parallelism_threads``) -- else one after the
    other. The kernels are pure, so the results are the same bits either way; on
    an error they run again one after the other, so the first op in the plan's
    order is the one named, as in the step loop."""
    if _one_thread_product(args_a, attrs_a) and _one_thread_product(args_b, attrs_b):
        try:
            return gemm.concurrently([lambda: kernel_a(*args_a, **attrs_a), lambda: kernel_b(*args_b, **attrs_b)])
        except _KERNEL_ERRORS:
            pass
    return _call(op_a, kernel_a, args_a, attrs_a), _call(op_b, kernel_b, args_b, attrs_b)


def _failed_step(error, first_lines):
    """The step of a compiled plan that raised ``error``, caught in the plan's
    function: the last step starting at or before the line its traceback starts
    at (that function's own). ``first_lines``: each step's first line, in order."""
    return max(bisect.bisect_right(first_lines, error.__traceback__.tb_lineno) - 1, 0)


def _update(step, kwargs, keys, store):
    """:func:`_run_stateful` for a compiled plan's update of variables known at
    compile time (one key per ref input, no list of refs): the same reads,
    donation, kernel call and commits, with less to decide per call."""
    values = store.values
    with store.lock:
        if step.donate:
            own = _owned(values, keys)
            if own is not None:
                kwargs["out"] = own
                own = None
        for (name, _, _), key in zip(step.ref_args, keys):
            v = values.get(key)
            if v is not None:
                kwargs[name] = v
            elif name in step.opdef.allow_uninitialized:
                kwargs[name] = None
            else:
                store.read(key, step.op)
        result = step.kernel(**kwargs)
        new = result if result.__class__ is tuple else (result,)
        for key, v in zip(keys, new):
            if v is not None:
                values[key] = v
    if not step.needed:  # no output is read (an update run for its effect): nothing to bind
        return None if not step.multi else [None] * len(step.outputs)
    return _bind_outputs(step, new, keys)


def _in_place_updater(step, keys):
    """For :func:`compile_plan`: ``update(store, *inputs)``, the variable update
    ``step`` as :func:`_update` runs it (``inputs``: its other inputs, in order),
    made lean for a training step: the kernel takes ``out=`` and is called
    positionally (its leading parameters are the op's inputs, ref inputs first,
    then its attrs), and when every stored array is the step's own to donate the
    call needs nothing else. Anything else (a variable not yet initialized, an
    array something else holds) goes through :func:`_update`. None when ``step``
    is not of that form."""
    kernel = step.kernel
    names = [name for name, _, _ in step.layout]
    refs = [name for name, _, _ in step.ref_args]
    if (not step.donate or step.ctx or names[:len(refs)] != refs
            or _leading_params(kernel, len(names) + len(step.attrs)) != names + list(step.attrs)):
        return None
    attrs = tuple(step.attrs.values())
    rest = names[len(refs):]
    needed, multi, count = bool(step.needed), step.multi, len(step.outputs)

    def update(store, *inputs):
        values = store.values
        with store.lock:
            own = _owned(values, keys)
            if own is not None:
                result = kernel(*own, *inputs, *attrs, out=own)
                if result is own:  # updated in place: the store holds the new values already
                    new = own
                else:
                    new = result if result.__class__ is tuple else (result,)
                    for key, v in zip(keys, new):
                        if v is not None:
                            values[key] = v
                if needed:
                    return _bind_outputs(step, new, keys)
                return [None] * count if multi else None  # an update run for its effect: nothing to bind
        return _update(step, {**step.attrs, **dict(zip(rest, inputs))}, keys, store)

    return update


def _bind_outputs(step, new, ref_keys):
    """The op's outputs from a stateful kernel's results ``new`` (new ref values first)."""
    opdef = step.opdef
    rest = list(new[len(opdef.refs):])
    outs = []
    aliased = dict(step.ref_outputs)
    for i in range(len(opdef.outputs) if not opdef.outputs or not opdef.outputs[0].startswith("*")
                   else len(step.outputs)):
        if i in aliased:
            outs.append(Ref(ref_keys[aliased[i]]))
        else:
            outs.append(rest.pop(0))
    return tuple(outs) if step.multi else outs[0]


def _run_stateful(step, kwargs, ref_keys, store):
    """Reads the refs, runs the kernel, commits new values; returns the op's outputs."""
    opdef = step.opdef
    op = step.op
    with store.lock:
        values = store.values
        if step.donate:
            own = _owned(values, ref_keys)
            if own is not None:
                kwargs["out"] = own
                own = None
        allow = opdef.allow_uninitialized
        for (name, _, _), key in zip(step.ref_args, ref_keys):
            if isinstance(key, list):  # a list of refs: their current values
                kwargs[name] = [values[k] if k in values else store.read(k, op) for k in key]
            elif key in values:
                kwargs[name] = values[key]
            elif name in allow:
                kwargs[name] = None
            else:
                store.read(key, op)
        result = step.kernel(**kwargs)
        n = len(opdef.refs)
        new = result if isinstance(result, tuple) else (result,)
        for key, v in zip(ref_keys, new[:n]):
            if isinstance(key, list):
                values.update((k, x) for k, x in zip(key, v) if x is not None)
            elif v is not None:
                values[key] = v
    if not step.needed:  # no output is read (an update run for its effect): nothing to bind
        return None if not step.multi else [None] * len(step.outputs)
    return _bind_outputs(step, new, ref_keys)


def _shape_str(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"
