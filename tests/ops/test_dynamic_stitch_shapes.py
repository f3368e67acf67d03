"""DynamicStitch's static checks (TF's shape function): each data shape starts with its indices'
shape (ValueError with TF's message before " for '"), the rest merges; against TF graph mode."""
import pytest

import ref
from ref.ops import segment_reduction as _under_test  # noqa: F401

CASES = {
    "size_mismatch": ([[0, 4, 7], [1, 6, 2, 3, 5]], [[0, 40, 70], [10, 60, 20, 30]]),
    "rank_short": ([[[0, 1]], [2]], [[5, 6], [7]]),
    "fine": ([[0, 4, 7], [1, 6, 2, 3, 5]], [[0, 40, 70], [10, 60, 20, 30, 50]]),
    "fine_rows": ([[0], [1, 2]], [[[1, 2]], [[3, 4], [5, 6]]]),
}


def _outcome(tf, case):
    indices, data = CASES[case]
    with tf.Graph().as_default():
        try:
            out = tf.dynamic_stitch([tf.constant(i) for i in indices], [tf.constant(d) for d in data])
            return "ok", out.shape.as_list()
        except ValueError as e:
            return "ValueError", str(e).split(" for '")[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_dynamic_stitch_static_checks_as_tf(case):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _outcome(ref, case) == _outcome(tf, case)
