"""A typical TF1 image input pipeline, as scripts of 2017-2019 wrote it, run
by ref and by TensorFlow on the same JPEG files: file names -> tf.data ->
read_file -> decode_jpeg -> resize -> random_crop / random_flip_left_right /
random_brightness / random_saturation / random_hue -> per_image_standardization
-> batch, and the same with a one-shot iterator over shuffled, repeated
file names. The colour pipeline agrees bit for bit; without it, TF's grappler
regroups ``image + (r * range + min)`` in random_brightness on values up to
255 (an ulp there, under 1e-6 after the standardisation)."""
import io

import numpy as np
import pytest

import ref

tf = pytest.importorskip("tensorflow")
PIL = pytest.importorskip("PIL.Image")
tf1 = tf.compat.v1


def _jpegs(tmp_path, n=6):
    rng = np.random.RandomState(3)
    paths = []
    for k in range(n):
        h, w = 20 + 3 * k, 26 - 2 * k
        yy, xx = np.mgrid[:h, :w]
        img = np.stack([(yy * 9 + xx * 4 + 30 * k) % 256, (xx * 11 + 7 * k) % 256,
                        rng.randint(0, 256, (h, w))], -1).astype(np.uint8)
        buf = io.BytesIO()
        PIL.fromarray(img).save(buf, "JPEG", quality=85)
        path = tmp_path / f"img{k}.jpg"
        path.write_bytes(buf.getvalue())
        paths.append(str(path))
    return paths


def _preprocess(t, path, colour):
    image = t.image.decode_jpeg(t.read_file(path), channels=3)
    image = t.image.resize_images(image, [24, 24])
    image = t.random_crop(image, [20, 20, 3], seed=1)
    image = t.image.random_flip_left_right(image, seed=2)
    image = t.image.random_brightness(image, max_delta=63, seed=3)
    if colour:
        image = t.image.convert_image_dtype(image / 255.0, t.float32)
        image = t.image.random_saturation(image, 0.5, 1.5, seed=4)
        image = t.image.random_hue(image, 0.2, seed=5)
    return t.image.per_image_standardization(image)


def _pipeline(t, paths, colour, shuffle):
    t.set_random_seed(1234)
    ds = t.data.Dataset.from_tensor_slices(paths)
    if shuffle:
        ds = ds.shuffle(len(paths), seed=9).repeat(2)
    ds = ds.map(lambda p: _preprocess(t, p, colour)).batch(4)
    return ds.make_one_shot_iterator().get_next()


def _run(t, paths, colour, shuffle, steps):
    with t.Graph().as_default():
        nxt = _pipeline(t, paths, colour, shuffle)
        with t.Session() as s:
            return [s.run(nxt) for _ in range(steps)]


CASES = {"plain": (False, False, 2), "colour": (True, False, 2), "shuffled_repeated": (False, True, 3)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_image_pipeline_matches_tf(tmp_path, name):
    colour, shuffle, steps = CASES[name]
    paths = _jpegs(tmp_path)
    got = _run(ref, paths, colour, shuffle, steps)
    want = _run(tf1, paths, colour, shuffle, steps)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == np.float32 and g.shape == w.shape
        # grappler's regrouping of random_brightness on uint8-valued floats: an ulp at the
        # image's scale, through the standardisation (the colour case, in [0, 1], is exact)
        np.testing.assert_allclose(g, w, rtol=0, atol=0 if colour else 2e-6)
