"""Dataset values and what every dataset kernel shares.

A dataset op's output is a :class:`Dataset` (a ``variant`` scalar): an
immutable description of a sequence of elements, each a tuple of arrays.
``Dataset.elements(env)`` starts one walk over it as a Python generator; an
iterator resource (:mod:`.iterators`) keeps that generator between runs.
``env`` is an :class:`Env`: the run context of the ``IteratorGetNext`` that
asks for the next element (it runs the datasets' functions in the Session
that owns the iterator), and the background threads of the walk, which stop
when the iterator is reset or its Session closes.

A dataset's function (``map``'s ``f``, ``filter``'s ``predicate``...) is a
function graph plus the values of its captured tensors (``other_arguments``);
an error inside it names the dataset op and the function.
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from ref.types import dtypes, errors
from ref.types.shapes import TensorShape


class Env:
    """The state a walk over a dataset shares: the latest run context and the
    threads to stop when the walk ends."""

    def __init__(self, ctx=None):
        self.ctx = ctx
        self.closed = threading.Event()
        self._threads = []
        self.state = weakref.WeakKeyDictionary()  # per-walk state of a dataset (a shuffle's seed generator)

    def start(self, target):
        t = threading.Thread(target=target, daemon=True, name="ref-tf-data")
        self._threads.append(t)
        t.start()
        return t

    def close(self):
        self.closed.set()
        for t in self._threads:
            t.join(timeout=5.0)
        self._threads = []


class Dataset:
    """A variant value describing a sequence of elements (tuples of arrays)."""

    is_variant = True
    op_type = "Dataset"

    def __init__(self, output_types, output_shapes=None):
        self.output_types = tuple(dtypes.as_dtype(t) for t in output_types or ())
        shapes = output_shapes if output_shapes else [None] * len(self.output_types)
        self.output_shapes = tuple(TensorShape(s) for s in shapes)

    def elements(self, env):
        raise NotImplementedError(f"{type(self).__name__} is abstract")

    def outcomes(self, env):
        """The elements, with an :class:`ElementError` in place of one whose
        computation failed. Here an error ends the walk; a dataset that, as
        TF's, can go on after a failed element (``map``) overrides this, and
        ``ignore_errors`` skips the errors."""
        try:
            yield from self.elements(env)
        except errors.OutOfRangeError:
            raise
        except errors.OpError as e:
            yield ElementError(e)

    def __repr__(self):
        return f"<{self.op_type} variant>"


class ElementError:
    """An element that could not be computed: the error its GetNext raises."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def raise_errors(outcomes):
    """Elements of an ``outcomes`` walk; the first :class:`ElementError` is raised."""
    for out in outcomes:
        if isinstance(out, ElementError):
            raise out.error
        yield out


class Function:
    """A dataset's function: a function graph and its captured values."""

    __slots__ = ("func", "captures", "op_name", "op_type")

    def __init__(self, func, captures, op_name, op_type):
        self.func, self.captures = func, list(captures)
        self.op_name, self.op_type = op_name, op_type

    def __call__(self, env, args):
        try:
            return tuple(env.ctx.run_subgraph(self.func, list(args) + self.captures))
        except errors.OpError as e:
            fname = getattr(self.func, "name", "?")
            raise type(e)(e.node_def, e.op, f"{e.message}\n\t [[{{{{function_node {fname}}}}}]] in the "
                          f"function of dataset op {self.op_type} '{self.op_name}'") from e


def scalar(x, what, dtype=np.int64):
    a = np.asarray(x)
    if a.ndim != 0:
        raise errors.InvalidArgumentError(None, None, f"{what} must be a scalar, got shape {list(a.shape)}")
    return dtype(a)


def as_array(x, dtype):
    """An element component as an ndarray of ``dtype`` (strings stay objects)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype == dtypes.string:
        a = np.asarray(x, dtype=object)
        return a
    return np.asarray(x, dtype=dtype.as_numpy_dtype)


def dataset_shape(ins, attrs):
    return [(dtypes.variant, TensorShape([]))]


def check_dataset(x, what="input_dataset"):
    if not isinstance(x, Dataset):
        raise errors.InvalidArgumentError(None, None, f"{what} must be a scalar variant tensor holding a Dataset, "
                                          f"got {type(x).__name__}")
    return x


DATASET_ATTRS = {"output_types": None, "output_shapes": None, "metadata": ""}
