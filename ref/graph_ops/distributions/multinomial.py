"""``tf.distributions.Multinomial(total_count, logits=None, probs=None)``: counts
of ``total_count`` draws over K classes:

    log pmf(c) = sum c log_softmax(logits) + log_combinations(n, c)
    mean = n p,   variance = n p (1 - p),   covariance = -n p p^T off the diagonal
    sample: per batch member, multinomial(logits, n * total_count) one-hot summed
            over each group of total_count draws (a map_fn, as TF)
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.graph_ops import array_ops, check_ops, control_flow_ops, functional_ops, linalg_ops, math_ops, nn_ops
from ref.graph_ops import random_ops
from ref.graph_ops.distributions import distribution, util

__all__ = ["Multinomial"]


class Multinomial(distribution.Distribution):

    def __init__(self, total_count, logits=None, probs=None, validate_args=False, allow_nan_stats=True,
                 name="Multinomial"):
        parameters = dict(locals())
        with name_scope(name, values=[total_count, logits, probs]) as name:
            self._total_count = convert_to_tensor(total_count, name="total_count")
            if validate_args:
                self._total_count = util.embed_check_nonnegative_integer_form(self._total_count)
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits, probs=probs, multidimensional=True, validate_args=validate_args, name=name)
            self._mean_val = self._total_count[..., array_ops.newaxis] * self._probs
        super().__init__(dtype=self._probs.dtype, reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._total_count, self._logits, self._probs], name=name)

    @property
    def total_count(self):
        return self._total_count

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs

    def _batch_shape_tensor(self):
        return array_ops.shape(self._mean_val)[:-1]

    def _batch_shape(self):
        return self._mean_val.get_shape().with_rank_at_least(1)[:-1]

    def _event_shape_tensor(self):
        return array_ops.shape(self._mean_val)[-1:]

    def _event_shape(self):
        return self._mean_val.get_shape().with_rank_at_least(1)[-1:]

    def _sample_n(self, n, seed=None):
        n_draws = math_ops.cast(self.total_count, dtype=dtypes.int32)
        k = self.event_shape_tensor()[0]
        n_draws = array_ops.ones_like(self.logits[..., 0], dtype=n_draws.dtype) * n_draws
        logits = array_ops.ones_like(n_draws[..., array_ops.newaxis], dtype=self.logits.dtype) * self.logits
        flat_logits = array_ops.reshape(logits, [-1, k])
        flat_ndraws = n * array_ops.reshape(n_draws, [-1])

        def _sample_single(args):
            logits, n_draw = args[0], args[1]
            x = random_ops.multinomial(logits[array_ops.newaxis, ...], n_draw, seed)
            x = array_ops.reshape(x, shape=[n, -1])
            return math_ops.reduce_sum(array_ops.one_hot(x, depth=k), axis=-2)

        x = functional_ops.map_fn(_sample_single, [flat_logits, flat_ndraws], dtype=self.dtype)
        x = array_ops.transpose(x, perm=[1, 0, 2])
        final_shape = array_ops.concat([[n], self.batch_shape_tensor(), [k]], 0)
        return array_ops.reshape(x, final_shape)

    def _log_prob(self, counts):
        return self._log_unnormalized_prob(counts) - self._log_normalization(counts)

    def _log_unnormalized_prob(self, counts):
        counts = self._maybe_assert_valid_sample(counts)
        return math_ops.reduce_sum(counts * nn_ops.log_softmax(self.logits), -1)

    def _log_normalization(self, counts):
        counts = self._maybe_assert_valid_sample(counts)
        return -util.log_combinations(self.total_count, counts)

    def _mean(self):
        return control_flow_ops.identity(self._mean_val)

    def _covariance(self):
        p = self.probs * array_ops.ones_like(self.total_count)[..., array_ops.newaxis]
        return linalg_ops.matrix_set_diag(
            -math_ops.matmul(self._mean_val[..., array_ops.newaxis], p[..., array_ops.newaxis, :]), self._variance())

    def _variance(self):
        p = self.probs * array_ops.ones_like(self.total_count)[..., array_ops.newaxis]
        return self._mean_val - self._mean_val * p

    def _maybe_assert_valid_sample(self, counts):
        if not self.validate_args:
            return counts
        counts = util.embed_check_nonnegative_integer_form(counts)
        return control_flow_ops.with_dependencies([check_ops.assert_equal(
            self.total_count, math_ops.reduce_sum(counts, -1), message="counts must sum to `self.total_count`")],
            counts)
