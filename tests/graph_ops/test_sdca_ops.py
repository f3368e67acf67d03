"""``tf.train.sdca_shrink_l1`` against TensorFlow's SdcaShrinkL1 and its formula."""
import numpy as np
import pytest

import ref as rtf

W1 = np.array([-3.0, -0.5, 0.0, 0.2, 1.0, 2.5, 1e-8], np.float32)
W2 = np.linspace(-4, 4, 12, dtype=np.float32).reshape(3, 4)

# (weights, l1, l2)
CASES = {
    "one_vector": ([W1], 1.0, 2.0),
    "two_tensors": ([W1, W2], 0.3, 0.7),
    "no_shrink": ([W2], 0.0, 1.0),
    "all_zero": ([W1], 10.0, 1.0),
    "empty_list": ([], 1.0, 1.0),
}


def _run(lib, weights, l1, l2):
    with lib.Graph().as_default(), lib.Session() as s:
        vs = [lib.Variable(w, use_resource=False) for w in weights]
        op = lib.train.sdca_shrink_l1(vs, l1=l1, l2=l2)
        s.run(lib.global_variables_initializer())
        s.run(op)
        s.run(op)  # twice: the update is in place
        return op.type, s.run(vs)


@pytest.mark.parametrize("case", sorted(CASES))
def test_sdca_shrink_l1_matches_tensorflow_and_formula(case):
    tf = pytest.importorskip("tensorflow").compat.v1
    weights, l1, l2 = CASES[case]
    want_type, want = _run(tf, weights, l1, l2)
    got_type, got = _run(rtf, weights, l1, l2)
    assert got_type == want_type == "SdcaShrinkL1"
    shrink = np.float32(l1) / np.float32(l2)
    for w, t, g in zip(weights, want, got):
        assert g.dtype == np.float32 and g.shape == w.shape
        np.testing.assert_array_equal(g, t)
        once = np.sign(w) * np.maximum(np.abs(w) - shrink, 0)
        np.testing.assert_allclose(g, np.sign(once) * np.maximum(np.abs(once) - shrink, 0), rtol=1e-6, atol=1e-7)


def test_sdca_shrink_l1_rejects_non_float32():
    with rtf.Graph().as_default():
        with pytest.raises(TypeError):
            rtf.train.sdca_shrink_l1([rtf.Variable(np.zeros(3, np.float64))], l1=1.0, l2=1.0)


def test_sdca_shrink_l1_uninitialized_is_failed_precondition():
    with rtf.Graph().as_default(), rtf.Session() as s:
        op = rtf.train.sdca_shrink_l1([rtf.Variable(W1)], l1=1.0, l2=1.0)
        with pytest.raises(rtf.errors.FailedPreconditionError):
            s.run(op)


def _strings():
    rng = np.random.default_rng(7)
    lengths = list(range(0, 300)) + [511, 512, 1000, 1024]
    return [bytes(rng.integers(0, 256, n, dtype=np.uint8)) for n in lengths] + [b"", b"a", b"hello", "\u00e9t\u00e9"]


def test_sdca_fprint_matches_tensorflow_every_length():
    tf = pytest.importorskip("tensorflow")
    strs = _strings()
    want = tf.raw_ops.SdcaFprint(input=tf.constant(strs)).numpy()
    got = rtf.raw_ops.SdcaFprint(input=np.array([s.encode() if isinstance(s, str) else s for s in strs], object))
    assert got.dtype == np.int64 and got.shape == (len(strs), 2)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("values", [["a", "hello", ""], [], ["x" * 200]])
def test_sdca_fprint_graph_matches_tensorflow(values):
    tf = pytest.importorskip("tensorflow").compat.v1
    res = []
    for lib in (tf, rtf):
        with lib.Graph().as_default(), lib.Session() as s:
            p = lib.placeholder(lib.string, [None])
            f = lib.train.sdca_fprint(p)
            res.append((f.op.type, f.dtype.name, f.shape.as_list(), s.run(f, {p: values}).tolist()))
    assert res[0] == res[1]


def test_sdca_fprint_never_zero_or_one_first():
    got = rtf.raw_ops.SdcaFprint(input=np.array([b"%d" % i for i in range(200)], object))
    assert (got[:, 0] != 0).all() and (got[:, 0] != 1).all() and len({tuple(r) for r in got.tolist()}) == 200


def test_sdca_fprint_rank_errors():
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf, rtf):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="rank 1"):
                lib.train.sdca_fprint([["a", "b"]])
    with pytest.raises(rtf.errors.InvalidArgumentError, match="vector"):
        rtf.raw_ops.SdcaFprint(input=np.array([[b"a"]], object))


def test_sdca_shrink_l1_inside_cond_branch():
    w = np.array([3.0, -0.2, -1.5], np.float32)
    with rtf.Graph().as_default(), rtf.Session() as s:
        v = rtf.Variable(w)

        def shrink():
            with rtf.control_dependencies([rtf.train.sdca_shrink_l1([v], l1=1.0, l2=1.0)]):
                return rtf.identity(v)

        out = rtf.cond(rtf.constant(True), shrink, lambda: rtf.identity(v))
        s.run(rtf.global_variables_initializer())
        s.run(out)
        np.testing.assert_array_equal(s.run(v), np.sign(w) * np.maximum(np.abs(w) - 1.0, 0).astype(np.float32))
