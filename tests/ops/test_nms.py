"""NonMaxSuppressionV4/V5 (soft NMS), WithOverlaps and CombinedNonMaxSuppression
(ref/ops/nms.py) against tf.raw_ops on random, overlapping boxes: the same
indices, counts, scores (bit for bit: float32 IoU and C's expf) and boxes; the
builders' graphs against TF 2.21."""
import numpy as np
import pytest

from ref.ops import nms  # noqa: F401  (registers the ops)
from ref.ops import registry


def _boxes(seed, n, q=None):
    rng = np.random.default_rng(seed)
    centre = rng.uniform(0, 1, (n, 2))
    size = rng.uniform(0.05, 0.4, (n, 2))
    b = np.concatenate([centre - size / 2, centre + size / 2], axis=1)
    b[::5] = b[::5][:, [2, 3, 0, 1]]  # corners given the other way round
    scores = rng.uniform(0, 1, n).astype(np.float32)
    if n > 7:
        scores[3] = scores[7]  # a tie: the lower index first
    return b.astype(np.float32), scores


CASES = [(seed, n, max_out, iou, score, sigma) for seed, n in ((0, 30), (1, 60), (2, 8))
         for max_out, iou, score, sigma in ((10, 0.5, float("-inf"), 0.0), (50, 0.3, 0.2, 0.0), (20, 0.5, 0.1, 0.5),
                                            (25, 1.0, 0.0, 0.1), (3, 0.0, 0.3, 0.0))]


def _tf():
    return pytest.importorskip("tensorflow")


@pytest.mark.parametrize("seed,n,max_out,iou,score,sigma", CASES)
def test_v5_and_v4_vs_tf(seed, n, max_out, iou, score, sigma):
    tf = _tf()
    boxes, scores = _boxes(seed, n)
    kw = dict(boxes=boxes, scores=scores, max_output_size=np.int32(max_out), iou_threshold=np.float32(iou),
              score_threshold=np.float32(score))
    for pad in (False, True):
        got = registry.call("NonMaxSuppressionV5", soft_nms_sigma=np.float32(sigma), pad_to_max_output_size=pad, **kw)
        want = tf.raw_ops.NonMaxSuppressionV5(soft_nms_sigma=np.float32(sigma), pad_to_max_output_size=pad, **kw)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w.numpy())
        got = registry.call("NonMaxSuppressionV4", pad_to_max_output_size=pad, **kw)
        want = tf.raw_ops.NonMaxSuppressionV4(pad_to_max_output_size=pad, **kw)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w.numpy())


@pytest.mark.parametrize("seed", [0, 1])
def test_with_overlaps_vs_tf(seed):
    tf = _tf()
    rng = np.random.default_rng(seed)
    o = rng.uniform(0, 1, (20, 20)).astype(np.float32)
    o = (o + o.T) / 2
    scores = rng.uniform(0, 1, 20).astype(np.float32)
    kw = dict(overlaps=o, scores=scores, max_output_size=np.int32(8), overlap_threshold=np.float32(0.6),
              score_threshold=np.float32(0.1))
    np.testing.assert_array_equal(registry.call("NonMaxSuppressionWithOverlaps", **kw),
                                  tf.raw_ops.NonMaxSuppressionWithOverlaps(**kw).numpy())


@pytest.mark.parametrize("q", [1, 3])
@pytest.mark.parametrize("pad_per_class,clip", [(False, True), (True, False), (True, True)])
def test_combined_vs_tf(q, pad_per_class, clip):
    tf = _tf()
    rng = np.random.default_rng(q)
    boxes = rng.uniform(-0.2, 1.2, (2, 25, q, 4)).astype(np.float32)
    boxes[..., 2:] = boxes[..., :2] + rng.uniform(0.05, 0.5, (2, 25, q, 2)).astype(np.float32)
    scores = rng.uniform(0, 1, (2, 25, 3)).astype(np.float32)
    kw = dict(boxes=boxes, scores=scores, max_output_size_per_class=np.int32(4), max_total_size=np.int32(9),
              iou_threshold=np.float32(0.4), score_threshold=np.float32(0.2), pad_per_class=pad_per_class,
              clip_boxes=clip)
    got = registry.call("CombinedNonMaxSuppression", **kw)
    want = tf.raw_ops.CombinedNonMaxSuppression(**kw)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w.numpy())


@pytest.mark.parametrize("op,kw,match", [
    ("NonMaxSuppressionV5", dict(soft_nms_sigma=np.float32(-1)), "soft_nms_sigma_val must be >= 0"),
    ("NonMaxSuppressionV5", dict(soft_nms_sigma=np.float32(0), iou_threshold=np.float32(2)),
     r"iou_threshold must be in \[0, 1\]"),
])
def test_errors_are_tfs(op, kw, match):
    import ref
    tf = _tf()
    boxes, scores = _boxes(0, 5)
    args = dict(boxes=boxes, scores=scores, max_output_size=np.int32(3), iou_threshold=np.float32(0.5),
                score_threshold=np.float32(0))
    args.update(kw)
    with pytest.raises(ref.errors.InvalidArgumentError, match=match):
        registry.call(op, **args)
    with pytest.raises(tf.errors.InvalidArgumentError, match=match):
        getattr(tf.raw_ops, op)(**args)


def test_builders_graphs_are_tensorflows():
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "graph_ops"))
    from _graphdef import assert_same_graph

    def snippet(tf):
        b = tf.placeholder(tf.float32, [None, 4], name="b")
        s = tf.placeholder(tf.float32, [None], name="s")
        tf.image.non_max_suppression_with_scores(b, s, 5, soft_nms_sigma=0.5)
        tf.image.non_max_suppression_overlaps(tf.placeholder(tf.float32, [None, None], name="o"), s, 4)
        tf.image.combined_non_max_suppression(tf.placeholder(tf.float32, [2, 10, 1, 4], name="cb"),
                                              tf.placeholder(tf.float32, [2, 10, 3], name="cs"), 3, 5)

    assert_same_graph(snippet)
