"""TF1 names that rearrange space and depth and dilate convolutions:
``tf.space_to_depth`` / ``tf.depth_to_space`` (and ``tf.nn.*``), with their
gradients, and ``tf.nn.atrous_conv2d``. Each row builds one snippet under
``ref`` and under TF 2.21's ``tf.compat.v1``: the GraphDefs are identical
(``_graphdef.assert_same_graph``) where marked, and the values (outputs and
gradients) equal TF's. NCHW, which TF's CPU kernels refuse, builds and then
fails to run with TF's error kind."""
import numpy as np
import pytest

import ref
from ref.graph_ops import space_depth_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1, ref_and_tf_values

R = np.random.RandomState(11)
IMG = R.rand(2, 4, 6, 3).astype(np.float32)
DEEP = R.rand(2, 3, 2, 12).astype(np.float32)





def _loss_and_grads(t, out):
    # [out, loss, gradients]: the moved values and the gradients are exact
    loss = t.reduce_sum(t.square(out))
    return [out, loss] + [g for g in t.gradients(loss, t.trainable_variables()) if g is not None]


# (snippet, GraphDef identical to TF's)
ROWS = {
    "space_to_depth": (lambda t: _loss_and_grads(t, t.space_to_depth(t.Variable(IMG), 2)), True),
    "nn_space_to_depth_named": (lambda t: _loss_and_grads(t, t.nn.space_to_depth(t.Variable(IMG), 2, name="s2d")),
                                True),
    "depth_to_space": (lambda t: _loss_and_grads(t, t.depth_to_space(t.Variable(DEEP), 2)), True),
    "nn_depth_to_space_roundtrip": (lambda t: _loss_and_grads(t, t.nn.depth_to_space(
        t.nn.space_to_depth(t.Variable(IMG), 2) * 3.0, 2)), True),
    "space_to_depth_unknown_batch": (lambda t: [t.space_to_depth(
        t.placeholder_with_default(IMG, [None, 4, 6, 3]), 2)], True),
    "atrous_conv2d_rate1": (lambda t: _loss_and_grads(t, t.nn.atrous_conv2d(
        t.constant(IMG), t.Variable(t.ones([3, 3, 3, 2]) * 0.1), 1, "SAME")), True),
    "atrous_conv2d_rate2_same": (lambda t: _loss_and_grads(t, t.nn.atrous_conv2d(
        t.constant(IMG), t.Variable(t.ones([2, 2, 3, 4]) * 0.1), 2, "SAME", name="atrous")), False),
    "atrous_conv2d_rate2_valid": (lambda t: _loss_and_grads(t, t.nn.atrous_conv2d(
        t.constant(IMG), t.Variable(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 2, 3, 2)), 2, "VALID")),
        False),
}


@pytest.mark.parametrize("name", [n for n, (_, same) in ROWS.items() if same])
def test_graph_def(name):
    assert_same_graph(ROWS[name][0])


@pytest.mark.parametrize("name", list(ROWS))
def test_values(name):
    got, want = ref_and_tf_values(ROWS[name][0])
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.shape == b.shape and a.dtype == b.dtype
        if name.startswith("atrous") or i == 1:  # convolution sums; the loss is a Sum (its own order)
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(a, b)


# -- NCHW: the graph (and its gradient) builds; running it raises TF's CPU error --

def _nchw(x):
    return x.transpose(0, 3, 1, 2)


NCHW_ROWS = [("SpaceToDepth", "space_to_depth", IMG, 2), ("DepthToSpace", "depth_to_space", DEEP, 2),
             ("SpaceToDepth", "space_to_depth", R.rand(1, 6, 9, 2).astype(np.float64), 3)]


def _run_nchw(lib, fn, x, bs):
    """(static output shape, the error's kind name and message) of an NCHW run under ``lib``."""
    with lib.Graph().as_default():
        v = lib.constant(_nchw(x))
        y = getattr(lib.nn, fn)(v, bs, data_format="NCHW")
        g = lib.gradients(lib.reduce_sum(y), [v])[0]
        assert g is not None
        with lib.Session() as s:
            try:
                s.run(y)
            except Exception as e:  # noqa: BLE001 -- the kind is compared below
                return y.shape.as_list(), type(e).__name__, str(e)
    return y.shape.as_list(), None, ""


@pytest.mark.parametrize("op,fn,x,bs", NCHW_ROWS)
def test_nchw_builds_and_refuses_to_run_as_tf(op, fn, x, bs):
    shape, kind, msg = _run_nchw(ref, fn, x, bs)
    with tf1_behaviour():
        tshape, tkind, _ = _run_nchw(tf_v1(), fn, x, bs)
    assert (shape, kind) == (tshape, tkind) == (tshape, "InvalidArgumentError")
    assert f"No OpKernel was registered to support Op '{op}'" in msg and 'data_format="NCHW"' in msg


# -- errors: TF's kinds --------------------------------------------------------

ERRORS = [
    (lambda t: t.space_to_depth(t.zeros([1, 4, 4, 1]), 1), ValueError),  # block_size >= 2
    (lambda t: t.space_to_depth(t.zeros([1, 5, 4, 1]), 2), ValueError),  # height not a multiple
    (lambda t: t.depth_to_space(t.zeros([1, 2, 2, 3]), 2), ValueError),  # depth not a multiple of 4
    (lambda t: t.space_to_depth(t.zeros([4, 4, 1]), 2), ValueError),  # rank 3
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_static_errors_match_tf(i):
    build, kind = ERRORS[i]
    with tf1_behaviour():
        tf = tf_v1()
        with tf.Graph().as_default(), pytest.raises(kind):
            build(tf)
    with ref.Graph().as_default(), pytest.raises(kind):
        build(ref)


def test_runtime_error_is_invalid_argument():
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float32, [None, None, None, 1])
        y = ref.space_to_depth(x, 2)
        with ref.Session() as s, pytest.raises(ref.errors.InvalidArgumentError):
            s.run(y, {x: np.zeros([1, 3, 4, 1], np.float32)})


# -- 3-D convolution and pooling (NDHWC): GraphDef, values, gradients ----------

VOL = R.rand(2, 5, 4, 6, 3).astype(np.float32)
FILT = (R.rand(2, 3, 2, 3, 4).astype(np.float32) - 0.5)

ROWS_3D = {
    "conv3d_same": lambda t: _loss_and_grads(t, t.nn.conv3d(t.Variable(VOL), t.Variable(FILT), [1, 1, 1, 1, 1],
                                                            "SAME")),
    "conv3d_valid_strided": lambda t: _loss_and_grads(t, t.nn.conv3d(t.Variable(VOL), t.Variable(FILT),
                                                                     [1, 2, 1, 2, 1], "VALID", name="c3")),
    "conv3d_same_strided_filters": lambda t: _loss_and_grads(t, t.nn.conv3d(
        t.Variable(VOL), filters=t.Variable(FILT), strides=[1, 2, 2, 3, 1], padding="SAME")),
    "max_pool3d_same": lambda t: _loss_and_grads(t, t.nn.max_pool3d(t.Variable(VOL), 2, 2, "SAME")),
    "max_pool3d_valid": lambda t: _loss_and_grads(t, t.nn.max_pool3d(t.Variable(VOL), [2, 3, 2], [1, 1, 2],
                                                                     "VALID", name="mp")),
    "avg_pool3d_same": lambda t: _loss_and_grads(t, t.nn.avg_pool3d(t.Variable(VOL), [1, 3, 3, 3, 1],
                                                                    [1, 2, 1, 2, 1], "SAME")),
    "avg_pool3d_valid": lambda t: _loss_and_grads(t, t.nn.avg_pool3d(t.Variable(VOL), 2, 1, "VALID")),
    "max_pool_v2_rank5": lambda t: _loss_and_grads(t, t.nn.max_pool_v2(t.Variable(VOL), 2, [1, 2, 1], "SAME",
                                                                       name="mp2")),
    "avg_pool_v2_rank5": lambda t: _loss_and_grads(t, t.nn.avg_pool_v2(t.Variable(VOL), [2, 1, 2], 1, "VALID")),
    "convolution_rank5": lambda t: _loss_and_grads(t, t.nn.convolution(t.Variable(VOL), t.Variable(FILT), "SAME")),
    "convolution_rank5_strided": lambda t: _loss_and_grads(t, t.nn.convolution(
        t.Variable(VOL), t.Variable(FILT), "VALID", strides=[2, 1, 2], name="conv")),
}


@pytest.mark.parametrize("name", list(ROWS_3D))
def test_graph_def_3d(name):
    assert_same_graph(ROWS_3D[name])


@pytest.mark.parametrize("name", list(ROWS_3D))
def test_values_3d(name):
    got, want = ref_and_tf_values(ROWS_3D[name])
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# -- tf.layers 3-D: as TF's Keras-based legacy layers build them --------------

LAYER_ROWS = {
    "layers_conv3d": lambda t: _loss_and_grads(t, t.layers.conv3d(t.constant(VOL), 4, 2, padding="same",
                                                                  activation=t.nn.relu)),
    "layers_conv3d_strided_nobias": lambda t: _loss_and_grads(t, t.layers.conv3d(
        t.constant(VOL), 2, (2, 1, 3), strides=(1, 2, 1), use_bias=False, name="c3d")),
    "layers_Conv3D_object": lambda t: _loss_and_grads(t, t.layers.Conv3D(3, 2)(t.constant(VOL))),
    "layers_max_pooling3d": lambda t: [t.layers.max_pooling3d(t.constant(VOL), 2, 2, padding="same")],
    "layers_average_pooling3d": lambda t: [t.layers.average_pooling3d(t.constant(VOL), (2, 2, 3), 1)],
    "layers_MaxPooling3D_channels_first": lambda t: [t.layers.MaxPooling3D(2, 1, data_format="channels_first")(
        t.constant(VOL))],
    "layers_pool3d_after_conv3d": lambda t: _loss_and_grads(t, t.layers.average_pooling3d(
        t.layers.conv3d(t.constant(VOL), 2, 3), 2, 2, name="pool")),
    # conv3d_transpose: the output shape from the input's dynamic shape (mul, add of max(k - s, 0))
    "layers_conv3d_transpose_valid": lambda t: _loss_and_grads(t, t.layers.conv3d_transpose(
        t.constant(VOL), 2, (2, 3, 1), strides=(2, 1, 2), activation=t.nn.relu)),
    "layers_conv3d_transpose_same_nobias": lambda t: _loss_and_grads(t, t.layers.conv3d_transpose(
        t.constant(VOL), 3, 2, strides=2, padding="same", use_bias=False, name="up")),
    "layers_conv3d_transpose_unknown_batch": lambda t: _loss_and_grads(t, t.layers.conv3d_transpose(
        t.placeholder_with_default(VOL, [None, 5, None, 6, 3]), 2, 3, strides=(1, 2, 1))),
    "layers_Conv3DTranspose_object_reused": lambda t: (lambda layer: _loss_and_grads(
        t, layer(t.constant(VOL)) + layer(t.constant(VOL[::-1]))))(t.layers.Conv3DTranspose(2, 2, strides=2)),
}


@pytest.mark.parametrize("name", list(LAYER_ROWS))
def test_layers_graph_def(name):
    assert_same_graph(LAYER_ROWS[name])


@pytest.mark.parametrize("name", list(LAYER_ROWS))
def test_layers_values(name):
    got, want = ref_and_tf_values(LAYER_ROWS[name], seed=5)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# -- extract_image_patches: GraphDef (TF's index-image gradient), values ------

PIX = R.rand(2, 7, 6, 3).astype(np.float32)

PATCH_ROWS = {
    "extract_image_patches_valid": lambda t: _loss_and_grads(t, t.extract_image_patches(
        t.Variable(PIX), [1, 3, 2, 1], [1, 2, 1, 1], [1, 1, 1, 1], "VALID")),
    "extract_image_patches_same_rates": lambda t: _loss_and_grads(t, t.image.extract_image_patches(
        t.Variable(PIX), [1, 2, 3, 1], [1, 3, 2, 1], [1, 2, 2, 1], "SAME", name="patches")),
    "extract_image_patches_sizes": lambda t: _loss_and_grads(t, t.extract_image_patches(
        t.Variable(PIX), sizes=[1, 3, 3, 1], strides=[1, 1, 1, 1], rates=[1, 1, 2, 1], padding="SAME")),
    "image_extract_patches": lambda t: _loss_and_grads(t, t.image.extract_patches(
        t.Variable(PIX), [1, 4, 4, 1], [1, 4, 4, 1], [1, 1, 1, 1], "SAME")),
    "extract_image_patches_int32": lambda t: [t.extract_image_patches(
        t.constant((PIX * 100).astype(np.int32)), [1, 2, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "SAME")],
}


@pytest.mark.parametrize("name", list(PATCH_ROWS))
def test_patches_graph_def(name):
    assert_same_graph(PATCH_ROWS[name])


def _patch_values(t, name):
    with t.Graph().as_default():
        outs = PATCH_ROWS[name](t)
        with t.Session() as s:
            s.run(t.global_variables_initializer())
            return s.run(outs)


@pytest.mark.parametrize("name", list(PATCH_ROWS))
def test_patches_values(name):
    got = _patch_values(ref, name)
    with tf1_behaviour():
        want = _patch_values(tf_v1(), name)
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.shape == b.shape and a.dtype == b.dtype
        if i == 1:  # the loss: a Sum in ref's own order
            np.testing.assert_allclose(a, b, rtol=1e-6)
        else:  # copied values, and gradients summed per pixel in the same segment order
            np.testing.assert_array_equal(a, b)


# tf.range with a tensor limit and a dtype (the ExtractImagePatches gradient's
# index image): TF converts every non-tensor argument before the first Cast.
RANGE_ROWS = {
    "range_tensor_limit_dtype": lambda t: [t.range(1, t.constant(7, t.int64) + 1, dtype=t.float32)],
    "range_tensor_start_dtype": lambda t: [t.range(t.constant(2), 9, 2, dtype=t.int64)],
}


@pytest.mark.parametrize("name", list(RANGE_ROWS))
def test_range_graph_def(name):
    assert_same_graph(RANGE_ROWS[name])


# -- grayscale morphology: dilation2d, erosion2d ------------------------------

KER = R.rand(3, 2, 3).astype(np.float32) - 0.5

MORPH_ROWS = {
    "dilation2d_same": lambda t: _loss_and_grads(t, t.nn.dilation2d(
        t.Variable(PIX), t.Variable(KER), [1, 1, 1, 1], [1, 1, 1, 1], "SAME")),
    "dilation2d_valid_strided_rates": lambda t: _loss_and_grads(t, t.nn.dilation2d(
        t.Variable(PIX), filters=t.Variable(KER), strides=[1, 2, 1, 1], dilations=[1, 1, 2, 1], padding="VALID",
        name="dil")),
    "dilation2d_same_strided": lambda t: _loss_and_grads(t, t.nn.dilation2d(
        t.Variable(PIX), t.Variable(KER), [1, 2, 3, 1], [1, 2, 1, 1], "SAME")),
    "erosion2d_same": lambda t: _loss_and_grads(t, t.nn.erosion2d(
        t.Variable(PIX), t.Variable(KER), [1, 1, 1, 1], [1, 1, 1, 1], "SAME")),
    "erosion2d_valid_named": lambda t: _loss_and_grads(t, t.nn.erosion2d(
        t.Variable(PIX), t.Variable(KER), [1, 1, 2, 1], [1, 2, 1, 1], "VALID", name="ero")),
    "dilation2d_int32": lambda t: [t.nn.dilation2d(t.constant((PIX * 50).astype(np.int32)),
                                                   t.constant((KER * 10).astype(np.int32)), [1, 1, 1, 1],
                                                   [1, 1, 1, 1], "SAME")],
}


@pytest.mark.parametrize("name", list(MORPH_ROWS))
def test_morphology_graph_def(name):
    assert_same_graph(MORPH_ROWS[name])


def _morph_values(t, name):
    with t.Graph().as_default():
        outs = MORPH_ROWS[name](t)
        with t.Session() as s:
            s.run(t.global_variables_initializer())
            return s.run(outs)


@pytest.mark.parametrize("name", list(MORPH_ROWS))
def test_morphology_values(name):
    got = _morph_values(ref, name)
    with tf1_behaviour():
        want = _morph_values(tf_v1(), name)
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.shape == b.shape and a.dtype == b.dtype
        if i == 1:  # the loss: a Sum in ref's own order
            np.testing.assert_allclose(a, b, rtol=1e-6)
        else:  # a max of sums and its winners' gradients: TF's numbers exactly
            np.testing.assert_array_equal(a, b)


# A list attr given as something else is TF's TypeError ("Expected list ...").
BAD_ATTRS = [
    lambda t: t.extract_image_patches(t.zeros([1, 2, 2, 1]), t.constant([1, 1, 1, 1]), [1, 1, 1, 1], [1, 1, 1, 1],
                                      "VALID"),
    lambda t: t.image.extract_patches(t.zeros([1, 2, 2, 1]), [1, 1, 1, 1], 1, [1, 1, 1, 1], "VALID"),
]


@pytest.mark.parametrize("i", range(len(BAD_ATTRS)))
def test_list_attr_type_errors_match_tf(i):
    with tf1_behaviour():
        tf = tf_v1()
        with tf.Graph().as_default(), pytest.raises(TypeError, match="Expected list"):
            BAD_ATTRS[i](tf)
    with ref.Graph().as_default(), pytest.raises(TypeError, match="Expected list"):
        BAD_ATTRS[i](ref)
