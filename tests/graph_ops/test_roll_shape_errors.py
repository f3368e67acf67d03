"""``tf.roll``'s static shape checks (TF's Roll shape function): the input's rank >= 1, shift's and
axis's <= 1, shift and axis of one shape -- ValueError with TF's message before " for '"."""
import pytest

import ref
from ref.graph_ops import math_special as _under_test  # noqa: F401

CASES = {
    "scalar_input": (7, 1, 0),
    "matrix_axis": ([[1, 2], [3, 4]], 1, [[0, 1]]),
    "matrix_shift": ([[1, 2], [3, 4]], [[0, 1]], 1),
    "unequal_lengths": ([[1, 2], [3, 4]], [1], [0, 1]),
    "scalar_and_vector": ([[1, 2], [3, 4]], 1, [0, 1]),
    "fine": ([[1, 2], [3, 4]], [1, 1], [0, 1]),
}


def _outcome(tf, args):
    with tf.Graph().as_default():
        try:
            return "ok", tf.roll(*args).shape.as_list()
        except ValueError as e:
            return "ValueError", str(e).split(" for '")[0]


@pytest.mark.parametrize("name", sorted(CASES))
def test_roll_shape_checks_as_tf(name):
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _outcome(ref, CASES[name]) == _outcome(tf, CASES[name])
