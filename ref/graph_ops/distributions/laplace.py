"""``tf.distributions.Laplace(loc, scale)``:

    log pdf(x) = -|z| - log(2 scale),   z = (x - loc) / scale
    cdf(x) = 1/2 + sign(z) (1 - exp(-|z|)) / 2,   entropy = log 2 + 1 + log scale
    stddev = sqrt2 scale,   sample = loc - scale sign(u) log1p(-|u|),  u ~ U(-1, 1)
"""
from __future__ import annotations

import math

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops, check_ops, control_flow_ops, math_ops, random_ops
from ref.graph_ops.distributions import distribution, special_math

__all__ = ["Laplace"]


class Laplace(distribution.Distribution):

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        parameters = dict(locals())
        with name_scope(name, values=[loc, scale]) as name:
            with control_dependencies([check_ops.assert_positive(scale)] if validate_args else []):
                self._loc = control_flow_ops.identity(loc, name="loc")
                self._scale = control_flow_ops.identity(scale, name="scale")
                check_ops.assert_same_float_dtype([self._loc, self._scale])
            super().__init__(dtype=self._loc.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                             validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                             graph_parents=[self._loc, self._scale], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return dict(zip(("loc", "scale"), [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * 2))

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _batch_shape_tensor(self):
        return array_ops.broadcast_dynamic_shape(array_ops.shape(self.loc), array_ops.shape(self.scale))

    def _batch_shape(self):
        return array_ops.broadcast_static_shape(self.loc.get_shape(), self.scale.get_shape())

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        np_dtype = self.dtype.as_numpy_dtype
        uniform_samples = random_ops.random_uniform(shape=shape, minval=np.nextafter(np_dtype(-1.), np_dtype(0.)),
                                                    maxval=1., dtype=self.dtype, seed=seed)
        return self.loc - self.scale * math_ops.sign(uniform_samples) * math_ops.log1p(-math_ops.abs(uniform_samples))

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x):
        return math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x):
        return special_math.log_cdf_laplace(self._z(x))

    def _log_survival_function(self, x):
        return special_math.log_cdf_laplace(-self._z(x))

    def _cdf(self, x):
        z = self._z(x)
        return 0.5 + 0.5 * math_ops.sign(z) * (1. - math_ops.exp(-math_ops.abs(z)))

    def _log_unnormalized_prob(self, x):
        return -math_ops.abs(self._z(x))

    def _log_normalization(self):
        return math.log(2.) + math_ops.log(self.scale)

    def _entropy(self):
        scale = self.scale + array_ops.zeros_like(self.loc)
        return math.log(2.) + 1. + math_ops.log(scale)

    def _mean(self):
        return self.loc + array_ops.zeros_like(self.scale)

    def _stddev(self):
        return math.sqrt(2.) * self.scale + array_ops.zeros_like(self.loc)

    def _median(self):
        return self._mean()

    def _mode(self):
        return self._mean()

    def _z(self, x):
        return (x - self.loc) / self.scale
