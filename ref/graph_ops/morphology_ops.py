"""TF1 ``tf.nn`` grayscale morphology builders over :mod:`ref.ops.morphology`:
``dilation2d`` (``Dilation2D``) and ``erosion2d`` (TF's duality: the negated
dilation of the negated image by the reflected kernel), with
``tensorflow.compat.v1``'s signatures and name scopes.
"""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.conv_ops import _pick

__all__ = ["dilation2d", "erosion2d"]


def dilation2d(input, filter=None, strides=None, rates=None, padding=None, name=None, filters=None,
               dilations=None):
    """The maximum over each window of NHWC ``input`` plus ``filter`` [h, w,
    depth] per channel (``Dilation2D``); ``strides`` and ``rates`` are
    [1, r, c, 1]."""
    filter = _pick("filters", filters, "filter", filter)
    rates = _pick("dilations", dilations, "rates", rates)
    return apply_op("Dilation2D", input=input, filter=filter, strides=list(strides), rates=list(rates),
                    padding=padding, name=name)


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """The minimum over each window of ``value`` minus ``kernel``: ``-dilation2d(-value,
    reverse(kernel, [0, 1]))`` under the name scope "erosion2d"."""
    with name_scope(name, "erosion2d", [value, kernel]) as name:
        return math_ops.negative(apply_op("Dilation2D", input=math_ops.negative(value),
                                          filter=array_ops.reverse_v2(kernel, [0, 1]), strides=list(strides),
                                          rates=list(rates), padding=padding, name=name))
