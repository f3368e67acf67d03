"""TF1 math builders beyond the elementary ones: ``tf.segment_mean``, ``tf.segment_max``/``min``/``prod``,
``tf.unsorted_segment_mean``, ``tf.unsorted_segment_sqrt_n`` (composed as TF's ``math_ops`` composes it), the
special functions ``tf.lgamma``, ``tf.digamma``, ``tf.zeta``, ``tf.polygamma``
(one op each, TF's ``gen_math_ops``), ``tf.lbeta`` (from ``lgamma``) and ``tf.roll`` (TF's ``manip_ops``)."""
from __future__ import annotations

import numpy as np

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.types import dtypes
from ref.graph_ops import array_ops, math_ops

__all__ = ["segment_mean", "segment_max", "segment_min", "segment_prod", "unsorted_segment_mean", "unsorted_segment_sqrt_n", "lgamma", "digamma", "zeta", "polygamma", "lbeta", "roll", "igamma", "igammac",
           "betainc"]  # nextafter: tf.math only


def segment_mean(data, segment_ids, name=None):
    """``output[i] = mean(data[j])`` over the sorted ``segment_ids[j] == i`` (0 if empty)."""
    return apply_op("SegmentMean", data=data, segment_ids=segment_ids, name=name or "SegmentMean")


def segment_max(data, segment_ids, name=None):
    """``output[i] = max(data[j])`` over the sorted ``segment_ids[j] == i`` (0 if empty)."""
    return apply_op("SegmentMax", data=data, segment_ids=segment_ids, name=name or "SegmentMax")


def segment_min(data, segment_ids, name=None):
    """``output[i] = min(data[j])`` over the sorted ``segment_ids[j] == i`` (0 if empty)."""
    return apply_op("SegmentMin", data=data, segment_ids=segment_ids, name=name or "SegmentMin")


def segment_prod(data, segment_ids, name=None):
    """``output[i] = prod(data[j])`` over the sorted ``segment_ids[j] == i`` (1 if empty)."""
    return apply_op("SegmentProd", data=data, segment_ids=segment_ids, name=name or "SegmentProd")


def shape_internal(t):
    """TF's ``shape_internal`` without ``out_type``: a ``Shape/shape_as_tensor``
    constant (int64 only when a dimension needs it) for a static shape, else ``Shape``."""
    with name_scope(None, "Shape", [t]) as scope:
        if t.shape.is_fully_defined():
            dims = t.shape.as_list()
            wide = max(dims, default=0) > np.iinfo(np.int32).max
            return constant(np.array(dims, np.int64 if wide else np.int32), name="shape_as_tensor")
        return apply_op("Shape", input=t, out_type=dtypes.int32, name=scope)


def _unsorted_segment_n(data, segment_ids, num_segments):
    """Each segment's row count (at least 1), shaped to broadcast against the
    sums: ``UnsortedSegmentSum`` of ones, reshaped, then ``Maximum(n, 1)`` (TF's
    ``_unsorted_segment_N``; bincount would not drop negative ids)."""
    a = array_ops
    num_segments = convert_to_tensor(num_segments)
    ones = a.ones(shape_internal(segment_ids), dtype=data.dtype)
    n = apply_op("UnsortedSegmentSum", data=ones, segment_ids=segment_ids, num_segments=num_segments)
    broadcastable = a.concat([num_segments[a.newaxis],
                              a.ones([a.rank(data) - a.rank(segment_ids)], dtype=num_segments.dtype)], axis=0)
    return math_ops.maximum(a.reshape(n, broadcastable), 1)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """``output[i..] = sum(data[j..]) / N_i`` over ``segment_ids[j..] == i`` (0 if
    empty; negative ids dropped): the segment sums divided by the counts."""
    with name_scope(name, "UnsortedSegmentMean"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        summed = apply_op("UnsortedSegmentSum", data=data, segment_ids=segment_ids, num_segments=num_segments)
        return summed / n


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """``output[i..] = sum(data[j..]) / sqrt(N_i)`` over ``segment_ids[j..] == i``
    (0 if empty; negative ids dropped): the segment sums over the square roots of the counts."""
    with name_scope(name, "UnsortedSegmentSqrtN"):
        data = convert_to_tensor(data)
        segment_ids = convert_to_tensor(segment_ids)
        n = _unsorted_segment_n(data, segment_ids, num_segments)
        summed = apply_op("UnsortedSegmentSum", data=data, segment_ids=segment_ids, num_segments=num_segments)
        return summed / math_ops.sqrt(n)


def lgamma(x, name=None):
    """``log(|Gamma(x)|)`` element-wise (``Lgamma``)."""
    return apply_op("Lgamma", x=x, name=name)


def digamma(x, name=None):
    """``psi(x) = d/dx log(Gamma(x))`` element-wise (``Digamma``)."""
    return apply_op("Digamma", x=x, name=name)


def zeta(x, q, name=None):
    """The Hurwitz zeta function ``sum_k (q + k) ** -x`` (``Zeta``)."""
    return apply_op("Zeta", x=x, q=q, name=name)


def polygamma(a, x, name=None):
    """The polygamma function ``psi^(a)(x)``, the ``a``-th derivative of ``digamma`` (``Polygamma``)."""
    return apply_op("Polygamma", a=a, x=x, name=name)


def lbeta(x, name=None):
    """``log(|Beta(x)|) = sum(lgamma(x)) - lgamma(sum(x))`` over the last axis."""
    with name_scope(name, "lbeta", [x]):
        x = convert_to_tensor(x, name="x")
        log_prod_gamma_x = math_ops.reduce_sum(lgamma(x), axis=[-1])
        sum_x = math_ops.reduce_sum(x, axis=[-1])
        return log_prod_gamma_x - lgamma(sum_x)


def roll(input, shift, axis, name=None):  # noqa: A002 - TF's name
    """Elements shifted by ``shift`` along ``axis`` (each may be a list), wrapping around (``Roll``)."""
    return apply_op("Roll", input=input, shift=shift, axis=axis, name=name)


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function ``P(a, x)`` (``Igamma``)."""
    return apply_op("Igamma", a=a, x=x, name=name)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` (``Igammac``)."""
    return apply_op("Igammac", a=a, x=x, name=name)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function ``I_x(a, b)`` (``Betainc``)."""
    return apply_op("Betainc", a=a, b=b, x=x, name=name)


def nextafter(x1, x2, name=None):
    """The representable number after ``x1`` towards ``x2``, element-wise (``NextAfter``)."""
    return apply_op("NextAfter", x1=x1, x2=x2, name=name)
