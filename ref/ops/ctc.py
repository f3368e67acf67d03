"""Connectionist temporal classification kernels (TF's ctc_loss_op.cc,
ctc_decoder_ops.cc, util/ctc/ctc_loss_calculator and ctc_beam_search):
``CTCLoss`` (forward-backward in log space, blank = ``num_classes - 1``, the
loss and its gradient with respect to the logits), ``CTCGreedyDecoder`` and
``CTCBeamSearchDecoder``. Inputs are time-major logits ``[max_time, batch,
num_classes]``."""
from __future__ import annotations

import heapq

import numpy as np

from ref.types import dtypes, errors
from ref.ops.registry import REQUIRED, invalid_argument, register_op
from ref.types.shapes import TensorShape

_FLOATS = (dtypes.float32, dtypes.float64)
_NEG_INF = -np.inf


def _dim(spec, i):
    s = spec.shape
    return None if s.ndims is None else s[i]


def _rank(spec, want, what, attrs):
    s = spec.shape
    if s.ndims is not None and s.ndims != want:
        raise ValueError(f"Shape must be rank {want} but is rank {s.ndims} for '{attrs['_op_name']}' ({what}: {s})")


def _batch(ins, attrs):
    _rank(ins["inputs"], 3, "inputs", attrs)
    _rank(ins["sequence_length"], 1, "sequence_length", attrs)
    a, b = _dim(ins["inputs"], 1), _dim(ins["sequence_length"], 0)
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b} for '{attrs['_op_name']}' "
                         f"(inputs {ins['inputs'].shape}, sequence_length {ins['sequence_length'].shape})")
    return a if a is not None else b


def _loss_shape(ins, attrs):
    batch = _batch(ins, attrs)
    _rank(ins["labels_indices"], 2, "labels_indices", attrs)
    _rank(ins["labels_values"], 1, "labels_values", attrs)
    t, c = _dim(ins["inputs"], 0), _dim(ins["inputs"], 2)
    dt = ins["inputs"].dtype
    return [(dt, TensorShape([batch])), (dt, TensorShape([t, batch, c]))]


def _check_inputs(inputs, sequence_length, loss=False):
    """The inputs as arrays after TF's checks: a loss needs a non-empty batch
    and lengths in ``[0, max_time]`` (InvalidArgumentError); a decoder
    non-empty inputs and lengths ``<= max_time`` (FailedPreconditionError)."""
    x, seq = np.asarray(inputs), np.asarray(sequence_length)
    if x.ndim != 3:
        raise invalid_argument("inputs is not a 3-Tensor")
    if seq.ndim != 1:
        raise invalid_argument("sequence_length is not a vector")
    max_time, batch, num_classes = x.shape
    if seq.shape[0] != batch:
        raise invalid_argument(f"len(sequence_length) != batch_size.  len(sequence_length):  {seq.shape[0]} "
                               f"batch_size: {batch}")
    if num_classes == 0:
        raise invalid_argument("num_classes cannot be 0.")
    if (batch == 0) if loss else (x.size == 0):
        raise invalid_argument("batch_size must not be 0" if loss else "inputs must not be empty")
    for b in range(batch):
        if seq[b] > max_time:
            message = f"sequence_length({b}) <= {max_time}"
            raise invalid_argument(message) if loss else errors.FailedPreconditionError(None, None, message)
    if loss:
        for b in range(batch):
            if seq[b] < 0:
                raise invalid_argument(f"seq_len({b}) < 0")
    return x, np.maximum(seq, 0)


def _lse(a, b):
    """log(exp(a) + exp(b)) element-wise, -inf aware (TF's LogSumExp)."""
    return np.logaddexp(a, b)


def ctc_sequence_loss(logits, label, merge_repeated=True):
    """-log p(label | logits) and its gradient with respect to ``logits``
    (``[time, num_classes]``, blank the last class), by the log-space
    forward-backward recursion over l' (the label with blanks around each
    symbol); p = 0 gives loss inf and gradient softmax(logits)."""
    x = np.asarray(logits, np.float64)
    steps, num_classes = x.shape
    blank = num_classes - 1
    shifted = x - x.max(axis=1, keepdims=True)
    y = np.exp(shifted)
    y /= y.sum(axis=1, keepdims=True)
    if steps == 0:
        return (0.0 if len(label) == 0 else np.inf), np.zeros_like(x)
    with np.errstate(divide="ignore"):
        log_y = np.log(y)
    lp = [blank]
    for c in label:
        lp += [int(c), blank]
    lp = np.asarray(lp)
    u_len = len(lp)
    skip = np.zeros(u_len, bool)  # the u-2 -> u transition
    for u in range(2, u_len):
        skip[u] = lp[u] != blank and not (merge_repeated and lp[u] == lp[u - 2])
    ly = log_y[:, lp]  # [T, U']
    alpha = np.full((steps, u_len), _NEG_INF)
    alpha[0, 0] = ly[0, 0]
    if u_len > 1:
        alpha[0, 1] = ly[0, 1]
    stay = np.ones(u_len, bool) if merge_repeated else lp == blank  # the u -> u transition
    for t in range(1, steps):
        prev = alpha[t - 1]
        s = np.where(stay, prev, _NEG_INF)
        s[1:] = _lse(s[1:], prev[:-1])
        s[skip] = _lse(s[skip], prev[np.flatnonzero(skip) - 2])
        alpha[t] = s + ly[t]
    beta = np.full((steps, u_len), _NEG_INF)  # excludes y at t
    beta[-1, -1] = 0.0
    if u_len > 1:
        beta[-1, -2] = 0.0
    elif steps > 1:
        # TF's calculator sets beta(U' - 2, T - 1) = 0 for U' = 1 too: in its
        # column-major [U', T] matrix that entry is beta(0, T - 2), so an
        # all-padding label gets log(1 + y_blank(T - 1)) there (TF's numbers).
        beta[-2, 0] = 0.0
    for t in range(steps - 2, -1, -1):
        nxt = beta[t + 1] + ly[t + 1]
        s = np.where(stay, nxt, _NEG_INF)
        s[:-1] = _lse(s[:-1], nxt[1:])
        src = np.flatnonzero(skip)  # u reaches u+2 when skip[u+2]
        s[src - 2] = _lse(s[src - 2], nxt[src])
        beta[t] = _lse(beta[t], s)
    ab = alpha + beta
    log_p = np.logaddexp.reduce(ab[0])
    if log_p == _NEG_INF:
        return np.inf, y
    prob_sum = np.full((steps, num_classes), _NEG_INF)
    for u in range(u_len):
        prob_sum[:, lp[u]] = _lse(prob_sum[:, lp[u]], ab[:, u])
    return -log_p, y - np.exp(prob_sum - log_p)


def _label_sequences(labels_indices, labels_values, batch):
    idx, vals = np.asarray(labels_indices), np.asarray(labels_values)
    if idx.ndim != 2:
        raise invalid_argument("labels_indices is not a matrix")
    if vals.ndim != 1:
        raise invalid_argument("labels_values is not a vector")
    if idx.shape[0] != vals.shape[0]:
        raise invalid_argument(f"labels_indices and labels_values must contain the same number of rows, but got "
                               f"shapes: {list(idx.shape)} vs. {list(vals.shape)}")
    if idx.shape[0] and idx.shape[1] != 2:
        raise invalid_argument(f"labels_indices should have 2 columns, got {idx.shape[1]}")
    width = int(idx[:, 1].max()) + 1 if idx.shape[0] else 0
    bound = f"[{batch},{width}]"
    seqs = [[] for _ in range(batch)]
    last = None
    for i, (row, v) in enumerate(zip(idx.tolist(), vals.tolist())):
        where = f"label SparseTensor is not valid: indices[{i}] = [{row[0]},{row[1]}]"
        if not (0 <= row[0] < batch and 0 <= row[1] < width):
            raise invalid_argument(f"{where} is out of bounds: need 0 <= index < {bound}")
        if last is not None and tuple(row) == last:
            raise invalid_argument(f"{where} is repeated")
        if last is not None and tuple(row) < last:
            raise invalid_argument(f"{where} is out of order. Many sparse ops require sorted indices.\n    Use "
                                   f"`tf.sparse.reorder` to create a correctly ordered copy.\n\n")
        last = tuple(row)
        seqs[row[0]].append(int(v))
    return seqs


def _target(label, num_classes, collapse, b):
    """The label sequence the loss scores: repeats dropped when ``collapse``,
    and the labels from the first null one (``>= num_classes - 1``, TF's
    padding) on left out; a non-null label after a null one is an error."""
    out, finished = [], False
    for i, c in enumerate(label):
        if collapse and i > 0 and c == label[i - 1]:
            continue
        if c >= num_classes - 1:
            finished = True
        elif finished:
            raise invalid_argument(
                f"Saw a non-null label (index >= num_classes - 1) following a null label, batch: {b} "
                f"num_classes: {num_classes} labels: {','.join(map(str, label))} labels seen so far: "
                f"{','.join(map(str, out))}")
        else:
            out.append(c)
    return out


@register_op("CTCLoss", inputs=("inputs", "labels_indices", "labels_values", "sequence_length"),
             outputs=("loss", "gradient"),
             attrs={"preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
                    "ignore_longer_outputs_than_inputs": False},
             type_attrs={"T": "inputs"}, allowed={"T": _FLOATS},
             input_types={"labels_indices": dtypes.int64, "labels_values": dtypes.int32,
                          "sequence_length": dtypes.int32}, shape=_loss_shape)
def ctc_loss(inputs, labels_indices, labels_values, sequence_length, preprocess_collapse_repeated=False,
             ctc_merge_repeated=True, ignore_longer_outputs_than_inputs=False):
    """``loss[b] = -log p(labels[b] | inputs[:seq_len[b], b])`` under CTC with
    blank ``num_classes - 1``, and ``gradient`` (d loss / d inputs, zero past
    each sequence's length). Labels from the first ``>= num_classes - 1`` on
    are padding. ``preprocess_collapse_repeated`` merges repeated
    labels first; ``ctc_merge_repeated=False`` lets a path emit repeats
    without a blank between them; a label sequence needing more steps than
    the input has is an error, or gives loss 0 when
    ``ignore_longer_outputs_than_inputs``."""
    x, seq = _check_inputs(inputs, sequence_length, loss=True)
    max_time, batch, num_classes = x.shape
    labels = _label_sequences(labels_indices, labels_values, batch)
    loss = np.zeros(batch, x.dtype)
    grad = np.zeros_like(x)
    for b in range(batch):
        if not labels[b]:
            raise invalid_argument(f"Labels length is zero in batch {b}")
        label = _target(labels[b], num_classes, preprocess_collapse_repeated, b)
        if any(c < 0 for c in label):
            raise invalid_argument(f"All labels must be nonnegative integers, batch: {b} labels: "
                                   f"{','.join(map(str, label))}")
        steps = int(seq[b])
        if len(labels[b]) > steps:  # TF counts the labels as given, padding and repeats included
            if ignore_longer_outputs_than_inputs:
                continue
            raise invalid_argument(f"Not enough time for target transition sequence (required: "
                                   f"{len(labels[b])}, available: {steps}){b}You can turn this error into "
                                   f"a warning by using the flag ignore_longer_outputs_than_inputs")
        value, g = ctc_sequence_loss(x[:steps, b], label, ctc_merge_repeated)
        loss[b] = value
        grad[:steps, b] = g
    return loss, grad


def _decoded_shapes(ins, attrs):
    batch = _batch(ins, attrs)
    return batch, ins["inputs"].dtype


def _greedy_shape(ins, attrs):
    batch, dt = _decoded_shapes(ins, attrs)
    return [(dtypes.int64, TensorShape([None, 2])), (dtypes.int64, TensorShape([None])),
            (dtypes.int64, TensorShape([2])), (dt, TensorShape([batch, 1]))]


def _sparse_outputs(paths, batch):
    """(indices [n, 2], values [n], shape [2]) of the batch's label sequences."""
    rows = [(b, t, c) for b, p in enumerate(paths) for t, c in enumerate(p)]
    indices = np.asarray([[b, t] for b, t, _ in rows], np.int64).reshape(-1, 2)
    values = np.asarray([c for _, _, c in rows], np.int64)
    width = max((len(p) for p in paths), default=0)
    return indices, values, np.asarray([batch, width], np.int64)


@register_op("CTCGreedyDecoder", inputs=("inputs", "sequence_length"),
             outputs=("decoded_indices", "decoded_values", "decoded_shape", "log_probability"),
             attrs={"merge_repeated": False, "blank_index": -1}, type_attrs={"T": "inputs"},
             allowed={"T": _FLOATS}, input_types={"sequence_length": dtypes.int32}, shape=_greedy_shape)
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=False, blank_index=-1):
    """The most likely class at each step (the first on ties), blanks dropped
    and, with ``merge_repeated``, runs of one class emitted once;
    ``log_probability[b, 0]`` is minus the sum of those steps' largest logits."""
    x, seq = _check_inputs(inputs, sequence_length)
    _, batch, num_classes = x.shape
    blank = blank_index + num_classes if blank_index < 0 else blank_index
    if not 0 <= blank < num_classes:
        raise invalid_argument(f"blank_index expected to be between {-num_classes} and {num_classes - 1} but was "
                               f"{blank_index}")
    log_prob = np.zeros((batch, 1), x.dtype)
    paths = []
    for b in range(batch):
        path, prev, total = [], -1, x.dtype.type(0)
        for t in range(int(seq[b])):
            row = x[t, b]
            c = int(np.argmax(row))
            total = total - row[c]
            if c != blank and not (merge_repeated and c == prev):
                path.append(c)
            prev = c
        log_prob[b, 0] = total
        paths.append(path)
    return (*_sparse_outputs(paths, batch), log_prob)


class _Entry:
    """A beam prefix: its label, parent, children, and (blank, label, total)
    log-probabilities at the previous and the current step."""

    __slots__ = ("label", "parent", "children", "old", "new")

    def __init__(self, label, parent):
        self.label, self.parent, self.children = label, parent, {}
        self.old = [_NEG_INF, _NEG_INF, _NEG_INF]
        self.new = [_NEG_INF, _NEG_INF, _NEG_INF]

    def active(self):
        return self.new[2] != _NEG_INF

    def labels(self, merge_repeated):
        out, e = [], self
        while e.parent is not None:
            out.append(e.label)
            e = e.parent
        out.reverse()
        if merge_repeated:
            out = [c for i, c in enumerate(out) if i == 0 or c != out[i - 1]]
        return out


class _TopN:
    """The ``limit`` entries of highest current total (TF's TopN): pushing onto
    a full set drops its lowest."""

    def __init__(self, limit):
        self.limit, self.items, self.count = limit, [], 0

    def push(self, e):
        self.count += 1
        if len(self.items) < self.limit:
            self.items.append(e)
            return
        low = self.bottom()
        if e.new[2] > low.new[2]:
            self.items.remove(low)
            self.items.append(e)

    def bottom(self):
        return min(self.items, key=lambda e: e.new[2])

    def extract(self):
        out = sorted(self.items, key=lambda e: -e.new[2])
        self.items = []
        return out


def beam_search(logits, beam_width, top_paths, merge_repeated):
    """The ``top_paths`` best label sequences of one ``[time, num_classes]``
    sequence by CTC prefix beam search (blank the last class) and their log
    probabilities, best first."""
    x = np.asarray(logits, np.float64)
    blank = x.shape[1] - 1
    root = _Entry(-1, None)
    root.new = [0.0, _NEG_INF, 0.0]
    leaves = _TopN(beam_width)
    leaves.push(root)
    for row in x:
        lsm = row - row.max()
        lsm = lsm - np.log(np.exp(lsm).sum())
        branches = leaves.extract()
        for b in branches:
            b.old = list(b.new)
        for b in branches:
            if b.parent is not None:
                if b.parent.active():
                    prev = b.parent.old[0] if b.label == b.parent.label else b.parent.old[2]
                    b.new[1] = np.logaddexp(b.new[1], prev)
                b.new[1] += lsm[b.label]
            b.new[0] = b.old[2] + lsm[blank]
            b.new[2] = np.logaddexp(b.new[0], b.new[1])
            leaves.push(b)

        def candidate(total):
            return total > _NEG_INF and (len(leaves.items) < beam_width or total > leaves.bottom().new[2])

        for b in branches:
            if not candidate(b.old[2]):
                continue
            for label in range(blank):
                c = b.children.get(label)
                if c is None:
                    c = b.children[label] = _Entry(label, b)
                if c.active():
                    continue
                prev = b.old[0] if label == b.label else b.old[2]
                c.new = [_NEG_INF, lsm[label] + prev, lsm[label] + prev]
                if candidate(c.new[2]):
                    if len(leaves.items) == beam_width:
                        low = leaves.bottom()
                        low.new = [_NEG_INF, _NEG_INF, _NEG_INF]
                        leaves.items.remove(low)
                    leaves.push(c)
                else:
                    c.old = [_NEG_INF, _NEG_INF, _NEG_INF]
                    c.new = [_NEG_INF, _NEG_INF, _NEG_INF]
    best = leaves.extract()
    if len(best) < top_paths:
        raise invalid_argument("Less leaves in the beam search than requested.")
    best = best[:top_paths]
    return [e.labels(merge_repeated) for e in best], [e.new[2] for e in best]


def _beam_shape(ins, attrs):
    batch, dt = _decoded_shapes(ins, attrs)
    n = attrs["top_paths"]
    return ([(dtypes.int64, TensorShape([None, 2]))] * n + [(dtypes.int64, TensorShape([None]))] * n
            + [(dtypes.int64, TensorShape([2]))] * n + [(dt, TensorShape([batch, n]))])


@register_op("CTCBeamSearchDecoder", inputs=("inputs", "sequence_length"), outputs=("*outputs",),
             attrs={"beam_width": REQUIRED, "top_paths": REQUIRED, "merge_repeated": True},
             type_attrs={"T": "inputs"}, allowed={"T": _FLOATS}, input_types={"sequence_length": dtypes.int32},
             shape=_beam_shape)
def ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated=True):
    """Prefix beam search over each sequence's softmax: the ``top_paths`` most
    probable label sequences (blanks removed; with ``merge_repeated`` runs of
    one class emitted once) as ``top_paths`` sparse (indices, values, shape)
    triples, then ``log_probability[b, k]`` of path ``k``. Outputs the
    indices of every path, then the values, then the shapes, then the
    log-probabilities."""
    x, seq = _check_inputs(inputs, sequence_length)
    _, batch, _ = x.shape
    if beam_width < 1 or top_paths < 1:
        raise invalid_argument(f"beam_width and top_paths must be >= 1, got {beam_width} and {top_paths}")
    if top_paths > beam_width:
        raise invalid_argument("requested more paths than the beam width.")
    per_path = [[] for _ in range(top_paths)]
    log_prob = np.zeros((batch, top_paths), x.dtype)
    for b in range(batch):
        paths, scores = beam_search(x[:int(seq[b]), b], beam_width, top_paths, merge_repeated)
        for k in range(top_paths):
            per_path[k].append(paths[k])
            log_prob[b, k] = scores[k]
    triples = [_sparse_outputs(p, batch) for p in per_path]
    return [t[0] for t in triples] + [t[1] for t in triples] + [t[2] for t in triples] + [log_prob]
