"""``tf.image.resize_images(preserve_aspect_ratio=True)``, ``tf.image.resize``
(TF1's alias) and ``resize_image_with_pad`` against TensorFlow 1.x graphs: the
same values, and for ``resize_images`` the same GraphDef."""
import numpy as np
import pytest

import ref
from ref.graph_ops import image_ops as _under_test  # noqa: F401  (the module these tests cover)
from _graphdef import assert_same_graph, tf_v1

tf1 = tf_v1()
RNG = np.random.RandomState(3)
IMG = RNG.randint(0, 256, (13, 17, 3)).astype(np.uint8)
BATCH = RNG.uniform(-1, 1, (2, 7, 5, 2)).astype(np.float32)


def _unknown(t, x):
    return t.placeholder_with_default(x, [None, None, x.shape[-1]] if x.ndim == 3 else [None] * 4)


CASES = {
    "aspect_wide_target": lambda t: t.image.resize_images(IMG, [20, 40], preserve_aspect_ratio=True),
    "aspect_tall_target": lambda t: t.image.resize_images(IMG, [30, 10], preserve_aspect_ratio=True),
    "aspect_batch_nearest": lambda t: t.image.resize_images(
        BATCH, [4, 9], method=t.image.ResizeMethod.NEAREST_NEIGHBOR, preserve_aspect_ratio=True),
    "aspect_unknown_dims_area": lambda t: t.image.resize_images(
        _unknown(t, IMG), [6, 6], method=t.image.ResizeMethod.AREA, preserve_aspect_ratio=True),
    "aspect_bicubic_align": lambda t: t.image.resize_images(
        BATCH, [14, 14], method=t.image.ResizeMethod.BICUBIC, align_corners=True, preserve_aspect_ratio=True),
    "resize_alias": lambda t: t.image.resize(IMG, [5, 8]),
    "resize_same_size_skipped": lambda t: t.image.resize_images(BATCH, [7, 5]),
    "resize_size_tensor": lambda t: t.image.resize_images(IMG, t.constant([4, 4])),
    "with_pad": lambda t: t.image.resize_image_with_pad(IMG, 20, 20),
    "with_pad_shrink": lambda t: t.image.resize_image_with_pad(IMG, 5, 12),
    "with_pad_batch_nearest": lambda t: t.image.resize_image_with_pad(
        BATCH, 9, 9, method=t.image.ResizeMethod.NEAREST_NEIGHBOR),
    "with_pad_unknown_dims": lambda t: t.image.resize_image_with_pad(_unknown(t, IMG), 10, 30),
}


def _run(t, build):
    with t.Graph().as_default():
        out = build(t)
        with t.Session() as s:
            return s.run(out), out.shape.as_list()


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_static_shapes_match_tf(name):
    (got, got_shape), (want, want_shape) = _run(ref, CASES[name]), _run(tf1, CASES[name])
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert got_shape == want_shape


@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith("with_pad")))
def test_resize_images_graph_matches_tf(name):
    assert_same_graph(CASES[name])


def test_errors_match_tf():
    for t in (ref, tf1):
        with t.Graph().as_default():
            with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
                t.image.resize_images(np.zeros([2, 2], np.float32), [3, 3])
            with pytest.raises(ValueError, match="1-D Tensor of 2 elements"):
                t.image.resize_images(IMG, [3, 3, 3])
            with pytest.raises(ValueError, match="target_width must be > 0"):
                t.image.resize_image_with_pad(IMG, 4, 0)
