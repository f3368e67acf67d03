"""``tf.nn.embedding_lookup``: rows of an embedding table, or of a table split
into shards, as TensorFlow's ``embedding_ops`` computes them.

One table: ``gather(params, ids)`` (its gradient is IndexedSlices: only the
looked-up rows change). Several shards (a list, or a PartitionedVariable):
the ids are flattened and each is sent to a shard --

* ``"mod"``: shard ``id % n``, row ``id // n`` in it;
* ``"div"``: contiguous blocks; with ``total`` rows, ``ids_per = total // n``
  and ``extras = total % n``, shard ``p = max(id // (ids_per + 1),
  (id - extras) // ids_per)``, row ``id % (ids_per + 1)`` if ``p < extras`` else
  ``(id - extras) % ids_per`` --

then ``dynamic_partition`` splits ids and their positions by shard, each shard
is gathered, and ``dynamic_stitch`` puts the rows back in the ids' order,
reshaped to ``ids.shape + row shape``. ``max_norm`` clips each row to that L2
norm (``clip_by_norm`` over the row's axes).
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes
from ref.framework.graph import colocate_with, name_scope
from ref.framework.op_def_library import constant, convert_to_tensor
from ref.types.shapes import TensorShape, dimension_value
from ref.graph_ops import array_ops, clip_ops, math_ops
from ref.graph_ops.control_flow_ops import identity
from ref.framework.sparse_tensor import SparseTensor
from ref.graph_ops import ragged_array_ops, sparse_ops
from ref.graph_ops.ragged_functional_ops import map_flat_values
from ref.graph_ops.ragged_tensor import RaggedTensor

__all__ = ["embedding_lookup", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"]


def _clip(params, ids, max_norm):
    """Each embedding row clipped to L2 norm ``max_norm`` (None: unchanged)."""
    if max_norm is None:
        return params
    ids_rank, params_rank = ids.shape.ndims, params.shape.ndims
    if ids_rank is not None and params_rank is not None:
        axes = list(range(ids_rank, params_rank))
    else:
        axes = math_ops.range(array_ops.rank(ids), array_ops.rank(params))
    return clip_ops.clip_by_norm(params, max_norm, axes=axes)


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """Looks up ``ids`` in a list of embedding tensors (``tf.nn.embedding_lookup``).

    ``params``: one tensor or variable, a list of them (shards of one table, all
    with the same row shape), or a PartitionedVariable. ``ids``: int32 or int64
    of any shape. ``partition_strategy``: ``"mod"`` or ``"div"`` (see the module
    docstring). ``validate_indices`` is ignored, as in TF. ``max_norm``: clip
    each row to this L2 norm. Returns ``ids.shape + params[0].shape[1:]``.
    """
    if isinstance(ids, RaggedTensor):
        return _embedding_lookup_ragged(params, ids, partition_strategy, name, max_norm)
    return _embedding_lookup_and_transform(params, ids, partition_strategy, name, max_norm)


def _embedding_lookup_and_transform(params, ids, partition_strategy="mod", name=None, max_norm=None,
                                    transform_fn=None):
    """:func:`embedding_lookup`, with ``transform_fn`` applied to the (clipped)
    rows of each shard before they are put back in order (TF's private helper
    of the same name; the result's row shape is then the transformed one)."""
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if hasattr(params, "_get_variable_list"):  # PartitionedVariable: its shards
        params = list(params)
    params = list(params) if isinstance(params, (list, tuple)) else [params]
    with name_scope(name, "embedding_lookup", params + [ids]) as scope:
        n = len(params)
        # arrays become constants, as TF's convert_n_to_tensor_or_indexed_slices(params, name="params")
        params = [convert_to_tensor(p, name=f"params_{i}") if isinstance(p, np.ndarray) else p
                  for i, p in enumerate(params)]
        ids = convert_to_tensor(ids, name="ids")
        if n == 1 and (not transform_fn or ids.shape.ndims == 1):
            with colocate_with(params[0]):
                result = _clip(array_ops.gather(params[0], ids, name=scope), ids, max_norm)
                if transform_fn:
                    result = transform_fn(result)
            return identity(result)
        if partition_strategy not in ("mod", "div"):
            raise ValueError(f"Unrecognized partition strategy: {partition_strategy}. Must be one of either "
                             f"`mod` or `div`.")
        flat_ids = array_ops.reshape(ids, [-1])
        original_indices = math_ops.range(array_ops.size(flat_ids))
        if partition_strategy == "mod":  # TF's operators: "mod", "floordiv"
            p_assignments = flat_ids % n
            new_ids = flat_ids // n
        else:
            # TF's operators throughout (nodes "floordiv", "mod", "sub", "add"); the
            # total row count a constant when every shard's is known
            rows = [dimension_value(TensorShape(p.shape)[0]) if TensorShape(p.shape).ndims else None
                    for p in params]
            if None not in rows and sum(rows):
                num_total_ids = constant(sum(rows), dtype=flat_ids.dtype)
            else:  # a shard of unknown length: count at run time
                sizes = []
                for p, r in zip(params, rows):
                    if r is not None:
                        sizes.append(r)
                    else:
                        with colocate_with(p):
                            sizes.append(array_ops.shape(p)[0])
                num_total_ids = math_ops.reduce_sum(math_ops.cast(array_ops.stack(sizes), flat_ids.dtype))
            ids_per_partition = num_total_ids // n
            extras = num_total_ids % n
            p_assignments = math_ops.maximum(flat_ids // (ids_per_partition + 1),
                                             (flat_ids - extras) // ids_per_partition)
            new_ids = array_ops.where(p_assignments < extras, flat_ids % (ids_per_partition + 1),
                                      (flat_ids - extras) % ids_per_partition)
        p_assignments = math_ops.cast(p_assignments, dtypes.int32)
        gather_ids = array_ops.dynamic_partition(new_ids, p_assignments, n)
        pindices = array_ops.dynamic_partition(original_indices, p_assignments, n)
        partitioned = []
        for p in range(n):
            with colocate_with(params[p]):
                result = array_ops.gather(params[p], gather_ids[p])
                if transform_fn:  # the shard's rows clipped, then transformed, before stitching
                    result = transform_fn(_clip(result, gather_ids[p], max_norm))
                partitioned.append(result)
        ret = array_ops.parallel_dynamic_stitch(pindices, partitioned, name=scope)
        if transform_fn is not None:  # the row shape is the transformed one
            element_shape = ret.shape[1:]
            dynamic = element_shape.as_list() if element_shape.is_fully_defined() else array_ops.shape(ret)[1:]
            ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), dynamic], 0))
            ret.set_shape(ids.shape.concatenate(element_shape))
            return ret
        row_shape = TensorShape(params[0].shape)[1:]
        for p in params[1:]:
            row_shape = row_shape.merge_with(TensorShape(p.shape)[1:])
        if row_shape.is_fully_defined():
            element_shape = row_shape.as_list()  # converted inside concat, after shape(ids), as TF
        else:
            with colocate_with(params[0]):
                element_shape = array_ops.shape(params[0])[1:]
        ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), element_shape], 0))
        ret.set_shape(ids.shape.concatenate(row_shape))
        return _clip(ret, ids, max_norm)


def _embedding_lookup_ragged(params, ids, partition_strategy, name, max_norm):
    """Ragged ``ids``: the lookup of their flat values, in the ids' rows (TF's
    ``ragged_embedding_ops.embedding_lookup``)."""
    if params is None:
        raise ValueError("params must be specified.")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("params should not be empty.")
    if ids.dtype not in (dtypes.int32, dtypes.int64):
        raise ValueError(f"The values contained by the inputs have type {ids.dtype} and cannot be processed. All "
                         f"values should be indices, either of type `int32` or `int64`.")
    with name_scope(name, "embedding_lookup_ragged"):
        return map_flat_values(embedding_lookup, params=params, ids=ids, partition_strategy=partition_strategy,
                               max_norm=max_norm)


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner=None,
                            max_norm=None, allow_fast_lookup=False):
    """Per row of the SparseTensor ``sp_ids``, the ``combiner`` ("mean" by
    default, "sqrtn" or "sum") of the embeddings of its ids, weighted by
    ``sp_weights`` (a SparseTensor with the same indices, or None for 1).

    ``mean``: sum(w * e) / sum(w); ``sqrtn``: sum(w * e) / sqrt(sum(w**2));
    rows without ids give zeros. (TF's embedding_ops.embedding_lookup_sparse:
    the unique ids are looked up once.)
    """
    if combiner is None:
        combiner = "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if hasattr(params, "_get_variable_list"):  # a PartitionedVariable
        params = list(params)
    if not isinstance(params, list):
        params = [params]
    ignore_weights = sp_weights is None
    if isinstance(sp_ids, RaggedTensor):  # TF's ragged_embedding_ops.embedding_lookup_sparse
        if not ignore_weights:
            if not isinstance(sp_weights, RaggedTensor):
                raise TypeError(f"sp_ids must be of the same type as sp_weights, received "
                                f"{type(sp_ids).__name__!r} for sp_ids and {type(sp_weights).__name__!r} for "
                                f"sp_weights.")
            sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
            sp_ids.shape.assert_is_compatible_with(sp_weights.shape)
        with name_scope(name, "embedding_lookup_sparse", params + [sp_ids]) as name:
            return _lookup_sparse_impl(params, sp_ids.value_rowids(), sp_weights, sp_ids.flat_values, combiner,
                                       ignore_weights, max_norm, allow_fast_lookup, partition_strategy, name)
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    if not ignore_weights:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError(f"sp_weights must be either None or SparseTensor, got {type(sp_weights)}")
        sp_ids.values.shape.assert_is_compatible_with(sp_weights.values.shape)
        sp_ids.indices.shape.assert_is_compatible_with(sp_weights.indices.shape)
        sp_ids.dense_shape.shape.assert_is_compatible_with(sp_weights.dense_shape.shape)
    with name_scope(name, "embedding_lookup_sparse", params + [sp_ids]) as name:
        return _lookup_sparse_impl(params, sp_ids.indices[:, 0], sp_weights, sp_ids.values, combiner,
                                   ignore_weights, max_norm, allow_fast_lookup, partition_strategy, name)


def _lookup_sparse_impl(params, segment_ids, sp_weights, ids, combiner, ignore_weights, max_norm,
                        allow_fast_lookup, partition_strategy, name):
    """The combined embeddings of ``ids`` grouped by ``segment_ids`` (TF's
    ``embedding_lookup_sparse_impl``, shared by the sparse and ragged forms)."""
    sparse_gradient = False
    if len(params) == 1 and params[0].device == segment_ids.device and max_norm is None and (
            allow_fast_lookup or ignore_weights):
        # TF 2.21's fast path: the segment reduction reads the table at the ids
        # themselves (no Unique / gather); without allow_fast_lookup its gradient
        # is an IndexedSlices (sparse_gradient=True)
        idx, embeddings = ids, params[0]
        sparse_gradient = not allow_fast_lookup
    else:
        ids, idx = array_ops.unique(ids)
        embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy, max_norm=max_norm)
    if ignore_weights:
        if segment_ids.dtype not in (dtypes.int32, dtypes.int64):
            segment_ids = math_ops.cast(segment_ids, dtypes.int32)
        segment = {"sum": sparse_ops.sparse_segment_sum, "mean": sparse_ops.sparse_segment_mean,
                   "sqrtn": sparse_ops.sparse_segment_sqrt_n}[combiner]
        return segment(embeddings, idx, segment_ids, name=name, sparse_gradient=sparse_gradient)
    segment_ids = math_ops.cast(segment_ids, dtypes.int32)
    weights = sp_weights.values
    embeddings = array_ops.gather(embeddings, idx)
    original_dtype = embeddings.dtype
    if embeddings.dtype in (dtypes.float16, dtypes.bfloat16):
        embeddings = math_ops.cast(embeddings, dtypes.float32)
    if weights.dtype != embeddings.dtype:
        weights = math_ops.cast(weights, embeddings.dtype)
    ones_shape = array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0)
    weights_shape = array_ops.shape(weights)
    ones = array_ops.ones(ones_shape, dtype=weights_shape.dtype)
    bcast_shape = array_ops.concat([weights_shape, ones], 0)
    orig_weights_shape = weights.shape
    weights = array_ops.reshape(weights, bcast_shape)
    if embeddings.shape.ndims is not None:
        weights.set_shape(orig_weights_shape.concatenate([1] * (embeddings.shape.ndims - 1)))
    embeddings = embeddings * weights
    if combiner == "sum":
        embeddings = array_ops.segment_sum(embeddings, segment_ids, name=name)
    else:
        embeddings = array_ops.segment_sum(embeddings, segment_ids)
        w = weights if combiner == "mean" else math_ops.pow(weights, 2)
        weight_sum = array_ops.segment_sum(w, segment_ids)
        if combiner == "sqrtn":
            weight_sum = math_ops.sqrt(weight_sum)
        embeddings = math_ops.div_no_nan(embeddings, weight_sum, name=name)
    if embeddings.dtype != original_dtype:
        embeddings = math_ops.cast(embeddings, original_dtype)
    return embeddings


def _retain(sp_ids, sp_weights, keep):
    sp_ids = sparse_ops.sparse_retain(sp_ids, keep)
    if sp_weights is not None:
        sp_weights = sparse_ops.sparse_retain(sp_weights, keep)
    return sp_ids, sp_weights


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, name=None, partition_strategy="div", max_norm=None,
                                 allow_fast_lookup=False):
    """:func:`embedding_lookup_sparse` over ``sparse_ids`` of any rank >= 2 (all
    but the last dimension are batch dimensions), dropping ids < 0 (and, unless
    ``combiner`` is "sum", weights <= 0); a row left empty gives the embedding of
    ``default_id``, or zeros when it is None. TF's ``safe_embedding_lookup_sparse``."""
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if not isinstance(embedding_weights, (list, tuple)):
        embedding_weights = list(embedding_weights) if hasattr(embedding_weights, "_get_variable_list") \
            else [embedding_weights]
    embedding_weights = list(embedding_weights)
    if not embedding_weights:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [w if hasattr(w, "_variable") or hasattr(w, "initializer")
                         else convert_to_tensor(w, dtype=dtype) for w in embedding_weights]
    if isinstance(sparse_ids, RaggedTensor):
        return _safe_lookup_ragged(embedding_weights, sparse_ids, sparse_weights, combiner, default_id, name,
                                   partition_strategy, max_norm, allow_fast_lookup)
    with name_scope(name, "embedding_lookup", embedding_weights + [sparse_ids, sparse_weights]) as scope:
        original_shape = sparse_ids.dense_shape
        rank_dim = dimension_value(original_shape.get_shape()[0])
        rank = array_ops.size(original_shape) if rank_dim is None else rank_dim
        sparse_ids = sparse_ops.sparse_reshape(sparse_ids, [
            math_ops.reduce_prod(array_ops.slice(original_shape, [0], [rank - 1])),
            array_ops.gather(original_shape, rank - 1)])
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values, sparse_ids.dense_shape)
        keep = math_ops.greater_equal(sparse_ids.values, 0)
        if sparse_weights is not None:  # TF: and-ed with ones_like(weights) (the two must have one length)
            keep = math_ops.logical_and(keep, array_ops.ones_like(sparse_weights.values, dtype=dtypes.bool))
        sparse_ids, sparse_weights = _retain(sparse_ids, sparse_weights, keep)
        if combiner != "sum" and sparse_weights is not None:
            sparse_ids, sparse_weights = _retain(sparse_ids, sparse_weights,
                                                 math_ops.greater(sparse_weights.values, 0))
        sparse_ids, is_row_empty = sparse_ops.sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_ops.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
                                         partition_strategy=partition_strategy,
                                         name=None if default_id is None else scope, max_norm=max_norm)
        if default_id is None:
            empty = array_ops.tile(array_ops.reshape(is_row_empty, [-1, 1]),
                                   array_ops.stack([1, array_ops.shape(result)[1]]))
            result = array_ops.where(empty, array_ops.zeros_like(result), result, name=scope)
        final = array_ops.reshape(result, array_ops.concat([
            array_ops.slice(math_ops.cast(original_shape, dtypes.int32), [0], [rank - 1]),
            array_ops.slice(array_ops.shape(result), [1], [-1])], 0))
        outer = TensorShape(None) if rank_dim is None else TensorShape([None] * (rank_dim - 1))
        final.set_shape(outer.concatenate(result.get_shape()[1:]))
        return final


def _safe_lookup_ragged(embedding_weights, ids, weights, combiner, default_id, name, partition_strategy, max_norm,
                        allow_fast_lookup):
    """``safe_embedding_lookup_sparse`` of rank-2 RaggedTensors (TF's
    ``ragged_embedding_ops``): the values with ids < 0 (and, unless "sum", with
    weights <= 0) dropped, empty rows filled with ``default_id`` (weight 1),
    then :func:`embedding_lookup_sparse`; rows that were empty are zeros when
    ``default_id`` is None."""
    with name_scope(name, "embedding_lookup", embedding_weights + [ids, weights]) as scope:
        keep = math_ops.greater_equal(ids.values, 0)
        masked = ragged_array_ops.boolean_mask_values
        ids, weights = masked(ids, keep), None if weights is None else masked(weights, keep)
        if combiner != "sum" and weights is not None:
            keep = math_ops.greater(weights.values, 0)
            ids, weights = masked(ids, keep), masked(weights, keep)
        ids, is_row_empty = ragged_array_ops.fill_empty_rows(ids, default_id or 0)
        if weights is not None:
            weights, _ = ragged_array_ops.fill_empty_rows(weights, 1.0)
        result = embedding_lookup_sparse(embedding_weights, ids, weights, combiner=combiner,
                                         partition_strategy=partition_strategy,
                                         name=None if default_id is None else scope, max_norm=max_norm,
                                         allow_fast_lookup=allow_fast_lookup)
        if default_id is None:
            empty = array_ops.tile(array_ops.reshape(is_row_empty, [-1, 1]),
                                   array_ops.stack([1, array_ops.shape(result)[1]]))
            result = array_ops.where(empty, array_ops.zeros_like(result), result, name=scope)
        return result


# TF2's signatures (TF's embedding_ops keeps both; tf.compat.v1 exports the ones
# above): the "div" partition strategy, no partition_strategy argument.

def embedding_lookup_v2(params, ids, max_norm=None, name=None):
    """:func:`embedding_lookup` with the "div" strategy (TF2's ``tf.nn.embedding_lookup``)."""
    return embedding_lookup(params, ids, "div", name, max_norm=max_norm)


def embedding_lookup_sparse_v2(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None,
                               allow_fast_lookup=False):
    """:func:`embedding_lookup_sparse` with the "div" strategy."""
    return embedding_lookup_sparse(params, sp_ids, sp_weights, "div", name, combiner, max_norm,
                                   allow_fast_lookup=allow_fast_lookup)


def safe_embedding_lookup_sparse_v2(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                    default_id=None, max_norm=None, name=None, allow_fast_lookup=False):
    """:func:`safe_embedding_lookup_sparse` with the "div" strategy."""
    return safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner, default_id, name,
                                        "div", max_norm, allow_fast_lookup=allow_fast_lookup)
