"""Queue kernels: FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2, PriorityQueueV2 and the
ops that enqueue into, dequeue from, close and inspect them.

TF docs, "Training" (Korean edition), "Coordinator and QueueRunner"; seed
TF's API reference, ``tf.compat.v1.train.batch``: "The returned operation
is a dequeue operation and will throw tf.errors.OutOfRangeError if the input
queue is exhausted."

A queue is a session resource: the queue op looks it up in ``ctx.resources``
(keyed by ``container`` and ``shared_name``, or by the op's own name when
``shared_name`` is empty -- TF's "private to the kernel" queue, named
``_<id>_<op name>``) and outputs it as the resource handle the other ops take.
Values never live in the graph.

Blocking follows TF's QueueBase: enqueue and close attempts are served in
arrival order, and so are dequeue attempts; an attempt waits on the queue's
``threading.Condition`` (never on a lock other runs need) until it can make
progress:

* enqueue waits while the queue holds ``capacity`` elements; ``EnqueueMany``
  adds its rows as room appears, so a batch larger than the queue works;
* dequeue waits for ``n`` elements (a RandomShuffleQueue keeps
  ``min_after_dequeue`` back until it is closed); once the queue is closed and
  too few remain it fails with ``OutOfRangeError "FIFOQueue '_0_fifo_queue'
  is closed and has insufficient elements (requested 1, current size 0)"``,
  except ``DequeueUpTo``, which returns what is left;
* ``QueueCloseV2`` waits behind pending enqueues (they are preserved); with
  ``cancel_pending_enqueues`` it closes at once and cancels them;
* closing the Session cancels every waiting attempt (``CancelledError``);
* a wait is bounded by the run's deadline (:mod:`ref.ops.blocking`: a worker's
  RunGraph deadline): past it the attempt fails with DeadlineExceededError
  saying what the queue holds and what the attempt waited for.

``timeout_ms`` is accepted and, as in TensorFlow's kernels, not used.
"""
from __future__ import annotations

import collections
import heapq
import itertools
import threading

import numpy as np

from ref.types import dtypes, errors
from ref.ops import blocking
from ref.ops.registry import REQUIRED, fixed_rule, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape
from ref.ops.philox import SingleSample

_RESOURCE_LOCK = threading.Lock()
_QUEUE_IDS = itertools.count()  # TF's process-wide counter for private resource names


def _shape_str(shape) -> str:
    """TF's DebugString of a (partial) shape: ``[2,3]``, ``[?,2]``, ``<unknown>``."""
    if isinstance(shape, TensorShape):
        if shape.ndims is None:
            return "<unknown>"
        shape = ["?" if d is None else d for d in shape.as_list()]
    return "[" + ",".join(str(d) for d in shape) + "]"


def _empty_like(arrays):
    """The empty string of the kind the strings in ``arrays`` are (bytes or str)."""
    for a in arrays:
        if a.size:
            return type(a.flat[0])()
    return b""


class _Turn:
    """One pending enqueue, close or dequeue attempt."""

    __slots__ = ("cancelled", "elements", "done")

    def __init__(self, elements=None):
        self.cancelled = False
        self.elements = elements  # an enqueue's elements (None for a close or dequeue attempt)
        self.done = 0  # how many of them are in the queue


class FIFOQueue:
    """A first-in first-out queue of tuples of arrays (TF's FIFOQueue resource)."""

    kind = "FIFOQueue"
    op_type = "FIFOQueueV2"

    def __init__(self, name, component_types, shapes, capacity):
        self.name = name
        self.component_types = [dtypes.as_dtype(t) for t in component_types]
        self.shapes = [TensorShape(s) for s in (shapes or ())]
        if self.shapes and len(self.shapes) != len(self.component_types):
            raise invalid_argument(f"shapes must be empty or have one shape per component: got "
                                   f"{len(self.shapes)} shapes for {len(self.component_types)} components")
        self.capacity = capacity
        self._cv = threading.Condition()
        self._items = collections.deque()
        self._closed = False
        self._torn_down = False
        self._enqueuers = collections.deque()
        self._dequeuers = collections.deque()

    # -- what the ops see -------------------------------------------------------
    def size(self) -> int:
        with self._cv:
            return len(self._items)

    def is_closed(self) -> bool:
        with self._cv:
            return self._closed

    def _full(self) -> bool:
        return 0 <= self.capacity <= len(self._items)

    def enqueue(self, components):
        """Adds one element (a tuple of one array per component)."""
        values = self._check_tuple(components)
        for i, v in enumerate(values):
            self._check_element_shape(i, v.shape)
        self._enqueue_elements([tuple(values)])

    def enqueue_many(self, components):
        """Adds the rows of ``components`` (sliced along dimension 0) as elements."""
        values = self._check_tuple(components)
        for i, v in enumerate(values):
            if v.ndim == 0:
                raise invalid_argument(f"Input to EnqueueMany must be at least a vector: component {i} "
                                       f"has shape {_shape_str(v.shape)}")
        batch = values[0].shape[0]
        self._check_batch(values, batch)
        self._enqueue_elements([tuple(np.array(v[j], dtype=v.dtype) for v in values) for j in range(batch)])

    def _check_tuple(self, components):
        if len(components) != len(self.component_types):
            raise invalid_argument(f"Wrong number of components in tuple. Expected "
                                   f"{len(self.component_types)}, got {len(components)}")
        values = []
        for i, (c, t) in enumerate(zip(components, self.component_types)):
            v = np.array(c, dtype=object if t == dtypes.string else None, copy=True)
            got = dtypes.string if v.dtype == object else dtypes.as_dtype(v.dtype)
            if got != t:
                raise invalid_argument(f"Type mismatch in tuple component {i}. Expected {t.name}, got {got.name}")
            values.append(v)
        return values

    def _check_element_shape(self, i, shape):
        if self.shapes and tuple(self.shapes[i].as_list()) != tuple(shape):
            raise invalid_argument(f"Shape mismatch in tuple component {i}. Expected "
                                   f"{_shape_str(self.shapes[i])}, got {_shape_str(shape)}")

    def _check_batch(self, values, batch):
        if self.shapes:
            for i, v in enumerate(values):
                expected = TensorShape([batch]).concatenate(self.shapes[i])
                if tuple(expected.as_list()) != v.shape:
                    raise invalid_argument(f"Shape mismatch in tuple component {i}. Expected "
                                           f"{_shape_str(expected)}, got {_shape_str(v.shape)}")
        else:
            for i, v in enumerate(values[1:], 1):
                if v.shape[0] != batch:
                    raise invalid_argument(f"All input tensors must have the same size in the 0th dimension. "
                                           f"Component {i} has {v.shape[0]}, and should have {batch}")

    # -- enqueue and close attempts, in arrival order ---------------------------------
    def _enqueue_elements(self, elements):
        with self._cv:
            turn = self._join(self._enqueuers, elements)
            try:
                while True:
                    if turn.done == len(elements):
                        return  # a dequeue moved the last rows in (``_flush``)
                    if turn.cancelled:
                        raise errors.CancelledError(None, None, "Enqueue operation was cancelled")
                    if self._enqueuers[0] is turn:
                        if self._closed:
                            raise errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")
                        self._advance(turn)
                        self._cv.notify_all()
                        if turn.done == len(elements):
                            return
                    blocking.wait(self._cv, "Enqueue", lambda: f"{self._state()}: room for "
                                  f"{len(elements) - turn.done} more element(s)")
            finally:
                self._leave(self._enqueuers, turn)

    def _advance(self, turn):
        while turn.done < len(turn.elements) and not self._full():
            self._put(turn.elements[turn.done])
            turn.done += 1

    def _flush(self):
        """After a dequeue, moves the waiting enqueues' rows into the room it made, under the same
        lock, as TF's QueueBase runs the pending attempts (FlushUnlocked): a full queue that a
        blocked enqueue is waiting on is full again when the dequeue returns."""
        while self._enqueuers and not self._closed and not self._full():
            turn = self._enqueuers[0]
            if turn.elements is None or turn.cancelled:
                return
            self._advance(turn)
            if turn.done < len(turn.elements):
                return
            self._enqueuers.popleft()  # complete: its thread returns when it wakes

    def close_queue(self, cancel_pending_enqueues=False):
        """QueueCloseV2: later enqueues fail; dequeues drain what is left."""
        with self._cv:
            if cancel_pending_enqueues:
                self._closed = True
                for t in self._enqueuers:
                    t.cancelled = True
                self._cv.notify_all()
                return
            turn = self._join(self._enqueuers)
            try:
                while True:
                    if turn.cancelled:
                        raise errors.CancelledError(None, None, "Enqueue operation was cancelled")
                    if self._enqueuers[0] is turn:
                        if self._closed:
                            raise errors.CancelledError(None, None, f"Queue '{self.name}' is already closed.")
                        self._closed = True
                        return
                    blocking.wait(self._cv, "QueueClose", lambda: f"{self._state()}: pending enqueues to finish")
            finally:
                self._leave(self._enqueuers, turn)

    # -- dequeue attempts, in arrival order -------------------------------------------
    def dequeue(self):
        """One element: a list with one array per component."""
        return list(self._dequeue(1, allow_small_batch=False)[0])

    def dequeue_many(self, n, allow_small_batch=False):
        """``n`` elements stacked along a new dimension 0 (fewer, but at least one,
        once the queue is closed, with ``allow_small_batch``)."""
        if not self.shapes:
            raise invalid_argument(f"{self.kind}'s DequeueMany and DequeueUpTo require the components to "
                                   f"have specified shapes.")
        if n < 0:
            raise invalid_argument(f"DequeueMany requested {n} < 0 elements")
        return self._batch(self._dequeue(n, allow_small_batch))

    def _batch(self, elements):
        out = []
        for i, t in enumerate(self.component_types):
            np_dtype = object if t == dtypes.string else t.np
            if elements:
                out.append(np.stack([e[i] for e in elements]).astype(np_dtype, copy=False))
            else:
                out.append(np.zeros([0] + [d or 0 for d in self.shapes[i].as_list()], dtype=np_dtype))
        return out

    def _dequeue(self, n, allow_small_batch):
        with self._cv:
            turn = self._join(self._dequeuers)
            got = []
            try:
                while True:
                    if turn.cancelled:
                        self._restore(got)
                        raise errors.CancelledError(None, None, "Dequeue operation was cancelled")
                    if self._dequeuers[0] is turn:
                        need = n - len(got)
                        if self._closed and len(self._items) < need:
                            size = len(self._items)
                            self._restore(got)
                            got = []
                            if allow_small_batch and self._items:
                                return self._take(len(self._items))
                            if not (allow_small_batch and self._enqueuers):
                                raise errors.OutOfRangeError(
                                    None, None, f"{self.kind} '{self.name}' is closed and has insufficient "
                                                f"elements (requested {need}, current size {size})")
                        else:
                            while len(got) < n and self._available():
                                got.extend(self._take(min(n - len(got), self._available())))
                                self._flush()
                            self._cv.notify_all()
                            if len(got) == n:
                                return got
                    try:
                        blocking.wait(self._cv, "Dequeue", lambda: f"{self._state()}: {n - len(got)} more "
                                      f"element(s) of {n} requested")
                    except errors.OpError:
                        self._restore(got)
                        raise
            finally:
                self._leave(self._dequeuers, turn)

    # -- storage (RandomShuffleQueue overrides) -------------------------------------
    def _put(self, element):
        self._items.append(element)

    def _available(self) -> int:
        return len(self._items)

    def _take(self, k):
        return [self._items.popleft() for _ in range(k)]

    def _restore(self, elements):
        self._items.extendleft(reversed(elements))

    # -- bookkeeping ------------------------------------------------------------------
    def _join(self, line, elements=None):
        turn = _Turn(elements)
        turn.cancelled = self._torn_down
        line.append(turn)
        return turn

    def _leave(self, line, turn):
        if turn in line:  # ``_flush`` removes a completed enqueue itself
            line.remove(turn)
        self._cv.notify_all()

    def close(self):
        """Session teardown (``Session.close()``): cancels every waiting attempt."""
        with self._cv:
            self._torn_down = True
            for t in itertools.chain(self._enqueuers, self._dequeuers):
                t.cancelled = True
            self._cv.notify_all()

    def matches(self, op_type, component_types, shapes, capacity, **extra):
        """TF's checks when a queue op finds an existing shared queue."""
        where = f"Shared queue '{self.name}'"
        if op_type != self.op_type:
            raise invalid_argument(f"{where} has type '{self.op_type}' that does not match type of Node: {op_type}")
        if capacity != self.capacity:
            raise invalid_argument(f"{where} has capacity {self.capacity} but requested capacity was {capacity}")
        types = [dtypes.as_dtype(t) for t in component_types]
        if types != self.component_types:
            raise invalid_argument(f"{where} has component types {', '.join(t.name for t in self.component_types)}"
                                   f" but requested component types were {', '.join(t.name for t in types)}")
        requested = [TensorShape(s) for s in (shapes or ())]
        if [s.as_list() for s in requested] != [s.as_list() for s in self.shapes]:
            raise invalid_argument(f"{where} has component shapes {[_shape_str(s) for s in self.shapes]} but "
                                   f"requested component shapes were {[_shape_str(s) for s in requested]}")

    def _state(self) -> str:
        return (f"{self.kind} '{self.name}' holds {len(self._items)} element(s)"
                + (f" (capacity {self.capacity})" if self.capacity >= 0 else "") + (", closed" if self._closed else ""))

    def __repr__(self):
        return f"<{self.kind} '{self.name}' size={len(self._items)} closed={self._closed}>"


class RandomShuffleQueue(FIFOQueue):
    """Dequeues elements in a random order, keeping ``min_after_dequeue`` of them
    back (while open) so that what comes out is mixed."""

    kind = "RandomShuffleQueue"
    op_type = "RandomShuffleQueueV2"

    def __init__(self, name, component_types, shapes, capacity, min_after_dequeue, seed, seed2):
        super().__init__(name, component_types, shapes, capacity)
        self.min_after_dequeue = min_after_dequeue
        self.seeds = (seed, seed2)
        self._items = []
        self._word = SingleSample(seed, seed2)  # TF's generator: the same dequeue order for the same seeds

    def _available(self) -> int:
        if self._closed:
            return len(self._items)
        return max(0, len(self._items) - self.min_after_dequeue)

    def _take(self, k):
        out = []
        for _ in range(k):
            j = self._word() % len(self._items)
            self._items[j], self._items[-1] = self._items[-1], self._items[j]
            out.append(self._items.pop())
        return out

    def _restore(self, elements):
        self._items.extend(elements)

    def matches(self, op_type, component_types, shapes, capacity, min_after_dequeue=0, seed=0, seed2=0, **extra):
        if op_type != self.op_type or capacity != self.capacity:
            super().matches(op_type, component_types, shapes, capacity)
        if min_after_dequeue != self.min_after_dequeue:
            raise invalid_argument(f"Shared queue '{self.name}' has min_after_dequeue {self.min_after_dequeue} "
                                   f"but requested min_after_dequeue was {min_after_dequeue}.")
        if (seed or seed2) and (seed, seed2) != self.seeds:  # TF: a request with no seeds takes the queue's
            raise invalid_argument(f"Shared queue '{self.name}' has random seeds ({self.seeds[0]}, {self.seeds[1]}) "
                                   f"but requested seeds are ({seed}, {seed2}).")
        super().matches(op_type, component_types, shapes, capacity)


class PaddingFIFOQueue(FIFOQueue):
    """A FIFOQueue whose shapes may have unknown dimensions; ``DequeueMany`` pads
    each component on the right to the largest shape in the batch, with 0 (or
    the empty string)."""

    kind = "PaddingFIFOQueue"
    op_type = "PaddingFIFOQueueV2"

    def _check_element_shape(self, i, shape):
        if not self.shapes[i].is_compatible_with(TensorShape(list(shape))):
            raise invalid_argument(f"Shape mismatch in tuple component {i}. Expected "
                                   f"{_shape_str(self.shapes[i])}, got {_shape_str(shape)}")

    def _check_batch(self, values, batch):
        for i, v in enumerate(values):
            if v.shape[0] != batch:
                raise invalid_argument(f"All input tensors must have the same size in the 0th dimension. "
                                       f"Component {i} has {v.shape[0]}, and should have {batch}")
        for i, v in enumerate(values):  # TF: [batch] + the component's partial shape
            expected = TensorShape([batch]).concatenate(self.shapes[i])
            if not expected.is_compatible_with(TensorShape(list(v.shape))):
                raise invalid_argument(f"Shape mismatch in tuple component {i}. Expected "
                                       f"{_shape_str(expected)}, got {_shape_str(v.shape)}")
            self._check_element_shape(i, v.shape[1:])

    def _batch(self, elements):
        out = []
        for i, t in enumerate(self.component_types):
            np_dtype = object if t == dtypes.string else t.np
            dims = [d or 0 for d in self.shapes[i].as_list()]
            for e in elements:
                dims = [max(a, b) for a, b in zip(dims, e[i].shape)]
            fill = _empty_like([e[i] for e in elements]) if t == dtypes.string else 0
            batch = np.full([len(elements)] + dims, fill, dtype=np_dtype)
            for j, e in enumerate(elements):
                batch[(j,) + tuple(slice(0, d) for d in e[i].shape)] = e[i]
            out.append(batch)
        return out


class PriorityQueue(FIFOQueue):
    """Dequeues the element with the smallest priority first: component 0 is a
    scalar int64 priority, before the ``component_types`` the op names (TF's
    PriorityQueue; equal priorities leave in the order they came)."""

    kind = "PriorityQueue"
    op_type = "PriorityQueueV2"

    def __init__(self, name, component_types, shapes, capacity):
        super().__init__(name, [dtypes.int64] + list(component_types),
                         [TensorShape([])] + [TensorShape(s) for s in shapes] if shapes else [], capacity)
        self._items = []
        self._order = itertools.count()

    def _check_element_shape(self, i, shape):
        super()._check_element_shape(i, shape)  # TF validates the tuple's shapes first
        if i == 0 and tuple(shape) != ():
            raise invalid_argument(f"Expected the priority element to be a scalar, but received shape: "
                                   f"{_shape_str(shape)}")

    def _put(self, element):
        heapq.heappush(self._items, (int(element[0]), next(self._order), element))

    def _available(self) -> int:
        return len(self._items)

    def _take(self, k):
        return [heapq.heappop(self._items)[2] for _ in range(k)]

    def _restore(self, elements):
        for e in elements:
            self._put(e)

    def matches(self, op_type, component_types, shapes, capacity, **extra):
        super().matches(op_type, [dtypes.int64] + list(component_types),
                        [TensorShape([])] + [TensorShape(x) for x in shapes] if shapes else [], capacity)


# ---------------------------------------------------------------------------
# Queue ops: look the queue up (or create it) in the session's resources
# ---------------------------------------------------------------------------

def _lookup_or_create(ctx, op_type, container, shared_name, make, **signature):
    if shared_name.startswith("_"):
        raise invalid_argument(f"shared_name cannot start with '_':{shared_name}")
    op_name = getattr(ctx, "op_name", None)
    if op_name is None:  # a raw-op call: a fresh private queue
        return make(f"_{next(_QUEUE_IDS)}_{op_type}")
    key = ("queue", container, shared_name or op_name)
    with _RESOURCE_LOCK:
        queue = ctx.resources.get(key)
        if queue is None:
            name = shared_name or f"_{next(_QUEUE_IDS)}_{op_name}"
            queue = ctx.resources[key] = make(name)
        elif shared_name:
            queue.matches(op_type, **signature)
    return queue


_HANDLE = fixed_rule((dtypes.resource, TensorShape([])))
_QUEUE_ATTRS = {"component_types": REQUIRED, "shapes": [], "capacity": -1, "container": "", "shared_name": ""}


@register_op("FIFOQueueV2", outputs=("handle",), attrs=dict(_QUEUE_ATTRS), shape=_HANDLE, stateful=True,
             ctx=True)
def fifo_queue_v2(component_types, shapes=(), capacity=-1, container="", shared_name="", ctx=None):
    """The handle of a first-in first-out queue (``capacity`` -1: unbounded)."""
    return _lookup_or_create(ctx, "FIFOQueueV2", container, shared_name,
                             lambda name: FIFOQueue(name, component_types, shapes, capacity),
                             component_types=component_types, shapes=shapes, capacity=capacity)


@register_op("PaddingFIFOQueueV2", outputs=("handle",), attrs=dict(_QUEUE_ATTRS), shape=_HANDLE, stateful=True,
             ctx=True)
def padding_fifo_queue_v2(component_types, shapes=(), capacity=-1, container="", shared_name="", ctx=None):
    """The handle of a FIFO queue whose shapes may hold unknown (padded) dimensions."""
    shapes = [TensorShape(s) for s in shapes]
    if len(shapes) != len(component_types) or any(s.ndims is None for s in shapes):
        raise invalid_argument("PaddingFIFOQueue requires one shape of known rank per component")
    return _lookup_or_create(ctx, "PaddingFIFOQueueV2", container, shared_name,
                             lambda name: PaddingFIFOQueue(name, component_types, shapes, capacity),
                             component_types=component_types, shapes=shapes, capacity=capacity)


@register_op("RandomShuffleQueueV2", outputs=("handle",),
             attrs={**_QUEUE_ATTRS, "min_after_dequeue": 0, "seed": 0, "seed2": 0}, shape=_HANDLE,
             stateful=True, ctx=True)
def random_shuffle_queue_v2(component_types, shapes=(), capacity=-1, min_after_dequeue=0, seed=0, seed2=0,
                            container="", shared_name="", ctx=None):
    """The handle of a queue that dequeues in random order, keeping
    ``min_after_dequeue`` elements back until it is closed."""
    return _lookup_or_create(
        ctx, "RandomShuffleQueueV2", container, shared_name,
        lambda name: RandomShuffleQueue(name, component_types, shapes, capacity, min_after_dequeue, seed, seed2),
        component_types=component_types, shapes=shapes, capacity=capacity, min_after_dequeue=min_after_dequeue,
        seed=seed, seed2=seed2)


@register_op("PriorityQueueV2", outputs=("handle",), attrs={**_QUEUE_ATTRS, "component_types": [],
                                                          "shapes": REQUIRED},
             shape=_HANDLE, stateful=True, ctx=True)
def priority_queue_v2(component_types=(), shapes=(), capacity=-1, container="", shared_name="", ctx=None):
    """The handle of a queue that dequeues the smallest int64 priority (its
    component 0, before ``component_types``) first."""
    return _lookup_or_create(ctx, "PriorityQueueV2", container, shared_name,
                             lambda name: PriorityQueue(name, component_types, shapes, capacity),
                             component_types=component_types, shapes=shapes, capacity=capacity)


def _queue(handle) -> FIFOQueue:
    q = handle.item() if isinstance(handle, np.ndarray) and handle.dtype == object else handle
    if not isinstance(q, FIFOQueue):
        raise invalid_argument(f"Expected a queue handle, got {type(q).__name__}")
    return q


def _components_rule(ins, attrs):
    return [(t, unknown_shape()) for t in attrs["component_types"]]


@register_op("QueueEnqueueV2", inputs=("handle", "components"), outputs=(), list_inputs={"components": None},
             attrs={"Tcomponents": None, "timeout_ms": -1}, shape=fixed_rule(), stateful=True)
def queue_enqueue_v2(handle, components, Tcomponents=None, timeout_ms=-1):
    """Adds one element; blocks while the queue is full."""
    _queue(handle).enqueue(components)
    return ()


@register_op("QueueEnqueueManyV2", inputs=("handle", "components"), outputs=(), list_inputs={"components": None},
             attrs={"Tcomponents": None, "timeout_ms": -1}, shape=fixed_rule(), stateful=True)
def queue_enqueue_many_v2(handle, components, Tcomponents=None, timeout_ms=-1):
    """Adds ``components[i][j]`` for every row ``j`` as an element, in order."""
    _queue(handle).enqueue_many(components)
    return ()


@register_op("QueueDequeueV2", inputs=("handle",), outputs=("*components",),
             attrs={"component_types": REQUIRED, "timeout_ms": -1}, shape=_components_rule, stateful=True)
def queue_dequeue_v2(handle, component_types, timeout_ms=-1):
    """Removes one element; blocks until there is one (OutOfRangeError once closed and empty)."""
    return _queue(handle).dequeue()


@register_op("QueueDequeueManyV2", inputs=("handle", "n"), outputs=("*components",),
             attrs={"component_types": REQUIRED, "timeout_ms": -1}, shape=_components_rule, stateful=True)
def queue_dequeue_many_v2(handle, n, component_types, timeout_ms=-1):
    """Removes ``n`` elements, concatenated along a new dimension 0."""
    return _queue(handle).dequeue_many(int(n))


@register_op("QueueDequeueUpToV2", inputs=("handle", "n"), outputs=("*components",),
             attrs={"component_types": REQUIRED, "timeout_ms": -1}, shape=_components_rule, stateful=True)
def queue_dequeue_up_to_v2(handle, n, component_types, timeout_ms=-1):
    """As QueueDequeueManyV2, but once the queue is closed returns the (fewer) elements left."""
    return _queue(handle).dequeue_many(int(n), allow_small_batch=True)


@register_op("QueueCloseV2", inputs=("handle",), outputs=(), attrs={"cancel_pending_enqueues": False},
             shape=fixed_rule(), stateful=True)
def queue_close_v2(handle, cancel_pending_enqueues=False):
    """Closes the queue: later enqueues fail; pending ones finish first unless
    ``cancel_pending_enqueues``."""
    _queue(handle).close_queue(cancel_pending_enqueues)
    return ()


@register_op("QueueSizeV2", inputs=("handle",), outputs=("size",),
             shape=fixed_rule((dtypes.int32, TensorShape([]))), stateful=True)
def queue_size_v2(handle):
    """The number of elements in the queue."""
    return np.int32(_queue(handle).size())


@register_op("QueueIsClosedV2", inputs=("handle",), outputs=("is_closed",),
             shape=fixed_rule((dtypes.bool, TensorShape([]))), stateful=True)
def queue_is_closed_v2(handle):
    """True once the queue has been closed."""
    return np.bool_(_queue(handle).is_closed())
