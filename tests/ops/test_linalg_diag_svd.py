"""Diag, DiagPart and Svd kernels (ref/ops/linalg.py) against ``tf.raw_ops``
(values, dtypes, shapes, run-time errors)."""

import numpy as np
import pytest

from ref.ops import linalg as _under_test  # noqa: F401
from ref.ops import registry
from ref.types import errors

RNG = np.random.default_rng(3)
_A = RNG.standard_normal((2, 3, 2, 3)).astype(np.float32)

DIAG = [
    ("Diag", dict(diagonal=np.array([1.0, -2.0, 3.0], np.float32))),
    ("Diag", dict(diagonal=np.arange(6, dtype=np.int64).reshape(2, 3))),
    ("Diag", dict(diagonal=np.array([1 + 2j, 3 - 1j], np.complex64))),
    ("DiagPart", dict(input=_A)),
    ("DiagPart", dict(input=np.arange(16, dtype=np.int32).reshape(4, 4))),
    ("DiagPart", dict(input=_A.astype(np.float64).reshape(6, 6))),
]


@pytest.mark.parametrize("name,kw", DIAG, ids=[f"{n}-{i}" for i, (n, _) in enumerate(DIAG)])
def test_diag_ops_equal_tf(name, kw):
    tf = pytest.importorskip("tensorflow")
    want = getattr(tf.raw_ops, name)(**kw).numpy()
    got = registry.call(name, **kw)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kw", [dict(input=np.ones((2, 3), np.float32)), dict(input=np.ones((3,), np.float32))])
def test_diag_part_rejects_non_square_tensors(kw):
    tf = pytest.importorskip("tensorflow")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.raw_ops.DiagPart(**kw)
    with pytest.raises(errors.InvalidArgumentError):
        registry.call("DiagPart", **kw)


SVD = [
    (RNG.standard_normal((4, 3)).astype(np.float32), True, False),
    (RNG.standard_normal((2, 3, 5)).astype(np.float64), True, True),
    (RNG.standard_normal((3, 3)).astype(np.float32), False, False),
    ((RNG.standard_normal((3, 2)) + 1j * RNG.standard_normal((3, 2))).astype(np.complex64), True, False),
]


@pytest.mark.parametrize("x,compute_uv,full", SVD, ids=range(len(SVD)))
def test_svd_equals_tf_up_to_vector_signs(x, compute_uv, full):
    tf = pytest.importorskip("tensorflow")
    want = [t.numpy() for t in tf.raw_ops.Svd(input=x, compute_uv=compute_uv, full_matrices=full)]
    got = registry.call("Svd", input=x, compute_uv=compute_uv, full_matrices=full)
    for g, w in zip(got, want if compute_uv else want[:1]):  # TF's unused u, v: shape [0] in the graph,
        assert g.dtype == w.dtype and g.shape == w.shape     # () at run time; ref keeps [0]
    tol = 1e-5 if x.dtype in (np.float32, np.complex64) else 1e-12
    np.testing.assert_allclose(got[0], want[0], rtol=tol, atol=tol)
    if compute_uv:  # the factorisation reproduces x (singular vectors are unique only up to a phase)
        s, u, v = got
        p = s.shape[-1]
        rebuilt = (u[..., :p] * s[..., None, :]) @ np.conj(np.swapaxes(v[..., :p], -1, -2))
        np.testing.assert_allclose(rebuilt, x, rtol=10 * tol, atol=10 * tol)


def test_tf_diag_and_tf_linalg_diag_differ_as_in_tf():
    """tf.diag is the tensor diagonal (Diag); tf.linalg.diag the batched matrix one."""
    import ref
    tf = pytest.importorskip("tensorflow").compat.v1
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    m = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    for name, arg in (("diag", x), ("linalg.diag", x), ("matrix_diag", x), ("linalg.diag_part", m),
                      ("matrix_diag_part", m), ("linalg.tensor_diag_part", np.arange(64.0).reshape(2, 4, 2, 4))):
        results = []
        for lib in (tf, ref):
            fn = lib
            for part in name.split("."):
                fn = getattr(fn, part)
            with lib.Graph().as_default(), lib.Session() as s:
                results.append(s.run(fn(arg)))
        np.testing.assert_array_equal(results[1], results[0])
