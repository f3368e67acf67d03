"""A local Session's devices and where each op of a plan runs (TF's placer for
one process: ``placer.cc``, ``colocation_graph.cc``), and the plan's GPU form.

Devices: ``/job:localhost/replica:0/task:0/device:CPU:0`` and, when numba.cuda
sees a GPU (or its simulator is on: ``NUMBA_ENABLE_CUDASIM=1``), ``.../device:GPU:0``
(``ConfigProto.device_count["GPU"]`` hides GPUs). Nothing imports numba unless a
graph asks for a GPU or the devices are listed.

Placement rules (TF's):

* an op's ``device`` (``tf.device('/gpu:0')``, ``'/device:GPU:0'``) names the device
  type it must run on; an op with a reference or resource input runs where its
  variable runs (the variable's group), as do ops colocated by a ``_class``
  ``loc:@x`` attr;
* a group asked onto the GPU runs there when every member has a GPU kernel for its
  dtype (``ref.ops.gpu.supports``; int32 shape arithmetic has host-memory GPU
  kernels, as in TF);
* otherwise, with ``allow_soft_placement`` the group runs on the CPU; without it
  an InvalidArgumentError names the op and the device: no GPU at all gives TF's
  "was explicitly assigned to /device:GPU:0 but available devices are [ ... ]",
  a GPU without the kernel "Could not satisfy explicit device specification";
* ops without a device run on the CPU (TF prefers GPU:0 for them; here a model
  asks for the GPU with ``tf.device``, so that nothing runs under the simulator
  unasked);
* ``log_device_placement`` prints ``name: (Type): device`` for each op to stdout, as TF does.

The GPU form of a plan (:func:`place_plan`): GPU steps call ``ref.ops.gpu``'s
kernels on device arrays; CPU steps get host arrays; ``ref.ops.gpu.to_device``
and ``to_host`` are the only copies (counted in ``ref.ops.gpu.COPIES``): feeds a
GPU op reads, values crossing to a CPU-placed op, fetches. Constants a GPU op
reads are copied to the device once, when the plan is made.
"""
from __future__ import annotations

import sys
import zlib

from ref.types import dtypes, errors
from ref.types.device_spec import DeviceSpec
from ref.ops import gpu as gpu_ops
from ref.ops import gpu_nn, gpu_random, gpu_sparse, gpu_training  # noqa: F401  (register their GPU kernels)
from ref.session.interpreter.steps import KERNEL, PLACEHOLDER, POSITIONAL, STATEFUL

__all__ = ["CPU0", "GPU0", "gpu_count", "local_devices", "place", "place_plan"]

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
GPU0 = "/job:localhost/replica:0/task:0/device:GPU:0"
_GPUS = []


def gpu_count() -> int:
    """The GPUs numba.cuda sees (1 under its simulator; 0 without numba.cuda); asked once."""
    if not _GPUS:
        try:
            from numba import config
            from numba import cuda

            n = 1 if config.ENABLE_CUDASIM else (len(cuda.gpus) if cuda.is_available() else 0)
        except Exception:
            n = 0
        _GPUS.append(n)
    return _GPUS[0]


def _visible_gpus(config) -> int:
    n = gpu_count()
    counts = getattr(config, "device_count", None)
    if counts is not None and "GPU" in counts:
        n = min(n, int(counts["GPU"]))
    return n


def local_devices(config=None) -> list:
    """``(name, device_type, memory_limit_bytes, incarnation)`` of this process's devices."""
    counts = getattr(config, "device_count", None)
    n_cpu = max(1, int(counts["CPU"])) if counts is not None and "CPU" in counts else 1  # ConfigProto.device_count
    # incarnations: non-zero ids, one per device (TF draws them at random; here fixed by the name)
    out = [(CPU0[:-1] + str(i), "CPU", 268435456, zlib.crc32((CPU0[:-1] + str(i)).encode()) | 1)
           for i in range(n_cpu)]
    for i in range(_visible_gpus(config)):
        mem = 0
        try:
            from numba import cuda

            if not gpu_ops.simulating():
                mem = int(cuda.current_context().get_memory_info()[1])
        except Exception:
            pass
        out.append((GPU0[:-1] + str(i), "GPU", mem, i + 1))
    return out


def _requested(op):
    try:
        spec = DeviceSpec.from_string(op.device or "")
    except ValueError as e:
        raise errors.InvalidArgumentError(None, op, f"{{{{node {op.name}}}}}: malformed device "
                                          f"'{op.device}': {e}") from None
    return (spec.device_type or "").upper() or None


def _wants_gpu(ops):
    return any("GPU" in (op.device or "").upper() for op in ops)


def _base(dt):
    return dt.base_dtype.name if hasattr(dt, "base_dtype") else dtypes.as_dtype(dt).name


def _gpu_support(op):
    """"device", "host" or None: how ``op`` runs on the GPU; ops with nothing to run
    (a variable's reference, Identity, NoOp, Const, Placeholder) go anywhere."""
    if op._opdef.creates_ref or op._type in ("Identity", "NoOp", "Const", "Placeholder", "VarHandleOp"):
        return "any"
    out = _base(op.outputs[0].dtype) if op.outputs else "float32"
    return gpu_ops.supports(op._type, out, tuple(_base(t.dtype) for t in op.inputs))


def _group_edges(op, index):
    """The ops ``op`` must run with: its variables (ref and resource inputs) and ``loc:@`` targets."""
    opdef = op._opdef
    named = op.named_inputs() if opdef.refs else {}
    for name in opdef.refs:
        srcs = named.get(name)
        for t in srcs if isinstance(srcs, list) else [srcs]:
            if t is not None:
                yield t.op
    for t in op.inputs:
        if t.dtype == dtypes.resource:
            yield t.op
    for cls in op._attrs.get("_class") or ():
        if isinstance(cls, bytes):
            cls = cls.decode()
        if cls.startswith("loc:@") and cls[5:] in index:
            yield index[cls[5:]]


def place(ops, config=None) -> dict:
    """``{op name: full device name}`` for ``ops`` (see the module docstring)."""
    ops = list(ops)
    index = {op.name: op for op in ops}
    parent = {op.name: op.name for op in ops}

    def root(n):
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for op in ops:
        for other in _group_edges(op, index):
            if other.name in parent:
                parent[root(op.name)] = root(other.name)
    members = {}
    for op in ops:
        members.setdefault(root(op.name), []).append(op)
    soft = bool(getattr(config, "allow_soft_placement", False))
    has_gpu = _visible_gpus(config) > 0 if _wants_gpu(ops) else False
    devices = [d[0] for d in local_devices(config)] if _wants_gpu(ops) else [CPU0]
    out = {}
    # TF's placer meets the ops with inputs first; generators (no inputs) take their consumers' device.
    order = sorted(members.values(), key=lambda g: all(not m.inputs for m in g))
    for group in order:
        asked = [m for m in group if _requested(m) == "GPU"]
        device = CPU0
        if asked:
            first = next((m for m in asked if m.inputs), asked[0])
            if not has_gpu:
                if not soft:
                    raise errors.InvalidArgumentError(
                        None, first, f"Cannot assign a device for operation {first.name}: {{{{node {first.name}}}}} "
                        f"was explicitly assigned to {first.device} but available devices are "
                        f"[ {', '.join(devices)} ]. Make sure the device specification refers to a valid device.")
            else:
                lacking = [m for m in group if _gpu_support(m) is None]
                if not lacking:
                    device = GPU0
                elif not soft:
                    bad = lacking[0]
                    raise errors.InvalidArgumentError(
                        None, bad, f"Cannot assign a device for operation {bad.name}: Could not satisfy explicit "
                        f"device specification '{first.device}' because no supported kernel for GPU devices is "
                        f"available.\n\t [[{{{{node {bad.name}}}}}]]")
        for m in group:
            out[m.name] = device
    if getattr(config, "log_device_placement", False):
        for op in ops:
            print(f"{op.name}: ({op._type}): {out[op.name]}", file=sys.stdout)
    return out


def _host_args(kernel):
    """``kernel`` called with host values (a CPU step, or a host-memory GPU kernel)."""
    to_host = gpu_ops.to_host

    def run(*args, **kwargs):
        return kernel(*[to_host(a) for a in args], **{k: to_host(v) for k, v in kwargs.items()})

    run.__wrapped__ = kernel
    return run


def _gpu_args(step, kernel, plan, fed):
    """The GPU kernel ``kernel`` called with the step's keyword arguments: inputs on the
    device (host inputs on the host, host 0-d values as they are where it takes them).
    A fed value is copied to the device once per run, whichever GPU steps read it
    (``fed``: {slot: (run, host value, device copy)}, the plan's)."""
    names = step.opdef.inputs
    host, scalars = kernel.host, kernel.scalars
    to_device, to_host = gpu_ops.to_device, gpu_ops.to_host
    slot_of = {name: step.reads[i][0] for name, i, end in step.layout if end is None}

    def convert(name, v):
        if name in host:
            return to_host(v)
        if v is None or gpu_ops.is_device_array(v):
            return v
        if name in scalars and getattr(v, "ndim", 0) == 0:
            return v
        s = slot_of.get(name)
        if s in fed:
            run, seen, dev = fed[s]
            if run == plan.runs and seen is v:
                return dev
            dev = to_device(v)
            fed[s] = (plan.runs, v, dev)
            return dev
        return to_device(v)

    def run(**kwargs):
        args = [convert(n, kwargs.pop(n)) for n in names]
        kwargs.pop("out", None)
        return kernel.fn(*args, **kwargs)

    return run


def place_plan(plan, config=None) -> dict | None:
    """Places ``plan``'s ops (:func:`place`) and, when any step runs on the GPU, turns
    the plan into its GPU form (module docstring). Returns the placement, or None when
    nothing asks for a GPU and no placement is logged."""
    if not _wants_gpu(plan.ops) and not getattr(config, "log_device_placement", False):
        return None
    placement = place(plan.ops, config)
    if not any(placement[s.op.name] == GPU0 for s in plan.steps):
        return placement
    device_slots, host_slots = set(), set()
    fed = {s: (-1, None, None) for _, s in plan.feed_slots}
    for step in plan.steps:
        if step.kind == PLACEHOLDER:
            continue
        op = step.op
        support = _gpu_support(op) if placement[op.name] == GPU0 else None
        if support == "device":
            k = gpu_ops.kernel(op._type)
            step.kernel = _gpu_args(step, k, plan, fed)
            if step.kind == POSITIONAL:
                step.kind = KERNEL
            step.donate = False
            for name, i, end in step.layout:
                for s, _ in step.reads[i:(end or i + 1)]:
                    (host_slots if name in k.host or name in k.scalars else device_slots).add(s)
        else:
            step.kernel = _host_args(step.kernel)
            step.donate = False
            if step.kind == STATEFUL:  # a CPU variable update: its stored values are host arrays
                continue
            host_slots.update(s for s, _ in step.reads)
    for s in device_slots - host_slots - set(plan.fetch_slots):
        v = plan.template[s]
        if v is not None and hasattr(v, "ndim") and getattr(v, "dtype", None) is not None and v.dtype != object:
            plan.template[s] = gpu_ops.to_device(v)  # a constant: on the device once
    plan.compilable = False
    plan.fetch_to_host = gpu_ops.to_host
    return placement
