"""Batch normalisation is TensorFlow's bit for bit (float32).

TF's CPU ``FusedBatchNorm*`` computes ``scaling_factor = ((var + eps).rsqrt() *
scale).eval()`` over ``[depth]`` with Eigen's ``prsqrt`` (``rsqrtps`` and a
Newton step, ``ref.ops.eigen_recip``), the training statistics with Eigen's
reduction over the leading axis (``ref.ops.eigen_reduce``); its gradients sum
with ``ReduceOuterDimensions``' blocks (``ref.ops.eigen_redux``) and the inference
gradient scales ``sum(dy * (x - mean))`` by ``rsqrt(var + eps)`` after the sum.
``tf.nn.batch_normalization`` is ``Rsqrt`` of ``variance + epsilon`` times the
scale (the same ``prsqrt``).

Rows: shapes with a depth that is a multiple of the packet (8), one that is
not, and one below it (every channel on the scalar tail), training and
inference, forward and gradient; against ``tf.raw_ops`` (skipped without TF).
TF-free: the forward kernel's ``y`` recomputed from its documented formula
with ``eigen_recip.rsqrt`` and ``eigen_reduce.reduce``."""
import numpy as np
import pytest

import ref
from ref import raw_ops
from ref.ops import eigen_recip, eigen_reduce, fpenv

SHAPES = {"depth32": ([4, 5, 5, 32], "NHWC"), "depth20": ([8, 3, 3, 20], "NHWC"),
          "depth5": ([2, 3, 3, 5], "NHWC"), "nchw_depth24": ([2, 24, 4, 4], "NCHW"),
          "depth64": ([16, 7, 7, 64], "NHWC"), "depth36": ([32, 8, 8, 36], "NHWC"),
          "mnist_like_depth3": ([64, 28, 28, 3], "NHWC")}


def _case(name):
    shape, fmt = SHAPES[name]
    rng = np.random.RandomState(sorted(SHAPES).index(name))
    d = shape[-1] if fmt == "NHWC" else shape[1]
    x = (rng.randn(*shape) * 3 + 1).astype(np.float32)
    return dict(x=x, fmt=fmt, d=d, scale=(rng.rand(d) + 0.5).astype(np.float32), offset=rng.randn(d).astype(np.float32),
                mean=rng.randn(d).astype(np.float32), var=(rng.rand(d) * 4 + 0.1).astype(np.float32),
                dy=rng.randn(*shape).astype(np.float32))


def _fbn_kwargs(c, training):
    empty = np.zeros(0, np.float32)
    return dict(x=c["x"], scale=c["scale"], offset=c["offset"], mean=empty if training else c["mean"],
                variance=empty if training else c["var"], epsilon=0.001, data_format=c["fmt"], is_training=training)


def _same(a, b):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return a.shape == b.shape and np.array_equal(a.view(np.int32), b.view(np.int32))


@pytest.mark.parametrize("training", [True, False], ids=["training", "inference"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_fused_batch_norm_v3_equals_tensorflow(name, training):
    tf = pytest.importorskip("tensorflow")
    c = _case(name)
    kw = _fbn_kwargs(c, training)
    want = tf.raw_ops.FusedBatchNormV3(**kw)
    with fpenv.flush_denormals():
        got = raw_ops.FusedBatchNormV3(**kw)
    for i in range(5 if training else 3):  # y, batch_mean, batch_variance, reserve_space_1/2 (unset at inference)
        assert _same(got[i], want[i].numpy()), i
    if c["fmt"] == "NCHW" and not training:
        return  # TF's CPU gradient takes NHWC only at inference
    saved = (want[3].numpy(), want[4].numpy()) if training else (c["mean"], c["var"])  # as tf.nn's gradient
    gk = dict(y_backprop=c["dy"], x=c["x"], scale=c["scale"], reserve_space_1=saved[0],
              reserve_space_2=saved[1], reserve_space_3=want[5].numpy(), epsilon=0.001,
              data_format=c["fmt"], is_training=training)
    gwant = tf.raw_ops.FusedBatchNormGradV3(**gk)
    with fpenv.flush_denormals():
        ggot = raw_ops.FusedBatchNormGradV3(**gk)
    for i in range(3):  # x_backprop, scale_backprop, offset_backprop
        assert _same(ggot[i], gwant[i].numpy()), i


def _nn_batch_normalization(lib, c):
    with lib.Graph().as_default() as g:
        p = lib.placeholder(lib.float32, c["x"].shape)
        axes = [0, 1, 2] if c["fmt"] == "NHWC" else [0, 2, 3]
        b = [1, 1, 1, c["d"]] if c["fmt"] == "NHWC" else [1, c["d"], 1, 1]
        m, v = lib.nn.moments(p, axes, keep_dims=True)
        with_batch = lib.nn.batch_normalization(p, m, v, c["offset"].reshape(b), c["scale"].reshape(b), 1e-3)
        given = lib.nn.batch_normalization(p, c["mean"].reshape(b), c["var"].reshape(b), c["offset"].reshape(b),
                                           c["scale"].reshape(b), 1e-3)
        with lib.Session(graph=g) as s:
            return s.run([with_batch, given], {p: c["x"]})


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_nn_batch_normalization_equals_tensorflow(name):
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf1
    c = _case(name)
    want = _nn_batch_normalization(tf1, c)
    got = _nn_batch_normalization(ref, c)
    for g, w in zip(got, want):
        assert _same(g, w)


@pytest.mark.parametrize("training", [True, False], ids=["training", "inference"])
@pytest.mark.parametrize("name", sorted(n for n in SHAPES if SHAPES[n][1] == "NHWC"))
def test_forward_is_its_formula(name, training):
    c = _case(name)
    got = raw_ops.FusedBatchNormV3(**_fbn_kwargs(c, training))
    m = c["x"].reshape(-1, c["d"])
    f = np.float32
    if training:
        inv = f(f(1) / f(m.shape[0]))
        mean = eigen_reduce.reduce(m, (0,)) * inv
        var = eigen_reduce.reduce((m - mean) * (m - mean), (0,)) * inv
    else:
        mean, var = c["mean"], c["var"]
    factor = eigen_recip.rsqrt(var + f(0.001)) * c["scale"]
    y = (m - mean) * factor + c["offset"]
    assert _same(got[0], y.reshape(c["x"].shape))
    assert _same(got[4], var)
    if eigen_recip.AVAILABLE and c["d"] >= 8:  # the packets' rsqrt is not the quotient
        assert not _same(eigen_recip.rsqrt(var + f(0.001)), f(1) / np.sqrt(var + f(0.001)))
