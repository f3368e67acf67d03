"""The rewrites a compiled plan makes, as a table (:data:`GROUPS`, :class:`ShapeMemo`):
which op types they concern and the code they write. ``codegen`` names no op
type; it asks this table. No rewrite changes a result's bits.

* a group rewrite takes several steps and writes them as one call at the
  first one's place (the others leave only their drops): a ``BiasAdd`` with
  the ``Relu`` that alone reads it and a ``ReluGrad`` with the ``BiasAddGrad``
  of its result run fused (``ref.ops.fused``, TF's remapper); two adjacent
  independent ``MatMul``\\ s run at once on ``ref``'s matrix threads, and so
  does a ``MatMul`` with the next one whose operands are known or one pure step
  away (that step and the product moved up: a stacked LSTM's layers); an
  LSTM cell's ten element-wise ops (``c' = c * sigmoid(f + forget_bias) +
  sigmoid(i) * tanh(j)``, ``h' = tanh(c') * sigmoid(o)``: ``BasicLSTMCell``'s and
  ``LSTMCell``'s) run as ``ref.ops.fused.lstm_cell``, every value still produced
  (the gradient reads the sigmoids and tanhs), and its gradient's twelve or
  thirteen (the gates' ``SigmoidGrad``/``TanhGrad`` of ``Mul``\\ s, their
  ``ConcatV2``, the new state's gradient) as ``ref.ops.fused.lstm_cell_grads``.
* in place: an element-wise step (:data:`IN_PLACE`) that reads a large array
  of the plan's own for the last time writes its result into it
  (:func:`in_place`, checked at run time by the array's reference count).
* the shape memo: a pure step whose every input is a function of some
  ``Shape``/``Size``/``Rank`` output (or a constant) is computed once per shape
  (the arithmetic on a dynamic batch size ``reduce_mean``'s gradient does).

A rewrite's ``find(steps, fetched, taken)`` returns the groups it takes (tuples
of step indices, first the step where its line goes) and ``emit(group, w)``
writes the line through the code writer ``w`` (``codegen``'s ``_Writer``).
"""
from __future__ import annotations

import sys

import numpy as np

from ref.ops import fused as fused_ops, gemm
from ref.session.interpreter.failures import KERNEL_ERRORS, call
from ref.session.interpreter.state import Ref
from ref.session.interpreter.steps import KERNEL, POSITIONAL, is_pure


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


class ConvBiasRelu:
    """``Relu(BiasAdd(Conv2D(x, f), b))`` as one kernel (``ref.ops.fused.conv_bias_relu``,
    TF's remapper's ``_FusedConv2D``) when the ``BiasAdd`` alone reads the convolution and
    the ``Relu`` alone the sum, neither fetched, and ``b`` is a value computed before the
    ``Conv2D`` (the line goes at its place). Where the fused kernel does not apply, the
    three kernels run, each error naming its op."""

    def find(self, steps, fetched, taken):
        readers = _readers(steps)
        made = {slot: i for i, st in enumerate(steps) for slot in st.outputs}
        for n, st in enumerate(steps):
            if n in taken or not _plain(st, "Conv2D") or st.out0 in fetched or len(readers.get(st.out0, ())) != 1:
                continue
            m = readers[st.out0][0]
            bias_add = steps[m]
            if m in taken or not _plain(bias_add, "BiasAdd") or bias_add.reads[0][0] != st.out0 \
                    or bias_add.out0 in fetched or len(readers.get(bias_add.out0, ())) != 1:
                continue
            q = readers[bias_add.out0][0]
            b = made.get(bias_add.reads[1][0], -1)  # (-1: a feed, a constant or a variable)
            if q in taken or not _plain(steps[q], "Relu") or b >= n \
                    or not all(is_pure(steps[k].opdef) for k in range(n + 1, m)):
                continue
            taken.update((n, m, q))
            yield (n, m, q)

    def emit(self, group, w):
        n, m, q = group
        conv, bias_add, relu = w.steps[n], w.steps[m], w.steps[q]
        kernels = ", ".join(w.bind(f"K{j}", w.steps[j].kernel) for j in group)
        attrs = w.bind(f"A{n}", conv.attrs)
        fmt = w.bind(f"a{m}_0", bias_add.attrs.get("data_format", "NHWC"))
        w.line(f"s{relu.out0} = _conv_bias_relu(OPS[{n}], OPS[{m}], OPS[{q}], {kernels}, "
               f"{', '.join(w.args(n))}, {w.args(m)[1]}, {attrs}, {fmt})")
        w.values(relu.out0)

    @staticmethod
    def run(conv_op, bias_op, relu_op, conv2d, bias_add, relu, x, f, bias, attrs, data_format):
        out = fused_ops.conv_bias_relu(x, f, bias, attrs, data_format)
        if out is not None:
            return out
        y = call(conv_op, conv2d, (x, f), attrs)
        return call(relu_op, relu, (call(bias_op, bias_add, (y, bias), {"data_format": data_format}),), {})


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



AHEAD_WINDOW = 64
"""Steps after a ``MatMul`` that :class:`MatMulAhead` looks through for its partner."""


class MatMulAhead:
    """A ``MatMul`` paired with a later one whose operands are all known already,
    or computed from known values by one pure step each (a ``ConcatV2`` of the
    next time step's input and this step's state): that step and the later
    product move up to the first product's place and the two run as
    :class:`MatMulPair` runs them -- a stacked LSTM's layer-2 gates at time t with
    layer 1's at t + 1, as TF's executor runs ready ops at once. No variable is
    updated in between (a moved read would see another value); the kernels are
    pure, so the values are the same bits."""

    def find(self, steps, fetched, taken):
        written = {o: n for n, st in enumerate(steps) for o in st.outputs if o is not None}
        stateful = [n for n, st in enumerate(steps) if st.kind not in (KERNEL, POSITIONAL) or st.deadable
                    or st.dead_controls]
        for n, a in enumerate(steps):
            if n in taken or not _plain(a, "MatMul"):
                continue
            for m in range(n + 1, min(n + 1 + AHEAD_WINDOW, len(steps))):
                if any(n < q <= m for q in stateful):
                    break
                b = steps[m]
                if m in taken or not _plain(b, "MatMul"):
                    continue
                moved = self._movable(steps, b, n, m, written, taken)
                if moved is not None:
                    group = (n,) + moved + (m,)
                    taken.update(group)
                    yield group
                break  # only the first later product is a candidate

    @staticmethod
    def _movable(steps, b, n, m, written, taken):
        """The steps (in plan order) that must move up with product ``b`` (step ``m``) to
        step ``n``'s place, or None when it cannot move."""
        moved = []
        for src, _ in b.reads:
            p = written.get(src, -1)
            if p < n:
                continue
            st = steps[p]
            if (p == n or p in taken or p in moved or st.ctx or st.deadable or st.kind not in (KERNEL, POSITIONAL)
                    or not is_pure(st.opdef) or len(st.outputs) != 1
                    or any(written.get(s, -1) >= n for s, _ in st.reads)):
                return None
            moved.append(p)
        return tuple(sorted(moved))

    def emit(self, group, w):
        n, moved, m = group[0], group[1:-1], group[-1]
        for p in moved:
            st = w.steps[p]
            name = w.bind(f"H{p}", _Hoisted(st))
            w.line(f"s{st.out0} = {name}([{', '.join(w.args(p))}])")
            w.values(st.out0)
        MatMulPair().emit((n, m), w)


class _Hoisted:
    """One step's kernel called from its input values (an error names its op)."""

    def __init__(self, step):
        self.step = step

    def __call__(self, args):
        st = self.step
        if st.kind == POSITIONAL:
            return call(st.op, st.kernel, args, st.attrs)
        kwargs = dict(st.attrs)
        for name, i, end in st.layout:
            kwargs[name] = args[i] if end is None else args[i:end]
        return call(st.op, st.kernel, (), kwargs)

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


class LSTMCellGrads:
    """An LSTM cell's gradient as one call (``ref.ops.fused.lstm_cell_grads``): the
    ``ConcatV2`` of its four gates' gradients (its ``Split``'s gradient), each a
    ``SigmoidGrad``/``TanhGrad`` of a ``Mul``, three of the ``Mul``\\ s reading the
    gradient ``d`` of the new state ``c'`` -- a ``TanhGrad`` of a ``Mul``, or the
    ``AddN`` of that and the gradient carried from the next step. ``d`` and the
    concat are written (whoever reads them); every other value of the group must
    have no reader outside it and not be fetched."""

    def find(self, steps, fetched, taken):
        made = {st.out0: n for n, st in enumerate(steps) if st.kind == POSITIONAL and st.out0 is not None}
        written = {o: n for n, st in enumerate(steps) for o in st.outputs if o is not None}
        readers = _readers(steps)

        def producer(slot, *types):
            n = made.get(slot)
            if n is None or n in taken or not any(_plain(steps[n], t) for t in types):
                return None
            return n

        def tanh_of_mul(slot):
            tg = producer(slot, "TanhGrad")
            m = None if tg is None else producer(steps[tg].reads[1][0], "Mul")
            return None if m is None or len(steps[m].reads) != 2 else (m, tg)

        for cat, st in enumerate(steps):
            if (cat in taken or st.kind != KERNEL or st.deadable or st.ctx or st.op._type != "ConcatV2"
                    or len(st.reads) != 5):
                continue
            gates = []
            for src, _ in st.reads[:4]:
                g = producer(src, "SigmoidGrad", "TanhGrad")
                m = None if g is None else producer(steps[g].reads[1][0], "Mul")
                if m is None or len(steps[m].reads) != 2:
                    break
                gates.append((g, m))
            if len(gates) != 4:
                continue
            shared = _shared(steps, gates)
            if len(shared) != 1:
                continue
            d_slot = shared[0]
            chain = tanh_of_mul(d_slot)
            add = None
            if chain is None:
                add = written.get(d_slot)
                if (add is None or add in taken or steps[add].kind != KERNEL or steps[add].deadable
                        or steps[add].ctx or steps[add].op._type != "AddN" or len(steps[add].reads) != 2):
                    continue
                x, y = (src for src, _ in steps[add].reads)
                chain = tanh_of_mul(x) or tanh_of_mul(y)
                if chain is None:
                    continue
            group = tuple(n for gm in gates for n in gm) + chain + ((add,) if add is not None else ()) + (cat,)
            if len(set(group)) != len(group) or taken.intersection(group):
                continue
            inside = {steps[n].out0 for n in group}
            own = inside - {d_slot, st.out0}
            m, tg = chain
            if (any(src in inside and src != d_slot for _, gm in gates for src, _ in steps[gm].reads)
                    or any(steps[g].reads[0][0] in inside for g, _ in gates)
                    or any(src in inside for src, _ in steps[m].reads) or steps[tg].reads[0][0] in inside
                    or (add is not None and all(src in inside for src, _ in steps[add].reads))
                    or any(src in inside for src, _ in st.reads[4:])):
                continue
            if own & fetched or any(set(readers.get(s, ())) - set(group) for s in own):
                continue
            outside = {src for n in group for src, _ in steps[n].reads} - inside
            first = min(group)
            if any(written.get(s, -1) >= first for s in outside):
                continue
            taken.update(group)
            yield (first,) + group

    def emit(self, group, w):
        first, members = group[0], group[1:]
        steps = w.steps
        cat = steps[members[-1]]
        gates = [members[2 * q: 2 * q + 2] for q in range(4)]
        d_slot = _shared(steps, gates)[0]
        mul_d, tanh_d = members[8], members[9]
        add = members[10] if len(members) == 12 else None
        inputs = []  # the group's outside (slot, deref) reads, each once

        def ref(n, pos):
            src, deref = steps[n].reads[pos]
            if src == d_slot and n != add:
                return None
            if (src, deref) not in inputs:
                inputs.append((src, deref))
            return inputs.index((src, deref))

        a, b, yt = ref(mul_d, 0), ref(mul_d, 1), ref(tanh_d, 0)
        carry, carry_first = None, False
        if add is not None:
            x = steps[add].reads[0][0]
            carry_first = x != steps[tanh_d].out0
            carry = ref(add, 0 if carry_first else 1)
        spec = [(steps[g].op._type == "TanhGrad", ref(m, 0), ref(m, 1), ref(g, 0)) for g, m in gates]
        axis = ref(members[-1], 4)
        unfused = _UnfusedGroup([src for src, _ in inputs], [steps[n] for n in sorted(members)],
                                [cat.out0, d_slot])
        name = w.bind(f"G{first}", (unfused, axis, a, b, yt, carry, carry_first, spec))
        w.line(f"s{cat.out0}, s{d_slot} = _lstm_cell_grads({name}, "
               f"[{', '.join(w.value_of(src, deref, first) for src, deref in inputs)}])")
        w.values(cat.out0, d_slot)

    @staticmethod
    def run(spec, values):
        unfused, axis, a, b, yt, carry, carry_first, gates = spec

        def v(i):
            return None if i is None else values[i]

        return fused_ops.lstm_cell_grads(
            lambda: unfused(*values), values[axis], values[a], values[b], values[yt], v(carry), carry_first,
            [(tanh, v(p), v(r), values[y]) for tanh, p, r, y in gates])


def _shared(steps, gates):
    """The slots that exactly three of the gates' ``Mul``\\ s read (the new state's gradient)."""
    counts = {}
    for _, m in gates:
        for s in {src for src, _ in steps[m].reads}:
            counts[s] = counts.get(s, 0) + 1
    return [s for s, k in counts.items() if k == 3]


class _UnfusedGroup:
    """A group's steps one after the other in the plan's order, each its own kernel
    (an error names its op), from the values of its outside input slots; returns
    the values of ``outs``."""

    def __init__(self, inputs, steps, outs):
        self.inputs, self.steps, self.outs = inputs, steps, outs

    def __call__(self, *values):
        env = dict(zip(self.inputs, values))
        for st in self.steps:
            args = [env[s] for s, _ in st.reads]
            if st.kind == POSITIONAL:
                env[st.out0] = call(st.op, st.kernel, args, st.attrs)
            else:
                kwargs = dict(st.attrs)
                for name, i, end in st.layout:
                    kwargs[name] = args[i] if end is None else args[i:end]
                env[st.out0] = call(st.op, st.kernel, (), kwargs)
        return [env[s] for s in self.outs]


GROUPS = (MatMulPair(), ConvBiasRelu(), BiasRelu(), ReluBiasGrads(), LSTMCell(), LSTMCellGrads(), MatMulAhead())
"""The group rewrites, in the order they choose their steps."""

RUNTIME = {"_bias_relu": fused_ops.bias_relu, "_conv_bias_relu": ConvBiasRelu.run, "_relu_bias_grads": ReluBiasGrads.run,
           "_matmul_pair": MatMulPair.run, "_lstm_cell": LSTMCell.run,
           "_lstm_cell_grads": LSTMCellGrads.run}
"""The names the code the rewrites write calls."""


def groups(steps, fetched):
    """``{first step: (rewrite, group)}`` and ``{other member: first step}`` for ``steps``."""
    taken, first, member = set(), {}, {}
    for rewrite in GROUPS:
        for group in list(rewrite.find(steps, fetched, taken)):
            first[group[0]] = (rewrite, group)
            member.update((m, group[0]) for m in group[1:] if m != group[0])
    return first, member


IN_PLACE = {"Mul": (np.multiply, False), "AddV2": (np.add, False), "Add": (np.add, False),
            "Sub": (np.subtract, False), "BiasAdd": (np.add, True)}
"""Element-wise ops whose result may go into their first input's array (:func:`in_place`):
op type -> (the ufunc, whether it is a bias add)."""
IN_PLACE_MIN = 1 << 16
"""Elements from which :func:`in_place` writes into the first input (below, a new
array costs less than the checks)."""
_IN_PLACE_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_getrefcount = sys.getrefcount


def emit_in_place(n, step, args, w):
    """Writes positional step ``n`` (inputs ``args``) as a call of :func:`in_place`
    when its op is in :data:`IN_PLACE` and this step is the last reader of one of
    its inputs (a value the plan made, read once here: the first input, else the
    second but for a bias add); returns whether it did."""
    entry = IN_PLACE.get(step.op._type)
    if entry is None or step.deadable or len(step.reads) != 2:
        return False
    (x, _), (y, _) = step.reads
    shape = step.op._outputs[0].shape
    if x == y or (shape.is_fully_defined() and shape.num_elements() < IN_PLACE_MIN):
        return False
    dying = [i for i, s in ((0, x), (1, y)) if s in step.drops and w.kind.get(s) == "value"
             and not (i and entry[1])]
    if not dying:
        return False
    # the input whose static shape is the result's, if one is known to be; else both (2)
    into = next((i for i in dying if step.op._inputs[i].shape.is_fully_defined()
                 and step.op._inputs[i].shape == shape), dying[0] if len(dying) == 1 else 2)
    k, u, a = w.bind(f"K{n}", step.kernel), w.bind(f"E{n}", entry[0]), w.bind(f"A{n}", step.attrs)
    w.line(f"s{step.out0} = _in_place({u}, {k}, {a}, {args[0]}, {args[1]}, {entry[1]}, {into})")
    w.values(step.out0)
    return True


def in_place(ufunc, kernel, attrs, x, y, bias, into):
    """``kernel(x, y, **attrs)``; computed as ``ufunc(x, y, out=z)`` -- the same
    element-wise operation, so the same bits -- with ``z`` the input ``into`` (0:
    ``x``, 1: ``y``, 2: the larger) when it is a large float array nothing else refers to (the
    plan's local and this call's: a feed, a constant, a variable's value, a
    fetched value or an array a view depends on has more references), owning its
    C-contiguous writeable memory, and the other input (an array or NumPy scalar
    of the same dtype) broadcasts into its shape. The plan drops ``z`` after this
    step. The ``BiasAdd`` case (``bias``) is the kernel's own common case (a
    matrix and a bias of its columns); an input the kernel would reject takes
    the kernel."""
    if into == 2:
        into = 0 if getattr(x, "size", 0) >= getattr(y, "size", 0) else 1
    if _getrefcount(y if into else x) > 3:  # counted before a third name refers to it
        return kernel(x, y, **attrs)
    z, other = (y, x) if into else (x, y)
    if (z.__class__ is np.ndarray and z.size >= IN_PLACE_MIN and z.dtype in _IN_PLACE_DTYPES
            and (other.__class__ is np.ndarray or isinstance(other, np.generic)) and other.dtype == z.dtype
            and z.base is None and z.flags.c_contiguous and z.flags.writeable
            and (z.ndim == 2 and other.ndim == 1 and other.shape[0] == z.shape[1] if bias
                 else other.ndim <= z.ndim and all(b == 1 or b == a for a, b in zip(z.shape[::-1],
                                                                                    other.shape[::-1])))):
        return ufunc(x, y, out=z)
    return kernel(x, y, **attrs)


RUNTIME["_in_place"] = in_place

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
