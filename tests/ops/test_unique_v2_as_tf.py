"""UniqueV2 / UniqueWithCountsV2 (``tf.raw_ops``) against TensorFlow: distinct slices
along an axis in order of first occurrence, their indices and counts, an empty axis
for a vector, and the shape function's static shapes and errors."""
import numpy as np
import pytest

import ref
from ref.framework.op_def_library import apply_op
from ref.ops import array as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

_M = np.array([[1, 0, 0], [1, 0, 0], [2, 0, 0], [1, 0, 0]])
CASES = {
    "rows": (_M, [0]),
    "columns": (_M, [1]),
    "negative_axis": (_M, [-1]),
    "int32_axis": (_M, np.array([0], np.int32)),
    "vector_empty_axis": (np.array([4, 2, 4, 7, 2]), []),
    "strings_axis0": (np.array([[b"a", b"b"], [b"a", b"b"], [b"c", b"d"]]), [0]),
    "floats_3d_axis1": (np.array([[[1.5], [2.0], [1.5]], [[0.0], [3.0], [0.0]]], np.float32), [1]),
}


def _op(t, name):
    """The graph builder of a raw op: ref's apply_op, TF's tf.raw_ops (graph mode here)."""
    return (lambda **kw: apply_op(name, **kw)) if t is ref else getattr(t.raw_ops, name)


def _run(t, x, axis, counts):
    with t.Graph().as_default(), t.Session() as s:
        out = _op(t, "UniqueWithCountsV2" if counts else "UniqueV2")(x=t.constant(x), axis=t.constant(axis, dtype=np.asarray(axis).dtype if len(axis) else t.int64))
        static = [None if o.shape.ndims is None else o.shape.as_list() for o in out]
        return static, [v.tolist() for v in s.run(list(out))]


@pytest.mark.parametrize("counts", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_unique_v2_matches_tf(name, counts):
    assert _run(ref, *CASES[name], counts) == _run(tf1, *CASES[name], counts)


ERRORS = {
    "axis_matrix": (np.arange(6).reshape(3, 2), [[0]], "axis expects a 1D vector"),
    "empty_axis_matrix": (np.arange(6).reshape(3, 2), [], "x expects a 1D vector"),
    "axis_out_of_range": (np.arange(6).reshape(3, 2), [2], "axis expects to be in the range"),
    "two_axes": (np.arange(6).reshape(3, 2), [0, 1], "axis does not support input tensors larger than 1"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_shape_function_errors_match_tf(name):
    x, axis, words = ERRORS[name]
    for t in (ref, tf1):
        with t.Graph().as_default():
            with pytest.raises(ValueError, match=words):
                _op(t, "UniqueV2")(x=t.constant(x), axis=t.constant(axis, dtype=t.int64))
