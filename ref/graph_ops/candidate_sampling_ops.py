"""TF1 candidate sampling and sampled losses: ``tf.nn.*_candidate_sampler``,
``compute_accidental_hits``, ``nce_loss``, ``sampled_softmax_loss``
(TF's ``candidate_sampling_ops.py`` and ``nn_impl.py``);
``embedding_lookup_sparse`` lives in :mod:`ref.graph_ops.embedding_ops`.

The samplers take ``(seed1, seed2) = get_seed(seed)`` as TF does, so with
``tf.set_random_seed`` they draw TF's candidates bit for bit
(:mod:`ref.ops.candidate_sampling`). The sampled losses build TF's graph:
the true and sampled classes' weights gathered in one ``embedding_lookup``,
true logits as row-wise dot products, ``log(expected_count)`` subtracted,
accidental hits pushed to -FLT_MAX.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.random_seed import get_seed
from ref.graph_ops import array_ops, control_flow_ops, math_ops as _m, nn_ops
from ref.graph_ops.embedding_ops import embedding_lookup

__all__ = ["uniform_candidate_sampler", "log_uniform_candidate_sampler", "learned_unigram_candidate_sampler",
           "fixed_unigram_candidate_sampler", "all_candidate_sampler", "compute_accidental_hits", "nce_loss",
           "sampled_softmax_loss"]


def _seeds(seed):
    s1, s2 = get_seed(seed)
    return {"seed": s1 or 0, "seed2": s2 or 0}


def _int64(x, name):
    x = convert_to_tensor(x, name=name)
    return _m.cast(x, dtypes.int64) if x.dtype.base_dtype != dtypes.int64 else x


def _sampler(op_type, true_classes, num_true, num_sampled, unique, seed, name, **attrs):
    return apply_op(op_type, true_classes=_int64(true_classes, "true_classes"), num_true=int(num_true),
                    num_sampled=int(num_sampled), unique=bool(unique), name=name, **attrs, **_seeds(seed))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """(sampled_candidates, true_expected_count, sampled_expected_count):
    ``num_sampled`` classes uniform in [0, range_max) (``UniformCandidateSampler``)."""
    return _sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique, seed, name,
                    range_max=int(range_max))


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """As uniform_candidate_sampler with the log-uniform (Zipfian) distribution
    P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)."""
    return _sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique, seed, name,
                    range_max=int(range_max))


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                                      name=None):
    """As uniform_candidate_sampler with a distribution learned from the true
    classes seen so far (``LearnedUnigramCandidateSampler``)."""
    return _sampler("LearnedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique, seed, name,
                    range_max=int(range_max))


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """As uniform_candidate_sampler with P(k) proportional to
    ``unigrams[k] ** distortion`` (or a vocabulary file's counts)."""
    return _sampler("FixedUnigramCandidateSampler", true_classes, num_true, num_sampled, unique, seed, name,
                    range_max=int(range_max), vocab_file=vocab_file, distortion=float(distortion),
                    num_reserved_ids=int(num_reserved_ids), num_shards=int(num_shards), shard=int(shard),
                    unigrams=[float(u) for u in unigrams])


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class in [0, num_sampled) (``AllCandidateSampler``)."""
    return _sampler("AllCandidateSampler", true_classes, num_true, num_sampled, unique, seed, name)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """(indices, ids, weights) of the sampled candidates that equal a true
    class of their row: weight -FLT_MAX each (``ComputeAccidentalHits``)."""
    return apply_op("ComputeAccidentalHits", true_classes=_int64(true_classes, "true_classes"),
                    sampled_candidates=_int64(sampled_candidates, "sampled_candidates"), num_true=int(num_true),
                    name=name, **_seeds(seed))


def _sum_rows(x):
    """Row sums as TF writes them: x . ones([cols, 1]) (a MatMul, faster on GPUs)."""
    cols = array_ops.shape(x)[1]
    ones = array_ops.ones(array_ops.stack([cols, 1]), x.dtype)
    return array_ops.reshape(_m.matmul(x, ones), [-1])


def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                            sampled_values=None, subtract_log_q=True, remove_accidental_hits=False,
                            partition_strategy="mod", name=None, seed=None):
    if not isinstance(weights, (list, tuple)):
        weights = list(weights) if hasattr(weights, "_variable_list") else [weights]
    with name_scope(name, "compute_sampled_logits", list(weights) + [biases, inputs, labels]):
        labels = _int64(labels, "labels")
        inputs = convert_to_tensor(inputs, name="inputs")
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes,
                                                           seed=seed)
        sampled, true_expected_count, sampled_expected_count = (array_ops.stop_gradient(s) for s in sampled_values)
        sampled = _m.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype.base_dtype != inputs.dtype.base_dtype:
            all_w = _m.cast(all_w, inputs.dtype.base_dtype)
        # TF takes shape(labels_flat)[0] once per slice (two StridedSlice nodes)
        true_w = array_ops.slice(all_w, [0, 0], array_ops.stack([array_ops.shape(labels_flat)[0], -1]))
        sampled_w = array_ops.slice(all_w, array_ops.stack([array_ops.shape(labels_flat)[0], 0]), [-1, -1])
        sampled_logits = _m.matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype.base_dtype != inputs.dtype.base_dtype:
            all_b = _m.cast(all_b, inputs.dtype.base_dtype)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = _m.multiply(array_ops.expand_dims(inputs, 1), array_ops.reshape(true_w, new_true_w_shape))
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_b = array_ops.reshape(true_b, [-1, num_true])
        true_logits += true_b
        sampled_logits += sampled_b
        if remove_accidental_hits:
            acc_indices, acc_ids, acc_weights = compute_accidental_hits(labels, sampled, num_true=num_true)
            acc_indices_2d = array_ops.reshape(acc_indices, [-1, 1])
            acc_ids_2d_int32 = array_ops.reshape(_m.cast(acc_ids, dtypes.int32), [-1, 1])
            sparse_indices = array_ops.concat([acc_indices_2d, acc_ids_2d_int32], 1, "sparse_indices")
            sampled_logits_shape = array_ops.concat(
                [array_ops.shape(labels)[:1], array_ops.expand_dims(num_sampled, 0)], 0)
            if sampled_logits.dtype.base_dtype != acc_weights.dtype.base_dtype:
                acc_weights = _m.cast(acc_weights, sampled_logits.dtype.base_dtype)
            sampled_logits += apply_op("SparseToDense", sparse_indices=sparse_indices, name="SparseToDense",
                                       output_shape=sampled_logits_shape, sparse_values=acc_weights,
                                       default_value=0.0, validate_indices=False)
        if subtract_log_q:
            true_logits -= _m.log(true_expected_count)
            sampled_logits -= _m.log(sampled_expected_count)
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat([_m.truediv(array_ops.ones_like(true_logits), num_true),
                                       array_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, partition_strategy="mod", name="nce_loss"):
    """Noise-contrastive estimation loss per example: the sigmoid cross-entropy
    of the true classes (label 1 / num_true) and ``num_sampled`` sampled
    classes (label 0), logits corrected by ``-log(expected_count)``."""
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy, name=name)
    sampled_losses = nn_ops.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, partition_strategy="mod",
                         name="sampled_softmax_loss", seed=None):
    """Softmax cross-entropy over the true and ``num_sampled`` sampled classes
    per example (logits corrected by ``-log(expected_count)``, accidental hits
    removed by default)."""
    logits, labels = _compute_sampled_logits(
        weights=weights, biases=biases, labels=labels, inputs=inputs, num_sampled=num_sampled,
        num_classes=num_classes, num_true=num_true, sampled_values=sampled_values, subtract_log_q=True,
        remove_accidental_hits=remove_accidental_hits, partition_strategy=partition_strategy, name=name,
        seed=seed)
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)



def nce_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
                remove_accidental_hits=False, name="nce_loss"):
    """TF2's ``tf.nn.nce_loss``: :func:`nce_loss` with ``partition_strategy="div"``."""
    return nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
                    sampled_values=sampled_values, remove_accidental_hits=remove_accidental_hits,
                    partition_strategy="div", name=name)


def sampled_softmax_loss_v2(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                            sampled_values=None, remove_accidental_hits=True, seed=None,
                            name="sampled_softmax_loss"):
    """TF2's ``tf.nn.sampled_softmax_loss``: :func:`sampled_softmax_loss` with
    ``partition_strategy="div"``."""
    return sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
                                sampled_values=sampled_values, remove_accidental_hits=remove_accidental_hits,
                                partition_strategy="div", name=name, seed=seed)
