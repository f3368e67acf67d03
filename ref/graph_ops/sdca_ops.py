"""``tf.train.sdca_*`` builders (TF's ``gen_sdca_ops``): the SDCA helper ops."""
from __future__ import annotations

import collections

from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.types import dtypes

__all__ = ["sdca_fprint", "sdca_optimizer", "sdca_optimizer_v2", "sdca_shrink_l1"]


def sdca_shrink_l1(weights, l1, l2, name=None):
    """Applies L1 regularization shrink step on the parameters.

    Each weight becomes ``sign(w) * max(|w| - l1 / l2, 0)``, in place.

    Args:
      weights: A list of mutable ``float32`` Tensors (variables): vectors where
        each value is the weight associated with a feature group.
      l1: A ``float``. Symmetric l1 regularization strength.
      l2: A ``float``. Symmetric l2 regularization strength. Should be a positive float.
      name: A name for the operation (optional).

    Returns:
      The created Operation.
    """
    if not isinstance(weights, (list, tuple)):
        raise TypeError(f"Expected list for 'weights' argument to 'sdca_shrink_l1' Op, not {weights!r}.")
    for w in weights:
        dt = getattr(w, "dtype", None)
        if dt is not None and dt.base_dtype != dtypes.float32:
            raise TypeError(f"Input 'weights' of 'SdcaShrinkL1' Op has type {dt.base_dtype.name} "
                            "that does not match expected type of float32_ref.")
    return apply_op("SdcaShrinkL1", name=name, weights=list(weights), l1=float(l1), l2=float(l2))


def sdca_fprint(input, name=None):  # noqa: A002  (TF's argument name)
    """Computes fingerprints of the input strings.

    Args:
      input: A ``Tensor`` of type ``string``: a vector of strings to compute
        fingerprints on.
      name: A name for the operation (optional).

    Returns:
      An ``int64`` Tensor of shape ``[N, 2]``: for each string its 128-bit
      farmhash fingerprint as [low64, high64] (low64 never 0 or 1).
    """
    t = convert_to_tensor(input, dtype=dtypes.string)
    return apply_op("SdcaFprint", name=name, input=t)


SdcaOptimizerOutput = collections.namedtuple(
    "SdcaOptimizer", ["out_example_state_data", "out_delta_sparse_weights", "out_delta_dense_weights"])


def _sdca(op_type, adaptive_attr, sparse_example_indices, sparse_feature_indices, sparse_feature_values,
          dense_features, example_weights, example_labels, sparse_indices, sparse_weights, dense_weights,
          example_state_data, loss_type, l1, l2, num_loss_partitions, num_inner_iterations, adaptive, name):
    lists = dict(sparse_example_indices=sparse_example_indices, sparse_feature_indices=sparse_feature_indices,
                 sparse_feature_values=sparse_feature_values, dense_features=dense_features,
                 sparse_indices=sparse_indices, sparse_weights=sparse_weights, dense_weights=dense_weights)
    for arg, v in lists.items():
        if not isinstance(v, (list, tuple)):
            raise TypeError(f"Expected list for '{arg}' argument to '{op_type}' Op, not {v!r}.")
    n_sparse = len(sparse_example_indices)
    for arg in ("sparse_feature_indices", "sparse_indices", "sparse_weights"):
        if len(lists[arg]) != n_sparse:
            raise ValueError(f"List argument '{arg}' to '{op_type}' Op with length {len(lists[arg])} must match "
                             f"length {n_sparse} of argument 'sparse_example_indices'.")
    if len(dense_weights) != len(dense_features):
        raise ValueError(f"List argument 'dense_weights' to '{op_type}' Op with length {len(dense_weights)} must "
                         f"match length {len(dense_features)} of argument 'dense_features'.")
    if loss_type not in ("logistic_loss", "squared_loss", "hinge_loss", "smooth_hinge_loss", "poisson_loss"):
        raise ValueError(f"Attr 'loss_type' of '{op_type}' Op passed string '{loss_type}' not in: "
                         "'logistic_loss', 'squared_loss', 'hinge_loss', 'smooth_hinge_loss', 'poisson_loss'.")
    conv = {}
    for arg, dt in (("sparse_example_indices", dtypes.int64), ("sparse_feature_indices", dtypes.int64),
                    ("sparse_feature_values", dtypes.float32), ("dense_features", dtypes.float32),
                    ("sparse_indices", dtypes.int64), ("sparse_weights", dtypes.float32),
                    ("dense_weights", dtypes.float32)):
        conv[arg] = [convert_to_tensor(v, dtype=dt) for v in lists[arg]]
    outs = apply_op(op_type, name=name, **conv,
                    example_weights=convert_to_tensor(example_weights, dtype=dtypes.float32),
                    example_labels=convert_to_tensor(example_labels, dtype=dtypes.float32),
                    example_state_data=convert_to_tensor(example_state_data, dtype=dtypes.float32),
                    loss_type=loss_type, l1=float(l1), l2=float(l2), num_loss_partitions=int(num_loss_partitions),
                    num_inner_iterations=int(num_inner_iterations), **{adaptive_attr: bool(adaptive)})
    outs = list(outs)
    return SdcaOptimizerOutput(outs[0], outs[1:1 + n_sparse], outs[1 + n_sparse:])


def sdca_optimizer(sparse_example_indices, sparse_feature_indices, sparse_feature_values, dense_features,
                   example_weights, example_labels, sparse_indices, sparse_weights, dense_weights,
                   example_state_data, loss_type, l1, l2, num_loss_partitions, num_inner_iterations,
                   adaptative=True, name=None):
    """Distributed version of Stochastic Dual Coordinate Ascent (SDCA) optimizer for
    linear models with L1 + L2 regularization.

    One pass over the mini-batch: each example's dual variable takes the step
    that maximizes the dual objective for ``loss_type`` (one of
    ``logistic_loss``, ``squared_loss``, ``hinge_loss``, ``smooth_hinge_loss``,
    ``poisson_loss``), and the weight deltas follow. As TF's op, the examples
    are visited in a random order in TF; ref visits them in index order (with
    ``adaptative``, each once, most probable first).

    Args:
      sparse_example_indices: A list of ``int64`` vectors: example indices.
      sparse_feature_indices: A list of ``int64`` vectors: feature indices.
      sparse_feature_values: A list of ``float32`` vectors: feature values of the
        first feature groups (missing values are 1).
      dense_features: A list of ``float32`` matrices: dense feature values.
      example_weights: A ``float32`` vector: each example's weight.
      example_labels: A ``float32`` vector: each example's label/target.
      sparse_indices: A list of ``int64`` vectors: the feature indices the
        sparse weights are for.
      sparse_weights: A list of ``float32`` vectors: sparse feature group weights.
      dense_weights: A list of ``float32`` vectors: dense feature group weights.
      example_state_data: A ``float32`` ``[N, 4]`` matrix: the example state data.
      loss_type: A ``string``: the loss.
      l1: A ``float``: symmetric l1 regularization strength.
      l2: A ``float``: symmetric l2 regularization strength.
      num_loss_partitions: An ``int >= 1``: number of partitions of the global loss.
      num_inner_iterations: An ``int >= 1``: inner iterations (unused, as in TF's kernel).
      adaptative: An optional ``bool`` (default True): adaptive SDCA.
      name: A name for the operation (optional).

    Returns:
      A tuple ``(out_example_state_data, out_delta_sparse_weights,
      out_delta_dense_weights)``.
    """
    return _sdca("SdcaOptimizer", "adaptative", sparse_example_indices, sparse_feature_indices,
                 sparse_feature_values, dense_features, example_weights, example_labels, sparse_indices,
                 sparse_weights, dense_weights, example_state_data, loss_type, l1, l2, num_loss_partitions,
                 num_inner_iterations, adaptative, name)


def sdca_optimizer_v2(sparse_example_indices, sparse_feature_indices, sparse_feature_values, dense_features,
                      example_weights, example_labels, sparse_indices, sparse_weights, dense_weights,
                      example_state_data, loss_type, l1, l2, num_loss_partitions, num_inner_iterations,
                      adaptive=True, name=None):
    """:func:`sdca_optimizer` as the ``SdcaOptimizerV2`` op (its attr spelt ``adaptive``)."""
    return _sdca("SdcaOptimizerV2", "adaptive", sparse_example_indices, sparse_feature_indices,
                 sparse_feature_values, dense_features, example_weights, example_labels, sparse_indices,
                 sparse_weights, dense_weights, example_state_data, loss_type, l1, l2, num_loss_partitions,
                 num_inner_iterations, adaptive, name)
