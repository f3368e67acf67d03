"""Gradient rules for the image kernels (TF's image_grad.py): resizes scatter
back through ResizeBilinearGrad / ResizeBicubicGrad / ResizeNearestNeighborGrad,
CropAndResize through CropAndResizeGradImage (float images) and
CropAndResizeGradBoxes. TF declares the rest not differentiable (HSVToRGB,
DrawBoundingBoxes, the suppression ops) or registers nothing (AdjustHue,
AdjustSaturation: ``tf.gradients`` raises LookupError there, as here)."""
from __future__ import annotations

from ref.framework.op_def_library import apply_op
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops
from ref.types import dtypes

for _t in ("HSVToRGB", "DrawBoundingBoxes", "NonMaxSuppressionV3", "SampleDistortedBoundingBoxV2", "ResizeBilinearGrad", "ResizeArea",
           "ResizeBicubicGrad", "ResizeNearestNeighborGrad", "CropAndResizeGradImage", "CropAndResizeGradBoxes"):
    NotDifferentiable(_t)


@RegisterGradient("ResizeNearestNeighbor")
def _resize_nearest_neighbor_grad(op, grad):
    image = op.inputs[0]
    hw = image.shape[1:3] if image.shape.ndims is not None else None
    size = hw.as_list() if hw is not None and hw.is_fully_defined() else array_ops.shape(image)[1:3]
    return [apply_op("ResizeNearestNeighborGrad", grads=grad, size=size,
                     align_corners=op.get_attr("align_corners"),
                     half_pixel_centers=op.get_attr("half_pixel_centers")), None]


@RegisterGradient("ResizeBilinear")
def _resize_bilinear_grad(op, grad):
    return [apply_op("ResizeBilinearGrad", grads=grad, original_image=op.inputs[0],
                     align_corners=op.get_attr("align_corners"),
                     half_pixel_centers=op.get_attr("half_pixel_centers")), None]


@RegisterGradient("ResizeBicubic")
def _resize_bicubic_grad(op, grad):
    if op.inputs[0].dtype not in (dtypes.float32, dtypes.float64):
        return [None, None]
    return [apply_op("ResizeBicubicGrad", grads=grad, original_image=op.inputs[0],
                     align_corners=op.get_attr("align_corners"),
                     half_pixel_centers=op.get_attr("half_pixel_centers")), None]


@RegisterGradient("CropAndResize")
def _crop_and_resize_grad(op, grad):
    image = op.inputs[0]
    shape = image.shape.as_list() if image.shape.is_fully_defined() else array_ops.shape(image)
    grad0 = None
    if image.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad0 = apply_op("CropAndResizeGradImage", grads=grad, boxes=op.inputs[1], box_ind=op.inputs[2],
                         image_size=shape, T=image.dtype, method=op.get_attr("method"))
    grad1 = apply_op("CropAndResizeGradBoxes", grads=grad, image=image, boxes=op.inputs[1], box_ind=op.inputs[2])
    return [grad0, grad1, None, None]
