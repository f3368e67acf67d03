"""``tf.image`` (TF1) colour and box functions: colour-space conversions,
``adjust_hue``/``adjust_saturation``/``adjust_gamma`` and their random kin,
``draw_bounding_boxes``, ``non_max_suppression``, ``crop_and_resize`` and
``sample_distorted_bounding_box``, built as TF's ``image_ops_impl`` builds
them (kernels in :mod:`ref.ops.image_color` and :mod:`ref.ops.image_resize`).
"""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, math_ops, random_ops
from ref.graph_ops.image_geometry_ops import assert_grayscale_image
from ref.graph_ops.image_ops import convert_image_dtype
from ref.types import dtypes

__all__ = ["rgb_to_grayscale", "grayscale_to_rgb", "rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb",
           "rgb_to_yuv", "yuv_to_rgb", "adjust_hue", "random_hue", "adjust_saturation", "random_saturation",
           "adjust_gamma", "draw_bounding_boxes", "non_max_suppression", "crop_and_resize",
           "sample_distorted_bounding_box"]

_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def rgb_to_grayscale(images, name=None):
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B`` in the images' dtype, one channel."""
    with name_scope(name, "rgb_to_grayscale", [images]) as scope:
        images = convert_to_tensor(images, name="images")
        orig = images.dtype
        flt = convert_image_dtype(images, dtypes.float32)
        gray = array_ops.expand_dims(math_ops.tensordot(flt, [0.2989, 0.5870, 0.1140], [-1, -1]), -1)
        return convert_image_dtype(gray, orig, name=scope)


def grayscale_to_rgb(images, name=None):
    """The single channel repeated three times (``Tile``)."""
    with name_scope(name, "grayscale_to_rgb", [images]) as scope:
        images = assert_grayscale_image(convert_to_tensor(images))
        images = convert_to_tensor(images, name="images")
        rank_1 = array_ops.expand_dims(array_ops.rank(images) - 1, 0)
        multiples = array_ops.concat([array_ops.ones(rank_1, dtype=dtypes.int32), array_ops.expand_dims(3, 0)], 0)
        rgb = array_ops.tile(images, multiples, name=scope)
        rgb.set_shape(images.shape[:-1].concatenate([3]))
        return rgb


def rgb_to_hsv(images, name=None):
    return apply_op("RGBToHSV", images=convert_to_tensor(images), name=name)


def hsv_to_rgb(images, name=None):
    return apply_op("HSVToRGB", images=convert_to_tensor(images), name=name)


def _kernel_transform(images, table):
    images = convert_to_tensor(images, name="images")
    kernel = convert_to_tensor(table, dtype=images.dtype, name="kernel")
    ndims = images.shape.ndims
    return math_ops.tensordot(images, kernel, axes=[[ndims - 1], [0]])


def rgb_to_yiq(images):
    return _kernel_transform(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    return _kernel_transform(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    return _kernel_transform(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    return _kernel_transform(images, _YUV_TO_RGB)


def _float_image(image):
    orig = image.dtype
    return orig, image if orig in (dtypes.float16, dtypes.float32) else convert_image_dtype(image, dtypes.float32)


def adjust_hue(image, delta, name=None):
    """``image`` with its hue rotated by ``delta`` (a fraction of a turn, in [-1, 1])."""
    with name_scope(name, "adjust_hue", [image]):
        image = convert_to_tensor(image, name="image")
        orig, flt = _float_image(image)
        out = apply_op("AdjustHue", images=flt, delta=delta)
        return convert_image_dtype(out, orig)


def random_hue(image, max_delta, seed=None):
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def adjust_saturation(image, saturation_factor, name=None):
    """``image`` with its HSV saturation scaled by ``saturation_factor``."""
    with name_scope(name, "adjust_saturation", [image]):
        image = convert_to_tensor(image, name="image")
        orig, flt = _float_image(image)
        out = apply_op("AdjustSaturation", images=flt,
                       scale=saturation_factor)
        return convert_image_dtype(out, orig)


def random_saturation(image, lower, upper, seed=None):
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, factor)


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` (in float, then back to the image's dtype, saturating)."""
    with name_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = convert_to_tensor(image, name="image")
        orig, flt = _float_image(image)
        if isinstance(gamma, (int, float)) and gamma < 0:
            raise ValueError("Gamma should be a non-negative real number.")
        adjusted = gain * flt ** gamma
        return convert_image_dtype(adjusted, orig, saturate=True)


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """Box outlines drawn on float ``images`` (batch, height, width, 1/3/4),
    cycling through ``colors`` (rows of RGBA; ``DrawBoundingBoxesV2``) or,
    without them, TF's colour table (``DrawBoundingBoxes``)."""
    op = "DrawBoundingBoxes" if colors is None else "DrawBoundingBoxesV2"
    with name_scope(name, op, [images, boxes, colors]) as scope:  # inputs converted as TF's op wrapper does
        images = convert_to_tensor(images, name="images")
        boxes = convert_to_tensor(boxes, dtype=dtypes.float32, name="boxes")
        if colors is None:
            return apply_op(op, images=images, boxes=boxes, name=scope)
        colors = convert_to_tensor(colors, dtype=dtypes.float32, name="colors")
        return apply_op(op, images=images, boxes=boxes, colors=colors, name=scope)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """Indices of the boxes kept by greedy IoU suppression (``NonMaxSuppressionV3``)."""
    with name_scope(name, "non_max_suppression"):
        iou_threshold = convert_to_tensor(iou_threshold, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, name="score_threshold")
        return apply_op("NonMaxSuppressionV3", boxes=boxes, scores=scores,  # converted in the op's scope, as TF
                        max_output_size=max_output_size,
                        iou_threshold=iou_threshold, score_threshold=score_threshold)


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear", extrapolation_value=0,
                    name=None, box_indices=None):
    """Crops of ``image`` at normalised ``boxes``, each resampled to ``crop_size`` (float32)."""
    if box_indices is not None:
        if box_ind is not None:
            raise ValueError("Cannot specify both 'box_indices' and 'box_ind'.")
        box_ind = box_indices
    return apply_op("CropAndResize", image=image, boxes=boxes,
                    box_ind=box_ind,
                    crop_size=crop_size, method=method,
                    extrapolation_value=float(extrapolation_value), name=name)



def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """(begin, size, bboxes) of a random crop covering ``min_object_covered`` of a
    box. As in TF1, ``seed``/``seed2`` go to the op as given (the graph seed is
    not consulted); both unset draws fresh seeds each session."""
    with name_scope(name, "sample_distorted_bounding_box"):
        attrs = {k: v for k, v in (("aspect_ratio_range", aspect_ratio_range), ("area_range", area_range),
                                   ("max_attempts", max_attempts),
                                   ("use_image_if_no_bounding_boxes", use_image_if_no_bounding_boxes))
                 if v is not None}
        return apply_op("SampleDistortedBoundingBoxV2", image_size=image_size, bounding_boxes=bounding_boxes,
                        min_object_covered=min_object_covered,
                        seed=int(seed or 0), seed2=int(seed2 or 0),
                        **{k: [float(x) for x in v] if k.endswith("range") else v for k, v in attrs.items()},
                        name=name)
