"""TF1 builders that rearrange space and depth, and atrous convolution:
``tf.space_to_depth`` / ``tf.depth_to_space`` (also ``tf.nn.*``; the
``SpaceToDepth`` / ``DepthToSpace`` ops of :mod:`ref.ops.space_depth`) and
``tf.nn.atrous_conv2d``, with ``tensorflow.compat.v1``'s signatures.
"""
from __future__ import annotations

import numpy as np

from ref.graph_ops import conv_ops, space_batch_ops
from ref.graph_ops.space_batch_ops import convolution  # noqa: F401  (tf.nn.convolution, dilated as TF builds it)
from ref.framework.op_def_library import apply_op

__all__ = ["space_to_depth", "depth_to_space", "atrous_conv2d", "convolution"]


def space_to_depth(input, block_size, name=None, data_format="NHWC"):
    """Moves ``block_size`` x ``block_size`` blocks of the spatial dimensions
    into the depth dimension (``SpaceToDepth``); height and width must be
    multiples of ``block_size`` (at least 2)."""
    return apply_op("SpaceToDepth", input=input, block_size=int(block_size), data_format=data_format, name=name)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):
    """Moves depth into ``block_size`` x ``block_size`` spatial blocks
    (``DepthToSpace``, the inverse of :func:`space_to_depth`); the depth must
    be a multiple of ``block_size ** 2``."""
    return apply_op("DepthToSpace", input=input, block_size=int(block_size), data_format=data_format, name=name)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """Dilated 2-D convolution of NHWC ``value`` with ``filters`` [h, w, in,
    out], the filter taps ``rate`` pixels apart (stride 1): TF's
    ``convolution(value, filters, padding, dilation_rate=[rate, rate])`` --
    Conv2D for rate 1, else SpaceToBatchND / Conv2D / BatchToSpaceND."""
    rate = np.broadcast_to(rate, (2,))
    if np.any(rate < 1):
        raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={list(rate)}")
    return space_batch_ops.convolution(input=value, filter=filters, padding=padding,
                                       dilation_rate=[int(r) for r in rate], name=name)


def _attr_list(value, attr):
    """A list attr as TF's generated wrapper takes it: a list or tuple, else TypeError."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"Expected list for '{attr}' argument to 'extract_image_patches' Op, not {value!r}.")
    return [int(v) for v in value]


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None, name=None, sizes=None):
    """Each ``ksizes`` [1, rows, cols, 1] window of NHWC ``images`` (taps
    ``rates`` apart, windows ``strides`` apart) laid out along the depth
    dimension (``ExtractImagePatches``); ``sizes`` is the newer spelling."""
    ksizes = conv_ops._pick("sizes", sizes, "ksizes", ksizes)
    return apply_op("ExtractImagePatches", images=images, ksizes=_attr_list(ksizes, "ksizes"),
                    strides=_attr_list(strides, "strides"), rates=_attr_list(rates, "rates"), padding=padding,
                    name=name)


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """``tf.image.extract_patches``: :func:`extract_image_patches` with ``sizes``."""
    return extract_image_patches(images, strides=strides, rates=rates, padding=padding, name=name, sizes=sizes)
