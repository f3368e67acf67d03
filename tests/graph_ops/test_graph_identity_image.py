"""tf.image's builders make TF's GraphDef -- every geometry function (flips,
random flips, quarter turns, transposes, crops, pads, crop-or-pad, pad-to-fit,
central crop) and the standardisation/contrast ones -- on a static 3-D image,
a static batch and an image of unknown height and width, and give TF's values.
TF passes the image through its shape checks' ``control_dependency`` identity
even when no check is needed, and turns an unknown rank into a ``cond``: those
nodes count toward the op ids that seed every later random op."""
import numpy as np
import pytest

import ref
from ref.graph_ops import image_geometry_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, tf1_behaviour, tf_v1

IMAGE = np.random.RandomState(0).rand(12, 10, 3).astype(np.float32)

FUNCTIONS = {
    "flip_left_right": lambda t, x: t.image.flip_left_right(x),
    "flip_up_down": lambda t, x: t.image.flip_up_down(x),
    "random_flip_left_right": lambda t, x: t.image.random_flip_left_right(x, seed=1),
    "random_flip_up_down": lambda t, x: t.image.random_flip_up_down(x, seed=2),
    "rot90": lambda t, x: t.image.rot90(x),
    "rot90_k3": lambda t, x: t.image.rot90(x, 3),
    "transpose_image": lambda t, x: t.image.transpose_image(x),
    "central_crop": lambda t, x: t.image.central_crop(x, 0.5),
    "crop_to_bounding_box": lambda t, x: t.image.crop_to_bounding_box(x, 1, 2, 6, 7),
    "pad_to_bounding_box": lambda t, x: t.image.pad_to_bounding_box(x, 1, 2, 16, 17),
    "resize_image_with_crop_or_pad": lambda t, x: t.image.resize_image_with_crop_or_pad(x, 8, 16),
    "resize_image_with_pad": lambda t, x: t.image.resize_image_with_pad(x, 8, 16),
    "per_image_standardization": lambda t, x: t.image.per_image_standardization(x),
    "adjust_contrast": lambda t, x: t.image.adjust_contrast(x, 1.3),
}
INPUTS = {
    "image": (lambda t: t.constant(IMAGE), None),
    "batch": (lambda t: t.constant(np.stack([IMAGE, IMAGE[::-1]])), None),
    "unknown_hw": (lambda t: t.placeholder(t.float32, [None, None, 3]), IMAGE),
}
ROWS = [(f, i) for f in FUNCTIONS for i in INPUTS]


def _snippet(fn, make):
    def snippet(t):
        t.set_random_seed(7)
        x = make(t)
        return [fn(t, x), t.random_uniform([2])]  # a later random op: its op seed comes from the op count
    return snippet


@pytest.mark.parametrize("fn, inp", ROWS, ids=[f"{f}-{i}" for f, i in ROWS])
def test_graph_def(fn, inp):
    assert_same_graph(_snippet(FUNCTIONS[fn], INPUTS[inp][0]))


def _values(t, fn, inp):
    make, feed_value = INPUTS[inp]
    with t.Graph().as_default():
        outs = _snippet(FUNCTIONS[fn], make)(t)
        feeds = {}
        if feed_value is not None:
            feeds = {t.get_default_graph().get_tensor_by_name("Placeholder:0"): feed_value}
        with t.Session() as s:
            return [s.run(outs, feeds) for _ in range(3)]


@pytest.mark.parametrize("fn, inp", ROWS, ids=[f"{f}-{i}" for f, i in ROWS])
def test_values(fn, inp):
    tf = tf_v1()
    got = _values(ref, fn, inp)
    with tf1_behaviour():
        want = _values(tf, fn, inp)
    for g, w in zip(got, want):
        for a, b in zip(g, w):
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("call, message", [
    (lambda t: t.image.flip_left_right(t.constant(np.zeros([2, 3], np.float32))), "at least three-dimensional"),
    (lambda t: t.image.flip_left_right(t.constant(np.zeros([1, 2, 2, 2, 1], np.float32))), "3 or 4 dimensions"),
    (lambda t: t.image.crop_to_bounding_box(t.constant(IMAGE), 8, 0, 6, 4), r"height must be >= target \+ offset"),
    (lambda t: t.image.pad_to_bounding_box(t.constant(IMAGE), 0, -1, 16, 16), "offset_width must be >= 0"),
    (lambda t: t.image.resize_image_with_crop_or_pad(t.constant(IMAGE), 0, 4), "target_height must be > 0"),
    (lambda t: t.image.central_crop(t.constant(IMAGE), 1.5), r"central_fraction must be within \(0, 1\]"),
])
def test_static_errors_are_tfs(call, message):
    for t in (ref, tf_v1()):
        with tf1_behaviour() if t is not ref else _null():
            with t.Graph().as_default(), pytest.raises(ValueError, match=message):
                call(t)


def test_a_failing_run_time_check_is_invalid_argument():
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float32, [None, None, 3])
        out = ref.image.crop_to_bounding_box(x, 4, 0, 6, 4)
        with ref.Session() as s, pytest.raises(ref.errors.InvalidArgumentError, match=r"height must be >= target \+ offset"):
            s.run(out, {x: IMAGE[:8]})


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
