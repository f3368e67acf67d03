"""tf.image's measures (total_variation, psnr, ssim, ssim_multiscale,
image_gradients, sobel_edges), TF 2's stateless random flips, the colour conversions that contract the
channels with ``tensordot`` (whose graph on unknown shapes is TF's dynamic
one), grayscale_to_rgb and non_max_suppression make TF's GraphDef on a static
image, a static batch and an image of unknown height and width, and give TF's
values and gradients."""
import numpy as np
import pytest

import ref
from ref.graph_ops import image_geometry_ops as _geometry, image_metrics_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1

IMAGE = np.random.RandomState(1).rand(12, 11, 3).astype(np.float32)
BATCH = np.stack([IMAGE, IMAGE[::-1]])
W = np.random.RandomState(2).randn(3, 5).astype(np.float32)


def _noisy(t, x):
    return x * 0.8 + 0.1


def _stateless_flip(which):
    """TF 2's ``tf.image.stateless_random_flip_*`` (absent from compat.v1): ref's from its geometry module."""
    def call(t, x):
        name = f"stateless_random_flip_{which}"
        fn = getattr(_geometry, name) if t is ref else getattr(pytest.importorskip("tensorflow").image, name)
        return fn(x, seed=[3, 4])
    return call


def _as_batch(t, x):
    return x if x.shape.ndims == 4 else t.expand_dims(x, 0)


FUNCTIONS = {
    "total_variation": lambda t, x: t.image.total_variation(x),
    "psnr": lambda t, x: t.image.psnr(x, _noisy(t, x), 1.0),
    "psnr_uint8": lambda t, x: t.image.psnr(t.image.convert_image_dtype(x, t.uint8),
                                            t.image.convert_image_dtype(_noisy(t, x), t.uint8), 255),
    "ssim": lambda t, x: t.image.ssim(x, _noisy(t, x), 1.0),
    "ssim_map": lambda t, x: t.image.ssim(x, _noisy(t, x), 1.0, filter_size=5, return_index_map=True),
    "ssim_multiscale": lambda t, x: t.image.ssim_multiscale(
        t.image.resize_images(x, [47, 45]), _noisy(t, t.image.resize_images(x, [47, 45])), 1.0,
        power_factors=(0.3, 0.3, 0.4)),
    "image_gradients": lambda t, x: list(t.image.image_gradients(_as_batch(t, x))),
    "sobel_edges": lambda t, x: t.image.sobel_edges(_as_batch(t, x)),
    "rgb_to_grayscale": lambda t, x: t.image.rgb_to_grayscale(x),
    "rgb_to_yiq": lambda t, x: t.image.rgb_to_yiq(x),
    "rgb_to_yuv": lambda t, x: t.image.rgb_to_yuv(x),
    "yiq_to_rgb": lambda t, x: t.image.yiq_to_rgb(x),
    "grayscale_to_rgb": lambda t, x: t.image.grayscale_to_rgb(x[..., :1]),
    "tensordot": lambda t, x: t.tensordot(x, W, [[x.shape.ndims - 1], [0]]),
    "stateless_random_flip_left_right": _stateless_flip("left_right"),
    "stateless_random_flip_up_down": _stateless_flip("up_down"),
    "non_max_suppression": lambda t, x: t.image.non_max_suppression(
        [[0, 0, 1, 1.], [0, 0.1, 1, 1.1], [0, 2, 1, 3]], t.reduce_sum(x, [0, 1]), 2),
}
INPUTS = {
    "image": (lambda t: t.constant(IMAGE), None),
    "batch": (lambda t: t.constant(BATCH), None),
    "unknown_hw": (lambda t: t.placeholder(t.float32, [None, None, 3]), IMAGE),
}
SKIP = {("non_max_suppression", "batch")}
ROWS = [(f, i) for f in FUNCTIONS for i in INPUTS if (f, i) not in SKIP]
# tensordot on an image of unknown rank: TF's Range/ListDiff graph
EXTRA = {
    "tensordot_unknown_rank": (lambda t: t.placeholder(t.float32), IMAGE,
                               lambda t, x: t.tensordot(x, W, 1)),
    "tensordot_axes_tensor": (lambda t: t.placeholder(t.float32, [None, None, 3]), IMAGE,
                              lambda t, x: t.tensordot(x, W, t.constant([[2], [0]]))),
}


def _case(fn, inp):
    if fn in EXTRA:
        make, feed, f = EXTRA[fn]
        return f, make, feed
    return FUNCTIONS[fn], INPUTS[inp][0], INPUTS[inp][1]


def _snippet(fn, make):
    def snippet(t):
        t.set_random_seed(7)
        x = make(t)
        out = fn(t, x)
        return [out, t.random_uniform([2])]  # a later random op: its op seed comes from the op count
    return snippet


ALL = ROWS + [(f, "") for f in EXTRA]
IDS = [f"{f}-{i}" if i else f for f, i in ALL]


@pytest.mark.parametrize("fn, inp", ALL, ids=IDS)
def test_graph_def(fn, inp):
    f, make, _ = _case(fn, inp)
    assert_same_graph(_snippet(f, make))


def _values(t, fn, inp, grads):
    f, make, feed_value = _case(fn, inp)
    with t.Graph().as_default():
        x = make(t)
        outs = f(t, x)
        outs = outs if isinstance(outs, list) else [outs]
        if grads:
            outs = t.gradients([t.reduce_sum(t.cast(o, t.float32) * (1.0 + t.cast(o, t.float32)))
                                for o in outs if o.dtype.is_floating], x)
        feeds = {x: feed_value} if feed_value is not None else {}
        with t.Session() as s:
            return s.run(outs, feeds)


def _compare(fn, inp, grads):
    tf = tf_v1()
    got = _values(ref, fn, inp, grads)
    with tf1_behaviour():
        want = _values(tf, fn, inp, grads)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("fn, inp", ALL, ids=IDS)
def test_values(fn, inp):
    _compare(fn, inp, grads=False)


GRAD_ROWS = [(f, i) for f, i in ALL if f not in ("non_max_suppression", "psnr_uint8", "grayscale_to_rgb")
             and not f.startswith("stateless")]


@pytest.mark.parametrize("fn, inp", GRAD_ROWS, ids=[f"{f}-{i}" if i else f for f, i in GRAD_ROWS])
def test_gradients(fn, inp):
    _compare(fn, inp, grads=True)


@pytest.mark.parametrize("call, error, message", [
    (lambda t: t.image.total_variation(t.constant(np.zeros([4, 4], np.float32))), ValueError,
     "must be either 3 or 4-dimensional"),
    (lambda t: t.image.psnr(t.constant(IMAGE), t.constant(IMAGE[:5]), 1.0), ValueError,
     "Dimensions must be equal, but are 12 and 5"),
    (lambda t: t.image.ssim(t.constant(IMAGE), t.constant(IMAGE[:5]), 1.0), ValueError, "are incompatible"),
    (lambda t: t.image.ssim(t.constant(BATCH), t.constant(np.stack([IMAGE] * 3)), 1.0), ValueError,
     "Two images are not compatible"),
    (lambda t: t.image.image_gradients(t.constant(IMAGE)), ValueError, "expects a 4D tensor"),
    (lambda t: t.image.grayscale_to_rgb(t.constant(IMAGE)), ValueError, "should be size 1"),
])
def test_static_errors_are_tfs(call, error, message):
    for t in (ref, tf_v1()):
        with (tf1_behaviour() if t is not ref else _null()), t.Graph().as_default():
            with pytest.raises(error, match=message):
                call(t)


def test_ssim_of_a_too_small_image_fails_at_run_time():
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float32, [None, None, 3])
        out = ref.image.ssim(x, x, 1.0)
        with ref.Session() as s, pytest.raises(ref.errors.InvalidArgumentError, match="assertion failed"):
            s.run(out, {x: IMAGE[:8, :8]})


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
