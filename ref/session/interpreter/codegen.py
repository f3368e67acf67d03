"""Code generation: a :class:`~ref.session.interpreter.plan.Plan` as one Python
function ``run(feeds, state) -> fetched values`` (:func:`compile_plan`).

Every value is a local variable, each step one line calling its kernel with the
attrs spelled out, constants and variable keys bound at compile time, values
dropped after their last reader as in ``execute``, and the same ``OpError`` for
a failing op. Which steps run together and which values are memoised per shape
is the rewrite table's business (``rewrite``): this module names no op type.
No result changes: the kernels, their inputs and their order are the plan's.
"""
from __future__ import annotations

import bisect
from keyword import iskeyword

from ref.types import errors
from ref.session.interpreter import rewrite
from ref.session.interpreter.failures import KERNEL_ERRORS, op_error
from ref.session.interpreter.state import Ref
from ref.session.interpreter.steps import KERNEL, POSITIONAL, STATEFUL, in_place_updater, run_update

__all__ = ["compile_plan"]


class _Writer:
    """The function being written: its namespace ``ns``, body lines, and what
    each slot holds (``kind``: "ref" a template Ref, "value" never a Ref, "any")."""

    def __init__(self, plan, ns, kind):
        self.plan = plan
        self.steps = plan.steps
        self.ns = ns
        self.kind = kind
        self.body = []

    def bind(self, name, value):
        """Binds ``value`` to ``name`` in the function's globals; returns the name."""
        self.ns[name] = value
        return name

    def line(self, text):
        self.body.append(text)

    def values(self, *slots):
        """Marks ``slots`` as holding values (never a Ref)."""
        self.kind.update((s, "value") for s in slots)

    def value_of(self, slot, deref, n):
        """The expression of an input of step ``n`` read from ``slot``."""
        k = self.kind.get(slot)
        if k is None:  # nothing writes it (the step loop reads None there too)
            return "None"
        if not deref:
            return f"c{slot}" if k == "ref" else f"s{slot}"
        if k == "ref":
            self.ns[f"k{slot}"] = self.plan.template[slot].key
            return f"read(k{slot}, OPS[{n}])"
        if k == "value":
            return f"s{slot}"
        return f"(read(s{slot}.key, OPS[{n}]) if s{slot}.__class__ is _Ref else s{slot})"

    def args(self, n):
        """The expressions of step ``n``'s inputs, in order."""
        return [self.value_of(src, deref, n) for src, deref in self.steps[n].reads]

    def drop(self, drops):
        """The line dropping values after their last reader."""
        if drops:
            self.body.append(" = ".join(f"s{d}" for d in drops) + " = None")


def compile_plan(plan, run_step):
    """``plan`` as one Python function ``run(feeds, state)`` (see the module's
    docstring); ``run_step(step, args, state)`` runs a step written as a plain
    call to the step loop's code (``executor.run_step``)."""
    ns = {"_errors": errors, "_KERNEL_ERRORS": KERNEL_ERRORS, "_op_error": op_error, "_run_step": run_step,
          "_update": run_update, "_deref": _deref, "_padded": _padded, "_Ref": Ref, "_failed_step": _failed_step,
          **rewrite.RUNTIME}
    kind = {}
    for i, v in enumerate(plan.template):
        if v is not None:
            kind[i] = "ref" if v.__class__ is Ref else "value"
            ns[f"c{i}"] = v
    lines = ["def run(feeds, state):", "    store = state.store", "    read = store.read"]
    for t, s in plan.feed_slots:
        ns[f"t{s}"] = t
        lines.append(f"    s{s} = feeds[t{s}]")
        kind[s] = "value" if plan.values_fed else "any"  # a function body's inputs can be variables' Refs
    read_slots = {src for step in plan.steps for src, _ in step.reads} | set(plan.fetch_slots)
    for i, v in enumerate(plan.template):
        if v is not None and v.__class__ is not Ref and i in read_slots:
            lines.append(f"    s{i} = c{i}")
    lines.append("    try:")
    w = _Writer(plan, ns, kind)
    first_lines = []  # each step's line in the function (which op failed: _failed_step)
    ns["OPS"] = [step.op for step in plan.steps]
    fetched_slots = set(plan.fetch_slots)
    group_at, member_of = rewrite.groups(plan.steps, fetched_slots)
    memo = rewrite.ShapeMemo(plan.template, fetched_slots)
    for n, step in enumerate(plan.steps):
        first_lines.append(len(lines) + len(w.body) + 1)  # the step's first line (then maybe a drop line)
        if n in member_of:  # written with an earlier step of its group: only its drops are left
            w.drop(step.drops)
            continue
        if n in group_at:
            rule, group = group_at[n]
            rule.emit(group, w)
            w.drop(step.drops)
            continue
        _write_step(n, step, w, memo)
        w.drop(step.drops)
    lines.extend("        " + b for b in w.body or ["pass"])
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
    code = compile(source, f"<ref plan {id(plan):x}>", "exec")
    padding = _frame_padding([c for c in code.co_consts if hasattr(c, "co_nlocals")][0])
    if padding:  # after the return: the steps' line numbers stay
        source = "\n".join(lines + padding) + "\n"
        code = compile(source, f"<ref plan {id(plan):x}>", "exec")
    exec(code, ns)  # noqa: S102 -- our own generated code
    run = ns["run"]
    run.source = source
    return run


FRAME_CHUNK_SLOTS = 2048
"""Slots of CPython's frame-stack chunk (3.11+: ``DATA_STACK_CHUNK_SIZE``, 16 KiB)."""
PAD_FROM_SLOTS = 256
"""Frame slots (locals and value stack) from which a plan's function gets :func:`_frame_padding`."""


def _frame_padding(code):
    """Lines declaring never-assigned locals so that the function's frame is larger
    than a frame-stack chunk. CPython (3.11+) keeps frames on a stack of chunks;
    a frame that does not fit the current chunk gets a new one with at least
    1,000 slots to spare. A large plan's frame that *just* fits leaves too little
    for its kernels' frames, and each kernel call then maps a new 16 KiB chunk and
    unmaps it on return (~1 us and page faults; the LSTM LM: ~1,000 calls and
    faults a step). A frame larger than any chunk the session's own frames use
    always starts a new chunk, with room for the kernels' frames."""
    slots = code.co_nlocals + code.co_stacksize
    if slots < PAD_FROM_SLOTS or slots > FRAME_CHUNK_SLOTS + 64:
        return []
    names = [f"_pad{i}" for i in range(FRAME_CHUNK_SLOTS + 64 - slots)]
    return ["    if False:  # frame padding (_frame_padding)"] + [
        "        " + " = ".join(names[i:i + 64]) + " = None" for i in range(0, len(names), 64)]


def _write_step(n, step, w, memo):
    """Writes the line(s) of step ``n`` that no group rewrite took."""
    ns, kind, args = w.ns, w.kind, w.args(n)
    if step.kind == POSITIONAL:
        attrs = []
        for j, (name, v) in enumerate(step.attrs.items()):
            ns[f"a{n}_{j}"] = v
            attrs.append(f"{name}=a{n}_{j}" if name.isidentifier() and not iskeyword(name) else None)
        if None in attrs:
            ns[f"A{n}"] = step.attrs
            attrs = [f"**A{n}"]
        ns[f"K{n}"] = step.kernel
        call = f"K{n}({', '.join(args + attrs)})"
        if not memo.emit(n, step, call, w) and not rewrite.emit_in_place(n, step, args, w):
            w.line(f"s{step.out0} = {call}")
        kind[step.out0] = "value"
        return
    if (step.kind == STATEFUL and not step.ctx and all(end is None for _, _, end in step.layout)
            and all(kind.get(step.reads[i][0]) == "ref" for _, i, _ in step.ref_args)):
        # a variable update whose variables are known now: its keyword arguments as one dict display
        ns[f"S{n}"] = step
        ns[f"R{n}"] = [w.plan.template[step.reads[i][0]].key for _, i, _ in step.ref_args]
        items = []
        for j, (name, v) in enumerate(step.attrs.items()):
            ns[f"a{n}_{j}"] = v
            items.append(f"{name!r}: a{n}_{j}")
        refs = set(step.ref_names)
        updater = in_place_updater(step, ns[f"R{n}"])
        if updater is not None:  # a training step's update: the other inputs positionally
            ns[f"U{n}"] = updater
            call = f"U{n}(store{''.join(', ' + args[i] for name, i, _ in step.layout if name not in refs)})"
        else:
            items += [f"{name!r}: {args[i]}" for name, i, _ in step.layout if name not in refs]
            call = f"_update(S{n}, {{{', '.join(items)}}}, R{n}, store)"
    elif step.kind == KERNEL and not step.ctx and all(a.isidentifier() and not iskeyword(a) for a in step.attrs):
        # keywords (list inputs as lists), as run_step would pass them
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
        call = f"_run_step(S{n}, [{', '.join(args)}], state)"
    outs = step.outputs
    if not outs:
        w.line(call)
    elif step.multi:
        w.line(f"{', '.join(f's{o}' for o in outs)}, = _padded({call}, {len(outs)})")
    else:
        w.line(f"s{outs[0]} = {call}")
    for o in outs:
        kind[o] = "value" if step.kind == KERNEL and not step.ctx else "any"


def _deref(value, store, op):
    """``value``, or the stored value of the variable it refers to."""
    return store.read(value.key, op) if value.__class__ is Ref else value


def _padded(result, n):
    """A multi-output kernel's ``result`` as exactly ``n`` values (missing ones None, as zip leaves them)."""
    result = list(result)
    return result[:n] if len(result) >= n else result + [None] * (n - len(result))


def _failed_step(error, first_lines):
    """The step of a compiled plan that raised ``error``, caught in the plan's
    function: the last step starting at or before the line its traceback starts
    at (that function's own). ``first_lines``: each step's first line, in order."""
    return max(bisect.bisect_right(first_lines, error.__traceback__.tb_lineno) - 1, 0)
