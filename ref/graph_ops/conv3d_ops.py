"""TF1 ``tf.nn`` 3-D convolution and pooling builders over :mod:`ref.ops.conv3d`:
``conv3d`` (``Conv3D``), ``max_pool3d`` (``MaxPool3D``), ``avg_pool3d``
(``AvgPool3D``), with ``tensorflow.compat.v1``'s signatures and name scopes.
"""
from __future__ import annotations

from ref.graph_ops.conv_ops import _pick, get_sequence
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op

__all__ = ["conv3d", "max_pool3d", "avg_pool3d"]


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC", dilations=(1, 1, 1, 1, 1),
           name=None, filters=None):
    """3-D convolution of ``input`` [batch, depth, height, width, in] with
    ``filter`` [kd, kh, kw, in, out] (``Conv3D``); ``strides`` and
    ``dilations`` are 5-lists."""
    filter = _pick("filters", filters, "filter", filter)
    return apply_op("Conv3D", input=input, filter=filter, strides=list(strides), padding=padding,
                    data_format=data_format, dilations=list(dilations), name=name)


def _pool3d(op_type, input, ksize, strides, padding, data_format, name):
    with name_scope(name, op_type, [input]) as name:
        if data_format is None:
            data_format = "NDHWC"
        c = 1 if data_format.startswith("NC") else 4
        return apply_op(op_type, input=input, ksize=get_sequence(ksize, 3, c, "ksize"),
                        strides=get_sequence(strides, 3, c, "strides"), padding=padding, data_format=data_format,
                        name=name)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """The maximum over ``ksize`` windows of a 5-D ``input`` (``MaxPool3D``)."""
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """The mean over ``ksize`` windows of a 5-D ``input``, padding not counted (``AvgPool3D``)."""
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name)
