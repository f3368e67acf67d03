"""Non-maximum suppression beyond ``NonMaxSuppressionV3`` (TF's
``non_max_suppression_op.cc``): ``NonMaxSuppressionV4`` (padded output and a
count), ``NonMaxSuppressionV5`` (soft NMS: scores decayed by
``exp(-0.5 * iou^2 / sigma)`` and returned), ``NonMaxSuppressionWithOverlaps``
(a given similarity matrix) and ``CombinedNonMaxSuppression`` (per class and
batch, then the best ``max_total_size`` per batch).

The greedy loop is TF's: candidates above ``score_threshold`` leave a priority
queue by score (equal scores: lower index first); each is compared with the
boxes already selected, newest first, and only with those selected since it was
last compared; hard NMS drops it when an IoU exceeds the threshold, soft NMS
multiplies its score by the decay and puts it back unless it fell to the
threshold. IoU is computed in float32 as TF's ``IOU`` (corners in any order,
zero for an empty box), the decay with C's ``expf``.

``CombinedNonMaxSuppression`` breaks ties between equal scores by box index (per
class) and by class (per batch); TF's heap and ``std::sort`` leave that order to
the C++ library.
"""
from __future__ import annotations

import heapq

import numpy as np

from ref.types import dtypes
from ref.ops._jit import libm
from ref.ops.registry import invalid_argument, register_op
from ref.types.shapes import TensorShape

_F = np.float32
_FT = (dtypes.float16, dtypes.float32)


def _expf(v):
    fn = libm("exp", np.float32)
    x = np.array([v], np.float32)
    return _F(fn(x)[0]) if fn is not None else _F(np.exp(np.float64(v)))


def iou(b, i, j):
    """TF's IOU of rows i and j of a [n, 4] float32 box array."""
    ymin_i, xmin_i = min(b[i, 0], b[i, 2]), min(b[i, 1], b[i, 3])
    ymax_i, xmax_i = max(b[i, 0], b[i, 2]), max(b[i, 1], b[i, 3])
    ymin_j, xmin_j = min(b[j, 0], b[j, 2]), min(b[j, 1], b[j, 3])
    ymax_j, xmax_j = max(b[j, 0], b[j, 2]), max(b[j, 1], b[j, 3])
    area_i = _F((ymax_i - ymin_i) * (xmax_i - xmin_i))
    area_j = _F((ymax_j - ymin_j) * (xmax_j - xmin_j))
    if area_i <= 0 or area_j <= 0:
        return _F(0)
    ih = max(_F(min(ymax_i, ymax_j) - max(ymin_i, ymin_j)), _F(0))
    iw = max(_F(min(xmax_i, xmax_j) - max(xmin_i, xmin_j)), _F(0))
    inter = _F(ih * iw)
    return _F(inter / _F(_F(area_i + area_j) - inter))


def greedy(scores, max_output, sim_threshold, score_threshold, soft_sigma, similarity, pad=False):
    """TF's ``DoNonMaxSuppressionOp``: (indices, scores, number valid)."""
    if max_output < 0:
        raise invalid_argument("output size must be non-negative")
    scores = np.asarray(scores, _F)
    heap = [(-float(s), i, 0, _F(s)) for i, s in enumerate(scores) if s > score_threshold]
    heapq.heapify(heap)
    soft = soft_sigma > 0
    scale = _F(_F(-0.5) / _F(soft_sigma)) if soft else _F(0)
    selected, selected_scores = [], []
    while len(selected) < max_output and heap:
        _, index, begin, score = heapq.heappop(heap)
        original = score
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = _F(similarity(index, selected[j]))
            weight = _expf(_F(_F(scale * sim) * sim))
            if not soft and sim > sim_threshold:
                hard = True
                break
            score = _F(score * (weight if soft or sim <= sim_threshold else _F(0)))
            if score <= score_threshold:
                break
        begin = len(selected)
        if not hard:
            if score == original:
                selected.append(index)
                selected_scores.append(score)
                continue
            if score > score_threshold:
                heapq.heappush(heap, (-float(score), index, begin, score))
    valid = len(selected)
    if pad:
        selected += [0] * (max_output - valid)
        selected_scores += [_F(0)] * (max_output - valid)
    return np.asarray(selected, np.int32), np.asarray(selected_scores, _F), valid


def _scalar(v, what):
    v = np.asarray(v)
    if v.ndim != 0:
        raise invalid_argument(f"{what} must be 0-D, got shape {list(v.shape)}")
    return v[()]


def _boxes_scores(boxes, scores):
    b, s = np.asarray(boxes, _F), np.asarray(scores, _F)
    if b.ndim != 2 or b.shape[1] != 4:
        raise invalid_argument(f"boxes must be 2-D and have 4 columns, got shape {list(b.shape)}")
    if s.ndim != 1 or s.shape[0] != b.shape[0]:
        raise invalid_argument(f"scores has incompatible shape: {list(s.shape)} for {b.shape[0]} boxes")
    return b, s


def _iou_threshold(t):
    t = _F(_scalar(t, "iou_threshold"))
    if not 0 <= t <= 1:
        raise invalid_argument("iou_threshold must be in [0, 1]")
    return t


_V4_INPUTS = ("boxes", "scores", "max_output_size", "iou_threshold", "score_threshold")


@register_op("NonMaxSuppressionV4", inputs=_V4_INPUTS, outputs=("selected_indices", "valid_outputs"),
             attrs={"pad_to_max_output_size": False},
             type_attrs={"T": ("boxes", "scores"), "T_threshold": ("iou_threshold", "score_threshold")},
             allowed={"T": _FT, "T_threshold": _FT},
             shape=lambda ins, attrs: [(dtypes.int32, TensorShape([None])), (dtypes.int32, TensorShape([]))])
def non_max_suppression_v4(boxes, scores, max_output_size, iou_threshold, score_threshold,
                           pad_to_max_output_size=False):
    """(indices kept by greedy IoU suppression, padded with 0s to max_output_size when asked; how many)."""
    b, s = _boxes_scores(boxes, scores)
    t, st = _iou_threshold(iou_threshold), _F(_scalar(score_threshold, "score_threshold"))
    idx, _, valid = greedy(s, int(_scalar(max_output_size, "max_output_size")), t, st, 0.0,
                           lambda i, j: iou(b, i, j), pad_to_max_output_size)
    return idx, np.int32(valid)


@register_op("NonMaxSuppressionV5", inputs=_V4_INPUTS + ("soft_nms_sigma",),
             outputs=("selected_indices", "selected_scores", "valid_outputs"),
             attrs={"pad_to_max_output_size": False},
             type_attrs={"T": ("boxes", "scores", "iou_threshold", "score_threshold", "soft_nms_sigma")},
             allowed={"T": _FT},
             shape=lambda ins, attrs: [(dtypes.int32, TensorShape([None])), (ins["scores"].dtype, TensorShape([None])),
                                       (dtypes.int32, TensorShape([]))])
def non_max_suppression_v5(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
                           pad_to_max_output_size=False):
    """(indices, their (soft-NMS-decayed) scores, how many) of greedy suppression."""
    b, s = _boxes_scores(boxes, scores)
    t, st = _iou_threshold(iou_threshold), _F(_scalar(score_threshold, "score_threshold"))
    sigma = _F(_scalar(soft_nms_sigma, "soft_nms_sigma"))
    if not sigma >= 0:
        raise invalid_argument("soft_nms_sigma_val must be >= 0")
    idx, sc, valid = greedy(s, int(_scalar(max_output_size, "max_output_size")), t, st, sigma,
                            lambda i, j: iou(b, i, j), pad_to_max_output_size)
    return idx, sc.astype(np.asarray(scores).dtype), np.int32(valid)


@register_op("NonMaxSuppressionWithOverlaps",
             inputs=("overlaps", "scores", "max_output_size", "overlap_threshold", "score_threshold"),
             outputs=("selected_indices",),
             input_types={"overlaps": dtypes.float32, "scores": dtypes.float32, "max_output_size": dtypes.int32,
                          "overlap_threshold": dtypes.float32, "score_threshold": dtypes.float32},
             shape=lambda ins, attrs: [(dtypes.int32, TensorShape([None]))])
def non_max_suppression_with_overlaps(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    """Greedy suppression with ``overlaps[i, j]`` as the similarity of boxes i and j."""
    o, s = np.asarray(overlaps, _F), np.asarray(scores, _F)
    if o.ndim != 2 or o.shape[0] != o.shape[1]:
        raise invalid_argument(f"overlaps must be 2-D and square, got shape {list(o.shape)}")
    if s.ndim != 1 or s.shape[0] != o.shape[0]:
        raise invalid_argument(f"scores has incompatible shape: {list(s.shape)}")
    idx, _, _ = greedy(s, int(_scalar(max_output_size, "max_output_size")),
                       _F(_scalar(overlap_threshold, "overlap_threshold")),
                       _F(_scalar(score_threshold, "score_threshold")), 0.0, lambda i, j: o[i, j])
    return idx


def _combined_shape(ins, attrs):
    b = ins["boxes"].shape
    batch = b.as_list()[0] if b.ndims else None
    total = ins["max_total_size"].value
    per_class = ins["max_output_size_per_class"].value
    n = None
    if total is not None:
        n = int(np.asarray(total))
        if attrs.get("pad_per_class") and per_class is not None and ins["scores"].shape.ndims == 3 \
                and ins["scores"].shape.as_list()[2] is not None:
            n = min(n, int(np.asarray(per_class)) * ins["scores"].shape.as_list()[2])
    return [(dtypes.float32, TensorShape([batch, n, 4])), (dtypes.float32, TensorShape([batch, n])),
            (dtypes.float32, TensorShape([batch, n])), (dtypes.int32, TensorShape([batch]))]


@register_op("CombinedNonMaxSuppression",
             inputs=("boxes", "scores", "max_output_size_per_class", "max_total_size", "iou_threshold",
                     "score_threshold"),
             outputs=("nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"),
             attrs={"pad_per_class": False, "clip_boxes": True},
             input_types={"boxes": dtypes.float32, "scores": dtypes.float32, "max_output_size_per_class": dtypes.int32,
                          "max_total_size": dtypes.int32, "iou_threshold": dtypes.float32,
                          "score_threshold": dtypes.float32},
             shape=_combined_shape)
def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                                 score_threshold, pad_per_class=False, clip_boxes=True):
    """Per batch and class, greedy hard NMS of ``boxes[b, :, q]`` (q = class, or 0 when
    boxes are shared) by ``scores[b, :, class]``; then each batch's selections sorted by
    score and the first ``max_total_size`` kept (boxes clipped to [0, 1] with
    ``clip_boxes``), zero-padded."""
    b, s = np.asarray(boxes, _F), np.asarray(scores, _F)
    if b.ndim != 4 or b.shape[3] != 4:
        raise invalid_argument(f"boxes must be 4-D with 4 coordinates, got shape {list(b.shape)}")
    if s.ndim != 3 or s.shape[:2] != b.shape[:2]:
        raise invalid_argument("boxes and scores must have same batch size" if s.ndim == 3 and s.shape[0] != b.shape[0]
                               else f"scores must be 3-D [batch, boxes, classes], got shape {list(s.shape)}")
    q, classes = b.shape[2], s.shape[2]
    if q != 1 and q != classes:
        raise invalid_argument(f"third dimension of boxes must be either 1 or {classes}")
    per_class = int(_scalar(max_output_size_per_class, "max_size_per_class"))
    if per_class <= 0:
        raise invalid_argument("max_size_per_class must be positive")
    total = int(_scalar(max_total_size, "max_total_size"))
    if total <= 0:
        raise invalid_argument("max_total_size must be > 0")
    t, st = _iou_threshold(iou_threshold), _F(_scalar(score_threshold, "score_threshold"))
    n = b.shape[1]
    size_per_class = min(per_class, n)
    per_batch = min(total, per_class * classes) if pad_per_class else total
    out_boxes = np.zeros((b.shape[0], per_batch, 4), _F)
    out_scores = np.zeros((b.shape[0], per_batch), _F)
    out_classes = np.zeros((b.shape[0], per_batch), _F)
    valid = np.zeros(b.shape[0], np.int32)
    for bi in range(b.shape[0]):
        found = []
        for c in range(classes):
            bx = b[bi, :, c if q > 1 else 0, :]
            idx, sc, _ = greedy(s[bi, :, c], size_per_class, t, st, 0.0, lambda i, j, bx=bx: iou(bx, i, j))
            found += [(-float(score), c, k, i) for k, (i, score) in enumerate(zip(idx, sc))]
        found.sort()
        keep = found[:min(len(found), per_batch if pad_per_class else total)]
        valid[bi] = len(keep)
        for r, (neg_score, c, _, i) in enumerate(keep):
            coords = b[bi, i, c if q > 1 else 0, :]
            out_boxes[bi, r] = np.clip(coords, 0, 1) if clip_boxes else coords
            out_scores[bi, r] = -neg_score
            out_classes[bi, r] = c
    return out_boxes, out_scores, out_classes, valid
