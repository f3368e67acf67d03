"""Second-order gradients TF writes for nn kernels' gradient ops: batch norm
(``FusedBatchNormGrad``/``V2``/``V3``'s gradient, TF's _FusedBatchNormGradGrad,
training and inference, NHWC and NCHW) and max pooling
(``MaxPoolGradV2``'s gradient, ``MaxPoolGradGradV2``), against TF 2.21's
values (``tensorflow.compat.v1`` graphs)."""
import contextlib

import numpy as np
import pytest

import ref
from ref.framework.op_def_library import apply_op
from ref.grad import batch_norm_grad as _under_test  # noqa: F401

RNG = np.random.default_rng(11)


def _tf1():
    tf = pytest.importorskip("tensorflow")
    import sys
    import os
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "graph_ops"))
    from _graphdef import tf1_behaviour
    return tf.compat.v1, tf1_behaviour


class _RefRaw:
    """``tf.raw_ops``-style graph builders for ref (keyword inputs -> apply_op)."""

    def __getattr__(self, op_type):
        return lambda **kw: apply_op(op_type, **kw)


def _raw(lib):
    return _RefRaw() if lib is ref else lib.raw_ops


def _run(lib, build, feeds):
    with lib.Graph().as_default():
        phs = [lib.placeholder(lib.as_dtype(v.dtype), v.shape, name=f"p{i}") for i, v in enumerate(feeds)]
        outs = build(lib, *phs)
        with lib.Session() as sess:
            return sess.run(outs, dict(zip(phs, feeds)))


def _batch_norm_second_order(version, is_training, data_format):
    def build(lib, x, scale, offset, mean, var):
        kw = dict(epsilon=0.01, data_format=data_format, is_training=is_training)
        if version == "V3":
            y = _raw(lib).FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=mean, variance=var, **kw)[0]
        elif version == "V2":
            y = _raw(lib).FusedBatchNormV2(x=x, scale=scale, offset=offset, mean=mean, variance=var, **kw)[0]
        else:
            y = _raw(lib).FusedBatchNorm(x=x, scale=scale, offset=offset, mean=mean, variance=var, **kw)[0]
        w = lib.constant(RNG_W[:np.prod(x.shape.as_list())].reshape(x.shape.as_list()), x.dtype)
        gx, gs, go = lib.gradients(lib.reduce_sum(y * y * w), [x, scale, offset])
        loss2 = lib.reduce_sum(gx * gx * w) + lib.reduce_sum(gs * gs) + lib.reduce_sum(go * scale)
        return [gx, gs] + lib.gradients(loss2, [x, scale, offset])
    return build


RNG_W = RNG.uniform(0.5, 1.5, 256)
BN_ROWS = [(v, t, f) for v in ("V3", "V2", "V1") for t in (True, False) for f in ("NHWC", "NCHW")
           if not (v == "V1" and f == "NCHW")]


@pytest.mark.parametrize("version,is_training,data_format", BN_ROWS)
def test_batch_norm_second_order_equals_tf(version, is_training, data_format):
    tf, tf1_behaviour = _tf1()
    shape = (2, 3, 2, 2) if data_format == "NCHW" else (2, 2, 2, 3)
    feeds = [RNG.standard_normal(shape).astype(np.float32), RNG.uniform(0.5, 1.5, 3).astype(np.float32),
             RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32),
             RNG.uniform(0.5, 1.5, 3).astype(np.float32)]
    build = _batch_norm_second_order(version, is_training, data_format)
    with tf1_behaviour():
        want = _run(tf, build, feeds)
    got = _run(ref, build, feeds)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4)


def _max_pool_v2_second_order(lib, x):
    y = _raw(lib).MaxPoolV2(input=x, ksize=[1, 2, 2, 1], strides=[1, 1, 2, 1], padding="SAME")
    gx = lib.gradients(lib.reduce_sum(y * y), [x])[0]
    return lib.gradients(lib.reduce_sum(gx * gx), [x]) + [gx]


def test_max_pool_v2_second_order_equals_tf():
    tf, tf1_behaviour = _tf1()
    feeds = [RNG.permutation(48).reshape(2, 3, 4, 2).astype(np.float64)]
    with tf1_behaviour():
        want = _run(tf, _max_pool_v2_second_order, feeds)
    got = _run(ref, _max_pool_v2_second_order, feeds)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_max_pool_grad_grad_v2_kernel_equals_tf():
    tf = pytest.importorskip("tensorflow")
    x = RNG.permutation(60).reshape(1, 5, 4, 3).astype(np.float32)
    for padding in ("SAME", "VALID"):
        y = tf.raw_ops.MaxPoolV2(input=x, ksize=[1, 3, 2, 1], strides=[1, 2, 1, 1], padding=padding)
        g = RNG.standard_normal(x.shape).astype(np.float32)
        want = tf.raw_ops.MaxPoolGradGradV2(orig_input=x, orig_output=y, grad=g, ksize=[1, 3, 2, 1],
                                            strides=[1, 2, 1, 1], padding=padding).numpy()
        from ref.ops.pooling import max_pool_grad_grad_v2
        got = max_pool_grad_grad_v2(x, y.numpy(), g, np.int32([1, 3, 2, 1]), np.int32([1, 2, 1, 1]), padding)
        np.testing.assert_array_equal(got, want)


def _fbn_grad(version, is_training, x, dy, scale, mean, var):
    """The first-order batch norm gradient op of ``version`` at ``x`` (training:
    the reserve spaces of a forward op on ``x``; inference: the population stats)."""
    raw = _RefRaw()
    fwd = {"V3": "FusedBatchNormV3", "V2": "FusedBatchNormV2", "V1": "FusedBatchNorm"}[version]
    kw = dict(epsilon=0.01, is_training=is_training)
    outs = getattr(raw, fwd)(x=x, scale=scale, offset=ref.zeros_like(scale), mean=mean, variance=var, **kw)
    args = dict(y_backprop=dy, x=x, scale=scale, **kw)
    args.update(reserve_space_1=outs[3] if is_training else mean, reserve_space_2=outs[4] if is_training else var)
    if version == "V3":
        args["reserve_space_3"] = outs[5]
    return getattr(raw, {"V3": "FusedBatchNormGradV3", "V2": "FusedBatchNormGradV2",
                         "V1": "FusedBatchNormGrad"}[version])(**args)


@pytest.mark.parametrize("version,is_training", [(v, t) for v in ("V3", "V2", "V1") for t in (True, False)])
@pytest.mark.parametrize("wrt", ["x", "y_backprop", "scale"])
def test_batch_norm_grad_gradient_checker_float32(version, is_training, wrt):
    """Jacobians of x_backprop and scale_backprop (float32 kernels: a float32
    central difference, budget 2e-3 relative to the Jacobian's scale)."""
    shape = {"x": [2, 2, 2, 3], "y_backprop": [2, 2, 2, 3], "scale": [3]}[wrt]
    init = {"x": RNG.standard_normal(shape), "y_backprop": RNG.standard_normal(shape),
            "scale": RNG.uniform(0.5, 1.5, shape)}[wrt].astype(np.float32)
    consts = dict(x=RNG.standard_normal([2, 2, 2, 3]), y_backprop=RNG.standard_normal([2, 2, 2, 3]),
                  scale=RNG.uniform(0.5, 1.5, 3))
    with ref.Graph().as_default(), ref.Session():
        p = ref.placeholder(ref.float32, shape)
        t = {k: (p if k == wrt else ref.constant(v.astype(np.float32))) for k, v in consts.items()}
        gx, gs = _fbn_grad(version, is_training, t["x"], t["y_backprop"], t["scale"],
                           ref.constant(RNG.standard_normal(3).astype(np.float32)),
                           ref.constant(RNG.uniform(0.5, 1.5, 3).astype(np.float32)))[:2]
        y = ref.concat([ref.reshape(gx, [-1]), gs], 0)
        theoretical, numerical = ref.test.compute_gradient(p, shape, y, y.shape.as_list(), x_init_value=init,
                                                           delta=1e-2)
    scale = max(1.0, np.abs(numerical).max())
    np.testing.assert_allclose(theoretical, numerical, atol=2e-3 * scale, rtol=0)


def _max_pool3d_second_order(padding):
    def build(lib, x):
        y = _raw(lib).MaxPool3D(input=x, ksize=[1, 2, 2, 2, 1], strides=[1, 1, 2, 1, 1], padding=padding)
        gx = lib.gradients(lib.reduce_sum(y * y), [x])[0]
        ggx = lib.gradients(lib.reduce_sum(gx * gx), [x])[0]
        # third order: MaxPool3DGradGrad's own gradient (MaxPool3DGrad)
        gy = _raw(lib).MaxPool3DGradGrad(orig_input=x, orig_output=y, grad=x * x, ksize=[1, 2, 2, 2, 1],
                                         strides=[1, 1, 2, 1, 1], padding=padding)
        return [gx, ggx, gy] + lib.gradients(lib.reduce_sum(gy * gy), [x])
    return build


# MaxPool3D's second and third order (MaxPool3DGrad's gradient is MaxPool3DGradGrad, whose
# gradient is MaxPool3DGrad), with ties: integer-valued inputs repeat, so the first maximum counts.
@pytest.mark.parametrize("padding,dtype,values", [
    ("SAME", np.float32, "distinct"), ("VALID", np.float32, "distinct"),
    ("SAME", np.float32, "ties"), ("VALID", np.float32, "ties")])
def test_max_pool3d_second_order_equals_tf(padding, dtype, values):
    tf, tf1_behaviour = _tf1()
    shape = (2, 3, 4, 3, 2)
    x = (RNG.permutation(144) if values == "distinct" else RNG.integers(0, 4, 144)).reshape(shape).astype(dtype)
    feeds = [x]
    with tf1_behaviour():
        want = _run(tf, _max_pool3d_second_order(padding), feeds)
    got = _run(ref, _max_pool3d_second_order(padding), feeds)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)
