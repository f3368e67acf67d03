"""Iterator kernels: IteratorV2, OneShotIterator, MakeIterator,
IteratorGetNext, IteratorToStringHandle, IteratorFromStringHandleV2.

An iterator is a session resource (keyed like a queue: ``container`` and
``shared_name``, else private to the op) holding one walk over a dataset
(:meth:`Dataset.elements`). ``MakeIterator`` starts a new walk (stopping the
old one's threads); ``IteratorGetNext`` advances it and fails with
OutOfRangeError "End of sequence" at the end; closing the Session stops the
walk's background threads. A string handle names the resource in its session.
"""
from __future__ import annotations

import itertools
import threading

import numpy as np

from ref.ops.dataset.base import Env, as_array, check_dataset
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types import dtypes, errors
from ref.types.shapes import TensorShape

_IDS = itertools.count()
_LOCK = threading.Lock()


class IteratorResource:
    """One iterator: its element signature and the current walk."""

    def __init__(self, name, output_types, output_shapes):
        self.name, self.output_types = name, [dtypes.as_dtype(t) for t in output_types]
        self.output_shapes = [TensorShape(s) for s in (output_shapes or [None] * len(self.output_types))]
        self.walk, self.env, self.lock = None, None, threading.Lock()

    def start(self, dataset, ctx):
        check_dataset(dataset, "dataset")
        if [t.base_dtype for t in dataset.output_types] != [t.base_dtype for t in self.output_types]:
            raise invalid_argument(f"The iterator's types {self._types(self.output_types)} do not match the "
                                   f"dataset's {self._types(dataset.output_types)}")
        with self.lock:
            self._stop()
            self.env = Env(ctx)
            self.walk = dataset.elements(self.env)

    @staticmethod
    def _types(ts):
        return "[" + ", ".join(t.name for t in ts) + "]"

    def get_next(self, ctx):
        with self.lock:
            if self.walk is None:
                raise errors.FailedPreconditionError(
                    None, None, "GetNext() failed because the iterator has not been initialized. Ensure that you "
                    "have run the initializer operation for this iterator before getting the next element.")
            self.env.ctx = ctx
            elem = next(self.walk, None)
            if elem is None:
                raise errors.OutOfRangeError(None, None, "End of sequence")
        out = []
        for k, (c, t, s) in enumerate(zip(elem, self.output_types, self.output_shapes)):
            a = as_array(c, t)
            if not s.is_compatible_with(TensorShape(a.shape)):
                raise invalid_argument(f"An element of component {k} has shape {list(a.shape)}, incompatible with "
                                       f"the iterator's shape {s}")
            out.append(a)
        return tuple(out)

    def _stop(self):
        if self.walk is not None:
            self.env.closed.set()
            try:
                self.walk.close()
            except Exception:
                pass
            self.env.close()
        self.walk = None

    def close(self):
        """Stops the walk's threads (the Session closes its resources so)."""
        env = self.env
        if env is not None:
            env.closed.set()  # a GetNext waiting on a prefetch buffer gives up
        with self.lock:
            self._stop()


def _handle_shape(ins, attrs):
    return [(dtypes.resource, TensorShape([]))]


def _lookup_or_create(ctx, container, shared_name, output_types, output_shapes):
    key = ("iterator", container, shared_name or ctx.op_name)
    with _LOCK:
        res = ctx.resources.get(key)
        if res is None:
            name = shared_name or f"_{next(_IDS)}_{ctx.op_name}"
            res = ctx.resources[key] = IteratorResource(name, output_types, output_shapes)
            ctx.resources[("iterator_handle", res.name)] = res
    return res


_ITER_ATTRS = {"shared_name": "", "container": "", "output_types": REQUIRED, "output_shapes": REQUIRED}


@register_op("IteratorV2", outputs=("handle",), attrs=_ITER_ATTRS, shape=_handle_shape, stateful=True, ctx=True)
def iterator_v2(shared_name="", container="", output_types=None, output_shapes=None, ctx=None):
    """handle = an iterator resource, empty until ``MakeIterator`` runs."""
    return _lookup_or_create(ctx, container, shared_name, output_types, output_shapes)


@register_op("OneShotIterator", outputs=("handle",), attrs={"dataset_factory": REQUIRED, **_ITER_ATTRS},
             shape=_handle_shape, stateful=True, ctx=True)
def one_shot_iterator(dataset_factory, output_types=None, output_shapes=None, container="", shared_name="",
                      ctx=None):
    """handle = an iterator over the dataset ``dataset_factory`` makes, initialized on first use."""
    res = _lookup_or_create(ctx, container, shared_name, output_types, output_shapes)
    with _LOCK:
        if getattr(res, "made", False):
            return res
        res.made = True
    (dataset,) = ctx.run_subgraph(dataset_factory, [])
    res.start(dataset, ctx)
    return res


def _check_iterator(it):
    if not isinstance(it, IteratorResource):
        raise invalid_argument(f"Expected an iterator resource handle, got {type(it).__name__}")
    return it


@register_op("MakeIterator", inputs=("dataset", "iterator"), outputs=(), shape=lambda ins, attrs: [],
             stateful=True, ctx=True)
def make_iterator(dataset, iterator, ctx=None):
    """Starts a new walk of ``iterator`` over ``dataset``."""
    _check_iterator(iterator).start(dataset, ctx)


def _next_shape(ins, attrs):
    shapes = attrs.get("output_shapes") or [None] * len(attrs["output_types"])
    return [(d, TensorShape(s)) for d, s in zip(attrs["output_types"], shapes)]


@register_op("IteratorGetNext", inputs=("iterator",), outputs=("*components",),
             attrs={"output_types": REQUIRED, "output_shapes": REQUIRED}, shape=_next_shape, stateful=True,
             ctx=True)
def iterator_get_next(iterator, output_types=None, output_shapes=None, ctx=None):
    """components = the next element of ``iterator`` (OutOfRangeError at the end)."""
    return _check_iterator(iterator).get_next(ctx)


@register_op("IteratorToStringHandle", inputs=("resource_handle",), outputs=("string_handle",),
             shape=lambda ins, attrs: [(dtypes.string, TensorShape([]))], stateful=True)
def iterator_to_string_handle(resource_handle):
    """string_handle = a string naming the iterator (for ``from_string_handle``)."""
    return np.asarray(_check_iterator(resource_handle).name.encode(), dtype=object)


@register_op("IteratorFromStringHandleV2", inputs=("string_handle",), outputs=("resource_handle",),
             attrs={"output_types": [], "output_shapes": []}, shape=_handle_shape, stateful=True, ctx=True)
def iterator_from_string_handle_v2(string_handle, output_types=(), output_shapes=(), ctx=None):
    """resource_handle = the iterator a string handle names in this session."""
    name = np.asarray(string_handle, dtype=object).item()
    name = name.decode() if isinstance(name, bytes) else str(name)
    res = ctx.resources.get(("iterator_handle", name))
    if res is None:
        raise invalid_argument(f"Could not find an iterator named {name!r} in this session")
    if output_types and [dtypes.as_dtype(t).base_dtype for t in output_types] != \
            [t.base_dtype for t in res.output_types]:
        raise invalid_argument(f"Expected types {[dtypes.as_dtype(t).name for t in output_types]} but the iterator "
                               f"has {[t.name for t in res.output_types]}")
    return res
