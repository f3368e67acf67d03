"""Image summaries' PNGs: lossless, and as compact as TF's (libpng's adaptive
row filters and zlib level 6, Z_FILTERED)."""
import numpy as np
import pytest

from ref.ops.summary import encode_png

_yy, _xx = np.mgrid[0:64, 0:48]
IMAGES = {
    "RGB gradient": np.stack([_xx * 5, _yy * 4, (_xx + _yy) * 2], -1),
    "grey product": ((_xx * _yy) % 256)[..., None],
    "grey + alpha": np.stack([_xx * 5, np.full_like(_xx, 255)], -1),
    "RGBA": np.concatenate([np.stack([_xx * 5, _yy * 4, _xx], -1), np.full((64, 48, 1), 200)], -1),
    "noise": np.random.RandomState(0).randint(0, 256, (32, 40, 3)),
    "1x1": np.array([[[5, 6, 7]]]),
    "one row": np.arange(30).reshape(1, 10, 3) * 8,
}


@pytest.mark.parametrize("name", sorted(IMAGES))
def test_png_round_trips_and_is_as_small_as_tfs(name):
    tf = pytest.importorskip("tensorflow")
    image = IMAGES[name].astype(np.uint8)
    ours = encode_png(image)
    decoded = tf.io.decode_png(ours, channels=0).numpy()
    np.testing.assert_array_equal(decoded, image)
    theirs = tf.io.encode_png(image).numpy()
    assert len(ours) <= 1.05 * len(theirs) + 8, (len(ours), len(theirs))


def test_smooth_images_compress_far_below_unfiltered():
    import zlib
    image = IMAGES["RGB gradient"].astype(np.uint8)
    unfiltered = zlib.compress(np.concatenate([np.zeros((64, 1), np.uint8), image.reshape(64, -1)], 1).tobytes(), 6)
    assert len(encode_png(image)) * 4 < len(unfiltered)
