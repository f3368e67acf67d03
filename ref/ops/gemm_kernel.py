"""``ref``'s own matrix-multiply kernel: ``C = A @ B`` in float32 and float64.

**The numbers.** Every element of the product is one chain of fused
multiply-adds over the inner dimension, in order, starting from +0::

    c[i, j] = fma(a[i, K-1], b[K-1, j], ... fma(a[i, 1], b[1, j], fma(a[i, 0], b[0, j], 0)))

each step rounded once (IEEE 754 ``fusedMultiplyAdd``). Neither the blocking
below, nor the number of threads :mod:`ref.ops.gemm` runs a product on, nor the
CPU's vector width changes that order, so a product has the same bits on every
machine (under the same flush-to-zero setting) -- unlike a BLAS, whose kernels
sum in an order of their own, chosen for the CPU at load time (OpenBLAS:
``OPENBLAS_CORETYPE``). ``tests/ops/test_gemm_kernel.py`` holds an exact NumPy
oracle for it.

**The shape** is BLIS's (Van Zee and van de Geijn, "BLIS: A Framework for
Rapidly Instantiating BLAS Functionality", 2015): ``KC`` rows of B at a time
are packed into panels of ``NR`` columns, and a micro-kernel multiplies ``MR``
rows of A by one B panel into an ``MR x NR`` block of C that it holds in ``2 MR``
vector registers for the whole ``KC`` loop: per step it loads two vectors of B,
broadcasts ``MR`` values of A and issues ``2 MR`` fused multiply-adds. A is read
where it is, through its strides (each step reads one value from each of ``MR``
rows, which the hardware prefetcher streams); only a last group of fewer than
``MR`` rows is copied out, padded with zeros. The micro-kernel is written in
LLVM IR (a Numba intrinsic: Numba's own loops do not keep a block of
accumulators in registers), on ``<16 x float>`` / ``<8 x double>`` vectors,
which LLVM maps onto AVX-512, two AVX2 registers, or NEON as the CPU has them.
C is accumulated in a packed copy (blocks of ``MR x NR``, zero at the start),
so a block resumes its chains where the previous ``KC`` rows left them, and is
unpacked at the end.

Operands are flat 1-D arrays with element strides, so one compiled kernel per
dtype serves C-ordered arrays, transposed views and row or column blocks alike.
"""
from __future__ import annotations

import numpy as np

from ref.ops._jit import LazyIntrinsic, njit

MR = 6
"""Rows of a micro-kernel block."""
KC = 256
"""Rows of B (columns of A) packed at a time: a KC x NR panel of B (32 KiB in float32) stays in L1."""
MC = 96
"""Rows of A multiplied by one packed B block before the next (a multiple of MR):
a MC x KC block of A stays in L2."""
NC = 2048
"""Columns of B packed at a time."""
U = np.uint64
"""Index type of the loops below (see :func:`gemm`)."""
WIDTH = {np.dtype(np.float32): 16, np.dtype(np.float64): 8}
"""Elements per vector of the micro-kernel: 64 bytes (one AVX-512 register)."""


def _make_micro(numba):
    """The micro-kernel ``micro(kc, a, aoff, rs, cs, bp, boff, cp, coff)``: the
    ``MR x NR`` block of ``cp`` at ``coff`` (row-major) += the ``MR`` rows of A
    ``a[aoff + i * rs + p * cs]`` (a packed panel: ``rs = 1, cs = MR``; A in place:
    its strides) times the B panel ``bp[boff + p * NR + j]`` for ``p`` in
    ``range(kc)``, each element a chain of fused multiply-adds in ``p`` order."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def micro(typingctx, kc, ap, aoff, rs, cs, bp, boff, cp, coff):
        if not (all(isinstance(t, types.Array) and t.ndim == 1 for t in (ap, bp, cp))
                and ap.dtype in (types.float32, types.float64) and bp.dtype == ap.dtype and cp.dtype == ap.dtype):
            return None
        sig = types.void(kc, ap, aoff, rs, cs, bp, boff, cp, coff)
        width = 16 if ap.dtype == types.float32 else 8
        nr = 2 * width

        def codegen(context, builder, signature, args):
            kc, ap_, aoff, rs, cs, bp_, boff, cp_, coff = args
            arr = signature.args[1]
            scalar = context.get_value_type(arr.dtype)
            ptr = scalar.as_pointer()
            a = builder.gep(context.make_array(signature.args[1])(context, builder, ap_).data, [aoff])
            b = builder.gep(context.make_array(signature.args[5])(context, builder, bp_).data, [boff])
            c = builder.gep(context.make_array(signature.args[7])(context, builder, cp_).data, [coff])
            # The loop is a function of its own (never inlined), so that its registers are
            # all its accumulators' and not the packing loops' around the call site.
            i64 = ir.IntType(64)
            name = f"ref_gemm_micro_{arr.dtype}"
            fn = builder.module.globals.get(name)
            if fn is None:
                fn = ir.Function(builder.module, ir.FunctionType(ir.VoidType(), [i64, ptr, i64, i64, ptr, ptr]),
                                 name)
                fn.linkage = "internal"
                fn.attributes.add("noinline")
                _micro_body(fn, scalar, width)
            builder.call(fn, [kc, a, rs, cs, b, c])
            return context.get_dummy_value()

        return sig, codegen

    return micro


def _micro_body(fn, scalar, width):
    """The micro-kernel's LLVM IR: ``fn(kc, a, rs, cs, b, c)`` with ``a``, ``b``, ``c``
    at A's first row, the B panel and the C block (see :func:`_make_micro`)."""
    from llvmlite import ir

    nr = 2 * width
    kc, a, rs, cs, b, c = fn.args
    vec = ir.VectorType(scalar, width)
    vptr = vec.as_pointer()
    i64, i32 = ir.IntType(64), ir.IntType(32)
    align = 4 if width == 16 else 8
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    fma = builder.module.globals.get(f"llvm.fma.v{width}{'f32' if width == 16 else 'f64'}")
    if fma is None:
        fma = ir.Function(builder.module, ir.FunctionType(vec, [vec, vec, vec]),
                          f"llvm.fma.v{width}{'f32' if width == 16 else 'f64'}")

    def vload(base, offset):
        return builder.load(builder.bitcast(builder.gep(base, [offset]), vptr), align=align)

    start = [vload(c, ir.Constant(i64, i * nr + h * width)) for i in range(MR) for h in range(2)]
    rows = [builder.gep(a, [builder.mul(rs, ir.Constant(i64, i))]) for i in range(MR)]
    empty = builder.icmp_signed("<=", kc, ir.Constant(i64, 0))
    builder.cbranch(empty, done, loop)

    builder.position_at_end(loop)
    p = builder.phi(i64)
    acc = [builder.phi(vec) for _ in start]
    p.add_incoming(ir.Constant(i64, 0), entry)
    for phi, v in zip(acc, start):
        phi.add_incoming(v, entry)
    bbase = builder.mul(p, ir.Constant(i64, nr))
    bv = [vload(b, builder.add(bbase, ir.Constant(i64, h * width))) for h in range(2)]
    at = builder.mul(p, cs)
    undef = ir.Constant(vec, ir.Undefined)
    splat = ir.Constant(ir.VectorType(i32, width), [0] * width)
    new = []
    for i in range(MR):
        x = builder.load(builder.gep(rows[i], [at]))
        s = builder.shuffle_vector(builder.insert_element(undef, x, ir.Constant(i32, 0)), undef, splat)
        for h in range(2):
            new.append(builder.call(fma, [s, bv[h], acc[2 * i + h]]))
    nxt = builder.add(p, ir.Constant(i64, 1))
    for phi, v in zip(acc, new):
        phi.add_incoming(v, loop)
    p.add_incoming(nxt, loop)
    builder.cbranch(builder.icmp_signed("<", nxt, kc), loop, done)

    builder.position_at_end(done)
    final = [builder.phi(vec) for _ in start]
    for phi, s0, v in zip(final, start, new):
        phi.add_incoming(s0, entry)
        phi.add_incoming(v, loop)
    for i in range(MR):
        for h in range(2):
            dst = builder.bitcast(builder.gep(c, [ir.Constant(i64, i * nr + h * width)]), vptr)
            builder.store(final[2 * i + h], dst, align=align)
    builder.ret_void()


_micro = LazyIntrinsic(_make_micro)


@njit(nogil=True, boundscheck=False)
def gemm(m, n, k, a, a0, sa0, sa1, b, b0, sb0, sb1, c, c0, sc0, sc1, nr):
    """``c[c0 + i*sc0 + j*sc1] = sum_p a[a0 + i*sa0 + p*sa1] * b[b0 + p*sb0 + j*sb1]``
    for ``i < m``, ``j < n``, ``p < k`` (the module docstring's fused chain); ``a``,
    ``b``, ``c`` flat arrays of one dtype, ``nr`` = 2 x its vector width.

    Indices go through ``U`` (unsigned): Numba wraps a signed index that is
    negative around the array's end, a test in every access that keeps LLVM
    from vectorising the copies."""
    mp = (m + MR - 1) // MR
    npn = (n + nr - 1) // nr
    block = MR * nr
    cp = np.zeros(mp * npn * block, c.dtype)
    kcap = min(k, KC)
    ap = np.empty(MR * kcap, c.dtype)
    bp = np.empty(min(NC, npn * nr) * kcap, c.dtype)
    for jc in range(0, n, NC):
        nc = min(NC, n - jc)
        jpanels = (nc + nr - 1) // nr
        for pc in range(0, k, KC):
            kc = min(KC, k - pc)
            # pack B[pc:pc+kc, jc:jc+nc] as bp[jp*kc*nr + p*nr + j], zeros past n, reading
            # along B's unit stride: its rows (B C-ordered) or its columns (B = y.T)
            if sb0 == 1 and sb1 != 1:
                for jp in range(jpanels):
                    width = min(nr, nc - jp * nr)
                    for j in range(width):
                        src = b0 + pc + (jc + jp * nr + j) * sb1
                        dst = jp * kc * nr + j
                        for p in range(kc):
                            bp[U(dst + p * nr)] = b[U(src + p)]
                    for j in range(width, nr):
                        for p in range(kc):
                            bp[U(jp * kc * nr + j + p * nr)] = 0
            else:
                for p in range(kc):
                    src = b0 + (pc + p) * sb0 + jc * sb1
                    for jp in range(jpanels):
                        dst = jp * kc * nr + p * nr
                        at = src + jp * nr * sb1
                        width = min(nr, nc - jp * nr)
                        for j in range(width):
                            bp[U(dst + j)] = b[U(at + j * sb1)]
                        for j in range(width, nr):
                            bp[U(dst + j)] = 0
            for ic in range(0, m, MC):
                mc = min(MC, m - ic)
                ipanels = (mc + MR - 1) // MR
                # A is read in place, MR rows at a time (strides sa0, sa1); only a last
                # panel of fewer rows is packed, zeros past m, into ap[p*MR + i]
                last = mc - (ipanels - 1) * MR
                if last < MR:
                    src = a0 + (ic + (ipanels - 1) * MR) * sa0 + pc * sa1
                    for p in range(kc):
                        at = src + p * sa1
                        for i in range(last):
                            ap[U(p * MR + i)] = a[U(at + i * sa0)]
                        for i in range(last, MR):
                            ap[U(p * MR + i)] = 0
                for jp in range(jpanels):
                    for ip in range(ipanels):
                        tile = ((ic // MR + ip) * npn + jc // nr + jp) * block
                        if ip < ipanels - 1 or last == MR:
                            _micro(kc, a, a0 + (ic + ip * MR) * sa0 + pc * sa1, sa0, sa1, bp, jp * kc * nr, cp, tile)
                        else:
                            _micro(kc, ap, 0, 1, MR, bp, jp * kc * nr, cp, tile)
    for ip in range(mp):  # unpack
        for i in range(min(MR, m - ip * MR)):
            row = c0 + (ip * MR + i) * sc0
            for jp in range(npn):
                src = (ip * npn + jp) * block + i * nr
                dst = row + jp * nr * sc1
                for j in range(min(nr, n - jp * nr)):
                    c[U(dst + j * sc1)] = cp[U(src + j)]
