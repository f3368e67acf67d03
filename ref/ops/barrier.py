"""Barrier kernels: TF's ``Barrier`` resource and the ops ``BarrierInsertMany``,
``BarrierTakeMany``, ``BarrierClose``, ``BarrierReadySize``, ``BarrierIncompleteSize``
(the ``data_flow_ops.Barrier`` class is :mod:`ref.graph_ops.data_flow_ops`).

A barrier is a map from string keys to tuples of ``len(component_types)``
tensors. ``InsertMany(component_index, keys, values)`` sets one component of
each key's tuple (row ``i`` of ``values`` for ``keys[i]``); a key seen for the
first time is stamped with the barrier's insertion counter, which starts at
``-2**63`` and grows by one for every InsertMany that brought a new key. A
tuple whose components are all set is complete: it leaves the map for the
ready queue -- a priority queue (:class:`ref.ops.data_flow.PriorityQueue`)
ordered by that stamp, so ``TakeMany(n)`` returns ``(indices, keys, values)``
of the ``n`` complete tuples inserted first, blocking until there are ``n``.

Closing follows TF's C++ kernel (``barrier_ops.cc``):

* after ``Close``, an InsertMany may only complete keys already in the map
  (a new key: ``CancelledError "Barrier B is closed, but attempted to insert
  a brand new key"``); with ``cancel_pending_enqueues`` the incomplete tuples
  are dropped and every InsertMany fails;
* the ready queue closes with the barrier when nothing is incomplete (or the
  close cancels); a TakeMany on a closed barrier fails at once with
  ``OutOfRangeError "... is closed and has insufficient elements (requested n,
  total size m)"`` when complete plus incomplete tuples (complete only, with
  ``allow_small_batch``, which then takes what is there) are fewer than ``n``;
* closing twice fails (``CancelledError "Barrier 'B' is already closed."``)
  unless the second close cancels and the first did not.

Component shapes left unspecified (an unknown-rank shape attr) are scalars, as
TF's kernel reads them. A waiting TakeMany is the ready queue's dequeue: closing
the Session cancels it and the run's deadline bounds it (:mod:`ref.ops.blocking`).
"""
from __future__ import annotations

import itertools
import threading

import numpy as np

from ref.types import dtypes, errors
from ref.ops.data_flow import PriorityQueue, _shape_str
from ref.ops.registry import REQUIRED, fixed_rule, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_LOCK = threading.Lock()
_IDS = itertools.count()
_FIRST_INDEX = -2 ** 63


def _cc(dtype) -> str:
    """TF's C++ DataTypeString of ``dtype`` (``float``, ``double``, ``int32``...)."""
    name = dtypes.as_dtype(dtype).name
    return {"float32": "float", "float64": "double", "float16": "half"}.get(name, name)


def _key_str(key) -> str:
    return key.decode("utf-8", "replace") if isinstance(key, bytes) else str(key)


def _value_shapes(shapes):
    """TF's reading of the ``shapes`` attr: an unknown-rank shape is a scalar."""
    out = []
    for s in shapes:
        s = TensorShape(s)
        if s.ndims is None:
            s = TensorShape([])
        elif not s.is_fully_defined():
            raise invalid_argument(f"Barrier component shapes must be fully defined, got {_shape_str(s)}")
        out.append(s)
    return out


class Barrier:
    """The state of one barrier: the incomplete map and the ready queue."""

    kind = "Barrier"

    def __init__(self, name, component_types, shapes):
        self.name = name
        self.component_types = [dtypes.as_dtype(t) for t in component_types]
        self.shapes = list(shapes)
        self._lock = threading.Lock()
        self._closed = False
        self._cancel_pending = False
        self._queue_closed = False
        self._queue_cancelled = False
        self._next_index = _FIRST_INDEX
        self._incomplete = {}  # key -> [index, component 0 or None, component 1 or None, ...]
        self._ready = PriorityQueue(f"{name}_queue", [dtypes.string] + self.component_types,
                                    [TensorShape([])] + self.shapes, -1)

    def ready_size(self) -> int:
        return self._ready.size()

    def incomplete_size(self) -> int:
        with self._lock:
            return len(self._incomplete)

    def insert_many(self, component_index, keys, values):
        """Sets component ``component_index`` of ``keys[i]``'s tuple to ``values[i]``."""
        n = len(self.component_types)
        if component_index >= n:
            raise invalid_argument(f"The component ID is out of range {component_index} > num_components "
                                   f"(= {n})")
        keys = np.asarray(keys, dtype=object).reshape(-1)
        values = np.asarray(values)
        got = dtypes.string if values.dtype == object else dtypes.as_dtype(values.dtype)
        want = self.component_types[component_index]
        if got != want:
            raise invalid_argument(f"Signature mismatch, have: string_ref, string, {_cc(got)}-> expected: "
                                   f"string_ref, string, {_cc(want)}->")
        if keys.size and not values.size:
            raise invalid_argument(f"Tensors with no elements are not supported {self.name}: received shape "
                                   f"{_shape_str(values.shape)}")
        if keys.size and (values.ndim == 0 or values.shape[0] != keys.size):
            raise invalid_argument(f"Barrier {self.name}: {keys.size} keys but values of shape "
                                   f"{_shape_str(values.shape)}")
        with self._lock:
            if self._closed and (self._cancel_pending or (keys.size and not self._incomplete)):
                raise errors.CancelledError(
                    None, None, f"Barrier {self.name} is closed.  Pending enqueues cancelled: "
                                f"{int(self._cancel_pending)}.  Number of new insertions: {keys.size}.  Number "
                                f"of incomplete keys: {len(self._incomplete)}.")
            ready = []
            new_elements = False
            for i, key in enumerate(keys):
                new_elements |= self._insert_one(key, i, component_index, values[i], ready)
            if new_elements:
                self._next_index += 1
            if ready:  # the ready queue is unbounded: this never waits for room
                self._ready._enqueue_elements(ready)

    def _insert_one(self, key, i, component_index, value, ready) -> bool:
        element = self._incomplete.get(key)
        new = element is None
        if new:
            if self._closed:
                raise errors.CancelledError(
                    None, None, f"Barrier {self.name} is closed, but attempted to insert a brand new key: "
                                f"{_key_str(key)}.  Pending enqueues cancelled: {int(self._cancel_pending)}.  "
                                f"Insertion index: {i}.  Number of incomplete keys: {len(self._incomplete)}.")
            element = self._incomplete[key] = [self._next_index] + [None] * len(self.component_types)
        if element[1 + component_index] is not None:
            raise invalid_argument(f"Key {_key_str(key)} already has a value for component {component_index} "
                                   f"in barrier {self.name}")
        element[1 + component_index] = np.array(value, copy=True)
        if all(c is not None for c in element[1:]):
            del self._incomplete[key]
            for j, c in enumerate(element[1:]):
                self._ready._check_element_shape(2 + j, c.shape)
            ready.append((np.int64(element[0]), np.array(key, dtype=object)) + tuple(element[1:]))
        return new

    def take_many(self, num_elements, allow_small_batch=False):
        """``(indices, keys, [values...])`` of ``num_elements`` complete tuples."""
        deliver = num_elements
        with self._lock:
            if self._closed:
                available = self._ready.size()
                if allow_small_batch:
                    deliver = min(num_elements, available)
                else:
                    available += len(self._incomplete)
                if available < max(deliver, 1):
                    raise errors.OutOfRangeError(
                        None, None, f"Barrier '{self.name}' is closed and has insufficient elements "
                                    f"(requested {deliver}, total size {available})")
        out = self._ready.dequeue_many(deliver, allow_small_batch)
        return [out[0], out[1], *out[2:]]

    def close_barrier(self, cancel_pending_enqueues=False):
        """BarrierClose: no new keys from now on (no inserts at all when cancelling)."""
        with self._lock:
            if self._closed and (self._cancel_pending or not cancel_pending_enqueues):
                raise errors.CancelledError(None, None, f"Barrier '{self.name}' is already closed.")
            self._cancel_pending = cancel_pending_enqueues
            self._closed = True
            if not (cancel_pending_enqueues or not self._incomplete):
                return
            self._incomplete.clear()
            if (self._queue_cancelled if cancel_pending_enqueues else self._queue_closed):
                return
            self._queue_closed = True
            self._queue_cancelled |= cancel_pending_enqueues
            if not self._ready.is_closed():
                self._ready.close_queue(cancel_pending_enqueues)

    def close(self):
        """Session teardown: cancels every waiting take."""
        self._ready.close()

    def matches(self, component_types, shapes):
        """TF's checks when a Barrier op finds an existing shared barrier."""
        types = [dtypes.as_dtype(t) for t in component_types]
        if types != self.component_types:
            raise invalid_argument(f"Shared barrier '{self.name}' has component types "
                                   f"{', '.join(_cc(t) for t in self.component_types)} but requested component "
                                   f"types were {', '.join(_cc(t) for t in types)}")
        if [s.as_list() for s in shapes] != [s.as_list() for s in self.shapes]:
            def listing(ss):
                return "[" + ", ".join(_shape_str(s) for s in ss) + "]"
            raise invalid_argument(f"Shared barrier '{self.name}' has component shapes {listing(self.shapes)} "
                                   f"but requested component shapes were {listing(shapes)}")

    def __repr__(self):
        return f"<Barrier '{self.name}' ready={self._ready.size()} incomplete={len(self._incomplete)}>"


def _barrier(handle) -> Barrier:
    b = handle.item() if isinstance(handle, np.ndarray) and handle.dtype == object else handle
    if not isinstance(b, Barrier):
        raise invalid_argument(f"Expected a barrier handle, got {type(b).__name__}")
    return b


_SIZE = fixed_rule((dtypes.int32, TensorShape([])))


@register_op("Barrier", outputs=("handle",),
             attrs={"component_types": REQUIRED, "shapes": [], "capacity": -1, "container": "", "shared_name": ""},
             shape=fixed_rule((dtypes.string, TensorShape([2]))), stateful=True, ctx=True)
def barrier(component_types, shapes=(), capacity=-1, container="", shared_name="", ctx=None):
    """The handle of a barrier (created on first use, shared by ``shared_name``)."""
    if len(shapes) != len(component_types):
        raise invalid_argument("All of the component shapes must be specified")
    if capacity != -1:
        raise invalid_argument("Barrier only accepts capacity=-1.  Feed the inputs to your Barrier through a "
                               "queue to enforce a limited capacity.")
    shapes = _value_shapes(shapes)
    op_name = getattr(ctx, "op_name", None)
    if op_name is None:  # a raw-op call: a fresh private barrier
        return Barrier(f"_{next(_IDS)}_barrier", component_types, shapes)
    key = ("barrier", container, shared_name or op_name)
    with _LOCK:
        b = ctx.resources.get(key)
        if b is None:
            name = shared_name or f"_{next(_IDS)}_{op_name}"
            b = ctx.resources[key] = Barrier(name, component_types, shapes)
        else:
            b.matches(component_types, shapes)
    return b


def _insert_many_rule(ins, attrs):
    keys, values = ins["keys"].shape, ins["values"].shape
    name = attrs.get("_op_name", "BarrierInsertMany")
    if keys.ndims is not None and keys.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {keys.ndims} for '{name}': keys {keys}")
    if values.ndims is not None and values.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank 0 for '{name}': values {values}")
    if keys.ndims is not None and values.ndims is not None and not keys.is_compatible_with(values[:1]):
        raise ValueError(f"Dimensions must be equal for '{name}': keys {keys} and values {values}")
    return []


@register_op("BarrierInsertMany", inputs=("handle", "keys", "values"), outputs=(),
             attrs={"component_index": REQUIRED}, type_attrs={"T": ("values",)}, shape=_insert_many_rule,
             stateful=True)
def barrier_insert_many(handle, keys, values, component_index, T=None):
    """Sets component ``component_index`` of each key's tuple; complete tuples become ready."""
    _barrier(handle).insert_many(int(component_index), keys, values)
    return ()


def _take_many_rule(ins, attrs):
    return ([(dtypes.int64, unknown_shape()), (dtypes.string, unknown_shape())]
            + [(dtypes.as_dtype(t), unknown_shape()) for t in attrs["component_types"]])


@register_op("BarrierTakeMany", inputs=("handle", "num_elements"), outputs=("indices", "keys", "*values"),
             attrs={"component_types": REQUIRED, "allow_small_batch": False, "wait_for_incomplete": False,
                    "timeout_ms": -1},
             shape=_take_many_rule, stateful=True)
def barrier_take_many(handle, num_elements, component_types, allow_small_batch=False, wait_for_incomplete=False,
                      timeout_ms=-1):
    """The ``num_elements`` complete tuples inserted first; blocks until there are that many."""
    if timeout_ms != -1:
        raise invalid_argument("Timeout not supported yet.")
    if np.ndim(num_elements) != 0:
        raise invalid_argument("num_elements must be a scalar.")
    b = _barrier(handle)
    if [dtypes.as_dtype(t) for t in component_types] != b.component_types:
        raise invalid_argument(f"Signature mismatch, have: string_ref, int32-> int64, string, "
                               f"{', '.join(_cc(t) for t in component_types)} expected: "
                               f"string_ref, int32-> int64, string, {', '.join(_cc(t) for t in b.component_types)}")
    return b.take_many(int(num_elements), allow_small_batch)


@register_op("BarrierClose", inputs=("handle",), outputs=(), attrs={"cancel_pending_enqueues": False},
             shape=fixed_rule(), stateful=True)
def barrier_close(handle, cancel_pending_enqueues=False):
    """Closes the barrier: no new keys; with ``cancel_pending_enqueues`` no inserts at all."""
    _barrier(handle).close_barrier(bool(cancel_pending_enqueues))
    return ()


@register_op("BarrierReadySize", inputs=("handle",), outputs=("size",), shape=_SIZE, stateful=True)
def barrier_ready_size(handle):
    """The number of complete tuples."""
    return np.int32(_barrier(handle).ready_size())


@register_op("BarrierIncompleteSize", inputs=("handle",), outputs=("size",), shape=_SIZE, stateful=True)
def barrier_incomplete_size(handle):
    """The number of incomplete tuples."""
    return np.int32(_barrier(handle).incomplete_size())
