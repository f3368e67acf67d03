"""TF's private gradient helpers that its own tests and libraries call:
``gradients_impl._hessian_vector_product`` and ``math_ops._as_indexed_slices``, against
TensorFlow's modules of those names (values, and the IndexedSlices' dense shape)."""
import importlib

import numpy as np
import pytest

from ref.grad import gradients as _under_test  # noqa: F401
from ref.graph_ops import math_extras
import ref

MAT = np.arange(1, 17, dtype=np.float32).reshape(4, 4) / 5
X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)
V = np.linspace(2, 3, 8, dtype=np.float32).reshape(4, 2)


def _hvp(lib, gradients_impl):
    mat, x, v = lib.constant(MAT), lib.constant(X), lib.constant(V)
    x_mat_x = lib.matmul(lib.transpose(x), lib.matmul(mat, x))
    return gradients_impl._hessian_vector_product(x_mat_x, [x], [v])[0]


def _as_slices(lib, math_ops):
    s = math_ops._as_indexed_slices(lib.constant(X))
    return [s.values, s.indices, s.dense_shape, lib.multiply(s, 2.0)]


ROWS = [("hessian_vector_product", _hvp, "gradients_impl"), ("as_indexed_slices", _as_slices, "math_ops")]


@pytest.mark.parametrize("rid,build,tf_module", ROWS, ids=[r[0] for r in ROWS])
def test_matches_tf(rid, build, tf_module):
    tf = pytest.importorskip("tensorflow")
    tf_mod = importlib.import_module(f"tensorflow.python.ops.{tf_module}")
    ref_mod = importlib.import_module("ref.grad.gradients") if tf_module == "gradients_impl" else math_extras
    results = []
    for lib, mod in ((tf.compat.v1, tf_mod), (ref, ref_mod)):
        with lib.Graph().as_default(), lib.Session() as s:
            out = s.run(build(lib, mod))
            results.append(out if isinstance(out, list) else [out])
    want, got = results
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=1e-6)


def test_as_indexed_slices_rejects_other_types():
    with pytest.raises(TypeError, match="Not a Tensor or IndexedSlices"):
        math_extras._as_indexed_slices(np.ones(3))
