"""Image kernels: DecodeJpeg, DecodePng, DecodeGif, DecodeBmp, DecodeImage,
EncodePng, EncodeJpeg, ResizeBilinear, ResizeNearestNeighbor, AdjustContrastv2.

JPEGs decode through ``simplejpeg`` (a binding that bundles libjpeg-turbo,
the library TF links) with TF's settings -- the fast integer DCT
(``JDCT_IFAST``, TF's default ``dct_method``) and fancy upsampling -- so the
pixels are TF's bit for bit; ``channels=1`` asks libjpeg for its grayscale
output (the Y channel), as TF does. Without simplejpeg, Pillow's
libjpeg-turbo decodes with the slow DCT (pixels within a few levels of TF's).
PNG, GIF and BMP decode through Pillow. Encoding also goes through Pillow: the bytes are
valid PNG/JPEG that TF decodes, not TF's byte stream (zlib/libjpeg settings
differ); PNG round trips are lossless.

Resizing follows TF's kernels in float32: the source coordinate of output
``i`` is ``i * scale`` (legacy) or ``(i + 0.5) * scale - 0.5`` (half-pixel
centres), ``scale = in / out`` or, with ``align_corners``, ``(in-1)/(out-1)``;
bilinear blends ``top + (bottom - top) * y_lerp`` of rows blended the same way.
"""
from __future__ import annotations

import io

import numpy as np

from ref.ops.registry import invalid_argument, register_op
from ref.types import dtypes
from ref.types.shapes import TensorShape


def _pil():
    from PIL import Image  # optional heavy dependency, loaded on first decode
    return Image


def _bytes(contents, op):
    a = np.asarray(contents, dtype=object)
    if a.ndim != 0:
        raise invalid_argument(f"{op}: contents must be scalar, got shape {list(a.shape)}")
    b = a.item()
    return b if isinstance(b, bytes) else str(b).encode()


def _open(data, op):
    try:
        im = _pil().open(io.BytesIO(data))
        return im
    except Exception as e:  # noqa: BLE001 -- Pillow raises several kinds
        raise invalid_argument(f"{op}: Invalid image data: {e}") from e


def _channels(arr, channels, op):
    """``arr`` (h, w, c) with ``channels`` channels (0: as decoded)."""
    c = arr.shape[-1]
    if channels in (0, c):
        return arr
    if channels == 1 and c in (3, 4):
        rgb = arr[..., :3].astype(np.float64)
        return np.round(rgb @ np.array([0.299, 0.587, 0.114])).astype(arr.dtype)[..., None]
    if channels == 3 and c == 1:
        return np.repeat(arr, 3, axis=-1)
    if channels == 3 and c == 4:
        return arr[..., :3]
    if channels == 4 and c == 3:
        return np.concatenate([arr, np.full(arr.shape[:-1] + (1,), np.iinfo(arr.dtype).max, arr.dtype)], -1)
    if channels == 4 and c == 1:
        return _channels(np.repeat(arr, 3, axis=-1), 4, op)
    raise invalid_argument(f"{op}: cannot convert {c} channels to {channels}")


def _decode_jpeg(data, channels, op="DecodeJpeg", fancy_upscaling=True, dct_method=""):
    """TF's JPEG decode: libjpeg-turbo through simplejpeg with TF's settings
    (``JDCT_IFAST`` unless ``dct_method`` is "INTEGER_ACCURATE", fancy
    upsampling unless turned off); Pillow (slow DCT) where simplejpeg is missing."""
    if data[:3] != b"\xff\xd8\xff":
        raise invalid_argument(f"{op}: Expected image (JPEG, PNG, or GIF), got unknown format starting with "
                               f"{data[:16]!r}")
    if channels not in (0, 1, 3):
        raise invalid_argument(f"{op}: channels must be 0, 1, or 3, got {channels}")
    try:
        import simplejpeg  # optional: the binding that gives TF's bits
    except ImportError:
        simplejpeg = None
    if simplejpeg is not None:
        try:
            _, _, space, _ = simplejpeg.decode_jpeg_header(data)
            if space not in ("CMYK", "YCCK"):
                gray = channels == 1 or (channels == 0 and space == "Gray")
                arr = simplejpeg.decode_jpeg(data, colorspace="GRAY" if gray else "RGB",
                                             fastdct=dct_method != "INTEGER_ACCURATE",
                                             fastupsample=not fancy_upscaling)
                return arr.reshape(arr.shape[0], arr.shape[1], -1)
        except ValueError as e:
            raise invalid_argument(f"{op}: Invalid JPEG data or crop window: {e}") from e
    im = _open(data, op)
    if channels == 1 and im.mode != "L":
        im.draft("L", im.size)  # libjpeg's own grayscale output (the Y channel), as TF requests
    im.load()
    if im.mode == "CMYK":
        arr = np.asarray(im, np.uint8)
    elif im.mode == "L":
        arr = np.asarray(im, np.uint8)[..., None]
    else:
        arr = np.asarray(im.convert("RGB"), np.uint8)
    return _channels(arr, channels, op)


def _decode_png(data, channels, dtype, op="DecodePng"):
    im = _open(data, op)
    if im.format != "PNG":
        raise invalid_argument(f"{op}: Expected image (JPEG, PNG, or GIF), got unknown format")
    if im.mode == "P":
        im = im.convert("RGBA" if "transparency" in im.info else "RGB")
    if im.mode in ("I;16", "I;16B", "I"):
        arr = np.asarray(im).astype(np.uint16)[..., None]
        if dtype == dtypes.uint8:
            arr = (arr >> 8).astype(np.uint8)
        return _channels(arr, channels, op)
    if im.mode == "LA":
        arr = np.asarray(im, np.uint8)
    elif im.mode in ("L", "1"):
        arr = np.asarray(im.convert("L"), np.uint8)[..., None]
    elif im.mode in ("RGB", "RGBA"):
        arr = np.asarray(im, np.uint8)
    else:
        arr = np.asarray(im.convert("RGBA"), np.uint8)
    arr = _channels(arr, channels, op)
    if dtype == dtypes.uint16:  # 8-bit samples scaled to 16 bits (x * 257), as libpng's expansion
        arr = arr.astype(np.uint16) * np.uint16(257)
    return arr


def _decode_gif(data, op="DecodeGif"):
    im = _open(data, op)
    if im.format != "GIF":
        raise invalid_argument(f"{op}: Expected image (JPEG, PNG, or GIF), got unknown format")
    frames = []
    for k in range(getattr(im, "n_frames", 1)):
        im.seek(k)
        frames.append(np.asarray(im.convert("RGB"), np.uint8))
    return np.stack(frames)


def _decode_bmp(data, channels, op="DecodeBmp"):
    im = _open(data, op)
    if im.format != "BMP":
        raise invalid_argument(f"{op}: Expected image (BMP), got unknown format")
    arr = np.asarray(im.convert("RGBA" if im.mode == "RGBA" else ("L" if im.mode == "L" else "RGB")), np.uint8)
    if arr.ndim == 2:
        arr = arr[..., None]
    return _channels(arr, channels, op)


def _image_shape(rank, channels_attr="channels"):
    def rule(ins, attrs):
        c = attrs.get(channels_attr, 0) or None
        dtype = attrs.get("dtype", dtypes.uint8)
        return [(dtype, TensorShape([None] * (rank - 1) + [c]))]
    return rule


@register_op("DecodeJpeg", inputs=("contents",), outputs=("image",),
             attrs={"channels": 0, "ratio": 1, "fancy_upscaling": True, "try_recover_truncated": False,
                    "acceptable_fraction": 1.0, "dct_method": ""}, shape=_image_shape(3))
def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1.0, dct_method=""):
    """image = the uint8 pixels (height, width, channels) of a JPEG."""
    if ratio != 1:
        raise invalid_argument("DecodeJpeg: ref decodes at ratio 1 only")
    return _decode_jpeg(_bytes(contents, "DecodeJpeg"), channels, fancy_upscaling=fancy_upscaling,
                        dct_method=dct_method)


@register_op("DecodePng", inputs=("contents",), outputs=("image",), attrs={"channels": 0, "dtype": dtypes.uint8},
             shape=_image_shape(3))
def decode_png(contents, channels=0, dtype=dtypes.uint8):
    """image = the pixels (height, width, channels) of a PNG, uint8 or uint16."""
    return _decode_png(_bytes(contents, "DecodePng"), channels, dtypes.as_dtype(dtype))


@register_op("DecodeGif", inputs=("contents",), outputs=("image",),
             shape=lambda ins, attrs: [(dtypes.uint8, TensorShape([None, None, None, 3]))])
def decode_gif(contents):
    """image = the RGB frames (frames, height, width, 3) of a GIF."""
    return _decode_gif(_bytes(contents, "DecodeGif"))


@register_op("DecodeBmp", inputs=("contents",), outputs=("image",), attrs={"channels": 0}, shape=_image_shape(3))
def decode_bmp(contents, channels=0):
    """image = the uint8 pixels (height, width, channels) of a BMP."""
    return _decode_bmp(_bytes(contents, "DecodeBmp"), channels)


@register_op("DecodeImage", inputs=("contents",), outputs=("image",),
             attrs={"channels": 0, "dtype": dtypes.uint8, "expand_animations": True},
             shape=lambda ins, attrs: [(attrs.get("dtype", dtypes.uint8), TensorShape(None))])
def decode_image(contents, channels=0, dtype=dtypes.uint8, expand_animations=True):
    """image = a JPEG, PNG, GIF or BMP decoded by its magic bytes (GIFs 4-D)."""
    data = _bytes(contents, "DecodeImage")
    dtype = dtypes.as_dtype(dtype)
    if data[:3] == b"\xff\xd8\xff":
        arr = _decode_jpeg(data, channels, "DecodeImage")
    elif data[:8] == b"\x89PNG\r\n\x1a\n":
        arr = _decode_png(data, channels, dtypes.uint16 if dtype == dtypes.uint16 else dtypes.uint8, "DecodeImage")
    elif data[:3] == b"GIF":
        arr = _decode_gif(data, "DecodeImage")
        arr = _channels(arr[0] if not expand_animations else arr, channels or 3, "DecodeImage") \
            if not expand_animations else arr
    elif data[:2] == b"BM":
        arr = _decode_bmp(data, channels, "DecodeImage")
    else:
        raise invalid_argument("Unknown image file format. One of JPEG, PNG, GIF, BMP required.")
    if dtype == dtypes.float32:
        return (arr.astype(np.float32) * np.float32(1.0 / np.iinfo(arr.dtype).max)).astype(np.float32)
    if dtype == dtypes.uint16 and arr.dtype == np.uint8:
        return arr.astype(np.uint16) * np.uint16(257)
    return arr


def _check_image(image, op, rank=3):
    a = np.asarray(image)
    if a.ndim != rank:
        raise invalid_argument(f"{op}: image must be {rank}-dimensional, got shape {list(a.shape)}")
    return a


@register_op("EncodePng", inputs=("image",), outputs=("contents",), attrs={"compression": -1},
             type_attrs={"T": ("image",)}, allowed={"T": (dtypes.uint8, dtypes.uint16)},
             shape=lambda ins, attrs: [(dtypes.string, TensorShape([]))])
def encode_png(image, compression=-1):
    """contents = ``image`` (height, width, 1-4 channels) as PNG bytes."""
    a = _check_image(image, "EncodePng")
    c = a.shape[-1]
    mode = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}.get(c)
    if mode is None:
        raise invalid_argument(f"EncodePng: image must have 1, 2, 3, or 4 channels, got {c}")
    Image = _pil()
    if a.dtype == np.uint16:
        if c != 1:
            raise invalid_argument("EncodePng: ref writes 16-bit PNGs with one channel only")
        im = Image.fromarray(a[..., 0].astype(">u2").astype(np.uint16), "I;16")
    else:
        im = Image.fromarray(a[..., 0] if c == 1 else a, mode)
    buf = io.BytesIO()
    im.save(buf, "PNG", compress_level=6 if compression == -1 else int(compression))
    return np.asarray(buf.getvalue(), dtype=object)


@register_op("EncodeJpeg", inputs=("image",), outputs=("contents",),
             attrs={"format": "", "quality": 95, "progressive": False, "optimize_size": False,
                    "chroma_downsampling": True, "density_unit": "in", "x_density": 300, "y_density": 300,
                    "xmp_metadata": ""},
             shape=lambda ins, attrs: [(dtypes.string, TensorShape([]))])
def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False, chroma_downsampling=True,
                density_unit="in", x_density=300, y_density=300, xmp_metadata=""):
    """contents = uint8 ``image`` (height, width, 1 or 3 channels) as JPEG bytes."""
    a = _check_image(image, "EncodeJpeg").astype(np.uint8)
    c = a.shape[-1]
    fmt = format or {1: "grayscale", 3: "rgb"}.get(c)
    if fmt not in ("grayscale", "rgb") or (fmt == "grayscale" and c != 1) or (fmt == "rgb" and c != 3):
        raise invalid_argument(f"EncodeJpeg: image must have 1 or 3 channels, got {c}")
    im = _pil().fromarray(a[..., 0] if c == 1 else a, "L" if c == 1 else "RGB")
    buf = io.BytesIO()
    im.save(buf, "JPEG", quality=int(quality), progressive=bool(progressive), optimize=bool(optimize_size),
            subsampling=2 if chroma_downsampling else 0,
            dpi=(int(x_density), int(y_density)))
    return np.asarray(buf.getvalue(), dtype=object)


# -- resizing ---------------------------------------------------------------------------------

def _scale(n_in, n_out, align_corners):
    if align_corners and n_out > 1:
        return np.float32(n_in - 1) / np.float32(n_out - 1)
    return np.float32(n_in) / np.float32(n_out)


def _resize_shape(float_out):
    def rule(ins, attrs):
        img, size = ins["images"], ins["size"]
        h = w = None
        if size.value is not None:
            h, w = (int(v) for v in np.asarray(size.value).reshape(-1)[:2])
        if img.shape.ndims not in (None, 4):
            raise ValueError(f"images must be 4-D, got shape {img.shape}")
        n = img.shape[0] if img.shape.ndims else None
        c = img.shape[3] if img.shape.ndims else None
        return [(dtypes.float32 if float_out else img.dtype, TensorShape([n, h, w, c]))]
    return rule


def _size(size, op):
    s = np.asarray(size)
    if s.shape != (2,):
        raise invalid_argument(f"{op}: shape_t must be 1-dimensional with 2 elements, got shape {list(s.shape)}")
    h, w = int(s[0]), int(s[1])
    if h <= 0 or w <= 0:
        raise invalid_argument(f"{op}: output dimensions must be positive")
    return h, w


def _bilinear_weights(n_in, n_out, align_corners, half_pixel):
    scale = _scale(n_in, n_out, align_corners)
    i = np.arange(n_out, dtype=np.float32)
    src = ((i + np.float32(0.5)) * scale - np.float32(0.5)) if half_pixel else i * scale
    src = src.astype(np.float32)
    floor = np.floor(src)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(src).astype(np.int64), n_in - 1)
    return lower, upper, (src - floor).astype(np.float32)


@register_op("ResizeBilinear", inputs=("images", "size"), outputs=("resized_images",),
             attrs={"align_corners": False, "half_pixel_centers": False},
             type_attrs={"T": ("images",)}, shape=_resize_shape(True))
def resize_bilinear(images, size, align_corners=False, half_pixel_centers=False):
    """resized_images = ``images`` (batch, height, width, channels) resized to ``size`` bilinearly (float32)."""
    x = _check_image(images, "ResizeBilinear", 4).astype(np.float32)
    h, w = _size(size, "ResizeBilinear")
    if align_corners and half_pixel_centers:
        raise invalid_argument("If half_pixel_centers is True, align_corners must be False.")
    y0, y1, ly = _bilinear_weights(x.shape[1], h, align_corners, half_pixel_centers)
    x0, x1, lx = _bilinear_weights(x.shape[2], w, align_corners, half_pixel_centers)
    lx = lx[None, None, :, None]
    top_rows, bottom_rows = x[:, y0], x[:, y1]
    top = top_rows[:, :, x0] + (top_rows[:, :, x1] - top_rows[:, :, x0]) * lx
    bottom = bottom_rows[:, :, x0] + (bottom_rows[:, :, x1] - bottom_rows[:, :, x0]) * lx
    return (top + (bottom - top) * ly[None, :, None, None]).astype(np.float32)


def _nn_index(n_in, n_out, align_corners, half_pixel):
    scale = _scale(n_in, n_out, align_corners)
    i = np.arange(n_out, dtype=np.float32)
    src = ((i + np.float32(0.5)) * scale) if half_pixel else i * scale
    src = src.astype(np.float32)
    # roundf rounds halves away from zero (the sources are >= 0); np.round would round to even
    idx = (np.floor(src.astype(np.float64) + 0.5) if align_corners else np.floor(src)).astype(np.int64)
    idx = np.minimum(idx, n_in - 1)
    return np.maximum(idx, 0) if half_pixel else idx


@register_op("ResizeNearestNeighbor", inputs=("images", "size"), outputs=("resized_images",),
             attrs={"align_corners": False, "half_pixel_centers": False}, type_attrs={"T": ("images",)},
             shape=_resize_shape(False))
def resize_nearest_neighbor(images, size, align_corners=False, half_pixel_centers=False):
    """resized_images = ``images`` resized to ``size`` by nearest neighbour (the input's dtype)."""
    x = _check_image(images, "ResizeNearestNeighbor", 4)
    h, w = _size(size, "ResizeNearestNeighbor")
    if align_corners and half_pixel_centers:
        raise invalid_argument("If half_pixel_centers is True, align_corners must be False.")
    yi = _nn_index(x.shape[1], h, align_corners, half_pixel_centers)
    xi = _nn_index(x.shape[2], w, align_corners, half_pixel_centers)
    return np.ascontiguousarray(x[:, yi][:, :, xi])


@register_op("AdjustContrastv2", inputs=("images", "contrast_factor"), outputs=("output",),
             type_attrs={"T": ("images",)}, allowed={"T": (dtypes.float16, dtypes.float32)},
             shape=lambda ins, attrs: [(ins["images"].dtype, ins["images"].shape)])
def adjust_contrastv2(images, contrast_factor):
    """output = (x - mean) * contrast_factor + mean, the mean per image and channel over height and width."""
    x = np.asarray(images)
    if x.ndim < 3:
        raise invalid_argument(f"input must be at least 3-D, got shape {list(x.shape)}")
    f = np.asarray(contrast_factor, np.float32)
    if f.ndim != 0:
        raise invalid_argument("contrast_factor must be scalar")
    xf = x.astype(np.float32)
    mean = (xf.sum(axis=(-3, -2), keepdims=True, dtype=np.float32) /
            np.float32(x.shape[-3] * x.shape[-2])).astype(np.float32)
    return ((xf - mean) * f + mean).astype(x.dtype)
