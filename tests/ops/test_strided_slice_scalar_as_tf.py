"""StridedSlice's dense-spec errors against TensorFlow (TF's BuildDenseSpec): slicing a
scalar is "Attempting to slice scalar input.", more indices than dimensions is
"Index out of range using input dim k"; at graph construction (ValueError) and when
the input's rank is only known at run time (InvalidArgumentError)."""
import numpy as np
import pytest

import ref
from ref.ops import slicing as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

SLICES = {
    "scalar_colon": (0.0, lambda x: x[:]),
    "scalar_index": (3, lambda x: x[0]),
    "vector_two_indices": ([1, 2], lambda x: x[1:, 1:]),
    "matrix_three": ([[1, 2]], lambda x: x[0, 0, 0]),
    "scalar_ellipsis_ok": (5.0, lambda x: x[...]),
}

_WORDS = ("Attempting to slice scalar input.", "Index out of range using input dim")


def _static(t, value, index):
    with t.Graph().as_default():
        try:
            y = index(t.constant(value))
        except ValueError as e:
            return "ValueError", [w for w in _WORDS if w in str(e)]
        with t.Session() as s:
            return np.asarray(s.run(y)).tolist()


def _dynamic(t, value, index):
    with t.Graph().as_default(), t.Session() as s:
        x = t.placeholder(t.as_dtype(np.asarray(value).dtype))
        y = index(x)
        try:
            return np.asarray(s.run(y, {x: value})).tolist()
        except t.errors.InvalidArgumentError as e:
            return "InvalidArgumentError", [w for w in _WORDS if w in e.message]


@pytest.mark.parametrize("when", ["static", "dynamic"])
@pytest.mark.parametrize("name", sorted(SLICES))
def test_strided_slice_errors_match_tf(name, when):
    run = _static if when == "static" else _dynamic
    assert run(ref, *SLICES[name]) == run(tf1, *SLICES[name])
