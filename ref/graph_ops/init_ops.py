"""Initializers (TF docs, "Variables" ``tf.*_initializer``; TF's API reference
``tf.compat.v1.truncated_normal_initializer`` & co.).

An initializer is called as ``init(shape, dtype=None, partition_info=None)``
and builds the ops producing the initial value; ``dtype=None`` means the
constructor's dtype. Random initializers take their op seeds from
``ref.framework.random_seed.get_seed(seed)`` (TF's graph-level + op-level rule), so a fixed
``seed`` gives the same values in every Session. ``partition_info`` (a
:class:`ref.graph_ops.partitioned.PartitionInfo`) makes the scale depend on the FULL
shape of a partitioned variable.

The scales, as documented:

* uniform_unit_scaling: ``U(-m, m)``, ``m = factor * sqrt(3 / dim)``, ``dim``
  the product of all but the last dimension (TF docs, "Variables").
* variance_scaling: ``n`` = fan_in, fan_out or their mean; ``truncated_normal``
  draws ``N(0, sqrt(scale / n) / 0.87962566103423978)`` cut at two standard
  deviations (the constant is the stddev of a standard normal truncated to
  [-2, 2]), ``untruncated_normal`` ``N(0, sqrt(scale / n))``, ``uniform``
  ``U(-sqrt(3 scale / n), sqrt(3 scale / n))``.
* glorot_uniform / glorot_normal: variance_scaling(1, "fan_avg", uniform /
  truncated_normal).
* orthogonal: ``gain * Q`` of the QR decomposition of a normal matrix, columns
  signed by ``diag(R)``.
"""
from __future__ import annotations

import math

import numpy as np

from ref.types import dtypes
from ref.framework.op_def_library import apply_op, constant
from ref.types.shapes import TensorShape, as_shape
from ref.graph_ops.array_ops import zeros as _zeros, ones as _ones
from ref.graph_ops.random_ops import random_uniform as _random_uniform, random_normal as _random_normal, truncated_normal as _truncated_normal
from ref.graph_ops.linalg_ops import eye as _eye, matrix_transpose
from ref.graph_ops.array_ops import slice as _slice

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal", "TruncatedNormal",
           "UniformUnitScaling", "VarianceScaling", "GlorotUniform", "GlorotNormal", "Orthogonal", "Identity",
           "zeros_initializer", "ones_initializer", "constant_initializer", "random_uniform_initializer",
           "random_normal_initializer", "truncated_normal_initializer", "uniform_unit_scaling_initializer",
           "variance_scaling_initializer", "glorot_uniform_initializer", "glorot_normal_initializer",
           "orthogonal_initializer", "identity_initializer", "lecun_normal", "lecun_uniform", "he_normal",
           "he_uniform"]

_TRUNCATED_NORMAL_STDDEV = .87962566103423978  # std of N(0, 1) truncated to [-2, 2]


def _assert_float_dtype(dtype):
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: <dtype: '{dtype.name}'>.")
    return dtype


def _shape_list(shape):
    if isinstance(shape, TensorShape):
        return shape.as_list()
    return [int(d) for d in shape]


# -- the op builders (TF's random_ops / array_ops compositions) ------------------

def _shape_array(shape):
    # an int32 array, also for the empty shape of a scalar
    return np.asarray(_shape_list(shape), dtype=np.int32)


def zeros(shape, dtype=dtypes.float32):
    return _zeros(_shape_list(shape), dtypes.as_dtype(dtype).base_dtype)


def ones(shape, dtype=dtypes.float32):
    return _ones(_shape_list(shape), dtypes.as_dtype(dtype).base_dtype)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None):
    return _random_uniform(_shape_array(shape), minval, maxval, dtype, seed=seed)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None):
    return _random_normal(_shape_array(shape), mean, stddev, dtype, seed=seed)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None):
    return _truncated_normal(_shape_array(shape), mean, stddev, dtype, seed=seed)


# -- initializers ------------------------------------------------------------------

class Initializer:
    """Base class: ``__call__(shape, dtype=None, partition_info=None)`` builds the value."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self):
        """The constructor arguments as a JSON-serializable dict."""
        return {}

    @classmethod
    def from_config(cls, config):
        """``cls(**config)``: the inverse of ``get_config``."""
        return cls(**config)


class _Fill(Initializer):
    """An initializer filling the shape with one value (``_fill(shape, dtype)``).
    the older form in TF docs, "Variables": ``zeros_initializer(shape, dtype=tf.float32)`` (and
    ``ones_initializer``) returns the tensor itself."""

    _fill = None

    def __new__(cls, dtype=dtypes.float32, shape=None):
        if isinstance(dtype, (list, tuple, TensorShape)):
            shape, dtype = dtype, (dtypes.float32 if shape is None else shape)
        if shape is not None:
            return cls._fill(shape, dtype)
        return super().__new__(cls)

    def __init__(self, dtype=dtypes.float32, shape=None):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return type(self)._fill(shape, self.dtype if dtype is None else dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class Zeros(_Fill):
    """Generates tensors initialized to 0."""

    _fill = staticmethod(zeros)


class Ones(_Fill):
    """Generates tensors initialized to 1."""

    _fill = staticmethod(ones)


class Constant(Initializer):
    """Generates tensors with constant values: a scalar fills the shape, a list
    or array must have ``prod(shape)`` elements (reshaped)."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value={value} of type: {type(value).__name__}. Expected "
                            "Python scalar, list or tuple of values, or numpy.ndarray.")
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        dtype = self.dtype if dtype is None else dtypes.as_dtype(dtype)
        verify_shape = self._verify_shape if verify_shape is None else verify_shape
        return constant(self.value, dtype=dtype, shape=shape, verify_shape=verify_shape)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """Generates tensors with a uniform distribution on [minval, maxval)
    (maxval defaults to 1 for floats)."""

    def __init__(self, minval=.0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_uniform(shape, self.minval, self.maxval, self.dtype if dtype is None else dtype,
                              seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed, "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Generates tensors with a normal distribution N(mean, stddev)."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_normal(shape, self.mean, self.stddev, self.dtype if dtype is None else dtype, seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


class TruncatedNormal(Initializer):
    """N(mean, stddev) with values more than two standard deviations from the
    mean discarded and re-drawn (TF docs, "Variables")."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        return truncated_normal(shape, self.mean, self.stddev, self.dtype if dtype is None else dtype,
                                seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


class UniformUnitScaling(Initializer):
    """U(-m, m) with m = factor * sqrt(3 / dim), dim = prod(shape[:-1]) of the
    full shape (``full_shape``, or the partition's full shape) -- TF docs, "Variables"."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32, full_shape=None):
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))
        self.full_shape = full_shape

    def __call__(self, shape, dtype=None, partition_info=None):
        scale_shape = shape if self.full_shape is None else self.full_shape
        if partition_info is not None:
            scale_shape = partition_info.full_shape
        input_size = 1.0
        for dim in _shape_list(scale_shape)[:-1]:
            input_size *= float(dim)
        input_size = max(input_size, 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random_uniform(shape, -max_val, max_val, self.dtype if dtype is None else dtype, seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


def _compute_fans(shape):
    """(fan_in, fan_out): for rank > 2 the receptive field prod(shape[:-2]) multiplies both."""
    shape = _shape_list(shape)
    if len(shape) < 1:
        fan_in = fan_out = 1
    elif len(shape) == 1:
        fan_in = fan_out = shape[0]
    elif len(shape) == 2:
        fan_in, fan_out = shape
    else:
        receptive = 1
        for d in shape[:-2]:
            receptive *= d
        fan_in, fan_out = shape[-2] * receptive, shape[-1] * receptive
    return int(fan_in), int(fan_out)


class VarianceScaling(Initializer):
    """Scale-adapted initializer: ``scale / n`` variance with ``n`` the fan-in,
    fan-out or their average (see the module docstring)."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError("Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). "
                             f"Received: {mode}")
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError("Argument `distribution` should be one of ('normal', uniform', "  # sic, as TF
                             f"'truncated_normal', 'untruncated_normal'). Received: {distribution}")
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else dtype
        scale_shape = shape if partition_info is None else partition_info.full_shape
        fan_in, fan_out = _compute_fans(scale_shape)
        scale = self.scale
        if self.mode == "fan_in":
            scale /= max(1., fan_in)
        elif self.mode == "fan_out":
            scale /= max(1., fan_out)
        else:
            scale /= max(1., (fan_in + fan_out) / 2.)
        if self.distribution in ("normal", "truncated_normal"):
            return truncated_normal(shape, 0.0, math.sqrt(scale) / _TRUNCATED_NORMAL_STDDEV, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution, "seed": self.seed,
                "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Glorot (Xavier) uniform: U(-l, l), l = sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        # TF ignores ``dtype`` here (the default dtype stays float32); so do we.
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Glorot (Xavier) normal: truncated N(0, sqrt(2 / (fan_in + fan_out)) / .8796...)."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        # TF ignores ``dtype`` here (the default dtype stays float32); so do we.
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """An orthogonal matrix (rows or columns orthonormal), times ``gain``; shapes
    of rank > 2 are flattened to (prod(shape[:-1]), shape[-1])."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))
        self.seed = seed

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(self.dtype if dtype is None else dtype)
        shape = _shape_list(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must be at least "
                             f"two-dimensional. Received shape={shape}")
        num_rows = int(np.prod(shape[:-1]))
        num_cols = int(shape[-1])
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = apply_op("Qr", input=a, full_matrices=False)
        d = apply_op("DiagPart", input=r)
        q = apply_op("Mul", x=q, y=apply_op("Sign", x=d), name="mul")
        if num_rows < num_cols:
            q = matrix_transpose(q)
        q = apply_op("Reshape", tensor=q, shape=np.asarray(shape, np.int32))
        return apply_op("Mul", x=np.asarray(self.gain, dtype.np), y=q, name="mul_1")

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D only; a partition gets its slice)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtypes.as_dtype(dtype))

    def __call__(self, shape, dtype=None, partition_info=None):
        full_shape = _shape_list(shape if partition_info is None else partition_info.full_shape)
        if len(full_shape) != 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must be at least "
                             f"two-dimensional. Received shape={shape}")
        dtype = dtypes.as_dtype(self.dtype if dtype is None else dtype)
        eye = _eye(*full_shape, dtype=dtype)  # TF's graph: eye/ones into a MatrixDiagV3, then gain * it
        if partition_info is not None:
            eye = _slice(eye, partition_info.var_offset, _shape_list(shape))
        return self.gain * eye

    def get_config(self):
        return {"gain": self.gain, "dtype": self.dtype.name}


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity


def lecun_normal(seed=None):
    """variance_scaling(1, "fan_in", "truncated_normal")."""
    return VarianceScaling(scale=1., mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    """variance_scaling(1, "fan_in", "uniform")."""
    return VarianceScaling(scale=1., mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed=None):
    """variance_scaling(2, "fan_in", "truncated_normal")."""
    return VarianceScaling(scale=2., mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed=None):
    """variance_scaling(2, "fan_in", "uniform")."""
    return VarianceScaling(scale=2., mode="fan_in", distribution="uniform", seed=seed)
