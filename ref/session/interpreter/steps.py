"""One op of a plan (:class:`Step`), and the ONE way a stateful op changes state
(:func:`commit`).

:func:`commit` is the commit API every variable update goes through -- the
reference evaluator's, the step loop's and compiled plans' (:func:`run_update`):
under the store's lock it hands the kernel the stored values of its ref inputs
(and, when they are the store's alone, the stored arrays themselves as ``out=``
buffers to update in place), calls it, and stores the new values it returns
first. :func:`in_place_updater` is the same commit for a training step, called
positionally when donation succeeds; anything else falls back to
:func:`run_update`. A new kind of update (an in-place sparse update, say) is a
kernel that takes ``out=``; a new kind of step (a control-flow frame's
``Enter``/``Exit``/``NextIteration``) is a new ``kind`` here and a branch in
``executor.execute``.
"""
from __future__ import annotations

import inspect
import sys

import numpy as np

from ref.ops.control import DEAD
from ref.session.interpreter.state import Ref

# Step kinds: a kernel called with keywords, a variable update, an unfed placeholder,
# a kernel called positionally (one output, no context, inputs first in its signature).
KERNEL, STATEFUL, PLACEHOLDER, POSITIONAL = range(4)


def is_pure(opdef) -> bool:
    """Whether an op's kernel is a pure function of its inputs and attrs (no
    state, no run context, no references): it may be folded, pruned, moved."""
    return (opdef.kernel is not None and not opdef.stateful and not opdef.ctx and not opdef.refs
            and not opdef.creates_ref)


class Step:
    """Everything about one op the evaluator needs, precomputed."""

    __slots__ = ("op", "kind", "kernel", "attrs", "reads", "layout", "ref_args", "ref_names", "outputs", "multi",
                 "donate", "deadable", "ctx", "drops", "opdef", "aliased", "out0", "needed",
                 "dead_controls")

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
        self.ref_names = tuple(name for name, _, _ in ref_args)
        self.outputs = tuple(outs)
        self.multi = not (len(outs) == 1 and len(opdef.outputs) == 1 and not opdef.outputs[0].startswith("*"))
        self.ctx = opdef.ctx
        self.donate = bool(opdef.refs) and accepts_out(opdef.kernel)
        self.aliased = aliased_outputs(opdef)
        self.drops = ()
        self.needed = frozenset(range(len(outs)))
        self.deadable = False
        self.dead_controls = ()  # slots of control inputs that may be dead (a cond's pivot)
        self.out0 = outs[0] if outs else None
        # The common case: one output, no context, inputs passed positionally when the
        # kernel's first parameters are the op's inputs, in order.
        names = [n for n, _, end in layout if end is None]
        if (kind == KERNEL and not self.ctx and not self.multi and len(names) == len(layout)
                and all(d for _, d in reads) and leading_params(self.kernel, len(names)) == names):
            self.kind = POSITIONAL

    def keywords(self, args):
        """The kernel's keyword arguments: the attrs, then the inputs ``args`` by name."""
        kwargs = self.attrs.copy()
        for name, i, end in self.layout:
            kwargs[name] = args[i] if end is None else args[i:end]
        return kwargs

    def ref_keys(self, args):
        """The store keys of the ref inputs among ``args`` (a list of keys for a list of refs)."""
        return [args[i].key if end is None else [r.key for r in args[i:end]] for _, i, end in self.ref_args]

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


def leading_params(kernel, n):
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


def accepts_out(kernel) -> bool:
    if kernel not in _ACCEPTS_OUT:
        try:
            _ACCEPTS_OUT[kernel] = "out" in inspect.signature(kernel).parameters
        except (TypeError, ValueError):
            _ACCEPTS_OUT[kernel] = False
    return _ACCEPTS_OUT[kernel]


def aliased_outputs(opdef):
    """``{output index: ref index}`` for the outputs that alias a ref input."""
    return {i: opdef.refs.index(opdef.ref_outputs[name])
            for i, name in enumerate(opdef.outputs) if opdef.ref_outputs.get(name) in opdef.refs}


# A stored array is ours alone when only the store and this frame refer to it.
_OWN_REFCOUNT = 3
_getrefcount = sys.getrefcount
_ndarray = np.ndarray


def owned(values, keys):
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


def commit(opdef, names, keys, kwargs, store, op, donate=False, kernel=None):
    """Runs the stateful kernel of ``opdef`` on the stored values and stores the
    new ones; returns the kernel's results as a tuple (new ref values first).

    ``names[i]`` is a ref input and ``keys[i]`` its store key (a list of keys
    for a list of refs); ``kwargs`` holds the other arguments. A ref input the
    op may initialize (``allow_uninitialized``) gets None when unset; another
    raises FailedPreconditionError. With ``donate``, when the stored arrays are
    the store's alone they are passed as ``out=``: the kernel may update them in
    place (same bits). A None new value leaves the stored one. ``kernel``: the
    step's kernel when it is not ``opdef.kernel`` (a GPU-placed step's)."""
    with store.lock:
        values = store.values
        if donate:
            own = owned(values, keys)
            if own is not None:
                kwargs["out"] = own
                own = None  # the store's array is referenced from kwargs only
        allow = opdef.allow_uninitialized
        for name, key in zip(names, keys):
            if key.__class__ is list:  # a list of refs (SdcaShrinkL1's weights): values in, new values out
                kwargs[name] = [values[k] if k in values else store.read(k, op) for k in key]
            elif key in values:
                kwargs[name] = values[key]
            elif name in allow:  # Assign gives a variable its first value
                kwargs[name] = None
            else:
                store.read(key, op)  # raises FailedPreconditionError: uninitialized
        result = (kernel or opdef.kernel)(**kwargs)
        new = result if isinstance(result, tuple) else (result,)
        store_new(values, keys, new)
    return new


def store_new(values, keys, new):
    """Stores the new values (``new``'s leading ones) under ``keys``; None keeps a value."""
    for key, v in zip(keys, new):
        if key.__class__ is list:
            values.update((k, x) for k, x in zip(key, v) if x is not None)
        elif v is not None:
            values[key] = v


def bind_outputs(opdef, aliased, new, keys, count):
    """The op's ``count`` outputs from a stateful kernel's results ``new``: an
    output aliasing ref input ``j`` (``aliased``) is that variable's :class:`Ref`,
    the others are the results after the new ref values, in order."""
    rest = iter(new[len(opdef.refs):])
    return tuple(Ref(keys[aliased[i]]) if i in aliased else next(rest) for i in range(count))


def run_update(step, kwargs, keys, store):
    """A variable update step (:func:`commit`); returns its outputs as the step
    binds them (a sequence when it has several, None when none is read)."""
    new = commit(step.opdef, step.ref_names, keys, kwargs, store, step.op, step.donate, step.kernel)
    if not step.needed:  # no output is read (an update run for its effect): nothing to bind
        return None if not step.multi else [None] * len(step.outputs)
    outs = bind_outputs(step.opdef, step.aliased, new, keys, len(step.outputs))
    return outs if step.multi else outs[0]


def in_place_updater(step, keys):
    """``update(store, *inputs)``: the variable update ``step`` as
    :func:`run_update` runs it (``inputs``: its other inputs, in order), made lean
    for a training step of a compiled plan: when every stored array is the
    step's own to donate, the kernel is called positionally with them as
    ``out=`` (its leading parameters are the op's inputs, ref inputs first, then
    its attrs). Anything else (a variable not yet initialized, an array
    something else holds) goes through :func:`run_update`. None when ``step`` is
    not of that form."""
    kernel = step.kernel
    names = [name for name, _, _ in step.layout]
    refs = list(step.ref_names)
    if (not step.donate or step.ctx or names[:len(refs)] != refs
            or leading_params(kernel, len(names) + len(step.attrs)) != names + list(step.attrs)):
        return None
    attrs = tuple(step.attrs.values())
    rest = names[len(refs):]
    needed, multi, count = bool(step.needed), step.multi, len(step.outputs)

    def update(store, *inputs):
        values = store.values
        with store.lock:
            own = owned(values, keys)
            if own is not None:
                result = kernel(*own, *inputs, *attrs, out=own)
                if result is own:  # updated in place: the store holds the new values already
                    new = own
                else:
                    new = result if isinstance(result, tuple) else (result,)
                    store_new(values, keys, new)
                if needed:
                    outs = bind_outputs(step.opdef, step.aliased, new, keys, count)
                    return outs if multi else outs[0]
                return [None] * count if multi else None  # an update run for its effect: nothing to bind
        return run_update(step, {**step.attrs, **dict(zip(rest, inputs))}, keys, store)

    return update
