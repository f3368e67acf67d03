"""TF1 queues: ``tf.FIFOQueue``, ``tf.RandomShuffleQueue``, ``tf.PaddingFIFOQueue``
and their base ``tf.QueueBase``; TF's ``data_flow_ops.Barrier`` (:mod:`ref.ops.barrier`).

A queue object holds the handle tensor of its queue op (``queue_ref``) and
builds the ops that use it, named as TF names them (``fifo_queue_enqueue``,
``fifo_queue_EnqueueMany``, ``fifo_queue_Dequeue``, ``fifo_queue_DequeueMany``,
``fifo_queue_DequeueUpTo``, ``fifo_queue_Close``, ``fifo_queue_Size``,
``fifo_queue_Is_Closed``). The queue itself lives in the Session
(:mod:`ref.ops.data_flow`); TF's API reference,
``tf.compat.v1.train.batch``: dequeue ops "throw tf.errors.OutOfRangeError if
the input queue is exhausted".
"""
from __future__ import annotations

import collections.abc
import hashlib

from ref.types import dtypes as _dtypes
from ref.framework.graph import colocate_with, control_dependencies, device, init_scope, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.random_seed import get_seed
from ref.framework.tensor_util import constant_value
from ref.types.shapes import Dimension, TensorShape, as_shape, unknown_shape

__all__ = ["QueueBase", "FIFOQueue", "RandomShuffleQueue", "PaddingFIFOQueue", "PriorityQueue", "Barrier"]


class QueueBase:
    """Base class for queue implementations: a queue holds tuples of tensors
    (one per component, of ``dtypes`` and ``shapes``), optionally named."""

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [TensorShape(s) for s in shapes]
        else:
            self._shapes = [unknown_shape() for _ in self._dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        """A queue whose ops act on ``queues[index]`` (``index`` a scalar int32 tensor)."""
        if not queues or not isinstance(queues, list) or not all(isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        dtypes = queues[0].dtypes
        if not all(dtypes == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = []
        for per_queue in zip(*[q.shapes for q in queues]):
            common = per_queue[0]
            for s in per_queue[1:]:
                common = common.most_specific_compatible_shape(s)
            shapes.append(common)
        refs = apply_op("Pack", values=[q.queue_ref for q in queues], axis=0, name="stack")
        selected = apply_op("GatherV2", params=refs, indices=index, axis=0)
        return QueueBase(dtypes=dtypes, shapes=shapes, names=names, queue_ref=selected)

    # -- properties ---------------------------------------------------------------------
    queue_ref = property(lambda self: self._queue_ref, doc="The underlying queue reference.")
    name = property(lambda self: self._queue_ref.op.name, doc="The name of the underlying queue.")
    dtypes = property(lambda self: self._dtypes, doc="The list of dtypes for each component of a queue element.")
    shapes = property(lambda self: self._shapes, doc="The list of shapes for each component of a queue element.")
    names = property(lambda self: self._names, doc="The list of names for each component of a queue element.")

    # -- building ops ----------------------------------------------------------------------
    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError(f"Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                                 f"{sorted(vals.keys())},Queue: {sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [convert_to_tensor(v, dtype=d, name=f"component_{i}")
                for i, (v, d) in enumerate(zip(vals, self._dtypes))]

    @staticmethod
    def _scope_vals(vals):
        if isinstance(vals, (list, tuple)):
            return vals
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def enqueue(self, vals, name=None):
        """An op adding one element (a tensor, list/tuple, or dict when the queue
        has names); it blocks while the queue is full."""
        with name_scope(name, f"{self._name}_enqueue", [self._queue_ref, *self._scope_vals(vals)]) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for v, shape in zip(vals, self._shapes):
                v.shape.assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueV2", handle=self._queue_ref, components=vals,
                            Tcomponents=[v.dtype.base_dtype for v in vals], name=scope)

    def enqueue_many(self, vals, name=None):
        """An op adding the slices of ``vals`` along dimension 0 as elements."""
        with name_scope(name, f"{self._name}_EnqueueMany", [self._queue_ref, *self._scope_vals(vals)]) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = Dimension(vals[0].shape.with_rank_at_least(1)[0])
            for v, shape in zip(vals, self._shapes):
                batch_dim = batch_dim.merge_with(v.shape.with_rank_at_least(1)[0])
                v.shape[1:].assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueManyV2", handle=self._queue_ref, components=vals,
                            Tcomponents=[v.dtype.base_dtype for v in vals], name=scope)

    def dequeue(self, name=None):
        """One element; blocks until there is one (OutOfRangeError once closed and empty)."""
        out = apply_op("QueueDequeueV2", handle=self._queue_ref, component_types=list(self._dtypes),
                       name=name or f"{self._name}_Dequeue")
        for t, shape in zip(out, self._shapes):
            t.set_shape(shape)
        return self._dequeue_return_value(out)

    def dequeue_many(self, n, name=None):
        """``n`` elements concatenated along a new first dimension of size ``n``."""
        out = apply_op("QueueDequeueManyV2", handle=self._queue_ref, n=n, component_types=list(self._dtypes),
                       name=name or f"{self._name}_DequeueMany")
        n_value = constant_value(out[0].op.inputs[1])
        batch = TensorShape([None if n_value is None else int(n_value)])
        for t, shape in zip(out, self._shapes):
            t.set_shape(batch.concatenate(shape))
        return self._dequeue_return_value(out)

    def dequeue_up_to(self, n, name=None):
        """Like ``dequeue_many``, but once the queue is closed returns the fewer
        than ``n`` elements left (the first dimension is unknown statically)."""
        out = apply_op("QueueDequeueUpToV2", handle=self._queue_ref, n=n, component_types=list(self._dtypes),
                       name=name or f"{self._name}_DequeueUpTo")
        for t, shape in zip(out, self._shapes):
            t.set_shape(TensorShape([None]).concatenate(shape))
        return self._dequeue_return_value(out)

    def close(self, cancel_pending_enqueues=False, name=None):
        """An op closing the queue; pending enqueues finish first unless
        ``cancel_pending_enqueues``."""
        return apply_op("QueueCloseV2", handle=self._queue_ref, cancel_pending_enqueues=cancel_pending_enqueues,
                        name=name or f"{self._name}_Close")

    def is_closed(self, name=None):
        """A bool tensor: True once the queue is closed."""
        return apply_op("QueueIsClosedV2", handle=self._queue_ref, name=name or f"{self._name}_Is_Closed")

    def size(self, name=None):
        """An int32 scalar: the number of elements in the queue."""
        return apply_op("QueueSizeV2", handle=self._queue_ref, name=name or f"{self._name}_Size")

    def _as_graph_element(self):
        return self._queue_ref


def _as_type_list(dtypes):
    if dtypes is None:
        raise ValueError("dtypes must be given")
    if not isinstance(dtypes, (list, tuple)):
        return [_dtypes.as_dtype(dtypes)]
    return [_dtypes.as_dtype(d) for d in dtypes]


def _as_shape_list(shapes, unknown_dim_allowed=False):
    if unknown_dim_allowed and (not isinstance(shapes, collections.abc.Sequence) or not shapes
                                or any(s is None or isinstance(s, int) for s in shapes)):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError(f"Shapes must be a TensorShape or a list or tuple of TensorShapes, got {type(shapes)} "
                        "instead.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]  # one shape, given as a list of dimensions
    shapes = [as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.ndims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        with init_scope(), device("CPU"):  # TF places a FIFOQueue on the CPU
            ref = apply_op("FIFOQueueV2", component_types=dtypes, shapes=shapes or [], capacity=capacity,
                           shared_name=shared_name or "", name=name)
        super().__init__(dtypes, shapes, names, ref)


class GPUCompatibleFIFOQueue(QueueBase):
    """TF's FIFOQueue whose queue op takes the device in scope (a GPU's too) instead of the CPU;
    enqueues and dequeues one element at a time (``enqueue_many``/``dequeue_many`` raise
    NotImplementedError, as TF's)."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None, name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        with init_scope():
            ref = apply_op("FIFOQueueV2", component_types=dtypes, shapes=shapes or [], capacity=capacity,
                           shared_name=shared_name or "", name=name)
        super().__init__(dtypes, shapes, names, ref)

    def enqueue_many(self, vals, name=None):
        raise NotImplementedError("GPUCompatibleFIFOQueue does not support enqueue_many or dequeue_many, only "
                                  "enqueue and dequeue.")

    def dequeue_many(self, n, name=None):
        raise NotImplementedError("GPUCompatibleFIFOQueue does not support enqueue_many or dequeue_many, only "
                                  "enqueue and dequeue.")


class PaddingFIFOQueue(QueueBase):
    """A FIFOQueue whose component shapes may have unknown dimensions;
    ``dequeue_many`` pads them to the largest in the batch (0, or "" for strings)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None, name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError(f"Shapes must be provided for all components, but received {len(dtypes)} dtypes "
                             f"and {len(shapes)} shapes.")
        with control_dependencies(None):
            ref = apply_op("PaddingFIFOQueueV2", component_types=dtypes, shapes=shapes, capacity=capacity,
                           shared_name=shared_name or "", name=name)
        super().__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in a random order, keeping at least
    ``min_after_dequeue`` elements (until closed) to mix them."""

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None, shared_name=None,
                 name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # Graph seed without op seed, shared queue: seed2 from the graph seed
            # and the shared name only (TF's rule), so every session agrees.
            digest = hashlib.md5((str(seed1) + shared_name).encode("utf-8")).hexdigest()
            seed2 = int(digest[:8], 16) & 0x7FFFFFFF
        with control_dependencies(None):
            ref = apply_op("RandomShuffleQueueV2", component_types=dtypes, shapes=shapes or [], capacity=capacity,
                           min_after_dequeue=min_after_dequeue, seed=seed1, seed2=seed2,
                           shared_name=shared_name or "", name=name)
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """A queue that dequeues the element of smallest priority first: every
    element is ``(priority, *components)`` with ``priority`` a scalar int64."""

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None, name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes)
        if shapes is None:  # PriorityQueueV2's shapes attr has no default
            raise TypeError("Expected list for 'shapes' argument to 'priority_queue_v2' Op, not None.")
        with control_dependencies(None):
            ref = apply_op("PriorityQueueV2", component_types=types, shapes=shapes or [], capacity=capacity,
                           shared_name=shared_name or "", name=name)
        super().__init__([_dtypes.int64] + types, [TensorShape([])] + shapes if shapes else shapes, names, ref)


# What ``Barrier.take_many`` returns (the output structure of TF's generated ``barrier_take_many``).
BarrierTakeMany = collections.namedtuple("BarrierTakeMany", ["indices", "keys", "values"])


class Barrier:
    """A map from string keys to tuples of tensors that persists across runs
    (TF's ``data_flow_ops.Barrier``): ``insert_many`` sets one component of
    each key's tuple, ``take_many`` returns complete tuples in the order their
    keys first arrived (:mod:`ref.ops.barrier`)."""

    def __init__(self, types, shapes=None, shared_name=None, name="barrier"):
        self._types = _as_type_list(types)
        if shapes is not None:
            self._shapes = [TensorShape(s) for s in _as_shape_list(shapes)]
            for i, shape in enumerate(self._shapes):
                if shape.num_elements() == 0:
                    raise ValueError(f"Empty tensors are not supported, but received shape '{shape}' at index {i}")
        else:
            self._shapes = [unknown_shape() for _ in self._types]
        self._barrier_ref = apply_op("Barrier", component_types=self._types, shapes=self._shapes,
                                     shared_name=shared_name or "", name=name)
        self._name = self._barrier_ref.op.name.split("/")[-1]

    @property
    def barrier_ref(self):
        """The barrier's handle tensor."""
        return self._barrier_ref

    @property
    def name(self):
        """The name of the barrier op."""
        return self._barrier_ref.op.name

    def _apply(self, op_type, name, inputs=(), **attrs):
        """``apply_op`` colocated with the barrier op, as TF colocates an op with
        its ref input (the handle); the other inputs are converted first, outside it."""
        with name_scope(name) as scope:
            converted = {k: convert_to_tensor(v, dtype=d, name=k) for k, v, d in inputs}
            with colocate_with(self._barrier_ref.op):
                return apply_op(op_type, handle=self._barrier_ref, name=scope, **converted, **attrs)

    def insert_many(self, component_index, keys, values, name=None):
        """An op setting component ``component_index`` of ``keys[i]``'s tuple to ``values[i]``."""
        return self._apply("BarrierInsertMany", name or f"{self._name}_BarrierInsertMany",
                           (("keys", keys, _dtypes.string), ("values", values, None)),
                           component_index=component_index)

    def take_many(self, num_elements, allow_small_batch=False, timeout=None, name=None):
        """``(indices, keys, values)`` of ``num_elements`` complete tuples, the
        earliest-inserted first; blocks until there are that many (with
        ``allow_small_batch``, a closed barrier gives what it has)."""
        out = self._apply("BarrierTakeMany", name or f"{self._name}_BarrierTakeMany",
                          (("num_elements", num_elements, _dtypes.int32),), component_types=self._types,
                          allow_small_batch=allow_small_batch, timeout_ms=-1 if timeout is None else timeout)
        if allow_small_batch:
            batch = None
        else:
            n = constant_value(out[0].op.inputs[1])
            batch = None if n is None else int(n)
        out[0].set_shape(TensorShape([batch]))
        out[1].set_shape(TensorShape([batch]))
        for t, shape in zip(out[2:], self._shapes):
            t.set_shape(TensorShape([batch]).concatenate(shape))
        return BarrierTakeMany(out[0], out[1], list(out[2:]))

    def close(self, cancel_pending_enqueues=False, name=None):
        """An op closing the barrier: no new keys; with ``cancel_pending_enqueues``
        the incomplete tuples are dropped and no insert succeeds."""
        return self._apply("BarrierClose", name or f"{self._name}_BarrierClose",
                           cancel_pending_enqueues=cancel_pending_enqueues)

    def ready_size(self, name=None):
        """An int32 scalar: the number of complete tuples."""
        return self._apply("BarrierReadySize", name or f"{self._name}_BarrierReadySize")

    def incomplete_size(self, name=None):
        """An int32 scalar: the number of incomplete tuples."""
        return self._apply("BarrierIncompleteSize", name or f"{self._name}_BarrierIncompleteSize")
