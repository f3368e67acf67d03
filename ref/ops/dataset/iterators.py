"""Iterator kernels: IteratorV2, OneShotIterator, MakeIterator,
IteratorGetNext, IteratorToStringHandle, IteratorFromStringHandleV2,
SerializeIterator, DeserializeIterator.

An iterator is a session resource (keyed like a queue: ``container`` and
``shared_name``, else private to the op) holding one walk over a dataset
(:meth:`Dataset.elements`). ``MakeIterator`` starts a new walk (stopping the
old one's threads); ``IteratorGetNext`` advances it and fails with
OutOfRangeError "End of sequence" at the end; closing the Session stops the
walk's background threads. A string handle names the resource in its session.

An iterator's state (``SerializeIterator``, saved by ``Saver`` through
``make_saveable_from_iterator``) is the number of elements its current walk
has produced. ``DeserializeIterator`` starts a new walk over the iterator's
dataset and draws that many elements again: a walk is a function of the
dataset and its seeds, so the next element is the one the saved walk would
have produced. (TF saves each dataset's own position and buffers instead; the
elements that follow are the same.) As in TF, the iterator must have been
initialized before its state is restored, pipelines with stateful functions
fail to save under the ``fail`` policy, and a ``GeneratorDataset`` cannot be
saved at all.
"""
from __future__ import annotations

import itertools
import threading

import numpy as np

from ref import protos
from ref.ops import registry
from ref.ops.dataset.base import Dataset, Env, Function, as_array, check_dataset
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
        self.dataset, self.produced = None, 0

    def start(self, dataset, ctx, skip=0):
        check_dataset(dataset, "dataset")
        if [t.base_dtype for t in dataset.output_types] != [t.base_dtype for t in self.output_types]:
            raise invalid_argument(f"The iterator's types {self._types(self.output_types)} do not match the "
                                   f"dataset's {self._types(dataset.output_types)}")
        with self.lock:
            self._stop()
            self.env = Env(ctx)
            self.walk, self.dataset, self.produced = dataset.elements(self.env), dataset, 0
            for _ in range(skip):
                if next(self.walk, None) is None:
                    raise errors.FailedPreconditionError(
                        None, None, f"Failed to restore dataset iterator from checkpoint: the dataset ends after "
                                    f"{self.produced} elements but the saved iterator had produced {skip}. Make "
                                    f"sure the dataset definition has not changed between the process that saved "
                                    f"the checkpoint and the process that is restoring it.")
                self.produced += 1

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
            self.produced += 1
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


# -- iterator state -----------------------------------------------------------------------------

EXTERNAL_STATE_POLICIES = {0: "warn", 1: "ignore", 2: "fail"}
"""TF's ExternalStatePolicy values (POLICY_WARN, POLICY_IGNORE, POLICY_FAIL)."""


class IteratorState:
    """The state ``SerializeIterator`` gives: how many elements the walk produced.

    Saved as one ``VariantTensorDataProto`` (type ``ref::IteratorState``, an
    int64 scalar tensor)."""

    type_name = "ref::IteratorState"
    is_variant = True

    def __init__(self, produced):
        self.produced = int(produced)

    def to_variant_proto(self):
        t = protos.tensor_pb2.TensorProto(dtype=dtypes.int64.as_datatype_enum, int64_val=[self.produced])
        t.tensor_shape.SetInParent()
        return protos.tensor_pb2.VariantTensorDataProto(type_name=self.type_name, tensors=[t])

    @classmethod
    def from_variant(cls, value):
        if isinstance(value, cls):
            return value
        if isinstance(value, protos.tensor_pb2.VariantTensorDataProto):
            if value.type_name == cls.type_name and len(value.tensors) == 1 and value.tensors[0].int64_val:
                return cls(value.tensors[0].int64_val[0])
            raise errors.UnimplementedError(
                None, None, f"DeserializeIterator: cannot restore an iterator state of type {value.type_name!r} "
                            f"(ref restores the states ref saved; TensorFlow's own iterator states are not read)")
        raise invalid_argument(f"DeserializeIterator: expected a serialized iterator state, got "
                               f"{type(value).__name__}")

    def __repr__(self):
        return f"<IteratorState produced={self.produced}>"


def _functions(func, seen):
    """The ops of a function graph and of the functions its ops hold."""
    if id(func) in seen or not hasattr(func, "get_operations"):
        return
    seen.add(id(func))
    for op in func.get_operations():
        yield op
        for v in op.attrs.values():
            if hasattr(v, "get_operations"):
                yield from _functions(v, seen)


def _stateful(op_type):
    """TF's IsNodeStateful for a dataset function's op: a stateful op other
    than ``Assert``, a dataset op, or an ``If``/``While`` (whose branches are
    looked at instead); a function argument is not an op in TF."""
    if op_type in ("Placeholder", "Assert", "If", "While", "StatelessIf", "StatelessWhile") or \
            op_type.endswith(("Dataset", "DatasetV2")):
        return False
    try:
        return registry.get(op_type).stateful
    except LookupError:  # TF skips ops it cannot look up
        return False


def _check_saveable(dataset, policy):
    """TF's checks before an input pipeline is serialized: under ``fail`` a
    stateful op in a dataset's function fails first; a GeneratorDataset (in the
    pipeline or made by one of its functions, as ``from_generator``'s
    ``flat_map`` does) cannot be saved under any policy."""
    stack, seen, datasets, ops = [dataset], set(), [], []
    while stack:
        ds = stack.pop()
        if id(ds) in seen:
            continue
        seen.add(id(ds))
        datasets.append(ds.op_type)
        for v in vars(ds).values():
            for x in (v if isinstance(v, (list, tuple)) else [v]):
                if isinstance(x, Dataset):
                    stack.append(x)
                elif isinstance(x, Function):
                    ops.extend(op.type for op in _functions(x.func, set()))
    if policy == "fail":
        for t in ops:
            if _stateful(t):
                raise errors.FailedPreconditionError(None, None, f"{t} is stateful.")
    if "GeneratorDataset" in datasets or "GeneratorDataset" in ops:
        raise errors.UnimplementedError(None, None, "GeneratorDataset does not support checkpointing.")


@register_op("SerializeIterator", inputs=("resource_handle",), outputs=("serialized",),
             attrs={"external_state_policy": 0},
             shape=lambda ins, attrs: [(dtypes.variant, TensorShape([None]))], stateful=True)
def serialize_iterator(resource_handle, external_state_policy=0):
    """serialized = the iterator's state, a vector of one variant (``IteratorState``)."""
    it = _check_iterator(resource_handle)
    policy = EXTERNAL_STATE_POLICIES.get(int(external_state_policy))
    if policy is None:
        raise invalid_argument(f"external_state_policy must be 0 (warn), 1 (ignore) or 2 (fail), got "
                               f"{external_state_policy}")
    with it.lock:
        if it.dataset is None:
            raise errors.FailedPreconditionError(
                None, None, "Save() failed because the iterator has not been initialized. Ensure that you have run "
                            "the initializer operation for this iterator before saving it.")
        _check_saveable(it.dataset, policy)
        state = IteratorState(it.produced)
    out = np.empty(1, dtype=object)
    out[0] = state
    return out


@register_op("DeserializeIterator", inputs=("resource_handle", "serialized"), outputs=(),
             shape=lambda ins, attrs: [], stateful=True, ctx=True)
def deserialize_iterator(resource_handle, serialized, ctx=None):
    """Restores the iterator to the state ``serialized`` (a new walk over its
    dataset, advanced past the elements the saved walk had produced)."""
    it = _check_iterator(resource_handle)
    states = np.asarray(serialized, dtype=object).reshape(-1)
    if states.size != 1:
        raise invalid_argument(f"DeserializeIterator: expected a serialized state of 1 element, got {states.size}")
    state = IteratorState.from_variant(states[0])
    if it.dataset is None:
        raise errors.FailedPreconditionError(
            None, None, "Failed to restore dataset iterator from checkpoint: Restore() failed because the iterator "
                        "has not been initialized. Ensure that you have run the initializer operation for this "
                        "iterator before restoring it.")
    it.start(it.dataset, ctx, skip=state.produced)
