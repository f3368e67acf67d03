"""``tf.image`` (TF1) and ``tf.random_crop``: decoding and encoding
(:mod:`ref.ops.image`), resizing, crops and pads, flips and rotations, the
random colour changes with TF's seeds, ``per_image_standardization`` and
``convert_image_dtype``, built from the same ops TF's ``image_ops_impl``
uses, so the numbers are TF's.

An image is 3-D (height, width, channels) or, where TF allows, a 4-D batch;
unknown dimensions (a decoded image) are computed at run time.
"""
from __future__ import annotations

from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.graph import name_scope
from ref.framework.tensor_util import constant_value_as_shape
from ref.graph_ops import array_ops, control_flow_ops, math_ops, random_ops, stateless_random_ops
from ref.graph_ops import image_geometry_ops as geo
from ref.graph_ops.image_geometry_ops import (  # noqa: F401  (tf.image's geometry)
    central_crop, crop_to_bounding_box, flip_left_right, flip_up_down, pad_to_bounding_box, random_flip_left_right,
    random_flip_up_down, resize_image_with_crop_or_pad, rot90, transpose, transpose_image)
from ref.graph_ops.logging_ops import Assert
from ref.types import dtypes

__all__ = ["ResizeMethod", "decode_jpeg", "decode_png", "decode_gif", "decode_bmp", "decode_image", "encode_png",
           "encode_jpeg", "resize_images", "resize", "resize_image_with_pad", "resize_bilinear", "resize_nearest_neighbor", "resize_bicubic", "resize_area",
           "flip_left_right",
           "flip_up_down", "random_flip_left_right", "random_flip_up_down", "rot90", "transpose_image", "transpose",
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
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "decode_image"):  # TF: the op is "decode_image/DecodeImage"
        if dtype not in (dtypes.float32, dtypes.uint8, dtypes.uint16):
            return convert_image_dtype(apply_op("DecodeImage", contents=_contents(contents), channels=channels or 0,
                                                dtype=dtypes.uint16, expand_animations=expand_animations), dtype)
        return apply_op("DecodeImage", contents=_contents(contents), channels=channels or 0, dtype=dtype,
                        expand_animations=expand_animations)


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

# -- resizing ---------------------------------------------------------------------------

def _size_tensor(size):
    """A size as given: a list becomes the op's own ``<op>/size`` constant, as in TF."""
    return size


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return apply_op("ResizeBilinear", images=convert_to_tensor(images), size=_size_tensor(size),
                    align_corners=align_corners, half_pixel_centers=half_pixel_centers, name=name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None, half_pixel_centers=False):
    return apply_op("ResizeNearestNeighbor", images=convert_to_tensor(images), size=_size_tensor(size),
                    align_corners=align_corners, half_pixel_centers=half_pixel_centers, name=name)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
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
    """``image`` resized to fit ``target_height x target_width`` keeping its aspect
    ratio (sides ``floor(side / ratio)``, ratio the larger of the two side ratios),
    then zero-padded centred (``floor`` of half the difference), as TF1's."""
    with name_scope(None, "resize_image_with_pad", [image]):
        image, is_batch = geo.as_batch(convert_to_tensor(image, name="image"))
        checks = geo.check_at_least_3d_image(image, require_static=False)
        checks += geo.assert_or_raise(target_width > 0, ValueError, "target_width must be > 0.")
        checks += geo.assert_or_raise(target_height > 0, ValueError, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(checks, image)
        _, height, width, _ = geo.image_dimensions(image, rank=4)
        f32 = dtypes.float32
        f_height, f_width = math_ops.cast(height, dtype=f32), math_ops.cast(width, dtype=f32)
        f_target_height = math_ops.cast(target_height, dtype=f32)
        f_target_width = math_ops.cast(target_width, dtype=f32)
        ratio = geo.max_of(f_width / f_target_width, f_height / f_target_height)
        resized_height_float, resized_width_float = f_height / ratio, f_width / ratio
        resized_height = math_ops.cast(math_ops.floor(resized_height_float), dtype=dtypes.int32)
        resized_width = math_ops.cast(math_ops.floor(resized_width_float), dtype=dtypes.int32)
        padding_height = (f_target_height - resized_height_float) / 2
        padding_width = (f_target_width - resized_width_float) / 2
        f_padding_height, f_padding_width = math_ops.floor(padding_height), math_ops.floor(padding_width)
        p_height = geo.max_of(0, math_ops.cast(f_padding_height, dtype=dtypes.int32))
        p_width = geo.max_of(0, math_ops.cast(f_padding_width, dtype=dtypes.int32))
        resized = resize_images(image, [resized_height, resized_width], method, align_corners=align_corners)
        padded = pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        if padded.shape.ndims is None:
            raise ValueError("padded contains no shape.")
        geo.image_dimensions(padded, rank=4)
        return geo.unbatch(padded, is_batch)


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
        return _via_float(images, lambda x: apply_op("AdjustContrastv2", images=x, contrast_factor=contrast_factor,
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
        image = geo.assert_at_least_3d_image(convert_to_tensor(image, name="image"))
        image = math_ops.cast(image, dtype=dtypes.float32)
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
