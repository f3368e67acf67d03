"""Helpers of TF's ``distributions/util.py`` the distributions here build with:
logits <-> probabilities, the categorical event-size check, integer-form and
casting checks embedded as control dependencies, ``pick_vector``."""
from __future__ import annotations

import hashlib

import numpy as np

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, check_ops, control_flow_ops, math_ops, math_special, nn_ops

__all__ = ["get_logits_and_probs", "embed_check_categorical_event_shape", "embed_check_integer_casting_closed",
           "embed_check_nonnegative_integer_form", "assert_integer_form", "pick_vector", "log_combinations",
           "gen_new_seed"]


def assert_integer_form(x, data=None, summarize=None, message=None, int_dtype=None, name="assert_integer_form"):
    """Asserts ``x == cast(cast(x, int_dtype), x.dtype)`` (a no-op for integer ``x``)."""
    with name_scope(name, values=[x, data]):
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_integer:
            return control_flow_ops.no_op()
        message = message or f"{x} has non-integer components"
        if int_dtype is None:
            try:
                int_dtype = {dtypes.float16: dtypes.int16, dtypes.float32: dtypes.int32,
                             dtypes.float64: dtypes.int64}[x.dtype.base_dtype]
            except KeyError:
                raise TypeError(f"Unrecognized type {x.dtype.name}") from None
        return check_ops.assert_equal(x, math_ops.cast(math_ops.cast(x, int_dtype), x.dtype), data=data,
                                      summarize=summarize, message=message, name=name)


def embed_check_nonnegative_integer_form(x, name="embed_check_nonnegative_integer_form"):
    with name_scope(name, values=[x]):
        assertions = [check_ops.assert_non_negative(x, message=f"'{x}' must be non-negative.")]
        if not x.dtype.is_integer:
            assertions += [assert_integer_form(x, message=f"'{x}' cannot contain fractional components.")]
        return control_flow_ops.with_dependencies(assertions, x)


def get_logits_and_probs(logits=None, probs=None, multidimensional=False, validate_args=False,
                         name="get_logits_and_probs", dtype=None):
    """``(logits, probs)`` from one of them: ``probs = sigmoid(logits)`` (or ``softmax``
    when ``multidimensional``), ``logits = log(p) - log1p(-p)`` (or ``log(p)``)."""
    with name_scope(name, values=[probs, logits]):
        if (probs is None) == (logits is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if probs is None:
            logits = convert_to_tensor(logits, name="logits", dtype=dtype)
            if not logits.dtype.is_floating:
                raise TypeError("logits must having floating type.")
            if multidimensional:
                if validate_args:
                    logits = embed_check_categorical_event_shape(logits)
                return logits, nn_ops.softmax(logits, name="probs")
            return logits, math_ops.sigmoid(logits, name="probs")
        probs = convert_to_tensor(probs, name="probs", dtype=dtype)
        if not probs.dtype.is_floating:
            raise TypeError("probs must having floating type.")
        if validate_args:
            with name_scope("validate_probs"):
                one = constant(1., probs.dtype)
                dependencies = [check_ops.assert_non_negative(probs)]
                if multidimensional:
                    probs = embed_check_categorical_event_shape(probs)
                    dependencies += [check_ops.assert_near(math_ops.reduce_sum(probs, -1), one,
                                                           message="probs does not sum to 1.")]
                else:
                    dependencies += [check_ops.assert_less_equal(probs, one,
                                                                 message="probs has components greater than 1.")]
                probs = control_flow_ops.with_dependencies(dependencies, probs)
        with name_scope("logits"):
            if multidimensional:
                return math_ops.log(probs), probs
            return math_ops.log(probs) - math_ops.log1p(-1. * probs), probs


_UNSIGNED = (dtypes.bool, dtypes.uint8, dtypes.uint16)
_SIGNED = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)


def _largest_integer_by_dtype(dt):
    """The largest integer a dtype holds exactly: 2^(mantissa bits + 1) for floats."""
    if dt.base_dtype not in _UNSIGNED + _SIGNED:
        raise TypeError(f"Unrecognized dtype: {dt.name}")
    if dt.is_floating:
        return int(2 ** (np.finfo(dt.as_numpy_dtype).nmant + 1))
    if dt.is_integer:
        return np.iinfo(dt.as_numpy_dtype).max
    return 1  # bool


def _smallest_integer_by_dtype(dt):
    return 0 if dt.base_dtype in _UNSIGNED else -1 * _largest_integer_by_dtype(dt)


def _is_integer_like_by_dtype(dt):
    return dt.is_integer or dt.base_dtype == dtypes.bool


def embed_check_categorical_event_shape(categorical_param, name="embed_check_categorical_event_shape"):
    """The parameter, checked to have at least 2 events and no more than its dtype
    counts exactly (statically when the last dimension is known)."""
    with name_scope(name, values=[categorical_param]):
        x = convert_to_tensor(categorical_param, name="categorical_param")
        x_dtype = x.dtype.base_dtype
        max_event_size = _largest_integer_by_dtype(x_dtype) if x_dtype.is_floating else 0
        if max_event_size == 0:
            raise TypeError(f"Unable to validate size of unrecognized dtype ({x_dtype.name}).")
        try:
            x_shape_static = x.get_shape().with_rank_at_least(1)
        except ValueError:
            raise ValueError("A categorical-distribution parameter must have at least 1 dimension.") from None
        if x_shape_static.dims[-1].value is not None:
            event_size = x_shape_static.dims[-1].value
            if event_size < 2:
                raise ValueError("A categorical-distribution parameter must have at least 2 events.")
            if event_size > max_event_size:
                raise ValueError(f"Number of classes exceeds `dtype` precision, i.e., {x_dtype.name} implies shape "
                                 f"({event_size}) cannot exceed {max_event_size}.")
            return x
        event_size = array_ops.shape(x, name="x_shape")[-1]
        return control_flow_ops.with_dependencies([
            check_ops.assert_rank_at_least(x, 1, message="A categorical-distribution parameter must have at least 1 dimension."),
            check_ops.assert_greater_equal(array_ops.shape(x)[-1], 2,
                                           message="A categorical-distribution parameter must have at least 2 events."),
            check_ops.assert_less_equal(event_size, max_event_size,
                                        message=f"Number of classes exceeds `dtype` precision, i.e., {x_dtype.name} "
                                                f"dtype cannot exceed {max_event_size} shape.")], x)


def embed_check_integer_casting_closed(x, target_dtype, assert_nonnegative=True, name="embed_check_casting_closed"):
    """``x``, checked to cast to ``target_dtype`` and back without change."""
    with name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        if not _is_integer_like_by_dtype(x.dtype) and not x.dtype.is_floating:
            raise TypeError(f"{x.dtype.name}.dtype must be floating- or integer-type.")
        if not _is_integer_like_by_dtype(target_dtype) and not target_dtype.is_floating:
            raise TypeError(f"target_dtype ({target_dtype.name}) must be floating- or integer-type.")
        if not _is_integer_like_by_dtype(x.dtype) and not _is_integer_like_by_dtype(target_dtype):
            raise TypeError(f"At least one of {x}.dtype ({x.dtype.name}) and target_dtype ({target_dtype.name}) "
                            "must be integer-type.")
        assertions = []
        if assert_nonnegative:
            assertions += [check_ops.assert_non_negative(x, message="Elements must be non-negative.")]
        if x.dtype.is_floating:
            assertions += [assert_integer_form(x, int_dtype=target_dtype,
                                               message=f"Elements must be {target_dtype.name}-equivalent.")]
        else:
            largest = _largest_integer_by_dtype(target_dtype)
            if _largest_integer_by_dtype(x.dtype) > largest:
                assertions += [check_ops.assert_less_equal(x, largest, message=f"Elements cannot exceed {largest}.")]
            smallest = _smallest_integer_by_dtype(target_dtype)
            if not assert_nonnegative and _smallest_integer_by_dtype(x.dtype) < smallest:
                assertions += [check_ops.assert_greater_equal(
                    x, smallest, message=f"Elements cannot be smaller than {smallest}.")]
        if not assertions:
            return x
        return control_flow_ops.with_dependencies(assertions, x)


def log_combinations(n, counts, name="log_combinations"):
    """``log(n! / prod_i counts_i!)`` by ``lgamma``."""
    with name_scope(name, values=[n, counts]):
        n = convert_to_tensor(n, name="n")
        counts = convert_to_tensor(counts, name="counts")
        total_permutations = math_special.lgamma(n + 1)
        counts_factorial = math_special.lgamma(counts + 1)
        redundant_permutations = math_ops.reduce_sum(counts_factorial, axis=[-1])
        return total_permutations - redundant_permutations


def pick_vector(cond, true_vector, false_vector, name="pick_vector"):
    """``true_vector`` if ``cond`` else ``false_vector``, by a slice of their concat
    (by Python when ``cond`` is known while building)."""
    with name_scope(name, values=(cond, true_vector, false_vector)):
        cond = convert_to_tensor(cond, name="cond")
        if cond.dtype != dtypes.bool:
            raise TypeError(f"{cond}.dtype={cond.dtype} which is not {dtypes.bool}")
        static = constant_value(cond)
        if static is not None:
            return true_vector if static else false_vector
        true_vector = convert_to_tensor(true_vector, name="true_vector")
        false_vector = convert_to_tensor(false_vector, name="false_vector")
        if true_vector.dtype != false_vector.dtype:
            raise TypeError(f"{true_vector}.dtype={true_vector.dtype} does not match "
                            f"{false_vector}.dtype={false_vector.dtype}")
        n = array_ops.shape(true_vector)[0]
        return array_ops.slice(array_ops.concat([true_vector, false_vector], 0), [array_ops.where_v2(cond, 0, n)],
                               [array_ops.where(cond, n, -1)])


def gen_new_seed(seed, salt):
    """TF's derived seed: the first 8 hex digits of md5(str(seed) + salt), 31 bits."""
    if seed is None:
        return None
    return int(hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()[:8], 16) & 0x7FFFFFFF
