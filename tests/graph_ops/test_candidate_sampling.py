"""Candidate samplers, accidental hits, nce_loss, sampled_softmax_loss and
embedding_lookup_sparse against ``tensorflow.compat.v1``: with the same seeds
the samplers draw TF's candidates (and expected counts) bit for bit, run
after run; the sampled losses then agree to float32 rounding."""
import numpy as np
import pytest

import ref
from ref.graph_ops import candidate_sampling_ops as _under_test  # noqa: F401  (the module these tests cover)

LABELS = np.array([[1], [5], [7], [0]], np.int64)
LABELS2 = np.array([[1, 3], [5, 2], [7, 7], [0, 9]], np.int64)
WIDE = np.random.RandomState(7).randint(0, 50000, (128, 1)).astype(np.int64)
UNIGRAMS = [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10]


def _samplers(lib):
    out = []
    for unique in (True, False):
        out += lib.nn.uniform_candidate_sampler(LABELS, 1, 5, unique, 10)
        out += lib.nn.log_uniform_candidate_sampler(LABELS, 1, 6, unique, 100)
        out += lib.nn.learned_unigram_candidate_sampler(LABELS2, 2, 4, unique, 12)
        out += lib.nn.fixed_unigram_candidate_sampler(LABELS, 1, 5, unique, 10, unigrams=UNIGRAMS, distortion=0.75)
        out += lib.nn.fixed_unigram_candidate_sampler(LABELS % 5, 1, 3, unique, 5, unigrams=UNIGRAMS, num_shards=2,
                                                      shard=1)
        out += lib.nn.fixed_unigram_candidate_sampler(LABELS, 1, 4, unique, 12, unigrams=UNIGRAMS,
                                                      num_reserved_ids=2)
    out += lib.nn.uniform_candidate_sampler(LABELS, 1, 3, True, 1 << 40)  # 64-bit draws
    # word2vec's sizes (drawn all at once): 128 true classes of 50,000, 64 samples, and the
    # 64 samples of 70 / a 65-class range that take many redraws
    for unique in (True, False):
        out += lib.nn.log_uniform_candidate_sampler(WIDE, 1, 64, unique, 50000)
        out += lib.nn.uniform_candidate_sampler(WIDE % 70, 1, 64, unique, 70)
    out += lib.nn.log_uniform_candidate_sampler(WIDE % 65, 1, 64, True, 65)
    out += lib.nn.uniform_candidate_sampler(LABELS, 1, 4, False, 16)  # power of two: masked words
    out += lib.nn.all_candidate_sampler(LABELS, 1, 9, True)
    s = lib.nn.uniform_candidate_sampler(LABELS, 1, 8, False, 10, seed=5)[0]
    out += lib.nn.compute_accidental_hits(LABELS, s, 1)
    out += lib.nn.compute_accidental_hits(LABELS2, s, 2)
    return out


@pytest.mark.parametrize("graph_seed", [3, 1234])
def test_samplers_bit_identical_with_tf(graph_seed):
    v1 = pytest.importorskip("tensorflow").compat.v1
    results = []
    for lib in (ref, v1):
        with lib.Graph().as_default():
            lib.set_random_seed(graph_seed)
            fetch = _samplers(lib)
            with lib.Session() as sess:
                results.append([sess.run(fetch) for _ in range(3)])  # the stream and the learned counts advance
    for run, (ours, theirs) in enumerate(zip(*results)):
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert a.dtype == b.dtype and a.shape == b.shape, (run, i)
            np.testing.assert_array_equal(a, b, err_msg=f"run {run}, output {i}")


def test_sampler_properties():
    with ref.Graph().as_default():
        ref.set_random_seed(0)
        s, t, e = ref.nn.log_uniform_candidate_sampler(LABELS, 1, 50, True, 60)
        u, _, ue = ref.nn.uniform_candidate_sampler(LABELS % 7, 1, 2000, False, 7)
        with ref.Session() as sess:
            s, t, e, u, ue = sess.run([s, t, e, u, ue])
    assert len(set(s.tolist())) == 50 and s.min() >= 0 and s.max() < 60
    p = np.log((LABELS[:, 0] + 2.0) / (LABELS[:, 0] + 1.0)) / np.log(61.0)
    assert np.all((t[:, 0] > p * 50 * 0.999) | (t[:, 0] > 0.99))  # unique: 1 - (1 - p)^tries >= p * 50 approx
    assert np.all(e <= 1) and np.all(e > 0)
    counts = np.bincount(u, minlength=7)
    assert counts.min() > 200  # 2000 uniform draws over 7 classes
    np.testing.assert_allclose(ue, np.float32(1 / 7) * 2000, rtol=1e-6)


def test_sampler_errors():
    with ref.Graph().as_default():
        bad = ref.nn.uniform_candidate_sampler(np.array([[11]], np.int64), 1, 2, True, 10)
        small = ref.nn.uniform_candidate_sampler(LABELS % 3, 1, 5, True, 3)
        with ref.Session() as sess:
            with pytest.raises(ref.errors.InvalidArgumentError, match="out of range"):
                sess.run(bad)
            with pytest.raises(ref.errors.InvalidArgumentError, match="range is too small"):
                sess.run(small)
        with pytest.raises(ValueError):
            ref.nn.uniform_candidate_sampler(np.zeros((2, 2), np.int64), 1, 2, True, 10)


def _loss_graph(lib, loss_fn, **kw):
    rng = np.random.default_rng(5)
    w = rng.standard_normal((40, 6)).astype(np.float32)
    b = rng.standard_normal(40).astype(np.float32)
    x = rng.standard_normal((5, 6)).astype(np.float32)
    labels = np.array([[3, 1], [0, 2], [39, 38], [7, 7], [20, 5]], np.int64)
    with lib.Graph().as_default():
        lib.set_random_seed(11)
        wv = lib.Variable(w, name="w")
        bv = lib.Variable(b, name="b")
        xv = lib.constant(x)
        loss = getattr(lib.nn, loss_fn)(wv, bv, labels, xv, num_sampled=10, num_classes=40, num_true=2, **kw)
        gw, gb, gx = lib.gradients(lib.reduce_sum(loss), [wv, bv, xv])
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            out = sess.run([loss] + [lib.convert_to_tensor(g) for g in (gw, gb, gx)])
            return [np.asarray(o) for o in out]


@pytest.mark.parametrize("loss_fn,kw", [
    ("nce_loss", {}), ("nce_loss", {"remove_accidental_hits": True}),
    ("sampled_softmax_loss", {}), ("sampled_softmax_loss", {"remove_accidental_hits": False}),
], ids=["nce", "nce-remove-hits", "sampled-softmax", "sampled-softmax-keep-hits"])
def test_sampled_losses_vs_tf(loss_fn, kw):
    v1 = pytest.importorskip("tensorflow").compat.v1
    ours = _loss_graph(ref, loss_fn, **kw)
    theirs = _loss_graph(v1, loss_fn, **kw)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
        else:
            np.testing.assert_array_equal(a, b)


def _Sparse(indices, values, dense_shape):  # noqa: N802 (was a stand-in before ref.SparseTensor existed)
    return ref.SparseTensor(indices, values, dense_shape)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_embedding_lookup_sparse_vs_tf(combiner, weighted):
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    rng = np.random.default_rng(8)
    params = rng.standard_normal((10, 3)).astype(np.float32)
    indices = np.array([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], np.int64)
    ids = np.array([1, 4, 1, 9, 0, 4], np.int64)
    wts = rng.uniform(0.5, 2, 6).astype(np.float32)
    shape = np.array([4, 3], np.int64)
    with ref.Graph().as_default():
        p = ref.constant(params)
        sp_ids = _Sparse(ref.constant(indices), ref.constant(ids), ref.constant(shape))
        sp_w = _Sparse(ref.constant(indices), ref.constant(wts), ref.constant(shape)) if weighted else None
        out = ref.nn.embedding_lookup_sparse(p, sp_ids, sp_w, combiner=combiner)
        g = ref.gradients(ref.reduce_sum(out * out), p)[0]
        with ref.Session() as sess:
            got, got_g = sess.run([out, ref.convert_to_tensor(g)])
    with v1.Graph().as_default():
        p = v1.constant(params)
        sp_ids = tf.SparseTensor(indices, ids, shape)
        sp_w = tf.SparseTensor(indices, wts, shape) if weighted else None
        out = v1.nn.embedding_lookup_sparse(p, sp_ids, sp_w, combiner=combiner)
        g = v1.gradients(v1.reduce_sum(out * out), p)[0]
        with v1.Session() as sess:
            want, want_g = sess.run([out, v1.convert_to_tensor(g)])
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got_g, want_g, rtol=1e-5, atol=1e-6)
