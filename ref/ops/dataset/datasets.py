"""Dataset kernels: sources (TensorDataset, TensorSliceDataset, RangeDataset)
and transformations (MapDataset, ParallelMapDatasetV2, FilterDataset,
FlatMapDataset, InterleaveDataset, BatchDatasetV2, PaddedBatchDatasetV2,
ShuffleDataset, ShuffleAndRepeatDataset, RepeatDataset, TakeDataset,
SkipDataset, PrefetchDataset, ZipDataset, ConcatenateDataset, CacheDataset,
UnbatchDataset, MapAndBatchDataset, the parallel interleaves).

Element order is TF's: a parallel map or interleave with ``deterministic``
"default"/"true" yields what the sequential one yields, so ref runs them in
order. ``ShuffleDataset`` follows TF's shuffle kernel: a ring buffer of
``buffer_size`` elements split into slices, one per epoch of the input (at
most three epochs buffered); each output is drawn uniformly from the oldest
slice with ``SingleSampleAdapter<PhiloxRandom>`` (word ``% slice length``) and
its slot refilled from the slice's start. With ``reshuffle_each_iteration``
each walk takes its two seeds from a seed generator, a Philox stream on the
op's (seed, seed2) made afresh when the iterator is initialized (TF reruns
the dataset op), so each epoch of a ``repeat`` reshuffles; otherwise every
walk uses (seed, seed2). Seeds (0, 0) draw random ones, as TF does.
"""
from __future__ import annotations

import collections
import os
import queue
import threading

import numpy as np

from ref.ops.dataset import cache
from ref.ops.dataset.base import (DATASET_ATTRS, Dataset, ElementError, Function, check_dataset, dataset_shape,
                                  raise_errors, scalar)
from ref.ops.philox import SingleSample
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types import dtypes, errors

_END = object()
_FUNC_ATTRS = {**DATASET_ATTRS, "f": REQUIRED, "Targuments": None}


def _register(name, inputs=("input_dataset",), attrs=None, list_inputs=None, ctx=False):
    return register_op(name, inputs=inputs, outputs=("handle",), attrs={**DATASET_ATTRS, **(attrs or {})},
                       list_inputs=list_inputs, shape=dataset_shape, ctx=ctx, stateful=ctx)


# -- sources --------------------------------------------------------------------

class TensorDS(Dataset):
    op_type = "TensorDataset"

    def __init__(self, components, shapes, slices, types=None):
        super().__init__(types or [dtypes.as_dtype(np.asarray(c).dtype) if not isinstance(c, np.ndarray)
                                   or c.dtype != object else dtypes.string for c in components], shapes)
        self.components, self.slices = tuple(components), slices
        if slices:
            n = {np.shape(c)[0] if np.ndim(c) else None for c in components}
            if None in n:
                raise invalid_argument("All components must be at least 1-dimensional")
            if len(n) != 1:
                sizes = ", ".join(str(np.shape(c)[0]) for c in components)
                raise invalid_argument(f"All components must have the same size in the 0th dimension: {sizes}")

    def elements(self, env):
        if not self.slices:
            yield self.components
            return
        for i in range(np.shape(self.components[0])[0] if self.components else 0):
            yield tuple(np.asarray(c[i]) for c in self.components)


@register_op("TensorDataset", inputs=("components",), outputs=("handle",), list_inputs={"components": None},
             attrs={"Toutput_types": None, "output_shapes": None, "metadata": ""}, shape=dataset_shape)
def tensor_dataset(components, Toutput_types=None, output_shapes=None, metadata=""):
    """handle = a dataset of one element, ``components``."""
    return TensorDS(components, output_shapes, False, Toutput_types)


@register_op("TensorSliceDataset", inputs=("components",), outputs=("handle",), list_inputs={"components": None},
             attrs={"Toutput_types": None, "output_shapes": None, "is_files": False, "metadata": "",
                    "replicate_on_split": False}, shape=dataset_shape)
def tensor_slice_dataset(components, Toutput_types=None, output_shapes=None, is_files=False, metadata="",
                         replicate_on_split=False):
    """handle = the dataset of the slices of ``components`` along their first dimension."""
    return TensorDS(components, output_shapes, True, Toutput_types)


class RangeDS(Dataset):
    op_type = "RangeDataset"

    def __init__(self, start, stop, step, output_types):
        super().__init__(output_types or [dtypes.int64], [[]])
        if step == 0:
            raise invalid_argument("step must be a non-zero integer.")
        self.range = range(int(start), int(stop), int(step))

    def elements(self, env):
        np_t = self.output_types[0].as_numpy_dtype
        for v in self.range:
            yield (np.asarray(v, np_t),)


@_register("RangeDataset", inputs=("start", "stop", "step"), attrs={"replicate_on_split": False})
def range_dataset(start, stop, step, output_types=None, output_shapes=None, metadata="", replicate_on_split=False):
    """handle = the dataset start, start + step, ... (before stop)."""
    return RangeDS(scalar(start, "start"), scalar(stop, "stop"), scalar(step, "step"), output_types)


# -- functions --------------------------------------------------------------------

class MapDS(Dataset):
    op_type = "MapDataset"

    def __init__(self, input_dataset, fn, output_types, output_shapes, preserve_cardinality=False):
        super().__init__(output_types, output_shapes)
        self.input, self.fn = check_dataset(input_dataset), fn
        self.preserve_cardinality = bool(preserve_cardinality)

    def elements(self, env):
        return raise_errors(self.outcomes(env))

    def outcomes(self, env):
        """``fn`` of each element. An OutOfRangeError from ``fn`` ends the
        dataset, unless ``preserve_cardinality`` (TF2's map) makes it an error;
        another error fails that element only (TF's map goes on after it)."""
        for elem in self.input.outcomes(env):
            if isinstance(elem, ElementError):
                yield elem
                continue
            try:
                yield self.fn(env, elem)
            except errors.OutOfRangeError as e:
                if self.preserve_cardinality:
                    yield ElementError(errors.InvalidArgumentError(
                        None, None, f"Function invocation produced OutOfRangeError: {e.message}"))
                    continue
                return
            except errors.OpError as e:
                yield ElementError(e)


def _fn(f, other_arguments, ctx, op_type):
    return Function(f, other_arguments or [], ctx.op_name if ctx is not None else op_type, op_type)


@_register("MapDataset", inputs=("input_dataset", "other_arguments"), list_inputs={"other_arguments": None},
           attrs={"f": REQUIRED, "Targuments": None, "use_inter_op_parallelism": True,
                  "preserve_cardinality": False, "force_synchronous": False}, ctx=True)
def map_dataset(input_dataset, other_arguments, f, Targuments=None, output_types=None, output_shapes=None,
                use_inter_op_parallelism=True, preserve_cardinality=False, force_synchronous=False, metadata="",
                ctx=None):
    """handle = ``f`` applied to each element of ``input_dataset``."""
    return MapDS(input_dataset, _fn(f, other_arguments, ctx, "MapDataset"), output_types, output_shapes,
                 preserve_cardinality)


@_register("ParallelMapDatasetV2", inputs=("input_dataset", "other_arguments", "num_parallel_calls"),
           list_inputs={"other_arguments": None},
           attrs={"f": REQUIRED, "Targuments": None, "use_inter_op_parallelism": True, "deterministic": "default",
                  "preserve_cardinality": False, "use_unbounded_threadpool": False}, ctx=True)
def parallel_map_dataset_v2(input_dataset, other_arguments, num_parallel_calls, f, Targuments=None,
                            output_types=None, output_shapes=None, use_inter_op_parallelism=True,
                            deterministic="default", preserve_cardinality=False, use_unbounded_threadpool=False,
                            metadata="", ctx=None):
    """handle = ``f`` applied to each element, in input order (TF's deterministic order)."""
    n = scalar(num_parallel_calls, "num_parallel_calls")
    if n <= 0 and n != -1:
        raise invalid_argument("num_parallel_calls must be greater than zero.")
    return MapDS(input_dataset, _fn(f, other_arguments, ctx, "ParallelMapDatasetV2"), output_types, output_shapes,
                 preserve_cardinality)


class FilterDS(Dataset):
    op_type = "FilterDataset"

    def __init__(self, input_dataset, fn):
        input_dataset = check_dataset(input_dataset)
        super().__init__(input_dataset.output_types, input_dataset.output_shapes)
        self.input, self.fn = input_dataset, fn

    def elements(self, env):
        for elem in self.input.elements(env):
            if predicate(self.fn, env, elem, "Filter predicate `f` must return a scalar bool."):
                yield elem


def predicate(fn, env, elem, message):
    """``fn``'s value on ``elem``, which must be one scalar bool (else InvalidArgumentError ``message``)."""
    out = fn(env, elem)
    if len(out) != 1 or np.asarray(out[0]).dtype != np.bool_ or np.ndim(out[0]) != 0:
        raise invalid_argument(message)
    return bool(out[0])


@_register("FilterDataset", inputs=("input_dataset", "other_arguments"), list_inputs={"other_arguments": None},
           attrs={"predicate": REQUIRED, "Targuments": None}, ctx=True)
def filter_dataset(input_dataset, other_arguments, predicate, Targuments=None, output_types=None, output_shapes=None,
                   metadata="", ctx=None):
    """handle = the elements of ``input_dataset`` for which ``predicate`` is true."""
    return FilterDS(input_dataset, _fn(predicate, other_arguments, ctx, "FilterDataset"))


def _inner(out, what):
    if len(out) != 1 or not isinstance(out[0], Dataset):
        raise invalid_argument(f"Function passed to {what} must return a dataset.")
    return out[0]


class FlatMapDS(Dataset):
    op_type = "FlatMapDataset"

    def __init__(self, input_dataset, fn, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.input, self.fn = check_dataset(input_dataset), fn

    def elements(self, env):
        for elem in self.input.elements(env):
            yield from _inner(self.fn(env, elem), "flat_map()").elements(env)


@_register("FlatMapDataset", inputs=("input_dataset", "other_arguments"), list_inputs={"other_arguments": None},
           attrs={"f": REQUIRED, "Targuments": None}, ctx=True)
def flat_map_dataset(input_dataset, other_arguments, f, Targuments=None, output_types=None, output_shapes=None,
                     metadata="", ctx=None):
    """handle = the concatenation of the datasets ``f`` makes of each element."""
    return FlatMapDS(input_dataset, _fn(f, other_arguments, ctx, "FlatMapDataset"), output_types, output_shapes)


class InterleaveDS(Dataset):
    op_type = "InterleaveDataset"

    def __init__(self, input_dataset, fn, cycle_length, block_length, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        if cycle_length == -1:  # AUTOTUNE: TF's port::MaxParallelism(), the schedulable CPUs
            cycle_length = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        if cycle_length <= 0:
            raise invalid_argument("cycle_length must be greater than zero.")
        if block_length <= 0:
            raise invalid_argument("block_length must be greater than zero.")
        self.input, self.fn = check_dataset(input_dataset), fn
        self.cycle, self.block = int(cycle_length), int(block_length)

    def elements(self, env):
        """TF's InterleaveDataset: slot ``k`` yields ``block_length`` elements, then
        slot ``k+1``; an exhausted slot is refilled from the next input element."""
        source = self.input.elements(env)
        slots = [None] * self.cycle
        k = block = n_open = 0
        end_of_input = False
        while not end_of_input or n_open:
            if slots[k] is not None:
                elem = next(slots[k], _END)
                if elem is not _END:
                    block += 1
                    if block == self.block:
                        block, k = 0, (k + 1) % self.cycle
                    yield elem
                    continue
                slots[k] = None
                n_open -= 1
                block, k = 0, (k + 1) % self.cycle
            elif not end_of_input:
                elem = next(source, _END)
                if elem is _END:
                    end_of_input = True
                else:
                    slots[k] = _inner(self.fn(env, elem), "interleave()").elements(env)
                    n_open += 1
            else:
                block, k = 0, (k + 1) % self.cycle


def _interleave(input_dataset, other_arguments, cycle_length, block_length, f, output_types, output_shapes, ctx,
                op_type):
    return InterleaveDS(input_dataset, _fn(f, other_arguments, ctx, op_type), scalar(cycle_length, "cycle_length"),
                        scalar(block_length, "block_length"), output_types, output_shapes)


@_register("InterleaveDataset", inputs=("input_dataset", "other_arguments", "cycle_length", "block_length"),
           list_inputs={"other_arguments": None}, attrs={"f": REQUIRED, "Targuments": None}, ctx=True)
def interleave_dataset(input_dataset, other_arguments, cycle_length, block_length, f, Targuments=None,
                       output_types=None, output_shapes=None, metadata="", ctx=None):
    """handle = the datasets ``f`` makes, ``cycle_length`` at a time, ``block_length`` elements each in turn."""
    return _interleave(input_dataset, other_arguments, cycle_length, block_length, f, output_types, output_shapes,
                       ctx, "InterleaveDataset")


_PAR_INTERLEAVE_INPUTS = ("input_dataset", "other_arguments", "cycle_length", "block_length",
                          "buffer_output_elements", "prefetch_input_elements")


@_register("ParallelInterleaveDatasetV4", inputs=_PAR_INTERLEAVE_INPUTS + ("num_parallel_calls",),
           list_inputs={"other_arguments": None}, attrs={"f": REQUIRED, "Targuments": None,
                                                         "deterministic": "default"}, ctx=True)
def parallel_interleave_dataset_v4(input_dataset, other_arguments, cycle_length, block_length, buffer_output_elements,
                                   prefetch_input_elements, num_parallel_calls, f, Targuments=None,
                                   output_types=None, output_shapes=None, deterministic="default", metadata="",
                                   ctx=None):
    """handle = interleave's elements, in interleave's (deterministic) order."""
    return _interleave(input_dataset, other_arguments, cycle_length, block_length, f, output_types, output_shapes,
                       ctx, "ParallelInterleaveDatasetV4")


@_register("LegacyParallelInterleaveDatasetV2", inputs=_PAR_INTERLEAVE_INPUTS, list_inputs={"other_arguments": None},
           attrs={"f": REQUIRED, "Targuments": None, "deterministic": "default"}, ctx=True)
def legacy_parallel_interleave_dataset_v2(input_dataset, other_arguments, cycle_length, block_length,
                                          buffer_output_elements, prefetch_input_elements, f, Targuments=None,
                                          output_types=None, output_shapes=None, deterministic="default",
                                          metadata="", ctx=None):
    """handle = ``tf.data.experimental.parallel_interleave``'s elements (sloppy=False order)."""
    return _interleave(input_dataset, other_arguments, cycle_length, block_length, f, output_types, output_shapes,
                       ctx, "LegacyParallelInterleaveDatasetV2")


# -- batching -----------------------------------------------------------------------

def _stack(rows, k):
    first = np.shape(rows[0][k])
    for i, r in enumerate(rows[1:], 1):
        if np.shape(r[k]) != first:
            raise invalid_argument(f"Cannot batch tensors with different shapes in component {k}. First element "
                                   f"had shape {list(first)} and element {i} had shape {list(np.shape(r[k]))}.")
    return np.stack([np.asarray(r[k]) for r in rows])


def _batches(source, size, drop_remainder):
    while True:
        rows = []
        for elem in source:
            rows.append(elem)
            if len(rows) == size:
                break
        if not rows or (drop_remainder and len(rows) < size):
            return
        yield rows
        if len(rows) < size:
            return


class BatchDS(Dataset):
    op_type = "BatchDatasetV2"

    def __init__(self, input_dataset, batch_size, drop_remainder, output_types, output_shapes, fn=None):
        super().__init__(output_types, output_shapes)
        if batch_size <= 0:
            raise invalid_argument("Batch size must be greater than zero.")
        self.input, self.size, self.drop, self.fn = check_dataset(input_dataset), int(batch_size), drop_remainder, fn

    def elements(self, env):
        source = self.input.elements(env)
        if self.fn is not None:
            source = (self.fn(env, e) for e in source)
        for rows in _batches(source, self.size, self.drop):
            yield tuple(_stack(rows, k) for k in range(len(rows[0])))


@_register("BatchDatasetV2", inputs=("input_dataset", "batch_size", "drop_remainder"), attrs={"parallel_copy": False})
def batch_dataset_v2(input_dataset, batch_size, drop_remainder, parallel_copy=False, output_types=None,
                     output_shapes=None, metadata=""):
    """handle = consecutive elements stacked ``batch_size`` at a time."""
    return BatchDS(input_dataset, scalar(batch_size, "batch_size"), bool(drop_remainder), output_types, output_shapes)


@_register("MapAndBatchDataset", inputs=("input_dataset", "other_arguments", "batch_size", "num_parallel_calls",
                                         "drop_remainder"), list_inputs={"other_arguments": None},
           attrs={"f": REQUIRED, "Targuments": None, "preserve_cardinality": False}, ctx=True)
def map_and_batch_dataset(input_dataset, other_arguments, batch_size, num_parallel_calls, drop_remainder, f,
                          Targuments=None, output_types=None, output_shapes=None, preserve_cardinality=False,
                          metadata="", ctx=None):
    """handle = ``map(f)`` then ``batch``, fused."""
    return BatchDS(input_dataset, scalar(batch_size, "batch_size"), bool(drop_remainder), output_types,
                   output_shapes, fn=_fn(f, other_arguments, ctx, "MapAndBatchDataset"))


class PaddedBatchDS(Dataset):
    op_type = "PaddedBatchDatasetV2"

    def __init__(self, input_dataset, size, padded_shapes, padding_values, drop, output_shapes):
        input_dataset = check_dataset(input_dataset)
        super().__init__(input_dataset.output_types, output_shapes)
        self.input, self.size, self.drop = input_dataset, size, drop
        self.padded = [np.asarray(s, np.int64) for s in padded_shapes]
        self.values = list(padding_values)

    def elements(self, env):
        for rows in _batches(self.input.elements(env), self.size, self.drop):
            out = []
            for k, shape in enumerate(self.padded):
                items = [np.asarray(r[k]) for r in rows]
                target = []
                for d, want in enumerate(shape):
                    longest = max(np.shape(x)[d] for x in items)
                    if want >= 0 and longest > want:
                        raise invalid_argument("Attempted to pad to a smaller size than the input element.")
                    target.append(int(want) if want >= 0 else longest)
                dtype = items[0].dtype
                batch = np.full([len(items)] + target, self.values[k], dtype=dtype)
                for i, x in enumerate(items):
                    batch[(i,) + tuple(slice(0, n) for n in x.shape)] = x
                out.append(batch)
            yield tuple(out)


@register_op("PaddedBatchDatasetV2", inputs=("input_dataset", "batch_size", "padded_shapes", "padding_values",
                                             "drop_remainder"), outputs=("handle",),
             list_inputs={"padded_shapes": "N", "padding_values": None},
             attrs={"Toutput_types": None, "output_shapes": None, "parallel_copy": False, "N": None, "metadata": ""},
             shape=dataset_shape)
def padded_batch_dataset_v2(input_dataset, batch_size, padded_shapes, padding_values, drop_remainder,
                            Toutput_types=None, output_shapes=None, parallel_copy=False, N=None, metadata=""):
    """handle = batches whose components are padded to ``padded_shapes`` (-1: the batch's longest)."""
    return PaddedBatchDS(input_dataset, scalar(batch_size, "batch_size"), padded_shapes, padding_values,
                         bool(drop_remainder), output_shapes)


class UnbatchDS(Dataset):
    op_type = "UnbatchDataset"

    def __init__(self, input_dataset, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.input = check_dataset(input_dataset)

    def elements(self, env):
        for elem in self.input.elements(env):
            n = {np.shape(c)[0] for c in elem}
            if len(n) != 1:
                raise invalid_argument("All components of an unbatched element must have the same first dimension.")
            for i in range(n.pop()):
                yield tuple(np.asarray(c[i]) for c in elem)


@_register("UnbatchDataset")
def unbatch_dataset(input_dataset, output_types=None, output_shapes=None, metadata=""):
    """handle = the rows of each element of ``input_dataset``."""
    return UnbatchDS(input_dataset, output_types, output_shapes)


# -- shuffle ----------------------------------------------------------------------------

_MAX_EPOCHS_IN_BUFFER = 3


class _SeedGenerator:
    """TF's RandomSeedGenerator: each walk's (seed, seed2) are the next two
    words of a Philox stream on the op's seeds."""

    def __init__(self, seed, seed2):
        self._gen, self._lock = SingleSample(seed, seed2), threading.Lock()

    def seeds(self):
        with self._lock:
            return self._gen(), self._gen()


class ShuffleDS(Dataset):
    op_type = "ShuffleDataset"

    def __init__(self, input_dataset, buffer_size, seed, seed2, count, reshuffle):
        input_dataset = check_dataset(input_dataset)
        super().__init__(input_dataset.output_types, input_dataset.output_shapes)
        if buffer_size <= 0:
            raise invalid_argument("buffer_size must be greater than zero.")
        self.input, self.size, self.count = input_dataset, int(buffer_size), int(count)
        if int(seed) == 0 and int(seed2) == 0:  # TF: random seeds
            seed, seed2 = SingleSample(0, 0).key, SingleSample(0, 0).key
        self.seeds, self.reshuffle = (int(seed), int(seed2)), bool(reshuffle)

    def elements(self, env):
        if self.reshuffle:  # one generator per dataset per iterator initialization, as TF's dataset op
            gen = env.state.get(self)
            if gen is None:
                gen = env.state.setdefault(self, _SeedGenerator(*self.seeds))
            seeds = gen.seeds()
        else:
            seeds = self.seeds
        rand = SingleSample(*seeds)
        size = self.size
        buf = [None] * size
        slices = collections.deque([[0, 0]])
        source, epoch, n, first = self.input.elements(env), 0, 0, True
        while True:
            while source is not None and n < size:
                elem = _END
                while self.count == -1 or epoch < self.count:
                    elem = next(source, _END)
                    if elem is not _END:
                        first = False
                        break
                    if first and self.count == -1:
                        return
                    epoch += 1
                    end = slices[-1][1]
                    slices.append([end, end])
                    source = self.input.elements(env)
                if elem is _END:
                    source = None
                else:
                    buf[slices[-1][1] % size] = elem
                    slices[-1][1] += 1
                    n += 1
                if len(slices) > _MAX_EPOCHS_IN_BUFFER:
                    break
            if n == 0:
                return
            while slices[0][0] == slices[0][1]:
                slices.popleft()
            start, end = slices[0]
            index = (start + rand() % (end - start)) % size
            out = buf[index]
            buf[index] = buf[start % size]
            buf[start % size] = None
            slices[0][0] += 1
            n -= 1
            yield out


@_register("ShuffleDataset", inputs=("input_dataset", "buffer_size", "seed", "seed2"),
           attrs={"reshuffle_each_iteration": True})
def shuffle_dataset(input_dataset, buffer_size, seed, seed2, reshuffle_each_iteration=True, output_types=None,
                    output_shapes=None, metadata=""):
    """handle = the elements in a pseudorandom order (a ``buffer_size`` window)."""
    return ShuffleDS(input_dataset, scalar(buffer_size, "buffer_size"), scalar(seed, "seed"),
                     scalar(seed2, "seed2"), 1, reshuffle_each_iteration)


@_register("ShuffleAndRepeatDataset", inputs=("input_dataset", "buffer_size", "seed", "seed2", "count"),
           attrs={"reshuffle_each_iteration": True})
def shuffle_and_repeat_dataset(input_dataset, buffer_size, seed, seed2, count, reshuffle_each_iteration=True,
                               output_types=None, output_shapes=None, metadata=""):
    """handle = ``count`` epochs (-1: forever), each shuffled with the next seeds
    of the seed generator (TF 2.x's kernel gives ``shuffle(...).repeat(count)``'s order)."""
    shuffled = ShuffleDS(input_dataset, scalar(buffer_size, "buffer_size"), scalar(seed, "seed"),
                         scalar(seed2, "seed2"), 1, reshuffle_each_iteration)
    return RepeatDS(shuffled, scalar(count, "count"))


# -- counting -------------------------------------------------------------------------

class _Unary(Dataset):
    def __init__(self, input_dataset, count=None):
        input_dataset = check_dataset(input_dataset)
        super().__init__(input_dataset.output_types, input_dataset.output_shapes)
        self.input, self.count = input_dataset, None if count is None else int(count)


class RepeatDS(_Unary):
    op_type = "RepeatDataset"

    def elements(self, env):
        epoch = 0
        while self.count < 0 or epoch < self.count:
            empty = True
            for elem in self.input.elements(env):
                empty = False
                yield elem
            if empty and self.count < 0:
                return
            epoch += 1


class TakeDS(_Unary):
    op_type = "TakeDataset"

    def elements(self, env):
        if self.count == 0:
            return
        for i, elem in enumerate(self.input.elements(env), 1):
            yield elem
            if i == self.count:
                return


class SkipDS(_Unary):
    op_type = "SkipDataset"

    def elements(self, env):
        for i, elem in enumerate(self.input.elements(env)):
            if self.count >= 0 and i >= self.count:
                yield elem


for _name, _cls in (("RepeatDataset", RepeatDS), ("TakeDataset", TakeDS), ("SkipDataset", SkipDS)):
    def _kernel(input_dataset, count, output_types=None, output_shapes=None, metadata="", _cls=_cls):
        return _cls(input_dataset, scalar(count, "count"))
    _kernel.__doc__ = f"handle = {_name}: ``count`` (-1: all) of the input's epochs/elements."
    _register(_name, inputs=("input_dataset", "count"))(_kernel)


class CacheDS(_Unary):
    """A memory cache: the first complete walk records the elements, later walks
    (the epochs of a ``repeat``) replay them; the cache belongs to one iterator
    initialization, as TF's belongs to the dataset its op makes."""
    op_type = "CacheDataset"

    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        self.filename = filename

    def elements(self, env):
        if self.filename:
            yield from cache.elements(self.filename, self.input.elements(env), self.output_types)
            return
        cached = env.state.get(self)
        if cached is not None:
            yield from cached
            return
        seen = []
        for elem in self.input.elements(env):
            seen.append(elem)
            yield elem
        env.state.setdefault(self, seen)


@_register("CacheDataset", inputs=("input_dataset", "filename"))
def cache_dataset(input_dataset, filename, output_types=None, output_shapes=None, metadata=""):
    """handle = the input's elements, computed once per iterator initialization and then replayed
    (``filename`` empty), or once into TF's file cache at ``filename`` and read from it after."""
    check_dataset(input_dataset)
    filename = np.asarray(scalar(filename, "filename", lambda v: v)).item()
    filename = filename.decode() if isinstance(filename, bytes) else str(filename)
    return CacheDS(input_dataset, filename)


# -- combining ---------------------------------------------------------------------------

class ZipDS(Dataset):
    op_type = "ZipDataset"

    def __init__(self, inputs, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.inputs = [check_dataset(d, "input_datasets") for d in inputs]

    def elements(self, env):
        walks = [d.elements(env) for d in self.inputs]
        while True:
            parts = [next(w, _END) for w in walks]
            if any(p is _END for p in parts):
                return
            yield tuple(c for p in parts for c in p)


@_register("ZipDataset", inputs=("input_datasets",), list_inputs={"input_datasets": "N"}, attrs={"N": None})
def zip_dataset(input_datasets, output_types=None, output_shapes=None, N=None, metadata=""):
    """handle = tuples of the inputs' elements, up to the shortest input."""
    return ZipDS(input_datasets, output_types, output_shapes)


class ConcatDS(Dataset):
    op_type = "ConcatenateDataset"

    def __init__(self, a, b, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.a, self.b = check_dataset(a), check_dataset(b, "another_dataset")
        if [t.base_dtype for t in self.a.output_types] != [t.base_dtype for t in self.b.output_types]:
            raise invalid_argument("input dataset and dataset to concatenate have different output_types")

    def elements(self, env):
        yield from self.a.elements(env)
        yield from self.b.elements(env)


@_register("ConcatenateDataset", inputs=("input_dataset", "another_dataset"))
def concatenate_dataset(input_dataset, another_dataset, output_types=None, output_shapes=None, metadata=""):
    """handle = the elements of ``input_dataset`` then those of ``another_dataset``."""
    return ConcatDS(input_dataset, another_dataset, output_types, output_shapes)


# -- prefetch --------------------------------------------------------------------------------

class PrefetchDS(_Unary):
    """A background thread walks the input, at most ``buffer_size`` elements
    ahead (-1, TF's AUTOTUNE: 1); it stops when the walk is reset or its Session
    closes (``Env.closed``)."""
    op_type = "PrefetchDataset"

    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        self.buffer = 1 if buffer_size < 0 else max(int(buffer_size), 1)

    def elements(self, env):
        if self.buffer == 0:
            yield from self.input.elements(env)
            return
        q = queue.Queue(self.buffer)
        stop = threading.Event()

        def put(item):
            while not (stop.is_set() or env.closed.is_set()):
                try:
                    q.put(item, timeout=0.05)
                    return True
                except queue.Full:
                    continue
            return False

        def work():
            try:
                for elem in self.input.elements(env):
                    if not put(("elem", elem)):
                        return
                put(("end", None))
            except BaseException as e:  # handed to the consumer
                put(("error", e))

        env.start(work)
        try:
            while True:
                try:
                    kind, item = q.get(timeout=0.05)
                except queue.Empty:
                    if env.closed.is_set():
                        raise errors.CancelledError(None, None, "Iterator was cancelled (its session closed)")
                    continue
                if kind == "end":
                    return
                if kind == "error":
                    raise item
                yield item
        finally:
            stop.set()


@_register("PrefetchDataset", inputs=("input_dataset", "buffer_size"),
           attrs={"slack_period": 0, "legacy_autotune": True, "buffer_size_min": 0})
def prefetch_dataset(input_dataset, buffer_size, slack_period=0, legacy_autotune=True, buffer_size_min=0,
                     output_types=None, output_shapes=None, metadata=""):
    """handle = the input's elements, computed ahead by a background thread."""
    return PrefetchDS(input_dataset, scalar(buffer_size, "buffer_size"))


# -- generators -------------------------------------------------------------------------------

class GeneratorDS(Dataset):
    """``init_func`` makes a state; ``next_func(state)`` each element until it
    raises OutOfRangeError; ``finalize_func(state)`` when the walk ends."""
    op_type = "GeneratorDataset"

    def __init__(self, init, next_, finalize, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.init, self.next, self.finalize = init, next_, finalize

    def elements(self, env):
        state = self.init(env, [])
        try:
            while True:
                try:
                    out = self.next(env, state)
                except errors.OutOfRangeError:
                    return
                yield out
        finally:
            try:
                self.finalize(env, state)
            except errors.OpError:
                pass


@_register("GeneratorDataset", inputs=("init_func_other_args", "next_func_other_args", "finalize_func_other_args"),
           list_inputs={"init_func_other_args": None, "next_func_other_args": None,
                        "finalize_func_other_args": None},
           attrs={"init_func": REQUIRED, "next_func": REQUIRED, "finalize_func": REQUIRED,
                  "Tinit_func_args": None, "Tnext_func_args": None, "Tfinalize_func_args": None}, ctx=True)
def generator_dataset(init_func_other_args, next_func_other_args, finalize_func_other_args, init_func, next_func,
                      finalize_func, Tinit_func_args=None, Tnext_func_args=None, Tfinalize_func_args=None,
                      output_types=None, output_shapes=None, metadata="", ctx=None):
    """handle = the elements ``next_func`` produces from the state ``init_func`` makes."""
    return GeneratorDS(_fn(init_func, init_func_other_args, ctx, "GeneratorDataset"),
                       _fn(next_func, next_func_other_args, ctx, "GeneratorDataset"),
                       _fn(finalize_func, finalize_func_other_args, ctx, "GeneratorDataset"),
                       output_types, output_shapes)
