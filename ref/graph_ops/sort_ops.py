"""``tf.sort`` and ``tf.argsort``, built on ``TopKV2`` as TF's ``sort_ops`` builds
them: a descending sort is ``top_k`` with ``k`` the length of the sorted axis
(that axis moved last and back by a transposition when it is not last); an
ascending sort is the descending sort of ``-x`` (``-x - 1`` for signed
integers, so the most negative value has a partner; ``max - x`` for unsigned
ones), negated back. ``top_k`` keeps equal values in index order, so the sort
is stable in the descending order it computes."""
from __future__ import annotations

import numpy as np

from ref.framework.graph import name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.framework.tensor_util import constant_value
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.normalization_ops import top_k

__all__ = ["sort", "argsort"]


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis`` (``'ASCENDING'`` or ``'DESCENDING'``)."""
    with name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The indices that sort ``values`` along ``axis`` (int32)."""
    del stable  # TF's argument, unused by TF as well: top_k's order is already stable for ties
    with name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)


def _sort_or_argsort(values, axis, direction, return_argsort):
    if direction not in _SORT_IMPL:
        raise ValueError(f"Argument `direction` should be one of {', '.join(sorted(_SORT_IMPL))}. "
                         f"Received: direction={direction}")
    axis = convert_to_tensor(axis, name="axis")
    axis_static = constant_value(axis)
    if axis.shape.ndims not in (None, 0) or axis_static is None:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    values = convert_to_tensor(values, name="values")
    return _SORT_IMPL[direction](values, int(axis_static), return_argsort)


def _descending_sort(values, axis, return_argsort=False):
    k = array_ops.shape(values)[axis]
    rank = array_ops.rank(values)
    static_rank = values.shape.ndims
    if axis == -1 or axis + 1 == static_rank:
        top_k_input, transposition = values, None
    else:
        if axis < 0:
            axis += static_rank or rank
        if static_rank is not None:  # swap axis and the last dimension
            perm = np.r_[np.arange(axis), [static_rank - 1], np.arange(axis + 1, static_rank - 1), [axis]]
            transposition = constant(perm, name="transposition")
        else:
            transposition = array_ops.tensor_scatter_update(math_ops.range(rank), [[axis], [rank - 1]],
                                                            [rank - 1, axis])
        top_k_input = array_ops.transpose(values, transposition)
    out_values, indices = top_k(top_k_input, k)
    result = indices if return_argsort else out_values
    if transposition is not None:
        result = array_ops.transpose(result, transposition)
    return result


def _ascending_sort(values, axis, return_argsort=False):
    dtype = values.dtype
    if dtype.is_unsigned:
        offset = dtype.max
        out = _descending_sort(offset - values, axis, return_argsort)
        return out if return_argsort else offset - out
    if dtype.is_integer:
        out = _descending_sort(-values - 1, axis, return_argsort)
        return out if return_argsort else -out - 1
    out = _descending_sort(-values, axis, return_argsort)
    return out if return_argsort else -out


_SORT_IMPL = {"ASCENDING": _ascending_sort, "DESCENDING": _descending_sort}
