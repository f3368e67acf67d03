"""Summary op kernels against TensorFlow's raw ops (bytes, or decoded pixels for PNGs)."""
import io
import sys

import numpy as np
import pytest

from ref.types import errors
from ref.ops import summary as S
from ref.ops.registry import call

tf = pytest.importorskip("tensorflow")
summary_pb2 = pytest.importorskip("ref.protos.summary_pb2")
rng = np.random.default_rng(7)


def _tf_bytes(t) -> bytes:
    return t.numpy() if hasattr(t, "numpy") else t


def _tf_strings(a):
    """A TF string tensor holding exactly these bytes (NumPy's 'S' dtype would drop trailing NULs)."""
    return tf.constant(a[()] if a.ndim == 0 else a.tolist(), dtype=tf.string)


def _is_string_scalar(out) -> bool:
    return isinstance(out, np.ndarray) and out.shape == () and out.dtype == object and isinstance(out[()], bytes)


# -- ScalarSummary ------------------------------------------------------------

SCALARS = [
    ("one", np.array("loss", dtype=object), np.float32(0.25)),
    ("vector", np.array(["a", "b", "c"], dtype=object), np.array([1.5, -2.0, 3e38], np.float32)),
    ("float64-rounds-to-float32", np.array(["x", "y"], dtype=object), np.array([1 / 3, 1e-50])),
    ("int64", np.array([["p", "q"], ["r", "s"]], dtype=object), np.array([[1, 2], [3, -(2**40)]], np.int64)),
    ("uint8", np.array(["u"], dtype=object), np.array([255], np.uint8)),
    ("float16", np.array(["h"], dtype=object), np.array([0.1], np.float16)),
    ("nan-inf", np.array(["n", "i"], dtype=object), np.array([np.nan, -np.inf], np.float32)),
]


@pytest.mark.parametrize("name,tags,values", SCALARS, ids=[s[0] for s in SCALARS])
def test_scalar_summary_bytes_equal_tensorflow(name, tags, values):
    ours = call("ScalarSummary", tags=tags, values=values)
    assert _is_string_scalar(ours)
    theirs = _tf_bytes(tf.raw_ops.ScalarSummary(tags=tags.astype(bytes), values=values))
    assert ours[()] == theirs


@pytest.mark.parametrize("tags,values", [
    (np.array(["a", "b"], dtype=object), np.array([1.0, 2.0, 3.0], np.float32)),
    (np.array([["a", "b"]], dtype=object), np.array([1.0, 2.0], np.float32)),
])
def test_scalar_summary_shape_mismatch(tags, values):
    with pytest.raises(errors.InvalidArgumentError, match="tags and values are not the same shape"):
        call("ScalarSummary", tags=tags, values=values)
    with pytest.raises(tf.errors.InvalidArgumentError, match="tags and values are not the same shape"):
        tf.raw_ops.ScalarSummary(tags=tags.astype(bytes), values=values)


# -- HistogramSummary ---------------------------------------------------------

HISTOGRAMS = [
    ("documented-example", np.array([0.0, 1, -1, 1e-13, 2.5, 2.5], np.float32)),
    ("empty", np.array([], np.float32)),
    ("single-zero", np.array([0.0], np.float32)),
    ("normal-float32", (rng.normal(size=2000) * 100).astype(np.float32)),
    ("normal-float64", rng.normal(size=(30, 40))),
    ("tiny-and-huge", np.array([1e-300, -1e-300, 1e-12, -1e-12, 1e19, -1e19, 1e21, -1e21])),
    ("near-dbl-max", np.array([1.7e308, -1.7e308])),
    ("int32", rng.integers(-1000, 1000, size=500).astype(np.int32)),
    ("uint8", rng.integers(0, 256, size=100).astype(np.uint8)),
    ("int64-large", np.array([2**62, -(2**62), 3], np.int64)),
    ("float16", rng.normal(size=64).astype(np.float16)),
    ("constant", np.full(17, 3.25, np.float32)),
]


@pytest.mark.parametrize("name,values", HISTOGRAMS, ids=[h[0] for h in HISTOGRAMS])
def test_histogram_summary_bytes_equal_tensorflow(name, values):
    ours = call("HistogramSummary", tag="h", values=values)
    theirs = _tf_bytes(tf.raw_ops.HistogramSummary(tag="h", values=values))
    assert ours[()] == theirs
    h = summary_pb2.Summary.FromString(ours[()]).value[0].histo
    assert h.num == values.size and sum(h.bucket) == values.size


def test_empty_histogram_is_dbl_max_and_one_bucket():
    h = summary_pb2.Summary.FromString(call("HistogramSummary", tag="e", values=np.array([], np.float32))[()])
    histo = h.value[0].histo
    assert (histo.min, histo.max) == (sys.float_info.max, -sys.float_info.max)
    assert list(histo.bucket_limit) == [sys.float_info.max] and list(histo.bucket) == [0.0]


def test_default_bucket_limits_formula():
    limits = S.default_bucket_limits()
    pos = limits[limits > 0]
    # 1e-12 * 1.1**k by repeated multiplication, while < 1e20, then DBL_MAX (TF's histogram.cc)
    expected, v = [], 1e-12
    while v < 1e20:
        expected.append(v)
        v *= 1.1
    assert pos.tolist() == expected + [sys.float_info.max]
    assert limits[limits < 0].tolist() == [-x for x in reversed(pos.tolist())]
    assert (limits == 0).sum() == 1 and np.all(np.diff(limits) > 0)


@pytest.mark.parametrize("values,message", [
    ([1.0, np.nan], "Nan in summary histogram for: "),
    ([1.0, np.inf], "Infinity in Histogram for: "),
    ([-np.inf, 2.0], "Infinity in Histogram for: "),
    ([np.nan, np.inf], "Nan in summary histogram for: "),
    ([np.inf, np.nan], "Infinity in Histogram for: "),
])
def test_histogram_non_finite_is_invalid_argument(values, message):
    values = np.array(values, np.float32)
    with pytest.raises(errors.InvalidArgumentError) as info:
        call("HistogramSummary", tag="h", values=values)
    assert info.value.message == message + "h"
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        tf.raw_ops.HistogramSummary(tag="h", values=values)


# -- ImageSummary -------------------------------------------------------------

def _image_case(dtype, channels, batch=4, h=5, w=6):
    x = (rng.normal(size=(batch, h, w, channels)) * 3).astype(dtype)
    x[1] = np.abs(x[1])                    # all non-negative: scaled so the max is 255
    if batch > 2:
        x[2, 0, 0, 0] = np.nan             # non-finite pixels become bad_color
        x[2, 1, 1, -1] = np.inf
    if batch > 3:
        x[3] *= 1e-7                       # below the zero threshold: scale 0
    return x


IMAGES = [(f"{np.dtype(dt).name}-c{c}", _image_case(dt, c), 3)
          for dt in (np.float32, np.float16, np.float64) for c in (1, 3, 4)]
IMAGES += [
    ("uint8-rgb", rng.integers(0, 256, size=(2, 3, 4, 3)).astype(np.uint8), 3),
    ("uint8-grey-max1", rng.integers(0, 256, size=(3, 7, 2, 1)).astype(np.uint8), 1),
    ("all-nan", np.full((1, 2, 2, 3), np.nan, np.float32), 3),
    ("max-images-10", _image_case(np.float32, 3, batch=2), 10),
    ("zero-batch", np.zeros((0, 2, 2, 1), np.float32), 3),
]


def _tf_image_summary(x, max_images):
    g = tf.Graph()
    with g.as_default():
        t = tf.compat.v1.summary.image("im", tf.constant(x), max_outputs=max_images)
        with tf.compat.v1.Session() as sess:
            return sess.run(t)


def _decoded(serialized):
    Image = pytest.importorskip("PIL.Image")
    out = []
    for v in summary_pb2.Summary.FromString(serialized).value:
        img = v.image
        pixels = np.array(Image.open(io.BytesIO(img.encoded_image_string)))
        if pixels.ndim == 2:
            pixels = pixels[..., None]
        out.append((v.tag, img.height, img.width, img.colorspace, pixels))
    return out


@pytest.mark.parametrize("name,x,max_images", IMAGES, ids=[i[0] for i in IMAGES])
def test_image_summary_pixels_equal_tensorflow(name, x, max_images):
    ours = _decoded(call("ImageSummary", tag="im", tensor=x, max_images=max_images)[()])
    theirs = _decoded(_tf_image_summary(x, max_images))
    assert [o[:4] for o in ours] == [t[:4] for t in theirs]
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o[4], t[4])


def test_image_normalization_rules_from_the_seed():
    # "If the input values are all positive, they are rescaled so the largest one is 255."
    pos = np.array([[[[0.0], [1.0], [2.0]]]], np.float32)
    # "If any input value is negative, the values are shifted so input value 0.0 is at 127.
    #  They are then rescaled so that either the smallest value is 0, or the largest one is 255."
    neg = np.array([[[[-2.0], [0.0], [1.0]]]], np.float32)
    p = _decoded(call("ImageSummary", tag="p", tensor=pos)[()])[0][4].ravel()
    n = _decoded(call("ImageSummary", tag="n", tensor=neg)[()])[0][4].ravel()
    assert p.tolist() == [0, 127, 255]
    assert n[0] <= 1 and n[1] in (127, 128) and n[2] < 255


@pytest.mark.parametrize("x,kw,fragment", [
    (np.zeros((1, 2, 2, 2), np.float32), {}, "Tensor must be 4-D with last dim 1, 3, or 4, not [1,2,2,2]"),
    (np.zeros((2, 2, 3), np.float32), {}, "Tensor must be 4-D"),
    (np.zeros((1, 2, 2, 4), np.float32), {"bad_color": np.array([1, 2, 3], np.uint8)},
     "expected depth <= bad_color.size, got depth = 4, bad_color.size = 3"),
])
def test_image_summary_errors(x, kw, fragment):
    with pytest.raises(errors.InvalidArgumentError) as info:
        call("ImageSummary", tag="im", tensor=x, **kw)
    assert fragment in info.value.message


def test_image_tag_must_be_scalar():
    with pytest.raises(errors.InvalidArgumentError, match="Tags must be a scalar"):
        call("ImageSummary", tag=np.array(["a", "b"], dtype=object), tensor=np.zeros((1, 1, 1, 1), np.uint8))


# -- AudioSummaryV2 -----------------------------------------------------------

def _audio(shape):
    x = rng.uniform(-1.3, 1.3, size=shape).astype(np.float32)   # beyond [-1, 1] clamps
    flat = x.reshape(-1)
    flat[:4] = [0.5 / 32768, -0.5 / 32768, 1.5 / 32768, -2.5 / 32768]   # halves round away from 0
    return x


AUDIO = [
    ("stereo", _audio((2, 50, 2)), 8000.0, 3),
    ("mono-2d", _audio((4, 33)), 44100.0, 3),
    ("one-output", _audio((3, 10, 1)), 16000.0, 1),
    ("fractional-rate", _audio((1, 20, 3)), 22050.6, 2),
    ("tiny-rate", _audio((1, 5)), 0.25, 3),
]


@pytest.mark.parametrize("name,x,rate,max_outputs", AUDIO, ids=[a[0] for a in AUDIO])
def test_audio_summary_bytes_equal_tensorflow(name, x, rate, max_outputs):
    ours = call("AudioSummaryV2", tag="snd", tensor=x, sample_rate=np.float32(rate), max_outputs=max_outputs)
    theirs = _tf_bytes(tf.raw_ops.AudioSummaryV2(tag="snd", tensor=x, sample_rate=np.float32(rate),
                                                 max_outputs=max_outputs))
    assert ours[()] == theirs


def test_wav_is_readable_by_the_wave_module():
    import wave

    x = _audio((1, 40, 2))
    s = summary_pb2.Summary.FromString(call("AudioSummaryV2", tag="w", tensor=x, sample_rate=8000.0)[()])
    with wave.open(io.BytesIO(s.value[0].audio.encoded_audio_string)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (2, 2, 8000, 40)
        pcm = np.frombuffer(w.readframes(40), "<i2").reshape(40, 2)
    expected = np.clip(np.trunc(x[0].astype(np.float64) * 32768 + np.copysign(0.5, x[0])), -32768, 32767)
    np.testing.assert_array_equal(pcm, expected)


@pytest.mark.parametrize("x,rate,fragment", [
    (np.zeros((1, 2, 2, 1), np.float32), 8000.0, "Tensor must be 3-D or 2-D, got: [1,2,2,1]"),
    (np.zeros((1, 2), np.float32), 0.0, "sample_rate must be > 0"),
    (np.zeros((1, 2), np.float32), np.array([1.0, 2.0], np.float32), "sample_rate must be rank-0"),
])
def test_audio_summary_errors(x, rate, fragment):
    with pytest.raises(errors.InvalidArgumentError) as info:
        call("AudioSummaryV2", tag="a", tensor=x, sample_rate=rate)
    assert fragment in info.value.message


# -- MergeSummary -------------------------------------------------------------

def _scalar(tag, v):
    return call("ScalarSummary", tags=np.array(tag, dtype=object), values=np.float32(v))


def test_merge_summary_bytes_equal_tensorflow():
    parts = [_scalar("a", 1), call("HistogramSummary", tag="h", values=np.arange(5.0)),
             np.array([_scalar("b", 2)[()], _scalar("c", 3)[()]], dtype=object),
             call("TensorSummary", tensor=np.arange(3.0)), call("TensorSummary", tensor=np.arange(2))]
    ours = call("MergeSummary", inputs=parts)
    theirs = _tf_bytes(tf.raw_ops.MergeSummary(inputs=[_tf_strings(p) for p in parts]))
    assert ours[()] == theirs


@pytest.mark.parametrize("inputs,fragment", [
    ([_scalar("a", 1), _scalar("a", 2)], "Duplicate tag a found in summary inputs"),
    ([_scalar("x", 1), np.array(b"\xff\xff", dtype=object)], "Could not parse one of the summary inputs"),
])
def test_merge_summary_errors(inputs, fragment):
    with pytest.raises(errors.InvalidArgumentError) as info:
        call("MergeSummary", inputs=inputs)
    assert fragment in info.value.message
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.raw_ops.MergeSummary(inputs=[_tf_strings(i) for i in inputs])


# -- TensorSummary, TensorSummaryV2, text ---------------------------------------

TENSORS = [
    ("float32-vector", np.array([1.0, 2.0], np.float32)),
    ("int64-scalar", np.array(3, np.int64)),
    ("bool-matrix", np.array([[True, False], [False, True]])),
    ("float16", np.array([0.5, -2], np.float16)),
    ("strings", np.array([b"ab", b"c"], dtype=object)),
    ("string-scalar", np.array(b"hello", dtype=object)),
    ("empty", np.zeros((0, 3), np.float32)),
]
METADATA = [b"", S.TEXT_PLUGIN_METADATA, b"\x12\x03abc", b"\xff"]


@pytest.mark.parametrize("metadata", METADATA)
@pytest.mark.parametrize("name,x", TENSORS, ids=[t[0] for t in TENSORS])
def test_tensor_summary_v2_bytes_equal_tensorflow(name, x, metadata):
    ours = call("TensorSummaryV2", tag="t", tensor=x, serialized_summary_metadata=np.array(metadata, dtype=object))
    tx = _tf_strings(x) if x.dtype == object else x
    theirs = _tf_bytes(tf.raw_ops.TensorSummaryV2(tag="t", tensor=tx, serialized_summary_metadata=metadata))
    assert ours[()] == theirs


@pytest.mark.parametrize("name,x", TENSORS, ids=[t[0] for t in TENSORS])
def test_tensor_summary_bytes_equal_tensorflow(name, x):
    tx = _tf_strings(x) if x.dtype == object else x
    assert call("TensorSummary", tensor=x)[()] == _tf_bytes(tf.raw_ops.TensorSummary(tensor=tx))


def test_text_summary_equals_tf_summary_text():
    g = tf.Graph()
    with g.as_default():
        t = tf.compat.v1.summary.text("hello", tf.constant(["world", "**md**"]))
        with tf.compat.v1.Session() as sess:
            theirs = sess.run(t)
    ours = S.text_summary("hello", np.array(["world", "**md**"], dtype=object))
    assert ours[()] == theirs


# -- registration -------------------------------------------------------------

@pytest.mark.parametrize("op", ["ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummaryV2",
                                "MergeSummary", "TensorSummaryV2", "TensorSummary"])
def test_argument_names_are_tensorflows(op):
    import inspect

    from ref.ops.registry import get

    decl = get(op)
    theirs = [p for p in inspect.signature(getattr(tf.raw_ops, op)).parameters if p != "name"]
    assert list(decl.inputs) + list(decl.attrs) == theirs
