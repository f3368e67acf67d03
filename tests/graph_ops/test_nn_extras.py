"""tf.nn.xw_plus_b / crelu / safe_embedding_lookup_sparse and
weighted_cross_entropy_with_logits's dtypes, against TF (values and dtypes)."""
import numpy as np
import pytest

import ref.graph_ops  # noqa: F401  (the package these tests cover)
import ref

_R = np.random.RandomState(7)
_X = _R.randn(3, 4).astype(np.float32)
_W = _R.randn(4, 2).astype(np.float32)
_B = _R.randn(2).astype(np.float32)


def _run(lib, build):
    with lib.Graph().as_default():
        t = build(lib)
        with lib.Session() as s:
            if hasattr(lib, "global_variables_initializer"):
                s.run(lib.global_variables_initializer())
            return s.run(t)


CASES = [
    ("xw_plus_b", lambda tf: tf.nn.xw_plus_b(_X, _W, _B)),
    ("xw_plus_b_f64", lambda tf: tf.nn.xw_plus_b(_X.astype(np.float64), _W.astype(np.float64), _B.astype(np.float64))),
    ("crelu", lambda tf: tf.nn.crelu(_X)),
    ("crelu_axis0", lambda tf: tf.nn.crelu(_X, axis=0)),
    ("wce_f64_python_weight", lambda tf: tf.nn.weighted_cross_entropy_with_logits(
        labels=np.array([0.0, 1.0, 0.3]), logits=np.array([-1.0, 2.0, 0.5]), pos_weight=2.5)),
    ("wce_f32_tensor_weight", lambda tf: tf.nn.weighted_cross_entropy_with_logits(
        labels=np.float32([0.0, 1.0]), logits=np.float32([1.5, -0.5]), pos_weight=tf.constant(0.5))),
    ("wce_targets", lambda tf: tf.nn.weighted_cross_entropy_with_logits(
        targets=np.float32([0.0, 1.0]), logits=np.float32([1.5, -0.5]), pos_weight=3)),
]


@pytest.mark.parametrize("case,build", CASES, ids=[c[0] for c in CASES])
def test_matches_tf(case, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, got = _run(tf, build), _run(ref, build)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


_TABLE = np.arange(20, dtype=np.float32).reshape(5, 4) / 7.0
# (indices, ids, weights or None, dense_shape)
SPARSE = [
    ("2d", [[0, 0], [0, 1], [2, 0]], [1, 3, 4], None, [3, 2]),
    ("2d_weights", [[0, 0], [0, 1], [2, 0]], [1, 3, 4], [2.0, 0.5, 1.0], [3, 2]),
    ("invalid_ids", [[0, 0], [0, 1], [1, 0]], [-1, 3, -1], None, [3, 2]),
    ("bad_weights", [[0, 0], [0, 1], [1, 0]], [1, 3, 2], [0.0, 1.0, -1.0], [2, 2]),
    ("3d", [[0, 0, 0], [0, 1, 0], [1, 1, 1]], [0, 2, 4], [1.0, 2.0, 3.0], [2, 2, 2]),
]


@pytest.mark.parametrize("default_id", [None, 4])
@pytest.mark.parametrize("combiner", ["mean", "sum", "sqrtn"])
@pytest.mark.parametrize("shards", [1, 2])
@pytest.mark.parametrize("case,indices,ids,weights,shape", SPARSE, ids=[c[0] for c in SPARSE])
def test_safe_embedding_lookup_sparse(case, indices, ids, weights, shape, combiner, default_id, shards):
    tf = pytest.importorskip("tensorflow").compat.v1

    def build(lib):
        table = [_TABLE] if shards == 1 else [_TABLE[:3], _TABLE[3:]]
        sp_ids = lib.SparseTensor(np.int64(indices), np.int64(ids), np.int64(shape))
        sp_w = None if weights is None else lib.SparseTensor(np.int64(indices), np.float32(weights), np.int64(shape))
        return lib.nn.safe_embedding_lookup_sparse([lib.constant(t) for t in table], sp_ids, sp_w,
                                                   combiner=combiner, default_id=default_id)
    want, got = _run(tf, build), _run(ref, build)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
