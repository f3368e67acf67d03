"""Run one graph-building function under ref and under tensorflow.compat.v1
and compare what it fetches (values and dtypes), or the errors it raises."""
import numpy as np
import pytest

import ref


def run(lib, build, feeds=None):
    """``build(lib)`` inside a fresh graph; returns the fetched values (or the exception)."""
    with lib.Graph().as_default(), lib.Session() as sess:
        fetches = build(lib)
        try:
            return sess.run(fetches, feeds(lib) if callable(feeds) else feeds)
        except Exception as e:  # noqa: BLE001 - the error is the result compared
            return e


def tf1():
    return pytest.importorskip("tensorflow").compat.v1


def assert_same(got, want, rtol=1e-6, atol=0.0):
    """Nested values equal (dtype and value), or errors of the same class and message."""
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"TF raised {type(want).__name__}: {want}; ref returned {got}"
        assert type(got).__name__ == type(want).__name__, (got, want)
        return
    assert not isinstance(got, Exception), f"ref raised {type(got).__name__}: {got}"
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            assert_same(g, w, rtol, atol)
        return
    if isinstance(want, dict):
        assert set(got) == set(want)
        for k in want:
            assert_same(got[k], want[k], rtol, atol)
        return
    g, w = np.asarray(got), np.asarray(want)
    if w.dtype.kind == "S" and g.dtype == object:  # a string scalar: TF fetches bytes (Session fetch types)
        w = w.astype(object)
    assert g.dtype == w.dtype, (g.dtype, w.dtype)
    assert g.shape == w.shape, (g.shape, w.shape)
    if w.dtype == object or w.dtype.kind in "biuSU":
        np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def compare(build, feeds=None, rtol=1e-6, atol=0.0):
    """``build`` under TF then ref; the results must agree. Returns ref's."""
    want = run(tf1(), build, feeds)
    got = run(ref, build, feeds)
    assert_same(got, want, rtol, atol)
    return got
