"""Staging areas: TF's ``Stage``/``Unstage``/``StagePeek``/``StageSize``/``StageClear``
(``stage_op.cc``) and the ``MapStage`` family with its ``OrderedMap*`` twins
(``map_stage_op.cc``); the Python classes are :mod:`ref.graph_ops.staging_ops`.

The ops take no handle: each finds its buffer in the session's resources by
``(container, shared_name)`` (the op's own name when ``shared_name`` is empty),
created by whichever op of that name runs first.

* A ``Stage`` buffer is a FIFO of tuples. ``Stage`` blocks while the buffer is
  full -- ``capacity`` tuples (0: unbounded) or, with ``memory_limit`` bytes, while
  the new tuple's bytes plus those held would pass it; a tuple larger than the
  limit alone is TF's ResourceExhaustedError at once. ``Unstage`` blocks until a
  tuple is there and takes the oldest; ``StagePeek(i)`` blocks until there are
  more than ``i`` and copies the ``i``-th.
* A ``MapStage`` buffer maps int64 keys to tuples. A put naming every component
  (``indices`` covering all ``dtypes``) inserts a complete tuple (blocking on
  capacity / memory as above; a key already there is an error); a put of some
  components goes to the incomplete map, and the tuple moves to the map (then
  blocking on capacity) once its last component arrives. ``MapUnstage(key,
  indices)`` blocks until the key is complete and removes those components; the
  key leaves the map with its last component. ``MapUnstageNoKey`` does that for
  the first key: the smallest in an ordered map; in an unordered one TF leaves
  the order unspecified and its ``std::unordered_map`` gives the newest key
  first (a new key goes to the front of the list), so ref takes the newest.
  ``MapPeek`` copies without removing.

Waits are the run's (:mod:`ref.ops.blocking`): a session close cancels them,
``timeout_in_ms`` bounds them.
"""
from __future__ import annotations

import collections
import itertools
import threading

import numpy as np

from ref.types import dtypes, errors
from ref.ops import blocking
from ref.ops.registry import REQUIRED, fixed_rule, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_LOCK = threading.Lock()
_IDS = itertools.count()


def _nbytes(values) -> int:
    return int(sum(np.asarray(v).nbytes for v in values if v is not None))


class _Bounded:
    """Capacity and memory bookkeeping shared by both buffer kinds (TF's IsFull / WouldExceedMemoryLimit)."""

    def __init__(self, capacity, memory_limit):
        self.capacity, self.memory_limit = int(capacity), int(memory_limit)
        self.cv = threading.Condition()
        self.bytes = 0

    def _check_limit(self, nbytes):
        if self.memory_limit > 0 and nbytes > self.memory_limit:
            raise errors.ResourceExhaustedError(
                None, None, f"Attempted to insert tensors with combined size of '{nbytes}' bytes into Staging "
                            f"Area with a memory limit of '{self.memory_limit}'.")

    def _full(self, nbytes):
        return ((self.capacity > 0 and self._count() >= self.capacity)
                or (self.memory_limit > 0 and self.bytes + nbytes > self.memory_limit))

    def _wait(self, what, ready):
        while not ready():
            blocking.wait(self.cv, what, self._describe)

    def _describe(self):
        return f"{self._count()} staged (capacity {self.capacity}, memory limit {self.memory_limit})"


class StageBuffer(_Bounded):
    """The FIFO of one ``Stage`` staging area."""

    def __init__(self, capacity, memory_limit):
        super().__init__(capacity, memory_limit)
        self.buf = collections.deque()

    def _count(self):
        return len(self.buf)

    def put(self, values):
        nbytes = _nbytes(values)
        with self.cv:
            self._check_limit(nbytes)
            self._wait("Stage", lambda: not self._full(nbytes))
            self.buf.append(list(values))
            self.bytes += nbytes
            self.cv.notify_all()

    def get(self):
        with self.cv:
            self._wait("Unstage", lambda: len(self.buf) > 0)
            values = self.buf.popleft()
            self.bytes -= _nbytes(values)
            self.cv.notify_all()
            return values

    def peek(self, index):
        with self.cv:
            self._wait("StagePeek", lambda: index < len(self.buf))
            return [np.array(v, copy=True) for v in self.buf[index]]

    def size(self):
        with self.cv:
            return len(self.buf)

    def clear(self):
        with self.cv:
            self.buf.clear()
            self.bytes = 0
            self.cv.notify_all()


class MapBuffer(_Bounded):
    """The complete and incomplete maps of one ``MapStage`` staging area."""

    def __init__(self, ordered, n, capacity, memory_limit):
        super().__init__(capacity, memory_limit)
        self.ordered, self.n = ordered, n
        self.map, self.incomplete = {}, {}

    def _count(self):
        return len(self.map)

    def _check_indices(self, key, indices):
        for a, b in zip(indices, indices[1:]):
            if b <= a:
                raise invalid_argument("Indices are not strictly ordered")
        for i in indices:
            if not 0 <= i < self.n:
                raise invalid_argument(f"Index '{i}' for key '{key}' was out of bounds '{self.n}'.")

    def put(self, key, indices, values):
        self._check_indices(key, indices)
        with self.cv:
            if len(indices) != self.n:
                row = self.incomplete.setdefault(key, [None] * self.n)
                for i, v in zip(indices, values):
                    if row[i] is not None:
                        raise invalid_argument(f"The tensor for index '{i}' for key '{key}' was already "
                                               f"initialized '{self.n}'.")
                    row[i] = v
                if any(v is None for v in row):
                    return
                del self.incomplete[key]
                values = row
            nbytes = _nbytes(values)
            self._check_limit(nbytes)
            self._wait("MapStage", lambda: not self._full(nbytes))
            if key in self.map:
                raise invalid_argument(f"Key '{key}' already exists.")
            self.map[key] = list(values)
            self.bytes += nbytes
            self.cv.notify_all()

    def _first(self):
        return min(self.map) if self.ordered else next(reversed(self.map))

    def _take(self, key, indices, remove):
        row = self.map[key]
        self._check_indices(key, indices)
        for i in indices:
            if row[i] is None:
                raise invalid_argument(f"Tensor at index '{i}' for key '{key}' has already been removed.")
        out = [row[i] if remove else np.array(row[i], copy=True) for i in indices]
        if remove:
            for i in indices:
                self.bytes -= _nbytes([row[i]])
                row[i] = None
            if all(v is None for v in row):
                del self.map[key]
            self.cv.notify_all()
        return out

    def get(self, key, indices, remove, what):
        with self.cv:
            self._wait(what, lambda: key in self.map)
            return self._take(key, indices, remove)

    def pop_first(self, indices):
        with self.cv:
            self._wait("MapUnstageNoKey", lambda: len(self.map) > 0)
            key = self._first()
            return key, self._take(key, indices, True)

    def sizes(self):
        with self.cv:
            return len(self.map), len(self.incomplete)

    def clear(self):
        with self.cv:
            self.map.clear()
            self.incomplete.clear()
            self.bytes = 0
            self.cv.notify_all()


def _buffer(ctx, kind, container, shared_name, make):
    """The buffer the op's ``(container, shared_name)`` names, created on first use."""
    op_name = getattr(ctx, "op_name", None)
    if op_name is None:  # a raw-op call outside a session: a private buffer
        return make()
    key = (kind, container, shared_name or op_name)
    with _LOCK:
        buf = ctx.resources.get(key)
        if buf is None:
            buf = ctx.resources[key] = make()
    return buf


_ATTRS = {"capacity": 0, "memory_limit": 0, "dtypes": REQUIRED, "container": "", "shared_name": ""}


def _values_rule(ins, attrs):
    return [(dtypes.as_dtype(t), unknown_shape()) for t in attrs["dtypes"]]


def _stage_buffer(ctx, capacity, memory_limit, container, shared_name):
    return _buffer(ctx, "stage", container, shared_name, lambda: StageBuffer(capacity, memory_limit))


@register_op("Stage", inputs=("values",), outputs=(), list_inputs={"values": None}, type_lists={"dtypes": "values"},
             attrs=dict(_ATTRS, dtypes=None), shape=fixed_rule(), stateful=True, ctx=True)
def stage(values, capacity=0, memory_limit=0, dtypes=None, container="", shared_name="", ctx=None):
    """Appends the tuple ``values``; blocks while the area is full."""
    _stage_buffer(ctx, capacity, memory_limit, container, shared_name).put(values)
    return ()


@register_op("Unstage", outputs=("*values",), attrs=_ATTRS, shape=_values_rule, stateful=True, ctx=True)
def unstage(capacity=0, memory_limit=0, dtypes=None, container="", shared_name="", ctx=None):
    """Removes and returns the oldest tuple; blocks until there is one."""
    return _stage_buffer(ctx, capacity, memory_limit, container, shared_name).get()


@register_op("StagePeek", inputs=("index",), outputs=("*values",), input_types={"index": dtypes.int32},
             attrs=_ATTRS, shape=_values_rule, stateful=True, ctx=True)
def stage_peek(index, capacity=0, memory_limit=0, dtypes=None, container="", shared_name="", ctx=None):
    """A copy of the ``index``-th oldest tuple; blocks until there are more than ``index``."""
    index = np.asarray(index)
    if index.ndim != 0:
        raise invalid_argument("index must be scalar")
    return _stage_buffer(ctx, capacity, memory_limit, container, shared_name).peek(int(index))


_SIZE = fixed_rule((dtypes.int32, TensorShape([])))


@register_op("StageSize", outputs=("size",), attrs=_ATTRS, shape=_SIZE, stateful=True, ctx=True)
def stage_size(capacity=0, memory_limit=0, dtypes=None, container="", shared_name="", ctx=None):
    """The number of staged tuples."""
    return np.int32(_stage_buffer(ctx, capacity, memory_limit, container, shared_name).size())


@register_op("StageClear", outputs=(), attrs=_ATTRS, shape=fixed_rule(), stateful=True, ctx=True)
def stage_clear(capacity=0, memory_limit=0, dtypes=None, container="", shared_name="", ctx=None):
    """Drops every staged tuple."""
    _stage_buffer(ctx, capacity, memory_limit, container, shared_name).clear()
    return ()


def _map_buffer(ctx, ordered, dtypes, capacity, memory_limit, container, shared_name):
    kind = "ordered_map_stage" if ordered else "map_stage"
    return _buffer(ctx, kind, container, shared_name, lambda: MapBuffer(ordered, len(dtypes), capacity, memory_limit))


def _key(key) -> int:
    key = np.asarray(key)
    if key.ndim != 0 or key.dtype != np.int64:
        raise invalid_argument(f"key must be an int64 scalar, got tensor with shape: {list(key.shape)}")
    return int(key)


def _indices(indices):
    return [int(i) for i in np.asarray(indices).reshape(-1)]


def _register_map(prefix, ordered):
    """The seven ops of one map kind (``Map*`` or ``OrderedMap*``), TF's signatures."""

    def buf(ctx, a):
        return _map_buffer(ctx, ordered, a["dtypes"], a["capacity"], a["memory_limit"], a["container"],
                           a["shared_name"])

    def put(key, indices, values, ctx=None, **a):
        """Inserts ``values`` as components ``indices`` of key's tuple; blocks while the map is full."""
        key, indices = _key(key), _indices(indices)
        if len(indices) != len(values):
            raise invalid_argument(f"Number of indices '{len(indices)}' does not match number of values "
                                   f"'{len(values)}'")
        buf(ctx, a).put(key, indices, list(values))
        return ()

    register_op(f"{prefix}Stage", inputs=("key", "indices", "values"), outputs=(), list_inputs={"values": None},
                input_types={"key": dtypes.int64, "indices": dtypes.int32}, type_lists={"fake_dtypes": "values"},
                attrs=dict(_ATTRS, fake_dtypes=None), shape=fixed_rule(), stateful=True, ctx=True)(put)

    def peek(key, indices, ctx=None, **a):
        """Copies components ``indices`` of key's tuple; blocks until the key is complete."""
        return buf(ctx, a).get(_key(key), _indices(indices), False, f"{prefix}Peek")

    register_op(f"{prefix}Peek", inputs=("key", "indices"), outputs=("*values",), attrs=_ATTRS,
                input_types={"key": dtypes.int64, "indices": dtypes.int32}, shape=_values_rule, stateful=True,
                ctx=True)(peek)

    def unstage(key, indices, ctx=None, **a):
        """Removes components ``indices`` of key's tuple; blocks until the key is complete."""
        return buf(ctx, a).get(_key(key), _indices(indices), True, f"{prefix}Unstage")

    register_op(f"{prefix}Unstage", inputs=("key", "indices"), outputs=("*values",), attrs=_ATTRS,
                input_types={"key": dtypes.int64, "indices": dtypes.int32}, shape=_values_rule, stateful=True,
                ctx=True)(unstage)

    def unstage_no_key(indices, ctx=None, **a):
        """(key, components ``indices``) of the first complete key, removed; blocks until there is one."""
        key, values = buf(ctx, a).pop_first(_indices(indices))
        return [np.int64(key)] + values

    register_op(f"{prefix}UnstageNoKey", inputs=("indices",), outputs=("key", "*values"), attrs=_ATTRS,
                input_types={"indices": dtypes.int32}, stateful=True, ctx=True,
                shape=lambda ins, attrs: [(dtypes.int64, TensorShape([]))] + _values_rule(ins, attrs))(unstage_no_key)

    def size(ctx=None, **a):
        """The number of complete keys."""
        return np.int32(buf(ctx, a).sizes()[0])

    def incomplete_size(ctx=None, **a):
        """The number of incomplete keys."""
        return np.int32(buf(ctx, a).sizes()[1])

    def clear(ctx=None, **a):
        """Drops every complete and incomplete key."""
        buf(ctx, a).clear()
        return ()

    register_op(f"{prefix}Size", outputs=("size",), attrs=_ATTRS, shape=_SIZE, stateful=True, ctx=True)(size)
    register_op(f"{prefix}IncompleteSize", outputs=("size",), attrs=_ATTRS, shape=_SIZE, stateful=True,
                ctx=True)(incomplete_size)
    register_op(f"{prefix}Clear", outputs=(), attrs=_ATTRS, shape=fixed_rule(), stateful=True, ctx=True)(clear)


_register_map("Map", False)
_register_map("OrderedMap", True)
