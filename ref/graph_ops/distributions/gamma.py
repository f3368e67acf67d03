"""``tf.distributions.Gamma(concentration, rate)`` and ``Exponential(rate)``
(a Gamma of concentration 1):

    log pdf(x) = (a - 1) log x - b x - (lgamma(a) - a log b)
    entropy = a - log b + lgamma(a) + (1 - a) digamma(a)
    mean = a / b,   variance = a / b^2,   mode = (a - 1) / b for a > 1 (else NaN)
    sample: random_gamma(alpha=a, beta=b);   Exponential: -log U(tiny, 1) / b
    KL(g0 || g1) = (a0 - a1) digamma(a0) + lgamma(a1) - lgamma(a0)
                   + a1 log b0 - a1 log b1 + a0 (b1 / b0 - 1)
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops, check_ops, control_flow_ops, math_ops, math_special, math_trig, random_ops
from ref.graph_ops.distributions import distribution, kullback_leibler

__all__ = ["Gamma", "Exponential"]


class Gamma(distribution.Distribution):

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True, name="Gamma"):
        parameters = dict(locals())
        with name_scope(name, values=[concentration, rate]) as name:
            checks = [check_ops.assert_positive(concentration), check_ops.assert_positive(rate)] if validate_args else []
            with control_dependencies(checks):
                self._concentration = control_flow_ops.identity(concentration, name="concentration")
                self._rate = control_flow_ops.identity(rate, name="rate")
                check_ops.assert_same_float_dtype([self._concentration, self._rate])
        super().__init__(dtype=self._concentration.dtype, validate_args=validate_args,
                         allow_nan_stats=allow_nan_stats, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         parameters=parameters, graph_parents=[self._concentration, self._rate], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return dict(zip(("concentration", "rate"), [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * 2))

    @property
    def concentration(self):
        return self._concentration

    @property
    def rate(self):
        return self._rate

    def _batch_shape_tensor(self):
        return array_ops.broadcast_dynamic_shape(array_ops.shape(self.concentration), array_ops.shape(self.rate))

    def _batch_shape(self):
        return array_ops.broadcast_static_shape(self.concentration.get_shape(), self.rate.get_shape())

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        return random_ops.random_gamma(shape=[n], alpha=self.concentration, beta=self.rate, dtype=self.dtype,
                                       seed=seed)

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _cdf(self, x):
        x = self._maybe_assert_valid_sample(x)
        return math_special.igamma(self.concentration, self.rate * x)  # P(a, b x)

    def _log_unnormalized_prob(self, x):
        x = self._maybe_assert_valid_sample(x)
        return math_trig.xlogy(self.concentration - 1., x) - self.rate * x

    def _log_normalization(self):
        return math_special.lgamma(self.concentration) - self.concentration * math_ops.log(self.rate)

    def _entropy(self):
        return (self.concentration - math_ops.log(self.rate) + math_special.lgamma(self.concentration)
                + (1. - self.concentration) * math_special.digamma(self.concentration))

    def _mean(self):
        return self.concentration / self.rate

    def _variance(self):
        return self.concentration / math_ops.square(self.rate)

    def _stddev(self):
        return math_ops.sqrt(self.concentration) / self.rate

    def _mode(self):
        mode = (self.concentration - 1.) / self.rate
        if self.allow_nan_stats:
            nan = array_ops.fill(self.batch_shape_tensor(), np.array(np.nan, dtype=self.dtype.as_numpy_dtype()),
                                 name="nan")
            return array_ops.where_v2(self.concentration > 1., mode, nan)
        return control_flow_ops.with_dependencies([check_ops.assert_less(
            array_ops.ones([], self.dtype), self.concentration,
            message="mode not defined when any concentration <= 1")], mode)

    def _maybe_assert_valid_sample(self, x):
        check_ops.assert_same_float_dtype(tensors=[x], dtype=self.dtype)
        if not self.validate_args:
            return x
        return control_flow_ops.with_dependencies([check_ops.assert_positive(x)], x)


@kullback_leibler.RegisterKL(Gamma, Gamma)
def _kl_gamma_gamma(g0, g1, name=None):
    with name_scope(name, "kl_gamma_gamma", values=[g0.concentration, g0.rate, g1.concentration, g1.rate]):
        return ((g0.concentration - g1.concentration) * math_special.digamma(g0.concentration)
                + math_special.lgamma(g1.concentration) - math_special.lgamma(g0.concentration)
                + g1.concentration * math_ops.log(g0.rate) - g1.concentration * math_ops.log(g1.rate)
                + g0.concentration * (g1.rate / g0.rate - 1.))


class Exponential(Gamma):

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        parameters = dict(locals())
        with name_scope(name, values=[rate]) as name:
            self._rate = convert_to_tensor(rate, name="rate")
        super().__init__(concentration=array_ops.ones([], dtype=self._rate.dtype), rate=self._rate,
                         allow_nan_stats=allow_nan_stats, validate_args=validate_args, name=name)
        self._parameters = parameters
        self._graph_parents += [self._rate]

    @staticmethod
    def _param_shapes(sample_shape):
        return {"rate": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    @property
    def rate(self):
        return self._rate

    def _log_survival_function(self, value):
        return self._log_prob(value) - math_ops.log(self._rate)

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], array_ops.shape(self._rate)], 0)
        sampled = random_ops.random_uniform(shape, minval=np.finfo(self.dtype.as_numpy_dtype).tiny, maxval=1.,
                                            seed=seed, dtype=self.dtype)
        return -math_ops.log(sampled) / self._rate
