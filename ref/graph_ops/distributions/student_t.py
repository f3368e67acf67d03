"""``tf.distributions.StudentT(df, loc, scale)`` (nu = df, y = (x - loc) / scale):

    log pdf(x) = -(nu + 1)/2 log1p(y^2 / nu)
                 - (log|scale| + log(nu)/2 + log(pi)/2 + lgamma(nu/2) - lgamma((nu + 1)/2))
    entropy = log|scale| + log(nu)/2 + lbeta(nu/2, 1/2)
              + (nu + 1)/2 (digamma((nu + 1)/2) - digamma(nu/2))
    mean = loc (nu > 1, else NaN),   variance = scale^2 nu / (nu - 2) (nu > 2; inf for 1 < nu <= 2)
    sample = loc + scale N / sqrt(G / nu),  G ~ Gamma(nu/2, 1/2) (seed salted "student_t")
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.framework.graph import control_dependencies, name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops, check_ops, control_flow_ops, math_ops, math_special, random_ops
from ref.graph_ops.distributions import distribution, util

__all__ = ["StudentT"]


class StudentT(distribution.Distribution):

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True, name="StudentT"):
        parameters = dict(locals())
        with name_scope(name, values=[df, loc, scale]) as name:
            with control_dependencies([check_ops.assert_positive(df)] if validate_args else []):
                self._df = control_flow_ops.identity(df, name="df")
                self._loc = control_flow_ops.identity(loc, name="loc")
                self._scale = control_flow_ops.identity(scale, name="scale")
                check_ops.assert_same_float_dtype((self._df, self._loc, self._scale))
        super().__init__(dtype=self._scale.dtype, reparameterization_type=distribution.FULLY_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._df, self._loc, self._scale], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return dict(zip(("df", "loc", "scale"), [convert_to_tensor(sample_shape, dtype=dtypes.int32)] * 3))

    @property
    def df(self):
        return self._df

    @property
    def loc(self):
        return self._loc

    @property
    def scale(self):
        return self._scale

    def _batch_shape_tensor(self):
        return array_ops.broadcast_dynamic_shape(
            array_ops.shape(self.df), array_ops.broadcast_dynamic_shape(array_ops.shape(self.loc),
                                                                        array_ops.shape(self.scale)))

    def _batch_shape(self):
        return array_ops.broadcast_static_shape(
            array_ops.broadcast_static_shape(self.df.get_shape(), self.loc.get_shape()), self.scale.get_shape())

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        normal_sample = random_ops.random_normal(shape, dtype=self.dtype, seed=seed)
        df = self.df * array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)
        gamma_sample = random_ops.random_gamma([n], 0.5 * df, beta=0.5, dtype=self.dtype,
                                               seed=util.gen_new_seed(seed, salt="student_t"))
        samples = normal_sample * math_ops.rsqrt(gamma_sample / df)
        return samples * self.scale + self.loc

    def _log_prob(self, x):
        return self._log_unnormalized_prob(x) - self._log_normalization()

    def _log_unnormalized_prob(self, x):
        y = (x - self.loc) / self.scale
        return -0.5 * (self.df + 1.) * math_ops.log1p(y ** 2. / self.df)

    def _log_normalization(self):
        return (math_ops.log(math_ops.abs(self.scale)) + 0.5 * math_ops.log(self.df) + 0.5 * np.log(np.pi)
                + math_special.lgamma(0.5 * self.df) - math_special.lgamma(0.5 * (self.df + 1.)))

    def _cdf(self, x):
        # 1 - I_{nu/(y^2+nu)}(nu/2, 1/2) / 2 for y >= 0, the half for y < 0
        y = (x - self.loc) / math_ops.abs(self.scale)
        x_t = self.df / (y ** 2. + self.df)
        neg_cdf = 0.5 * math_special.betainc(0.5 * self.df, 0.5, x_t)
        return array_ops.where_v2(math_ops.less(y, 0.), neg_cdf, 1. - neg_cdf)

    def _entropy(self):
        v = array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)[..., array_ops.newaxis]
        u = v * self.df[..., array_ops.newaxis]
        beta_arg = array_ops.concat([u, v], -1) / 2.
        return (math_ops.log(math_ops.abs(self.scale)) + 0.5 * math_ops.log(self.df)
                + math_special.lbeta(beta_arg)
                + 0.5 * (self.df + 1.) * (math_special.digamma(0.5 * (self.df + 1.))
                                          - math_special.digamma(0.5 * self.df)))

    def _mean(self):
        mean = self.loc * array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)
        if self.allow_nan_stats:
            nan = np.array(np.nan, dtype=self.dtype.as_numpy_dtype())
            return array_ops.where_v2(
                math_ops.greater(self.df, array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)), mean,
                array_ops.fill(self.batch_shape_tensor(), nan, name="nan"))
        return control_flow_ops.with_dependencies([check_ops.assert_less(
            array_ops.ones([], dtype=self.dtype), self.df, message="mean not defined for components of df <= 1")], mean)

    def _variance(self):
        denom = array_ops.where_v2(math_ops.greater(self.df, 2.), self.df - 2., array_ops.ones_like(self.df))
        var = array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype) * math_ops.square(self.scale) * self.df / denom
        inf = np.array(np.inf, dtype=self.dtype.as_numpy_dtype())
        result_where_defined = array_ops.where_v2(self.df > array_ops.fill(self.batch_shape_tensor(), 2.), var,
                                                  array_ops.fill(self.batch_shape_tensor(), inf, name="inf"))
        if self.allow_nan_stats:
            nan = np.array(np.nan, dtype=self.dtype.as_numpy_dtype())
            return array_ops.where_v2(
                math_ops.greater(self.df, array_ops.ones(self.batch_shape_tensor(), dtype=self.dtype)),
                result_where_defined, array_ops.fill(self.batch_shape_tensor(), nan, name="nan"))
        return control_flow_ops.with_dependencies([check_ops.assert_less(
            array_ops.ones([], dtype=self.dtype), self.df,
            message="variance not defined for components of df <= 1")], result_where_defined)

    def _mode(self):
        return control_flow_ops.identity(self.loc)
