"""tf.linspace / lin_space and tf.norm against TF (values, shapes, errors)."""
import numpy as np
import pytest

import ref.graph_ops  # noqa: F401  (the package these tests cover)
import ref

LINSPACE = [
    ("scalar", 0.0, 1.0, 5, 0),
    ("one", 3.0, 7.0, 1, 0),
    ("two", -2.0, 2.0, 2, 0),
    ("vector", [0.0, 10.0], [1.0, 20.0], 4, 0),
    ("vector_axis1", [0.0, 10.0], [1.0, 20.0], 4, 1),
    ("vector_axis_neg", [0.0, 10.0], [1.0, 20.0], 3, -1),
    ("float64", np.float64(1.0), np.float64(2.0), 7, 0),
]


def _eval(tf, build):
    with tf.Graph().as_default():
        try:
            t = build()
        except (ValueError, TypeError) as e:
            return type(e).__name__
        with tf.Session() as s:
            return s.run(t)


@pytest.mark.parametrize("fname", ["linspace", "lin_space"])
@pytest.mark.parametrize("case,start,stop,num,axis", LINSPACE, ids=[c[0] for c in LINSPACE])
def test_linspace(fname, case, start, stop, num, axis):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _eval(tf, lambda: getattr(tf, fname)(start, stop, num, axis=axis))
    got = _eval(ref, lambda: getattr(ref, fname)(start, stop, num, axis=axis))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


_X = np.array([[[1.0, -2.0, 3.0], [4.0, 0.5, -6.0]], [[0.0, 1.0, 2.0], [-3.0, 3.0, 1.5]]], np.float32)
NORMS = [
    ("default", {}),
    ("axis0", dict(axis=0)),
    ("axis_last_keep", dict(axis=-1, keepdims=True)),
    ("p1", dict(ord=1, axis=1)),
    ("p3", dict(ord=3, axis=2)),
    ("p_half", dict(ord=0.5)),
    ("inf", dict(ord=np.inf, axis=0)),
    ("fro", dict(ord="fro", axis=(1, 2))),
    ("matrix_1", dict(ord=1, axis=(1, 2))),
    ("matrix_inf", dict(ord=np.inf, axis=[-2, -1])),
    ("matrix_keep", dict(ord="euclidean", axis=(0, 2), keepdims=True)),
    ("matrix_2", dict(ord=2, axis=(1, 2))),
    ("matrix_2_reversed_axes_keep", dict(ord=2.0, axis=(-1, 0), keepdims=True)),
    ("matrix_2_float64", dict(ord=2, axis=[0, 1], x=_X.astype(np.float64))),
    ("matrix_2_complex", dict(ord=2, axis=(1, 2), x=(_X + 1j * _X[::-1]).astype(np.complex128))),
    ("bad_ord", dict(ord=-1)),
    ("bad_matrix_ord", dict(ord=3, axis=(0, 1))),
    ("bad_axis", dict(axis=(0, 0))),
    ("bad_axis3", dict(axis=(0, 1, 2))),
    ("complex", dict(axis=1, x=(_X + 1j * _X[::-1]).astype(np.complex64))),
]


@pytest.mark.parametrize("case,kw", NORMS, ids=[c[0] for c in NORMS])
def test_norm(case, kw):
    tf = pytest.importorskip("tensorflow").compat.v1
    kw = dict(kw)
    x = kw.pop("x", _X)
    want = _eval(tf, lambda: tf.norm(x, **kw))
    got = _eval(ref, lambda: ref.norm(x, **kw))
    if isinstance(want, str):
        assert got == want
    else:
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5)
    assert ref.linalg.norm is ref.norm
