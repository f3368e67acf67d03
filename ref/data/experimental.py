"""``tf.data.experimental`` pieces TF1 scripts used: ``map_and_batch``,
``shuffle_and_repeat``, ``parallel_interleave``, ``AUTOTUNE``,
``make_saveable_from_iterator``."""
from __future__ import annotations

import numpy as np

from ref.data.dataset_ops import AUTOTUNE, DatasetV1, TensorSpec, _Traced, data_seeds  # noqa: F401  (AUTOTUNE: tf.data.experimental.AUTOTUNE)
from ref.data.iterator_ops import make_saveable_from_iterator  # noqa: F401  (tf.data.experimental's name)
from ref.framework.op_def_library import apply_op, convert_to_tensor
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
