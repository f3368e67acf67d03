"""Keras' reshaping layers in graph mode: ``UpSampling2D``, ``Cropping2D``
and the wrapper ``TimeDistributed``, building the ops tf_keras builds.

* ``UpSampling2D``: the new size is the spatial shape (a constant when
  static, else sliced from ``Shape``) times the factors, then
  ``ResizeNearestNeighbor`` (or ``ResizeBilinear``) with half-pixel centers
  in the scope ``resize`` (``tf.image.resize``).
* ``Cropping2D``: one strided slice of the input.
* ``TimeDistributed``: the wrapped layer is built in the wrapper's scope (its
  weights are ``<wrapper>/kernel``, ...), the input reshaped to
  ``(-1,) + shape[2:]``, the layer applied, the result reshaped to
  ``(batch or -1, steps) + shape[1:]``; then, as Keras' ``compute_mask``
  does, the input is reshaped once more (a mask is never produced). A static
  batch size takes this path too, where tf_keras runs the layer in a
  ``while`` loop over the steps (the values are the same).
"""
from __future__ import annotations

from ref.types.shapes import TensorShape, dimension_value
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, constant
from ref.graph_ops import array_ops
from ref.keras import backend
from ref.keras.engine import InputSpec, Layer

__all__ = ["UpSampling2D", "Cropping2D", "TimeDistributed"]


def _format(data_format):
    data_format = data_format or backend.image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"The `data_format` argument must be one of \"channels_first\", \"channels_last\". "
                         f"Received: {data_format}")
    return data_format


def _pair(value, name):
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise ValueError(f"The `{name}` argument must be a tuple of 2 integers. Received: {value}")
    return value


class UpSampling2D(Layer):
    """Repeats the rows and columns ``size`` times (nearest) or interpolates them (bilinear)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.data_format = _format(data_format)
        self.size = _pair(size, "size")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError('`interpolation` argument should be one of: "nearest", "bilinear". '
                             f'Received: "{interpolation}".')
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        rows, cols = (1, 2) if self.data_format == "channels_last" else (2, 3)
        spatial = TensorShape(inputs.shape)[rows:cols + 1]
        if spatial.is_fully_defined():
            new_shape = constant(spatial.as_list(), dtype="int32")
        else:
            new_shape = array_ops.shape(inputs)[rows:cols + 1]
        new_shape = new_shape * constant(list(self.size), dtype="int32")  # the operator: scope "mul"
        x = inputs
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, [0, 2, 3, 1])
        op = "ResizeNearestNeighbor" if self.interpolation == "nearest" else "ResizeBilinear"
        with name_scope("resize"):
            x = apply_op(op, images=x, size=new_shape, align_corners=False, half_pixel_centers=True, name=op)
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, [0, 3, 1, 2])
        return x

    def get_config(self):
        return dict(super().get_config(), size=self.size, data_format=self.data_format,
                    interpolation=self.interpolation)


class Cropping2D(Layer):
    """Removes ``cropping`` rows and columns: an int, (rows, cols) or ((top, bottom), (left, right))."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _format(data_format)
        if isinstance(cropping, int):
            cropping = ((cropping, cropping), (cropping, cropping))
        elif all(isinstance(c, int) for c in cropping):
            cropping = ((cropping[0], cropping[0]), (cropping[1], cropping[1]))
        self.cropping = tuple(_pair(c, "cropping") for c in cropping)
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        axes = (1, 2) if self.data_format == "channels_last" else (2, 3)
        for axis, (low, high) in zip(axes, self.cropping):
            size = dimension_value(TensorShape(inputs.shape)[axis]) if inputs.shape.ndims else None
            if size is not None and low + high >= size:
                raise ValueError("Argument `cropping` must be greater than the input shape. Received: inputs.shape="
                                 f"{inputs.shape}, and cropping={self.cropping}")
        (top, bottom), (left, right) = self.cropping
        rows = slice(top, -bottom if bottom else None)
        cols = slice(left, -right if right else None)
        if self.data_format == "channels_last":
            return inputs[:, rows, cols, :]
        return inputs[:, :, rows, cols]

    def get_config(self):
        return dict(super().get_config(), cropping=self.cropping, data_format=self.data_format)


class TimeDistributed(Layer):
    """Applies ``layer`` to every step of a [batch, steps, ...] input."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `TimeDistributed` layer with a `tf.keras.layers.Layer` instance. "
                             f"Received: {layer}")
        super().__init__(**kwargs)
        self.layer = layer
        self.input_spec = InputSpec(min_ndim=3)

    def build(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        if len(shape) < 3:
            raise ValueError("`TimeDistributed` Layer should be passed an `input_shape` with at least 3 dimensions, "
                             f"received: {shape}")
        if not self.layer.built:
            if self.layer._dtype is None:
                self.layer._dtype = self._dtype
            self.layer.build(TensorShape([shape[0]] + shape[2:]))
            self.layer.built = True
        self.built = True

    @staticmethod
    def _shape_tuple(head, tensor, start):
        """``head`` then the static dims of ``tensor`` from ``start``, a ``Shape`` slice for each unknown one."""
        dims = TensorShape(tensor.shape).as_list()[start:]
        if None not in dims:
            return tuple(head) + tuple(dims)
        dynamic = array_ops.shape(tensor)
        return tuple(head) + tuple(dynamic[start + i] if d is None else d for i, d in enumerate(dims))

    def call(self, inputs, training=None):
        kwargs = {"training": training} if self.layer._call_takes("training") else {}
        dims = TensorShape(inputs.shape).as_list()
        batch, steps = dims[0], dims[1]
        if not steps:
            steps = array_ops.shape(inputs)[1]
        inner = array_ops.reshape(inputs, self._shape_tuple((-1,), inputs, 2))
        y = self.layer(inner, **kwargs)
        y = array_ops.reshape(y, self._shape_tuple((batch if batch else -1, steps), y, 1))
        array_ops.reshape(inputs, self._shape_tuple((-1,), inputs, 2))  # Keras' compute_mask reshapes the input again
        return y

    def compute_output_shape(self, input_shape):
        shape = TensorShape(input_shape).as_list()
        inner = TensorShape(self.layer.compute_output_shape(TensorShape([shape[0]] + shape[2:]))).as_list()
        return TensorShape([inner[0], shape[1]] + inner[1:])

    def get_config(self):
        return dict(super().get_config(), layer={"class_name": type(self.layer).__name__,
                                                 "config": self.layer.get_config()})
