"""``tf.distributions.Beta(concentration1, concentration0)`` (a = concentration1,
b = concentration0, t = a + b):

    log pdf(x) = (a - 1) log x + (b - 1) log1p(-x) - (lgamma(a) + lgamma(b) - lgamma(t))
    entropy = log B(a, b) - (a - 1) digamma(a) - (b - 1) digamma(b) + (t - 2) digamma(t)
    mean = a / t,   variance = mean (1 - mean) / (1 + t),   mode = (a - 1) / (t - 2)
    sample = G1 / (G1 + G2),  G1 ~ Gamma(a), G2 ~ Gamma(b) (seed salted with "beta")
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.framework.graph import name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops, check_ops, control_flow_ops, math_ops, math_special, math_trig, random_ops
from ref.graph_ops.distributions import distribution, kullback_leibler, util

__all__ = ["Beta"]


class Beta(distribution.Distribution):

    def __init__(self, concentration1=None, concentration0=None, validate_args=False, allow_nan_stats=True,
                 name="Beta"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration1, concentration0]) as name:
            self._concentration1 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration1, name="concentration1"), validate_args)
            self._concentration0 = self._maybe_assert_valid_concentration(
                convert_to_tensor(concentration0, name="concentration0"), validate_args)
            check_ops.assert_same_float_dtype([self._concentration1, self._concentration0])
            self._total_concentration = self._concentration1 + self._concentration0
        super().__init__(dtype=self._total_concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters,
                         graph_parents=[self._concentration1, self._concentration0, self._total_concentration],
                         name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return dict(zip(["concentration1", "concentration0"], [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * 2))

    @property
    def concentration1(self):
        return self._concentration1

    @property
    def concentration0(self):
        return self._concentration0

    @property
    def total_concentration(self):
        return self._total_concentration

    def _batch_shape_tensor(self):
        return array_ops.shape(self.total_concentration)

    def _batch_shape(self):
        return self.total_concentration.get_shape()

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        expanded_concentration1 = array_ops.ones_like(self.total_concentration, dtype=self.dtype) * self.concentration1
        expanded_concentration0 = array_ops.ones_like(self.total_concentration, dtype=self.dtype) * self.concentration0
        gamma1_sample = random_ops.random_gamma(shape=[n], alpha=expanded_concentration1, dtype=self.dtype, seed=seed)
        gamma2_sample = random_ops.random_gamma(shape=[n], alpha=expanded_concentration0, dtype=self.dtype,
                                                seed=util.gen_new_seed(seed, "beta"))
        return gamma1_sample / (gamma1_sample + gamma2_sample)

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _prob(self, x):
        return math_ops.exp(self._log_prob(x))

    def _log_cdf(self, x):
        return math_ops.log(self._cdf(x))

    def _cdf(self, x):
        return math_special.betainc(self.concentration1, self.concentration0, x)  # I_x(a, b)

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return math_trig.xlogy(self.concentration1 - 1., x) + (self.concentration0 - 1.) * math_ops.log1p(-x)

    def _log_normalization(self):
        return (math_special.lgamma(self.concentration1) + math_special.lgamma(self.concentration0)
                - math_special.lgamma(self.total_concentration))

    def _entropy(self):
        return (self._log_normalization()
                - (self.concentration1 - 1.) * math_special.digamma(self.concentration1)
                - (self.concentration0 - 1.) * math_special.digamma(self.concentration0)
                + (self.total_concentration - 2.) * math_special.digamma(self.total_concentration))

    def _mean(self):
        return self._concentration1 / self._total_concentration

    def _variance(self):
        return self._mean() * (1. - self._mean()) / (1. + self.total_concentration)

    def _mode(self):
        mode = (self.concentration1 - 1.) / (self.total_concentration - 2.)
        if self.allow_nan_stats:
            nan = array_ops.fill(self.batch_shape_tensor(), np.array(np.nan, dtype=self.dtype.as_numpy_dtype()),
                                 name="nan")
            is_defined = math_ops.logical_and(self.concentration1 > 1., self.concentration0 > 1.)
            return array_ops.where_v2(is_defined, mode, nan)
        return control_flow_ops.with_dependencies([
            check_ops.assert_less(array_ops.ones([], dtype=self.dtype), self.concentration1,
                                  message="Mode undefined for concentration1 <= 1."),
            check_ops.assert_less(array_ops.ones([], dtype=self.dtype), self.concentration0,
                                  message="Mode undefined for concentration0 <= 1.")], mode)

    def _maybe_assert_valid_concentration(self, concentration, validate_args):
        if not validate_args:
            return concentration
        return control_flow_ops.with_dependencies([check_ops.assert_positive(
            concentration, message="Concentration parameter must be positive.")], concentration)

    def _maybe_assert_valid_sample(self, x):
        if not self.validate_args:
            return x
        return control_flow_ops.with_dependencies([
            check_ops.assert_positive(x, message="sample must be positive"),
            check_ops.assert_less(x, array_ops.ones([], self.dtype), message="sample must be less than `1`.")], x)


@kullback_leibler.RegisterKL(Beta, Beta)
def _kl_beta_beta(d1, d2, name=None):
    def delta(attr):
        return getattr(d2, attr) - getattr(d1, attr)

    values = [d1.concentration1, d1.concentration0, d1.total_concentration,
              d2.concentration1, d2.concentration0, d2.total_concentration]
    with name_scope(name, "kl_beta_beta", values=values):
        log_normalization = d2._log_normalization() - d1._log_normalization()
        return (log_normalization - math_special.digamma(d1.concentration1) * delta("concentration1")
                - math_special.digamma(d1.concentration0) * delta("concentration0")
                + math_special.digamma(d1.total_concentration) * delta("total_concentration"))
