"""Staged partitioning: one step's placed ops as per-task GraphDefs the master runs in order.

Phase 1 of the distributed runtime is *master-mediated*: no tensor goes from worker to
worker. Every op of the step gets a stage,

    stage(n) = max over inputs i of n (data and control) of stage(i) + [task(i) != task(n)]

(0 without inputs), so an op follows everything it depends on, and crosses a stage
boundary exactly where its input comes from another task. A pure op (a Const, a shape
computation) then moves as late as its consumers allow (to the stage of its earliest
consumer on its task, or just before one on another task), so it is not shipped between
the stages of its own task; stateful ops (variable
reads, queues, random numbers) keep their earliest stage, the order a local Session
gives them. The ops of one (task, stage)
form a partition. The master runs the stages in increasing order (the partitions of one
stage concurrently) with ``RunGraph``, and carries every tensor that crosses partitions
itself, keyed by TF's rendezvous keys:

* a value entering a partition (a fed tensor, or one an earlier partition produced) comes
  from a client-terminated ``_Recv`` named ``_recv_<op>_<index>``;
* a value leaving it (for a later partition, or fetched) goes to a client-terminated
  ``_Send`` named ``_send_<op>_<index>``.

Both carry TF's attrs (``tensor_type``/``T``, ``tensor_name`` = the tensor's name,
``send_device`` = ``recv_device`` = the task's CPU:0, ``send_device_incarnation``,
``client_terminated``), and the key is TF's
``"{send_device};{incarnation as 16 hex digits};{recv_device};{tensor_name};0:0"``, so a
TensorFlow worker runs these partitions too (DISTRIBUTED.md experiment D). A handle
(resource or reference) never travels: a later stage of the variable's task that uses it
gets its own copy of the input-less op that makes it (``VarHandleOp``, ``VariableV2``,
queue and accumulator ops), which finds the same resource by name. Control edges
between partitions are dropped: the stage order already keeps them. Other NodeDef fields
are the client's, unchanged (TF's attrs survive), with the placed device filled in.
"""
from __future__ import annotations

import collections

from ref.types import dtypes
from ref.session.interpreter import is_pure
from ref.distributed.placement import task_of
from ref.protos import graph_pb2, node_def_pb2

# ops whose handle is TF's Ref(string) and a plain string in ref: they are copied like refs
_STRING_HANDLE_OPS = frozenset({"ConditionalAccumulator", "SparseConditionalAccumulator"})

__all__ = ["stages", "partition", "partition_direct", "rendezvous_key", "Partition", "StepPlan"]


def tf_rendezvous_key(send_device, incarnation, recv_device, tensor_name, frame_id=0, iter_id=0):
    """TensorFlow's rendezvous key, the sender's incarnation as 16 lowercase hex digits."""
    return f"{send_device};{incarnation % (1 << 64):016x};{recv_device};{tensor_name};{frame_id}:{iter_id}"


def rendezvous_key(device, incarnation, tensor_name):
    """TF's key for a client-terminated tensor of ``device`` (frame and iteration 0:0)."""
    return tf_rendezvous_key(device, incarnation, device, tensor_name)


def signed64(x):
    """``x`` as the signed int64 TF stores an incarnation in (attrs, CreateWorkerSession)."""
    x %= 1 << 64
    return x - (1 << 64) if x >= 1 << 63 else x


def stages(ops, task, fed=()):
    """``{op name: stage}`` for ``ops`` (a topological order); ``task``: op name -> task
    name; tensors in ``fed`` (names "x:0") are not edges (the master holds them)."""
    fed = set(fed)
    out = {}
    for op in ops:
        s, mine = 0, task[op.name]
        for t in op.inputs:
            if t.name not in fed and t.op.name in out:
                s = max(s, out[t.op.name] + (task[t.op.name] != mine))
        for c in op.control_inputs:
            if c.name in out:
                s = max(s, out[c.name] + (task[c.name] != mine))
        out[op.name] = s
    # a pure op (no state, no randomness) runs as late as its consumers allow: a Const or a
    # shape computation is then not shipped between the stages of its own task
    users = {}
    for op in ops:
        for t in op.inputs:
            if t.name not in fed:
                users.setdefault(t.op.name, []).append(op)
        for c in op.control_inputs:
            users.setdefault(c.name, []).append(op)
    for op in reversed(ops):
        mine = users.get(op.name)
        if mine and is_pure(op._opdef):
            out[op.name] = max(out[op.name], min(out[u.name] - (task[u.name] != task[op.name]) for u in mine))
    return out


Partition = collections.namedtuple("Partition", "task stage device graph_def recvs sends")
Partition.__doc__ = """One (task, stage) subgraph. ``recvs``/``sends``: ``{rendezvous key: tensor
name}`` of its client-terminated ``_Recv``/``_Send`` nodes."""


class StepPlan(collections.namedtuple("StepPlan", "partitions levels fetches feeds")):
    """What the master does for one (feeds, fetches, targets) signature: ``levels`` lists,
    in order, the indices into ``partitions`` to run together; ``fetches`` are the tensor
    names to return (each one fed or sent by some partition); ``feeds`` the fed names."""


def _split(name):
    op, _, idx = name.rpartition(":")
    return (op, int(idx)) if idx.isdigit() and op else (name, 0)


def partition(ops, node_defs, placement, feeds=(), fetches=(), incarnations=None):
    """The StepPlan for a step.

    ``ops``: the step's ops (ref Operations, pruned, in a topological order);
    ``node_defs``: op name -> the client's NodeDef; ``placement``: op name -> full device;
    ``feeds``/``fetches``: tensor names ("x:0"); ``incarnations``: task -> incarnation
    (of its CPU:0, from GetStatus; default 0).
    """
    incarnations = incarnations or {}
    feeds = [f if ":" in f else f + ":0" for f in feeds]
    fetches = [f if ":" in f else f + ":0" for f in fetches]
    fed = set(feeds)
    task = {op.name: task_of(placement[op.name]) for op in ops}
    stage = stages(ops, task, fed)
    groups = collections.OrderedDict()
    for op in sorted(ops, key=lambda o: stage[o.name]):
        groups.setdefault((task[op.name], stage[op.name]), []).append(op)
    where = {op.name: (task[op.name], stage[op.name]) for op in ops}

    def copied(t, op):
        """A handle (resource or ref) from an input-less op of the same task (a variable)
        is not shipped between stages: the consumer's partition gets its own copy of the op."""
        handle = t.dtype == dtypes.resource or t.dtype.is_ref_dtype or t.op.type in _STRING_HANDLE_OPS
        return handle and not t.op.inputs and t.op.name in where and where[t.op.name][0] == where[op.name][0]

    # tensors leaving a partition: consumed by another partition, or fetched
    leaving = collections.defaultdict(dict)
    for op in ops:
        for t in op.inputs:
            if (t.name not in fed and t.op.name in where and where[t.op.name] != where[op.name]
                    and not copied(t, op)):
                leaving[where[t.op.name]][t.name] = t
    by_name = {t.name: t for op in ops for t in op.outputs}
    for f in fetches:
        if f not in fed and f in by_name:
            leaving[where[by_name[f].op.name]][f] = by_name[f]
    parts, levels = [], collections.defaultdict(list)
    for (tsk, stg), members in groups.items():
        device = tsk + "/device:CPU:0"
        inc = incarnations.get(tsk, 0)
        gd = graph_pb2.GraphDef()
        names = {op.name for op in members}
        recvs, sends, recv_node = {}, {}, {}

        def recv_for(tensor_name, dtype):
            if tensor_name not in recv_node:
                op_name, idx = _split(tensor_name)
                node = _client_node(gd, "_Recv", f"_recv_{op_name}_{idx}", device, inc, tensor_name, names)
                node.attr["tensor_type"].type = dtype.base_dtype.as_datatype_enum
                recv_node[tensor_name] = node.name
                recvs[rendezvous_key(device, inc, tensor_name)] = tensor_name
            return recv_node[tensor_name]

        for op in members:
            nd = _placed(node_defs[op.name], placement[op.name])
            for t in op.inputs:
                if t.name not in fed and where.get(t.op.name) != (tsk, stg) and copied(t, op):
                    if t.op.name not in names:
                        names.add(t.op.name)
                        gd.node.append(_placed(node_defs[t.op.name], placement[t.op.name]))
                    nd.input.append(t.op.name if t.value_index == 0 else t.name)
                elif t.name in fed or where.get(t.op.name) != (tsk, stg):
                    nd.input.append(recv_for(t.name, t.dtype))
                else:
                    nd.input.append(t.op.name if t.value_index == 0 else t.name)
            for c in op.control_inputs:
                if where.get(c.name) == (tsk, stg):
                    nd.input.append("^" + c.name)
            gd.node.append(nd)
        for tensor_name, t in leaving.get((tsk, stg), {}).items():
            op_name, idx = _split(tensor_name)
            node = _client_node(gd, "_Send", f"_send_{op_name}_{idx}", device, inc, tensor_name, names)
            node.input.append(op_name if idx == 0 else tensor_name)
            node.attr["T"].type = t.dtype.base_dtype.as_datatype_enum
            sends[rendezvous_key(device, inc, tensor_name)] = tensor_name
        levels[stg].append(len(parts))
        parts.append(Partition(tsk, stg, device, gd, recvs, sends))
    return StepPlan(parts, [levels[k] for k in sorted(levels)], fetches, feeds)


def _placed(node_def, device):
    """A copy of ``node_def`` on ``device`` without inputs (the caller adds them)."""
    nd = node_def_pb2.NodeDef()
    nd.CopyFrom(node_def)
    nd.device = device
    del nd.input[:]
    return nd


def _client_node(gd, op_type, name, device, incarnation, tensor_name, taken):
    base, k = name, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    node = gd.node.add(name=name, op=op_type, device=device)
    node.attr["tensor_name"].s = tensor_name.encode()
    node.attr["send_device"].s = device.encode()
    node.attr["recv_device"].s = device.encode()
    node.attr["send_device_incarnation"].i = signed64(incarnation)
    node.attr["client_terminated"].b = True
    return node


def partition_direct(ops, node_defs, placement, feeds=(), fetches=(), incarnations=None):
    """The StepPlan of a step whose tasks exchange tensors directly (phase 2): one
    partition per task, all run together (one level).

    Each data edge between tasks becomes a ``_Send`` on the source task and a ``_Recv``
    on the destination (``client_terminated`` false, ``send_device``/``recv_device`` the
    two tasks' CPUs, ``send_device_incarnation`` the sender's, ``tensor_name`` the
    tensor's name), so the destination pulls the value with ``RecvTensor``. A control
    edge between tasks is carried as TensorFlow's partitioner does: a scalar ``Const``
    that runs after the source is sent, and its ``_Recv`` becomes a control input of
    the destination. Feeds and fetches stay client-terminated (the master sends and
    takes them), keyed as in :func:`partition`.
    """
    incarnations = incarnations or {}
    feeds = [f if ":" in f else f + ":0" for f in feeds]
    fetches = [f if ":" in f else f + ":0" for f in fetches]
    fed = set(feeds)
    task = {op.name: task_of(placement[op.name]) for op in ops}
    groups = collections.OrderedDict()
    for op in ops:
        groups.setdefault(task[op.name], []).append(op)
    gds = {t: graph_pb2.GraphDef() for t in groups}
    names = {t: {op.name for op in members} for t, members in groups.items()}
    recvs = {t: {} for t in groups}
    sends = {t: {} for t in groups}
    made = {}  # (tensor name or "^op", destination task) -> the _Recv node's name there

    def device(t):
        return t + "/device:CPU:0"

    def cross(src_task, dst_task, tensor_name, src_input, dtype_enum):
        """A _Send on ``src_task`` of ``src_input`` and its _Recv on ``dst_task``; the _Recv's name."""
        key = (tensor_name, dst_task)
        if key not in made:
            op_name, idx = _split(tensor_name.lstrip("^"))
            inc = incarnations.get(src_task, 0)
            edge = tensor_name if not tensor_name.startswith("^") else f"{op_name}/_control_to_{dst_task}"
            send = _node(gds[src_task], "_Send", f"_send_{op_name}_{idx}_to", src_task, dst_task, inc, edge,
                         names[src_task], device)
            send.input.append(src_input)
            send.attr["T"].type = dtype_enum
            recv = _node(gds[dst_task], "_Recv", f"_recv_{op_name}_{idx}_from", src_task, dst_task, inc, edge,
                         names[dst_task], device)
            recv.attr["tensor_type"].type = dtype_enum
            made[key] = recv.name
        return made[key]

    def control_const(src_task, op_name):
        name = f"{op_name}/_control_const"
        if name not in names[src_task]:
            names[src_task].add(name)
            c = gds[src_task].node.add(name=name, op="Const", device=device(src_task))
            c.input.append("^" + op_name)
            c.attr["dtype"].type = dtypes.float32.as_datatype_enum
            c.attr["value"].tensor.dtype = dtypes.float32.as_datatype_enum
            c.attr["value"].tensor.float_val.append(0.0)
        return name

    client_recv = {}
    for tsk, members in groups.items():
        gd, inc = gds[tsk], incarnations.get(tsk, 0)
        for op in members:
            nd = _placed(node_defs[op.name], placement[op.name])
            for t in op.inputs:
                if t.name in fed:
                    if (t.name, tsk) not in client_recv:
                        op_name, idx = _split(t.name)
                        node = _client_node(gd, "_Recv", f"_recv_{op_name}_{idx}", device(tsk), inc, t.name,
                                            names[tsk])
                        node.attr["tensor_type"].type = t.dtype.base_dtype.as_datatype_enum
                        client_recv[(t.name, tsk)] = node.name
                        recvs[tsk][rendezvous_key(device(tsk), inc, t.name)] = t.name
                    nd.input.append(client_recv[(t.name, tsk)])
                elif task[t.op.name] != tsk:
                    nd.input.append(cross(task[t.op.name], tsk, t.name,
                                          t.op.name if t.value_index == 0 else t.name,
                                          t.dtype.base_dtype.as_datatype_enum))
                else:
                    nd.input.append(t.op.name if t.value_index == 0 else t.name)
            for c in op.control_inputs:
                if c.name not in task:
                    continue
                if task[c.name] == tsk:
                    nd.input.append("^" + c.name)
                else:
                    src = task[c.name]
                    nd.input.append("^" + cross(src, tsk, "^" + c.name, control_const(src, c.name),
                                                dtypes.float32.as_datatype_enum))
            gd.node.append(nd)
    by_name = {t.name: t for op in ops for t in op.outputs}
    for f in fetches:
        if f in fed or f not in by_name:
            continue
        t = by_name[f]
        tsk = task[t.op.name]
        op_name, idx = _split(f)
        node = _client_node(gds[tsk], "_Send", f"_send_{op_name}_{idx}", device(tsk), incarnations.get(tsk, 0), f,
                            names[tsk])
        node.input.append(op_name if idx == 0 else f)
        node.attr["T"].type = t.dtype.base_dtype.as_datatype_enum
        sends[tsk][rendezvous_key(device(tsk), incarnations.get(tsk, 0), f)] = f
    parts = [Partition(t, 0, device(t), gds[t], recvs[t], sends[t]) for t in groups]
    return StepPlan(parts, [list(range(len(parts)))], fetches, feeds)


def _node(gd, op_type, name, src_task, dst_task, incarnation, tensor_name, taken, device):
    """A _Send/_Recv between two tasks (not client-terminated)."""
    base, k = name, 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    taken.add(name)
    node = gd.node.add(name=name, op=op_type, device=device(src_task if op_type == "_Send" else dst_task))
    node.attr["tensor_name"].s = tensor_name.encode()
    node.attr["send_device"].s = device(src_task).encode()
    node.attr["recv_device"].s = device(dst_task).encode()
    node.attr["send_device_incarnation"].i = signed64(incarnation)
    node.attr["client_terminated"].b = False
    return node
