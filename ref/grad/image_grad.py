"""Gradient rules for the image kernels (TF's image_grad.py): resizes scatter
back through ResizeBilinearGrad / ResizeBicubicGrad / ResizeNearestNeighborGrad,
CropAndResize through CropAndResizeGradImage (float images) and
CropAndResizeGradBoxes. TF declares the rest not differentiable (HSVToRGB,
DrawBoundingBoxes, the suppression ops) or registers nothing (AdjustHue,
AdjustSaturation: ``tf.gradients`` raises LookupError there, as here)."""
from __future__ import annotations

from ref.framework.op_def_library import apply_op
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops, math_ops
from ref.types import dtypes

for _t in ("HSVToRGB", "DrawBoundingBoxes", "NonMaxSuppressionV3", "NonMaxSuppressionWithOverlaps",
           "NonMaxSuppressionV4",  # int outputs only: nothing to differentiate
           "SampleDistortedBoundingBoxV2", "ResizeBilinearGrad", "ResizeArea",
           "ResizeBicubicGrad", "ResizeNearestNeighborGrad", "CropAndResizeGradImage", "CropAndResizeGradBoxes"):
    NotDifferentiable(_t)


@RegisterGradient("ResizeNearestNeighbor")
def _resize_nearest_neighbor_grad(op, grad):
    image = op.inputs[0]
    hw = image.shape[1:3] if image.shape.ndims is not None else None
    size = hw.as_list() if hw is not None and hw.is_fully_defined() else array_ops.shape(image)[1:3]
    return [apply_op("ResizeNearestNeighborGrad", grads=grad, size=size,
                     align_corners=op._get_attr("align_corners"),
                     half_pixel_centers=op._get_attr("half_pixel_centers")), None]


@RegisterGradient("ResizeBilinear")
def _resize_bilinear_grad(op, grad):
    return [apply_op("ResizeBilinearGrad", grads=grad, original_image=op.inputs[0],
                     align_corners=op._get_attr("align_corners"),
                     half_pixel_centers=op._get_attr("half_pixel_centers")), None]


@RegisterGradient("ResizeBicubic")
def _resize_bicubic_grad(op, grad):
    if op.inputs[0].dtype not in (dtypes.float32, dtypes.float64):
        return [None, None]
    return [apply_op("ResizeBicubicGrad", grads=grad, original_image=op.inputs[0],
                     align_corners=op._get_attr("align_corners"),
                     half_pixel_centers=op._get_attr("half_pixel_centers")), None]


@RegisterGradient("CropAndResize")
def _crop_and_resize_grad(op, grad):
    image = op.inputs[0]
    shape = image.shape.as_list() if image.shape.is_fully_defined() else array_ops.shape(image)
    grad0 = None
    if image.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad0 = apply_op("CropAndResizeGradImage", grads=grad, boxes=op.inputs[1], box_ind=op.inputs[2],
                         image_size=shape, T=image.dtype, method=op._get_attr("method"))
    grad1 = apply_op("CropAndResizeGradBoxes", grads=grad, image=image, boxes=op.inputs[1], box_ind=op.inputs[2])
    return [grad0, grad1, None, None]


# -- RGBToHSV ------------------------------------------------------------------------------------
#
# TF's _RGBToHSVGrad differentiates the piecewise map of each pixel (r, g, b) ->
# (h, s, v) with M = max, m = min (ties broken in the order R > G > B):
#
#   v = M                      dv/dc = [c is M]
#   s = (M - m) / M            ds/dc = [c > 0] ([c is M] m / c^2 - [c is m] / M)
#   h = 60 (..) / (M - m) / 360, one formula per channel that is M; its
#       partial by c takes five cases: c is M, or another channel is M and c
#       is m (a quotient rule) or not.
#
# 1/x is div_no_nan(1, x) (0 where x == 0), and the graph is built op for op
# in TF's order, so it is TF's GraphDef.

def _reciprocal(x):
    """1 / x, 0 where x is 0 (TF's _CustomReciprocal)."""
    return math_ops.div_no_nan(math_ops.cast(1.0, x.dtype), x)


@RegisterGradient("RGBToHSV")
def _rgb_to_hsv_grad(op, grad):
    rgb, hsv = op.inputs[0], op.outputs[0]
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    s, v = hsv[..., 1], hsv[..., 2]
    dtype = rgb.dtype

    def mask(x):
        return math_ops.cast(x, dtype)

    r_max, g_max, b_max = mask((r >= b) & (r >= g)), mask((g > r) & (g >= b)), mask((b > r) & (b > g))
    r_min, g_min, b_min = mask((r < b) & (r < g)), mask((g <= r) & (g < b)), mask((b <= r) & (b <= g))

    def positive(c):
        return math_ops.cast(c > 0, dtype)

    # ds/dc for c = r, g, b: (c, c is M, c is m, the other two (x, x is m, x is M)).
    ds = []
    for c, c_max, c_min, (x, x_min, x_max), (y, y_min, y_max) in (
            (r, r_max, r_min, (g, g_min, g_max), (b, b_min, b_max)),
            (g, g_max, g_min, (r, r_min, r_max), (b, b_min, b_max)),
            (b, b_max, b_min, (g, g_min, g_max), (r, r_min, r_max))):
        ds.append(positive(c) * math_ops.add(
            c_max * math_ops.add(x_min * x, y_min * y) * _reciprocal(math_ops.square(c)),
            c_min * -1 * _reciprocal((x_max * x) + (y_max * y))))

    def gate(c, c_max, x_min=None, negate=False):
        t = positive(c) * c_max
        if x_min is not None:
            t = t * x_min
        return t * -1 if negate else t

    def hue(c, c_max, hue_diff, cases):
        """dh/dc: c is M (hue_diff = the other two channels' difference in h's
        formula), then four cases (another channel X is M; c is m or Y is m)."""
        terms = [60 * (gate(c, c_max, negate=True) * hue_diff() * _reciprocal(math_ops.square(s))
                       * _reciprocal(math_ops.square(v)))]
        for X, X_max, Y_min, numerator, denominator, negate in cases:
            if numerator is not None:  # the quotient rule: numerator / (denominator)^2
                terms.append(60 * (gate(X, X_max, Y_min) * numerator()
                                   * _reciprocal(math_ops.square(denominator()))))
            else:
                terms.append(60 * (gate(X, X_max, Y_min, negate) * _reciprocal(denominator())))
        total = terms[0] + terms[1] + terms[2] + terms[3] + terms[4]
        return total / 360

    dh_dr = hue(r, r_max, lambda: g - b, (
        (g, g_max, r_min, lambda: b - g, lambda: r - g, False),
        (g, g_max, b_min, None, lambda: g - b, True),
        (b, b_max, r_min, lambda: b - g, lambda: b - r, False),
        (b, b_max, g_min, None, lambda: b - g, False)))
    dh_dg = hue(g, g_max, lambda: b - r, (
        (r, r_max, g_min, lambda: r - b, lambda: r - g, False),
        (r, r_max, b_min, None, lambda: r - b, False),
        (b, b_max, g_min, lambda: r - b, lambda: b - g, False),
        (b, b_max, r_min, None, lambda: b - r, True)))
    dh_db = hue(b, b_max, lambda: r - g, (
        (r, r_max, b_min, lambda: g - r, lambda: r - b, False),
        (r, r_max, g_min, None, lambda: r - g, True),
        (g, g_max, b_min, lambda: g - r, lambda: g - b, False),
        (g, g_max, r_min, None, lambda: g - r, False)))

    def chain(channel, partials):
        return array_ops.stack([grad[..., channel] * p for p in partials], axis=-1)

    dv = chain(2, (r_max, g_max, b_max))
    ds_ = chain(1, ds)
    dh = chain(0, (dh_dr, dh_dg, dh_db))
    return math_ops.add(math_ops.add(dv, ds_), dh)
