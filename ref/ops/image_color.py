"""Colour and box kernels: RGBToHSV, HSVToRGB, AdjustHue, AdjustSaturation,
DrawBoundingBoxes, NonMaxSuppressionV3, SampleDistortedBoundingBoxV2.

Colour arithmetic is float32 in the order of TF's CPU kernels:

* RGBToHSV: ``V = max``, ``S = range / V``, ``H = (1 / range) * (1/6) * (G - B)``
  (plus 2/6 or 4/6 when green or blue is the maximum), wrapped into [0, 1);
* HSVToRGB: ``(1 - S + S * clamp(|6H - 3| - 1, 0, 1)) * V`` and its green/blue kin;
* AdjustHue: hue as a category 0-5 and a ratio between the channel extremes,
  shifted by ``6 * delta`` and wrapped; AdjustSaturation: the scalar HSV
  round trip with ``S`` scaled and clamped to [0, 1].

NonMaxSuppressionV3 keeps boxes greedily by score (ties: lower index first),
dropping a box whose IoU with a kept one exceeds the threshold; boxes with
``score <= score_threshold`` never enter.
"""
from __future__ import annotations

import numpy as np

from ref.ops import philox
from ref.ops.image import _check_image
from ref.ops.registry import invalid_argument, register_op
from ref.types import dtypes
from ref.types.shapes import TensorShape

_F = np.float32
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.bfloat16)


def _same(name):
    return lambda ins, attrs: [(ins[name].dtype, ins[name].shape)]


def _rgb(images, op):
    x = np.asarray(images)
    if x.ndim < 1 or x.shape[-1] != 3:
        raise invalid_argument(f"{op}: input must have 3 channels but input only has "
                               f"{x.shape[-1] if x.ndim else 0} channels.")
    return x


@register_op("RGBToHSV", inputs=("images",), outputs=("output",), type_attrs={"T": ("images",)},
             allowed={"T": _FLOATS}, shape=_same("images"))
def rgb_to_hsv(images):
    """output = (hue, saturation, value) per pixel, each in [0, 1]."""
    x = _rgb(images, "RGBToHSV")
    t = x.dtype.type
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    v = np.maximum(np.maximum(r, g), b)
    rng = (v - np.minimum(np.minimum(r, g), b)).astype(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, rng / v, t(0)).astype(x.dtype)
        norm = ((t(1) / rng) * (t(1) / t(6))).astype(x.dtype)
        h = np.where(r == v, norm * (g - b),
                     np.where(g == v, norm * (b - r) + t(2) / t(6), norm * (r - g) + t(4) / t(6))).astype(x.dtype)
    h = np.where(rng > 0, h, t(0)).astype(x.dtype)
    h = np.where(h < 0, h + t(1), h).astype(x.dtype)
    return np.stack([h, s, v], -1)


@register_op("HSVToRGB", inputs=("images",), outputs=("output",), type_attrs={"T": ("images",)},
             allowed={"T": _FLOATS}, shape=_same("images"))
def hsv_to_rgb(images):
    """output = the RGB colour of each (hue, saturation, value) pixel."""
    x = _rgb(images, "HSVToRGB")
    t = x.dtype.type
    h, s, v = x[..., 0], x[..., 1], x[..., 2]
    dh = h * t(6)
    dr = np.clip(np.abs(dh - t(3)) - t(1), t(0), t(1))
    dg = np.clip(-np.abs(dh - t(2)) + t(2), t(0), t(1))
    db = np.clip(-np.abs(dh - t(4)) + t(2), t(0), t(1))
    one_minus_s = t(1) - s
    return np.stack([(one_minus_s + s * d) * v for d in (dr, dg, db)], -1).astype(x.dtype)


def _hv_range(r, g, b):
    """TF's rgb_to_hv_range: hue in [0, 6) as category + ratio, and the channel extremes."""
    rg, bl_r, bg_g = r < g, b < r, b > g
    bl_g, bg_r = b < g, b > r
    # (v_max, v_mid, v_min, category) by the ordering of the channels, TF's branches
    cases = [
        (rg & bl_r, g, r, b, 1), (rg & ~bl_r & bg_g, b, g, r, 3), (rg & ~bl_r & ~bg_g, g, b, r, 2),
        (~rg & bl_g, r, g, b, 0), (~rg & ~bl_g & bg_r, b, r, g, 4), (~rg & ~bl_g & ~bg_r, r, b, g, 5)]
    vmax = np.select([c[0] for c in cases], [c[1] for c in cases]).astype(_F)
    vmid = np.select([c[0] for c in cases], [c[2] for c in cases]).astype(_F)
    vmin = np.select([c[0] for c in cases], [c[3] for c in cases]).astype(_F)
    cat = np.select([c[0] for c in cases], [c[4] for c in cases]).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = ((vmid - vmin) / (vmax - vmin)).astype(_F)
    h = (cat.astype(_F) + np.where(cat % 2 == 0, ratio, _F(1) - ratio)).astype(_F)
    return np.where(vmax == vmin, _F(0), h).astype(_F), vmin, vmax


def _hv_range_to_rgb(h, vmin, vmax):
    cat = h.astype(np.int64)  # static_cast<int>: truncation
    ratio = (h - cat.astype(_F)).astype(_F)
    ratio = np.where(cat % 2 == 0, ratio, _F(1) - ratio).astype(_F)
    vmid = (vmin + ratio * (vmax - vmin)).astype(_F)
    table = {0: (vmax, vmid, vmin), 1: (vmid, vmax, vmin), 2: (vmin, vmax, vmid), 3: (vmin, vmid, vmax),
             4: (vmid, vmin, vmax)}
    out = []
    for ch in range(3):
        default = (vmax, vmin, vmid)[ch]  # category 5 and anything else
        out.append(np.select([cat == k for k in table], [table[k][ch] for k in table], default))
    return np.stack(out, -1).astype(_F)


@register_op("AdjustHue", inputs=("images", "delta"), outputs=("output",), type_attrs={"T": ("images",)},
             allowed={"T": (dtypes.float16, dtypes.float32)}, shape=_same("images"))
def adjust_hue(images, delta):
    """output = ``images`` with the hue rotated by ``delta`` turns (in [-1, 1])."""
    x = _rgb(images, "AdjustHue")
    if x.ndim < 3:
        raise invalid_argument(f"input must be at least 3-D, got shape {list(x.shape)}")
    d = np.asarray(delta)
    if d.ndim != 0:
        raise invalid_argument(f"delta must be scalar: {list(d.shape)}")
    xf = x.astype(_F)
    h, vmin, vmax = _hv_range(xf[..., 0], xf[..., 1], xf[..., 2])
    h = (h + _F(d) * _F(6)).astype(_F)
    while (h < 0).any():
        h = np.where(h < 0, h + _F(6), h).astype(_F)
    while (h >= 6).any():
        h = np.where(h >= 6, h - _F(6), h).astype(_F)
    return _hv_range_to_rgb(h, vmin, vmax).astype(x.dtype)


@register_op("AdjustSaturation", inputs=("images", "scale"), outputs=("output",), type_attrs={"T": ("images",)},
             allowed={"T": (dtypes.float16, dtypes.float32)}, shape=_same("images"))
def adjust_saturation(images, scale):
    """output = ``images`` with the HSV saturation multiplied by ``scale`` (clamped to [0, 1])."""
    x = _rgb(images, "AdjustSaturation")
    if x.ndim < 3:
        raise invalid_argument(f"input must be at least 3-D, got shape {list(x.shape)}")
    sc = np.asarray(scale)
    if sc.ndim != 0:
        raise invalid_argument(f"scale must be scalar: {list(sc.shape)}")
    xf = x.astype(_F)
    r, g, b = xf[..., 0], xf[..., 1], xf[..., 2]
    vv = np.maximum(r, np.maximum(g, b))
    rng = (vv - np.minimum(r, np.minimum(g, b))).astype(_F)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(vv > 0, rng / vv, _F(0)).astype(_F)
        norm = (_F(1) / (_F(6) * rng)).astype(_F)
        # TF writes the offsets as double constants: the float product is added in double
        hh = np.where(r == vv, norm * (g - b),
                      np.where(g == vv, 2.0 / 6.0 + (norm * (b - r)).astype(np.float64),
                               4.0 / 6.0 + (norm * (r - g)).astype(np.float64))).astype(_F)
    hh = np.where(rng <= 0, _F(0), hh).astype(_F)
    hh = np.where(hh < 0, hh + _F(1), hh).astype(_F)
    s = np.minimum(_F(1), np.maximum(_F(0), (s * _F(sc)).astype(_F))).astype(_F)
    c = (s * vv).astype(_F)
    m = (vv - c).astype(_F)
    dh = (hh * _F(6)).astype(_F)
    cat = dh.astype(np.int64)
    fm = dh.copy()
    while (fm <= 0).any():
        fm = np.where(fm <= 0, fm + _F(2), fm).astype(_F)
    while (fm >= 2).any():
        fm = np.where(fm >= 2, fm - _F(2), fm).astype(_F)
    xx = (c * (_F(1) - np.abs(fm - _F(1)))).astype(_F)
    zero = np.zeros_like(c)
    table = {0: (c, xx, zero), 1: (xx, c, zero), 2: (zero, c, xx), 3: (zero, xx, c), 4: (xx, zero, c),
             5: (c, zero, xx)}
    out = [np.select([cat == k for k in table], [table[k][ch] for k in table], zero) + m for ch in range(3)]
    return np.stack(out, -1).astype(x.dtype)


_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1],
                    [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]], np.float64)


def _draw(images, boxes, op, colors=None):
    """``images`` with each box's outline drawn, colours cycled per box:
    ``colors`` (one row per colour, its first ``depth`` channels) or, when
    absent or empty, TF's table (a grey image draws with the red channel 1)."""
    x = _check_image(images, op, 4)
    bx = np.asarray(boxes, np.float32)
    n, height, width, depth = x.shape
    if depth not in (1, 3, 4):
        raise invalid_argument("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if bx.ndim != 3 or bx.shape[2] != 4 or bx.shape[0] != n:
        raise invalid_argument(f"boxes must be 3-D [batch, num_boxes, 4], got shape {list(bx.shape)}")
    table = None
    if colors is not None:
        c = np.asarray(colors, np.float32)
        if c.ndim != 2:
            raise invalid_argument(f"colors must be a 2-D matrix{list(c.shape)}")
        if c.shape[1] < depth:
            raise invalid_argument(f"colors must have equal or more channels than the image provided: "
                                   f"{list(c.shape)}")
        if c.size:
            table = c[:, :depth]
    if table is None:
        table = _COLORS.copy()
        if depth == 1:
            table[:, 0] = 1
    out = x.copy()
    for b in range(n):
        for k in range(bx.shape[1]):
            color = table[k % len(table)][:depth].astype(x.dtype)
            r0 = int(_F(bx[b, k, 0]) * _F(height - 1))
            r1 = int(_F(bx[b, k, 2]) * _F(height - 1))
            c0 = int(_F(bx[b, k, 1]) * _F(width - 1))
            c1 = int(_F(bx[b, k, 3]) * _F(width - 1))
            if r0 > r1 or c0 > c1 or r0 >= height or r1 < 0 or c0 >= width or c1 < 0:
                continue  # inverted or wholly outside: TF logs a warning and skips it
            r0c, r1c, c0c, c1c = max(r0, 0), min(r1, height - 1), max(c0, 0), min(c1, width - 1)
            if r0 >= 0:
                out[b, r0, c0c:c1c + 1] = color
            if r1 < height:
                out[b, r1, c0c:c1c + 1] = color
            if c0 >= 0:
                out[b, r0c:r1c + 1, c0] = color
            if c1 < width:
                out[b, r0c:r1c + 1, c1] = color
    return out


@register_op("DrawBoundingBoxes", inputs=("images", "boxes"), outputs=("output",), type_attrs={"T": ("images",)},
             allowed={"T": (dtypes.float32, dtypes.float16)}, shape=_same("images"))
def draw_bounding_boxes(images, boxes):
    """output = ``images`` with each box's outline drawn in TF's colour table (cycled per box)."""
    return _draw(images, boxes, "DrawBoundingBoxes")


@register_op("DrawBoundingBoxesV2", inputs=("images", "boxes", "colors"), outputs=("output",),
             type_attrs={"T": ("images",)}, allowed={"T": (dtypes.float32, dtypes.float16)}, shape=_same("images"))
def draw_bounding_boxes_v2(images, boxes, colors):
    """output = ``images`` with each box's outline drawn in ``colors`` (cycled per box; TF's table if empty)."""
    return _draw(images, boxes, "DrawBoundingBoxesV2", colors)


def _iou(boxes, i, j):
    bi, bj = boxes[i], boxes[j]
    ymin_i, xmin_i = min(bi[0], bi[2]), min(bi[1], bi[3])
    ymax_i, xmax_i = max(bi[0], bi[2]), max(bi[1], bi[3])
    ymin_j, xmin_j = min(bj[0], bj[2]), min(bj[1], bj[3])
    ymax_j, xmax_j = max(bj[0], bj[2]), max(bj[1], bj[3])
    area_i = _F((ymax_i - ymin_i) * (xmax_i - xmin_i))
    area_j = _F((ymax_j - ymin_j) * (xmax_j - xmin_j))
    if area_i <= 0 or area_j <= 0:
        return _F(0)
    ih = _F(max(_F(min(ymax_i, ymax_j) - max(ymin_i, ymin_j)), _F(0)))
    iw = _F(max(_F(min(xmax_i, xmax_j) - max(xmin_i, xmin_j)), _F(0)))
    inter = _F(ih * iw)
    return _F(inter / _F(_F(area_i + area_j) - inter))


@register_op("NonMaxSuppressionV3", inputs=("boxes", "scores", "max_output_size", "iou_threshold",
                                            "score_threshold"), outputs=("selected_indices",),
             type_attrs={"T": ("boxes", "scores"), "T_threshold": ("iou_threshold", "score_threshold")},
             allowed={"T": (dtypes.float16, dtypes.float32), "T_threshold": (dtypes.float16, dtypes.float32)},
             shape=lambda ins, attrs: [(dtypes.int32, TensorShape([None]))])
def non_max_suppression_v3(boxes, scores, max_output_size, iou_threshold, score_threshold):
    """selected_indices = greedy non-maximum suppression by IoU (at most ``max_output_size``)."""
    b = np.asarray(boxes, _F)
    s = np.asarray(scores, _F)
    if b.ndim != 2 or b.shape[1] != 4:
        raise invalid_argument(f"boxes must be 2-D and have 4 columns, got shape {list(b.shape)}")
    if s.shape != (b.shape[0],):
        raise invalid_argument("scores has incompatible shape")
    iou_t = _F(np.asarray(iou_threshold))
    if not 0 <= iou_t <= 1:
        raise invalid_argument("iou_threshold must be in [0, 1]")
    score_t = _F(np.asarray(score_threshold))
    limit = int(np.asarray(max_output_size))
    if limit < 0:
        raise invalid_argument("max_output_size must be non-negative")
    order = sorted((i for i in range(len(s)) if s[i] > score_t), key=lambda i: (-float(s[i]), i))
    selected = []
    for i in order:
        if len(selected) >= limit:
            break
        if all(_iou(b, i, j) <= iou_t for j in reversed(selected)):
            selected.append(i)
    return np.asarray(selected, np.int32)


# -- sample_distorted_bounding_box -------------------------------------------------------------

def _lrintf(x):
    return int(np.rint(_F(x)))


def _random_crop(rng, width, height, min_rel, max_rel, aspect):
    """TF's GenerateRandomCrop: (min_x, min_y, max_x, max_y) or None."""
    if max_rel <= 0 or aspect <= 0 or width <= 0 or height <= 0 or min_rel > max_rel:
        return None
    min_area = _F(_F(min_rel * _F(width)) * _F(height))
    max_area = _F(_F(max_rel * _F(width)) * _F(height))
    h = _lrintf(np.sqrt(_F(min_area / aspect), dtype=_F))
    max_h = _lrintf(np.sqrt(_F(max_area / aspect), dtype=_F))
    if _lrintf(_F(max_h) * aspect) > width:
        max_h = int((width + 0.5 - float(_F(0.0000001))) / float(aspect))
        if _lrintf(_F(max_h) * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += rng.uniform(max_h - h + 1)
    w = _lrintf(_F(h) * aspect)
    area = _F(w * h)
    if area < min_area:
        h += 1
        w = _lrintf(_F(h) * aspect)
        area = _F(w * h)
    if area > max_area:
        h -= 1
        w = _lrintf(_F(h) * aspect)
        area = _F(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = rng.uniform(height - h) if h < height else 0
    x = rng.uniform(width - w) if w < width else 0
    return x, y, x + w, y + h


def _area(r):
    return (r[2] - r[0]) * (r[3] - r[1])


def _covers(crop, min_covered, boxes):
    if _area(crop) < 10:
        return False
    for bb in boxes:
        if _area(bb) == 0:
            continue
        lo_x, lo_y, hi_x, hi_y = max(crop[0], bb[0]), max(crop[1], bb[1]), min(crop[2], bb[2]), min(crop[3], bb[3])
        inter = 0 if lo_x > hi_x or lo_y > hi_y else (hi_x - lo_x) * (hi_y - lo_y)
        if _F(_F(inter) / _F(_area(bb))) >= min_covered:
            return True
    return False


def _sdbb_shape(ins, attrs):
    return [(ins["image_size"].dtype, TensorShape([3])), (ins["image_size"].dtype, TensorShape([3])),
            (dtypes.float32, TensorShape([1, 1, 4]))]


@register_op("SampleDistortedBoundingBoxV2", inputs=("image_size", "bounding_boxes", "min_object_covered"),
             outputs=("begin", "size", "bboxes"),
             attrs={"seed": 0, "seed2": 0, "aspect_ratio_range": [0.75, 1.33], "area_range": [0.05, 1.0],
                    "max_attempts": 100, "use_image_if_no_bounding_boxes": False},
             type_attrs={"T": ("image_size",)},
             allowed={"T": (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)},
             shape=_sdbb_shape, stateful=True, ctx=True)
def sample_distorted_bounding_box_v2(image_size, bounding_boxes, min_object_covered, seed=0, seed2=0,
                                     aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
                                     use_image_if_no_bounding_boxes=False, ctx=None):
    """(begin, size, bboxes): a random crop (TF's Philox draws, ``max_attempts``
    tries) of the given aspect-ratio and area ranges covering at least
    ``min_object_covered`` of one of the boxes; the whole image if none fits."""
    size = np.asarray(image_size)
    if size.shape != (3,):
        raise invalid_argument(f"image_size must be 1-dimensional with 3 elements, got shape {list(size.shape)}")
    height, width = int(size[0]), int(size[1])
    boxes = np.asarray(bounding_boxes, _F)
    if boxes.ndim != 3 or boxes.shape[-1] != 4:
        raise invalid_argument(f"input boxes must be 3-dimensional [batch, num_boxes, coords], got shape "
                               f"{list(boxes.shape)}")
    min_cov = _F(np.asarray(min_object_covered))
    if min_cov < 0:
        raise invalid_argument(f"min_object_covered must be non-negative: {min_cov}")
    if max_attempts <= 0:
        raise invalid_argument(f"max_attempts must be positive: {max_attempts}")
    rects = []
    for b in boxes.reshape(-1, 4):
        if (b < 0).any() or (b > 1).any():
            raise invalid_argument(f"All bounding box coordinates must be in [0.0, 1.0]: {b[0]}, {b[1]}, {b[2]}, "
                                   f"{b[3]}")
        rects.append((int(_F(b[1] * _F(width))), int(_F(b[0] * _F(height))), int(_F(b[3] * _F(width))),
                      int(_F(b[2] * _F(height)))))
    image_rect = (0, 0, width, height)
    if not rects:
        if not use_image_if_no_bounding_boxes:
            raise invalid_argument("No bounding boxes provided as input. One must enable "
                                   "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.")
        rects.append(image_rect)
    amin, amax = (_F(v) for v in area_range)
    rmin, rmax = (_F(v) for v in aspect_ratio_range)
    gen = ctx.philox
    rng = philox.SimplePhilox(gen.key, gen.reserve((4 * max_attempts + 3) // 4))
    crop = None
    for _ in range(max_attempts):
        aspect = _F(_F(rng.rand_float() * _F(rmax - rmin)) + rmin)
        cand = _random_crop(rng, width, height, amin, amax, aspect)
        if cand is not None and _covers(cand, min_cov, rects):
            crop = cand
            break
    crop = crop or image_rect
    dt = size.dtype
    begin = np.asarray([crop[1], crop[0], 0], dt)
    out_size = np.asarray([crop[3] - crop[1], crop[2] - crop[0], -1], dt)
    bboxes = np.asarray([crop[1] / _F(height), crop[0] / _F(width), crop[3] / _F(height), crop[2] / _F(width)],
                        _F).reshape(1, 1, 4)
    return begin, out_size, bboxes
