"""Sorted-segment kernels report the first problem TF's kernel meets, with TF's
message, on every op of the class: Segment{Sum,Mean,Max,Min,Prod},
SparseSegment{Sum,Mean,SqrtN} (with and without num_segments) and the
SparseSegment*Grad ops, each row against tf.raw_ops."""
import numpy as np
import pytest

from ref.ops import segment_reduction, sparse_segment  # noqa: F401  (registers the ops)
from ref.ops import registry

DATA = np.arange(16, dtype=np.float32).reshape(4, 4)
IDS = [[-1, -1, 0, 0], [0, 1, 0, 1], [0, 1, 2, 0], [0, 0, 0, -1], [0, 0, 0, -2], [1, 1, 3, 3], [0, 0, 2, 1],
       [2, 2, 1, 1], [0, 1, 2, 3]]
INDICES = [[0, 1, 2, 3], [3, 9, 0, 1], [0, -1, 2, 1], [1, 1, 2, 5]]


def _tf():
    return pytest.importorskip("tensorflow")


def _outcome(fn):
    try:
        out = fn()
        return ("ok", [np.asarray(o).tolist() for o in (out if isinstance(out, (list, tuple)) else [out])])
    except Exception as e:  # noqa: BLE001 - the kind and message are the result
        message = getattr(e, "message", str(e)).split(" [Op:")[0].split("\n")[0]
        if message.startswith("{{function_node"):  # TF's eager wrapper names its function first
            message = message.split("}} ", 1)[1]
        return (type(e).__name__, message)


def _compare(op, kw):
    tf = _tf()
    got = _outcome(lambda: registry.call(op, **kw))
    want = _outcome(lambda: getattr(tf.raw_ops, op)(**kw))
    assert got == want


@pytest.mark.parametrize("op", ["SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd"])
@pytest.mark.parametrize("ids", IDS, ids=str)
def test_dense_segments(op, ids):
    _compare(op, dict(data=DATA, segment_ids=np.int32(ids)))


@pytest.mark.parametrize("op", ["SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN"])
@pytest.mark.parametrize("ids", IDS, ids=str)
@pytest.mark.parametrize("indices", INDICES, ids=str)
def test_sparse_segments(op, ids, indices):
    _compare(op, dict(data=DATA, indices=np.int32(indices), segment_ids=np.int32(ids)))


@pytest.mark.parametrize("op", ["SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments"])
@pytest.mark.parametrize("ids", IDS[:6], ids=str)
@pytest.mark.parametrize("num", [2, 4, 6])
def test_sparse_segments_with_num_segments(op, ids, num):
    _compare(op, dict(data=DATA, indices=np.int32(INDICES[0]), segment_ids=np.int32(ids), num_segments=np.int32(num)))


@pytest.mark.parametrize("op", ["SparseSegmentSumGrad", "SparseSegmentMeanGrad", "SparseSegmentSqrtNGrad"])
@pytest.mark.parametrize("ids,indices", [([0, 1, 1, 4], [8, 3, 0, 9]), ([0, 1, 2, 0], [0, 3, 0, 9]),
                                         ([0, 1, 1, 2], [0, 3, 12, 1]), ([0, 1, 1, 2], [0, 3, 2, 1])], ids=str)
def test_sparse_segment_grads(op, ids, indices):
    _compare(op, dict(grad=DATA[:3], indices=np.int32(indices), segment_ids=np.int32(ids), output_dim0=np.int32(10)))
