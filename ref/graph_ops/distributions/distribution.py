"""``tf.distributions.Distribution``: the base class of TF 1.x's probability
distributions (``tensorflow/python/ops/distributions/distribution.py``).

Every public method opens ``<distribution name>/<method name>/`` and calls the
subclass's ``_method``; ``sample(sample_shape)`` draws ``n = prod(sample_shape)``
batches with ``_sample_n`` and reshapes them to
``sample_shape + batch_shape + event_shape``. The fallbacks are TF's:
``log_prob = log(prob)`` / ``prob = exp(log_prob)`` (the same for the cdf),
``log_survival = log1p(-cdf)``, ``survival = 1 - cdf``, ``variance = stddev^2``,
``stddev = sqrt(variance)``.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ref.types import dtypes
from ref.types.shapes import TensorShape, as_shape
from ref.framework.graph import Tensor, name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.distributions import kullback_leibler, util

__all__ = ["ReparameterizationType", "FULLY_REPARAMETERIZED", "NOT_REPARAMETERIZED", "Distribution"]


class ReparameterizationType:
    """Whether samples can be differentiated with respect to the parameters
    (``FULLY_REPARAMETERIZED``) or not; compared by identity, as in TF."""

    def __init__(self, rep_type):
        self._rep_type = rep_type

    def __repr__(self):
        return f"<Reparameterization Type: {self._rep_type}>"

    def __eq__(self, other):
        return self is other

    __hash__ = object.__hash__


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


def _convert_to_tensor(value, name=None, preferred_dtype=None):
    return convert_to_tensor(value, name=name, preferred_dtype=preferred_dtype)


class Distribution:
    """A batch of distributions of one family; subclasses implement ``_sample_n``,
    ``_log_prob``/``_prob``, ``_cdf``, ``_mean``, ... and the shape methods."""

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats, parameters=None,
                 graph_parents=None, name=None):
        graph_parents = [] if graph_parents is None else graph_parents
        for i, t in enumerate(graph_parents):
            if t is None or not isinstance(t, Tensor):
                raise ValueError(f"Graph parent item {i} is not a Tensor; {t}.")
        if not name or name[-1] != "/":  # a name, not yet a scope: make it unique
            with name_scope(name or type(self).__name__) as name:
                pass
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._allow_nan_stats = allow_nan_stats
        self._validate_args = validate_args
        self._parameters = parameters or {}
        self._graph_parents = graph_parents
        self._name = name

    # -- the constructor's arguments -----------------------------------------------

    @property
    def _parameters(self):
        return self._parameter_dict

    @_parameters.setter
    def _parameters(self, value):
        value = dict(value)
        value.pop("self", None)
        value.pop("__class__", None)
        self._parameter_dict = value

    @property
    def parameters(self):
        return {k: v for k, v in self._parameters.items() if not k.startswith("__") and k != "self"}

    @classmethod
    def param_shapes(cls, sample_shape, name="DistributionParamShapes"):
        with name_scope(name, values=[sample_shape]):
            return cls._param_shapes(sample_shape)

    @classmethod
    def param_static_shapes(cls, sample_shape):
        if isinstance(sample_shape, TensorShape):
            if not sample_shape.is_fully_defined():
                raise ValueError("TensorShape sample_shape must be fully defined")
            sample_shape = sample_shape.as_list()
        static = {}
        for name, shape in cls.param_shapes(sample_shape).items():
            value = constant_value(shape)
            if value is None:
                raise ValueError("sample_shape must be a fully-defined TensorShape or list/tuple")
            static[name] = TensorShape(value)
        return static

    @staticmethod
    def _param_shapes(sample_shape):
        raise NotImplementedError("_param_shapes not implemented")

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def reparameterization_type(self):
        return self._reparameterization_type

    @property
    def allow_nan_stats(self):
        return self._allow_nan_stats

    @property
    def validate_args(self):
        return self._validate_args

    def copy(self, **override_parameters_kwargs):
        return type(self)(**dict(self.parameters, **override_parameters_kwargs))

    # -- shapes ---------------------------------------------------------------------

    def _batch_shape_tensor(self):
        raise NotImplementedError(f"batch_shape_tensor is not implemented: {type(self).__name__}")

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtype=dtypes.int32, name="batch_shape")
            return self._batch_shape_tensor()

    def _batch_shape(self):
        return TensorShape(None)

    @property
    def batch_shape(self):
        return as_shape(self._batch_shape())

    def _event_shape_tensor(self):
        raise NotImplementedError(f"event_shape_tensor is not implemented: {type(self).__name__}")

    def event_shape_tensor(self, name="event_shape_tensor"):
        with self._name_scope(name):
            if self.event_shape.is_fully_defined():
                return convert_to_tensor(self.event_shape.as_list(), dtype=dtypes.int32, name="event_shape")
            return self._event_shape_tensor()

    def _event_shape(self):
        return TensorShape(None)

    @property
    def event_shape(self):
        return as_shape(self._event_shape())

    def is_scalar_event(self, name="is_scalar_event"):
        with self._name_scope(name):
            return convert_to_tensor(self._is_scalar_helper(self.event_shape, self.event_shape_tensor),
                                     name="is_scalar_event")

    def is_scalar_batch(self, name="is_scalar_batch"):
        with self._name_scope(name):
            return convert_to_tensor(self._is_scalar_helper(self.batch_shape, self.batch_shape_tensor),
                                     name="is_scalar_batch")

    # -- sampling -------------------------------------------------------------------

    def _sample_n(self, n, seed=None):
        raise NotImplementedError(f"sample_n is not implemented: {type(self).__name__}")

    def _call_sample_n(self, sample_shape, seed, name, **kwargs):
        with self._name_scope(name, values=[sample_shape]):
            sample_shape = convert_to_tensor(sample_shape, dtype=dtypes.int32, name="sample_shape")
            sample_shape, n = self._expand_sample_shape_to_vector(sample_shape, "sample_shape")
            samples = self._sample_n(n, seed, **kwargs)
            batch_event_shape = array_ops.shape(samples)[1:]
            final_shape = array_ops.concat([sample_shape, batch_event_shape], 0)
            samples = array_ops.reshape(samples, final_shape)
            return self._set_sample_static_shape(samples, sample_shape)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        return self._call_sample_n(sample_shape, seed, name)

    # -- densities and distribution functions (each with TF's fallback) -------------

    def _evaluate(self, name, value, primary, fallback):
        with self._name_scope(name, values=[value]):
            value = _convert_to_tensor(value, name="value", preferred_dtype=self.dtype)
            try:
                return getattr(self, primary)(value)
            except NotImplementedError as original:
                try:
                    return fallback(value)
                except NotImplementedError:
                    raise original from None

    def _log_prob(self, value):
        raise NotImplementedError(f"log_prob is not implemented: {type(self).__name__}")

    def log_prob(self, value, name="log_prob"):
        return self._evaluate(name, value, "_log_prob", lambda v: math_ops.log(self._prob(v)))

    def _prob(self, value):
        raise NotImplementedError(f"prob is not implemented: {type(self).__name__}")

    def prob(self, value, name="prob"):
        return self._evaluate(name, value, "_prob", lambda v: math_ops.exp(self._log_prob(v)))

    def _log_cdf(self, value):
        raise NotImplementedError(f"log_cdf is not implemented: {type(self).__name__}")

    def log_cdf(self, value, name="log_cdf"):
        return self._evaluate(name, value, "_log_cdf", lambda v: math_ops.log(self._cdf(v)))

    def _cdf(self, value):
        raise NotImplementedError(f"cdf is not implemented: {type(self).__name__}")

    def cdf(self, value, name="cdf"):
        return self._evaluate(name, value, "_cdf", lambda v: math_ops.exp(self._log_cdf(v)))

    def _log_survival_function(self, value):
        raise NotImplementedError(f"log_survival_function is not implemented: {type(self).__name__}")

    def log_survival_function(self, value, name="log_survival_function"):
        return self._evaluate(name, value, "_log_survival_function", lambda v: math_ops.log1p(-self.cdf(v)))

    def _survival_function(self, value):
        raise NotImplementedError(f"survival_function is not implemented: {type(self).__name__}")

    def survival_function(self, value, name="survival_function"):
        return self._evaluate(name, value, "_survival_function", lambda v: 1. - self.cdf(v))

    def _quantile(self, value):
        raise NotImplementedError(f"quantile is not implemented: {type(self).__name__}")

    def quantile(self, value, name="quantile"):
        with self._name_scope(name, values=[value]):
            value = _convert_to_tensor(value, name="value", preferred_dtype=self.dtype)
            return self._quantile(value)

    # -- statistics -----------------------------------------------------------------

    def _entropy(self):
        raise NotImplementedError(f"entropy is not implemented: {type(self).__name__}")

    def entropy(self, name="entropy"):
        with self._name_scope(name):
            return self._entropy()

    def _mean(self):
        raise NotImplementedError(f"mean is not implemented: {type(self).__name__}")

    def mean(self, name="mean"):
        with self._name_scope(name):
            return self._mean()

    def _variance(self):
        raise NotImplementedError(f"variance is not implemented: {type(self).__name__}")

    def variance(self, name="variance"):
        with self._name_scope(name):
            try:
                return self._variance()
            except NotImplementedError as original:
                try:
                    return math_ops.square(self._stddev())
                except NotImplementedError:
                    raise original from None

    def _stddev(self):
        raise NotImplementedError(f"stddev is not implemented: {type(self).__name__}")

    def stddev(self, name="stddev"):
        with self._name_scope(name):
            try:
                return self._stddev()
            except NotImplementedError as original:
                try:
                    return math_ops.sqrt(self._variance())
                except NotImplementedError:
                    raise original from None

    def _covariance(self):
        raise NotImplementedError(f"covariance is not implemented: {type(self).__name__}")

    def covariance(self, name="covariance"):
        with self._name_scope(name):
            return self._covariance()

    def _mode(self):
        raise NotImplementedError(f"mode is not implemented: {type(self).__name__}")

    def mode(self, name="mode"):
        with self._name_scope(name):
            return self._mode()

    def _cross_entropy(self, other):
        return kullback_leibler.cross_entropy(self, other, allow_nan_stats=self.allow_nan_stats)

    def cross_entropy(self, other, name="cross_entropy"):
        with self._name_scope(name):
            return self._cross_entropy(other)

    def _kl_divergence(self, other):
        return kullback_leibler.kl_divergence(self, other, allow_nan_stats=self.allow_nan_stats)

    def kl_divergence(self, other, name="kl_divergence"):
        with self._name_scope(name):
            return self._kl_divergence(other)

    def __str__(self):
        batch = f", batch_shape={self.batch_shape}" if self.batch_shape.ndims is not None else ""
        event = f", event_shape={self.event_shape}" if self.event_shape.ndims is not None else ""
        return f'tfp.distributions.{type(self).__name__}("{self.name}"{batch}{event}, dtype={self.dtype.name})'

    def __repr__(self):
        return (f"<tfp.distributions.{type(self).__name__} '{self.name}' batch_shape={self.batch_shape} "
                f"event_shape={self.event_shape} dtype={self.dtype.name}>")

    # -- helpers --------------------------------------------------------------------

    @contextlib.contextmanager
    def _name_scope(self, name=None, values=None):
        with name_scope(self.name):
            with name_scope(name, values=([] if values is None else values) + self._graph_parents) as scope:
                yield scope

    def _expand_sample_shape_to_vector(self, x, name):
        """``x`` as a vector, and the product of its entries (a number when ``x`` is
        known while building)."""
        static = constant_value(x)
        prod = math_ops.reduce_prod(x) if static is None else np.prod(static, dtype=x.dtype.as_numpy_dtype())
        ndims = x.get_shape().ndims
        if ndims is None:
            ndims = array_ops.rank(x)
            expanded = util.pick_vector(math_ops.equal(ndims, 0), np.array([1], dtype=np.int32), array_ops.shape(x))
            x = array_ops.reshape(x, expanded)
        elif ndims == 0:
            if static is not None:
                x = convert_to_tensor(np.array([static], dtype=x.dtype.as_numpy_dtype()), name=name)
            else:
                x = array_ops.reshape(x, [1])
        elif ndims != 1:
            raise ValueError("Input is neither scalar nor vector.")
        return x, prod

    def _set_sample_static_shape(self, x, sample_shape):
        """Sets what is known of ``sample_shape + batch_shape + event_shape`` on ``x``."""
        sample_shape = TensorShape(constant_value(sample_shape))
        ndims = x.get_shape().ndims
        sample_ndims, batch_ndims, event_ndims = sample_shape.ndims, self.batch_shape.ndims, self.event_shape.ndims
        if ndims is None and None not in (sample_ndims, batch_ndims, event_ndims):
            ndims = sample_ndims + batch_ndims + event_ndims
            x.set_shape([None] * ndims)
        if ndims is not None and sample_ndims is not None:
            x.set_shape(x.get_shape().merge_with(sample_shape.concatenate([None] * (ndims - sample_ndims))))
        if ndims is not None and event_ndims is not None:
            x.set_shape(x.get_shape().merge_with(TensorShape([None] * (ndims - event_ndims)).concatenate(self.event_shape)))
        if batch_ndims is not None:
            if ndims is not None:
                if sample_ndims is None and event_ndims is not None:
                    sample_ndims = ndims - batch_ndims - event_ndims
                elif event_ndims is None and sample_ndims is not None:
                    event_ndims = ndims - batch_ndims - sample_ndims
            if sample_ndims is not None and event_ndims is not None:
                shape = TensorShape([None] * sample_ndims).concatenate(self.batch_shape).concatenate([None] * event_ndims)
                x.set_shape(x.get_shape().merge_with(shape))
        return x

    def _is_scalar_helper(self, static_shape, dynamic_shape_fn):
        if static_shape.ndims is not None:
            return static_shape.ndims == 0
        shape = dynamic_shape_fn()
        if shape.get_shape().ndims is not None and shape.get_shape().dims[0].value is not None:
            return shape.get_shape().as_list() == [0]
        return math_ops.equal(array_ops.shape(shape)[0], 0)
