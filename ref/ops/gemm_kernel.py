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
rows, which the hardware prefetcher streams); a last group of fewer rows runs a
micro-kernel of its own size (one per row count, ``1..MR``), so no multiply-add
is spent on padding. With few rows of A (``SMALL_M``) and a B of unit column
stride that fits the caches (``DIRECT_B_BYTES``), B is read in place too: each
panel would serve too few blocks to repay its packing; only a last, partial
panel is packed (zeros past ``n``). The micro-kernel is written in LLVM IR (a
Numba intrinsic: Numba's own loops do not keep a block of accumulators in
registers), on ``<16 x float>`` / ``<8 x double>`` vectors, which LLVM maps onto
AVX-512, two AVX2 registers, or NEON as the CPU has them.

C is written in place: the first ``KC`` rows of B start each chain from +0
(C is not read), the later ones load the block and resume its chains where
the previous rows left them (a float stored and loaded is the same float, so
blocking does not change a bit). Only a block past C's last whole panel of
columns (or of a C without unit column stride) goes through a scratch block.

Measured single-threaded against NumPy's OpenBLAS (0.3.31, SkylakeX kernels)
on an AMD EPYC (Zen 4, AVX-512) with ``bench/gemm_kernel_bench.py``: 97-110
GFLOP/s on the MLP, im2col and square products (OpenBLAS 92-104), about one
512-bit fused multiply-add per cycle, the core's peak; see ``bench/README.md``.

Operands are flat 1-D arrays with element strides, so one compiled kernel per
dtype serves C-ordered arrays, transposed views and row or column blocks alike.
"""
from __future__ import annotations

import numpy as np

from ref.ops._jit import LazyIntrinsic, njit

MR = 6
"""Rows of a micro-kernel block."""
MR_T = 12
"""Rows of a micro-kernel block where A has unit row stride (``A = x.T``: the patches
of a filter gradient, ``patches^T @ out_backprop``): each step reads ``MR_T``
adjacent values of one line of A, so twice the rows take half the cache lines per
multiply-add (24 accumulators, 2 B vectors and a broadcast: 27 of AVX-512's 32
registers). VGG 3x3x32's ``[288, 65536] @ [65536, 32]`` 23.3 -> 17.6 ms, LeNet
conv2's per-block ``[800, 5096] @ [5096, 64]`` 6.7 -> 5.7 ms, single-threaded;
with C-ordered A, 12 rows gained nothing (the im2col products) and stay ``MR``."""
KC = 256
"""Rows of B (columns of A) packed at a time: a KC x NR panel of B (32 KiB in float32) stays in L1."""
MC = 96
"""Rows of A multiplied by one packed B block before the next (a multiple of MR):
a MC x KC block of A stays in L2."""
NC = 2048
"""Columns of B packed at a time."""
SMALL_M = 24
"""Rows of A up to which B is read in place (when its columns are unit-stride and
it has at most :data:`DIRECT_B_BYTES`): each panel of B then serves at most
``SMALL_M / MR`` blocks, too few to repay packing it (an LSTM's 20x400x800 gate
product: 100 GFLOP/s in place, 80 packed)."""
DIRECT_B_BYTES = 6 << 20
"""Bytes of B up to which it may be read in place: a larger B streams from memory,
and packed panels stream better (16x4096x4096: 31 GFLOP/s packed, 25 in place)."""
U = np.uint64
"""Index type of the loops below (see :func:`gemm`)."""
WIDTH = {np.dtype(np.float32): 16, np.dtype(np.float64): 8}
"""Elements per vector of the micro-kernel: 64 bytes (one AVX-512 register)."""


def _make_micro(numba):
    """The micro-kernel ``micro(kc, a, aoff, rs, cs, b, boff, ldb, c, coff, ldc, first, mr)``:
    the ``mr x NR`` block of ``c`` at ``coff`` (row stride ``ldc``, unit column
    stride) += the ``mr`` rows of A ``a[aoff + i * rs + p * cs]`` (read in place,
    through its strides) times the ``kc x NR`` block of B ``b[boff + p * ldb + j]``
    (a packed panel: ``ldb = NR``; B in place: its row stride), for ``p`` in
    ``range(kc)``, each element a chain of fused multiply-adds in ``p`` order that
    starts from +0 when ``first`` (the block of ``c`` is not read then) and from
    the block's values otherwise. ``mr`` in ``1..MR_T``: one function per ``mr``,
    so that a last group of rows costs its own multiply-adds only."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def micro(typingctx, kc, ap, aoff, rs, cs, bp, boff, ldb, cp, coff, ldc, first, mr):
        if not (all(isinstance(t, types.Array) and t.ndim == 1 for t in (ap, bp, cp))
                and ap.dtype in (types.float32, types.float64) and bp.dtype == ap.dtype and cp.dtype == ap.dtype):
            return None
        sig = types.void(kc, ap, aoff, rs, cs, bp, boff, ldb, cp, coff, ldc, first, mr)
        width = 16 if ap.dtype == types.float32 else 8

        def codegen(context, builder, signature, args):
            kc, ap_, aoff, rs, cs, bp_, boff, ldb, cp_, coff, ldc, first, mr = args
            arr = signature.args[1]
            scalar = context.get_value_type(arr.dtype)
            ptr = scalar.as_pointer()
            a = builder.gep(context.make_array(signature.args[1])(context, builder, ap_).data, [aoff])
            b = builder.gep(context.make_array(signature.args[5])(context, builder, bp_).data, [boff])
            c = builder.gep(context.make_array(signature.args[8])(context, builder, cp_).data, [coff])
            # Each loop is a function of its own (never inlined), so that its registers are
            # all its accumulators' and not the packing loops' around the call site.
            i64 = ir.IntType(64)
            fnty = ir.FunctionType(ir.VoidType(), [i64, ptr, i64, i64, ptr, i64, ptr, i64, i64])
            after = builder.append_basic_block("micro_done")
            switch = builder.switch(mr, after)
            for rows in range(1, MR_T + 1):
                name = f"ref_gemm_micro_{arr.dtype}_{rows}"
                fn = builder.module.globals.get(name)
                if fn is None:
                    fn = ir.Function(builder.module, fnty, name)
                    fn.linkage = "internal"
                    fn.attributes.add("noinline")
                    _micro_body(fn, scalar, width, rows)
                block = builder.append_basic_block(f"micro_{rows}")
                switch.add_case(ir.Constant(mr.type, rows), block)
                with builder.goto_block(block):
                    builder.call(fn, [kc, a, rs, cs, b, ldb, c, ldc, first])
                    builder.branch(after)
            builder.position_at_end(after)
            return context.get_dummy_value()

        return sig, codegen

    return micro


def _micro_body(fn, scalar, width, rows):
    """The micro-kernel's LLVM IR for ``rows`` rows of A: ``fn(kc, a, rs, cs, b, ldb,
    c, ldc, first)`` with ``a``, ``b``, ``c`` at A's first row, the B block and the
    C block (see :func:`_make_micro`)."""
    from llvmlite import ir

    kc, a, rs, cs, b, ldb, c, ldc, first = fn.args
    vec = ir.VectorType(scalar, width)
    vptr = vec.as_pointer()
    i64, i32 = ir.IntType(64), ir.IntType(32)
    align = 4 if width == 16 else 8
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    kind = f"v{width}{'f32' if width == 16 else 'f64'}"
    fma = builder.module.globals.get(f"llvm.fma.{kind}")
    if fma is None:
        fma = ir.Function(builder.module, ir.FunctionType(vec, [vec, vec, vec]), f"llvm.fma.{kind}")

    def vload(base, offset):
        return builder.load(builder.bitcast(builder.gep(base, [offset]), vptr), align=align)

    crow = [builder.gep(c, [builder.mul(ldc, ir.Constant(i64, i))]) for i in range(rows)]
    fresh = builder.icmp_signed("!=", first, ir.Constant(first.type, 0))
    zero = ir.Constant(vec, [0.0] * width)
    start = [builder.select(fresh, zero, vload(crow[i], ir.Constant(i64, h * width)))
             for i in range(rows) for h in range(2)]
    arow = [builder.gep(a, [builder.mul(rs, ir.Constant(i64, i))]) for i in range(rows)]
    empty = builder.icmp_signed("<=", kc, ir.Constant(i64, 0))
    builder.cbranch(empty, done, loop)

    builder.position_at_end(loop)
    p = builder.phi(i64)
    acc = [builder.phi(vec) for _ in start]
    p.add_incoming(ir.Constant(i64, 0), entry)
    for phi, v in zip(acc, start):
        phi.add_incoming(v, entry)
    bbase = builder.mul(p, ldb)
    bv = [vload(b, builder.add(bbase, ir.Constant(i64, h * width))) for h in range(2)]
    at = builder.mul(p, cs)
    undef = ir.Constant(vec, ir.Undefined)
    splat = ir.Constant(ir.VectorType(i32, width), [0] * width)
    new = []
    for i in range(rows):
        x = builder.load(builder.gep(arow[i], [at]))
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
    for i in range(rows):
        for h in range(2):
            dst = builder.bitcast(builder.gep(crow[i], [ir.Constant(i64, h * width)]), vptr)
            builder.store(final[2 * i + h], dst, align=align)
    builder.ret_void()


_micro = LazyIntrinsic(_make_micro)


def _make_transpose(numba):
    """``transpose(src, soff, ld, dst, doff, dld)``: the ``w x w`` tile
    ``dst[doff + p * dld + j] = src[soff + j * ld + p]`` for ``p, j < w`` (``w`` the
    vector width): ``w`` vector loads, ``w log2 w`` shuffles, ``w`` vector stores --
    the packing of a B read along its columns (``B = y.T``), which element by
    element costs a strided store each."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def transpose(typingctx, sp, soff, ld, dp, doff, dld):
        if not (isinstance(sp, types.Array) and isinstance(dp, types.Array) and sp.dtype == dp.dtype
                and sp.dtype in (types.float32, types.float64)):
            return None
        sig = types.void(sp, soff, ld, dp, doff, dld)
        width = 16 if sp.dtype == types.float32 else 8

        def codegen(context, builder, signature, args):
            sp_, soff, ld, dp_, doff, dld = args
            scalar = context.get_value_type(signature.args[0].dtype)
            ptr = scalar.as_pointer()
            s = builder.gep(context.make_array(signature.args[0])(context, builder, sp_).data, [soff])
            d = builder.gep(context.make_array(signature.args[3])(context, builder, dp_).data, [doff])
            i64 = ir.IntType(64)
            name = f"ref_gemm_transpose_{signature.args[0].dtype}"
            fn = builder.module.globals.get(name)
            if fn is None:
                fn = ir.Function(builder.module, ir.FunctionType(ir.VoidType(), [ptr, i64, ptr, i64]), name)
                fn.linkage = "internal"
                _transpose_body(fn, scalar, width)
            builder.call(fn, [s, ld, d, dld])
            return context.get_dummy_value()

        return sig, codegen

    return transpose


def _transpose_body(fn, scalar, width):
    """The tile transpose's LLVM IR: for ``step`` = w/2, ..., 1, rows ``i`` and
    ``i + step`` (``i & step == 0``) swap their off-diagonal ``step``-wide blocks,
    which exchanges that bit of every element's row and column index."""
    from llvmlite import ir

    s, ld, d, dld = fn.args
    vec = ir.VectorType(scalar, width)
    vptr = vec.as_pointer()
    i64, i32 = ir.IntType(64), ir.IntType(32)
    align = 4 if width == 16 else 8
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    rows = [builder.load(builder.bitcast(builder.gep(s, [builder.mul(ld, ir.Constant(i64, j))]), vptr), align=align)
            for j in range(width)]
    step = width // 2
    while step:
        low = ir.Constant(ir.VectorType(i32, width), [j if not j & step else width + j - step for j in range(width)])
        high = ir.Constant(ir.VectorType(i32, width), [j + step if not j & step else width + j for j in range(width)])
        for i in range(width):
            if not i & step:
                rows[i], rows[i + step] = (builder.shuffle_vector(rows[i], rows[i + step], low),
                                           builder.shuffle_vector(rows[i], rows[i + step], high))
        step //= 2
    for p in range(width):
        dst = builder.bitcast(builder.gep(d, [builder.mul(dld, ir.Constant(i64, p))]), vptr)
        builder.store(rows[p], dst, align=align)
    builder.ret_void()


_transpose = LazyIntrinsic(_make_transpose)


def _make_copy_vector(numba):
    """``copy_vector(dst, d, src, s)``: the 64 bytes of the 1-D array src from
    element s to dst from element d, one unaligned vector load and store (LLVM
    vectorises a short copy loop for runs of 64 elements or more, so a run of 32
    float32 values would otherwise go element by element): im2col's runs
    (``ref.ops.conv``) and the rows of a B panel packed from unit-stride columns."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def copy_vector(typingctx, dst, d, src, s):
        if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.ndim == src.ndim == 1
                and dst.dtype == src.dtype and dst.dtype.bitwidth in (32, 64)):
            return None

        def codegen(context, builder, signature, args):
            dst_, d_, src_, s_ = args
            scalar = context.get_value_type(signature.args[0].dtype)
            vec = ir.VectorType(scalar, 512 // signature.args[0].dtype.bitwidth)
            sp = builder.gep(context.make_array(signature.args[2])(context, builder, src_).data, [s_])
            dp = builder.gep(context.make_array(signature.args[0])(context, builder, dst_).data, [d_])
            value = builder.load(builder.bitcast(sp, vec.as_pointer()), align=1)
            builder.store(value, builder.bitcast(dp, vec.as_pointer()), align=1)
            return context.get_dummy_value()

        return types.void(dst, d, src, s), codegen

    return copy_vector


copy_vector = LazyIntrinsic(_make_copy_vector)


@njit(nogil=True, boundscheck=False)
def gemm(m, n, k, a, a0, sa0, sa1, b, b0, sb0, sb1, c, c0, sc0, sc1, nr):
    """``c[c0 + i*sc0 + j*sc1] = sum_p a[a0 + i*sa0 + p*sa1] * b[b0 + p*sb0 + j*sb1]``
    for ``i < m``, ``j < n``, ``p < k`` (the module docstring's fused chain); ``a``,
    ``b``, ``c`` flat arrays of one dtype, ``nr`` = 2 x its vector width."""
    gemm_resume(m, n, k, a, a0, sa0, sa1, b, b0, sb0, sb1, c, c0, sc0, sc1, nr, 0)


@njit(nogil=True, boundscheck=False)
def gemm_resume(m, n, k, a, a0, sa0, sa1, b, b0, sb0, sb1, c, c0, sc0, sc1, nr, resume):
    """:func:`gemm`; with ``resume`` nonzero each element's chain goes on from the
    value in ``c`` instead of starting from +0 (the first ``KC`` rows load the C
    block as the later ones do), so that a product over rows of the inner
    dimension made in several calls -- each call the next rows of A's columns and
    of B -- has the bits of one call over all of them (``ref.ops.conv``'s filter
    gradient, whose patches are copied a chunk of rows at a time).

    Indices go through ``U`` (unsigned): Numba wraps a signed index that is
    negative around the array's end, a test in every access that keeps LLVM
    from vectorising the copies."""
    if m <= 0 or n <= 0:
        return
    if k <= 0:
        if resume:
            return
        for i in range(m):
            for j in range(n):
                c[U(c0 + i * sc0 + j * sc1)] = 0
        return
    block = MR_T * nr
    mrs = MR_T if sa0 == 1 and sa1 > 1 else MR  # rows per micro-kernel call (MC is a multiple of both)
    ct = np.empty(block, c.dtype)  # a C block that is not whole in c (last columns, or c strided)
    kcap = min(k, KC)
    full = n // nr  # panels of nr whole columns
    # B read in place (row stride sb0) where it has unit column stride and few rows of A
    # are multiplied by each panel; else packed, panel after panel, zeros past n
    direct = sb1 == 1 and m <= SMALL_M and k * n * (128 // nr) <= DIRECT_B_BYTES
    npk = ((n - full * nr) > 0) if direct else (min(NC, n) + nr - 1) // nr
    bp = np.empty(max(npk, 1) * kcap * nr, c.dtype)
    for jc in range(0, n, NC):
        nc = min(NC, n - jc)
        jpanels = (nc + nr - 1) // nr
        for pc in range(0, k, KC):
            kc = min(KC, k - pc)
            first = 1 if pc == 0 and not resume else 0
            # pack B[pc:pc+kc, jc:jc+nc] as bp[jp*kc*nr + p*nr + j] (only the last, partial
            # panel when B is read in place), reading along B's unit stride: its rows (B
            # C-ordered) or its columns (B = y.T)
            lo = 0
            if direct:
                lo = jpanels - 1 if (jc + jpanels * nr > n) else jpanels
            if sb0 == 1 and sb1 != 1:
                for jp in range(lo, jpanels):
                    q = jp - lo
                    width = min(nr, nc - jp * nr)
                    src = b0 + pc + (jc + jp * nr) * sb1
                    w = nr // 2
                    for p0 in range(0, kc, w):  # tiles of w rows: w x w transposes where whole
                        p1 = min(p0 + w, kc)
                        j0 = 0
                        if p1 - p0 == w:
                            while j0 + w <= width:
                                _transpose(b, src + j0 * sb1 + p0, sb1, bp, q * kc * nr + p0 * nr + j0, nr)
                                j0 += w
                        for j in range(j0, width):
                            at = src + j * sb1
                            for p in range(p0, p1):
                                bp[U(q * kc * nr + p * nr + j)] = b[U(at + p)]
                        for j in range(width, nr):
                            for p in range(p0, p1):
                                bp[U(q * kc * nr + p * nr + j)] = 0
            else:
                vw = nr // 2  # one 64-byte vector: a whole panel row of unit-stride B is two
                for p in range(kc):
                    src = b0 + (pc + p) * sb0 + jc * sb1
                    for jp in range(lo, jpanels):
                        dst = (jp - lo) * kc * nr + p * nr
                        at = src + jp * nr * sb1
                        width = min(nr, nc - jp * nr)
                        if sb1 == 1 and width == nr:
                            copy_vector(bp, U(dst), b, U(at))
                            copy_vector(bp, U(dst + vw), b, U(at + vw))
                            continue
                        for j in range(width):
                            bp[U(dst + j)] = b[U(at + j * sb1)]
                        for j in range(width, nr):
                            bp[U(dst + j)] = 0
            for ic in range(0, m, MC):
                mc = min(MC, m - ic)
                for jp in range(jpanels):
                    col = jc + jp * nr
                    whole = col + nr <= n and sc1 == 1
                    if jp >= lo:
                        bb, boff, ldb = bp, (jp - lo) * kc * nr, nr
                    else:
                        bb, boff, ldb = b, b0 + pc * sb0 + col, sb0
                    for ir in range(0, mc, mrs):
                        mr = min(mrs, mc - ir)
                        row = ic + ir
                        aoff = a0 + row * sa0 + pc * sa1
                        if whole:
                            _micro(kc, a, aoff, sa0, sa1, bb, boff, ldb, c, c0 + row * sc0 + col, sc0, first, mr)
                            continue
                        width = min(nr, n - col)
                        if not first:
                            for i in range(mr):
                                for j in range(width):
                                    ct[U(i * nr + j)] = c[U(c0 + (row + i) * sc0 + (col + j) * sc1)]
                        _micro(kc, a, aoff, sa0, sa1, bb, boff, ldb, ct, 0, nr, first, mr)
                        for i in range(mr):
                            for j in range(width):
                                c[U(c0 + (row + i) * sc0 + (col + j) * sc1)] = ct[U(i * nr + j)]


FORM_MAX_WORK = 1 << 21
"""Multiply-adds up to which a float32 product may run :func:`fused_chain_numpy`
while the llvmlite modules it needs are not built (``ref.ops.gemm_llvm.prepared``): ~10 NumPy
calls over the result per step of the inner dimension, ~15 ms for 128x128x128,
against ~0.1-0.5 s for llvmlite to compile the two modules a product needs."""


def fused_chain_numpy(a, b, out):
    """``out[...] = a @ b`` for float32 ``a``, ``b`` (2-D, any strides) as :func:`gemm`
    computes it, bit for bit: the module docstring's chain, one step of the inner
    dimension at a time over the whole result. Each step is ``fmaf``: the product of
    two float32 values is exact in a double; the sum with the accumulator is rounded
    to a double *to odd* (TwoSum's error says whether it was inexact; an even last bit
    then moves to the neighbour on the exact value's side), and a double rounded to
    odd has enough bits (53 >= 24 + 2) for its rounding to float32 to be the exact
    sum's single rounding (Boldo and Melquiond, "When double rounding is odd", 2005),
    float32 subnormals included. Not for flush-to-zero arithmetic."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    acc = np.zeros(out.shape, np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        for p in range(a.shape[1]):
            prod = np.multiply.outer(a64[:, p], b64[p])
            s = prod + acc
            z = s - prod
            err = (prod - (s - z)) + (acc - z)  # s + err == prod + acc exactly (finite s)
            fix = np.flatnonzero(((s.view(np.int64) & 1) == 0) & (err != 0) & np.isfinite(err))
            if fix.size:
                flat = s.reshape(-1)
                flat[fix] = np.nextafter(flat[fix], np.copysign(np.inf, err.reshape(-1)[fix]))
            acc = s.astype(np.float32)
    out[...] = acc
    return out
