"""TF1 connectionist temporal classification builders (TF's ctc_ops.py):
``tf.nn.ctc_loss`` (v1), ``tf.compat.v1.nn.ctc_loss_v2`` with SparseTensor
labels, ``tf.nn.ctc_greedy_decoder`` and ``tf.nn.ctc_beam_search_decoder``
(v1) and its ``_v2`` form."""
from __future__ import annotations

from ref.types import dtypes, nest
from ref.graph_ops import array_ops, math_ops, math_extras, sparse_ops
from ref.graph_ops.functional_ops import map_fn, scan
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.framework.sparse_tensor import SparseTensor
from ref.types.shapes import dimension_value

__all__ = ["ctc_loss", "ctc_loss_v2", "ctc_loss_v3", "ctc_loss_dense", "ctc_greedy_decoder",
           "ctc_beam_search_decoder", "ctc_beam_search_decoder_v2", "collapse_repeated", "ctc_unique_labels",
           "dense_labels_to_sparse"]


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


def _get_dim(tensor, i):
    """The static size of dimension ``i``, else its run-time size (TF's _get_dim)."""
    return dimension_value(tensor.shape[i]) or array_ops.shape(tensor)[i]


def _blank_last(labels, logits, blank_index):
    """(labels, logits) with class ``blank_index`` moved last and the labels
    above it shifted down one (TF's SparseTensor path of ctc_loss_v2)."""
    classes = _get_dim(logits, 2)
    if blank_index < 0:
        blank_index += classes
    if blank_index != classes - 1:
        logits = array_ops.concat([logits[:, :, :blank_index], logits[:, :, blank_index + 1:],
                                   logits[:, :, blank_index:blank_index + 1]], axis=2)
        labels = SparseTensor(labels.indices, array_ops.where(labels.values < blank_index, labels.values,
                                                              labels.values - 1), labels.dense_shape)
    return labels, logits


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
                name=None):
    """``tf.compat.v1.nn.ctc_loss_v2``: SparseTensor ``labels`` need
    ``blank_index`` (negative counts from the end; the class is moved last for
    ``CTCLoss``); dense ``labels [batch, max_label_length]`` with
    ``label_length`` go through :func:`ctc_loss_dense` (blank 0 by default)."""
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when labels is a SparseTensor.")
        labels, logits = _blank_last(labels, convert_to_tensor(logits), blank_index)
        return ctc_loss(labels=labels, inputs=logits, sequence_length=logit_length, time_major=logits_time_major)
    return ctc_loss_dense(labels, logits, label_length, logit_length, logits_time_major=logits_time_major,
                          unique=unique, blank_index=0 if blank_index is None else blank_index, name=name)


def ctc_loss_v3(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
                name=None):
    """TF2's ``tf.nn.ctc_loss``: :func:`ctc_loss_v2`'s arguments and results
    (``logits`` converted under the name ``logits`` first for SparseTensor
    labels)."""
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when `labels` is a `SparseTensor`.")
        logits = convert_to_tensor(logits, name="logits")
        labels, logits = _blank_last(labels, logits, blank_index)
        return ctc_loss(labels=labels, inputs=logits, sequence_length=logit_length, time_major=logits_time_major)
    return ctc_loss_dense(labels, logits, label_length, logit_length, logits_time_major=logits_time_major,
                          unique=unique, blank_index=0 if blank_index is None else blank_index, name=name)


def ctc_loss_dense(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=0,
                   name=None):
    """The CTC loss of dense ``labels [batch, max_label_length]`` (entries past
    ``label_length`` ignored) with blank class ``blank_index``. ref computes
    it with the ``CTCLoss`` kernel on the labels as a SparseTensor (the same
    loss and gradient; TF builds its own forward-backward graph instead, so
    the GraphDef differs, and ``unique`` only saves TF work, so it is not
    used); unlike TF, an empty label sequence or one longer than its logits
    is an InvalidArgumentError rather than a loss of inf."""
    del unique
    with name_scope(name, "ctc_loss_dense", [logits, labels, label_length, logit_length]):
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        label_length = convert_to_tensor(label_length, name="label_length")
        logit_length = convert_to_tensor(logit_length, name="logit_length")
        if not logits_time_major:
            logits = array_ops.transpose(logits, perm=[1, 0, 2])
        sparse, logits = _blank_last(dense_labels_to_sparse(labels, label_length), logits, blank_index)
        return ctc_loss(sparse, logits, logit_length)


def collapse_repeated(labels, seq_length, name=None):
    """``(collapsed, new_seq_length)``: each row's first ``seq_length`` labels
    with runs of one label kept once, left-aligned and zero-padded to the
    longest new length (TF's ``tf.nn.collapse_repeated``)."""
    with name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        keep = array_ops.concat([array_ops.ones_like(labels[:, :1], dtypes.bool),
                                 math_ops.not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
        width = _get_dim(labels, 1)
        keep = math_ops.logical_and(keep, array_ops.sequence_mask(seq_length, maxlen=width))
        new_len = math_ops.reduce_sum(math_ops.cast(keep, dtypes.int32), axis=1)
        new_width = math_ops.reduce_max(new_len)
        slots = array_ops.sequence_mask(new_len, maxlen=new_width)
        flat_labels = array_ops.reshape(labels, [-1])
        flat_keep = array_ops.reshape(keep, [-1])
        flat_slots = array_ops.reshape(slots, [-1])
        positions = math_ops.range(_get_dim(flat_slots, 0))
        flat = array_ops.scatter_nd(indices=array_ops.expand_dims(array_ops.boolean_mask(positions, flat_slots), axis=1),
                                    updates=array_ops.boolean_mask(flat_labels, flat_keep),
                                    shape=array_ops.shape(flat_slots))
        batch = _get_dim(labels, 0)
        return array_ops.reshape(flat, [batch, new_width]), math_ops.cast(new_len, seq_length.dtype)


def dense_labels_to_sparse(dense, length):
    """The first ``length[b]`` entries of each row of ``dense`` as an int32
    SparseTensor of dense shape ``[batch, max(length)]``."""
    flat_values = array_ops.reshape(dense, [-1])
    flat_indices = math_ops.range(array_ops.shape(flat_values, out_type=dtypes.int64)[0])
    mask = array_ops.sequence_mask(length, maxlen=array_ops.shape(dense)[1])
    flat_mask = array_ops.reshape(mask, [-1])
    indices = array_ops.expand_dims(array_ops.boolean_mask(flat_indices, flat_mask), 1)
    values = array_ops.boolean_mask(flat_values, flat_mask)
    sparse = SparseTensor(indices=indices, values=math_ops.cast(values, dtypes.int32),
                          dense_shape=array_ops.shape(flat_values, out_type=dtypes.int64))
    reshaped = sparse_ops.sparse_reshape(sparse, array_ops.shape(dense))
    longest = math_ops.reduce_max(length)
    return SparseTensor(indices=reshaped.indices, values=reshaped.values,
                        dense_shape=[math_ops.cast(reshaped.dense_shape[0], dtypes.int64),
                                     math_ops.cast(longest, dtypes.int64)])


def ctc_unique_labels(labels, name=None):
    """``(unique, idx)`` per row (``map_fn`` over ``Unique``): each row's
    distinct labels in first-seen order, zero-padded to the row length, as
    int64, and each label's position among them."""
    with name_scope(name, "ctc_unique_labels", [labels]):
        labels = convert_to_tensor(labels, name="labels")

        def _row(x):
            u = array_ops.unique(x)
            y = array_ops.pad(u.y, [[0, _get_dim(u.idx, 0) - _get_dim(u.y, 0)]])
            return [math_ops.cast(y, dtypes.int64), u.idx]

        return map_fn(_row, labels, dtype=[dtypes.int64, dtypes.int32])


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


# -- TF's forward-backward helpers (ctc_ops.py's private functions, in log space) --------------------

def _log_mask(condition, dtype=dtypes.float32):
    """0 where ``condition`` holds, -inf elsewhere: added to log-probabilities it drops the others."""
    return math_ops.log(math_ops.cast(condition, dtype))


def _sum_states(idx, states):
    """``out[f, b, u] = logsumexp(states[f, b, s] for s with idx[b, s] == u)``: the label-state
    log-probabilities ``states [frames, batch, L]`` summed per unique label (``idx [batch, L]``, each
    state's position among its sequence's unique labels, as ``ctc_unique_labels`` gives)."""
    with name_scope(None, "sum_states"):
        idx = convert_to_tensor(idx, name="idx")
        states = convert_to_tensor(states, name="states")
        length = _get_dim(states, 2)
        unique_ids = array_ops.expand_dims(math_ops.range(length, dtype=idx.dtype), 1)  # [U, 1]
        member = math_ops.equal(array_ops.expand_dims(idx, 1), unique_ids)  # [batch, U, L]
        return math_extras.reduce_logsumexp(array_ops.expand_dims(states, 2) + _log_mask(member, states.dtype),
                                            axis=-1)


def _state_to_olabel(labels, num_labels, states):
    """Per output label, the log-sum of the CTC state log-probabilities ``states [frames, batch, 2L+2]``
    (state 0 the start, 1..L the labels of ``labels [batch, L]``, the rest blanks): ``[frames, batch,
    num_labels]`` with the blank (label 0) first."""
    labels = convert_to_tensor(labels, name="labels")
    states = convert_to_tensor(states, name="states")
    first_blank = _get_dim(labels, 1) + 1
    label_states, blank_states = states[:, :, 1:first_blank], states[:, :, first_blank:]
    classes = math_ops.range(1, num_labels, dtype=labels.dtype)  # the non-blank labels
    member = math_ops.equal(array_ops.expand_dims(labels, -1), classes)  # [batch, L, num_labels - 1]
    per_label = math_extras.reduce_logsumexp(array_ops.expand_dims(label_states, 3) +
                                             array_ops.expand_dims(_log_mask(member, states.dtype), 0), axis=2)
    blank = math_extras.reduce_logsumexp(blank_states, axis=2, keepdims=True)
    return array_ops.concat([blank, per_label], axis=-1)


def _state_to_olabel_unique(labels, num_labels, states, unique):
    """``_state_to_olabel`` given ``unique = ctc_unique_labels(labels)`` (TF uses it to sum each
    sequence's repeated labels once; the sums are the same, which is how ref computes them)."""
    unique_y, unique_idx = unique
    del unique_y, unique_idx
    return _state_to_olabel(labels, num_labels, states)


def _scan(fn, elems, initial, reverse=False, inclusive=False, final_only=False):
    """The accumulators ``a = fn(a, x)`` over the rows ``x`` of ``elems`` (nested tensors sliced along
    dimension 0; from the last row with ``reverse``), starting at ``initial`` (nested too), stacked in
    row order. ``inclusive`` adds ``initial`` as an extra first row (last with ``reverse``);
    ``final_only`` returns the last accumulators alone."""
    initial = nest.map_structure(convert_to_tensor, initial)
    stacked = scan(fn, elems, initializer=initial, reverse=reverse)
    if not (inclusive or final_only):
        return stacked

    def with_initial(rows, first):
        first = array_ops.expand_dims(first, 0)
        return array_ops.concat([rows, first] if reverse else [first, rows], axis=0)

    full = nest.map_structure(with_initial, stacked, initial)
    if final_only:
        return nest.map_structure(lambda rows: rows[0] if reverse else rows[-1], full)
    return full
