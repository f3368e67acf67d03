"""``tf.distributions.Bernoulli(logits=None, probs=None)`` over {0, 1}:

    log_prob(k) = -sigmoid_cross_entropy_with_logits(labels=k, logits)
    entropy = -logits (sigmoid(logits) - 1) + softplus(-logits)
    mean = p,   variance = p (1 - p),   mode = [p > 1/2]
    sample = [U[0, 1) < p]
    KL(a || b) = sigmoid(l_a) (sp(-l_b) - sp(-l_a)) + sigmoid(-l_a) (sp(l_b) - sp(l_a)),  sp = softplus
"""
from __future__ import annotations

from ref.types import dtypes
from ref.types.shapes import TensorShape
from ref.framework.graph import name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops, control_flow_ops, math_ops, nn_ops, random_ops
from ref.graph_ops.distributions import distribution, kullback_leibler, util

__all__ = ["Bernoulli"]


class Bernoulli(distribution.Distribution):

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False, allow_nan_stats=True,
                 name="Bernoulli"):
        parameters = dict(locals())
        with name_scope(name) as name:
            self._logits, self._probs = util.get_logits_and_probs(logits=logits, probs=probs,
                                                                  validate_args=validate_args, name=name)
        super().__init__(dtype=dtype, reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._logits, self._probs], name=name)

    @staticmethod
    def _param_shapes(sample_shape):
        return {"logits": convert_to_tensor(sample_shape, dtype=dtypes.int32)}

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs

    def _batch_shape_tensor(self):
        return array_ops.shape(self._logits)

    def _batch_shape(self):
        return self._logits.get_shape()

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        new_shape = array_ops.concat([[n], self.batch_shape_tensor()], 0)
        uniform = random_ops.random_uniform(new_shape, seed=seed, dtype=self.probs.dtype)
        return math_ops.cast(math_ops.less(uniform, self.probs), self.dtype)

    def _log_prob(self, event):
        if self.validate_args:
            event = util.embed_check_integer_casting_closed(event, target_dtype=dtypes.bool)
        event = math_ops.cast(event, self.logits.dtype)
        logits = self.logits
        same = (event.get_shape().is_fully_defined() and logits.get_shape().is_fully_defined()
                and event.get_shape() == logits.get_shape())
        if not same:  # broadcast both to one shape
            logits, event = array_ops.ones_like(event) * logits, array_ops.ones_like(logits) * event
        return -nn_ops.sigmoid_cross_entropy_with_logits(labels=event, logits=logits)

    def _entropy(self):
        return -self.logits * (math_ops.sigmoid(self.logits) - 1) + nn_ops.softplus(-self.logits)

    def _mean(self):
        return control_flow_ops.identity(self.probs)

    def _variance(self):
        return self._mean() * (1. - self.probs)

    def _mode(self):
        return math_ops.cast(self.probs > 0.5, self.dtype)


@kullback_leibler.RegisterKL(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(a, b, name=None):
    with name_scope(name, "kl_bernoulli_bernoulli", values=[a.logits, b.logits]):
        delta_probs0 = nn_ops.softplus(-b.logits) - nn_ops.softplus(-a.logits)
        delta_probs1 = nn_ops.softplus(b.logits) - nn_ops.softplus(a.logits)
        return math_ops.sigmoid(a.logits) * delta_probs0 + math_ops.sigmoid(-a.logits) * delta_probs1
