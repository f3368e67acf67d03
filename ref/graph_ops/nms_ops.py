"""``tf.image.non_max_suppression_with_scores`` (soft NMS), ``..._overlaps`` and
``combined_non_max_suppression``: the kernels of ``ref/ops/nms.py`` under TF's
builders, converting the thresholds as TF's ``image_ops_impl`` does."""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor

__all__ = ["non_max_suppression_with_scores", "non_max_suppression_overlaps", "combined_non_max_suppression"]


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """(selected indices, their scores) of greedy NMS; with ``soft_nms_sigma > 0``,
    soft NMS (overlapping boxes' scores decayed by ``exp(-iou^2 / (2 sigma))``)."""
    with name_scope(name, "non_max_suppression_with_scores"):
        iou_threshold = convert_to_tensor(iou_threshold, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, name="score_threshold")
        soft_nms_sigma = convert_to_tensor(soft_nms_sigma, name="soft_nms_sigma")
        selected_indices, selected_scores, _ = apply_op(
            "NonMaxSuppressionV5", boxes=boxes, scores=scores, max_output_size=max_output_size,
            iou_threshold=iou_threshold, score_threshold=score_threshold, soft_nms_sigma=soft_nms_sigma,
            pad_to_max_output_size=False)
        return selected_indices, selected_scores


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """Greedy NMS with a given [n, n] overlap matrix as the similarity."""
    with name_scope(name, "non_max_suppression_overlaps"):
        overlap_threshold = convert_to_tensor(overlap_threshold, name="overlap_threshold")
        return apply_op("NonMaxSuppressionWithOverlaps", overlaps=overlaps, scores=scores,
                        max_output_size=max_output_size, overlap_threshold=overlap_threshold,
                        score_threshold=score_threshold)


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """Per-class greedy NMS over a batch, then the best ``max_total_size`` per batch:
    (boxes, scores, classes, valid detections)."""
    with name_scope(name, "combined_non_max_suppression"):
        iou_threshold = convert_to_tensor(iou_threshold, dtype=dtypes.float32, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, dtype=dtypes.float32, name="score_threshold")
        max_total_size = convert_to_tensor(max_total_size)
        return apply_op("CombinedNonMaxSuppression", boxes=boxes, scores=scores,
                        max_output_size_per_class=max_output_size_per_class, max_total_size=max_total_size,
                        iou_threshold=iou_threshold, score_threshold=score_threshold, pad_per_class=pad_per_class,
                        clip_boxes=clip_boxes)
