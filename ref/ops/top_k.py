"""TopKV2 and TopK: the k largest entries of the last dimension (TF's
``topk_op.cc``); ApproxTopK, whose CPU kernel is that same exact top-k (TF
registers it on CPU only for ``reduction_dimension=-1``, ``is_max_k=True``;
other settings run only through XLA)."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes, errors
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape, unknown_shape

_INDEX = (dtypes.int16, dtypes.int32, dtypes.int64)


def _top_k(x, k, index_type, op):
    x = np.asarray(x)
    if x.ndim < 1:
        raise invalid_argument(f"{op}: input must be at least 1-D, got {list(x.shape)}")
    if k < 0:
        raise invalid_argument(f"{op}: Need k >= 0, got {k}")
    if x.shape[-1] < k:
        raise invalid_argument(f"{op}: input must have at least k columns. Had {x.shape[-1]}, needed {k}")
    if x.dtype.kind == "f" or x.dtype == dtypes.bfloat16.np:  # bfloat16 (ml_dtypes) is of kind "V"
        key = np.negative(x.astype(np.float64))
    elif x.dtype.kind == "u":
        key = -x.astype(np.float64) if x.dtype.itemsize == 8 else -x.astype(np.int64)
    else:
        key = -x.astype(np.int64) if x.dtype.itemsize < 8 else -x.astype(object)
    order = np.argsort(key, axis=-1, kind="stable")[..., :k]
    values = np.take_along_axis(x, order, axis=-1)
    return values, order.astype(dtypes.as_dtype(index_type).np)


def _top_k_shape(ins, attrs, k):
    s = ins["input"].shape
    name = attrs.get("_op_name")
    if s.ndims is not None and s.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {s.ndims} for '{name}' "
                         f"with input shapes: {s}.")
    if k is not None and k < 0:
        raise ValueError(f"Need k >= 0, got {k} for '{name}'")
    if s.ndims is None:
        out = unknown_shape()
    else:
        last = s[-1]
        if last is not None and k is not None and last < k:
            raise ValueError(f"input must have last dimension >= k = {k} but is {last} for '{name}' "
                             f"with input shapes: {s}.")
        out = s[:-1].concatenate(TensorShape([k]))
    return [(ins["input"].dtype, out), (attrs.get("index_type", dtypes.int32), out)]


def _v2_shape(ins, attrs):
    v = ins["k"].value
    return _top_k_shape(ins, attrs, None if v is None else int(np.asarray(v)))


@register_op("TopKV2", inputs=("input", "k"), outputs=("values", "indices"),
             attrs={"sorted": True, "index_type": dtypes.int32}, type_attrs={"T": "input", "Tk": "k"},
             allowed={"T": dtypes.REALS, "Tk": _INDEX, "index_type": _INDEX}, shape=_v2_shape)
def top_k_v2(input, k, sorted=True, index_type=dtypes.int32):
    """values[..., j] = the j-th largest input[..., :], indices its position;
    equal values keep their order (the lower index first). The CPU kernel
    returns them sorted even when ``sorted=False``."""
    return _top_k(input, int(np.asarray(k)), index_type, "TopKV2")


@register_op("TopK", inputs=("input",), outputs=("values", "indices"), attrs={"k": REQUIRED, "sorted": True},
             type_attrs={"T": "input"}, allowed={"T": dtypes.REALS},
             shape=lambda ins, attrs: _top_k_shape(ins, attrs, attrs["k"]))
def top_k(input, k, sorted=True):
    """TopKV2 with ``k`` as an attr (deprecated form)."""
    return _top_k(input, int(k), dtypes.int32, "TopK")


def _approx_shape(ins, attrs):
    s = ins["input"].shape
    if s.ndims is None:
        return [(ins["input"].dtype, unknown_shape()), (dtypes.int32, unknown_shape())]
    dim = attrs["reduction_dimension"]
    if not -s.ndims <= dim < s.ndims:
        raise ValueError(f"Invalid reduction dimension {dim} for '{attrs['_op_name']}' with input shapes: {s}.")
    dims = s.as_list()
    dims[dim] = attrs["k"] if attrs["aggregate_to_topk"] else None
    return [(ins["input"].dtype, TensorShape(dims)), (dtypes.int32, TensorShape(dims))]


@register_op("ApproxTopK", inputs=("input",), outputs=("values", "indices"),
             attrs={"k": REQUIRED, "reduction_dimension": -1, "recall_target": 0.95, "is_max_k": True,
                    "reduction_input_size_override": -1, "aggregate_to_topk": True},
             type_attrs={"T": "input"}, allowed={"T": (dtypes.float16, dtypes.bfloat16, dtypes.float32)},
             shape=_approx_shape)
def approx_top_k(input, k, reduction_dimension=-1, recall_target=0.95, is_max_k=True,  # noqa: A002
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """(values, indices) of the k largest entries along the last dimension: on
    CPU exactly TopKV2 (sorted, the lower index first among equals); the recall
    target and size override only steer TPU/XLA's approximation."""
    if reduction_dimension != -1 or not is_max_k:
        raise errors.NotFoundError(None, None, f"No registered 'ApproxTopK' OpKernel for 'CPU' devices compatible "
                                               f"with reduction_dimension={reduction_dimension}, is_max_k={is_max_k} "
                                               f"(TF runs it only through XLA)")
    return _top_k(input, int(k), dtypes.int32, "ApproxTopK")


def _nth_element_shape(ins, attrs):
    """TF's shape function: input at least rank 1, n a scalar (MakeDimForScalarInput: a known n must be
    non-negative), a known last dimension greater than a known n; the output drops the last dimension."""
    s, n = ins["input"].shape, ins["n"]
    name = attrs.get("_op_name")
    where = f"for '{name}' with input shapes: {s}, {n.shape}"
    if s.ndims is not None and s.ndims < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {s.ndims} {where}.")
    if n.shape.ndims is not None and n.shape.ndims != 0:
        raise ValueError(f"Input must be scalar but has rank {n.shape.ndims} {where}.")
    k = None if n.value is None else int(np.asarray(n.value))
    if k is not None and k < 0:
        raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but is {k} {where}.")
    if s.ndims is None:
        return [(ins["input"].dtype, unknown_shape())]
    if k is not None and s[-1] is not None and s[-1] <= k:
        raise ValueError(f"Input must have last dimension > n = {k} but is {s[-1]} {where}.")
    return [(ins["input"].dtype, s[:-1])]


@register_op("NthElement", inputs=("input", "n"), outputs=("values",), attrs={"reverse": False},
             type_attrs={"T": "input"}, input_types={"n": dtypes.int32}, allowed={"T": dtypes.REALS},
             shape=_nth_element_shape)
def nth_element(input, n, reverse=False):  # noqa: A002 -- TF's argument name
    """values[...] = the n-th smallest of input[..., :] (0-based; the n-th largest with ``reverse``,
    which TF computes as the (last_dim - n - 1)-th smallest): TF's nth_element_op.cc, a
    std::nth_element per row. The kernel's checks, in its order: n scalar, n >= 0, input rank >= 1,
    last dimension > n."""
    n = np.asarray(n)
    if n.ndim != 0:
        raise invalid_argument(f"N must be scalar but has rank {n.ndim}")
    k = int(n)
    if k < 0:
        raise invalid_argument(f"n must be non-negative but is {k}")
    x = np.asarray(input)
    if x.ndim < 1:
        raise invalid_argument(f"Input must be at least rank 1 but is rank {x.ndim}")
    last = x.shape[-1]
    if last <= k:
        raise invalid_argument(f"Input must have last dimension > n = {k}")
    if reverse:
        k = last - k - 1
    return np.partition(x, k, axis=-1)[..., k].astype(x.dtype, copy=False)
