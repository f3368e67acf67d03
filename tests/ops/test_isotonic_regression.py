"""``IsotonicRegression`` (kernel in ``ref/ops/nn.py``), ``tf.nn.isotonic_regression``
(ref/graph_ops/nn_ops.py) and its gradient (TF's segment-mean rule) against
TensorFlow: values, segments, output dtypes, the axis and ``decreasing`` forms,
and the gradient of the fit, one row per case."""
import numpy as np
import pytest

from ref.ops import nn as _under_test  # noqa: F401
import ref

RNG = np.random.RandomState(7)
A = np.array([[0, 6, 2, 8, 4], [5, 1, 7, 3, 9]])
R = RNG.randn(4, 3, 9)
TIES = np.array([[3, 3, 1, 1, 2, 2, 5, 0]])

# (id, input array, dtype name, kwargs of tf.nn.isotonic_regression)
ROWS = [
    ("f32-rows", A, "float32", {}),
    ("f64-axis0", A, "float64", {"axis": 0}),
    ("f64-increasing", A, "float64", {"decreasing": False}),
    ("f32-3d-axis1", R, "float32", {"axis": 1}),
    ("f64-3d-last-increasing", R, "float64", {"decreasing": False}),
    ("f64-ties", TIES, "float64", {}),
    ("f16", A, "float16", {}),
    ("bf16", A, "bfloat16", {}),
    ("int32-to-f64", A, "int32", {}),
    ("int64-to-f64", A, "int64", {}),
    ("int16-to-f32", A, "int16", {}),
    ("int8-to-f32-increasing", A, "int8", {"decreasing": False}),
    ("single-column", A[:, :1], "float32", {}),
    ("empty-rows", np.zeros((0, 4)), "float32", {}),
]


def _run(lib, nn_ops, x, dtype, kw, grad):
    with lib.Graph().as_default():
        t = lib.constant(x, dtype=getattr(lib, dtype))
        y, seg = nn_ops.isotonic_regression(t, **kw)
        dtypes = (y.dtype.name, seg.dtype.name, y.shape.as_list(), seg.shape.as_list())
        fetch = [y, seg]
        if grad:
            w = lib.constant(np.arange(x.size, dtype=y.dtype.as_numpy_dtype).reshape(x.shape) / 3)
            fetch.append(lib.gradients(y * w, t)[0])
        with lib.Session() as s:
            return dtypes, s.run(fetch)


@pytest.mark.parametrize("rid,x,dtype,kw", ROWS, ids=[r[0] for r in ROWS])
def test_matches_tf(rid, x, dtype, kw):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops import nn_ops as tf_nn_ops
    from ref.graph_ops import nn_ops
    grad = dtype in ("float32", "float64") and x.ndim == 2 and x.shape[0] > 0
    want_meta, want = _run(tf, tf_nn_ops, x, dtype, kw, grad)
    got_meta, got = _run(ref, nn_ops, x, dtype, kw, grad)
    assert got_meta == want_meta
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=1e-6, atol=1e-7)


def _unregistered(lib, build):
    with lib.Graph().as_default():
        y = build(input=np.array([[1.0, 2.0]], np.float32), output_dtype=lib.float64)[0]
        with lib.Session() as s:
            try:
                s.run(y)
            except lib.errors.OpError as e:
                return type(e).__name__, "No OpKernel was registered" in e.message
    return None


def test_kernel_rejects_unregistered_pairs_as_tf():
    tf = pytest.importorskip("tensorflow").compat.v1
    from ref.framework.op_def_library import apply_op
    want = _unregistered(tf, tf.raw_ops.IsotonicRegression)
    assert _unregistered(ref, lambda **kw: apply_op("IsotonicRegression", **kw)) == want == (
        "InvalidArgumentError", True)
