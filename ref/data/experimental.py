"""``tf.data.experimental`` pieces TF1 scripts used: ``map_and_batch``,
``shuffle_and_repeat``, ``parallel_interleave``, ``AUTOTUNE``,
``make_saveable_from_iterator``; ``ignore_errors``, ``scan``, ``Counter``,
``group_by_window``, ``bucket_by_sequence_length``, ``get_single_element``,
``unbatch``, ``unique``, ``take_while``, ``enumerate_dataset``,
``sample_from_datasets`` (TF's selector: ``RandomDataset`` words batched in
pairs as the seed of a ``StatelessMultinomial`` draw), ``choose_from_datasets``.
"""
from __future__ import annotations

import numpy as np

from ref.data.dataset_ops import AUTOTUNE, DatasetV1, TensorSpec, _Traced, data_seeds  # noqa: F401  (AUTOTUNE: tf.data.experimental.AUTOTUNE)
from ref.data.readers import CsvDataset  # noqa: F401  (tf.data.experimental.CsvDataset)
from ref.data.csv_dataset import make_csv_dataset  # noqa: F401
from ref.data.options import (AutoShardPolicy, AutotuneOptions, DistributeOptions,  # noqa: F401
                              ExternalStatePolicy, OptimizationOptions, ThreadingOptions)
from ref.data.iterator_ops import make_saveable_from_iterator  # noqa: F401  (tf.data.experimental's name)
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, math_ops
from ref.types import dtypes, nest
from ref.types.shapes import TensorShape


def _i64(v, name):
    return convert_to_tensor(v, dtype=dtypes.int64, name=name)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False, num_parallel_calls=None):
    """``map(map_func)`` then ``batch(batch_size)`` as one ``MapAndBatchDataset``."""
    def apply(ds):
        fn = _Traced(map_func, ds._structure, "map")
        calls = num_parallel_calls if num_parallel_calls is not None else \
            (batch_size * (num_parallel_batches or 1))
        dim = int(batch_size) if drop_remainder and isinstance(batch_size, (int, np.integer)) else None
        out = nest.map_structure(lambda s: TensorSpec(TensorShape([dim]).concatenate(s.shape), s.dtype), fn.structure)
        v = apply_op("MapAndBatchDataset", input_dataset=ds._variant_tensor, other_arguments=fn.captures,
                     batch_size=_i64(batch_size, "batch_size"), num_parallel_calls=_i64(calls, "num_parallel_calls"),
                     drop_remainder=convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder"),
                     f=fn.graph, Targuments=fn.targuments, preserve_cardinality=True,
                     **DatasetV1(None, out)._attrs())
        return DatasetV1(v, out)
    return apply


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """Shuffles across epoch boundaries, ``count`` epochs (None: forever)."""
    def apply(ds):
        bs = _i64(buffer_size, "buffer_size")
        s, s2 = data_seeds(seed)
        return ds._unary("ShuffleAndRepeatDataset", buffer_size=bs, seed=s, seed2=s2,
                         count=_i64(-1 if count is None else count, "count"))
    return apply


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False, buffer_output_elements=None,
                        prefetch_input_elements=None):
    """``interleave`` with parallel reads (``LegacyParallelInterleaveDatasetV2``; TF's order unless sloppy)."""
    def apply(ds):
        fn = _Traced(map_func, ds._structure, "interleave", want_dataset=True)
        return ds._unary("LegacyParallelInterleaveDatasetV2", fn.structure, other_arguments=fn.captures,
                         cycle_length=_i64(cycle_length, "cycle_length"), block_length=_i64(block_length, "block_length"),
                         buffer_output_elements=_i64(-1 if buffer_output_elements is None else buffer_output_elements,
                                                     "buffer_output_elements"),
                         prefetch_input_elements=_i64(-1 if prefetch_input_elements is None
                                                      else prefetch_input_elements, "prefetch_input_elements"),
                         f=fn.graph, Targuments=fn.targuments, deterministic="false" if sloppy else "default")
    return apply


def ignore_errors(log_warning=False):
    """Drops the elements whose computation failed (``IgnoreErrorsDataset``)."""
    return lambda ds: ds.ignore_errors(log_warning)


def scan(initial_state, scan_func):
    """``scan_func(state, element) -> (new_state, output)`` along a dataset."""
    return lambda ds: ds.scan(initial_state, scan_func)


def unbatch():
    """Splits each element into its slices along the first dimension (``Dataset.unbatch``)."""
    return lambda ds: ds.unbatch()


def unique():
    """Drops the elements seen before (``Dataset.unique``)."""
    return lambda ds: ds.unique()


def take_while(predicate):
    """Stops at the first element for which ``predicate`` is false (``Dataset.take_while``)."""
    return lambda ds: ds.take_while(predicate)


def enumerate_dataset(start=0):
    """(index, element) pairs counting from ``start`` (``Dataset.enumerate``)."""
    return lambda ds: ds.enumerate(start)


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """``reduce_func(key, window)`` of each window of elements with the same key."""
    return lambda ds: ds.group_by_window(key_func, reduce_func, window_size, window_size_func)


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes=None,
                              padding_values=None, pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """Batches elements of similar length (``Dataset.bucket_by_sequence_length``)."""
    return lambda ds: ds.bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                                                   padded_shapes, padding_values, pad_to_bucket_boundary,
                                                   no_padding, drop_remainder)


def get_single_element(dataset):
    """The only element of ``dataset`` (``DatasetToSingleElement``)."""
    if not isinstance(dataset, DatasetV1):
        raise TypeError(f"Invalid `dataset`. Expected a `tf.data.Dataset` object but got {type(dataset)}.")
    return dataset.get_single_element()


def Counter(start=0, step=1, dtype=dtypes.int64):  # noqa: N802  (TF's name)
    """start, start + step, ... forever: a ``scan`` over a repeated constant."""
    with name_scope("counter"):
        start = convert_to_tensor(start, dtype=dtype, name="start")
        step = convert_to_tensor(step, dtype=dtype, name="step")
        return DatasetV1.from_tensors(0).repeat(None).scan(start, lambda state, _: (state + step, state))


def random_dataset(seed=None):
    """``Dataset.random``: the int64 words of a Philox stream on the seeds (``RandomDataset``)."""
    s, s2 = data_seeds(seed)
    return DatasetV1(apply_op("RandomDataset", seed=s, seed2=s2, output_types=[dtypes.int64],
                              output_shapes=[TensorShape([])]), TensorSpec([], dtypes.int64))


def _directed_interleave(selector, datasets, stop_on_empty_dataset):
    flat = [_flat(d._structure) for d in datasets]
    for f in flat[1:]:
        if [s.dtype for s in f] != [s.dtype for s in flat[0]]:
            raise TypeError(f"Invalid `datasets`. Elements of all datasets must have the same types but got "
                            f"{datasets[0]._structure} and {f}.")
    specs = [TensorSpec(_common_shape([f[k].shape for f in flat]), s.dtype) for k, s in enumerate(flat[0])]
    structure = nest.pack_sequence_as(datasets[0]._structure, specs)
    v = apply_op("DirectedInterleaveDataset", selector_input_dataset=selector._variant_tensor,
                 data_input_datasets=[d._variant_tensor for d in datasets], stop_on_empty_dataset=stop_on_empty_dataset,
                 **DatasetV1(None, structure)._attrs())
    return DatasetV1(v, structure)


def _flat(structure):
    return nest.flatten(structure)


def _common_shape(shapes):
    out = shapes[0]
    for s in shapes[1:]:
        out = out.most_specific_compatible_shape(s)
    return out


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """Elements drawn from ``datasets`` at random with probabilities ``weights``, as TF
    draws them: each choice is ``StatelessMultinomial(log(weights), 1)`` seeded by the
    next two words of ``RandomDataset(seed)``."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    if not isinstance(weights, DatasetV1):
        if weights is None:
            logits = [[1.0] * len(datasets)]
        else:
            if isinstance(weights, Tensor):
                if not weights.shape.is_compatible_with([len(datasets)]):
                    raise ValueError(f"Invalid `weights`. The shape of `weights` should be compatible with "
                                     f"`[len(datasets)]` but is {weights.shape}.")
            else:
                if len(datasets) != len(weights):
                    raise ValueError(f"Invalid `weights`. `weights` should have the same length as `datasets` but "
                                     f"got `len(weights)={len(weights)}` vs. `len(datasets)={len(datasets)}`.")
                kept = [(d, w) for d, w in zip(datasets, weights) if w > 0]
                datasets, weights = (map(list, zip(*kept)) if kept else ([datasets[0].take(0)], [1.0]))
            weights = convert_to_tensor(weights, name="weights")
            if weights.dtype not in (dtypes.float32, dtypes.float64):
                raise TypeError(f"Invalid `weights`. `weights` type must be either `tf.float32` or `tf.float64` "
                                f"but is {weights.dtype}.")
            logits = array_ops.expand_dims(math_ops.log(weights, name="logits"), 0)
        if len(datasets) == 1:
            return datasets[0]

        def select_dataset_constant_logits(seed):
            return array_ops.squeeze(_multinomial(logits, seed), axis=[0, 1])

        selector = _internal_map(random_dataset(seed).batch(2), select_dataset_constant_logits)
    else:
        logits_ds = weights.map(lambda *p: math_ops.log(p, name="logits"))

        def select_dataset_varying_logits(logits, seed):
            return array_ops.squeeze(_multinomial(logits, seed), axis=[0, 1])

        selector = _internal_map(DatasetV1.zip((logits_ds, random_dataset(seed).batch(2))),
                                 select_dataset_varying_logits)
    return _directed_interleave(selector, datasets, stop_on_empty_dataset)


def _multinomial(logits, seed):
    return apply_op("StatelessMultinomial", logits=logits, num_samples=1, seed=seed, output_dtype=dtypes.int64)


def _internal_map(ds, fn):
    """TF's internal ``_MapDataset`` (TF2's map: cardinality preserved, no inter-op parallelism)."""
    traced = _Traced(fn, ds._structure, "map")
    v = apply_op("MapDataset", input_dataset=ds._variant_tensor, other_arguments=traced.captures, f=traced.graph,
                 Targuments=traced.targuments, use_inter_op_parallelism=False, preserve_cardinality=True,
                 **DatasetV1(None, traced.structure)._attrs())
    return DatasetV1(v, traced.structure)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=False):
    """The element of ``datasets[i]`` for each ``i`` of ``choice_dataset`` (a scalar int64 dataset)."""
    datasets = list(datasets)
    if not datasets:
        raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
    spec = choice_dataset._structure if isinstance(choice_dataset, DatasetV1) else None
    if spec != TensorSpec([], dtypes.int64):
        raise TypeError(f"Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
                        f"tensors but are {spec}.")
    rewritten = DatasetV1(apply_op("RewriteDataset", input_dataset=choice_dataset._variant_tensor,
                                   rewrite_name="replicate_on_split", **choice_dataset._attrs()), spec)
    return _directed_interleave(rewritten, datasets, stop_on_empty_dataset)


INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def cardinality(dataset):
    """``dataset``'s element count as an int64 scalar tensor (-1 infinite, -2 unknown)."""
    return apply_op("DatasetCardinality", input_dataset=dataset._variant_tensor)


def assert_cardinality(expected_cardinality):
    """A ``Dataset.apply`` function: the dataset, failing with
    FailedPreconditionError when it yields other than ``expected_cardinality``
    elements; its cardinality is then known (``AssertCardinalityDataset``)."""
    def _apply_fn(dataset):
        expected = convert_to_tensor(expected_cardinality, dtype=dtypes.int64, name="expected_cardinality")
        return dataset._unary("AssertCardinalityDataset", cardinality=expected)
    return _apply_fn
