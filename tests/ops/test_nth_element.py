"""``NthElement`` (TF's nth_element_op.cc): the n-th smallest (or, with ``reverse``, largest) entry
of the last dimension, against a NumPy sort and TF's ``raw_ops.NthElement``; TF's shape-function
ValueErrors and kernel InvalidArgumentErrors; TF's gradient (ties share it evenly)."""
import numpy as np
import pytest

from ref.ops import top_k as _under_test  # noqa: F401

rng = np.random.RandomState(7)


def _nth(lib, **kw):
    """The op added to lib's default graph: TF's raw op, ref's ``apply_op`` (ref's raw_ops run eagerly)."""
    if lib.__name__.startswith("ref"):
        from ref.framework.op_def_library import apply_op
        return apply_op("NthElement", **kw)
    return lib.raw_ops.NthElement(**kw)
VALUES = [  # (input, dtype, n, reverse)
    ([2.2, 4.4, 1.1, 5.5, 3.3], np.float32, 1, False),
    ([2.2, 4.4, 1.1, 5.5, 3.3], np.float32, 1, True),
    ([[2.2, 4.4, 1.1], [5.5, 3.3, 6.6]], np.float64, 2, False),
    ([[[2, 4, 1], [5, -3, 6]], [[7, 9, -8], [9, 0, 4]]], np.int32, 0, True),
    (rng.randint(-5, 5, (3, 4, 6)), np.int64, 3, False),
    (rng.rand(4, 9), np.float16, 8, True),
    ([[1.0, 1.0, 2.0]], np.float32, 0, False),
]


def _run(lib, x, dtype, n, reverse):
    with lib.Graph().as_default():
        out = _nth(lib, input=lib.constant(np.asarray(x, dtype)), n=n, reverse=reverse)
        with lib.Session() as sess:
            return out.shape.as_list(), sess.run(out)


@pytest.mark.parametrize("x,dtype,n,reverse", VALUES)
def test_values_as_numpy_sort(x, dtype, n, reverse):
    import ref
    x = np.asarray(x, dtype)
    s = np.sort(x, axis=-1)
    expected = (s[..., ::-1] if reverse else s)[..., n]
    shape, got = _run(ref.compat.v1, x, dtype, n, reverse)
    assert shape == list(expected.shape)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, expected)
    tf = pytest.importorskip("tensorflow").compat.v1
    np.testing.assert_array_equal(got, _run(tf, x, dtype, n, reverse)[1])


STATIC_ERRORS = [  # (input, n): both raise ValueError at construction with this text
    (5, 0, "at least rank 1 but is rank 0"),
    ([5], -1, "must be non-negative but is -1"),
    ([5, 6, 3], [1], "Input must be scalar but has rank 1"),
    ([[0.1, 0.2], [0.3, 0.4]], 2, "must have last dimension > n = 2 but is 2"),
]


@pytest.mark.parametrize("x,n,message", STATIC_ERRORS)
def test_shape_errors_as_tf(x, n, message):
    import ref
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (ref.compat.v1, tf):
        with lib.Graph().as_default(), pytest.raises(ValueError, match=message):
            _nth(lib, input=x, n=n)


FED_ERRORS = [  # (input, n) fed to placeholders of unknown shape: the kernel's InvalidArgumentError
    (5.0, 0, "Input must be at least rank 1 but is rank 0"),
    ([5.0], -1, "n must be non-negative but is -1"),
    ([[1.0, 2.0]], 2, "Input must have last dimension > n = 2"),
    ([[1.0, 2.0]], [1], "N must be scalar but has rank 1"),
]


@pytest.mark.parametrize("x,n,message", FED_ERRORS)
def test_run_time_errors_as_tf(x, n, message):
    import ref
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (ref.compat.v1, tf):
        with lib.Graph().as_default():
            xp, np_ = lib.placeholder(lib.float32), lib.placeholder(lib.int32)
            out = _nth(lib, input=xp, n=np_)
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError, match=message):
                sess.run(out, {xp: x, np_: n})


GRADS = [  # (x, n, reverse, grad_ys): expected from the formula, ties share the gradient
    ([[2., -1., 1000., 3., 1000.], [1., 5., 2., 4., 3.], [2., 2., 2., 2., 2.]], 3, False, [-1., 2., 5.]),
    ([[4., 1., 4., 0.]], 0, True, [3.]),
    ([[[1., 2.], [3., 3.]]], 1, False, [[1., 2.]]),
]


@pytest.mark.parametrize("x,n,reverse,gy", GRADS)
def test_gradient_as_formula_and_tf(x, n, reverse, gy):
    import ref
    x = np.asarray(x, np.float32)
    y = (np.sort(x, -1)[..., ::-1] if reverse else np.sort(x, -1))[..., n]
    ind = (x == y[..., None]).astype(np.float32)
    expected = ind / ind.sum(-1, keepdims=True) * np.asarray(gy, np.float32)[..., None]
    libs = [ref.compat.v1]
    try:
        libs.append(pytest.importorskip("tensorflow").compat.v1)
    except pytest.skip.Exception:
        pass
    for lib in libs:
        with lib.Graph().as_default():
            xt = lib.placeholder(lib.float32, shape=x.shape)
            out = _nth(lib, input=xt, n=n, reverse=reverse)
            g = lib.gradients(out, xt, grad_ys=lib.constant(gy, lib.float32))[0]
            with lib.Session() as sess:
                np.testing.assert_allclose(sess.run(g, {xt: x}), expected, rtol=1e-6)
