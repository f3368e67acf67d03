"""Kernels of TF's SDCA helpers (``tf.train.sdca_*``; ``tensorflow/core/kernels/sdca_ops.cc``).

``SdcaShrinkL1``: the proximal L1 step on each weight tensor, in float32::

    shrinkage = l1 / l2
    w <- sign(w) * max(|w| - shrinkage, 0)

``SdcaFprint``: for each string of a vector, farmhash's 128-bit fingerprint
(``ref/ops/farmhash.py``) as an int64 pair [low64, high64]; a low64 of 0 or 1
is moved to low64 + 2**64 - 2 so that 0 and 1 never occur.
"""
from __future__ import annotations

import math

import numpy as np

from ref.ops.farmhash import M as _M, fingerprint128
from ref.ops.registry import register_op, REQUIRED, invalid_argument
from ref.types import dtypes, errors


def _no_outputs(ins, attrs):
    return []


@register_op("SdcaShrinkL1", inputs=("weights",), outputs=(), attrs={"l1": REQUIRED, "l2": REQUIRED},
             list_inputs={"weights": "num_features"}, refs=("weights",), shape=_no_outputs)
def sdca_shrink_l1(weights, l1, l2, num_features=None):
    """weights[i] <- sign(w) * max(|w| - l1 / l2, 0), each a float32 tensor (returns the new values)."""
    shrinkage = np.float32(np.float32(l1) / np.float32(l2))
    return ([np.sign(w) * np.maximum(np.abs(w) - shrinkage, np.float32(0)) for w in weights],)


def _fprint_shape(ins, attrs):
    s = ins["input"].shape
    if s.ndims is not None and s.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.ndims} for '{attrs['_op_name']}' (op: 'SdcaFprint') "
                         f"with input shapes: {s}.")
    return [(dtypes.int64, [s.dims[0] if s.ndims else None, 2])]


@register_op("SdcaFprint", inputs=("input",), outputs=("output",), allowed={}, shape=_fprint_shape)
def sdca_fprint(input):  # noqa: A002  (TF's argument name)
    """output[i] = (low64, high64) of farmhash ``Fingerprint128(input[i])`` as int64;
    a low64 of 0 or 1 becomes low64 + 2**64 - 2 (0 and 1 stay free as sentinels)."""
    arr = np.asarray(input)
    if arr.ndim != 1:
        raise invalid_argument(f"Input must be a vector, got shape {list(arr.shape)}")
    out = np.empty((arr.shape[0], 2), np.uint64)
    for i, s in enumerate(arr.tolist()):
        lo, hi = fingerprint128(s if isinstance(s, bytes) else str(s).encode())
        out[i] = (lo if lo >= 2 else lo + _M - 1, hi)
    return out.view(np.int64)


# -- SdcaOptimizer / SdcaOptimizerV2 ------------------------------------------
#
# One pass of stochastic dual coordinate ascent over a mini-batch (TF's
# sdca_ops.cc / sdca_internal.cc and the loss updaters in
# {logistic,squared,hinge,smooth-hinge,poisson}-loss.h). For each example i,
# with dual a_i, label y_i (converted), weight c_i, regularization l1, l2 and
# k = num_loss_partitions:
#
#   shrink(w)  = sign(w) * max(|w| - l1 / l2, 0)
#   wx         = sum_j x_ij * shrink(w_j + k * dw_j)      (dw: this call's deltas so far)
#   prev_wx    = sum_j x_ij * shrink(w_j)
#   q          = |x_i|^2 / l2
#   a_i'       = the loss's dual update (k, y_i, c_i, a_i, wx, q)
#   dw_j      += x_ij * (a_i' - a_i) * c_i / l2
#   state[i]   = [a_i', primal_loss(prev_wx), dual_loss(a_i), c_i]


def _logistic_dual(k, y, c, a, wx, q):
    x = 0.0
    for _ in range(10):  # Newton on the tanh-reparametrised dual (10 steps, as TF)
        t = math.tanh(x)
        num = -2 * y * x - wx - k * q * c * (0.5 * (1 + t) / y - a)
        den = -2 * y - k * q * c * (1 - t * t) * 0.5 / y
        x = x - num / den
    return 0.5 * (1 + math.tanh(x)) / y


def _logistic_dual_loss(a, y, c):
    ay = a * y
    la = math.log(ay) if ay > 0 else 0.0
    om = 1 - ay
    lo = math.log(om) if om > 0 else 0.0
    return (ay * la + om * lo) * c


def _logistic_primal(wx, y, c):
    ywx = y * wx
    if ywx > 0:
        return math.log1p(_exp(-ywx)) * c
    return (math.log1p(_exp(ywx)) - ywx) * c


def _logistic_derivative(wx, y, c):
    if y * wx > 0:
        e = _exp(-y * wx) / (1 + _exp(-y * wx))
    else:
        e = 1 / (1 + _exp(y * wx))
    return -e * y * c


def _squared_dual(k, y, c, a, wx, q):
    return a + (y - a - wx) / (1 + k * q * c)


def _clip_dual(y, cand):
    if y * cand < 0:
        return 0.0
    if y * cand > 1.0:
        return y
    return cand


def _hinge_dual(k, y, c, a, wx, q):
    with np.errstate(all="ignore"):
        cand = float(np.float64(a) + np.float64(y - wx) / np.float64(k * c * q))
    return _clip_dual(y, cand)


def _hinge_dual_loss(a, y, c):
    ya = a * y
    return _DBL_MAX if ya < 0 or ya > 1.0 else -ya * c


def _smooth_hinge_dual(k, y, c, a, wx, q, gamma=1.0):
    return _clip_dual(y, a + (y - wx - gamma * a) / (k * c * q + gamma))


def _smooth_hinge_dual_loss(a, y, c, gamma=1.0):
    ya = a * y
    return _DBL_MAX if ya < 0 or ya > 1.0 else (-ya + 0.5 * gamma * a * a) * c


def _smooth_hinge_primal(wx, y, c, gamma=1.0):
    ywx = y * wx
    if ywx >= 1:
        return 0.0
    if ywx <= 1 - gamma:
        return (1 - ywx - gamma / 2) * c
    return (1 - ywx) * (1 - ywx) * c * 0.5 / gamma


def _smooth_hinge_derivative(wx, y, c, gamma=1.0):
    if y * wx >= 1:
        return 0.0
    if y * wx <= 1 - gamma:
        return -y
    return (wx - y) / gamma


def _poisson_dual(k, y, c, a, wx, q):
    d = y - a
    x = math.log(d) if d > 0 else 0.0
    for _ in range(10):
        e = math.exp(x)
        x = x - (x - wx - k * q * c * (y - a - e)) / (1 + k * q * c * e)
    return y - math.exp(x)


def _poisson_dual_loss(a, y, c):
    d = y - a
    if d == 0.0:
        return 0.0
    if d < 0.0:
        return _DBL_MAX
    return d * (math.log(d) - 1) * c


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _binary_label(y):
    if y == 0.0:
        return -1.0
    if y == 1.0:
        return 1.0
    raise invalid_argument(f"Only labels of 0.0 or 1.0 are supported right now. Found example with label: {_g(y)}")


def _poisson_label(y):
    if y < 0.0:
        raise invalid_argument("Only non-negative labels can be used with the Poisson log loss. "
                               f"Found example with label: {_g(y)}")
    return y


def _g(x):
    return f"{float(np.float32(x)):g}"


_DBL_MAX = float(np.finfo(np.float64).max)

# loss_type -> (dual update, dual loss, primal loss, primal derivative, smoothness, label conversion)
_LOSSES = {
    "logistic_loss": (_logistic_dual, _logistic_dual_loss, _logistic_primal, _logistic_derivative, 4.0,
                      _binary_label),
    "squared_loss": (_squared_dual, lambda a, y, c: a * (0.5 * a - y) * c,
                     lambda wx, y, c: (wx - y) * (wx - y) * c * 0.5, lambda wx, y, c: (wx - y) * c, 1.0,
                     lambda y: y),
    "hinge_loss": (_hinge_dual, _hinge_dual_loss, lambda wx, y, c: max(0.0, 1 - y * wx) * c,
                   lambda wx, y, c: -y * c if y * wx < 1 else 0.0, 0.0, _binary_label),
    "smooth_hinge_loss": (_smooth_hinge_dual, _smooth_hinge_dual_loss, _smooth_hinge_primal,
                          _smooth_hinge_derivative, 1.0, _binary_label),
    "poisson_loss": (_poisson_dual, _poisson_dual_loss, lambda wx, y, c: (_exp(wx) - wx * y) * c,
                     lambda wx, y, c: (_exp(wx) - y) * c, 1.0, _poisson_label),
}


def _shrink32(w, shrinkage):
    """TF's EigenShrinkVector, in float32."""
    return np.sign(w) * np.maximum(np.abs(w) - shrinkage, np.float32(0))


def _shrink64(w, shrinkage):
    """TF's Regularizations::Shrink, in float64."""
    s = max(abs(w) - shrinkage, 0.0)
    return math.copysign(s, w) if s > 0.0 else 0.0


def _sdca_parse_sparse(example_indices, feature_indices, num_examples):
    """Per example, the (start, end) slice of a group's entries, as TF parses
    them: entries are taken in order while their example index is the next one."""
    spans = []
    end = 0
    n = example_indices.shape[0]
    for e in range(num_examples):
        start = end
        while end < n and example_indices[end] == e:
            end += 1
        spans.append((start, end))
    return spans


def _sdca_shape(ins, attrs):
    out = [(dtypes.float32, [None, 4])]
    out += [(dtypes.float32, s.shape) for s in ins["sparse_weights"]]
    out += [(dtypes.float32, s.shape) for s in ins["dense_weights"]]
    return out


_SDCA_INPUTS = ("sparse_example_indices", "sparse_feature_indices", "sparse_feature_values", "dense_features",
                "example_weights", "example_labels", "sparse_indices", "sparse_weights", "dense_weights",
                "example_state_data")
_SDCA_LISTS = {"sparse_example_indices": "num_sparse_features", "sparse_feature_indices": "num_sparse_features",
               "sparse_feature_values": "num_sparse_features_with_values",
               "dense_features": "num_dense_features", "sparse_indices": "num_sparse_features",
               "sparse_weights": "num_sparse_features", "dense_weights": "num_dense_features"}
_SDCA_ATTRS = {"loss_type": REQUIRED, "num_sparse_features": None, "num_sparse_features_with_values": None,
               "num_dense_features": None, "l1": REQUIRED, "l2": REQUIRED, "num_loss_partitions": REQUIRED,
               "num_inner_iterations": REQUIRED}


def _sdca(sparse_example_indices, sparse_feature_indices, sparse_feature_values, dense_features,
          example_weights, example_labels, sparse_indices, sparse_weights, dense_weights, example_state_data,
          loss_type, adaptive, l1, l2, num_loss_partitions, num_inner_iterations):
    if loss_type not in _LOSSES:
        raise invalid_argument(f"Unsupported loss type: {loss_type}")
    dual_update, dual_loss, primal_loss, derivative, smoothness, convert = _LOSSES[loss_type]
    n_sparse, n_dense = len(sparse_example_indices), len(dense_features)
    if n_sparse + n_dense == 0:
        raise invalid_argument("Requires at least one feature to train.")
    if len(sparse_indices) != len(sparse_weights):
        raise invalid_argument("sparse_indices and sparse_weights must have the same length, got "
                               f"{len(sparse_indices)} and {len(sparse_weights)}")
    if len(sparse_weights) != n_sparse or len(sparse_feature_values) > n_sparse:
        raise invalid_argument(f"Expected {n_sparse} tensors in sparse_indices and sparse_weights (and at most as "
                               f"many in sparse_feature_values), got {len(sparse_weights)} and "
                               f"{len(sparse_feature_values)}")
    if len(dense_weights) != n_dense:
        raise invalid_argument(f"out_delta_dense_weights and dense_weights must have the same length, got "
                               f"{n_dense} and {len(dense_weights)}")
    if len(sparse_feature_indices) != n_sparse:
        raise invalid_argument(f"Expected {n_sparse} tensors in sparse_feature_indices but got "
                               f"{len(sparse_feature_indices)}")
    l1f, l2f = np.float32(l1), np.float32(l2)
    shrink64 = float(np.float32(l1f / l2f))  # TF divides the float attrs, then widens
    shrink32 = np.float32(shrink64)
    l2d = float(l2f)
    k = int(num_loss_partitions)
    kf = np.float32(k)
    ew = np.asarray(example_weights, np.float32).reshape(-1)
    labels = np.asarray(example_labels, np.float32).reshape(-1)
    n = ew.shape[0]
    if labels.shape[0] != n:
        raise invalid_argument(f"Expected {n} example labels but got {labels.shape[0]}")
    dense = [np.asarray(d, np.float32) for d in dense_features]
    for i, d in enumerate(dense):
        if d.ndim != 2:
            raise invalid_argument(f"Dense features at index {i} must be rank 2 but is rank {d.ndim}")
    # Weights: nominal values (flattened) and this call's deltas.
    sp_nom = [np.asarray(w, np.float32).reshape(-1) for w in sparse_weights]
    sp_delta = [np.zeros(w.shape, np.float32) for w in sp_nom]
    sp_id = [{int(v): j for j, v in enumerate(np.asarray(ix).reshape(-1).tolist())} for ix in sparse_indices]
    de_nom = [np.asarray(w, np.float32).reshape(-1) for w in dense_weights]
    de_delta = [np.zeros(w.shape, np.float32) for w in de_nom]
    # Sparse features per example: (feature ids, values or None).
    groups = []
    for i in range(n_sparse):
        ex = np.asarray(sparse_example_indices[i]).reshape(-1)
        fi = np.asarray(sparse_feature_indices[i]).reshape(-1)
        if ex.shape[0] != fi.shape[0]:
            raise invalid_argument(f"Found mismatched example_indices and feature_indices [{ex}] vs [{fi}]")
        vals = np.asarray(sparse_feature_values[i], np.float32).reshape(-1) if i < len(sparse_feature_values) else None
        per = []
        for start, end in _sdca_parse_sparse(ex, fi, n):
            ids = [int(v) for v in fi[start:end].tolist()]
            for f in ids:
                if f not in sp_id[i]:
                    raise invalid_argument(f"Found sparse feature indices out of valid range: {f}")
            per.append(([sp_id[i][f] for f in ids], None if vals is None else vals[start:end].astype(np.float64)))
        groups.append(per)
    for i, d in enumerate(dense):
        if not 0 <= d.shape[1] - 1 < de_nom[i].shape[0]:
            raise invalid_argument(f"More dense features than we have parameters for: {d.shape[1]}")
    # Squared norms (float64; each dense row's sum of squares in float32, as TF).
    norms = np.zeros(n)
    for e in range(n):
        sq = 0.0
        for i in range(n_sparse):
            ids, vals = groups[i][e]
            if len(set(ids)) != len(ids):
                raise invalid_argument("Duplicate index in sparse vector.")
            sq += len(ids) if vals is None else float(np.dot(vals, vals))
        for d in dense:
            row = d[e]
            sq += float(np.sum(row * row, dtype=np.float32))
        norms[e] = sq
    state = np.array(example_state_data, np.float32, copy=True)
    if state.ndim != 2:
        raise invalid_argument(f"example_state_data must be rank 2 but is rank {state.ndim}")
    if state.shape != (n, 4):
        got = ",".join(map(str, state.shape))
        raise invalid_argument(f"Expected shape [{n},4] for example_state_data, got [{got}]")

    def stats(e):
        wx = prev = 0.0
        for i in range(n_sparse):
            ids, vals = groups[i][e]
            for t, j in enumerate(ids):
                v = 1.0 if vals is None else float(vals[t])
                nom = sp_nom[i][j]
                w = float(nom + sp_delta[i][j] * kf)  # float32 arithmetic, as TF
                prev += v * _shrink64(float(nom), shrink64)
                wx += v * _shrink64(w, shrink64)
        for i, d in enumerate(dense):
            row = d[e]
            f = row.shape[0]
            nom = de_nom[i][:f]
            cur = (de_nom[i] + de_delta[i] * kf)[:f]
            prev += float(np.sum(row * _shrink32(nom, shrink32), dtype=np.float32))
            wx += float(np.sum(row * _shrink32(cur, shrink32), dtype=np.float32))
        return wx, prev, norms[e] / l2d

    order = list(range(n))
    if adaptive:
        # TF samples examples with probability c * sqrt(|x|^2 + l2 * smoothness) * |a + loss'(wx)|
        # from an unseeded generator; ref visits each example once, most probable first.
        probs = []
        for e in range(n):
            y = float(labels[e])
            try:
                y = convert(y)
            except errors.InvalidArgumentError:
                pass  # TF ignores the conversion status here
            wx, _, _ = stats(e)
            kappa = float(state[e, 0]) + derivative(wx, y, 1.0)
            probs.append(float(np.float32(float(ew[e]) * math.sqrt(norms[e] + l2d * smoothness) * abs(kappa))))
        order = sorted(range(n), key=lambda e: -probs[e])
    for e in order:
        a = float(state[e, 0])
        c = float(ew[e])
        y = convert(float(labels[e]))
        wx, prev, q = stats(e)
        new = dual_update(k, y, c, a, wx, q)
        step = (new - a) * c / l2d
        for i in range(n_sparse):
            ids, vals = groups[i][e]
            for t, j in enumerate(ids):
                v = 1.0 if vals is None else float(vals[t])
                sp_delta[i][j] = np.float32(float(sp_delta[i][j]) + v * step)
        step32 = np.float32(step)
        for i, d in enumerate(dense):
            row = d[e]
            de_delta[i][:row.shape[0]] += row * step32
        state[e, 0] = new
        state[e, 1] = primal_loss(prev, y, c)
        state[e, 2] = dual_loss(a, y, c)
        state[e, 3] = c
    out_sparse = [dw.reshape(np.shape(w)) for dw, w in zip(sp_delta, sparse_weights)]
    out_dense = [dw.reshape(np.shape(w)) for dw, w in zip(de_delta, dense_weights)]
    return (state, *out_sparse, *out_dense)


@register_op("SdcaOptimizerV2", inputs=_SDCA_INPUTS, outputs=("*outputs",),
             attrs={**_SDCA_ATTRS, "adaptive": True}, list_inputs=_SDCA_LISTS, shape=_sdca_shape)
def sdca_optimizer_v2(sparse_example_indices, sparse_feature_indices, sparse_feature_values, dense_features,
                      example_weights, example_labels, sparse_indices, sparse_weights, dense_weights,
                      example_state_data, loss_type, l1, l2, num_loss_partitions, num_inner_iterations,
                      adaptive=True, num_sparse_features=None, num_sparse_features_with_values=None,
                      num_dense_features=None):
    """One SDCA pass over the mini-batch (formula above the kernel). Returns
    ``(out_example_state_data, *out_delta_sparse_weights, *out_delta_dense_weights)``:
    the new ``[N, 4]`` state (dual, primal loss, dual loss, example weight) and
    the weight deltas, shaped as the weights.

    Examples are visited in index order (TF shuffles them with an unseeded
    generator, and runs shards of them in parallel); with ``adaptive`` each is
    visited once, most probable first (TF samples them). ``num_inner_iterations``
    is accepted and unused, as in TF's kernel."""
    return _sdca(sparse_example_indices, sparse_feature_indices, sparse_feature_values, dense_features,
                 example_weights, example_labels, sparse_indices, sparse_weights, dense_weights, example_state_data,
                 loss_type, adaptive, l1, l2, num_loss_partitions, num_inner_iterations)


@register_op("SdcaOptimizer", inputs=_SDCA_INPUTS, outputs=("*outputs",),
             attrs={**_SDCA_ATTRS, "adaptative": True}, list_inputs=_SDCA_LISTS, shape=_sdca_shape)
def sdca_optimizer(sparse_example_indices, sparse_feature_indices, sparse_feature_values, dense_features,
                   example_weights, example_labels, sparse_indices, sparse_weights, dense_weights,
                   example_state_data, loss_type, l1, l2, num_loss_partitions, num_inner_iterations,
                   adaptative=True, num_sparse_features=None, num_sparse_features_with_values=None,
                   num_dense_features=None):
    """SdcaOptimizerV2 under its first name (its attr spelt ``adaptative``)."""
    return _sdca(sparse_example_indices, sparse_feature_indices, sparse_feature_values, dense_features,
                 example_weights, example_labels, sparse_indices, sparse_weights, dense_weights, example_state_data,
                 loss_type, adaptative, l1, l2, num_loss_partitions, num_inner_iterations)
