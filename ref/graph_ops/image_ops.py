"""``tf.image`` (TF1) and ``tf.random_crop``: decoding and encoding
(:mod:`ref.ops.image`), resizing, crops and pads, flips and rotations, the
random colour changes with TF's seeds, ``per_image_standardization`` and
``convert_image_dtype``, built from the same ops TF's ``image_ops_impl``
uses, so the numbers are TF's.

An image is 3-D (height, width, channels) or, where TF allows, a 4-D batch;
unknown dimensions (a decoded image) are computed at run time.
"""
from __future__ import annotations

import numpy as np

from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.graph import name_scope
from ref.framework.tensor_util import constant_value_as_shape
from ref.graph_ops import array_ops, check_ops, control_flow_ops, math_ops, random_ops, stateless_random_ops
from ref.graph_ops.logging_ops import Assert
from ref.types import dtypes

__all__ = ["ResizeMethod", "decode_jpeg", "decode_png", "decode_gif", "decode_bmp", "decode_image", "encode_png",
           "encode_jpeg", "resize_images", "resize", "resize_image_with_pad", "resize_bilinear", "resize_nearest_neighbor", "resize_bicubic", "resize_area",
           "flip_left_right",
           "flip_up_down", "random_flip_left_right", "random_flip_up_down", "rot90", "transpose_image",
           "crop_to_bounding_box", "pad_to_bounding_box", "central_crop", "resize_image_with_crop_or_pad",
           "adjust_brightness", "random_brightness", "adjust_contrast", "random_contrast",
           "per_image_standardization", "convert_image_dtype", "random_crop"]


class ResizeMethod:
    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# -- codecs ---------------------------------------------------------------------------

def _contents(contents):
    return convert_to_tensor(contents, dtype=dtypes.string)


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    return apply_op("DecodeJpeg", contents=_contents(contents), channels=channels, ratio=ratio,
                    fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
                    acceptable_fraction=float(acceptable_fraction), dct_method=dct_method, name=name)


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    return apply_op("DecodePng", contents=_contents(contents), channels=channels, dtype=dtypes.as_dtype(dtype),
                    name=name)


def decode_gif(contents, name=None):
    return apply_op("DecodeGif", contents=_contents(contents), name=name)


def decode_bmp(contents, channels=0, name=None):
    return apply_op("DecodeBmp", contents=_contents(contents), channels=channels, name=name)


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None, expand_animations=True):
    """A JPEG, PNG, GIF or BMP decoded by its magic bytes (one ``DecodeImage``
    op, where TF 1.x builds a ``cond`` per format; the pixels are the same)."""
    return apply_op("DecodeImage", contents=_contents(contents), channels=channels or 0,
                    dtype=dtypes.as_dtype(dtype), expand_animations=expand_animations, name=name)


def encode_png(image, compression=-1, name=None):
    return apply_op("EncodePng", image=convert_to_tensor(image), compression=compression, name=name)


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,  # noqa: A002
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300, xmp_metadata="",
                name=None):
    return apply_op("EncodeJpeg", image=convert_to_tensor(image), format=format, quality=quality,
                    progressive=progressive, optimize_size=optimize_size, chroma_downsampling=chroma_downsampling,
                    density_unit=density_unit, x_density=x_density, y_density=y_density,
                    xmp_metadata=xmp_metadata, name=name)


# -- shapes ----------------------------------------------------------------------------

def _image(image, min_rank=3, max_rank=4):
    image = convert_to_tensor(image, name="image")
    nd = image.shape.ndims
    if nd is not None and not min_rank <= nd <= max_rank:
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions."
                         if max_rank == 4 else f"'image' (shape {image.shape}) must be three-dimensional.")
    if nd is None:
        raise ValueError("'image' must have a known rank (3 or 4 dimensions)")
    return image


def _dims(image):
    """(height, width) as Python ints where known, else scalar int32 tensors."""
    static = image.shape.as_list()
    dyn = None
    out = []
    for axis in (-3, -2):
        d = static[axis]
        if d is None:
            dyn = array_ops.shape(image) if dyn is None else dyn
            d = dyn[len(static) + axis]
        out.append(d)
    return out


def _is_int(*xs):
    return all(isinstance(x, (int, np.integer)) for x in xs)


def _max(a, b):
    return max(a, b) if _is_int(a, b) else math_ops.maximum(a, b)


def _min(a, b):
    return min(a, b) if _is_int(a, b) else math_ops.minimum(a, b)


def _sub(a, b):
    return a - b if _is_int(a, b) else math_ops.subtract(a, b)


def _floordiv(a, b):
    return a // b if _is_int(a, b) else math_ops.floordiv(a, b)


def _vec(xs):
    if _is_int(*xs):
        return np.asarray(xs, np.int32)
    return array_ops.stack([convert_to_tensor(x, dtype=dtypes.int32) for x in xs])


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    with name_scope(None, "crop_to_bounding_box", [image]):
        image = _image(image)
        batched = image.shape.ndims == 4
        for v, what in ((offset_height, "offset_height must be >= 0."), (offset_width, "offset_width must be >= 0."),
                        (target_height, "target_height must be > 0."), (target_width, "target_width must be > 0.")):
            if _is_int(v) and (v < 0 or (v == 0 and "target" in what)):
                raise ValueError(what)
        h, w = _dims(image)
        if _is_int(h, offset_height, target_height) and h < offset_height + target_height:
            raise ValueError("height must be >= target + offset.")
        if _is_int(w, offset_width, target_width) and w < offset_width + target_width:
            raise ValueError("width must be >= target + offset.")
        begin = ([0] if batched else []) + [offset_height, offset_width, 0]
        size = ([-1] if batched else []) + [target_height, target_width, -1]
        out = array_ops.slice(image, _vec(begin), _vec(size))
        return out


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    with name_scope(None, "pad_to_bounding_box", [image]):
        image = _image(image)
        batched = image.shape.ndims == 4
        h, w = _dims(image)
        after_h = _sub(_sub(target_height, offset_height), h)
        after_w = _sub(_sub(target_width, offset_width), w)
        for v, what in ((offset_height, "offset_height must be >= 0"), (offset_width, "offset_width must be >= 0"),
                        (after_h, "height must be <= target - offset"), (after_w, "width must be <= target - offset")):
            if _is_int(v) and v < 0:
                raise ValueError(what)
        rows = ([[0, 0]] if batched else []) + [[offset_height, after_h], [offset_width, after_w], [0, 0]]
        flat = [x for r in rows for x in r]
        paddings = array_ops.reshape(_vec(flat), [len(rows), 2]) if not _is_int(*flat) \
            else np.asarray(rows, np.int32)
        padded = array_ops.pad(image, paddings)
        static = image.shape.as_list()  # TF sets the target size and the known batch and depth
        padded.set_shape(static[:-3] + [target_height if _is_int(target_height) else None,
                                        target_width if _is_int(target_width) else None, static[-1]])
        return padded


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Centre-crops and/or zero-pads ``image`` to (target_height, target_width)."""
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image = _image(image)
        h, w = _dims(image)
        width_diff, height_diff = _sub(target_width, w), _sub(target_height, h)
        neg = (lambda d: -d) if _is_int(width_diff) else math_ops.negative
        offset_crop_width = _max(_floordiv(neg(width_diff), 2), 0)
        offset_pad_width = _max(_floordiv(width_diff, 2), 0)
        neg = (lambda d: -d) if _is_int(height_diff) else math_ops.negative
        offset_crop_height = _max(_floordiv(neg(height_diff), 2), 0)
        offset_pad_height = _max(_floordiv(height_diff, 2), 0)
        cropped = crop_to_bounding_box(image, offset_crop_height, offset_crop_width, _min(target_height, h),
                                       _min(target_width, w))
        resized = pad_to_bounding_box(cropped, offset_pad_height, offset_pad_width, target_height, target_width)
        if resized.shape.ndims is not None and _is_int(target_height, target_width):
            resized.set_shape(resized.shape[:-3].concatenate([target_height, target_width])
                              .concatenate(resized.shape[-1:]))
        return resized


def central_crop(image, central_fraction):
    """The central ``central_fraction`` of ``image`` along height and width."""
    with name_scope(None, "central_crop", [image]):
        image = _image(image)
        if central_fraction <= 0.0 or central_fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if central_fraction == 1.0:
            return image
        h, w = _dims(image)
        starts = []
        for d in (h, w):
            if _is_int(d):
                starts.append(int((d - d * central_fraction) / 2))
            else:
                df = math_ops.cast(d, dtypes.float64)
                starts.append(math_ops.cast((df - df * central_fraction) / 2, dtypes.int32))
        sizes = [_sub(d, s * 2 if _is_int(s) else math_ops.multiply(s, 2)) for d, s in zip((h, w), starts)]
        batched = image.shape.ndims == 4
        begin = ([0] if batched else []) + starts + [0]
        size = ([-1] if batched else []) + sizes + [-1]
        return array_ops.slice(image, _vec(begin), _vec(size))


# -- resizing ---------------------------------------------------------------------------

def _size_tensor(size):
    """A size as given: a list becomes the op's own ``<op>/size`` constant, as in TF."""
    return size


def resize_bilinear(images, size, align_corners=False, half_pixel_centers=False, name=None):
    return apply_op("ResizeBilinear", images=convert_to_tensor(images), size=_size_tensor(size),
                    align_corners=align_corners, half_pixel_centers=half_pixel_centers, name=name)


def resize_nearest_neighbor(images, size, align_corners=False, half_pixel_centers=False, name=None):
    return apply_op("ResizeNearestNeighbor", images=convert_to_tensor(images), size=_size_tensor(size),
                    align_corners=align_corners, half_pixel_centers=half_pixel_centers, name=name)


def resize_bicubic(images, size, align_corners=False, half_pixel_centers=False, name=None):
    return apply_op("ResizeBicubic", images=convert_to_tensor(images), size=_size_tensor(size),
                    align_corners=align_corners, half_pixel_centers=half_pixel_centers, name=name)


def resize_area(images, size, align_corners=False, name=None):
    return apply_op("ResizeArea", images=convert_to_tensor(images), size=_size_tensor(size),
                    align_corners=align_corners, name=name)


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False, preserve_aspect_ratio=False,
                  name=None):
    """TF1's ``tf.image.resize_images`` (``tf.compat.v1.image.resize``): bilinear,
    bicubic and area give float32, nearest neighbour keeps the dtype; TF1's
    ``align_corners``, no half-pixel centres. With ``preserve_aspect_ratio`` the
    image is scaled by the smaller of the two ratios, each new side
    ``round(scale * side)`` computed in float32 as TF does."""
    resizers = {ResizeMethod.BILINEAR: resize_bilinear, ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
                ResizeMethod.BICUBIC: resize_bicubic, ResizeMethod.AREA: resize_area}

    def resize_fn(images_t, new_size):
        if method not in resizers:
            raise ValueError("Resize method is not implemented: {}".format(method))
        return resizers[method](images_t, new_size, align_corners=align_corners)

    with name_scope(name, "resize", [images, size]):
        images = convert_to_tensor(images, name="images")
        if images.shape.ndims is None:
            raise ValueError("'images' contains no shape.")
        squeeze = images.shape.ndims == 3
        if squeeze:
            images = array_ops.expand_dims(images, 0)
        elif images.shape.ndims != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        h, w = images.shape.as_list()[1:3]
        try:
            size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        if preserve_aspect_ratio:
            cur_h, cur_w = _dims4(images)
            f32 = dtypes.float32
            scale_h = math_ops.cast(size[0], f32) / math_ops.cast(cur_h, f32)
            scale_w = math_ops.cast(size[1], f32) / math_ops.cast(cur_w, f32)
            scale = math_ops.minimum(scale_h, scale_w)
            new_h = math_ops.cast(math_ops.round(scale * math_ops.cast(cur_h, f32)), dtypes.int32)
            new_w = math_ops.cast(math_ops.round(scale * math_ops.cast(cur_w, f32)), dtypes.int32)
            size = convert_to_tensor([new_h, new_w], dtype=dtypes.int32, name="size")
        known = constant_value_as_shape(size)
        new_h_const, new_w_const = (known.as_list() if known.ndims == 2 else [None, None])
        if None not in (h, w, new_h_const, new_w_const) and (h, w) == (new_h_const, new_w_const):
            return array_ops.squeeze(images, axis=[0]) if squeeze else images  # TF skips a resize to the same size
        out = resize_fn(images, size)
        out.set_shape([None, new_h_const, new_w_const, None])
        return array_ops.squeeze(out, axis=[0]) if squeeze else out


def _dims4(images):
    """TF's ``_ImageDimensions(images, rank=4)``'s height and width: static where the
    whole shape is known, else the unstacked dynamic shape fills the unknown ones."""
    static = images.shape.as_list()
    if images.shape.is_fully_defined():
        return static[1], static[2]
    dynamic = array_ops.unstack(array_ops.shape(images), 4)
    return [s if s is not None else d for s, d in zip(static, dynamic)][1:3]


def resize_image_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, align_corners=False):
    """Resizes ``image`` to fit (target_height, target_width) keeping its aspect
    ratio (sides ``floor(side / ratio)``), then zero-pads it centred, as TF1's
    ``resize_image_with_pad``."""
    with name_scope(None, "resize_image_with_pad", [image]):
        image = convert_to_tensor(image, name="image")
        nd = image.shape.ndims
        squeeze = nd in (3, None)
        if nd is not None and nd not in (3, 4):
            raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
        if squeeze:
            image = array_ops.expand_dims(image, 0)
            if nd is None:
                image.set_shape([None] * 4)
        if _is_int(target_width) and target_width <= 0:
            raise ValueError("target_width must be > 0.")
        if _is_int(target_height) and target_height <= 0:
            raise ValueError("target_height must be > 0.")
        image = control_flow_ops.with_dependencies(_at_least_3d_checks(image), image)
        height, width = _dims4(image)
        f32 = dtypes.float32
        f_height, f_width = math_ops.cast(height, f32), math_ops.cast(width, f32)
        f_target_height, f_target_width = math_ops.cast(target_height, f32), math_ops.cast(target_width, f32)
        ratio = math_ops.maximum(f_width / f_target_width, f_height / f_target_height)
        resized_height_float, resized_width_float = f_height / ratio, f_width / ratio
        resized_height = math_ops.cast(math_ops.floor(resized_height_float), dtype=dtypes.int32)
        resized_width = math_ops.cast(math_ops.floor(resized_width_float), dtype=dtypes.int32)
        f_padding_height = math_ops.floor((f_target_height - resized_height_float) / 2)
        f_padding_width = math_ops.floor((f_target_width - resized_width_float) / 2)
        p_height = math_ops.maximum(0, math_ops.cast(f_padding_height, dtype=dtypes.int32))
        p_width = math_ops.maximum(0, math_ops.cast(f_padding_width, dtype=dtypes.int32))
        resized = resize_images(image, [resized_height, resized_width], method, align_corners)
        padded = pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        return array_ops.squeeze(padded, axis=[0]) if squeeze else padded


def _at_least_3d_checks(image):
    """TF's run-time checks of an image whose last three dimensions are not all known."""
    shape = image.shape
    if any(d == 0 for d in shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")
    if shape[-3:].is_fully_defined():
        return []
    return [check_ops.assert_positive(array_ops.shape(image)[-3:], ["inner 3 dims of 'image.shape' must be > 0."]),
            check_ops.assert_greater_equal(array_ops.rank(image), 3,
                                           message="'image' must be at least three-dimensional.")]


# -- flips and rotations ---------------------------------------------------------------------

def _flip_axis(image, index):
    return index + (1 if image.shape.ndims == 4 else 0)


def flip_left_right(image):
    with name_scope(None, "flip_left_right", [image]):
        image = _image(image)
        return array_ops.reverse(image, [_flip_axis(image, 1)])


def flip_up_down(image):
    with name_scope(None, "flip_up_down", [image]):
        image = _image(image)
        return array_ops.reverse(image, [_flip_axis(image, 0)])


def _random_flip(image, flip_index, seed, scope_name):
    with name_scope(None, scope_name, [image]) as scope:
        image = _image(image)
        if image.shape.ndims == 3:
            uniform = random_ops.random_uniform([], 0, 1.0, seed=seed)
            mirror = math_ops.less(uniform, .5)
            result = control_flow_ops.cond(mirror, lambda: array_ops.reverse(image, [flip_index]),
                                           lambda: image, name=scope)
            result.set_shape(image.shape)
            return result
        batch = array_ops.shape(image)[0]
        uniform = random_ops.random_uniform(array_ops.stack([batch]), 0, 1.0, seed=seed)
        flips = math_ops.round(array_ops.reshape(uniform, array_ops.stack([batch, 1, 1, 1])))
        flips = math_ops.cast(flips, image.dtype)
        flipped = array_ops.reverse(image, [flip_index + 1])
        return flips * flipped + (1 - flips) * image


def random_flip_left_right(image, seed=None):
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    return _random_flip(image, 0, seed, "random_flip_up_down")


def rot90(image, k=1, name=None):
    """``image`` rotated counter-clockwise by ``k`` quarter turns (``k`` a Python int)."""
    with name_scope(name, "rot90", [image]):
        image = _image(image)
        k = int(k) % 4
        b = 1 if image.shape.ndims == 4 else 0
        perm = list(range(b)) + [b + 1, b, b + 2]
        if k == 0:
            return image
        if k == 1:
            return array_ops.transpose(array_ops.reverse(image, [b + 1]), perm)
        if k == 2:
            return array_ops.reverse(image, [b, b + 1])
        return array_ops.reverse(array_ops.transpose(image, perm), [b + 1])


def transpose_image(image):
    with name_scope(None, "transpose", [image]):
        image = _image(image)
        b = 1 if image.shape.ndims == 4 else 0
        return array_ops.transpose(image, list(range(b)) + [b + 1, b, b + 2])


# -- colour -------------------------------------------------------------------------------------

def convert_image_dtype(image, dtype, saturate=False, name=None):
    """TF's conversion: integers scale by their ranges, floats live in [0, 1]."""
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if dtype == image.dtype:
        return control_flow_ops.identity(image, name=name)
    with name_scope(name, "convert_image", [image]) as scope:
        src = image.dtype
        if src.is_integer and dtype.is_integer:
            scale_in, scale_out = src.max, dtype.max
            if scale_in > scale_out:
                scaled = math_ops.floordiv(image, (scale_in + 1) // (scale_out + 1))
                return (math_ops.saturate_cast if saturate else math_ops.cast)(scaled, dtype, name=scope)
            cast = (math_ops.saturate_cast if saturate else math_ops.cast)(image, dtype)
            return math_ops.multiply(cast, (scale_out + 1) // (scale_in + 1), name=scope)
        if src.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype, name=scope)
        if src.is_integer:
            cast = math_ops.cast(image, dtype)
            return math_ops.multiply(cast, 1. / src.max, name=scope)
        scaled = math_ops.multiply(image, dtype.max + 0.5)
        return (math_ops.saturate_cast if saturate else math_ops.cast)(scaled, dtype, name=scope)


def _via_float(image, fn):
    orig = image.dtype
    flt = image if orig in (dtypes.float16, dtypes.float32) else convert_image_dtype(image, dtypes.float32)
    return convert_image_dtype(fn(flt), orig, saturate=True)


def adjust_brightness(image, delta):
    with name_scope(None, "adjust_brightness", [image, delta]) as scope:
        image = convert_to_tensor(image, name="image")
        return _via_float(image, lambda x: math_ops.add(x, math_ops.cast(delta, x.dtype), name=scope))


def random_brightness(image, max_delta, seed=None):
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def adjust_contrast(images, contrast_factor):
    with name_scope(None, "adjust_contrast", [images, contrast_factor]) as scope:
        images = convert_to_tensor(images, name="images")
        return _via_float(images, lambda x: apply_op(
            "AdjustContrastv2", images=x, contrast_factor=convert_to_tensor(contrast_factor, dtype=dtypes.float32),
            name=scope))


def random_contrast(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)


def per_image_standardization(image):
    """(x - mean) / max(stddev, 1 / sqrt(num_pixels)) per image, in float32."""
    with name_scope(None, "per_image_standardization", [image]) as scope:
        image = _image(image)
        if not image.dtype.is_floating:
            image = math_ops.cast(image, dtypes.float32)
        num_pixels = math_ops.reduce_prod(array_ops.shape(image)[-3:])
        axes = [-1, -2, -3]
        mean = math_ops.reduce_mean(image, axis=axes, keepdims=True)
        with name_scope("reduce_std"):
            with name_scope("reduce_variance"):
                means = math_ops.reduce_mean(image, axis=axes, keepdims=True)
                var = math_ops.reduce_mean(math_ops.square(image - means), axis=axes, keepdims=True)
            stddev = math_ops.sqrt(var)
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, image.dtype))
        adjusted = math_ops.maximum(stddev, min_stddev)
        image = image - mean
        return math_ops.divide(image, adjusted, name=scope)


def random_crop(value, size, seed=None, name=None):
    """A random ``size`` slice of ``value`` (``tf.random_crop``: offsets uniform, TF's seeds)."""
    with name_scope(name, "random_crop", [value, size]) as scope:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = Assert(math_ops.reduce_all(math_ops.greater_equal(shape, size)),
                       ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = random_ops.random_uniform(array_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max,
                                           seed=seed) % limit
        out = array_ops.slice(value, offset, size, name=scope)
        return out


def stateless_random_crop(value, size, seed, name=None):
    """``random_crop`` with offsets from ``stateless_random_uniform(seed)``: the
    same ``seed`` (a shape [2] tensor) gives the same crop (TF's
    ``tf.image.stateless_random_crop``, a TF 2 name: not in ``__all__``)."""
    with name_scope(name, "random_crop", [value, size]) as scope:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = Assert(math_ops.reduce_all(math_ops.greater_equal(shape, size)),
                       ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = stateless_random_ops.stateless_random_uniform(array_ops.shape(shape), dtype=size.dtype,
                                                               maxval=size.dtype.max, seed=seed) % limit
        return array_ops.slice(value, offset, size, name=scope)


resize = resize_images  # tf.compat.v1.image.resize is TF1's resize_images
