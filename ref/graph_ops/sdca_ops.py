"""``tf.train.sdca_*`` builders (TF's ``gen_sdca_ops``): the SDCA helper ops."""
from __future__ import annotations

from ref.framework.graph import apply_op, convert_to_tensor
from ref.types import dtypes

__all__ = ["sdca_fprint", "sdca_shrink_l1"]


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
