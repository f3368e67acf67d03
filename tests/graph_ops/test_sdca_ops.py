"""``tf.train.sdca_shrink_l1`` against TensorFlow's SdcaShrinkL1 and its formula."""
import numpy as np
import pytest

import ref as rtf
from ref.graph_ops import sdca_ops as _under_test  # noqa: F401  (the module these tests cover)

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


# -- SdcaOptimizer(V2) ---------------------------------------------------------

LOSSES = ["logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss", "poisson_loss"]


def _one_example(label, dense=True, sparse=True, values=True, state=(0.0, 0.0, 0.0, 0.0), weight=1.5):
    """One example (TF's visiting order is random; with one it is deterministic)."""
    kw = dict(sparse_example_indices=[], sparse_feature_indices=[], sparse_feature_values=[], dense_features=[],
              sparse_indices=[], sparse_weights=[], dense_weights=[],
              example_weights=np.array([weight], np.float32), example_labels=np.array([label], np.float32),
              example_state_data=np.array([state], np.float32))
    if sparse:
        kw["sparse_example_indices"] = [np.array([0, 0], np.int64), np.array([0], np.int64)]
        kw["sparse_feature_indices"] = [np.array([1, 4], np.int64), np.array([7], np.int64)]
        kw["sparse_feature_values"] = [np.array([0.5, -2.0], np.float32)] if values else []
        kw["sparse_indices"] = [np.array([4, 1, 9], np.int64), np.array([7, 3], np.int64)]
        kw["sparse_weights"] = [np.array([0.3, -0.4, 0.9], np.float32), np.array([0.05, 2.0], np.float32)]
    if dense:
        kw["dense_features"] = [np.array([[1.0, -0.5, 2.0]], np.float32)]
        kw["dense_weights"] = [np.array([0.25, 0.5, -0.125], np.float32)]
    return kw


def _disjoint_examples(labels):
    """Examples touching disjoint sparse features only: the order they are visited in does not matter."""
    n = len(labels)
    return dict(sparse_example_indices=[np.repeat(np.arange(n, dtype=np.int64), 2)],
                sparse_feature_indices=[np.arange(2 * n, dtype=np.int64)],
                sparse_feature_values=[np.linspace(-1.5, 2.0, 2 * n).astype(np.float32)],
                dense_features=[], sparse_indices=[np.arange(2 * n, dtype=np.int64)[::-1].copy()],
                sparse_weights=[np.linspace(0.4, -0.3, 2 * n).astype(np.float32)], dense_weights=[],
                example_weights=np.linspace(0.5, 2.0, n).astype(np.float32),
                example_labels=np.array(labels, np.float32),
                example_state_data=np.tile(np.array([[0.1, 0.0, 0.0, 0.0]], np.float32), (n, 1)) *
                np.array(labels, np.float32)[:, None])


# (inputs, attrs)
SDCA_CASES = {}
for _loss in LOSSES:
    _lab = 2.0 if _loss in ("squared_loss", "poisson_loss") else 1.0
    SDCA_CASES[f"{_loss}_dense_and_sparse"] = (_one_example(_lab), dict(loss_type=_loss, l1=0.1, l2=1.0))
    SDCA_CASES[f"{_loss}_label0_partitions3"] = (_one_example(0.0, state=(0.0, 0.0, 0.0, 0.0)),
                                                 dict(loss_type=_loss, l1=0.0, l2=0.5, num_loss_partitions=3))
    SDCA_CASES[f"{_loss}_sparse_without_values"] = (_one_example(1.0, dense=False, values=False),
                                                    dict(loss_type=_loss, l1=0.5, l2=2.0))
    SDCA_CASES[f"{_loss}_four_disjoint_examples"] = (_disjoint_examples([1.0, 0.0, 1.0, 1.0]),
                                                     dict(loss_type=_loss, l1=0.05, l2=0.25))
SDCA_CASES["squared_dense_only_negative_label"] = (_one_example(-3.0, sparse=False, state=(0.5, 0, 0, 0)),
                                                   dict(loss_type="squared_loss", l1=0.2, l2=1.0))
SDCA_CASES["hinge_clipped_dual"] = (_one_example(1.0, state=(0.9, 0, 0, 0), weight=10.0),
                                    dict(loss_type="hinge_loss", l1=0.0, l2=0.01))
SDCA_CASES["logistic_strong_l1_shrinks_all"] = (_one_example(1.0), dict(loss_type="logistic_loss", l1=5.0, l2=1.0))


def _attrs(attrs, adaptive_name="adaptive"):
    a = {"num_loss_partitions": 1, "num_inner_iterations": 1, **attrs}
    a[adaptive_name] = False
    return a


def _flat(res):
    return [np.asarray(res[0])] + [np.asarray(x) for x in res[1]] + [np.asarray(x) for x in res[2]]


@pytest.mark.parametrize("case", sorted(SDCA_CASES))
def test_sdca_optimizer_v2_raw_matches_tensorflow(case):
    tf = pytest.importorskip("tensorflow")
    inputs, attrs = SDCA_CASES[case]
    want = _flat(tf.raw_ops.SdcaOptimizerV2(**{k: [np.copy(x) for x in v] if isinstance(v, list) else np.copy(v)
                                                for k, v in inputs.items()}, **_attrs(attrs)))
    got = rtf.raw_ops.SdcaOptimizerV2(**inputs, **_attrs(attrs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == np.float32 and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)


def test_sdca_optimizer_does_not_mutate_its_inputs():
    inputs, attrs = SDCA_CASES["logistic_loss_dense_and_sparse"]
    before = np.copy(inputs["example_state_data"])
    rtf.raw_ops.SdcaOptimizer(**inputs, **_attrs(attrs, "adaptative"))
    np.testing.assert_array_equal(inputs["example_state_data"], before)


def _graph_run(lib, inputs, attrs):
    with lib.Graph().as_default(), lib.Session() as s:
        res = lib.train.sdca_optimizer(**inputs, **_attrs(attrs, "adaptative"))
        kinds = (res[0].op.type, res[0].shape.as_list(), [t.shape.as_list() for t in res[1] + res[2]])
        return kinds, _flat(s.run(res))


@pytest.mark.parametrize("case", ["squared_loss_dense_and_sparse", "logistic_loss_four_disjoint_examples",
                                  "smooth_hinge_loss_sparse_without_values"])
def test_train_sdca_optimizer_graph_matches_tensorflow(case):
    tf = pytest.importorskip("tensorflow").compat.v1
    inputs, attrs = SDCA_CASES[case]
    want_kinds, want = _graph_run(tf, inputs, attrs)
    got_kinds, got = _graph_run(rtf, inputs, attrs)
    assert got_kinds == want_kinds
    assert want_kinds[0] == "SdcaOptimizer"
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)


def test_sdca_squared_loss_matches_closed_form():
    """One squared-loss step: a' = a + (y - a - wx) / (1 + |x|^2 c / l2); dw = x (a' - a) c / l2."""
    x = np.array([1.0, -0.5, 2.0])
    w = np.array([0.25, 0.5, -0.125])
    y, c, a, l2 = -3.0, 1.5, 0.5, 2.0
    kw = _one_example(y, sparse=False, state=(a, 0, 0, 0), weight=c)
    state, dw = rtf.raw_ops.SdcaOptimizerV2(**kw, **_attrs(dict(loss_type="squared_loss", l1=0.0, l2=l2)))
    new = a + (y - a - x @ w) / (1 + (x @ x) / l2 * c)
    np.testing.assert_allclose(state[0], [new, 0.5 * (x @ w - y) ** 2 * c, a * (0.5 * a - y) * c, c], rtol=1e-6)
    np.testing.assert_allclose(dw, x * (new - a) * c / l2, rtol=1e-6)


def test_sdca_sequential_examples_see_earlier_deltas():
    """Two examples sharing a dense feature: the second's wx includes the first's delta (in index order)."""
    kw = dict(sparse_example_indices=[], sparse_feature_indices=[], sparse_feature_values=[],
              dense_features=[np.array([[1.0], [1.0]], np.float32)], sparse_indices=[], sparse_weights=[],
              dense_weights=[np.array([0.0], np.float32)], example_weights=np.ones(2, np.float32),
              example_labels=np.array([1.0, 1.0], np.float32), example_state_data=np.zeros((2, 4), np.float32))
    state, dw = rtf.raw_ops.SdcaOptimizerV2(**kw, **_attrs(dict(loss_type="squared_loss", l1=0.0, l2=1.0)))
    a0 = 1.0 / 2.0  # (y - 0 - 0) / (1 + 1)
    a1 = (1.0 - a0) / 2.0  # wx = a0 now
    np.testing.assert_allclose(state[:, 0], [a0, a1])
    np.testing.assert_allclose(dw, [a0 + a1])


@pytest.mark.parametrize("loss", LOSSES)
def test_sdca_adaptive_visits_each_example_once(loss):
    inputs = _disjoint_examples([1.0, 0.0, 1.0])
    got = rtf.raw_ops.SdcaOptimizerV2(**inputs, **{**_attrs(dict(loss_type=loss, l1=0.0, l2=1.0)), "adaptive": True})
    plain = rtf.raw_ops.SdcaOptimizerV2(**inputs, **_attrs(dict(loss_type=loss, l1=0.0, l2=1.0)))
    for g, p in zip(got, plain):  # disjoint examples: the visiting order does not change the result
        np.testing.assert_allclose(g, p, rtol=1e-6)


SDCA_ERRORS = {
    "label_not_binary": (dict(example_labels=np.array([0.5], np.float32)), "logistic_loss",
                         "Only labels of 0.0 or 1.0"),
    "negative_poisson_label": (dict(example_labels=np.array([-1.0], np.float32)), "poisson_loss", "non-negative"),
    "state_shape": (dict(example_state_data=np.zeros((2, 4), np.float32)), "squared_loss", "example_state_data"),
    "state_rank": (dict(example_state_data=np.zeros(4, np.float32)), "squared_loss", "rank 2"),
    "labels_count": (dict(example_labels=np.zeros(2, np.float32)), "squared_loss", "example labels"),
    "unknown_feature": (dict(sparse_feature_indices=[np.array([1, 5], np.int64), np.array([7], np.int64)]),
                        "squared_loss", "out of valid range"),
    "duplicate_feature": (dict(sparse_feature_indices=[np.array([1, 1], np.int64), np.array([7], np.int64)]),
                          "squared_loss", "Duplicate index"),
    "too_many_dense": (dict(dense_features=[np.ones((1, 4), np.float32)]), "squared_loss", "More dense features"),
    "no_features": (dict(sparse_example_indices=[], sparse_feature_indices=[], sparse_feature_values=[],
                         dense_features=[], sparse_indices=[], sparse_weights=[], dense_weights=[]),
                    "squared_loss", "at least one feature"),
}


@pytest.mark.parametrize("case", sorted(SDCA_ERRORS))
def test_sdca_invalid_input(case):
    tf = pytest.importorskip("tensorflow")
    change, loss, match = SDCA_ERRORS[case]
    inputs = {**_one_example(1.0), **change}
    attrs = _attrs(dict(loss_type=loss, l1=0.0, l2=1.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        tf.raw_ops.SdcaOptimizerV2(**inputs, **attrs)
    with pytest.raises(rtf.errors.InvalidArgumentError, match=match):
        rtf.raw_ops.SdcaOptimizerV2(**inputs, **attrs)


def test_sdca_optimizer_rejects_unknown_loss_at_construction():
    with rtf.Graph().as_default():
        with pytest.raises(ValueError, match="loss_type"):
            rtf.train.sdca_optimizer(**_one_example(1.0), **_attrs(dict(loss_type="cubic", l1=0.0, l2=1.0),
                                                                     "adaptative"))


def test_sdca_optimizer_graph_def_round_trip_with_tensorflow():
    """A TF graph holding SdcaOptimizer imports into ref and runs; ref's GraphDef imports back into TF."""
    tf = pytest.importorskip("tensorflow").compat.v1
    from ref.protos import graph_pb2

    inputs, attrs = SDCA_CASES["logistic_loss_dense_and_sparse"]
    with tf.Graph().as_default() as g:
        res = tf.train.sdca_optimizer(**inputs, **_attrs(attrs, "adaptative"))
        names = [res[0].name] + [t.name for t in res[1] + res[2]]
        with tf.Session() as s:
            want = s.run(names)
        theirs = g.as_graph_def()
    as_ref = graph_pb2.GraphDef()
    as_ref.ParseFromString(theirs.SerializeToString())
    with rtf.Graph().as_default() as g, rtf.Session() as s:
        rtf.import_graph_def(as_ref, name="")
        got = s.run(names)
        ours = g.as_graph_def()
    for w, x in zip(want, got):
        np.testing.assert_allclose(x, w, rtol=2e-6, atol=1e-6)
    back = tf.GraphDef()
    back.ParseFromString(ours.SerializeToString())
    with tf.Graph().as_default(), tf.Session() as s:
        tf.import_graph_def(back, name="")
        for w, x in zip(want, s.run(names)):
            np.testing.assert_allclose(x, w, rtol=2e-6, atol=1e-6)
