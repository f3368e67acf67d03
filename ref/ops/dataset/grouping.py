"""The ``tf.data.experimental`` kernels TF1 scripts used most: grouping
(GroupByWindowDataset, behind ``group_by_window`` and
``bucket_by_sequence_length``), ScanDataset (``scan``, ``Counter``),
sampling (RandomDataset, DirectedInterleaveDataset: ``sample_from_datasets``,
``choose_from_datasets``), IgnoreErrorsDataset, RewriteDataset,
TakeWhileDataset (``take_while``), UniqueDataset (``unique``: first
occurrences, in input order), and the ops
that consume a whole dataset in one run: ReduceDataset (``Dataset.reduce``)
and DatasetToSingleElement (``get_single_element``).

Orders are TF's kernels': a group is flushed when it holds its window size of
elements; at the end of the input the partial groups follow in increasing key
order (TF keeps them in a ``std::map``). RandomDataset yields the 32-bit words
of ``SingleSampleAdapter<PhiloxRandom>`` on (seed, seed2) as int64 scalars,
the same stream on every walk (TF1's op has a fixed seed generator).
"""
from __future__ import annotations

import numpy as np

from ref.ops.dataset.datasets import predicate
from ref.ops.dataset.base import (DATASET_ATTRS, Dataset, ElementError, Env, Function, check_dataset,
                                  dataset_shape, scalar)
from ref.ops.philox import SingleSample
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.platform import tf_logging
from ref.types import dtypes, errors
from ref.types.shapes import TensorShape

_END = object()


def _fn(f, args, ctx, op_type):
    return Function(f, args or [], ctx.op_name if ctx is not None else op_type, op_type)


# -- ignore_errors -------------------------------------------------------------------

class IgnoreErrorsDS(Dataset):
    op_type = "IgnoreErrorsDataset"

    def __init__(self, input_dataset, log_warning):
        input_dataset = check_dataset(input_dataset)
        super().__init__(input_dataset.output_types, input_dataset.output_shapes)
        self.input, self.log_warning = input_dataset, bool(log_warning)

    def elements(self, env):
        """The input's elements, skipping each one whose computation failed."""
        for out in self.input.outcomes(env):
            if isinstance(out, ElementError):
                if self.log_warning:
                    tf_logging.warning(f"Error raised with error message {out.error.message}")
                continue
            yield out


@register_op("IgnoreErrorsDataset", inputs=("input_dataset",), outputs=("handle",),
             attrs={"output_types": None, "output_shapes": None, "log_warning": False}, shape=dataset_shape)
def ignore_errors_dataset(input_dataset, output_types=None, output_shapes=None, log_warning=False):
    """handle = the elements of ``input_dataset`` that were computed without an error."""
    return IgnoreErrorsDS(input_dataset, log_warning)


class TakeWhileDS(Dataset):
    op_type = "TakeWhileDataset"

    def __init__(self, input_dataset, fn):
        input_dataset = check_dataset(input_dataset)
        super().__init__(input_dataset.output_types, input_dataset.output_shapes)
        self.input, self.fn = input_dataset, fn

    def elements(self, env):
        for elem in self.input.elements(env):
            if not predicate(self.fn, env, elem, "`predicate` must returns a scalar bool tensor."):
                return
            yield elem


@register_op("TakeWhileDataset", inputs=("input_dataset", "other_arguments"), outputs=("handle",),
             list_inputs={"other_arguments": None},
             attrs={**DATASET_ATTRS, "predicate": REQUIRED, "Targuments": None}, shape=dataset_shape, ctx=True,
             stateful=True)
def take_while_dataset(input_dataset, other_arguments, predicate, Targuments=None, output_types=None,
                       output_shapes=None, metadata="", ctx=None):
    """handle = the elements of ``input_dataset`` up to (without) the first for which ``predicate`` is false."""
    return TakeWhileDS(input_dataset, _fn(predicate, other_arguments, ctx, "TakeWhileDataset"))


class UniqueDS(Dataset):
    op_type = "UniqueDataset"

    def __init__(self, input_dataset):
        input_dataset = check_dataset(input_dataset)
        types = input_dataset.output_types
        if len(types) != 1:
            raise invalid_argument("UniqueDataset only supports inputs with a single component.")
        if dtypes.as_dtype(types[0]) not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise invalid_argument("UniqueDataset only supports inputs with a single `tf.int32`, `tf.int64`, or "
                                   "`tf.string` component.")
        super().__init__(types, input_dataset.output_shapes)
        self.input = input_dataset

    def elements(self, env):
        seen = set()
        for elem in self.input.elements(env):
            v = np.asarray(elem[0])
            key = (v.shape, tuple(v.reshape(-1).tolist()))
            if key not in seen:
                seen.add(key)
                yield elem


@register_op("UniqueDataset", inputs=("input_dataset",), outputs=("handle",), attrs=dict(DATASET_ATTRS),
             shape=dataset_shape)
def unique_dataset(input_dataset, output_types=None, output_shapes=None, metadata=""):
    """handle = the elements of ``input_dataset`` not seen before (first occurrences, in order)."""
    return UniqueDS(input_dataset)


class RewriteDS(Dataset):
    op_type = "RewriteDataset"

    def __init__(self, input_dataset):
        input_dataset = check_dataset(input_dataset)
        super().__init__(input_dataset.output_types, input_dataset.output_shapes)
        self.input = input_dataset

    def elements(self, env):
        return self.input.elements(env)

    def outcomes(self, env):
        return self.input.outcomes(env)


@register_op("RewriteDataset", inputs=("input_dataset", "rewrite_name"), outputs=("handle",),
             attrs={"output_types": None, "output_shapes": None}, shape=dataset_shape)
def rewrite_dataset(input_dataset, rewrite_name, output_types=None, output_shapes=None):
    """handle = ``input_dataset`` (TF applies the named graph rewrite; its elements are the same)."""
    return RewriteDS(input_dataset)


# -- scan -------------------------------------------------------------------------------

class ScanDS(Dataset):
    op_type = "ScanDataset"

    def __init__(self, input_dataset, initial_state, fn, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.input, self.initial, self.fn = check_dataset(input_dataset), tuple(initial_state), fn

    def elements(self, env):
        """``f(state, element) -> (new state, output)`` along the input."""
        state, n = self.initial, len(self.initial)
        for elem in self.input.elements(env):
            try:
                out = self.fn(env, state + tuple(elem))
            except errors.OutOfRangeError as e:
                raise errors.InvalidArgumentError(
                    None, None, f"Function invocation produced OutOfRangeError: {e.message}") from e
            state = tuple(out[:n])
            yield tuple(out[n:])


@register_op("ScanDataset", inputs=("input_dataset", "initial_state", "other_arguments"), outputs=("handle",),
             list_inputs={"initial_state": None, "other_arguments": None},
             attrs={**DATASET_ATTRS, "f": REQUIRED, "Tstate": None, "Targuments": None,
                    "preserve_cardinality": False, "use_default_device": True},
             shape=dataset_shape, ctx=True, stateful=True)
def scan_dataset(input_dataset, initial_state, other_arguments, f, Tstate=None, Targuments=None, output_types=None,
                 output_shapes=None, preserve_cardinality=False, use_default_device=True, metadata="", ctx=None):
    """handle = the outputs of ``f`` threaded with a state along ``input_dataset``."""
    return ScanDS(input_dataset, initial_state, _fn(f, other_arguments, ctx, "ScanDataset"), output_types,
                  output_shapes)


# -- sampling ----------------------------------------------------------------------------

class RandomDS(Dataset):
    op_type = "RandomDataset"

    def __init__(self, seed, seed2):
        super().__init__([dtypes.int64], [[]])
        if int(seed) == 0 and int(seed2) == 0:  # TF's RandomSeeds: (0, 0) draws random seeds
            seed, seed2 = SingleSample(0, 0).key, SingleSample(0, 0).key
        self.seeds = (int(seed), int(seed2))

    def elements(self, env):
        rand = SingleSample(*self.seeds)
        while True:
            yield (np.asarray(rand(), np.int64),)


@register_op("RandomDataset", inputs=("seed", "seed2"), outputs=("handle",), attrs=DATASET_ATTRS,
             shape=dataset_shape, stateful=True)
def random_dataset(seed, seed2, output_types=None, output_shapes=None, metadata=""):
    """handle = the endless stream of Philox 32-bit words on (seed, seed2), as int64 scalars."""
    return RandomDS(scalar(seed, "seed"), scalar(seed2, "seed2"))


class DirectedInterleaveDS(Dataset):
    op_type = "DirectedInterleaveDataset"

    def __init__(self, selector, inputs, stop_on_empty):
        inputs = [check_dataset(d, "data_input_datasets") for d in inputs]
        super().__init__(inputs[0].output_types, inputs[0].output_shapes)
        self.selector, self.inputs, self.stop_on_empty = check_dataset(selector), inputs, bool(stop_on_empty)

    def elements(self, env):
        """The element of input ``i`` for each ``i`` of the selector; an exhausted
        input is skipped (or ends it all with ``stop_on_empty_dataset``)."""
        walks = [d.elements(env) for d in self.inputs]
        active = len(walks)
        for (i,) in self.selector.elements(env):
            i = int(i)
            if i < 0 or i >= len(walks):
                raise invalid_argument(f"Selector index out of range: {i} >= {len(walks)}")
            if walks[i] is None:
                continue
            elem = next(walks[i], _END)
            if elem is not _END:
                yield elem
                continue
            if self.stop_on_empty:
                return
            walks[i] = None
            active -= 1
            if active == 0:
                return


@register_op("DirectedInterleaveDataset", inputs=("selector_input_dataset", "data_input_datasets"),
             outputs=("handle",), list_inputs={"data_input_datasets": "N"},
             attrs={"output_types": None, "output_shapes": None, "N": None, "stop_on_empty_dataset": False},
             shape=dataset_shape)
def directed_interleave_dataset(selector_input_dataset, data_input_datasets, output_types=None, output_shapes=None,
                                N=None, stop_on_empty_dataset=False):
    """handle = the elements of the data inputs in the order the selector's indices pick them."""
    return DirectedInterleaveDS(selector_input_dataset, data_input_datasets, stop_on_empty_dataset)


# -- group_by_window ------------------------------------------------------------------------

class _Window(Dataset):
    """The elements of one group, the dataset ``reduce_func`` receives."""

    op_type = "WindowDataset"

    def __init__(self, rows, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.rows = list(rows)

    def elements(self, env):
        yield from self.rows


def _int64_scalar(out, what):
    if len(out) != 1 or np.asarray(out[0]).dtype != np.int64 or np.size(out[0]) != 1:
        raise invalid_argument(f"`{what}` must return a scalar int64.")
    return int(np.asarray(out[0]).reshape(()))


class GroupByWindowDS(Dataset):
    op_type = "GroupByWindowDataset"

    def __init__(self, input_dataset, key_fn, reduce_fn, window_fn, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        self.input, self.key_fn, self.reduce_fn, self.window_fn = (check_dataset(input_dataset), key_fn, reduce_fn,
                                                                   window_fn)

    def _flush(self, env, key, rows):
        window = _Window(rows, self.input.output_types, self.input.output_shapes)
        out = self.reduce_fn(env, (np.asarray(key, np.int64), window))
        if len(out) != 1 or not isinstance(out[0], Dataset):
            raise invalid_argument("`reduce_func` must return a dataset.")
        return out[0].elements(env)

    def elements(self, env):
        groups, sizes = {}, {}
        for elem in self.input.elements(env):
            key = _int64_scalar(self.key_fn(env, elem), "key_func")
            if key not in sizes:
                size = _int64_scalar(self.window_fn(env, (np.asarray(key, np.int64),)), "window_size_func")
                if size <= 0:
                    raise invalid_argument(f"Window size must be greater than zero, but got {size}.")
                sizes[key] = size
            group = groups.setdefault(key, [])
            group.append(elem)
            if len(group) == sizes[key]:
                del groups[key]
                yield from self._flush(env, key, group)
        for key in sorted(groups):
            yield from self._flush(env, key, groups[key])


@register_op("GroupByWindowDataset", inputs=("input_dataset", "key_func_other_arguments",
                                             "reduce_func_other_arguments", "window_size_func_other_arguments"),
             outputs=("handle",), list_inputs={"key_func_other_arguments": None,
                                               "reduce_func_other_arguments": None,
                                               "window_size_func_other_arguments": None},
             attrs={**DATASET_ATTRS, "key_func": REQUIRED, "reduce_func": REQUIRED, "window_size_func": REQUIRED,
                    "Tkey_func_other_arguments": None, "Treduce_func_other_arguments": None,
                    "Twindow_size_func_other_arguments": None},
             shape=dataset_shape, ctx=True, stateful=True)
def group_by_window_dataset(input_dataset, key_func_other_arguments, reduce_func_other_arguments,
                            window_size_func_other_arguments, key_func, reduce_func, window_size_func,
                            Tkey_func_other_arguments=None, Treduce_func_other_arguments=None,
                            Twindow_size_func_other_arguments=None, output_types=None, output_shapes=None,
                            metadata="", ctx=None):
    """handle = the datasets ``reduce_func`` makes of each window of elements with the same key."""
    op = "GroupByWindowDataset"
    return GroupByWindowDS(input_dataset, _fn(key_func, key_func_other_arguments, ctx, op),
                           _fn(reduce_func, reduce_func_other_arguments, ctx, op),
                           _fn(window_size_func, window_size_func_other_arguments, ctx, op), output_types,
                           output_shapes)


# -- window -------------------------------------------------------------------------------------

class WindowDS(Dataset):
    """``Dataset.window``: windows of ``size`` elements ``stride`` apart, a new
    one every ``shift`` elements; each element is a tuple of datasets, one per
    input component. The windows that start within the input but run past its
    end follow, shorter, unless ``drop_remainder`` (TF's WindowDatasetOp)."""

    op_type = "WindowDataset"

    def __init__(self, input_dataset, size, shift, stride, drop_remainder, output_types, output_shapes):
        super().__init__(output_types, output_shapes)
        for what, v in (("size", size), ("shift", shift), ("stride", stride)):
            if v <= 0:
                raise invalid_argument(f"Window {what} must be greater than zero, but got {v}.")
        self.input = check_dataset(input_dataset)
        self.size, self.shift, self.stride, self.drop = int(size), int(shift), int(stride), bool(drop_remainder)

    def _window(self, rows):
        types, shapes = self.input.output_types, self.input.output_shapes
        return tuple(_Window([(r[k],) for r in rows], [types[k]], [shapes[k]]) for k in range(len(types)))

    def elements(self, env):
        span = (self.size - 1) * self.stride + 1
        buffer, skip = [], 0
        for elem in self.input.elements(env):
            if skip:  # shift > span: input elements between two windows
                skip -= 1
                continue
            buffer.append(elem)
            if len(buffer) == span:
                yield self._window(buffer[::self.stride])
                skip, buffer = max(0, self.shift - span), buffer[self.shift:]
        if self.drop:
            return
        while buffer:
            yield self._window(buffer[:span:self.stride])
            buffer = buffer[self.shift:]


@register_op("WindowDataset", inputs=("input_dataset", "size", "shift", "stride", "drop_remainder"),
             outputs=("handle",), attrs=dict(DATASET_ATTRS), shape=dataset_shape)
def window_dataset(input_dataset, size, shift, stride, drop_remainder, output_types=None, output_shapes=None,
                   metadata=""):
    """handle = the windows of ``input_dataset`` (each a tuple of one-component datasets)."""
    return WindowDS(input_dataset, scalar(size, "size"), scalar(shift, "shift"), scalar(stride, "stride"),
                    bool(drop_remainder), output_types, output_shapes)


# -- whole-dataset consumers -------------------------------------------------------------------

def _components_shape(ins, attrs):
    shapes = attrs.get("output_shapes") or [None] * len(attrs["output_types"])
    return [(d, TensorShape(s)) for d, s in zip(attrs["output_types"], shapes)]


@register_op("ReduceDataset", inputs=("input_dataset", "initial_state", "other_arguments"), outputs=("*components",),
             list_inputs={"initial_state": None, "other_arguments": None},
             attrs={"f": REQUIRED, "Tstate": None, "Targuments": None, "output_types": REQUIRED,
                    "output_shapes": REQUIRED, "use_inter_op_parallelism": True, "metadata": ""},
             shape=_components_shape, ctx=True, stateful=True)
def reduce_dataset(input_dataset, initial_state, other_arguments, f, Tstate=None, Targuments=None,
                   output_types=None, output_shapes=None, use_inter_op_parallelism=True, metadata="", ctx=None):
    """components = the state after ``f(state, element)`` over every element of ``input_dataset``."""
    fn = _fn(f, other_arguments, ctx, "ReduceDataset")
    env, state = Env(ctx), tuple(initial_state)
    try:
        for elem in check_dataset(input_dataset).elements(env):
            state = tuple(fn(env, state + tuple(elem)))
    finally:
        env.close()
    return state


@register_op("DatasetToSingleElement", inputs=("dataset",), outputs=("*components",),
             attrs={"output_types": REQUIRED, "output_shapes": REQUIRED, "metadata": ""},
             shape=_components_shape, ctx=True, stateful=True)
def dataset_to_single_element(dataset, output_types=None, output_shapes=None, metadata="", ctx=None):
    """components = the one element of ``dataset`` (InvalidArgumentError if it has none or more)."""
    env = Env(ctx)
    try:
        walk = check_dataset(dataset, "dataset").elements(env)
        elem = next(walk, _END)
        if elem is _END:
            raise invalid_argument("Dataset was empty.")
        if next(walk, _END) is not _END:
            raise invalid_argument("Dataset had more than one element.")
    finally:
        env.close()
    return tuple(elem)
