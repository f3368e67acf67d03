"""Summary ops: kernels that turn tensors into serialized ``Summary`` protos.

"The following ops output Summary protocol buffers as serialized string
tensors" (TF docs, "Training", "Summary
Operations"). Every kernel returns a 0-d object array holding the bytes, TF's
string scalar, ready for ``FileWriter.add_summary``. Each mirrors the TF
kernel named in its docstring (``core/kernels/summary_*op.cc``), including the
error messages; the PNG and WAV encoders are small and our own.
"""
from __future__ import annotations

import struct
import sys
import zlib

import numpy as np

from ref.types import dtypes
from ref.ops.registry import fixed_rule, invalid_argument, register_op
from ref.types.shapes import TensorShape
from ref import protos

_STRING_SCALAR = fixed_rule((dtypes.string, TensorShape([])))
DBL_MAX = sys.float_info.max


def _pb():
    return protos.summary_pb2


def _out(summary) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = summary.SerializeToString()
    return out


def _as_bytes(x) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, np.ndarray):
        return _as_bytes(x[()])
    return bytes(x)


def _as_text(x) -> str:
    return _as_bytes(x).decode("utf-8", errors="replace")


def _dbg(shape) -> str:
    """TF's TensorShape::DebugString: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def _scalar_tag(tag, message) -> str:
    tag = np.asarray(tag, dtype=object)
    if tag.ndim != 0:
        raise invalid_argument(message)
    return _as_text(tag[()])


# -- ScalarSummary ------------------------------------------------------------

@register_op("ScalarSummary", inputs=("tags", "values"), outputs=("summary",),
             type_attrs={"T": ("values",)}, allowed={"T": dtypes.REALS}, shape=_STRING_SCALAR)
def scalar_summary(tags, values):
    """One ``Summary.Value(tag, simple_value=float(value))`` per tag/value pair.

    "The input ``tags`` and ``values`` must have the same shape" (seed,
    ``tf.scalar_summary``); values are cast to float32 (TF's
    ``summary_op.cc``: ``static_cast<float>``).
    """
    tags = np.asarray(tags, dtype=object)
    values = np.asarray(values)
    if tags.shape != values.shape:
        raise invalid_argument(f"tags and values are not the same shape: "
                               f"{_dbg(tags.shape)} != {_dbg(values.shape)}")
    pb = _pb()
    s = pb.Summary()
    for tag, v in zip(tags.ravel().tolist(), values.astype(np.float32).ravel().tolist()):
        s.value.add(tag=_as_text(tag), simple_value=v)
    return _out(s)


# -- HistogramSummary ---------------------------------------------------------

_LIMITS = None


def default_bucket_limits() -> np.ndarray:
    """TF's default histogram bucket limits (``core/lib/histogram/histogram.cc``).

    Positive limits are ``1e-12 * 1.1**k`` computed by repeated multiplication
    (``v *= 1.1`` in double) while ``v < 1e20``, then ``DBL_MAX``; the negative
    limits mirror them; ``0.0`` sits between. Bucket ``i`` counts values in
    ``[limit[i-1], limit[i])``.
    """
    global _LIMITS
    if _LIMITS is None:
        pos = []
        v = 1.0e-12
        while v < 1.0e20:
            pos.append(v)
            v *= 1.1
        pos.append(DBL_MAX)
        neg = [-x for x in reversed(pos)]
        _LIMITS = np.array(neg + [0.0] + pos, dtype=np.float64)
        _LIMITS.setflags(write=False)
    return _LIMITS


def histogram_proto(values: np.ndarray):
    """A ``HistogramProto`` for finite float64 ``values``, exactly as TF's
    ``Histogram::Add`` then ``EncodeToProto(preserve_zero_buckets=false)``.

    min/max start at ``DBL_MAX``/``-DBL_MAX``; ``sum`` and ``sum_squares`` add
    in element order in double. Each run of empty buckets is written as one
    bucket with count 0 whose limit is the run's last limit; an all-empty
    histogram is the single bucket ``(DBL_MAX, 0)``.
    """
    limits = default_bucket_limits()
    h = protos.histogram_pb2.HistogramProto()
    n = values.size
    h.min = float(values.min()) if n else DBL_MAX
    h.max = float(values.max()) if n else -DBL_MAX
    h.num = float(n)
    with np.errstate(over="ignore"):   # near DBL_MAX the sums overflow to inf, as in TF
        h.sum = float(np.cumsum(values)[-1]) if n else 0.0          # sequential, as TF adds
        h.sum_squares = float(np.cumsum(values * values)[-1]) if n else 0.0
    index = np.minimum(np.searchsorted(limits, values, side="right"), limits.size - 1)
    counts = np.bincount(index, minlength=limits.size).astype(np.float64)
    out_limits, out_counts = [], []
    nonzero = np.flatnonzero(counts)
    prev = 0   # first bucket not yet written
    for i in nonzero.tolist():
        if i > prev:                      # the empty run prev .. i-1 collapses to one bucket
            out_limits.append(limits[i - 1])
            out_counts.append(0.0)
        out_limits.append(limits[i])
        out_counts.append(counts[i])
        prev = i + 1
    if prev < limits.size:                # the trailing empty run, up to DBL_MAX
        out_limits.append(limits[-1])
        out_counts.append(0.0)
    h.bucket_limit.extend(float(x) for x in out_limits)
    h.bucket.extend(out_counts)
    return h


@register_op("HistogramSummary", inputs=("tag", "values"), outputs=("summary",),
             type_attrs={"T": ("values",)}, allowed={"T": dtypes.REALS}, shape=_STRING_SCALAR)
def histogram_summary(tag, values):
    """One ``Summary.Value(tag, histo=...)`` over all elements of ``values``.

    "This op reports an InvalidArgument error if any value is not finite"
    (TF docs, "Training" (Korean edition), ``tf.histogram_summary``): "Nan in summary
    histogram for: <tag>" or "Infinity in Histogram for: <tag>", after the first
    non-finite value (TF names the op; the Session adds that here).
    """
    name = _scalar_tag(tag, "tags must be scalar")
    v = np.asarray(values).astype(np.float64).ravel()
    if v.size and not np.isfinite(v).all():
        first = v[np.argmin(np.isfinite(v))]   # TF stops at the first non-finite value
        what = "Nan in summary histogram" if np.isnan(first) else "Infinity in Histogram"
        raise invalid_argument(f"{what} for: {name}")
    s = _pb().Summary()
    s.value.add(tag=name).histo.CopyFrom(histogram_proto(v))
    return _out(s)


# -- ImageSummary -------------------------------------------------------------

def _png_filtered_rows(x: np.ndarray, bpp: int) -> np.ndarray:
    """Each row of ``x`` (``[h, w*c]`` uint8) under PNG's five filters, the
    best per row by libpng's heuristic: ``[h, 1 + w*c]`` with the filter byte first.

    With ``a`` the byte ``bpp`` to the left, ``b`` the byte above and ``c``
    above-left (0 outside the image), the filtered byte is ``x - p`` (mod 256)
    for ``p`` = 0 (None), ``a`` (Sub), ``b`` (Up), ``floor((a + b) / 2)``
    (Average) or Paeth's predictor (whichever of a, b, c is nearest to
    ``a + b - c``, ties in that order). The row kept is the one whose bytes, read
    as signed, have the least sum of absolute values (libpng's minimum-sum).
    """
    x16 = x.astype(np.int16)
    a = np.zeros_like(x16)
    a[:, bpp:] = x16[:, :-bpp]
    b = np.zeros_like(x16)
    b[1:] = x16[:-1]
    c = np.zeros_like(x16)
    c[1:, bpp:] = x16[:-1, :-bpp]
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
    candidates = np.stack([x16, x16 - a, x16 - b, x16 - ((a + b) >> 1), x16 - paeth]).astype(np.uint8)
    signed = candidates.view(np.int8).astype(np.int32)
    best = np.abs(signed).sum(axis=2).argmin(axis=0)
    rows = np.empty((x.shape[0], 1 + x.shape[1]), np.uint8)
    rows[:, 0] = best
    rows[:, 1:] = candidates[best, np.arange(x.shape[0])]
    return rows


def encode_png(image: np.ndarray) -> bytes:
    """PNG bytes for a ``[height, width, channels]`` uint8 image (1 grey,
    3 RGB, 4 RGBA), 8 bits per channel, compressed as TF's image summaries
    (libpng's defaults): an adaptive filter per row (:func:`_png_filtered_rows`)
    and zlib level 6 with the ``Z_FILTERED`` strategy.

    A PNG is the 8-byte signature and chunks ``length, type, data,
    crc32(type + data)``: IHDR, one IDAT holding the zlib-compressed rows (each
    prefixed by its filter byte), IEND.
    """
    h, w, c = image.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    pixels = np.ascontiguousarray(image, dtype=np.uint8).reshape(h, w * c)
    rows = _png_filtered_rows(pixels, c) if h and w else np.zeros((h, 1 + w * c), np.uint8)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    z = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS, 8, zlib.Z_FILTERED)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", z.compress(rows.tobytes()) + z.flush()) + chunk(b"IEND", b""))


def normalize_float_image(image: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    """uint8 pixels for one ``[h, w, depth]`` float/half/double image (TF's
    ``NormalizeFloatImage`` in ``summary_image_op.cc``).

    Seed ("Summary Operations", ``tf.image_summary``): "If the input values are
    all positive, they are rescaled so the largest one is 255. If any input
    value is negative, the values are shifted so input value 0.0 is at 127.
    They are then rescaled so that either the smallest value is 0, or the
    largest one is 255." Exactly, in TF's arithmetic: min and max are taken in
    float32 over pixels whose channels are all finite; if min < 0,
    ``scale = 127 / max(|min|, |max|)`` and ``offset = 128``, else
    ``scale = 255 / max`` and ``offset = 0`` (scale 0 when the divisor is
    below 1e-6); pixels become ``uint8(value * scale + offset)`` computed in the
    image's own type and truncated; a pixel with any non-finite channel becomes
    ``bad_color``.
    """
    h, w, depth = image.shape
    t = image.dtype.type
    finite = np.isfinite(image).all(axis=2)
    good = image[finite].astype(np.float32)
    image_min = good.min() if good.size else np.float32(np.inf)
    image_max = good.max() if good.size else np.float32(-np.inf)
    if image_min < 0:
        max_val = max(abs(image_min), abs(image_max))
        scale = np.float32(0.0) if max_val < np.float32(1e-6) else np.float32(127.0) / max_val
        offset = np.float32(128.0)
    else:
        scale = np.float32(0.0) if image_max < np.float32(1e-6) else np.float32(255.0) / image_max
        offset = np.float32(0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = image * t(scale) + t(offset)
        out = np.where(finite[..., None], scaled, 0).astype(np.uint8)
    out[~finite] = bad_color[:depth]
    return out


_BAD_COLOR = np.array([255, 0, 0, 255], dtype=np.uint8)


@register_op("ImageSummary", inputs=("tag", "tensor"), outputs=("summary",),
             attrs={"max_images": 3, "bad_color": _BAD_COLOR},
             type_attrs={"T": ("tensor",)},
             allowed={"T": (dtypes.uint8, dtypes.float32, dtypes.float16, dtypes.float64)},
             shape=_STRING_SCALAR)
def image_summary(tag, tensor, max_images=3, bad_color=_BAD_COLOR):
    """Up to ``max_images`` PNG images from a ``[batch, height, width, channels]``
    tensor (TF's ``SummaryImageOp``).

    Tags: "If max_images is 1, the summary value tag is 'tag/image'. If
    max_images is greater than 1, the summary value tags are generated
    sequentially as 'tag/image/0', 'tag/image/1', etc." (seed, "Summary
    Operations"). uint8 values are used unchanged; float ones are normalised
    one image at a time (:func:`normalize_float_image`).
    """
    name = _scalar_tag(tag, "Tags must be a scalar")
    tensor = np.asarray(tensor)
    if tensor.ndim != 4 or tensor.shape[3] not in (1, 3, 4):
        raise invalid_argument(f"Tensor must be 4-D with last dim 1, 3, or 4, not {_dbg(tensor.shape)}")
    if int(max_images) < 1:
        raise invalid_argument(f"max_images must be >= 1, got {max_images}")
    bad_color = np.asarray(bad_color, dtype=np.uint8).ravel()
    depth = tensor.shape[3]
    if tensor.dtype != np.uint8 and bad_color.size < depth:
        raise invalid_argument(f"expected depth <= bad_color.size, got depth = {depth}, "
                               f"bad_color.size = {bad_color.size}")
    s = _pb().Summary()
    for i in range(min(int(max_images), tensor.shape[0])):
        image = tensor[i]
        if image.dtype != np.uint8:
            image = normalize_float_image(image, bad_color)
        v = s.value.add(tag=f"{name}/image/{i}" if max_images > 1 else f"{name}/image")
        v.image.height = tensor.shape[1]
        v.image.width = tensor.shape[2]
        v.image.colorspace = depth
        v.image.encoded_image_string = encode_png(image)
    return _out(s)


# -- AudioSummary -------------------------------------------------------------

def encode_wav(audio: np.ndarray, sample_rate: int) -> bytes:
    """A 16-bit PCM little-endian WAV of ``[frames, channels]`` float audio
    (TF's ``wav::EncodeAudioAsS16LEWav``).

    Header (44 bytes): ``RIFF``, file size - 8, ``WAVE``, ``fmt `` chunk of 16
    bytes (PCM = 1, channels, sample rate, bytes per second, bytes per frame,
    16 bits), ``data`` chunk size. Samples: ``round(x * 32768)`` (halves away
    from zero), clamped to ``[-32768, 32767]``; NaN becomes 0.
    """
    frames, channels = audio.shape
    scaled = audio.astype(np.float32) * np.float32(32768.0)
    with np.errstate(invalid="ignore"):
        y = scaled.astype(np.float64)
        r = np.copysign(np.floor(np.abs(y) + 0.5), y)
        samples = np.clip(np.nan_to_num(r, nan=0.0), -32768, 32767).astype("<i2")
    data = samples.tobytes()
    header = b"".join((
        b"RIFF", struct.pack("<I", 36 + len(data)), b"WAVE",
        b"fmt ", struct.pack("<IHHIIHH", 16, 1, channels, sample_rate,
                             sample_rate * 2 * channels, 2 * channels, 16),
        b"data", struct.pack("<I", len(data))))
    return header + data


def _audio(tag, tensor, sample_rate, max_outputs):
    name = _scalar_tag(tag, "Tag must be a scalar")
    tensor = np.asarray(tensor, dtype=np.float32)
    if tensor.ndim not in (2, 3):
        raise invalid_argument(f"Tensor must be 3-D or 2-D, got: {_dbg(tensor.shape)}")
    rate = np.asarray(sample_rate, dtype=np.float32)
    if rate.size != 1:
        raise invalid_argument("sample_rate must be rank-0 or contain a single value")
    rate = np.float32(rate.ravel()[0])
    if not rate > 0:
        raise invalid_argument("sample_rate must be > 0")
    batch, frames = tensor.shape[:2]
    channels = 1 if tensor.ndim == 2 else tensor.shape[2]
    wav_rate = max(int(np.rint(rate)), 1)   # lrintf, then at least 1
    s = _pb().Summary()
    for i in range(min(int(max_outputs), batch)):
        v = s.value.add(tag=f"{name}/audio/{i}" if max_outputs > 1 else f"{name}/audio")
        v.audio.sample_rate = float(rate)
        v.audio.num_channels = channels
        v.audio.length_frames = frames
        v.audio.content_type = "audio/wav"
        v.audio.encoded_audio_string = encode_wav(tensor[i].reshape(frames, channels), wav_rate)
    return _out(s)


@register_op("AudioSummaryV2", inputs=("tag", "tensor", "sample_rate"), outputs=("summary",),
             attrs={"max_outputs": 3}, shape=_STRING_SCALAR)
def audio_summary_v2(tag, tensor, sample_rate, max_outputs=3):
    """Up to ``max_outputs`` WAV clips from a ``[batch, frames, channels]`` or
    ``[batch, frames]`` float tensor "assumed to be in the range of [-1.0,
    1.0]" (TF docs, "Training" (Korean edition), ``tf.audio_summary``). Tags
    ``tag/audio/0``, ... (``tag/audio`` when ``max_outputs`` is 1)."""
    return _audio(tag, tensor, sample_rate, max_outputs)


# -- MergeSummary -------------------------------------------------------------

@register_op("MergeSummary", inputs=("inputs",), outputs=("summary",), list_inputs={"inputs": "N"},
             shape=_STRING_SCALAR)
def merge_summary(inputs):
    """The union of the values of every serialized Summary in ``inputs``.

    "it reports an InvalidArgument error if multiple values in the summaries to
    merge use the same tag" (seed, ``tf.merge_summary``); values with an empty
    tag (TensorSummary's) are never duplicates.
    """
    pb = _pb()
    merged = pb.Summary()
    seen = set()
    for tensor in inputs:
        for raw in np.asarray(tensor, dtype=object).ravel().tolist():
            part = pb.Summary()
            try:
                part.ParseFromString(_as_bytes(raw))
            except Exception:
                raise invalid_argument("Could not parse one of the summary inputs") from None
            for v in part.value:
                if v.tag:
                    if v.tag in seen:
                        raise invalid_argument(f"Duplicate tag {v.tag} found in summary inputs")
                    seen.add(v.tag)
            merged.value.extend(part.value)
    return _out(merged)


# -- TensorSummary ------------------------------------------------------------

def tensor_proto(array: np.ndarray):
    """A ``TensorProto`` as TF's summary kernels write it: strings in
    ``string_val``, every other type as raw little-endian ``tensor_content``."""
    array = np.asarray(array)
    dtype = dtypes.from_numpy(array)
    t = protos.tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    t.tensor_shape.SetInParent()          # present even for a scalar, as TF writes it
    for d in array.shape:
        t.tensor_shape.dim.add(size=d)
    if dtype == dtypes.string:
        t.string_val.extend(_as_bytes(x) for x in array.ravel().tolist())
    elif array.size:
        t.tensor_content = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
    return t


@register_op("TensorSummaryV2", inputs=("tag", "tensor", "serialized_summary_metadata"),
             outputs=("summary",), type_attrs={"T": ("tensor",)}, shape=_STRING_SCALAR)
def tensor_summary_v2(tag, tensor, serialized_summary_metadata):
    """One ``Summary.Value(tag, tensor=TensorProto(tensor), metadata=...)``;
    ``metadata`` is parsed from ``serialized_summary_metadata`` (left empty
    when it does not parse, as TF does)."""
    pb = _pb()
    s = pb.Summary()
    v = s.value.add(tag=_scalar_tag(tag, "tag must be scalar"))
    v.tensor.CopyFrom(tensor_proto(tensor))
    v.metadata.SetInParent()
    try:
        v.metadata.ParseFromString(_as_bytes(np.asarray(serialized_summary_metadata, dtype=object)))
    except Exception:
        v.metadata.Clear()
        v.metadata.SetInParent()
    return _out(s)


@register_op("TensorSummary", inputs=("tensor",), outputs=("summary",),
             attrs={"description": "", "labels": [], "display_name": ""},
             type_attrs={"T": ("tensor",)}, shape=_STRING_SCALAR, ctx=True)
def tensor_summary(tensor, description="", labels=(), display_name="", ctx=None):
    """The deprecated TensorSummary: one value with no tag, ``node_name`` the
    op's name (``TensorSummary`` outside a graph) and the tensor; TF ignores
    ``description``, ``labels`` and ``display_name``."""
    s = _pb().Summary()
    v = s.value.add(node_name=getattr(ctx, "op_name", None) or "TensorSummary")
    v.tensor.CopyFrom(tensor_proto(tensor))
    return _out(s)


TEXT_PLUGIN_METADATA = b"\n\x06\n\x04text"
"""``SummaryMetadata(plugin_data=PluginData(plugin_name="text"))`` serialized:
what ``tf.summary.text`` passes to TensorSummaryV2 as its metadata."""


def text_summary(tag, tensor) -> np.ndarray:
    """``tf.summary.text``'s kernel: TensorSummaryV2 of a string tensor with the
    text plugin's metadata."""
    tensor = np.asarray(tensor, dtype=object)
    return tensor_summary_v2(tag=tag, tensor=tensor, serialized_summary_metadata=TEXT_PLUGIN_METADATA)


__all__ = ["scalar_summary", "histogram_summary", "image_summary", "audio_summary_v2",
           "merge_summary", "tensor_summary_v2", "tensor_summary", "text_summary",
           "histogram_proto", "default_bucket_limits", "encode_png", "encode_wav",
           "normalize_float_image", "tensor_proto", "TEXT_PLUGIN_METADATA"]
