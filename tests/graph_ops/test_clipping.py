"""Gradient clipping: ref.graph_ops.clip_ops (graph) and ref.ops.clip (pure NumPy)
against tf.compat.v1 (clip_by_value, clip_by_norm, clip_by_average_norm,
global_norm, clip_by_global_norm) and against the spec-card oracles."""
from __future__ import annotations

import numpy as np
import pytest

import ref.ops
from ref.graph_ops import clip_ops as C
from ref.framework.graph import Graph
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import constant
from ref.ops import clip as P
from ref.session import Session
from ref import numpy_reference as npr
from specs import clipping as cards
from ref.golden.ulp import ulp_distance

ref.ops.load_all()

RNG = np.random.default_rng(5)
A32 = RNG.normal(size=(3, 4)).astype(np.float32)
B32 = (RNG.normal(size=(5,)) * 10).astype(np.float32)
A64 = RNG.normal(size=(2, 3, 2))
TINY = np.array([1e-30, -2e-30], np.float32)
ZERO = np.zeros((2, 2), np.float32)


def _tf_session(tf, graph):
    from tensorflow.core.protobuf import rewriter_config_pb2

    off = rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True)
    return tf.Session(graph=graph, config=tf.ConfigProto(graph_options=tf.GraphOptions(rewrite_options=off)))


@pytest.fixture(scope="module")
def tf1():
    tf = pytest.importorskip("tensorflow")
    return tf.compat.v1


def _run_tf(tf, build):
    g = tf.Graph()
    with g.as_default():
        out = _flat_fetches(build(tf, tf.constant))
    with _tf_session(tf, g) as sess:
        return sess.run(out)


def _run_ref(build):
    g = Graph()
    with g.as_default():
        out = _flat_fetches(build(C, constant))
    with Session(graph=g) as sess:
        return sess.run(out)


def _flat_fetches(x):
    if isinstance(x, (list, tuple)):
        return [y for e in x for y in _flat_fetches(e)]
    return [] if x is None else [x]


def _flat(x):
    if isinstance(x, (list, tuple)):
        return [y for e in x for y in _flat(e)]
    return [] if x is None else [np.asarray(x)]


# name, graph builder (namespace, constant) -> fetch, pure form -> same structure, ULP budget vs TF
CASES = [
    ("clip_by_value", lambda n, c: n.clip_by_value(c(A32), -0.5, 0.7), lambda: P.clip_by_value(A32, -0.5, 0.7), 0),
    ("clip_by_value_tensor_bounds", lambda n, c: n.clip_by_value(c(A64), c(np.float64(-0.1)), c(np.float64(0.2))),
     lambda: P.clip_by_value(A64, -0.1, 0.2), 0),
    ("clip_by_norm", lambda n, c: n.clip_by_norm(c(A32), 1.5), lambda: P.clip_by_norm(A32, 1.5), 2),
    ("clip_by_norm_no_clip", lambda n, c: n.clip_by_norm(c(A32), 100.0), lambda: P.clip_by_norm(A32, 100.0), 0),
    ("clip_by_norm_axes", lambda n, c: n.clip_by_norm(c(A32), 0.8, axes=[1]),
     lambda: P.clip_by_norm(A32, 0.8, axes=[1]), 2),
    ("clip_by_norm_axes0_f64", lambda n, c: n.clip_by_norm(c(A64), c(np.float64(0.3)), axes=[0, 2]),
     lambda: P.clip_by_norm(A64, np.float64(0.3), axes=[0, 2]), 2),
    ("clip_by_norm_tensor_norm", lambda n, c: n.clip_by_norm(c(B32), c(np.float32(2.0))),
     lambda: P.clip_by_norm(B32, np.float32(2.0)), 2),
    ("clip_by_norm_negative", lambda n, c: n.clip_by_norm(c(B32), -1.0), lambda: P.clip_by_norm(B32, -1.0), 0),
    ("clip_by_norm_zero", lambda n, c: n.clip_by_norm(c(ZERO), 1.0), lambda: P.clip_by_norm(ZERO, 1.0), 0),
    ("clip_by_norm_tiny", lambda n, c: n.clip_by_norm(c(TINY), 1.0), lambda: P.clip_by_norm(TINY, 1.0), 0),
    ("clip_by_average_norm", lambda n, c: n.clip_by_average_norm(c(A32), 0.1),
     lambda: P.clip_by_average_norm(A32, 0.1), 4),
    ("clip_by_average_norm_no_clip", lambda n, c: n.clip_by_average_norm(c(B32), 100.0),
     lambda: P.clip_by_average_norm(B32, 100.0), 4),
    ("global_norm", lambda n, c: n.global_norm([c(A32), None, c(B32)]), lambda: P.global_norm([A32, None, B32]),
     2),
    ("global_norm_f64", lambda n, c: n.global_norm((c(A64), c(A64))), lambda: P.global_norm((A64, A64)), 2),
    ("clip_by_global_norm", lambda n, c: n.clip_by_global_norm([c(A32), None, c(B32)], 2.0),
     lambda: P.clip_by_global_norm([A32, None, B32], 2.0), 2),
    ("clip_by_global_norm_no_clip", lambda n, c: n.clip_by_global_norm([c(A32), c(B32)], 1e3),
     lambda: P.clip_by_global_norm([A32, B32], 1e3), 2),
    ("clip_by_global_norm_use_norm", lambda n, c: n.clip_by_global_norm([c(A32)], 2.0, use_norm=c(np.float32(7))),
     lambda: P.clip_by_global_norm([A32], 2.0, use_norm=np.float32(7)), 2),
    ("clip_by_global_norm_inf", lambda n, c: n.clip_by_global_norm([c(A32), c(np.array([np.inf], np.float32))],
                                                                   1.0),
     lambda: P.clip_by_global_norm([A32, np.array([np.inf], np.float32)], 1.0), 0),
    ("clip_by_global_norm_nan", lambda n, c: n.clip_by_global_norm([c(A32), c(np.array([np.nan], np.float32))],
                                                                   1.0),
     lambda: P.clip_by_global_norm([A32, np.array([np.nan], np.float32)], 1.0), 0),
    ("clip_by_global_norm_f64", lambda n, c: n.clip_by_global_norm([c(A64)], 0.5),
     lambda: P.clip_by_global_norm([A64], 0.5), 2),
]


@pytest.mark.parametrize("name,build,pure,budget", CASES, ids=[c[0] for c in CASES])
def test_against_tensorflow_and_pure_form(tf1, name, build, pure, budget):
    want = _flat(_run_tf(tf1, build))
    got = _flat(_run_ref(build))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        d = ulp_distance(g, w)
        assert d.max() <= budget, f"{name}: {d.max()} ULP: ref {g}, TF {w}"
    for p, g in zip(_flat(pure()), got):  # the pure form runs the same kernels
        np.testing.assert_array_equal(p, g)


def test_inf_and_nan_norms_make_every_output_nan():
    clipped, norm = P.clip_by_global_norm([A32, np.array([np.inf], np.float32)], 1.0)
    assert np.isinf(norm) and all(np.isnan(c).all() for c in clipped)


def test_indexed_slices_are_clipped_on_their_values(tf1):
    vals = A32
    idx = np.array([0, 2, 5], np.int32)

    def build(n, c):
        s = (tf1.IndexedSlices if n is tf1 else IndexedSlices)(c(vals), c(idx), c(np.array([6, 4], np.int32)))
        by_norm = n.clip_by_norm(s, 1.0)
        by_value = n.clip_by_value(s, -0.2, 0.2)
        by_global, norm = n.clip_by_global_norm([s, None], 1.0)
        assert type(by_norm).__name__ == type(by_value).__name__ == type(by_global[0]).__name__ == "IndexedSlices"
        assert by_global[1] is None
        return [by_norm.values, by_norm.indices, by_value.values, by_global[0].values, norm,
                n.global_norm([s])]

    want = _run_tf(tf1, build)
    got = _run_ref(build)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.dtype, w.dtype)
        assert ulp_distance(g, w).max() <= 2 if g.dtype.kind == "f" else np.array_equal(g, w)


NON_SEQUENCES = [A32, "abc", {"a": 1}, 3.0]


@pytest.mark.parametrize("bad", NON_SEQUENCES, ids=["ndarray", "str", "dict", "float"])
@pytest.mark.parametrize("fn", ["global_norm", "clip_by_global_norm"])
def test_non_sequences_raise_type_error(fn, bad):
    args = (bad,) if fn == "global_norm" else (bad, 1.0)
    with Graph().as_default(), pytest.raises(TypeError, match="`t_list` should be a sequence"):
        getattr(C, fn)(*args)
    with pytest.raises(TypeError, match="`t_list` should be a sequence"):
        getattr(P, fn)(*args)


def test_names_follow_tensorflow(tf1):
    def names(n, c):
        t = c(A32, name="g")
        clipped, norm = n.clip_by_global_norm([t, None, t], 1.0)
        return [n.clip_by_norm(t, 1.0).name, n.clip_by_value(t, 0.0, 1.0).name,
                n.clip_by_average_norm(t, 1.0).name, norm.name, clipped[0].name, clipped[2].name,
                n.global_norm([t], name="gn").name]

    g = tf1.Graph()
    with g.as_default():
        want = names(tf1, tf1.constant)
    with Graph().as_default():
        got = names(C, constant)
    assert got == want


def test_clip_by_value_rejects_broadcasting_bounds():
    with Graph().as_default(), pytest.raises(ValueError, match="incompatible"):
        C.clip_by_value(constant(np.ones(3, np.float32)), 0.0, constant(np.ones((2, 3), np.float32)))


# -- the spec-card oracles ----------------------------------------------------------------------

ORACLE_ROWS = [
    ("clip_by_value", lambda x: P.clip_by_value(x, -0.5, 0.5), lambda x: npr.clip_by_value(x, -0.5, 0.5)),
    ("clip_by_norm", lambda x: P.clip_by_norm(x, 1.0), lambda x: npr.clip_by_norm(x, 1.0)),
    ("clip_by_norm", lambda x: P.clip_by_norm(x, 1e3), lambda x: npr.clip_by_norm(x, 1e3)),
    ("clip_by_average_norm", lambda x: P.clip_by_average_norm(x, 0.05),
     lambda x: npr.clip_by_average_norm(x, 0.05)),
    ("global_norm", lambda x: P.global_norm([x, x[:2]]), lambda x: npr.global_norm([x, x[:2]])),
    ("clip_by_global_norm", lambda x: P.clip_by_global_norm([x, x[:2]], 1.0)[0],
     lambda x: npr.clip_by_global_norm([x, x[:2]], 1.0)),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("card_name,kernel,oracle", ORACLE_ROWS, ids=[f"{r[0]}-{i}" for i, r in
                                                                      enumerate(ORACLE_ROWS)])
def test_pure_forms_agree_with_the_card_oracles(card_name, kernel, oracle, dtype):
    card = next(c for c in cards.CARDS if c.name == card_name)
    budget = card.ulp if dtype == np.float32 else card.ulp64
    rng = np.random.default_rng(11)
    for scale in (1e-3, 1.0, 1e3):
        for n in (1, 7, 100):
            x = (rng.normal(size=n) * scale).astype(dtype)
            got = _flat(kernel(x))
            want = _flat(oracle(x.astype(np.float64)))
            for g, w in zip(got, want):
                assert g.dtype == dtype
                d = ulp_distance(g, w.astype(dtype))
                assert d.max() <= budget, f"{card_name}: {d.max()} ULP > {budget} (n={n}, scale={scale})"
