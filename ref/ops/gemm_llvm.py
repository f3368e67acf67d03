""":mod:`ref.ops.gemm_kernel`'s product built straight with llvmlite: no Numba.

With an empty Numba cache, compiling :func:`ref.ops.gemm_kernel.gemm` costs a
process seconds of CPU (Numba's import and typing, then LLVM optimising the
driver with all 24 micro-kernels linked in). This module builds the *same*
micro-kernel IR (:func:`ref.ops.gemm_kernel._micro_body`) with a small loop
nest around it -- ``macro``: every ``mr``-row group of a block of A times every
panel of B, in the order of :func:`ref.ops.gemm_kernel.gemm_resume` -- as one
small LLVM module per ``(dtype, mr)``, compiled by ``llvmlite.binding`` at O3
for the host CPU, and called through ``ctypes`` (which releases the GIL). The
packing of B is NumPy's (a copy: no arithmetic), and so is the Python loop over
blocks of ``KC`` rows and ``NC`` columns (:func:`gemm`). Each element is still
one chain of fused multiply-adds in the order of the inner dimension, started
from +0 on the first block of rows and resumed from C on the next: the bits of
:mod:`ref.ops.gemm_kernel`.

A module compiles in ~0.1 s, and only the row counts a product needs are
compiled (``MR`` or ``MR_T``, and the remainder). The object code is kept on
disk (:func:`cache_dir`), named by a hash of the IR, the CPU's name and
features, the optimisation level and llvmlite's version, so a change of any of
them compiles afresh; a later process loads it in milliseconds.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import tempfile
import threading

import numpy as np

from ref.ops import gemm_kernel as _gk

OPT = 3
_LOCK = threading.RLock()
_STATE = {}  # "llvm": (binding, target machine, engine); (dtype, mr): the macro's ctypes function
_ARGS = [ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
         ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
         ctypes.c_void_p, ctypes.c_int64]


def cache_dir() -> str:
    """Folder of the compiled objects: ``$REF_GEMM_CACHE_DIR``, else ``ref_gemm``
    inside ``$NUMBA_CACHE_DIR`` (so that an empty Numba cache is an empty one here
    too), else inside the user's cache folder."""
    path = os.environ.get("REF_GEMM_CACHE_DIR")
    if path:
        return path
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ref")
    return os.path.join(base, "ref_gemm")


def _llvm():
    """``(binding, target machine, execution engine)``, made once a process."""
    got = _STATE.get("llvm")
    if got is None:
        import llvmlite.binding as llvm

        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple()
        tm = target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                          features=llvm.get_host_cpu_features().flatten(), opt=OPT)
        backing = llvm.parse_assembly("")
        backing.triple = tm.triple
        engine = llvm.create_mcjit_compiler(backing, tm)
        got = _STATE["llvm"] = (llvm, tm, engine)
    return got


def module_ir(dtype, mr) -> str:
    """The LLVM IR (text) of the micro-kernel ``ref_gemm_micro_<dtype>_<mr>``
    (:func:`ref.ops.gemm_kernel._micro_body`) and of ``ref_gemm_macro_<dtype>_<mr>(rows,
    panels, kc, a, rs, cs, b, pstep, ldb, c, ldc, first, rem_fn, rem)``: for each
    block of ``MC`` rows (a multiple of ``mr``), each of ``panels`` panels of B (``b +
    jp * pstep``, row stride ``ldb``), each group of ``mr`` rows of A (``a + i * rs``,
    column stride ``cs``) among the first ``rows`` (a multiple of ``mr``): the
    micro-kernel into the ``mr x NR`` block of C at ``c + i * ldc + jp * NR``; then,
    in the last block, the last ``rem`` rows by ``rem_fn`` (the micro-kernel of
    ``rem`` rows, another module's), while the panel is still in cache."""
    from llvmlite import ir

    dtype = np.dtype(dtype)
    scalar = ir.FloatType() if dtype == np.float32 else ir.DoubleType()
    width = _gk.WIDTH[dtype]
    nr = 2 * width
    i64 = ir.IntType(64)
    ptr = scalar.as_pointer()
    module = ir.Module(f"ref_gemm_{dtype.name}_{mr}")
    micro_ty = ir.FunctionType(ir.VoidType(), [i64, ptr, i64, i64, ptr, i64, ptr, i64, i64])
    micro = ir.Function(module, micro_ty, f"ref_gemm_micro_{dtype.name}_{mr}")
    micro.attributes.add("noinline")
    _gk._micro_body(micro, scalar, width, mr)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i64, i64, i64, ptr, i64, i64, ptr, i64, i64, ptr,
                                                             i64, i64, micro_ty.as_pointer(), i64]),
                     f"ref_gemm_macro_{dtype.name}_{mr}")
    rows, panels, kc, a, rs, cs, b, pstep, ldb, c, ldc, first, rem_fn, rem = fn.args
    builder = ir.IRBuilder(fn.append_basic_block("entry"))
    block = (_gk.MC // mr) * mr
    total = builder.add(rows, rem)
    zero = ir.Constant(i64, 0)

    def loop(start, stop, step, body):
        """``for v in range(start, stop, step): body(v)``."""
        head = builder.block
        top = fn.append_basic_block("loop")
        after = fn.append_basic_block("after")
        builder.cbranch(builder.icmp_signed("<", start, stop), top, after)
        builder.position_at_end(top)
        v = builder.phi(i64)
        v.add_incoming(start, head)
        body(v)
        nxt = builder.add(v, step)
        v.add_incoming(nxt, builder.block)
        builder.cbranch(builder.icmp_signed("<", nxt, stop), top, after)
        builder.position_at_end(after)

    def over_blocks(ic):
        end = builder.add(ic, ir.Constant(i64, block))
        end = builder.select(builder.icmp_signed("<", end, total), end, total)
        stop = builder.select(builder.icmp_signed("<", end, rows), end, rows)
        last = builder.and_(builder.icmp_signed(">", rem, zero), builder.icmp_signed("==", end, total))

        def over_panels(jp):
            bj = builder.gep(b, [builder.mul(jp, pstep)])
            cj = builder.gep(c, [builder.mul(jp, ir.Constant(i64, nr))])

            def over_rows(i):
                builder.call(micro, [kc, builder.gep(a, [builder.mul(i, rs)]), rs, cs, bj, ldb,
                                     builder.gep(cj, [builder.mul(i, ldc)]), ldc, first])

            loop(ic, stop, ir.Constant(i64, mr), over_rows)
            with builder.if_then(last):
                builder.call(rem_fn, [kc, builder.gep(a, [builder.mul(rows, rs)]), rs, cs, bj, ldb,
                                      builder.gep(cj, [builder.mul(rows, ldc)]), ldc, first])

        loop(zero, panels, ir.Constant(i64, 1), over_panels)

    loop(zero, total, ir.Constant(i64, block), over_blocks)
    builder.ret_void()
    return str(module)


def cache_key(text, cpu=None, features=None, version=None) -> str:
    """The object file's name: a hash of what its code depends on -- the IR ``text``,
    the CPU's name and features (the host's by default), :data:`OPT`, llvmlite's
    ``version`` (the installed one by default) and the target triple."""
    import llvmlite

    llvm, tm, _ = _llvm()
    parts = [text, cpu or llvm.get_host_cpu_name(), features or llvm.get_host_cpu_features().flatten(), str(OPT),
             version or llvmlite.__version__, tm.triple]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def _compile(text):
    """Object code of the IR ``text``: optimised at :data:`OPT` for the host CPU."""
    llvm, tm, _ = _llvm()
    # a context of its own: LLVM's global one is Numba's too, and a kernel may be compiling
    # there on another thread (prefetch builds while the program goes on)
    module = llvm.parse_assembly(text, context=llvm.create_context())
    module.triple = tm.triple
    module.data_layout = str(tm.target_data)
    module.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=OPT)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(module, pb)
    return tm.emit_object(module)


def _object(text):
    """The object code of ``text``, from the disk cache or compiled (and then stored)."""
    path = os.path.join(cache_dir(), cache_key(text) + ".o")
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        pass
    obj = _compile(text)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(obj)
        os.replace(tmp, path)  # atomic: a process reading it sees all of it or none
    except OSError:  # a read-only cache: compiled every time
        pass
    return obj


def macro(dtype, mr):
    """``(macro, micro)``: the ctypes function ``ref_gemm_macro_<dtype>_<mr>`` and the
    address of ``ref_gemm_micro_<dtype>_<mr>`` (:func:`module_ir`), built once a process."""
    key = (np.dtype(dtype).name, mr)
    fn = _STATE.get(key)
    if fn is None:
        with _LOCK:
            fn = _STATE.get(key)
            if fn is None:
                llvm, _, engine = _llvm()
                engine.add_object_file(llvm.ObjectFileRef.from_data(_object(module_ir(dtype, mr))))
                engine.finalize_object()
                address = engine.get_function_address(f"ref_gemm_macro_{key[0]}_{mr}")
                micro = engine.get_function_address(f"ref_gemm_micro_{key[0]}_{mr}")
                if not address or not micro:
                    raise RuntimeError(f"ref_gemm_macro_{key[0]}_{mr}: no such symbol after loading its object")
                fn = (ctypes.CFUNCTYPE(None, *_ARGS)(address), micro)
                _STATE[key] = fn
    return fn


def libm_ir(name, dtype) -> str:
    """The LLVM IR (text) of ``ref_libm_<f>(x, y, n)``: ``y[i] = f(x[i])`` for ``i < n``,
    ``f`` the C math library's ``name`` for ``dtype`` (``expf`` for float32 ``exp``),
    called once an element, as Numba's compiled kernels call it."""
    from llvmlite import ir

    dtype = np.dtype(dtype)
    scalar = ir.FloatType() if dtype == np.float32 else ir.DoubleType()
    cname = name + ("f" if dtype == np.float32 else "")
    i64 = ir.IntType(64)
    ptr = scalar.as_pointer()
    module = ir.Module(f"ref_libm_{cname}")
    callee = ir.Function(module, ir.FunctionType(scalar, [scalar]), cname)
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr, i64]), f"ref_libm_{cname}")
    x, y, n = fn.args
    entry = fn.append_basic_block("entry")
    body = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    builder = ir.IRBuilder(entry)
    builder.cbranch(builder.icmp_signed(">", n, ir.Constant(i64, 0)), body, done)
    builder.position_at_end(body)
    i = builder.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    builder.store(builder.call(callee, [builder.load(builder.gep(x, [i]))]), builder.gep(y, [i]))
    nxt = builder.add(i, ir.Constant(i64, 1))
    i.add_incoming(nxt, body)
    builder.cbranch(builder.icmp_signed("<", nxt, n), body, done)
    builder.position_at_end(done)
    builder.ret_void()
    return str(module)


def libm(name, dtype):
    """``f(x)``: a new array of libm's ``name`` of each element of the float32 or float64
    array ``x`` (:func:`libm_ir`: compiled once, ~10 ms, or loaded from the disk cache),
    the bits of ``ref.ops._jit.libm``'s element-by-element calls at ~5 ns an element
    instead of ~200 -- a NumPy form's ``exp`` for inputs of any size."""
    dtype = np.dtype(dtype)
    key = ("libm", name, dtype.name)
    fn = _STATE.get(key)
    if fn is None:
        with _LOCK:
            fn = _STATE.get(key)
            if fn is None:
                llvm, _, engine = _llvm()
                symbol = f"ref_libm_{name}{'f' if dtype == np.float32 else ''}"
                engine.add_object_file(llvm.ObjectFileRef.from_data(_object(libm_ir(name, dtype))))
                engine.finalize_object()
                address = engine.get_function_address(symbol)
                if not address:
                    raise RuntimeError(f"{symbol}: no such symbol after loading its object")
                loop = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(address)

                def fn(x, loop=loop, dtype=dtype):
                    src = np.ascontiguousarray(x, dtype)
                    out = np.empty(src.shape, dtype)
                    loop(src.ctypes.data, out.ctypes.data, src.size)
                    return out

                _STATE[key] = fn
    return fn


def built(dtype, mr) -> bool:
    """Whether :func:`macro` of ``(dtype, mr)`` is in this process already."""
    return (np.dtype(dtype).name, mr) in _STATE


_BUILDS = {}  # rows needed -> the thread building their modules (prepared)


def rows_needed(a):
    """The micro-kernel row counts :func:`gemm` of ``a`` (2-D) calls: its row group and remainder."""
    m = a.shape[0]
    s = _strides(a)
    mrs = _gk.MR_T if s is not None and s[0] == 1 and s[1] > 1 else _gk.MR
    return tuple(r for r in (mrs if m >= mrs else 0, m % mrs) if r)


def prepared(dtype, rows) -> bool:
    """Whether the modules of ``rows`` (:func:`rows_needed`) are built, or in the disk
    cache (then loaded here: milliseconds); otherwise they are built on a background
    thread (once) and False until that is done -- the caller runs
    ``gemm_kernel.fused_chain_numpy`` (the same bits) meanwhile."""
    if all(built(dtype, r) for r in rows):
        return True
    key = (np.dtype(dtype).name, rows)
    thread = _BUILDS.get(key)
    if thread is None:
        with _LOCK:
            thread = _BUILDS.get(key)
            if thread is None:
                try:
                    cached = all(os.path.exists(os.path.join(cache_dir(), cache_key(module_ir(dtype, r)) + ".o"))
                                 for r in rows)
                except Exception:  # noqa: BLE001 -- built below, where the error shows
                    cached = False
                if cached:
                    for r in rows:
                        macro(dtype, r)
                    return True
                thread = threading.Thread(target=_build_rows, args=(dtype, rows), name="ref-gemm-llvm", daemon=True)
                _BUILDS[key] = thread
                thread.start()
    return not thread.is_alive()


PREFETCH_ORDER = (_gk.MR, _gk.MR_T, 4, 2, 8, 1, 3, 5, 7, 9, 10, 11)
"""The row counts :func:`prefetch` builds, most used first: the row groups of C-ordered
and transposed A, then the remainders of batch sizes and widths that are multiples of 8
(256 % 12 = 4, 64 % 6 = 4, 1024 % 12 = 4, 512 % 12 = 8, 32 % 6 = 2), then the rest."""
_PREFETCH = {}  # dtype name -> the thread of prefetch


def prefetch(dtype=np.float32):
    """Starts building (or loading from the disk cache) every row count's module of
    ``dtype``, then :func:`libm`'s ``exp`` and ``log``, on a background thread, once a process, so that a first product finds
    them built. LLVM's passes run without the GIL (``ctypes``); one module at a time
    holds this module's lock, so a product that needs one meanwhile waits for at most
    one module's build. Returns the thread."""
    name = np.dtype(dtype).name
    with _LOCK:
        thread = _PREFETCH.get(name)
        if thread is None:
            thread = threading.Thread(target=_build_rows, args=(dtype, PREFETCH_ORDER, True),
                                      name="ref-gemm-prefetch", daemon=True)
            _PREFETCH[name] = thread
            thread.start()
    return thread


def _build_rows(dtype, rows, libm_too=False):
    try:
        for r in rows:
            macro(dtype, r)
        for name in ("exp", "log") if libm_too else ():
            libm(name, dtype)  # (softmax cross entropy's form: a language model's first step)
    except Exception:  # noqa: BLE001 -- the caller's own build reports it
        pass


def _strides(x):
    """``(row, column)`` strides of a 2-D array in elements; None where they are not
    whole non-negative elements."""
    s0, s1 = x.strides
    size = x.itemsize
    if s0 < 0 or s1 < 0 or s0 % size or s1 % size:
        return None
    return s0 // size, s1 // size


def gemm(a, b, out):
    """``out[...] = a @ b`` for 2-D float32 or float64 arrays of one dtype (views of
    any non-negative strides; ``out`` any writable 2-D view), each element the fused
    chain of :mod:`ref.ops.gemm_kernel`, bit for bit. Returns ``out``."""
    m, k = a.shape
    n = b.shape[1]
    dtype = out.dtype
    if m == 0 or n == 0:
        return out
    if k == 0:
        out[...] = 0
        return out
    if _strides(a) is None:
        a = np.ascontiguousarray(a)
    sa0, sa1 = _strides(a)
    if _strides(b) is None:
        b = np.ascontiguousarray(b)
    sb0, sb1 = _strides(b)
    cs = _strides(out)
    c = out if cs is not None and cs[1] == 1 and out.flags.writeable else np.empty((m, n), dtype)
    ldc = _strides(c)[0]
    nr = 2 * _gk.WIDTH[dtype]
    mrs = _gk.MR_T if sa0 == 1 and sa1 > 1 else _gk.MR
    main, rem = m - m % mrs, m % mrs
    fn = macro(dtype, mrs)[0] if main else macro(dtype, rem)[0]
    rem_fn = macro(dtype, rem)[1] if rem and main else None
    if not main:
        main, rem = m, 0
    full = n // nr
    direct = sb1 == 1 and m <= _gk.SMALL_M and k * n * (128 // nr) <= _gk.DIRECT_B_BYTES
    tail = np.empty((m, nr), dtype) if n > full * nr else None  # C of the last, partial panel
    item = a.itemsize
    pa, pb = a.ctypes.data, b.ctypes.data
    pc, pt = c.ctypes.data, (tail.ctypes.data if tail is not None else 0)
    bp = np.empty(((min(_gk.NC, n) + nr - 1) // nr) * min(k, _gk.KC) * nr, dtype)
    for jc in range(0, n, _gk.NC):
        nc = min(_gk.NC, n - jc)
        whole = nc // nr
        part = nc - whole * nr
        for p0 in range(0, k, _gk.KC):
            kc = min(_gk.KC, k - p0)
            first = 1 if p0 == 0 else 0
            blk = b[p0:p0 + kc, jc:jc + nc]
            panels = bp[:((whole if not direct else 0) + (1 if part else 0)) * kc * nr].reshape(-1, kc, nr)
            if direct:
                bw, pstep, ldb = pb + (p0 * sb0 + jc * sb1) * item, nr, sb0
            else:
                np.copyto(panels[:whole], blk[:, :whole * nr].reshape(kc, whole, nr).transpose(1, 0, 2))
                bw, pstep, ldb = bp.ctypes.data, kc * nr, nr
            aw = pa + p0 * sa1 * item
            if whole:
                fn(main, whole, kc, aw, sa0, sa1, bw, pstep, ldb, pc + jc * item, ldc, first, rem_fn, rem)
            if part:
                last = panels[-1]
                last[:, :part] = blk[:, whole * nr:]
                last[:, part:] = 0
                fn(main, 1, kc, aw, sa0, sa1, last.ctypes.data, kc * nr, nr, pt, nr, first, rem_fn, rem)
        if part:
            c[:, jc + whole * nr:jc + nc] = tail[:, :part]
    if c is not out:
        out[...] = c
    return out
