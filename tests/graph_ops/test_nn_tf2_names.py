"""TF's nn_ops/nn_impl functions beyond tf.compat.v1.nn's names (``gelu``, ``swish``,
``log_poisson_loss``, the ``*_v2`` spellings, ``stateless_dropout``/``general_dropout``)
and dropout's argument checks: values and errors against TensorFlow's own modules
(``tensorflow.python.ops.nn_ops``/``nn_impl``), one row per case."""
import numpy as np
import pytest

from ref.graph_ops import nn_ops as _under_test  # noqa: F401
import ref

X = np.linspace(-12, 5, 60).astype(np.float32)
T = np.abs(np.linspace(-3, 3, 12)).astype(np.float32)
L = np.linspace(-1, 2, 12).astype(np.float32)
M = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7

# (id, function of (nn_ops, nn_impl, lib), rtol or (rtol, atol)): the same call on both sides
VALUE_ROWS = [
    ("gelu-exact", lambda o, i, lib: o.gelu(X), 2e-6),
    # 1 + tanh(z) cancels for negative x: TF's Eigen tanh differs there by ~1 float32 ULP of 1
    ("gelu-approximate", lambda o, i, lib: o.gelu(X, approximate=True), (2e-6, 1e-6)),
    ("gelu-float64", lambda o, i, lib: o.gelu(X.astype(np.float64)), 1e-14),
    ("swish", lambda o, i, lib: i.swish(X), 1e-6),
    ("swish-beta", lambda o, i, lib: i.swish(X, beta=0.5), 1e-6),
    ("swish-grad", lambda o, i, lib: (lambda x: lib.gradients(i.swish(x, beta=2.0), x))(lib.constant(X)), 1e-5),
    ("log_poisson_loss", lambda o, i, lib: i.log_poisson_loss(T, L), 1e-6),
    ("log_poisson_loss-full", lambda o, i, lib: i.log_poisson_loss(T, L, compute_full_loss=True), 1e-6),
    ("softmax_v2-axis0", lambda o, i, lib: o.softmax_v2(M, axis=0), 1e-6),
    ("log_softmax_v2-axis1", lambda o, i, lib: o.log_softmax_v2(M, axis=1), 1e-6),
    ("moments_v2-keepdims", lambda o, i, lib: i.moments_v2(M, axes=[0, 2], keepdims=True), 1e-6),
    ("dropout_v2-rate0", lambda o, i, lib: o.dropout_v2(M, rate=0.0), 0),
    ("general_dropout", lambda o, i, lib: o.general_dropout(
        M, rate=0.5, uniform_sampler=lambda shape, dtype: lib.fill(shape, lib.constant(0.25, dtype))), 0),
    ("stateless_dropout", lambda o, i, lib: o.stateless_dropout(M, rate=0.5, seed=[1, 2]), 0),
    ("stateless_dropout-philox", lambda o, i, lib: o.stateless_dropout(M, rate=0.3, seed=[3, 4], rng_alg="philox"), 0),
]


def _tf_modules():
    tf = pytest.importorskip("tensorflow")
    from tensorflow.python.ops import nn_impl, nn_ops
    return tf.compat.v1, nn_ops, nn_impl


def _run(lib, f):
    with lib.Graph().as_default():
        out = f()
        with lib.Session() as s:
            return s.run(out)


@pytest.mark.parametrize("rid,f,rtol", VALUE_ROWS, ids=[r[0] for r in VALUE_ROWS])
def test_values_match_tf(rid, f, rtol):
    v1, tf_ops, tf_impl = _tf_modules()
    want = _run(v1, lambda: f(tf_ops, tf_impl, v1))
    got = _run(ref, lambda: f(_under_test, _under_test, ref))
    rtol, atol = rtol if isinstance(rtol, tuple) else (rtol, 1e-30)
    got, want = (list(v) if isinstance(v, (list, tuple)) else [v] for v in (got, want))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=rtol, atol=atol)


# (id, call, error): TF raises the same kind at graph construction
ERROR_ROWS = [
    ("rate-list", lambda o, lib: o.dropout_v2(lib.ones([3]), rate=[0.0, 1.0]), ValueError),
    ("rate-above-one", lambda o, lib: o.dropout_v2(lib.ones([3]), rate=1.1), ValueError),
    ("rate-incompatible-dtype", lambda o, lib: o.dropout_v2(lib.ones([3]), rate=lib.placeholder(lib.float64)),
     ValueError),
    ("rate-not-scalar", lambda o, lib: o.dropout_v2(lib.ones([3]), rate=lib.placeholder(lib.float32, [2])),
     ValueError),
    ("keep_prob-list", lambda o, lib: o.dropout(lib.ones([3]), keep_prob=[0.5]), ValueError),
    ("stateless-rate-negative", lambda o, lib: o.stateless_dropout(lib.ones([3]), rate=-1.0, seed=[1, 2]),
     ValueError),
    ("gelu-int", lambda o, lib: o.gelu(lib.constant([1, 2])), ValueError),
]


@pytest.mark.parametrize("rid,f,error", ERROR_ROWS, ids=[r[0] for r in ERROR_ROWS])
def test_errors_match_tf(rid, f, error):
    v1, tf_ops, _ = _tf_modules()
    for lib, mod in ((v1, tf_ops), (ref, _under_test)):
        with lib.Graph().as_default(), pytest.raises(error):
            f(mod, lib)


# conv transposes (TF's nn_ops; ref's conv_ops): values against TF, and conv_transpose's checks
T1, F1 = np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 4, 3), np.linspace(0, 1, 30, dtype=np.float32).reshape(2, 5, 3)
T2, F2 = np.linspace(-1, 1, 96, dtype=np.float32).reshape(2, 4, 4, 3), np.linspace(0, 1, 60, dtype=np.float32).reshape(2, 2, 5, 3)
T3 = np.linspace(-1, 1, 384, dtype=np.float32).reshape(2, 4, 4, 4, 3)
F3 = np.linspace(0, 1, 120, dtype=np.float32).reshape(2, 2, 2, 5, 3)
CONV_ROWS = [
    ("conv1d_transpose", lambda c, lib: c.conv1d_transpose(T1, F1, [2, 8, 5], 2)),
    ("conv1d_transpose-valid", lambda c, lib: c.conv1d_transpose(T1, F1, [2, 8, 5], 2, padding="VALID")),
    ("conv_transpose-1d-tensor-shape", lambda c, lib: c.conv_transpose(T1, F1, lib.constant([2, 8, 5]), 2)),
    ("conv2d_transpose_v2", lambda c, lib: c.conv2d_transpose_v2(T2, F2, [2, 8, 8, 5], 2)),
    ("conv_transpose-2d", lambda c, lib: c.conv_transpose(T2, F2, [2, 8, 8, 5], [2, 2])),
    ("conv3d_transpose_v2", lambda c, lib: c.conv3d_transpose_v2(T3, F3, [2, 8, 8, 8, 5], 2)),
    ("conv3d_transpose_v2-valid-strides3", lambda c, lib: c.conv3d_transpose_v2(T3, F3, [2, 8, 8, 8, 5], [2, 2, 2],
                                                                                 padding="VALID")),
    ("conv3d_transpose-v1-aliases", lambda c, lib: c.conv3d_transpose(None, input=T3, filters=F3, output_shape=[2, 8, 8, 8, 5],
                                                                      strides=[1, 2, 2, 2, 1])),
    ("conv_transpose-3d-tensor-shape", lambda c, lib: c.conv_transpose(T3, F3, lib.constant([2, 8, 8, 8, 5]), 2)),
]


@pytest.mark.parametrize("rid,f", CONV_ROWS, ids=[r[0] for r in CONV_ROWS])
def test_conv_transposes_match_tf(rid, f):
    from ref.graph_ops import conv_ops
    v1, tf_ops, _ = _tf_modules()
    want = _run(v1, lambda: f(tf_ops, v1))
    got = _run(ref, lambda: f(conv_ops, ref))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("output_shape", [[2, 3], [2, 3, 4, 2, 5, 1], None])
def test_conv_transpose_checks_match_tf(output_shape):
    from ref.graph_ops import conv_ops
    _, tf_ops, _ = _tf_modules()
    messages = []
    for mod in (tf_ops, conv_ops):
        with pytest.raises(ValueError) as e:
            mod.conv_transpose(None, 2, output_shape, "SAME")
        messages.append(str(e.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("fn", ["max_pool_v2", "avg_pool_v2"])
@pytest.mark.parametrize("shape", [[3, 4], [3, 4, 1, 2, 1, 2]])
def test_pool_v2_rank_check_matches_tf(fn, shape):
    from ref.graph_ops import conv_ops
    v1, tf_ops, _ = _tf_modules()
    messages = []
    for lib, mod in ((v1, tf_ops), (ref, conv_ops)):
        with lib.Graph().as_default(), pytest.raises(ValueError) as e:
            getattr(mod, fn)(lib.ones(shape), ksize=2, strides=2, padding="SAME")
        messages.append(str(e.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("axis", [0, 1, [0, 1]])
def test_l2_normalize_complex_matches_tf(dtype, axis):
    v1, _, tf_impl = _tf_modules()
    x = (np.linspace(-1, 2, 12).reshape(3, 4) + 1j * np.linspace(3, -1, 12).reshape(3, 4)).astype(dtype)
    want = _run(v1, lambda: tf_impl.l2_normalize(x, axis))
    got = _run(ref, lambda: _under_test.l2_normalize(x, axis))
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
