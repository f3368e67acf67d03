"""Direct NHWC convolutions on ``ref``'s micro-kernel: no patch matrix at all.

:mod:`ref.ops.patch_products` copies a convolution's im2col patches a cache-sized
chunk of rows at a time and multiplies each chunk with
:func:`ref.ops.gemm_kernel.gemm_resume`; the copies are about a seventh of a
convnet's step. Here the micro-kernel reads the windows where they are, in one
image of the input padded with its zeros (a buffer of one image, refilled per
image, that stays in the core's L2 cache):

* **Conv2D** (and the stride-1 input gradient, the same correlation): a block of
  ``rows`` output pixels times one 32-column panel of the filter. Pixel ``p``'s
  patch row is ``KH`` runs of ``KW * C`` values, one per kernel row, each a
  contiguous run of a padded input row (no column dilation), the runs ``dh * Wp
  * C`` apart: the kernel walks ``KH`` segments of ``KW * C`` steps, every pixel
  of the block read through a row offset of its own (pixels of several output
  rows share a block).
* **Conv2DBackpropFilter**: a block of ``rows`` rows of ``df`` (adjacent taps'
  channels: unit row stride) times one panel of out_backprop; the inner
  dimension is an image's output pixels, ``OH`` segments (one per output row,
  ``sh * Wp * C`` apart) of ``OW`` steps ``sw * C`` apart, the out_backprop rows
  read in place.

**The bits are the patch matrix's.** Each element is still one chain of fused
multiply-adds in the patch matrix's column (Conv2D) or row (filter gradient)
order, over the same values -- the padding's zeros are in the buffer where the
patch matrix holds them, and where :mod:`ref.ops.patch_products` leaves out the
kernel rows a window reads from padding (``skips_padding_rows``) so does this;
the filter gradient resumes each chain from image to image, and adds the
products of the ``PATCH_BYTES`` blocks of images in block order, as before.
``tests/ops/test_conv_kernel.py`` compares the bits with the chunked patches'.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ref.ops import gemm_kernel
from ref.ops._jit import LazyIntrinsic, njit

ROWS = 6
"""Output pixels per Conv2D block (the micro-kernel's ``MR``)."""
COLUMNS = False
"""Whether :func:`pixel_classes` leaves out the padding's columns too, not only its
rows: each edge column is a class of its own then, in blocks of fewer pixels, which
cost more than the terms saved (single thread, batch 64: LeNet conv2 10.98 -> 11.30 ms,
VGG 3x3x32 11.53 -> 11.79, 3x3x64 on 16x16 10.93 -> 11.02)."""


def _make_micro(numba):
    """``micro(nseg, kseg, sstride, cs, a, aoff, rs, roff, r0, b, boff, ldb, bstride, c, coff,
    ldc, coffs, first, mr)``: the ``mr x NR`` block of ``c`` at ``coff`` (row stride ``ldc``) +=
    rows ``i < mr`` of A times the block of B, over ``nseg * kseg`` steps ``t = s *
    kseg + u``: A's row ``i`` at step ``t`` is ``a[aoff + row_i + s * sstride + u * cs]``
    and B's row ``b[boff + s * bstride + u * ldb : + NR]``; ``row_i`` is ``roff[r0 + i]`` when ``rs``
    is negative (rows anywhere: pixels of several output rows), else ``i * rs``; C's
row ``i`` at ``coff + coffs[r0 + i]`` when ``rs`` is negative, else ``coff + i * ldc``.
    Each element one chain of fused multiply-adds in ``t`` order, from +0 when
    ``first``, else from the block's values."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic

    @intrinsic
    def micro(typingctx, nseg, kseg, sstride, cs, ap, aoff, rs, rp, r0, bp, boff, ldb, bstride, cp, coff, ldc, qp,
              first, mr):
        if not (all(isinstance(t, types.Array) and t.ndim == 1 for t in (ap, bp, cp, rp))
                and ap.dtype in (types.float32, types.float64) and bp.dtype == ap.dtype and cp.dtype == ap.dtype
                and rp.dtype == types.int64 and isinstance(qp, types.Array) and qp.dtype == types.int64):
            return None
        sig = types.void(nseg, kseg, sstride, cs, ap, aoff, rs, rp, r0, bp, boff, ldb, bstride, cp, coff, ldc, qp,
                         first, mr)
        width = gemm_kernel.WIDTH[np.dtype(str(ap.dtype))]

        def codegen(context, builder, signature, args):
            nseg, kseg, sstride, cs, ap_, aoff, rs, rp_, r0, bp_, boff, ldb, bstride, cp_, coff, ldc, qp_, first, mr = \
                args
            arr = signature.args[4]
            scalar = context.get_value_type(arr.dtype)
            ptr = scalar.as_pointer()
            i64 = ir.IntType(64)
            a = builder.gep(context.make_array(signature.args[4])(context, builder, ap_).data, [aoff])
            roffs = builder.gep(context.make_array(signature.args[7])(context, builder, rp_).data, [r0])
            b = builder.gep(context.make_array(signature.args[9])(context, builder, bp_).data, [boff])
            c = builder.gep(context.make_array(signature.args[13])(context, builder, cp_).data, [coff])
            coffs = builder.gep(context.make_array(signature.args[16])(context, builder, qp_).data, [r0])
            fnty = ir.FunctionType(ir.VoidType(), [i64, i64, i64, i64, ptr, i64, i64.as_pointer(), ptr, i64, i64,
                                                   ptr, i64, i64.as_pointer(), i64])
            after = builder.append_basic_block("cmicro_done")
            gathered = builder.icmp_signed("<", rs, ir.Constant(rs.type, 0))
            uniform_bb = builder.append_basic_block("cmicro_uniform")
            gather_bb = builder.append_basic_block("cmicro_gather")
            builder.cbranch(gathered, gather_bb, uniform_bb)
            for gather, head in ((False, uniform_bb), (True, gather_bb)):
                builder.position_at_end(head)
                switch = builder.switch(mr, after)
                for rows in range(1, gemm_kernel.MR_T + 1):
                    name = f"ref_conv_micro_{arr.dtype}_{rows}_{'g' if gather else 'u'}"
                    fn = builder.module.globals.get(name)
                    if fn is None:
                        fn = ir.Function(builder.module, fnty, name)
                        fn.linkage = "internal"
                        fn.attributes.add("noinline")
                        _micro_body(fn, scalar, width, rows, gather)
                    block = builder.append_basic_block(f"cmicro_{rows}_{gather}")
                    switch.add_case(ir.Constant(mr.type, rows), block)
                    with builder.goto_block(block):
                        builder.call(fn, [nseg, kseg, sstride, cs, a, rs, roffs, b, ldb, bstride, c, ldc, coffs,
                                          first])
                        builder.branch(after)
            builder.position_at_end(after)
            return context.get_dummy_value()

        return sig, codegen

    return micro


def _micro_body(fn, scalar, width, rows, gather):
    """The LLVM IR of :func:`_make_micro`'s kernel for ``rows`` rows: two nested loops
    (segments, steps) around ``2 * rows`` vector accumulators held in registers."""
    from llvmlite import ir

    nseg, kseg, sstride, cs, a, rs, roffs, b, ldb, bstride, c, ldc, coffs, first = fn.args
    vec = ir.VectorType(scalar, width)
    vptr = vec.as_pointer()
    i64, i32 = ir.IntType(64), ir.IntType(32)
    align = 4 if width == 16 else 8
    entry = fn.append_basic_block("entry")
    outer = fn.append_basic_block("outer")
    inner = fn.append_basic_block("inner")
    latch = fn.append_basic_block("latch")
    done = fn.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    kind = f"v{width}{'f32' if width == 16 else 'f64'}"
    fma = builder.module.globals.get(f"llvm.fma.{kind}")
    if fma is None:
        fma = ir.Function(builder.module, ir.FunctionType(vec, [vec, vec, vec]), f"llvm.fma.{kind}")

    def vload(base, offset):
        return builder.load(builder.bitcast(builder.gep(base, [offset]), vptr), align=align)

    zero64 = ir.Constant(i64, 0)
    if gather:
        crow = [builder.gep(c, [builder.load(builder.gep(coffs, [ir.Constant(i64, i)]))]) for i in range(rows)]
    else:
        crow = [builder.gep(c, [builder.mul(ldc, ir.Constant(i64, i))]) for i in range(rows)]
    fresh = builder.icmp_signed("!=", first, ir.Constant(first.type, 0))
    zero = ir.Constant(vec, [0.0] * width)
    start = [builder.select(fresh, zero, vload(crow[i], ir.Constant(i64, h * width)))
             for i in range(rows) for h in range(2)]
    if gather:
        arow = [builder.gep(a, [builder.load(builder.gep(roffs, [ir.Constant(i64, i)]))]) for i in range(rows)]
    else:
        arow = [builder.gep(a, [builder.mul(rs, ir.Constant(i64, i))]) for i in range(rows)]
    empty = builder.or_(builder.icmp_signed("<=", nseg, zero64), builder.icmp_signed("<=", kseg, zero64))
    builder.cbranch(empty, done, outer)

    builder.position_at_end(outer)
    s = builder.phi(i64)
    acc_o = [builder.phi(vec) for _ in start]
    s.add_incoming(zero64, entry)
    for phi, v in zip(acc_o, start):
        phi.add_incoming(v, entry)
    segoff = builder.mul(s, sstride)
    bseg = builder.gep(b, [builder.mul(s, bstride)])
    abase = [builder.gep(r, [segoff]) for r in arow]
    builder.branch(inner)

    builder.position_at_end(inner)
    u = builder.phi(i64)
    acc = [builder.phi(vec) for _ in start]
    u.add_incoming(zero64, outer)
    for phi, v in zip(acc, acc_o):
        phi.add_incoming(v, outer)
    bat = builder.mul(u, ldb)
    bv = [vload(bseg, builder.add(bat, ir.Constant(i64, h * width))) for h in range(2)]
    at = builder.mul(u, cs)
    undef = ir.Constant(vec, ir.Undefined)
    splat = ir.Constant(ir.VectorType(i32, width), [0] * width)
    new = []
    for i in range(rows):
        x = builder.load(builder.gep(abase[i], [at]))
        sv = builder.shuffle_vector(builder.insert_element(undef, x, ir.Constant(i32, 0)), undef, splat)
        for h in range(2):
            new.append(builder.call(fma, [sv, bv[h], acc[2 * i + h]]))
    u1 = builder.add(u, ir.Constant(i64, 1))
    u.add_incoming(u1, inner)
    for phi, v in zip(acc, new):
        phi.add_incoming(v, inner)
    builder.cbranch(builder.icmp_signed("<", u1, kseg), inner, latch)

    builder.position_at_end(latch)
    s1 = builder.add(s, ir.Constant(i64, 1))
    s.add_incoming(s1, latch)
    for phi, v in zip(acc_o, new):
        phi.add_incoming(v, latch)
    builder.cbranch(builder.icmp_signed("<", s1, nseg), outer, done)

    builder.position_at_end(done)
    final = [builder.phi(vec) for _ in start]
    for phi, s0, v in zip(final, start, new):
        phi.add_incoming(s0, entry)
        phi.add_incoming(v, latch)
    for i in range(rows):
        for h in range(2):
            dst = builder.bitcast(builder.gep(crow[i], [ir.Constant(i64, h * width)]), vptr)
            builder.store(final[2 * i + h], dst, align=align)
    builder.ret_void()


_micro = LazyIntrinsic(_make_micro)


@njit(inline="always")
def pad_image(src, base, dst, h, w, c, hp, wp, top, left):
    """dst (flat ``[hp, wp, c]``) = the image at ``src[base:]`` (``[h, w, c]``) with
    ``top`` rows and ``left`` columns of zeros before it (negative: cropped) and
    zeros after."""
    u = np.uintp
    for r in range(hp):
        sr = r - top
        o = u(r * wp * c)
        if sr < 0 or sr >= h:
            for q in range(u(wp * c)):
                dst[o + q] = 0
            continue
        c0 = min(max(left, 0), wp)  # columns c0:c1 of the buffer come from the input row
        c1 = max(min(left + w, wp), c0)
        for q in range(u(c0 * c)):
            dst[o + q] = 0
        s = u(base + (sr * w + c0 - left) * c)
        for q in range(u((c1 - c0) * c)):
            dst[o + u(c0 * c) + q] = src[s + q]
        for q in range(u(c1 * c), u(wp * c)):
            dst[o + q] = 0


@njit(inline="always")
def kernel_rows(i, sh, top, dh, kh, h):
    """The kernel rows ``a0:a1`` whose input row ``sh * i - top + dh * a`` of output row
    ``i`` lies inside the input's ``h`` rows (the others read padding)."""
    r0 = sh * i - top
    a0 = 0 if r0 >= 0 else min((dh - 1 - r0) // dh, kh)
    a1 = 0 if r0 >= h else min((h - r0 + dh - 1) // dh, kh)
    return a0, max(a1, a0)


@njit(inline="always")
def _negative_zero(v):
    return v == 0 and math.copysign(1.0, v) < 0


@njit(inline="always")
def _block(fp, boff, nr, span, buf, wp, c, dh, a0, a1, e0, e1, roff, g, mr, dst, coff, coffs):
    """Pixels ``g:g + mr`` of the order (A rows at ``roff``, C rows at ``coff + coffs``)
    times one packed filter panel at ``boff`` over kernel rows ``a0:a1`` and columns
    ``e0:e1``."""
    _micro(a1 - a0, (e1 - e0) * c, dh * wp * c, 1, buf, a0 * dh * wp * c + e0 * c, -1, roff, g,
           fp, boff + (a0 * span + e0 * c) * nr, nr, span * nr, dst, coff, 0, coffs, 1, mr)


@njit(nogil=True, boundscheck=False)
def correlate_images(xf, fp, out, bits, sign, buf, geometry, o, nr, bias, order, classes):
    """``out`` (flat ``[N, OH, OW, o]``) = the correlation of the images of ``xf``
    (flat NHWC) with the filter packed as ``fp`` (``[panels, KH*KW*C, nr]``, zeros
    past ``o``); ``geometry`` = ``(n, h, w, c, oh, ow, kh, kw, sh, sw, dh, top, left)``
    (no column dilation). ``order`` lists an image's output pixels class by class,
    ``classes`` each class's ``(first, end, a0, a1, e0, e1)``: its pixels' windows
    multiply kernel rows ``a0:a1`` and columns ``e0:e1`` only (:func:`pixel_classes`;
    one class of every pixel over the whole kernel where nothing is skipped). A
    result that comes out -0 where terms were left out is computed again over the
    whole kernel (see :func:`pixel_classes`). With a ``bias`` (else empty) every
    result becomes ``max(v + bias, 0)``. ``bits``: ``out`` viewed as integers of its
    width, ``sign`` the bits of -0 (the sign bit alone) as one of them."""
    n, h, w, c, oh, ow, kh, kw, sh, sw, dh, top, left = geometry
    hp = sh * (oh - 1) + dh * (kh - 1) + 1
    wp = sw * (ow - 1) + kw
    span = kw * c
    k = kh * span
    panels = (o + nr - 1) // nr
    per = oh * ow
    roff = np.empty(per + ROWS, np.int64)
    qoff = np.empty(per + ROWS, np.int64)  # C rows of the order's pixels (within a panel: o apart)
    sco = np.zeros(per + ROWS, np.int64)  # C rows in the scratch block ct (set before each use)
    for t in range(per):
        p = order[t]
        roff[t] = ((p // ow) * sh * wp + (p % ow) * sw) * c
        qoff[t] = p * o
    ct = np.empty(ROWS * nr, out.dtype)
    zero = out.dtype.type(0)
    for b in range(n):
        pad_image(xf, b * h * w * c, buf, h, w, c, hp, wp, top, left)
        ob = b * per * o
        for cl in range(classes.shape[0]):
            t0, t1, a0, a1, e0, e1 = classes[cl]
            partial = a1 < kh or e0 > 0 or e1 < kw  # terms left out after some of the chain's
            for g in range(t0, t1, ROWS):
                mr = min(ROWS, t1 - g)
                for jp in range(panels):
                    col = jp * nr
                    width = min(nr, o - col)
                    if width == nr:
                        _block(fp, jp * k * nr, nr, span, buf, wp, c, dh, a0, a1, e0, e1, roff, g, mr,
                               out, ob + col, qoff)
                    else:
                        for i in range(mr):
                            sco[g + i] = i * nr
                        _block(fp, jp * k * nr, nr, span, buf, wp, c, dh, a0, a1, e0, e1, roff, g, mr,
                               ct, 0, sco)
                        for i in range(mr):
                            at = ob + qoff[g + i] + col
                            for j in range(width):
                                out[at + j] = ct[i * nr + j]
                    if partial:
                        for i in range(mr):
                            at = ob + qoff[g + i] + col
                            again = False
                            for j in range(width):
                                again |= bits[at + j] == sign
                            if again:  # a -0: the whole chain's may be +0
                                sco[g + i] = 0
                                _block(fp, jp * k * nr, nr, span, buf, wp, c, dh, 0, kh, 0, kw, roff, g + i, 1,
                                       ct, 0, sco)
                                for j in range(width):
                                    out[at + j] = ct[j]
        if bias.size:
            for r in range(per):
                at = np.uintp(ob + r * o)
                for j in range(np.uintp(o)):
                    v = out[at + j] + bias[j]
                    out[at + j] = v if not v <= zero else zero


@njit(inline="always")
def _pack_image(dyf, dyp, b, per, o, nr, panels):
    """dyp = image ``b`` of out_backprop in ``nr``-column panels, zeros past ``o``."""
    for jp in range(panels):
        for t in range(per):
            for j in range(nr):
                col = jp * nr + j
                dyp[(jp * per + t) * nr + j] = dyf[(b * per + t) * o + col] if col < o else 0


@njit(inline="always")
def _inside_rows(a, sh, top, dh, h, oh):
    """The output rows ``i0:i1`` whose input row ``sh * i - top + dh * a`` (kernel row
    ``a``) lies inside the input's ``h`` rows."""
    lo = top - dh * a
    i0 = min(max(0, (lo + sh - 1) // sh), oh)
    i1 = min(max(0, (lo + h + sh - 1) // sh), oh)
    return i0, max(i0, i1)


@njit(inline="always")
def _piece(r, run, kw, dw, dh, wp, c):
    """The kernel row and the padded image's offset of ``df`` row ``r``'s first value,
    and the end of its run of adjacent rows."""
    piece = r // run
    if dw == 1:
        return piece, piece * dh * wp * c + (r - piece * run), (piece + 1) * run
    return piece // kw, ((piece // kw) * dh * wp + (piece % kw) * dw) * c + (r - piece * run), (piece + 1) * run


@njit(nogil=True, boundscheck=False)
def filter_grad_rows(xf, dyf, out, tmp, buf, dyp, geometry, k0, k1, o, nb, nr, skip):
    """Rows ``k0:k1`` of ``df = patches^T @ out_backprop`` into ``out`` (flat ``[k1 - k0,
    o]``, zeros), reading the windows in place in each image padded into ``buf``: per
    block of ``nb`` images one chain per element (resumed from image to image),
    blocks added into ``out`` in order where there are several (``tmp``: their
    product). ``dyp``: room for one image's out_backprop packed in ``nr``-column
    panels where ``o`` is not a whole number of them (else empty: read in place).
    With ``skip`` (a finite out_backprop, subnormals not flushed) the output rows
    whose window row lies in padding are left out of each kernel row's chains; a
    block's result that comes out -0 is then computed again over every term (the
    argument of :func:`pixel_classes`)."""
    n, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, top, left = geometry
    hp = sh * (oh - 1) + dh * (kh - 1) + 1
    wp = sw * (ow - 1) + dw * (kw - 1) + 1
    kk = k1 - k0
    per = oh * ow
    panels = (o + nr - 1) // nr
    packed = dyp.size > 0
    several = n > nb
    dst = tmp if several else out
    mrs = gemm_kernel.MR_T
    ct = np.empty(mrs * nr, out.dtype)
    none = np.empty(0, np.int64)
    run = kw * c if dw == 1 else c  # rows of df adjacent in the padded image: a kernel row's or a tap's
    for b in range(n):
        pad_image(xf, b * h * w * c, buf, h, w, c, hp, wp, top, left)
        first = 1 if b % nb == 0 else 0
        if packed:
            _pack_image(dyf, dyp, b, per, o, nr, panels)
        r = k0
        while r < k1:
            a, base, stop = _piece(r, run, kw, dw, dh, wp, c)
            stop = min(k1, stop)
            i0, i1 = 0, oh
            if skip:
                i0, i1 = _inside_rows(a, sh, top, dh, h, oh)
            for g in range(r, stop, mrs):
                mr = min(mrs, stop - g)
                aoff = base + (g - r) + i0 * sh * wp * c
                for jp in range(panels):
                    col = jp * nr
                    coff = (g - k0) * o + col
                    if packed:
                        bb, boff, ldb = dyp, jp * per * nr, nr
                    else:
                        bb, boff, ldb = dyf, b * per * o + col, o
                    boff += i0 * ow * ldb
                    if col + nr <= o:
                        _micro(i1 - i0, ow, sh * wp * c, sw * c, buf, aoff, 1, none, 0,
                               bb, boff, ldb, ow * ldb, dst, coff, o, none, first, mr)
                    else:
                        if not first:
                            for i in range(mr):
                                for j in range(o - col):
                                    ct[i * nr + j] = dst[coff + i * o + j]
                        _micro(i1 - i0, ow, sh * wp * c, sw * c, buf, aoff, 1, none, 0,
                               bb, boff, ldb, ow * ldb, ct, 0, nr, none, first, mr)
                        for i in range(mr):
                            for j in range(o - col):
                                dst[coff + i * o + j] = ct[i * nr + j]
            r = stop
        if b % nb == nb - 1 or b == n - 1:  # the block's chains are whole
            if skip:
                b0 = b - b % nb
                done = -1  # the last panel row computed again (all its values the whole chains')
                for t in range(kk * o):
                    v = dst[t]
                    if v == 0 and math.copysign(1.0, v) < 0 and (t // o) * panels + (t % o) // nr != done:  # the whole chain's may be +0
                        rr, col = k0 + t // o, (t % o) // nr * nr
                        done = (t // o) * panels + (t % o) // nr
                        _, aoff, _ = _piece(rr, run, kw, dw, dh, wp, c)
                        for b2 in range(b0, b + 1):
                            pad_image(xf, b2 * h * w * c, buf, h, w, c, hp, wp, top, left)
                            if packed:
                                _pack_image(dyf, dyp, b2, per, o, nr, panels)
                                bb, boff, ldb = dyp, (col // nr) * per * nr, nr
                            else:
                                bb, boff, ldb = dyf, b2 * per * o + col, o
                            _micro(oh, ow, sh * wp * c, sw * c, buf, aoff, 1, none, 0,
                                   bb, boff, ldb, ow * ldb, ct, 0, nr, none, 1 if b2 == b0 else 0, 1)
                        for j in range(min(nr, o - col)):
                            dst[(rr - k0) * o + col + j] = ct[j]
            if several:
                for t in range(kk * o):
                    out[t] += tmp[t]


def padded_size(window):
    """``(hp, wp)``: the rows and columns of an image padded for ``window`` = ``(kh, kw,
    oh, ow, sh, sw, dh, dw)``: those its windows read."""
    kh, kw, oh, ow, sh, sw, dh, dw = window
    return sh * (oh - 1) + dh * (kh - 1) + 1, sw * (ow - 1) + dw * (kw - 1) + 1


def pack_panels(fm, nr):
    """``[panels, k, nr]``: the columns of ``fm [k, o]`` in panels of ``nr``, zeros past ``o``."""
    k, o = fm.shape
    panels = -(-o // nr)
    fp = np.zeros((panels, k, nr), fm.dtype)
    for jp in range(panels):
        part = fm[:, jp * nr:(jp + 1) * nr]
        fp[jp, :, :part.shape[1]] = part
    return fp


@functools.lru_cache(maxsize=256)
def pixel_classes(h, w, window, pad, skip):
    """``(order, classes)`` for :func:`correlate_images`: an image's output pixels
    grouped by the kernel rows ``a0:a1`` and columns ``e0:e1`` their windows read
    inside the input (``skip``), else one class over the whole kernel.

    **Leaving the padding's terms out keeps every bit**, given a finite filter and
    no flushing of subnormals (``ref.ops.patch_products.skips_padding_rows``): a
    padding term is ``fma(+0, f, acc) = acc + (+0 * f)``, which is ``acc`` unless
    ``acc`` is -0 (then +0 where ``f`` is not negative). So a chain without those
    terms differs from the whole chain only by the sign of a zero: it equals it
    until the first left-out term that meets a -0 (a sum that rounded to zero from
    below), after which the whole chain holds +0 and this one -0, until a term
    whose exact product is not zero gives both the same value again. A result of
    the shorter chain that is not -0 is therefore the whole chain's; one that is -0
    is computed again over the whole kernel (the padded image holds the zeros).
    Terms left out before any other (the kernel rows above the input) never meet
    a -0: a chain starts from +0. (Cached: a model's layers ask again every step;
    the arrays are read, never written.)"""
    kh, kw, oh, ow, sh, sw, dh, dw = window
    top, left = pad
    i = np.arange(oh)[:, None]
    a = np.arange(kh)[None, :]
    j = np.arange(ow)[:, None]
    e = np.arange(kw)[None, :]
    rin = (sh * i - top + dh * a >= 0) & (sh * i - top + dh * a < h)
    cin = (sw * j - left + dw * e >= 0) & (sw * j - left + dw * e < w)
    if not skip:
        return np.arange(oh * ow, dtype=np.int64), np.array([[0, oh * ow, 0, kh, 0, kw]], np.int64)
    a0 = np.where(rin.any(1), rin.argmax(1), 0)
    a1 = np.where(rin.any(1), kh - rin[:, ::-1].argmax(1), 0)
    e0 = np.zeros(ow, np.int64)  # (columns are all multiplied: see COLUMNS)
    e1 = np.full(ow, kw, np.int64)
    if COLUMNS:
        e0 = np.where(cin.any(1), cin.argmax(1), 0)
        e1 = np.where(cin.any(1), kw - cin[:, ::-1].argmax(1), 0)
    key = np.stack(np.broadcast_arrays(a0[:, None], a1[:, None], e0[None, :], e1[None, :]), -1).reshape(-1, 4)
    kinds, label = np.unique(key, axis=0, return_inverse=True)
    order = np.argsort(label.reshape(-1), kind="stable").astype(np.int64)
    counts = np.bincount(label.reshape(-1), minlength=len(kinds))
    edges = np.concatenate([[0], np.cumsum(counts)])
    classes = np.concatenate([edges[:-1, None], edges[1:, None], kinds], 1).astype(np.int64)
    return order, classes


def correlate(xf, fm, out, shape, window, pad, bias, skip):
    """``out [N, OH, OW, O]`` = the correlation of the flat NHWC ``xf`` (images of
    ``shape``) with ``fm [KH*KW*C, O]`` (``window`` = ``(kh, kw, oh, ow, sh, sw, dh, dw)``
    with ``dw == 1``, ``pad`` = (top, left)), by :func:`correlate_images`, the
    padding's terms left out with ``skip`` (:func:`pixel_classes`); ``bias``: an
    array of ``O`` values, or empty."""
    n, h, w, c = shape
    kh, kw, oh, ow, sh, sw, dh, dw = window
    assert dw == 1
    nr = 2 * gemm_kernel.WIDTH[out.dtype]
    hp, wp = padded_size(window)
    buf = np.empty(hp * wp * c, out.dtype)
    order, classes = pixel_classes(h, w, tuple(window), tuple(pad), bool(skip))
    flat = out.reshape(-1)
    bits = flat.view(np.int32 if out.itemsize == 4 else np.int64)
    correlate_images(xf, pack_panels(fm, nr).reshape(-1), flat, bits, np.iinfo(bits.dtype).min, buf,
                     (n, h, w, c, oh, ow, kh, kw, sh, sw, dh, pad[0], pad[1]), fm.shape[1], nr, bias, order, classes)


def filter_grad(xf, dyf, out, tmp, geometry, k0, k1, o, nb, skip=False):
    """Rows ``k0:k1`` of a filter gradient by :func:`filter_grad_rows` (``geometry`` =
    ``(n, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw, top, left)``; ``skip``: leave the
    padding rows' terms out, for a finite out_backprop without flushed subnormals)."""
    n, h, w, c, oh, ow, kh, kw, sh, sw, dh, dw = geometry[:12]
    nr = 2 * gemm_kernel.WIDTH[out.dtype]
    hp, wp = padded_size((kh, kw, oh, ow, sh, sw, dh, dw))
    buf = np.empty(hp * wp * c, out.dtype)
    dyp = np.empty(-(-o // nr) * oh * ow * nr if o % nr else 0, out.dtype)
    filter_grad_rows(xf, dyf, out, tmp, buf, dyp, geometry, k0, k1, o, nb, nr, bool(skip))
