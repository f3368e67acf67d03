"""Transpose's perm against TensorFlow: TF's TransposeShapeFn at graph construction
(negative entries index from the end, a perm of the wrong rank or length, an entry
out of range; the static shapes it gives) and the TransposeOp checks when it runs
(negative entries, a repeated or missing axis)."""
import numpy as np
import pytest

import ref
from ref.ops import array as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

_X = np.arange(30.0).reshape(2, 3, 5)


def _static(t, perm, x_shape=(2, 3, 5), perm_shape=None):
    with t.Graph().as_default():
        x = t.placeholder(t.float32, x_shape)
        p = perm if perm_shape is None else t.placeholder(t.int32, perm_shape)
        try:
            s = t.transpose(x, p).shape
        except ValueError as e:
            words = ("must be rank", "Dimension must be", "out of range of input rank")
            return "ValueError", [w for w in words if w in str(e)]
        return None if s.ndims is None else s.as_list()


STATIC = {
    "negative": ([-1, -3, -2],),
    "mixed": ([2, -3, 1],),
    "matrix_perm": ([[0, 1], [2, 3]],),
    "too_long": ([0, 1, 2, 3],),
    "out_of_range": ([0, 1, 3],),
    "out_of_range_negative": ([0, 1, -4],),
    "repeated_is_fine_statically": ([0, 1, 1],),
    "unknown_input_rank": ([1, 0, 2], None),
    "unknown_input_one_entry": ([0], None),
    "unknown_perm_value": (None, (2, 3, 5), [3]),
    "unknown_perm_wrong_length": (None, (2, 3, 5), [2]),
    "unknown_everything": (None, None, None),
}


@pytest.mark.parametrize("name", sorted(STATIC))
def test_static_shapes_and_errors_match_tf(name):
    args = STATIC[name]
    assert _static(ref, *args) == _static(tf1, *args)


RUN = {
    "negative": [-1, 0, -2],
    "repeated": [0, 1, 1],
    "out_of_range": [0, 1, 3],
    "out_of_range_negative": [0, -4, 1],
    "too_short": [1, 0],
    "identity": [0, 1, 2],
}


@pytest.mark.parametrize("name", sorted(RUN))
def test_run_time_checks_match_tf(name):
    def run(t):
        with t.Graph().as_default(), t.Session() as s:
            p = t.placeholder(t.int32, [None])
            try:
                return s.run(t.transpose(t.constant(_X), p), {p: RUN[name]}).tolist()
            except t.errors.InvalidArgumentError as e:
                line = next(l for l in e.message.split("\n") if "missing" in l or "range" in l or "expects" in l)
                return line.split(" [[")[0].strip()
    assert run(ref) == run(tf1)
