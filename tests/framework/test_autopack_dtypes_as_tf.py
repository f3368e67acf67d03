"""convert_to_tensor of nested lists holding tensors against TensorFlow (TF's
autopacking): the first tensor's dtype when none is asked, a requested dtype casting
the tensors, and TF's TypeError for a list whose tensors' dtypes disagree."""
import numpy as np
import pytest

import ref
from ref.framework import op_def_library as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

CASES = {
    "plain": (lambda t: [[0., 0., 0.], [1., 1., 1.]], None),
    "first_tensor_float64": (lambda t: [[0., 0., 0.], t.constant([0., 0., 0.], dtype=t.float64), [0., 0., 0.]], None),
    "requested_float64": (lambda t: [[0., 0., 0.], [0., 0., 0.]], "float64"),
    "requested_float32_casts": (lambda t: [[0., 0., 0.], t.constant([0., 0., 0.], dtype=t.float64)], "float32"),
    "only_tensor_cast": (lambda t: [t.constant([0., 0., 0.], dtype=t.float64)], "float32"),
    "mixed_tensor_dtypes": (lambda t: [t.constant([0., 0., 0.], dtype=t.float32),
                                       t.constant([0., 0., 0.], dtype=t.float64), [0., 0., 0.]], None),
    "int_and_float_requested": (lambda t: [t.constant([0., 1.]), t.constant([0, 1])], "float64"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_autopacking_matches_tf(name):
    build, dtype = CASES[name]

    def run(t):
        with t.Graph().as_default():
            try:
                x = t.convert_to_tensor(build(t), dtype=None if dtype is None else getattr(t, dtype))
            except TypeError as e:
                return "TypeError", "Cannot convert a list containing a tensor of dtype" in str(e)
            with t.Session() as s:
                return x.dtype.name, np.asarray(s.run(x)).tolist()
    assert run(ref) == run(tf1)
