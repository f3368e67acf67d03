"""TF's float32 ``MatMul`` with no side of 1, in the order of TF's CPU kernel, on an
x86-64 CPU with AVX2 and no AVX-512.

TF (``TF_ENABLE_ONEDNN_OPTS=0``) computes ``[m, k] @ [k, n]`` as Eigen's tensor
contraction on its intra-op pool (``threads``: :func:`ref.ops.eigen_reduce.pool_threads`),
whose inner kernel is oneDNN's ``dnnl_sgemm`` (TF's ``eigen_contraction_kernel.h``).
Eigen works on the transposed product (row-major tensors): its ``m`` is our ``n``
(columns of the result) and its ``n`` our ``m`` (rows). The order of each element's
sum follows from four choices, all made from the shapes, ``threads`` and the CPU's
cache sizes (``l1, l2, l3``, as Eigen reads them with CPUID; :func:`cache_sizes`):

1. **Eigen's path** (``TensorContractionThreadPool.h``): a cost model picks the
   threads (:func:`num_threads`, :func:`num_threads_by_k`); a product sharded by
   the inner dimension (:func:`shard_by_inner`) cuts ``k`` into
   ``min(k, max(96, round8(ceil(k / t))))``-long blocks, each computed on its own
   and summed in Eigen's order (:func:`_add_blocks`); otherwise one pass.
2. **Eigen's blocks** (``computeProductBlockingSizes``, TF's build: AVX without FMA,
   so ``mr = 16``, ``nr = 4``), refined by TF for oneDNN: ``mc`` times 1.5 rounded
   up to 48, ``nc`` up to 24, ``kc`` evened out over ``ceil(k / kc)`` slices and
   rounded up to 8 (:func:`tf_blocking`). Each output block sums its ``kc``-slices
   in order: ``C = slice_0``, then ``C = C + slice_q``.
3. **oneDNN's nocopy AVX2 driver** (``jit_avx_gemm_f32.cpp``, ``sgemm_nocopy_driver``):
   each ``kc`` slice is cut again into pieces of at most 256 (the last two of what
   remains halved when fewer than 512 are left, :func:`dnnl_split`), summed the same
   way; the rows of a block are cut at 48 (halving under 72 left).
4. **The JIT kernel** (``xbyak_gemm``) takes 16 columns by 6 rows at a time; a
   column remainder over 8 still runs the 16-wide kernel, 8 or fewer the 8-wide
   one; a row remainder 1-5 its own. Per element, over one piece of ``K`` values:

   * 16-wide, 4-6 rows: one FMA chain from 0, in order;
   * 8-wide (any rows), or 3 rows: two FMA chains, even and odd steps, added,
     then the last step (``K`` odd) fused onto the sum;
   * 1 or 2 rows: the same with products rounded before each add (no FMA).

Measured against tensorflow-cpu 2.21 on a 2-CPU AMD EPYC (AVX2, no AVX-512; 32K/
512K/32M caches): every element equal over ``tests/ops/test_eigen_gemm.py``'s table
(``7x100x9`` to ``1024x1024x1024``, all four transpositions, the sequential,
parallel and inner-dim-sharded paths). With ``TF_ENABLE_ONEDNN_OPTS=1`` TF runs
oneDNN's matmul primitive instead (about 10% of elements equal). On an AVX-512 CPU
oneDNN runs other kernels (``jit_avx512_common_gemm_f32``: 48x8 tiles), and
:func:`applies` is False: those products stay :mod:`ref.ops.gemm`'s.

The pieces: FMA chains are :func:`ref.ops.gemm_llvm.gemm`'s (the same chain from
+0, on strided views), or :func:`ref.ops.gemm_kernel.fused_chain_numpy` while those
modules build; the last fused step :func:`fma`; the non-fused pairs NumPy float32.
"""
from __future__ import annotations

import os

import numpy as np

from ref.ops import _jit, gemm_kernel, gemm_llvm

_F = np.float32
MR, NR = 16, 4
"""Eigen's ``gebp_traits<float, float>`` register blocks in TF's build (AVX, no FMA)."""
BK, BN, BM = 256, 48, 4032
"""oneDNN's nocopy driver's blocks of ``k``, rows (its ``n``) and columns (its ``m``)."""
DEFAULT_CACHES = (32 * 1024, 256 * 1024, 2 * 1024 * 1024)
"""Eigen's defaults where the CPU does not say."""

_CPU = {}


def _flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def applies() -> bool:
    """Whether TF's oneDNN would run the AVX2 nocopy kernels modelled here: an
    x86-64 CPU with AVX2 and FMA and no AVX-512 (``REF_EIGEN_GEMM=0`` turns it off,
    ``=1`` on whatever the CPU, for tests of the model)."""
    env = os.environ.get("REF_EIGEN_GEMM", "")
    if env in ("0", "1"):
        return env == "1"
    if "applies" not in _CPU:
        fl = _flags()
        _CPU["applies"] = {"avx2", "fma"} <= fl and "avx512f" not in fl
    return _CPU["applies"]


def cache_sizes():
    """``(l1, l2, l3)`` data cache bytes of CPU 0 (Linux's sysfs: what CPUID says),
    Eigen's defaults where missing."""
    if "caches" not in _CPU:
        found = {}
        base = "/sys/devices/system/cpu/cpu0/cache"
        try:
            for name in sorted(os.listdir(base)):
                d = os.path.join(base, name)
                try:
                    level = int(open(os.path.join(d, "level")).read())
                    kind = open(os.path.join(d, "type")).read().strip()
                    size = open(os.path.join(d, "size")).read().strip()
                except (OSError, ValueError):
                    continue
                if kind == "Instruction":
                    continue
                mult = {"K": 1024, "M": 1024 * 1024}.get(size[-1:], 1)
                found[level] = int(size.rstrip("KM")) * mult
        except OSError:
            pass
        _CPU["caches"] = tuple(found.get(i + 1, d) for i, d in enumerate(DEFAULT_CACHES))
    return _CPU["caches"]


def _divup(a, b):
    return -(-a // b)


def blocking_heuristic(k, m, n, threads, caches):
    """Eigen's ``evaluateProductBlockingSizesHeuristic`` for float: ``(kc, mc, nc)``."""
    l1, l2, l3 = caches
    if threads > 1:
        k_cache = max(8, min((l1 - MR * NR * 4) // (4 * (MR + NR)), 320))
        if k_cache < k:
            k = k_cache - k_cache % 8
        n_cache = (l2 - l1) // (NR * 4 * k)
        n_per = _divup(n, threads)
        if n_cache <= n_per:
            n = n_cache - n_cache % NR
        else:
            n = min(n, (n_per + NR - 1) - (n_per + NR - 1) % NR)
        if l3 > l2:
            m_cache = (l3 - l2) // (4 * k * threads)
            m_per = _divup(m, threads)
            if MR <= m_cache < m_per:
                m = m_cache - m_cache % MR
            else:
                m = min(m, (m_per + MR - 1) - (m_per + MR - 1) % MR)
        return k, m, n
    if max(k, m, n) < 48:
        return k, m, n
    k_sub, k_div = MR * NR * 4, 4 * (MR + NR)
    max_kc = max(((l1 - k_sub) // k_div) & ~7, 1)
    old_k = k
    if k > max_kc:
        k = max_kc if k % max_kc == 0 else max_kc - 8 * ((max_kc - 1 - k % max_kc) // (8 * (k // max_kc + 1)))
    actual_l2 = 1572864
    remaining_l1 = l1 - k_sub - m * k * 4
    max_nc = remaining_l1 // (k * 4) if remaining_l1 >= NR * 4 * k else (3 * actual_l2) // (16 * max_kc)
    nc = min(actual_l2 // (8 * k), max_nc) & ~(NR - 1)
    if n > nc:
        n = nc if n % nc == 0 else nc - NR * ((nc - n % nc) // (NR * (n // nc + 1)))
    elif old_k == k:
        size = k * n * 4
        lm, max_mc = actual_l2, m
        if size <= 1024:
            lm = l1
        elif l3 != 0 and size <= 32768:
            lm, max_mc = l2, min(576, max_mc)
        mc = min(lm // (12 * k), max_mc)
        if mc > MR:
            mc -= mc % MR
        elif mc == 0:
            return k, m, n
        m = mc if m % mc == 0 else mc - MR * ((mc - m % mc) // (MR * (m // mc + 1)))
    return k, m, n


def tf_blocking(k, m, n, threads, by_col, caches):
    """TF's ``TensorContractionBlocking<float>`` for oneDNN: ``(kc, mc, nc)``."""
    if by_col:
        kc, mc, nc = blocking_heuristic(k, m, n, threads, caches)
    else:
        kc, nc, mc = blocking_heuristic(k, n, m, threads, caches)
    if kc <= 0 or mc <= 0 or nc <= 0:
        return kc, mc, nc
    mc = min(m, _divup(int(mc * 1.5), 48) * 48)
    nc = min(n, _divup(nc, 24) * 24)
    slices = max(1, _divup(k, kc))
    return min(k, _divup(k // slices, 8) * 8), mc, nc


def shard_by_col(m, n, threads):
    """Eigen's ``shardByCol``."""
    if m // threads >= NR and (n // threads < NR or (n // threads < 4 * NR and n % (threads * NR) != 0
                                                    and (m % (threads * NR) == 0 or m // n >= 6))):
        return False
    return not (n // threads < 16 * NR and m > n * 32)


def _total_cost(size, loaded, stored, compute):
    return size * (loaded * 11 / 64 + stored * 11 / 64 + compute)


def _bandwidth(k, rows_small, cols_small):
    bw = 4.0 if k == 1 else 2.0 if rows_small or cols_small else 0.5
    return 1.0 if bw == 0.5 else bw  # no FMA in TF's Eigen: MULPS then ADDPS


def num_threads(m, n, k, threads, caches):
    """Eigen's threads for the contraction (``TensorCostModel::numThreads`` of
    ``contractionCost`` with the blocks for 2 threads)."""
    by_col = shard_by_col(m, n, 2)
    bk, bm, bn = tf_blocking(k, m, n, 2, by_col, caches)
    compute = bk * _bandwidth(bk, bm < NR, bn < MR) / 8
    loaded = 4 * bk / m if by_col else 4 * bk / n
    cost = _total_cost(m * n, loaded, 4, compute)
    return min(threads, max(1, int((cost - 100000) / 100000 + 0.9)))


def num_threads_by_k(m, n, k, threads):
    """Eigen's ``numThreadsInnerDim``."""
    compute = _bandwidth(k, n < NR, m < MR) * m * n / 8
    parallel = _total_cost(k, 4 * n, 4, compute)
    reduction = _total_cost(m * n, 2, 1, 1 / 8)
    best, best_cost = 1, parallel
    for t in range(2, threads + 1, 2):
        c = parallel / t + 100000 + t * (reduction + 3000)
        if c < best_cost:
            best, best_cost = t, c
    return best


def shard_by_inner(m, n, k, threads, threads_k, caches):
    """Eigen's ``shardByInnerDim``."""
    if n == 1 or threads_k < 2 or threads_k < threads or m * n * 4 > caches[2] // threads_k \
            or k // threads_k < 2 * NR:
        return False
    return max(m, n) // threads < NR or (k // threads_k > 8 * NR and (min(m, n) < 2 * NR or threads_k > threads))


def dnnl_split(size, block, halve_over):
    """oneDNN's nocopy cut of ``size``: pieces of ``block`` while ``2 * block`` are
    left, then the rest whole, or halved (rounded up first) when over ``halve_over``."""
    edges = [0]
    while edges[-1] < size:
        z = size - edges[-1]
        if z >= 2 * block:
            z = block
        elif z > halve_over:
            z = (z + 1) // 2
        edges.append(edges[-1] + z)
    return edges


def _edges(size, block):
    return list(range(0, size, block)) + [size]


def _dnnl_pieces(size, block, base):
    """``(start, end)`` of oneDNN's pieces of each of Eigen's blocks of ``block`` along ``size``
    (:func:`dnnl_split` of each block by ``base``, ``base * 1.5`` the most it leaves whole)."""
    edges = _edges(size, block)
    for e0, e1 in zip(edges[:-1], edges[1:]):
        d = dnnl_split(e1 - e0, base, base + base // 2)
        for d0, d1 in zip(d[:-1], d[1:]):
            yield e0 + d0, e0 + d1


def widths(cols, mc):
    """Per column (Eigen's ``m``): 16 or 8, the JIT kernel's width over it."""
    out = np.empty(cols, np.int64)
    for s, end in _dnnl_pieces(cols, mc, BM):
        full = s + (end - s) // 16 * 16
        out[s:full] = 16
        out[full:end] = 16 if end - full > 8 else 8
    return out


def heights(rows, nc):
    """Per row (Eigen's ``n``): 6 in whole groups, else the remainder 1-5 it is in."""
    out = np.empty(rows, np.int64)
    for s, end in _dnnl_pieces(rows, nc, BN):
        full = s + (end - s) // 6 * 6
        out[s:full] = 6
        out[full:end] = end - full
    return out


def pieces(k0, k1, kc):
    """Edges of the pieces of ``[k0, k1)``: Eigen's ``kc`` slices, each cut by oneDNN."""
    out = []
    for s0, s1 in zip(_edges(k1 - k0, kc)[:-1], _edges(k1 - k0, kc)[1:]):
        out += [k0 + s0 + x for x in dnnl_split(s1 - s0, BK, BK)[:-1]]
    return out + [k1]


def plan(m, k, n, threads, caches=None):
    """How TF computes ``[m, k] @ [k, n]``: a list of shards ``(k0, k1, edges, widths,
    heights)`` (the pieces' edges over ``k``; per column and per row the kernel's
    width and height), summed by :func:`_add_blocks`; None where the copy-based
    kernels would run."""
    caches = caches or cache_sizes()
    me, ne = n, m  # Eigen's sides
    t = num_threads(me, ne, k, threads, caches)
    tk = num_threads_by_k(me, ne, k, threads)
    if shard_by_inner(me, ne, k, t, tk, caches):
        size = min(k, max(96, _divup(_divup(k, tk), 8) * 8))
        count = _divup(k, size)
        bounds = [(q * size, min(k, (q + 1) * size), count, True) for q in range(count)]
    else:
        bounds = [(0, k, t, t == 1 or shard_by_col(me, ne, t))]
    shards = []
    for k0, k1, tb, by_col in bounds:
        kc, mc, nc = tf_blocking(k1 - k0, me, ne, tb, by_col, caches)
        shards.append((k0, k1, pieces(k0, k1, kc), widths(me, mc), heights(ne, nc)))
    return shards


def fma(a, b, c):
    """``fmaf(a, b, c)`` element-wise for float32 arrays (broadcasting), exactly:
    the product in float64 is exact, the sum is rounded to float64 *to odd*
    (TwoSum's error says it was inexact), which rounds to float32 as the exact sum
    does (Boldo and Melquiond, "When double rounding is odd")."""
    prod = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    acc = np.asarray(c, np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        s = prod + acc
        z = s - prod
        err = (prod - (s - z)) + (acc - z)
        s = np.array(s, np.float64)
        odd = ((s.view(np.int64) & 1) == 0) & (err != 0) & np.isfinite(err)
        if odd.any():
            s[odd] = np.nextafter(s[odd], np.copysign(np.inf, err[odd]))
    return s.astype(_F)


def chain(a, b):
    """One FMA chain from +0 over the inner dimension, in order, per element (float32)."""
    m, k = a.shape
    out = np.empty((m, b.shape[1]), _F)
    if out.size == 0:
        return out
    if k == 0:
        out[...] = 0
        return out
    if m * k * out.shape[1] <= gemm_kernel.FORM_MAX_WORK and _jit.NUMPY_MAX > 0 \
            and not gemm_llvm.prepared(_F, gemm_llvm.rows_needed(a)):
        return gemm_kernel.fused_chain_numpy(a, b, out)
    return gemm_llvm.gemm(a, b, out)


def two_chains(a, b, fused=True):
    """The narrow kernels' sum over one piece: even and odd steps in two accumulators
    (FMA chains, or products rounded then added), added, then the last step of an
    odd count (fused, or not)."""
    k = a.shape[1]
    k2 = k - k % 2
    if fused:
        s = chain(a[:, 0:k2:2], b[0:k2:2]) + chain(a[:, 1:k2:2], b[1:k2:2])
    else:
        # products rounded to float32; both accumulators advance together, in order from +0
        m, n = a.shape[0], b.shape[1]
        prods = np.multiply(a[:, :k2].T.reshape(k2 // 2, 2, m, 1), b[:k2].reshape(k2 // 2, 2, 1, n), dtype=_F)
        acc = np.zeros((2, m, n), _F)
        for q in range(k2 // 2):
            acc += prods[q]
        s = acc[0] + acc[1]
    if k % 2:
        last = (a[:, k - 1:k], b[k - 1:k])
        s = fma(last[0], last[1], s) if fused else s + np.multiply.outer(last[0][:, 0], last[1][0])
    return s


def _index(mask):
    """A slice where ``mask``'s True entries are one run (the common case), else indices."""
    idx = np.flatnonzero(mask)
    if idx.size and idx[-1] - idx[0] + 1 == idx.size:
        return slice(int(idx[0]), int(idx[-1]) + 1)
    return idx


def _piece(a, b, wide, tall, three, low):
    """One piece ``a @ b`` with each element's order by its kernel (``wide``: columns
    of the 16-wide kernel; ``tall``, ``three``, ``low``: rows of 4-6, 3, 1-2)."""
    out = np.empty((a.shape[0], b.shape[1]), _F)
    for rows, parts in ((tall, ((wide, "chain"), (~wide, "two"))), (three, ((None, "two"),)),
                        (low, ((None, "low"),))):
        if not rows.any():
            continue
        r = _index(rows)
        ar = a[r]
        for cols, how in parts:
            if cols is not None and not cols.any():
                continue
            c = slice(None) if cols is None else _index(cols)
            bc = b[:, c]
            val = chain(ar, bc) if how == "chain" else two_chains(ar, bc, fused=how == "two")
            if isinstance(r, slice) or isinstance(c, slice):
                out[r, c] = val
            else:
                out[np.ix_(r, c)] = val
    return out


def _shard(a, b, edges, wid, hei):
    wide = wid == 16
    tall, three, low = hei >= 4, hei == 3, hei <= 2
    total = None
    for p0, p1 in zip(edges[:-1], edges[1:]):
        piece = _piece(a[:, p0:p1], b[p0:p1], wide, tall, three, low)
        total = piece if total is None else total + piece
    return total


def _add3(dst, s0, s1, s2):
    """Eigen's ``addAllToBuffer`` over the flat buffer: ``(dst + s0) + (s1 + s2)`` in
    whole packets of 8, ``dst + ((s0 + s1) + s2)`` for the last ``size % 8``."""
    flat = [x.reshape(-1) for x in (dst, s0, s1, s2)]
    cut = flat[0].size - flat[0].size % 8
    out = np.empty_like(flat[0])
    out[:cut] = (flat[0][:cut] + flat[1][:cut]) + (flat[2][:cut] + flat[3][:cut])
    out[cut:] = flat[0][cut:] + ((flat[1][cut:] + flat[2][cut:]) + flat[3][cut:])
    return out.reshape(dst.shape)


def _add_blocks(blocks):
    """Eigen's sum of the inner-dimension blocks: groups of 4 (``addAllToBuffer``
    when whole, else one by one), then the groups' firsts into the first, three at
    a time, then one by one."""
    groups = []
    for g in range(0, len(blocks), 4):
        grp = blocks[g:g + 4]
        if len(grp) == 4:
            head = _add3(*grp)
        else:
            head = grp[0]
            for x in grp[1:]:
                head = head + x
        groups.append(head)
    total, i = groups[0], 1
    while i + 2 < len(groups):
        total = _add3(total, groups[i], groups[i + 1], groups[i + 2])
        i += 3
    for x in groups[i:]:
        total = total + x
    return total


def product(a, b, threads):
    """TF's float32 ``a @ b`` (2-D, ``k >= 1``, any strides) for a pool of ``threads``."""
    m, k = a.shape
    n = b.shape[1]
    shards = plan(m, k, n, threads)
    blocks = [_shard(a[:, k0:k1], b[k0:k1], [e - k0 for e in edges], wid, hei)
              for k0, k1, edges, wid, hei in shards]
    return _add_blocks(blocks)
