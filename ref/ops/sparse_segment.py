"""Sparse segment reductions: ``SparseSegment{Sum,Mean,SqrtN}``, their
``WithNumSegments`` forms and gradient kernels (the reductions behind
``tf.nn.embedding_lookup_sparse``)."""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.ops.registry import invalid_argument, register_op, require_rank
from ref.ops.segment_reduction import output_rows, walk_sorted_segments
from ref.ops.sparse import _INDEX, _shape_str
from ref.types.shapes import TensorShape

_SEGMENT_SCALE = {
    "Sum": lambda counts: np.ones_like(counts, dtype=np.float64),
    "Mean": lambda counts: 1.0 / np.maximum(counts, 1),
    "SqrtN": lambda counts: 1.0 / np.sqrt(np.maximum(counts, 1)),
}


def _segment_rows(data, indices, segment_ids, num_segments):
    data, idx, seg = np.asarray(data), np.asarray(indices).astype(np.int64), np.asarray(segment_ids).astype(np.int64)
    if idx.ndim != 1 or seg.ndim != 1:
        raise invalid_argument(f"indices and segment_ids should be vectors, got shapes {_shape_str(idx.shape)} and "
                               f"{_shape_str(seg.shape)}")
    if idx.shape[0] != seg.shape[0]:
        raise invalid_argument(f"segment_ids and indices should have same size. segment_ids.shape = "
                               f"{_shape_str(seg.shape)} indices.shape = {_shape_str(idx.shape)}")
    rows = data.shape[0] if data.ndim else 0
    last_plus_one = int(seg[-1]) + 1 if seg.size else 0
    if num_segments is not None:
        n = int(np.asarray(num_segments))
        if n < last_plus_one:
            raise invalid_argument("segment ids must be < num_segments")
    else:
        n = last_plus_one
    if n < 0 or (seg.size and n == 0):
        raise invalid_argument("segment ids must be >= 0")
    output_rows(n, data.shape[1:], data.dtype)  # TF allocates the output before it reads the ids
    walk_sorted_segments(seg, n, idx, rows)
    return data, idx, seg, n


def _sparse_segment_shape(ins, attrs):
    """TF's SparseSegmentReduction(WithNumSegments)ShapeFn: ``data`` of rank >= 1, vectors
    ``indices`` and ``segment_ids`` of one length, a scalar ``num_segments`` not negative."""
    extra = {"num_segments": 0} if "num_segments" in ins else {}
    require_rank(ins, attrs, data=range(1, 65), indices=1, segment_ids=1, **extra)
    a, b = ins["indices"].shape, ins["segment_ids"].shape
    if a.ndims == b.ndims == 1 and not a.is_compatible_with(b):
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {a[0]} and {b[0]}. Shapes are {a} and "
                         f"{b}. for '{attrs.get('_op_name')}'")
    data = ins["data"].shape
    n = None
    if "num_segments" in ins and ins["num_segments"].value is not None:
        n = int(np.asarray(ins["num_segments"].value))
        if n < 0:
            raise ValueError(f"Cannot specify a negative value for num_segments for '{attrs.get('_op_name')}'")
    rest = data.as_list()[1:] if data.ndims is not None else None
    return [(ins["data"].dtype, TensorShape(None) if rest is None else TensorShape([n] + rest))]


def _register_sparse_segment(kind, with_num_segments):
    name = f"SparseSegment{kind}" + ("WithNumSegments" if with_num_segments else "")
    inputs = ("data", "indices", "segment_ids") + (("num_segments",) if with_num_segments else ())
    type_attrs = {"T": "data", "Tidx": "indices", "Tsegmentids": "segment_ids"}
    if with_num_segments:
        type_attrs["Tnumsegments"] = "num_segments"
    allowed = {"T": dtypes.REALS if kind == "Sum" else dtypes.FLOATS, "Tidx": _INDEX, "Tsegmentids": _INDEX}

    @register_op(name, inputs=inputs, outputs=("output",), attrs={"sparse_gradient": False}, type_attrs=type_attrs,
                 allowed=allowed, shape=_sparse_segment_shape)
    def kernel(data, indices, segment_ids, num_segments=None, sparse_gradient=False):
        data, idx, seg, n = _segment_rows(data, indices, segment_ids, num_segments)
        out = np.zeros((n,) + data.shape[1:], dtype=data.dtype)
        np.add.at(out, seg, data[idx])
        if kind != "Sum":
            counts = np.bincount(seg, minlength=n)
            scale = _SEGMENT_SCALE[kind](counts).astype(data.dtype).reshape((n,) + (1,) * (data.ndim - 1))
            out = (out * scale).astype(data.dtype)
        return out

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = (f"``output[s] = {'sum' if kind == 'Sum' else kind + ' of'} data[indices[i]]`` over the i with "
                      f"``segment_ids[i] == s`` (sorted); empty segments are 0"
                      + ("; ``num_segments`` rows." if with_num_segments else "; ``segment_ids[-1] + 1`` rows."))
    return kernel


for _kind in ("Sum", "Mean", "SqrtN"):
    for _with in (False, True):
        _register_sparse_segment(_kind, _with)


def _register_sparse_segment_grad(kind):
    name = f"SparseSegment{kind}Grad"

    def shape(ins, attrs):
        g = ins["grad"].shape
        require_rank(ins, attrs, grad=range(1, 65), indices=1, segment_ids=1, output_dim0=0)
        n = None if ins["output_dim0"].value is None else int(np.asarray(ins["output_dim0"].value))
        return [(ins["grad"].dtype, TensorShape(None) if g.ndims is None else TensorShape([n] + g.as_list()[1:]))]

    @register_op(name, inputs=("grad", "indices", "segment_ids", "output_dim0"), outputs=("output",),
                 type_attrs={"T": "grad", "Tidx": "indices", "Tsegmentids": "segment_ids"},
                 allowed={"T": dtypes.FLOATS, "Tidx": _INDEX, "Tsegmentids": _INDEX}, shape=shape)
    def kernel(grad, indices, segment_ids, output_dim0):
        g = np.asarray(grad)
        idx, seg = np.asarray(indices).astype(np.int64), np.asarray(segment_ids).astype(np.int64)
        rows = int(np.asarray(output_dim0))
        if seg.size and int(seg[-1]) + 1 > g.shape[0]:
            raise invalid_argument("Invalid number of segments")
        for i in range(seg.size):  # TF's order: each entry's index, then its segment id
            if not 0 <= idx[i] < rows:
                raise invalid_argument(f"Index {int(idx[i])} out of range [0, {rows}).")
            if not 0 <= seg[i] < g.shape[0]:
                raise invalid_argument(f"Segment id {int(seg[i])} out of range [0, {g.shape[0]}).")
        scale = _SEGMENT_SCALE[kind](np.bincount(seg, minlength=g.shape[0])).astype(g.dtype)
        out = np.zeros((rows,) + g.shape[1:], dtype=g.dtype)
        np.add.at(out, idx, g[seg] * scale[seg].reshape((-1,) + (1,) * (g.ndim - 1)))
        return out

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = (f"The gradient of SparseSegment{kind} with respect to its data: ``output[indices[i]] += "
                      f"scale[segment_ids[i]] * grad[segment_ids[i]]`` with ``output_dim0`` rows.")
    return kernel


_V1_KERNELS = {_kind: _register_sparse_segment_grad(_kind) for _kind in ("Sum", "Mean", "SqrtN")}


def _register_sparse_segment_grad_v2(kind):
    """``SparseSegment{kind}GradV2``: the gradient rows of the distinct indices only (sorted), for an IndexedSlices."""
    name = f"SparseSegment{kind}GradV2"

    def shape(ins, attrs):
        g = ins["grad"].shape
        require_rank(ins, attrs, grad=range(1, 65), indices=1, segment_ids=1, dense_output_dim0=0)
        return [(ins["grad"].dtype, TensorShape(None) if g.ndims is None else TensorShape([None] + g.as_list()[1:])),
                (ins["indices"].dtype, TensorShape([None]))]

    @register_op(name, inputs=("grad", "indices", "segment_ids", "dense_output_dim0"),
                 outputs=("output", "sorted_unique_indices"),
                 type_attrs={"T": "grad", "Tidx": "indices", "Tsegmentids": "segment_ids"},
                 allowed={"T": dtypes.FLOATS, "Tidx": _INDEX, "Tsegmentids": _INDEX}, shape=shape)
    def kernel(grad, indices, segment_ids, dense_output_dim0):
        idx = np.asarray(indices)
        unique, position = np.unique(idx.astype(np.int64), return_inverse=True)
        rows = int(np.asarray(dense_output_dim0))
        if unique.size and (unique[0] < 0 or unique[-1] >= rows):
            bad = unique[(unique < 0) | (unique >= rows)][0]
            raise invalid_argument(f"Index {int(bad)} out of range [0, {rows}).")
        dense = _V1_KERNELS[kind](grad, position, segment_ids, np.int32(len(unique)))
        return dense, unique.astype(idx.dtype)

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = (f"The gradient of SparseSegment{kind} as rows of the sorted distinct ``indices`` "
                      f"(``output[k]`` belongs to ``sorted_unique_indices[k]``).")
    return kernel


for _kind in ("Sum", "Mean", "SqrtN"):
    _register_sparse_segment_grad_v2(_kind)
