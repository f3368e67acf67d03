"""TF1 connectionist temporal classification builders (TF's ctc_ops.py):
``tf.nn.ctc_loss`` (v1), ``tf.compat.v1.nn.ctc_loss_v2`` with SparseTensor
labels, ``tf.nn.ctc_greedy_decoder`` and ``tf.nn.ctc_beam_search_decoder``
(v1) and its ``_v2`` form."""
from __future__ import annotations

from ref.types import dtypes
from ref.graph_ops import array_ops, math_ops
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.sparse_tensor import SparseTensor
from ref.types.shapes import dimension_value

__all__ = ["ctc_loss", "ctc_loss_v2", "ctc_greedy_decoder", "ctc_beam_search_decoder",
           "ctc_beam_search_decoder_v2"]


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
             ignore_longer_outputs_than_inputs=False, time_major=True, logits=None):
    """The CTC loss, ``-log p(labels | inputs)`` per batch entry (``CTCLoss``):
    ``labels`` a SparseTensor of int32 class ids (blank is ``num_classes - 1``),
    ``inputs`` the logits ``[max_time, batch, num_classes]`` (``[batch,
    max_time, num_classes]`` when not ``time_major``), ``sequence_length``
    each entry's length."""
    if not isinstance(labels, SparseTensor):
        raise TypeError(f"Expected argument `labels` to be a SparseTensor. Received labels={labels} of type: "
                        f"{type(labels).__name__}")
    if inputs is not None and logits is not None:
        raise ValueError("Cannot specify both 'logits' and 'inputs'")
    inputs = convert_to_tensor(inputs if logits is None else logits, name="logits")
    if not time_major:
        inputs = array_ops.transpose(inputs, [1, 0, 2])
    orig = inputs.dtype
    if orig in (dtypes.float16, dtypes.bfloat16):
        inputs = math_ops.cast(inputs, dtypes.float32)
    loss, _ = apply_op("CTCLoss", inputs=inputs, labels_indices=labels.indices, labels_values=labels.values,
                       sequence_length=sequence_length, preprocess_collapse_repeated=preprocess_collapse_repeated,
                       ctc_merge_repeated=ctc_merge_repeated,
                       ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs, name="CTCLoss")
    if orig in (dtypes.float16, dtypes.bfloat16):
        loss = math_ops.cast(loss, orig)
    return loss


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
                name=None):
    """``tf.compat.v1.nn.ctc_loss_v2`` for SparseTensor ``labels``: the blank
    class ``blank_index`` (negative counts from the end) is moved last and the
    labels above it shifted down, then :func:`ctc_loss`. Dense labels (TF's
    ``ctc_loss_dense``) are not supported."""
    if not isinstance(labels, SparseTensor):
        raise NotImplementedError("ctc_loss_v2 with dense labels (TF's ctc_loss_dense) is not implemented in ref; "
                                  "pass labels as a SparseTensor")
    if blank_index is None:
        raise ValueError("Argument `blank_index` must be provided when labels is a SparseTensor.")
    logits = convert_to_tensor(logits)
    classes = dimension_value(logits.shape[2])
    if blank_index < 0:
        blank_index += classes
    if blank_index != classes - 1:
        logits = array_ops.concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                                   logits[:, :, blank_index:blank_index + 1]], axis=2)
        labels = SparseTensor(labels.indices, array_ops.where(labels.values < blank_index, labels.values,
                                                              labels.values - 1), labels.dense_shape)
    return ctc_loss(labels=labels, inputs=logits, sequence_length=logit_length, time_major=logits_time_major)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding (``CTCGreedyDecoder``): ``([decoded], neg_sum_logits)``
    with ``decoded`` a SparseTensor ``[batch, max_decoded_length]`` and
    ``neg_sum_logits`` ``[batch, 1]``; blank defaults to the last class."""
    ix, val, shape, log_probability = apply_op(
        "CTCGreedyDecoder", inputs=inputs, sequence_length=sequence_length, merge_repeated=merge_repeated,
        blank_index=-1 if blank_index is None else blank_index, name="CTCGreedyDecoder")
    return [SparseTensor(ix, val, shape)], log_probability


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1, merge_repeated=True):
    """Prefix beam search (``CTCBeamSearchDecoder``): ``(decoded,
    log_probabilities)``, ``decoded`` a list of ``top_paths`` SparseTensors,
    ``log_probabilities`` ``[batch, top_paths]``."""
    outs = apply_op("CTCBeamSearchDecoder", inputs=inputs, sequence_length=sequence_length, beam_width=beam_width,
                    top_paths=top_paths, merge_repeated=merge_repeated, name="CTCBeamSearchDecoder")
    n = top_paths
    decoded = [SparseTensor(outs[k], outs[n + k], outs[2 * n + k]) for k in range(n)]
    return decoded, outs[3 * n]


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """TF2's ``tf.nn.ctc_beam_search_decoder``: the v1 form with
    ``merge_repeated=False``."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width=beam_width, top_paths=top_paths,
                                   merge_repeated=False)
