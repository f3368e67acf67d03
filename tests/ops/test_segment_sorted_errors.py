"""The sorted segment kernels (``Segment{Sum,Mean,Max,Min,Prod}``) on unsorted,
negative or sparse ids: the outcome (output shape, or the error and its
message) against ``tf.raw_ops``'s, case by case. TF walks the runs of equal
ids and reports the first failure: a next id not larger, or an id outside
``[0, last + 1)``."""
import numpy as np
import pytest

from ref.ops import registry
from ref.ops import segment_reduction as _under_test  # noqa: F401
from ref.types import errors

IDS = [[0, 1, 2, 0], [0, 0, 2, 1], [1, 1, 0, 0], [0, 3, 2, 5], [-1, 0, 1, 1], [0, -1, 2, 3], [2, 2, -3, -3],
       [0, 1, 1, 4], [0, 0, 1, 1], [3, 2, 1, -5]]
OPS = ["SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"]


def _outcome(call, error_type):
    try:
        return "ok", np.asarray(call()).shape
    except error_type as e:
        message = getattr(e, "message", str(e))
        return "error", message.split("}}")[-1].split(" [Op:")[0].strip()


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("ids", IDS, ids=[",".join(map(str, i)) for i in IDS])
def test_outcome_as_tf(op, ids):
    tf = pytest.importorskip("tensorflow")
    data = np.arange(8, dtype=np.float32).reshape(4, 2)
    got = _outcome(lambda: registry.get(op).kernel(data=data, segment_ids=np.array(ids)), errors.InvalidArgumentError)
    want = _outcome(lambda: getattr(tf.raw_ops, op)(data=data, segment_ids=np.array(ids)),
                    tf.errors.InvalidArgumentError)
    assert got == want
