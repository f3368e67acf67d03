"""``tf.distributions.Uniform(low, high)``:

    pdf(x) = 1 / (high - low) on [low, high), 0 elsewhere (NaN stays NaN)
    cdf(x) = clip((x - low) / (high - low), 0, 1),   entropy = log(high - low)
    mean = (low + high) / 2,   variance = (high - low)^2 / 12
    sample = low + (high - low) * U[0, 1)   (reparameterized)
"""
from __future__ import annotations

import math

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops, check_ops, control_flow_ops, math_ops, random_ops
from ref.graph_ops.distributions import distribution

__all__ = ["Uniform"]


class Uniform(distribution.Distribution):

    def __init__(self, low=0., high=1., validate_args=False, allow_nan_stats=True, name="Uniform"):
        parameters = dict(locals())
        with name_scope(name, values=[low, high]) as name:
            checks = [check_ops.assert_less(low, high, message="uniform not defined when low >= high.")] \
                if validate_args else []
            with control_dependencies(checks):
                self._low = control_flow_ops.identity(low, name="low")
                self._high = control_flow_ops.identity(high, name="high")
                check_ops.assert_same_float_dtype([self._low, self._high])
        super().__init__(dtype=self._low.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._low, self._high], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return dict(zip(("low", "high"), [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * 2))

    @property
    def low(self):
        return self._low

    @property
    def high(self):
        return self._high

    def range(self, name="range"):
        with self._name_scope(name):
            return self.high - self.low

    def _batch_shape_tensor(self):
        return array_ops.broadcast_dynamic_shape(array_ops.shape(self.low), array_ops.shape(self.high))

    def _batch_shape(self):
        return array_ops.broadcast_static_shape(self.low.get_shape(), self.high.get_shape())

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        samples = random_ops.random_uniform(shape=shape, dtype=self.dtype, seed=seed)
        return self.low + self.range() * samples

    def _prob(self, x):
        broadcasted_x = x * array_ops.ones(self.batch_shape_tensor(), dtype=x.dtype)
        return array_ops.where_v2(  # argument order is node order: is_nan first, as TF
            math_ops.is_nan(broadcasted_x), broadcasted_x,
            array_ops.where_v2(math_ops.logical_or(broadcasted_x < self.low, broadcasted_x >= self.high),
                               array_ops.zeros_like(broadcasted_x), array_ops.ones_like(broadcasted_x) / self.range()))

    def _cdf(self, x):
        broadcast_shape = array_ops.broadcast_dynamic_shape(array_ops.shape(x), self.batch_shape_tensor())
        zeros = array_ops.zeros(broadcast_shape, dtype=self.dtype)
        ones = array_ops.ones(broadcast_shape, dtype=self.dtype)
        broadcasted_x = x * ones
        result_if_not_big = array_ops.where_v2(x < self.low, zeros, (broadcasted_x - self.low) / self.range())
        return array_ops.where_v2(x >= self.high, ones, result_if_not_big)

    def _entropy(self):
        return math_ops.log(self.range())

    def _mean(self):
        return (self.low + self.high) / 2.

    def _variance(self):
        return math_ops.square(self.range()) / 12.

    def _stddev(self):
        return self.range() / math.sqrt(12.)
