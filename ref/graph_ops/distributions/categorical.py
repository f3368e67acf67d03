"""``tf.distributions.Categorical(logits=None, probs=None)`` over {0, ..., K-1}:

    log_prob(k) = -sparse_softmax_cross_entropy_with_logits(labels=k, logits)
    cdf(k) = sum_{j < k} p_j,   entropy = -sum_j p_j log_softmax(logits)_j
    mode = argmax logits,   sample = multinomial(logits, n) transposed to [n, batch]
    KL(a || b) = sum_j softmax(l_a)_j (log_softmax(l_a)_j - log_softmax(l_b)_j)
"""
from __future__ import annotations

from ref.types import dtypes
from ref.types.shapes import TensorShape, dimension_value
from ref.framework.graph import name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.graph_ops import array_ops, control_flow_ops, math_ops, nn_ops, random_ops
from ref.graph_ops.distributions import distribution, kullback_leibler, util

__all__ = ["Categorical"]


def _broadcast_cat_event_and_params(event, params, base_dtype):
    """``event`` (cast to int32 when floating) and ``params`` broadcast against each other."""
    if event.dtype.is_integer:
        pass
    elif event.dtype.is_floating:
        event = math_ops.cast(event, dtype=dtypes.int32)
    else:
        raise TypeError(f"`value` should have integer `dtype` or `self.dtype` ({base_dtype})")
    shape_known_statically = (params.shape.ndims is not None and params.shape[:-1].is_fully_defined()
                              and event.shape.is_fully_defined())
    if not shape_known_statically or params.shape[:-1] != event.shape:
        params *= array_ops.ones_like(event[..., array_ops.newaxis], dtype=params.dtype)
        params_shape = array_ops.shape(params)[:-1]
        event *= array_ops.ones(params_shape, dtype=event.dtype)
        if params.shape.ndims is not None:
            event.set_shape(TensorShape(params.shape[:-1]))
    return event, params


class Categorical(distribution.Distribution):

    def __init__(self, logits=None, probs=None, dtype=dtypes.int32, validate_args=False, allow_nan_stats=True,
                 name="Categorical"):
        parameters = dict(locals())
        with name_scope(name, values=[logits, probs]) as name:
            self._logits, self._probs = util.get_logits_and_probs(
                logits=logits, probs=probs, validate_args=validate_args, multidimensional=True, name=name)
            if validate_args:
                self._logits = util.embed_check_categorical_event_shape(self._logits)
            logits_shape_static = self._logits.get_shape().with_rank_at_least(1)
            if logits_shape_static.ndims is not None:
                self._batch_rank = convert_to_tensor(logits_shape_static.ndims - 1, dtype=dtypes.int32,
                                                     name="batch_rank")
            else:
                with name_scope(name="batch_rank"):
                    self._batch_rank = array_ops.rank(self._logits) - 1
            logits_shape = array_ops.shape(self._logits, name="logits_shape")
            if dimension_value(logits_shape_static[-1]) is not None:
                self._event_size = convert_to_tensor(logits_shape_static.dims[-1].value, dtype=dtypes.int32,
                                                     name="event_size")
            else:
                with name_scope(name="event_size"):
                    self._event_size = logits_shape[self._batch_rank]
            if logits_shape_static[:-1].is_fully_defined():
                self._batch_shape_val = constant(logits_shape_static[:-1].as_list(), dtype=dtypes.int32,
                                                 name="batch_shape")
            else:
                with name_scope(name="batch_shape"):
                    self._batch_shape_val = logits_shape[:-1]
        super().__init__(dtype=dtype, reparameterization_type=distribution.NOT_REPARAMETERIZED,
                         validate_args=validate_args, allow_nan_stats=allow_nan_stats, parameters=parameters,
                         graph_parents=[self._logits, self._probs], name=name)

    @property
    def event_size(self):
        return self._event_size

    @property
    def logits(self):
        return self._logits

    @property
    def probs(self):
        return self._probs

    def _batch_shape_tensor(self):
        return control_flow_ops.identity(self._batch_shape_val)

    def _batch_shape(self):
        return self.logits.get_shape()[:-1]

    def _event_shape_tensor(self):
        return constant([], dtype=dtypes.int32)

    def _event_shape(self):
        return TensorShape([])

    def _sample_n(self, n, seed=None):
        if self.logits.get_shape().ndims == 2:
            logits_2d = self.logits
        else:
            logits_2d = array_ops.reshape(self.logits, [-1, self.event_size])
        sample_dtype = dtypes.int64 if self.dtype.size > 4 else dtypes.int32
        draws = random_ops.multinomial(logits_2d, n, seed=seed, output_dtype=sample_dtype)
        draws = array_ops.reshape(array_ops.transpose(draws), array_ops.concat([[n], self.batch_shape_tensor()], 0))
        return math_ops.cast(draws, self.dtype)

    def _cdf(self, k):
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = util.embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, probs = _broadcast_cat_event_and_params(k, self.probs, base_dtype=self.dtype.base_dtype)
        batch_flattened_probs = array_ops.reshape(probs, (-1, self._event_size))
        batch_flattened_k = array_ops.reshape(k, [-1])
        to_sum_over = array_ops.where(array_ops.sequence_mask(batch_flattened_k, self._event_size),
                                      batch_flattened_probs, array_ops.zeros_like(batch_flattened_probs))
        batch_flattened_cdf = math_ops.reduce_sum(to_sum_over, axis=-1)
        return array_ops.reshape(batch_flattened_cdf, array_ops.shape(k))

    def _log_prob(self, k):
        k = convert_to_tensor(k, name="k")
        if self.validate_args:
            k = util.embed_check_integer_casting_closed(k, target_dtype=dtypes.int32)
        k, logits = _broadcast_cat_event_and_params(k, self.logits, base_dtype=self.dtype.base_dtype)
        return -nn_ops.sparse_softmax_cross_entropy_with_logits(labels=k, logits=logits)

    def _entropy(self):
        return -math_ops.reduce_sum(nn_ops.log_softmax(self.logits) * self.probs, axis=-1)

    def _mode(self):
        ret = math_ops.cast(math_ops.argmax(self.logits, axis=self._batch_rank), self.dtype)
        ret.set_shape(self.batch_shape)
        return ret


@kullback_leibler.RegisterKL(Categorical, Categorical)
def _kl_categorical_categorical(a, b, name=None):
    with name_scope(name, "kl_categorical_categorical", values=[a.logits, b.logits]):
        delta_log_probs1 = nn_ops.log_softmax(a.logits) - nn_ops.log_softmax(b.logits)
        return math_ops.reduce_sum(nn_ops.softmax(a.logits) * delta_log_probs1, axis=-1)
