"""tf.SparseConditionalAccumulator / tf.ConditionalAccumulator input checks
against TF: the reduction_type attr's allowed values (a ValueError at graph
construction) and the order and messages of the sparse apply_grad checks
(indices a vector, values not 0-d, one row of values per index)."""
import re

import numpy as np
import pytest

import ref
from ref.graph_ops import accumulator_ops as _under_test  # noqa: F401


def _kernel_line(e):
    lines = [ln for ln in getattr(e, "message", str(e)).splitlines() if ln.strip() and not ln[0].isspace()]
    return re.sub(r"_\d+_", "_N_", lines[-1])


@pytest.mark.parametrize("cls", ["ConditionalAccumulator", "SparseConditionalAccumulator"])
@pytest.mark.parametrize("reduction", ["Invalid", "mean"])
def test_reduction_type_must_be_mean_or_sum(cls, reduction):
    tf = pytest.importorskip("tensorflow").compat.v1
    messages = []
    for lib in (tf, ref):
        with lib.Graph().as_default(), pytest.raises(ValueError) as info:
            getattr(lib, cls)(lib.float32, shape=(), name="Q", reduction_type=reduction)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# (indices, values, shape given to apply_grad): each fails one of TF's checks, in TF's order
SPARSE_APPLY_ROWS = {
    "indices_matrix": ([[0, 1], [1, 0]], np.array([1, 2], np.float32), None),
    "indices_scalar": (0, np.array([1.0], np.float32), []),
    "values_scalar": ([0], np.array(1, np.float32), None),
    "values_rows_mismatch": ([0, 1], np.array([[0, 1, 1]], np.float32), None),
    "index_past_shape": ([0, 5], np.ones([2, 3], np.float32), None),
    "values_dim_mismatch": ([0, 1], np.ones([2, 2], np.float32), None),
    "valid": ([2, 0], np.ones([2, 3], np.float32), None),
}


@pytest.mark.parametrize("row", sorted(SPARSE_APPLY_ROWS))
@pytest.mark.parametrize("fed", [False, True], ids=["const", "fed"])
def test_sparse_apply_grad_checks_as_tensorflow(row, fed):
    tf = pytest.importorskip("tensorflow").compat.v1
    indices, values, shape = SPARSE_APPLY_ROWS[row]
    outcomes = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            q = lib.SparseConditionalAccumulator(lib.float32, name="Q", shape=[3, 3])
            if fed:
                xi, xv = lib.placeholder(lib.int64), lib.placeholder(lib.float32)
                op, feed = q.apply_grad(grad_indices=xi, grad_values=xv), {xi: indices, xv: values}
            else:
                op, feed = q.apply_grad(grad_indices=indices, grad_values=values, grad_shape=shape), None
            with lib.Session() as s:
                try:
                    s.run(op, feed_dict=feed)
                    outcomes.append(("ok", s.run(q.num_accumulated())))
                except lib.errors.OpError as e:
                    outcomes.append((type(e).__name__, _kernel_line(e)))
    assert outcomes[1] == outcomes[0]
