"""TensorFlow's placer, as pure functions: which device of the cluster runs each op.

The master places the ops of one step (the pruned graph) over the devices its tasks
reported in GetStatus, with TensorFlow's rules (``placer.cc``, ``colocation_graph.cc``):

* an op's ``device`` string (what ``tf.device`` and ``replica_device_setter`` wrote) is
  a constraint: "/job:ps/task:0" admits every device of that task; the op gets the first
  device that matches, the master's own device ("/job:worker/replica:0/task:1/device:CPU:0")
  when it matches;
* an op that takes a resource handle or a reference input (``ReadVariableOp``,
  ``AssignVariableOp``, ``ResourceApply*``, ``Assign``, ``ApplyGradientDescent``, ...)
  runs where the resource lives: it joins its variable's colocation group, and the
  variable's device overrides the op's own (TF: "Ignoring device specification ... because
  the input edge ... is a reference connection");
* ops with a ``_class`` attr ``loc:@x`` are colocated with ``x``; their devices must merge
  (different jobs, replicas or tasks: InvalidArgumentError naming both nodes);
* an op without a device goes to the master's task, ``/device:CPU:0``;
* heuristics A and B of TF's placer: an unplaced op without data inputs and with one
  output ("generator", e.g. a Const) goes where its consumers run when they all run on one
  device; an unplaced ``Shape``/``Size``/``Rank`` or single-edge ``Identity`` goes with its
  input;
* a device no task of the cluster has is an InvalidArgumentError naming the node, the device
  and the available devices, unless ``allow_soft_placement`` (then the master's device).

Devices are full names ("/job:ps/replica:0/task:0/device:CPU:0"). Not done (TF does):
per-kernel device-type support (every ref kernel runs on CPU), persistence of stateful
placements across steps, functions whose bodies span devices.
"""
from __future__ import annotations

from ref.types import dtypes, errors
from ref.types.device_spec import DeviceSpec

__all__ = ["place", "full_device", "task_of", "matching", "EXEMPT_FROM_RESOURCE_COLOCATION"]

# TF's REGISTER_INPUT_COLOCATION_EXEMPTION ops (those that forward handles, not use them).
EXEMPT_FROM_RESOURCE_COLOCATION = frozenset(("IdentityN", "PartitionedCall", "StatefulPartitionedCall"))
_METADATA = frozenset(("Shape", "ShapeN", "Size", "Rank"))


def full_device(spec) -> str:
    """"/job:ps/task:0" -> "/job:ps/replica:0/task:0/device:CPU:0" (unset replica/type/index: 0, CPU, 0)."""
    s = spec if isinstance(spec, DeviceSpec) else DeviceSpec.from_string(spec)
    return (f"/job:{s.job}/replica:{s.replica or 0}/task:{s.task or 0}"
            f"/device:{s.device_type or 'CPU'}:{s.device_index or 0}")


def task_of(device) -> str:
    """The task part of a full device name: "/job:ps/replica:0/task:0"."""
    s = DeviceSpec.from_string(device)
    return f"/job:{s.job}/replica:{s.replica or 0}/task:{s.task or 0}"


def _compatible(a: DeviceSpec, b: DeviceSpec) -> bool:
    return all(x is None or y is None or x == y for x, y in
               ((a.job, b.job), (a.replica, b.replica), (a.task, b.task),
                (a.device_type, b.device_type), (a.device_index, b.device_index)))


def matching(spec, devices):
    """The devices (full names, in the given order) that ``spec`` admits."""
    s = spec if isinstance(spec, DeviceSpec) else DeviceSpec.from_string(spec)
    return [d for d in devices if _compatible(s, DeviceSpec.from_string(d))]


def _merge(a: DeviceSpec, b: DeviceSpec, soft, what):
    """TF's MergeDevNames: job/replica/task must agree; type/index conflicts clear both
    fields under soft placement, else are an error."""
    out = a.copy()
    for field in ("job", "replica", "task"):
        x, y = getattr(a, field), getattr(b, field)
        if x is not None and y is not None and x != y:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot colocate nodes {what}: Cannot merge devices with incompatible "
                f"{field}s: '{a.to_string()}' and '{b.to_string()}'")
        if y is not None:
            setattr(out, field, y)
    if b.device_type is not None:
        if a.device_type is not None and a.device_type != b.device_type or (
                a.device_index is not None and b.device_index is not None and a.device_index != b.device_index):
            if not soft:
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot colocate nodes {what}: Cannot merge devices with incompatible "
                    f"types: '{a.to_string()}' and '{b.to_string()}'")
            out.device_type = out.device_index = None
            return out
        out.device_type = b.device_type
        out.device_index = b.device_index if b.device_index is not None else a.device_index
    return out


class _Groups:
    """Union-find over op names; each root keeps the merged requested device."""

    def __init__(self):
        self.parent, self.spec, self.members = {}, {}, {}

    def add(self, name, spec):
        if name not in self.parent:
            self.parent[name], self.spec[name], self.members[name] = name, spec, [name]

    def root(self, name):
        while self.parent[name] != name:
            self.parent[name] = self.parent[self.parent[name]]
            name = self.parent[name]
        return name

    def union(self, a, b, spec):
        ra, rb = self.root(a), self.root(b)
        if ra != rb:
            self.parent[rb] = ra
            self.members[ra] += self.members.pop(rb)
        self.spec[ra] = spec


def _resource_inputs(op):
    """The producers of ``op``'s resource inputs and ref-parameter inputs."""
    if op.type in EXEMPT_FROM_RESOURCE_COLOCATION:
        return []
    opdef = op._opdef
    named = op.named_inputs() if opdef.refs else {}
    ref_tensors = {id(t) for name in opdef.refs for t in
                   (named.get(name) if isinstance(named.get(name), list) else [named.get(name)]) if t is not None}
    return [t.op for t in op.inputs if t.dtype == dtypes.resource or (id(t) in ref_tensors and t.dtype.is_ref_dtype)]


def place(ops, devices, default_device, allow_soft_placement=False, fetches=(), graph=None):
    """``{op name: full device name}`` for ``ops`` (the step's ops, in a topological order).

    ``devices``: the cluster's full device names (GetStatus); ``default_device``: the
    master's own device (where unplaced ops go); ``fetches``: tensors the client takes back
    (they count as consumers on the master's device, as TF's fetch ``_Send`` nodes do);
    ``graph``: where to look up ``loc:@x`` targets that are not in ``ops`` (default: the
    ops' graph).
    """
    ops = list(ops)
    graph = graph if graph is not None else (ops[0].graph if ops else None)
    groups = _Groups()
    in_step = {op.name for op in ops}

    def requested(op):
        try:
            return DeviceSpec.from_string(op.device)
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, f"{{{{node {op.name}}}}}: malformed device "
                                              f"'{op.device}': {e}") from None

    for op in ops:
        groups.add(op.name, requested(op))
    # resource and reference edges first (TF's order): the variable's device wins
    for op in ops:
        for src in _resource_inputs(op):
            if src.name not in in_step:
                continue
            rs, rd = groups.root(src.name), groups.root(op.name)
            a, b = groups.spec[rs], groups.spec[rd]
            groups.union(rs, rd, _merge(a, b, allow_soft_placement, "") if _compatible(a, b) else a)
    # then colocation groups (_class: loc:@x)
    for op in ops:
        for cls in op._attrs.get("_class") or ():
            if not cls.startswith("loc:@"):
                continue
            target = cls[5:]
            if target not in in_step:
                try:
                    other = graph.get_operation_by_name(target) if graph is not None else None
                except (KeyError, ValueError):
                    other = None
                if other is None:
                    continue
                groups.add(target, requested(other))
            ra, rb = groups.root(target), groups.root(op.name)
            what = f"{{{{colocation_node {target}}}}} and {{{{colocation_node {op.name}}}}}"
            groups.union(ra, rb, _merge(groups.spec[ra], groups.spec[rb], allow_soft_placement, what))

    assigned = {}  # group root -> device

    def possible(op):
        r = groups.root(op.name)
        if r in assigned:
            return [assigned[r]]
        spec = groups.spec[r]
        found = matching(spec, devices)
        if not found:
            if not allow_soft_placement:
                raise errors.InvalidArgumentError(
                    None, None, f"Cannot assign a device for operation {op.name}: {{{{node {op.name}}}}} was "
                    f"explicitly assigned to {op.device or spec.to_string()} but available devices are "
                    f"[ {', '.join(devices)} ]. Make sure the device specification refers to a valid device "
                    f"(a task of the cluster that the session's device_filters admit).")
            found = list(devices)
        return [default_device] + [d for d in found if d != default_device] if default_device in found else found

    consumers = {}
    for op in ops:
        for t in op.inputs:
            consumers.setdefault(t.op.name, []).append(op)
        for c in op.control_inputs:
            consumers.setdefault(c.name, []).append(op)
    fetched = {t.op.name for t in fetches}
    placement = {}

    def assign(op, device):
        placement[op.name] = device
        assigned.setdefault(groups.root(op.name), device)

    second = []
    for op in ops:
        if not op.inputs and len(op.outputs) == 1 and not op.outputs[0].dtype.is_ref_dtype:
            second.append(op)  # heuristic A: a generator waits for its consumers
            continue
        cands = possible(op)
        device = cands[0]
        if op.type in _METADATA or _match_identity(op, consumers, fetched):
            src = op.inputs[0].op.name if op.inputs else None
            if placement.get(src) in cands:  # heuristic B: with its input
                device = placement[src]
        assign(op, device)
    for op in second:
        cands = possible(op)
        device = cands[0]
        users = {placement.get(u.name) for u in consumers.get(op.name, ())}
        if op.name in fetched:
            users.add(default_device)
        if len(users) == 1 and next(iter(users)) in cands:
            device = next(iter(users))
        assign(op, device)
    return placement


def _match_identity(op, consumers, fetched):
    """TF's MatchIdentityOperation: an unplaced Identity with one in-edge and one out-edge
    whose two neighbours ask for the same device."""
    if op.type != "Identity" or op.device or len(op.inputs) + len(op.control_inputs) != 1:
        return False
    users = consumers.get(op.name, ())
    if len(users) + (op.name in fetched) != 1 or not users:
        return False
    return op.inputs[0].op.device == users[0].device if op.inputs else False
