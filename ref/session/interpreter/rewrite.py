"""The rewrites a compiled plan makes, as a table (:data:`GROUPS`, :class:`ShapeMemo`):
which op types they concern and the code they write. ``codegen`` names no op
type; it asks this table. No rewrite changes a result's bits.

* a group rewrite takes several steps and writes them as one call at the
  first one's place (the others leave only their drops): a ``BiasAdd`` with
  the ``Relu`` that alone reads it and a ``ReluGrad`` with the ``BiasAddGrad``
  of its result run fused (``ref.ops.fused``, TF's remapper); two adjacent
  independent ``MatMul``\\ s run at once on ``ref``'s matrix threads.
* the shape memo: a pure step whose every input is a function of some
  ``Shape``/``Size``/``Rank`` output (or a constant) is computed once per shape
  (the arithmetic on a dynamic batch size ``reduce_mean``'s gradient does).

A rewrite's ``find(steps, fetched, taken)`` returns the groups it takes (tuples
of step indices, first the step where its line goes) and ``emit(group, w)``
writes the line through the code writer ``w`` (``codegen``'s ``_Writer``).
"""
from __future__ import annotations

import numpy as np

from ref.ops import fused as fused_ops, gemm
from ref.session.interpreter.failures import KERNEL_ERRORS, call
from ref.session.interpreter.state import Ref
from ref.session.interpreter.steps import POSITIONAL, is_pure


def _plain(step, op_type):
    """Whether ``step`` is a positional call of an op of ``op_type`` not below a Switch."""
    return step.kind == POSITIONAL and not step.deadable and step.op._type == op_type


def _readers(steps):
    readers = {}
    for i, st in enumerate(steps):
        for src, _ in st.reads:
            readers.setdefault(src, []).append(i)
    return readers


class BiasRelu:
    """``Relu(BiasAdd(x, b))`` as one kernel, when only the ``Relu`` reads the sum
    and the sum is not fetched (``ref.ops.fused.bias_relu``)."""

    def find(self, steps, fetched, taken):
        readers = _readers(steps)
        for n, st in enumerate(steps):
            if n not in taken and _plain(st, "BiasAdd") and st.out0 not in fetched \
                    and len(readers.get(st.out0, ())) == 1:
                m = readers[st.out0][0]
                if _plain(steps[m], "Relu") and m not in taken:
                    taken.update((n, m))
                    yield (n, m)

    def emit(self, group, w):
        n, m = group
        first, second = w.steps[n], w.steps[m]
        k1, k2 = w.bind(f"K{n}", first.kernel), w.bind(f"K{m}", second.kernel)
        fmt = w.bind(f"a{n}_0", first.attrs.get("data_format", "NHWC"))
        w.line(f"s{second.out0} = _bias_relu({k1}, {k2}, {', '.join(w.args(n))}, {fmt})")
        w.values(second.out0)


class ReluBiasGrads:
    """``ReluGrad`` and the ``BiasAddGrad`` of its result in one pass
    (``ref.ops.fused.relu_bias_grads``); an error of the ``BiasAddGrad`` names its op."""

    def find(self, steps, fetched, taken):
        readers = _readers(steps)
        for n, st in enumerate(steps):
            if n in taken or not _plain(st, "ReluGrad"):
                continue
            for m in readers.get(st.out0, ()):
                if _plain(steps[m], "BiasAddGrad") and m not in taken and steps[m].reads[0][0] == st.out0:
                    taken.update((n, m))
                    yield (n, m)
                    break

    def emit(self, group, w):
        n, m = group
        first, second = w.steps[n], w.steps[m]
        k1, k2 = w.bind(f"K{n}", first.kernel), w.bind(f"K{m}", second.kernel)
        fmt = w.bind(f"a{n}_0", second.attrs.get("data_format", "NHWC"))
        w.line(f"s{first.out0}, s{second.out0} = _relu_bias_grads(OPS[{m}], {k1}, {k2}, "
               f"{', '.join(w.args(n))}, {fmt})")
        w.values(first.out0, second.out0)

    @staticmethod
    def run(bias_grad_op, relu_grad, bias_add_grad, gradients, features, data_format):
        def bias_grad(backprops, data_format):
            return call(bias_grad_op, bias_add_grad, (backprops,), {"data_format": data_format})

        return fused_ops.relu_bias_grads(relu_grad, bias_grad, gradients, features, data_format)


class MatMulPair:
    """Two adjacent ``MatMul`` steps, the second not reading the first (a
    gradient's two products): at once on ``ref``'s matrix threads when each
    would run on one thread (``gemm.concurrently``) -- TF runs independent ops
    at once too -- else one after the other. A step pairs at most once."""

    def find(self, steps, fetched, taken):
        n = 0
        while n + 1 < len(steps):
            a, b = steps[n], steps[n + 1]
            if (_plain(a, "MatMul") and _plain(b, "MatMul") and n not in taken and n + 1 not in taken
                    and all(src != a.out0 for src, _ in b.reads)):
                taken.update((n, n + 1))
                yield (n, n + 1)
                n += 2
            else:
                n += 1

    def emit(self, group, w):
        n, m = group
        a, b = w.steps[n], w.steps[m]
        parts = []
        for j, st in ((n, a), (m, b)):
            parts.append(f"OPS[{j}], {w.bind(f'K{j}', st.kernel)}, ({', '.join(w.args(j))},), "
                         f"{w.bind(f'A{j}', st.attrs)}")
        w.line(f"s{a.out0}, s{b.out0} = _matmul_pair({', '.join(parts)})")
        w.values(a.out0, b.out0)

    @staticmethod
    def run(op_a, kernel_a, args_a, attrs_a, op_b, kernel_b, args_b, attrs_b):
        """The pair's two products. The kernels are pure, so the results are the
        same bits either way; on an error they run again one after the other, so
        the first op in the plan's order is the one named, as in the step loop."""
        if _one_thread_product(args_a, attrs_a) and _one_thread_product(args_b, attrs_b):
            try:
                return gemm.concurrently([lambda: kernel_a(*args_a, **attrs_a),
                                          lambda: kernel_b(*args_b, **attrs_b)])
            except KERNEL_ERRORS:
                pass
        return call(op_a, kernel_a, args_a, attrs_a), call(op_b, kernel_b, args_b, attrs_b)


def _one_thread_product(args, attrs):
    a, b = args
    if a.__class__ is not np.ndarray or b.__class__ is not np.ndarray or a.ndim != 2 or b.ndim != 2 \
            or a.dtype != b.dtype:
        return False
    m, k = a.shape[::-1] if attrs.get("transpose_a") else a.shape
    n = b.shape[0] if attrs.get("transpose_b") else b.shape[1]
    return gemm.one_thread(m, k, n, a.dtype)


_ADDS = ("AddV2", "Add")


class LSTMCell:
    """An LSTM cell's element-wise ops as one call (``ref.ops.fused.lstm_cell``):
    from its last ``Mul`` ``h' = tanh(c') * sigmoid(o)`` back through
    ``c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)`` (either operand
    order of each ``Mul`` and of ``c'``'s add). The call takes the place of the
    first of the ten steps, so every input the cell reads from outside must be
    computed before that step; all ten values are written, whoever reads them."""

    def find(self, steps, fetched, taken):
        made = {st.out0: n for n, st in enumerate(steps) if st.kind == POSITIONAL and st.out0 is not None}
        written = {o: n for n, st in enumerate(steps) for o in st.outputs if o is not None}

        def producer(slot, *types):
            n = made.get(slot)
            if n is None or n in taken or not any(_plain(steps[n], t) for t in types):
                return None
            return n

        def operands(n, first, second):
            """Step n's two inputs' producers as (one of ``first``, one of ``second``), either order."""
            if len(steps[n].reads) != 2:
                return None
            x, y = (src for src, _ in steps[n].reads)
            for u, v in ((x, y), (y, x)):
                p, q = producer(u, *first), producer(v, *second)
                if p is not None and q is not None:
                    return p, q
            return None

        def kept(m):
            """(sigmoid step, add step) when step m is ``c * sigmoid(f + forget_bias)``."""
            for src, _ in steps[m].reads:
                sf = producer(src, "Sigmoid")
                t = None if sf is None else producer(steps[sf].reads[0][0], *_ADDS)
                if t is not None and len(steps[t].reads) == 2:
                    return sf, t
            return None

        for nh in range(len(steps)):
            if nh in taken or not _plain(steps[nh], "Mul"):
                continue
            outer = operands(nh, ("Tanh",), ("Sigmoid",))
            nc = None if outer is None else producer(steps[outer[0]].reads[0][0], *_ADDS)
            parts = None if nc is None else operands(nc, ("Mul",), ("Mul",))
            if parts is None:
                continue
            for m1, m2 in (parts, parts[::-1]):
                sig_t, added = kept(m1), operands(m2, ("Sigmoid",), ("Tanh",))
                if sig_t is not None and added is not None:
                    break
            else:
                continue
            (tc, so), (sf, t), (si, tj) = outer, sig_t, added
            group = (t, sf, m1, si, tj, m2, nc, tc, so, nh)
            if len(set(group)) != len(group) or taken.intersection(group):
                continue
            inside = {steps[n].out0 for n in group}
            outside = {src for n in group for src, _ in steps[n].reads} - inside
            first = min(group)
            if any(written.get(s, -1) >= first for s in outside):
                continue
            taken.update(group)
            yield (first,) + group

    def emit(self, group, w):
        first, members = group[0], group[1:]
        steps = w.steps
        t, sf, m1 = members[:3]
        si, tj, so = members[3], members[4], members[8]
        c_read = next(r for r in steps[m1].reads if r[0] != steps[sf].out0)
        reads = [c_read, steps[si].reads[0], steps[tj].reads[0], steps[t].reads[0], steps[t].reads[1],
                 steps[so].reads[0]]
        unfused = _UnfusedCell([src for src, _ in reads], [steps[n] for n in sorted(members)],
                               [steps[n].out0 for n in members])
        name = w.bind(f"L{first}", unfused)
        ins = ", ".join(w.value_of(src, deref, first) for src, deref in reads)
        outs = [steps[n].out0 for n in members]
        w.line(f"{', '.join(f's{o}' for o in outs)} = _lstm_cell({name}, {ins})")
        w.values(*outs)

    @staticmethod
    def run(unfused, c, i, j, f, forget_bias, o):
        return fused_ops.lstm_cell(lambda: unfused(c, i, j, f, forget_bias, o), c, i, j, f, forget_bias, o)


class _UnfusedCell:
    """The cell's ten ops one after the other in the plan's order, each its own
    kernel (an error names its op), from the cell's six input slots' values;
    returns the values of ``outs``."""

    def __init__(self, inputs, steps, outs):
        self.inputs, self.outs = inputs, outs
        self.calls = [(st.op, st.kernel, tuple(src for src, _ in st.reads), st.out0, dict(st.attrs))
                      for st in steps]

    def __call__(self, *values):
        env = dict(zip(self.inputs, values))
        for op, kernel, reads, out, attrs in self.calls:
            env[out] = call(op, kernel, [env[s] for s in reads], attrs)
        return [env[s] for s in self.outs]


GROUPS = (MatMulPair(), BiasRelu(), ReluBiasGrads(), LSTMCell())
"""The group rewrites, in the order they choose their steps."""

RUNTIME = {"_bias_relu": fused_ops.bias_relu, "_relu_bias_grads": ReluBiasGrads.run,
           "_matmul_pair": MatMulPair.run, "_lstm_cell": LSTMCell.run}
"""The names the code the rewrites write calls."""


def groups(steps, fetched):
    """``{first step: (rewrite, group)}`` and ``{other member: first step}`` for ``steps``."""
    taken, first, member = set(), {}, {}
    for rewrite in GROUPS:
        for group in list(rewrite.find(steps, fetched, taken)):
            first[group[0]] = (rewrite, group)
            member.update((m, group[0]) for m in group[1:] if m != group[0])
    return first, member


MEMO_ELEMENTS = 64
"""Values of at most this many elements are what :func:`memo` keeps."""
MEMO_SHAPES = 32
"""Shapes per step :func:`memo` remembers (then it starts afresh)."""


class ShapeMemo:
    """The shape memo of one compiled plan: which slots are functions of shapes."""

    SOURCES = frozenset({"Shape", "Size", "Rank"})

    def __init__(self, template, fetched):
        self.template = template
        self.fetched = fetched
        self.shaped = {}  # slot -> the h-variables (shape outputs' bytes) its value is a function of

    def emit(self, n, step, call_text, w):
        """Writes positional step ``n`` (its call ``call_text``) when the memo
        concerns it; returns whether it did."""
        if step.op._type in self.SOURCES and not step.deadable:
            w.line(f"s{step.out0} = {call_text}")
            w.line(f"h{n} = s{step.out0}.tobytes()")
            self.shaped[step.out0] = (f"h{n}",)
            return True
        roots = self._roots(step)
        if not roots:
            return False
        key = roots[0] if len(roots) == 1 else f"({', '.join(roots)},)"
        w.bind(f"M{n}", {})
        w.line(f"s{step.out0} = M{n}.get({key})")
        w.line(f"if s{step.out0} is None: s{step.out0} = _memo(M{n}, {key}, {call_text})")
        self.shaped[step.out0] = roots
        return True

    def _roots(self, step):
        """The h-variables (sorted) when ``step`` is a pure op whose every input is a
        function of some shape outputs or a constant and whose value is not fetched; else ()."""
        if step.deadable or not is_pure(step.opdef) or step.out0 in self.fetched:
            return ()
        roots = set()
        for src, _ in step.reads:
            if src in self.shaped:
                roots.update(self.shaped[src])
            elif self.template[src] is None or self.template[src].__class__ is Ref:
                return ()
        return tuple(sorted(roots))


def memo(table, key, value):
    """``value`` (computed from shapes ``key`` by a pure kernel), kept read-only in
    ``table`` for the next run with the same shapes when it is small: the step then
    costs a dictionary lookup. Read-only, as a folded constant, so nothing it is
    handed to can change what the next run reads."""
    if getattr(value, "size", MEMO_ELEMENTS + 1) <= MEMO_ELEMENTS and hasattr(value, "setflags"):
        if len(table) >= MEMO_SHAPES:
            table.clear()
        value.setflags(write=False)
        table[key] = value
    return value


RUNTIME["_memo"] = memo
