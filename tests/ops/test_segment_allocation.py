"""Segment reductions whose output cannot be held raise before allocating:
TF's InvalidArgumentError when the element count overflows int64 (rows in
tests/ops/test_array.py), a ResourceExhaustedError ("OOM when allocating", TF's
allocator failing) when the bytes exceed the machine's memory -- never a
MemoryError or a swapping allocation. A table of ops and ids."""
import numpy as np
import pytest

from ref.ops import registry
from ref.ops import segment_reduction as _under_test  # noqa: F401
from ref.types import errors

BIG = 2 ** 40  # 2**41 rows of 10 float64: 88 TB, no int64 overflow
ROWS = [("SegmentSum", dict(data=np.ones((1, 10)), segment_ids=np.array([BIG]))),
        ("SegmentMax", dict(data=np.ones((1, 10)), segment_ids=np.array([BIG]))),
        ("SegmentProd", dict(data=np.ones((1, 10)), segment_ids=np.array([BIG]))),
        ("SegmentMean", dict(data=np.ones((1, 10)), segment_ids=np.array([BIG]))),
        ("UnsortedSegmentSum", dict(data=np.ones((1, 10)), segment_ids=np.array([0]), num_segments=np.int64(BIG))),
        ("UnsortedSegmentMin", dict(data=np.ones((1, 10)), segment_ids=np.array([0]), num_segments=np.int64(BIG)))]


@pytest.mark.parametrize("name,kwargs", ROWS, ids=[r[0] for r in ROWS])
def test_huge_output_is_resource_exhausted(name, kwargs):
    want = r"^OOM when allocating tensor with shape\[109951162777[67],10\] and type float64$"
    with pytest.raises(errors.ResourceExhaustedError, match=want):
        registry.get(name).kernel(**kwargs)
