"""``DatasetCardinality`` and ``AssertCardinalityDataset``: the number of
elements a dataset yields, computed from its structure as TF's
``CardinalityInternal`` rules do, without iterating it.

``INFINITE = -1``, ``UNKNOWN = -2``. Sources: a tensor 1, its slices their
count, a range its length. ``map`` keeps its input's count when it preserves
cardinality (TF1's ``map`` does not: unknown); ``filter``, ``flat_map``,
interleaves, ``unbatch`` and generators are unknown. ``batch``:
``n // size`` with ``drop_remainder``, else ``ceil(n / size)``. ``repeat(c)``:
``c < 0``: 0 for an empty input, else infinite; ``c * n`` otherwise.
``take(c)``: ``min(n, c)`` (``c`` when ``n`` is infinite). ``skip(c)``:
``max(0, n - c)``. ``zip``: the smallest finite count (infinite when all are);
``concatenate``: the sum (infinite when either is). Shuffle, cache, prefetch
and options keep their input's count; ``assert_cardinality`` gives its asserted one. Unknown propagates, except through
``repeat(c <= 0)`` and ``zip``/``concatenate``'s infinite cases as TF has them.
"""
from __future__ import annotations

import numpy as np

from ref.ops.dataset import datasets as D
from ref.ops.dataset.base import Dataset, check_dataset, dataset_shape, scalar
from ref.ops.registry import register_op
from ref.types import dtypes, errors
from ref.types.shapes import TensorShape

INFINITE = -1
UNKNOWN = -2


def _batch(n, size, drop):
    if n < 0:
        return n
    return n // size if drop else -(-n // size)


def cardinality(ds) -> int:
    """The element count of the dataset value ``ds`` (INFINITE, UNKNOWN or >= 0)."""
    if isinstance(ds, D.TensorDS):
        return len(ds.components[0]) if ds.slices else 1
    if isinstance(ds, D.RangeDS):
        return len(ds.range)
    if isinstance(ds, D.MapDS):
        return cardinality(ds.input) if ds.preserve_cardinality else UNKNOWN
    if isinstance(ds, (D.BatchDS, D.PaddedBatchDS)) and getattr(ds, "fn", None) is None:
        return _batch(cardinality(ds.input), ds.size, bool(ds.drop))
    if isinstance(ds, D.RepeatDS):
        n = cardinality(ds.input)
        if ds.count < 0:
            return 0 if n == 0 else INFINITE
        if ds.count == 0:
            return 0
        return n if n < 0 else ds.count * n
    if isinstance(ds, D.TakeDS):
        n = cardinality(ds.input)
        if n == UNKNOWN:
            return UNKNOWN
        if ds.count < 0:
            return n
        return ds.count if n == INFINITE else min(n, ds.count)
    if isinstance(ds, D.SkipDS):
        n = cardinality(ds.input)
        if n < 0:
            return n
        return 0 if ds.count < 0 else max(0, n - ds.count)
    if isinstance(ds, D.ShuffleDS):  # count: ShuffleAndRepeatDataset's epochs (1 for a plain shuffle)
        n = cardinality(ds.input)
        if ds.count == 1 or n < 0:
            return n
        return (0 if n == 0 else INFINITE) if ds.count < 0 else ds.count * n
    if isinstance(ds, AssertCardinalityDS):
        return ds.count
    if isinstance(ds, (D.CacheDS, D.PrefetchDS)):
        return cardinality(ds.input)
    if isinstance(ds, D.ZipDS):
        result = INFINITE
        for d in ds.inputs:
            n = cardinality(d)
            if n == UNKNOWN:
                return UNKNOWN
            if n != INFINITE:
                result = n if result == INFINITE else min(result, n)
        return result
    if isinstance(ds, D.ConcatDS):
        a, b = cardinality(ds.a), cardinality(ds.b)
        if UNKNOWN in (a, b):
            return UNKNOWN
        return INFINITE if INFINITE in (a, b) else a + b
    if type(ds).op_type == "OptionsDataset" and hasattr(ds, "input"):
        return cardinality(ds.input)
    return UNKNOWN


@register_op("DatasetCardinality", inputs=("input_dataset",), outputs=("cardinality",),
             attrs={"cardinality_options": ""}, shape=lambda ins, attrs: [(dtypes.int64, TensorShape([]))])
def dataset_cardinality(input_dataset, cardinality_options=""):
    """cardinality = the element count of ``input_dataset`` (-1 infinite, -2 unknown)."""
    return np.asarray(cardinality(check_dataset(input_dataset)), np.int64)


def _count_text(n):
    return "infinite" if n == INFINITE else "unknown" if n == UNKNOWN else str(n)


class AssertCardinalityDS(Dataset):
    op_type = "AssertCardinalityDataset"

    def __init__(self, input_dataset, count):
        input_dataset = check_dataset(input_dataset)
        super().__init__(input_dataset.output_types, input_dataset.output_shapes)
        self.input, self.count = input_dataset, int(count)

    def elements(self, env):
        seen = 0
        for elem in self.input.elements(env):
            seen += 1
            if self.count != INFINITE and seen > self.count:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {_count_text(self.count)} elements but "
                                f"contained at least {seen} elements.")
            yield elem
        if seen != self.count:
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain {_count_text(self.count)} "
                            f"element{'' if self.count == 1 else 's'} but contained only {seen} "
                            f"element{'' if seen == 1 else 's'}.")


@register_op("AssertCardinalityDataset", inputs=("input_dataset", "cardinality"), outputs=("handle",),
             attrs={"output_types": None, "output_shapes": None}, shape=dataset_shape)
def assert_cardinality_dataset(input_dataset, cardinality, output_types=None, output_shapes=None):
    """handle = ``input_dataset``, checked to yield exactly ``cardinality`` elements."""
    return AssertCardinalityDS(input_dataset, scalar(cardinality, "cardinality"))
