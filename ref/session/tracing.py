"""``RunOptions(trace_level=...)``: what one ``Session.run`` records in
``RunMetadata.step_stats``, as TensorFlow's step-stats collector does.

One ``DeviceStepStats`` for the device the interpreter runs on, one
``NodeExecStats`` per op run, in execution order:

* ``node_name``; ``all_start_micros`` (wall clock, microseconds since the
  epoch) and, relative to it, ``op_start_rel_micros`` (0),
  ``op_end_rel_micros`` and ``all_end_rel_micros`` (the kernel's duration),
  and the same in nanoseconds;
* ``timeline_label``: ``"name = Type(input, input, ...)"``, the form
  :class:`ref.session.timeline.Timeline` (and TF's) parses, inputs named as
  in a NodeDef (``op`` for output 0, ``op:i`` otherwise);
* ``thread_id``: the running thread;
* ``output`` (``FULL_TRACE`` only): each output's dtype, shape and size in a
  ``TensorDescription`` (allocator ``"cpu"``).

Ops inside ``while_loop`` and ``cond`` bodies run as part of their While/If op
and are not listed separately.
"""
from __future__ import annotations

import threading

import numpy as np

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = range(4)


def _input_name(t) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def timeline_label(op) -> str:
    return f"{op.name} = {op.type}({', '.join(_input_name(t) for t in op.inputs)})"


def fill_step_stats(run_metadata, trace, trace_level: int, device: str = DEVICE) -> None:
    """Adds the records of ``execute(..., trace=)`` to ``run_metadata.step_stats``
    (any message with a ``step_stats`` field: a distributed worker's RunGraphResponse),
    as the ops of ``device``."""
    dev = run_metadata.step_stats.dev_stats.add()
    dev.device = device
    tid = threading.get_ident() & 0xFFFFFFFF
    dev.thread_names[tid] = threading.current_thread().name
    for op, start, end, outputs in trace:
        ns = dev.node_stats.add()
        ns.node_name = op.name
        ns.all_start_micros = start // 1000
        ns.all_start_nanos = start
        ns.op_start_rel_micros = ns.op_start_rel_nanos = 0
        ns.op_end_rel_micros = ns.all_end_rel_micros = (end - start) // 1000
        ns.op_end_rel_nanos = ns.all_end_rel_nanos = end - start
        ns.scheduled_micros = start // 1000
        ns.scheduled_nanos = start
        ns.timeline_label = timeline_label(op)
        ns.thread_id = tid
        if trace_level >= FULL_TRACE:
            for slot, (t, value) in enumerate(zip(op.outputs, outputs)):
                out = ns.output.add()
                out.slot = slot
                desc = out.tensor_description
                desc.dtype = t.dtype.base_dtype.as_datatype_enum
                arr = value if isinstance(value, np.ndarray) else None
                shape = arr.shape if arr is not None else ([] if t.shape.ndims is None else
                                                          [d if d is not None else -1 for d in t.shape.as_list()])
                for d in shape:
                    desc.shape.dim.add().size = int(d)
                if arr is not None:
                    desc.allocation_description.requested_bytes = int(arr.nbytes)
                    desc.allocation_description.allocated_bytes = int(arr.nbytes)
                    desc.allocation_description.allocator_name = "cpu"


def fill_cost_graph(run_metadata, trace, device: str = DEVICE) -> None:
    """``run_metadata.cost_graph`` from the records of ``execute(..., trace=)``
    (``GraphOptions.build_cost_model``): one node per op run, numbered in run
    order, with its measured time (microseconds), its inputs from the ops run
    before it, its outputs' sizes, dtypes and shapes, and whether anything run
    reads it (``is_final`` when nothing does)."""
    ids = {op: i for i, (op, _, _, _) in enumerate(trace)}
    read = {t.op for op, _, _, _ in trace for t in op.inputs}
    for op, start, end, outputs in trace:
        node = run_metadata.cost_graph.node.add()
        node.name, node.device, node.id = op.name, device, ids[op]
        node.compute_time = node.compute_cost = (end - start) // 1000
        node.is_final = op not in read
        for t in op.inputs:
            if t.op in ids:
                info = node.input_info.add()
                info.preceding_node, info.preceding_port = ids[t.op], t.value_index
        for c in op.control_inputs:
            if c in ids:
                node.control_input.append(ids[c])
        for t, value in zip(op.outputs, outputs):
            out = node.output_info.add()
            out.dtype = t.dtype.base_dtype.as_datatype_enum
            arr = value if isinstance(value, np.ndarray) else None
            out.size = int(arr.nbytes) if arr is not None else 0
            out.alias_input_port = -1
            for d in (arr.shape if arr is not None else ()):
                out.shape.dim.add().size = int(d)
