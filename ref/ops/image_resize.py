"""Resize kernels beyond bilinear/nearest, their gradients, and crops:
ResizeBicubic, ResizeArea, ResizeBilinearGrad, ResizeBicubicGrad, ResizeNearestNeighborGrad,
CropAndResize, CropAndResizeGradImage, CropAndResizeGradBoxes.

All arithmetic is float32 in TF's order (its CPU kernels, no FMA):

* bicubic: Keys' cubic convolution from a 1024-entry coefficient table
  (``a = -0.75``; ``a = -0.5`` with half-pixel centres, whose taps outside the
  image get weight 0 and the rest renormalised), columns interpolated along y
  first, then the four columns along x;
* area: each output pixel averages the input cells its footprint covers,
  partial cells weighted by the covered fraction, sums along x then y, times
  ``1 / (height_scale * width_scale)``;
* gradients scatter ``grad * weight`` into the source pixels in row-major
  order of the resized image (``np.add.at`` keeps that order);
* crops sample ``y1 * (height - 1) + y * (y2 - y1) * (height - 1) / (crop_height - 1)``,
  points outside the image getting ``extrapolation_value``.
"""
from __future__ import annotations

import numpy as np

from ref.ops.image import _check_image, _nn_index, _resize_shape, _scale, _size
from ref.ops.registry import invalid_argument, register_op
from ref.types import dtypes
from ref.types.shapes import TensorShape

_F = np.float32
_TABLE = 1024
_REALS = (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32, dtypes.int64, dtypes.float16,
          dtypes.float32, dtypes.float64, dtypes.bfloat16)
_FLOATS = (dtypes.float16, dtypes.float32, dtypes.float64)


def _coeffs_table(a):
    """TF's table: entry i holds the cubic's weights at x = i/1024 and x + 1,
    evaluated in double and stored as float."""
    x = (np.arange(_TABLE + 1, dtype=np.float64) / _TABLE).astype(_F).astype(np.float64)
    w0 = ((a + 2) * x - (a + 3)) * x * x + 1
    x1 = (x + 1.0).astype(_F).astype(np.float64)
    w1 = ((a * x1 - 5 * a) * x1 + 8 * a) * x1 - 4 * a
    return w0.astype(_F), w1.astype(_F)


def _bicubic_taps(n_in, n_out, align_corners, half_pixel):
    """(indices, weights): four (n_out,) arrays each, TF's GetWeightsAndIndices."""
    scale = _scale(n_in, n_out, align_corners)
    i = np.arange(n_out).astype(_F)
    src = ((i + _F(0.5)) * scale - _F(0.5)) if half_pixel else i * scale
    src = src.astype(_F)
    loc = np.floor(src).astype(np.int64)
    delta = (src - loc.astype(_F)).astype(_F)
    offset = np.rint(delta * _F(_TABLE)).astype(np.int64)
    t0, t1 = _coeffs_table(-0.5 if half_pixel else -0.75)
    ws = [t1[offset], t0[offset], t0[_TABLE - offset], t1[_TABLE - offset]]
    raw = [loc - 1, loc, loc + 1, loc + 2]
    idx = [np.clip(r, 0, n_in - 1) for r in raw]
    if half_pixel:  # taps outside the image weigh nothing; the others are renormalised
        ws = [np.where(k == r, w, _F(0)).astype(_F) for k, r, w in zip(idx, raw, ws)]
        total = (((ws[0] + ws[1]) + ws[2]) + ws[3]).astype(_F)
        ok = np.abs(total) >= _F(1000) * np.finfo(_F).tiny
        inv = np.where(ok, _F(1) / np.where(ok, total, _F(1)), _F(1)).astype(_F)
        ws = [np.where(ok, w * inv, w).astype(_F) for w in ws]
    return idx, ws


def _check_flags(align_corners, half_pixel_centers):
    if align_corners and half_pixel_centers:
        raise invalid_argument("If half_pixel_centers is True, align_corners must be False.")


@register_op("ResizeBicubic", inputs=("images", "size"), outputs=("resized_images",),
             attrs={"align_corners": False, "half_pixel_centers": False},
             type_attrs={"T": ("images",)}, allowed={"T": _REALS}, shape=_resize_shape(True))
def resize_bicubic(images, size, align_corners=False, half_pixel_centers=False):
    """resized_images = ``images`` resized to ``size`` by cubic convolution (float32)."""
    x = _check_image(images, "ResizeBicubic", 4).astype(_F)
    h, w = _size(size, "ResizeBicubic")
    _check_flags(align_corners, half_pixel_centers)
    yi, yw = _bicubic_taps(x.shape[1], h, align_corners, half_pixel_centers)
    xi, xw = _bicubic_taps(x.shape[2], w, align_corners, half_pixel_centers)
    out = None
    for j in range(4):  # TF caches the four y-interpolated columns, then blends them along x
        cols = x[:, :, xi[j]]
        col = None
        for k in range(4):
            term = cols[:, yi[k]] * yw[k][None, :, None, None]
            col = term if col is None else (col + term)
        term = col * xw[j][None, None, :, None]
        out = term if out is None else (out + term)
    return out.astype(_F)


def _area_x(n_in, n_out, scale):
    """Per output column: first cell, one past the last, and the partial weights of the end cells."""
    out = np.arange(n_out)
    t0 = (out.astype(_F) * scale).astype(_F)
    t1 = ((out + 1).astype(_F) * scale).astype(_F)
    start = np.floor(t0).astype(np.int64)
    end = np.ceil(t1).astype(np.int64)
    start_scale = np.where((start + 1).astype(_F) > t1, scale, (start + 1).astype(_F) - t0).astype(_F)
    end_scale = np.where((end - 1).astype(_F) < t0, scale, t1 - (end - 1).astype(_F)).astype(_F)
    return start, end, start_scale, end_scale


@register_op("ResizeArea", inputs=("images", "size"), outputs=("resized_images",),
             attrs={"align_corners": False}, type_attrs={"T": ("images",)}, allowed={"T": _REALS},
             shape=_resize_shape(True))
def resize_area(images, size, align_corners=False):
    """resized_images = each output pixel the area-weighted mean of the input cells under it (float32)."""
    x = _check_image(images, "ResizeArea", 4)
    h, w = _size(size, "ResizeArea")
    n, in_h, in_w, c = x.shape
    if in_h == 0 or in_w == 0:
        raise invalid_argument("ResizeArea: input image must be of non-zero size")
    hs, ws = _scale(in_h, h, align_corners), _scale(in_w, w, align_corners)
    xf = x.astype(_F)
    start, end, s_scale, e_scale = _area_x(in_w, w, ws)
    # sum along x for every input row: (n, in_h, w, c)
    sum_y = xf[:, :, np.clip(start, 0, in_w - 1)] * s_scale[None, None, :, None]
    two = (start + 1 != end)
    width = int((end - start).max())
    for k in range(1, max(width - 1, 1)):
        col = start + k
        live = two & (col < end - 1)
        sum_y = sum_y + np.where(live[None, None, :, None], xf[:, :, np.clip(col, 0, in_w - 1)], _F(0))
    last = xf[:, :, np.clip(end - 1, 0, in_w - 1)] * e_scale[None, None, :, None]
    sum_y = (sum_y + np.where(two[None, None, :, None], last, _F(0))).astype(_F)
    scale = _F(1.0 / float(_F(hs * ws)))
    out = np.empty((n, h, w, c), _F)
    for y in range(h):
        in_y = _F(_F(y) * hs)
        in_y1 = _F(_F(y + 1) * hs)
        acc = np.zeros((n, w, c), _F)
        for i in range(int(np.floor(in_y)), int(np.ceil(in_y1))):
            fi = _F(i)
            if fi < in_y:
                sy = hs if _F(i + 1) > in_y1 else _F(_F(i + 1) - in_y)
            else:
                sy = _F(in_y1 - fi) if _F(i + 1) > in_y1 else _F(1)
            acc = (acc + sum_y[:, min(i, in_h - 1)] * sy).astype(_F)
        out[:, y] = acc * scale
    return out


def _grad_shape(ins, attrs):
    orig = ins["original_image"]
    return [(orig.dtype, orig.shape)]


@register_op("ResizeBilinearGrad", inputs=("grads", "original_image"), outputs=("output",),
             attrs={"align_corners": False, "half_pixel_centers": False},
             type_attrs={"T": ("original_image",)}, allowed={"T": _FLOATS + (dtypes.bfloat16,)}, shape=_grad_shape)
def resize_bilinear_grad(grads, original_image, align_corners=False, half_pixel_centers=False):
    """output = the gradient of ResizeBilinear with respect to its image: each
    resized pixel's gradient spread over its four sources by the lerp weights."""
    g = _check_image(grads, "ResizeBilinearGrad", 4).astype(_F)
    orig = _check_image(original_image, "ResizeBilinearGrad", 4)
    _check_flags(align_corners, half_pixel_centers)
    n, oh, ow, c = orig.shape
    rh, rw = g.shape[1:3]

    def axis(n_in, n_out):
        scale = _scale(n_in, n_out, align_corners)
        i = np.arange(n_out).astype(_F)
        src = (((i + _F(0.5)) * scale - _F(0.5)) if half_pixel_centers else i * scale).astype(_F)
        fl = np.floor(src)
        lo = np.maximum(fl.astype(np.int64), 0)
        hi = np.minimum(np.ceil(src).astype(np.int64), n_in - 1)
        lerp = (src - fl).astype(_F)
        return lo, hi, lerp, (_F(1) - lerp).astype(_F)

    top, bottom, ly, ily = axis(oh, rh)
    left, right, lx, ilx = axis(ow, rw)
    gy = np.moveaxis(g, 0, 2)  # (rh, rw, n, c)
    rows, cols, vals = [], [], []
    for ty, wy in ((top, ily), (bottom, ly)):
        for tx, wx in ((left, ilx), (right, lx)):
            rows.append(np.broadcast_to(ty[:, None], (rh, rw)))
            cols.append(np.broadcast_to(tx[None, :], (rh, rw)))
            vals.append((gy * wy[:, None, None, None]) * wx[None, :, None, None])
    # row-major over the resized image, then the four corners in TF's order
    r = np.stack(rows, -1).reshape(-1)
    q = np.stack(cols, -1).reshape(-1)
    v = np.stack(vals, 2).reshape(-1, n, c).astype(_F)
    acc = np.zeros((oh, ow, n, c), _F)
    np.add.at(acc, (r, q), v)
    return np.moveaxis(acc, 2, 0).astype(orig.dtype)


@register_op("ResizeBicubicGrad", inputs=("grads", "original_image"), outputs=("output",),
             attrs={"align_corners": False, "half_pixel_centers": False},
             type_attrs={"T": ("original_image",)}, allowed={"T": (dtypes.float32, dtypes.float64)},
             shape=_grad_shape)
def resize_bicubic_grad(grads, original_image, align_corners=False, half_pixel_centers=False):
    """output = the gradient of ResizeBicubic with respect to its image: each
    resized pixel's gradient spread over its 4x4 taps by the product of their weights."""
    g = _check_image(grads, "ResizeBicubicGrad", 4).astype(_F)
    orig = _check_image(original_image, "ResizeBicubicGrad", 4)
    _check_flags(align_corners, half_pixel_centers)
    n, oh, ow, c = orig.shape
    rh, rw = g.shape[1:3]
    yi, yw = _bicubic_taps(oh, rh, align_corners, half_pixel_centers)
    xi, xw = _bicubic_taps(ow, rw, align_corners, half_pixel_centers)
    gy = np.moveaxis(g, 0, 2)  # (rh, rw, n, c)
    rows, cols, vals = [], [], []
    for k in range(4):
        for j in range(4):
            rows.append(np.broadcast_to(yi[k][:, None], (rh, rw)))
            cols.append(np.broadcast_to(xi[j][None, :], (rh, rw)))
            vals.append((gy * yw[k][:, None, None, None]) * xw[j][None, :, None, None])
    r = np.stack(rows, -1).reshape(-1)
    q = np.stack(cols, -1).reshape(-1)
    v = np.stack(vals, 2).reshape(-1, n, c).astype(_F)
    acc = np.zeros((oh, ow, n, c), _F)
    np.add.at(acc, (r, q), v)
    return np.moveaxis(acc, 2, 0).astype(orig.dtype)


@register_op("ResizeNearestNeighborGrad", inputs=("grads", "size"), outputs=("output",),
             attrs={"align_corners": False, "half_pixel_centers": False}, type_attrs={"T": ("grads",)},
             allowed={"T": (dtypes.uint8, dtypes.int8, dtypes.int32) + _FLOATS + (dtypes.bfloat16,)},
             shape=lambda ins, attrs: [(ins["grads"].dtype, _resize_shape(False)(
                 {"images": ins["grads"], "size": ins["size"]}, attrs)[0][1])])
def resize_nearest_neighbor_grad(grads, size, align_corners=False, half_pixel_centers=False):
    """output = the sum of the gradients of the resized pixels each source pixel was copied to."""
    g = _check_image(grads, "ResizeNearestNeighborGrad", 4)
    h, w = _size(size, "ResizeNearestNeighborGrad")
    _check_flags(align_corners, half_pixel_centers)
    n, rh, rw, c = g.shape
    yi = _nn_index(h, rh, align_corners, half_pixel_centers)
    xi = _nn_index(w, rw, align_corners, half_pixel_centers)
    acc = np.zeros((h, w, n, c), g.dtype)
    r = np.broadcast_to(yi[:, None], (rh, rw)).reshape(-1)
    q = np.broadcast_to(xi[None, :], (rh, rw)).reshape(-1)
    np.add.at(acc, (r, q), np.moveaxis(g, 0, 2).reshape(-1, n, c))
    return np.moveaxis(acc, 2, 0)


# -- crop_and_resize ---------------------------------------------------------------------------

def _crop_points(lo, hi, size, n_crop):
    """Source coordinates (float32) of ``n_crop`` samples from ``lo`` to ``hi`` (normalised)."""
    lo, hi = _F(lo), _F(hi)
    if n_crop > 1:
        scale = _F(_F(_F(hi - lo) * _F(size - 1)) / _F(n_crop - 1))
        return (lo * _F(size - 1) + np.arange(n_crop).astype(_F) * scale).astype(_F)
    return np.full(1, _F(0.5 * float(_F(lo + hi)) * (size - 1)), _F)  # float sum, double product


def _check_crop(image, boxes, box_ind, crop_size, op):
    img = _check_image(image, op, 4)
    b = np.asarray(boxes, _F)
    bi = np.asarray(box_ind)
    if b.ndim != 2 or b.shape[1] != 4:
        raise invalid_argument(f"{op}: boxes must be 2-D [num_boxes, 4], got shape {list(b.shape)}")
    if bi.shape != (b.shape[0],):
        raise invalid_argument(f"{op}: box_index has incompatible shape")
    if crop_size is not None:
        cs = np.asarray(crop_size)
        if cs.shape != (2,):
            raise invalid_argument(f"{op}: crop_size must be a length-2 vector")
        if cs[0] <= 0 or cs[1] <= 0:
            raise invalid_argument(f"{op}: crop dimensions must be positive")
    if bi.size and (bi.min() < 0 or bi.max() >= img.shape[0]):
        raise invalid_argument(f"{op}: box_index has values outside [0, batch_size)")
    return img, b, bi


def _crop_sample_plan(b, img_h, img_w, ch, cw, k):
    ys = _crop_points(b[k, 0], b[k, 2], img_h, ch)
    xs = _crop_points(b[k, 1], b[k, 3], img_w, cw)
    oky = (ys >= 0) & (ys <= _F(img_h - 1))
    okx = (xs >= 0) & (xs <= _F(img_w - 1))
    return ys, xs, oky, okx


@register_op("CropAndResize", inputs=("image", "boxes", "box_ind", "crop_size"), outputs=("crops",),
             attrs={"method": "bilinear", "extrapolation_value": 0.0}, type_attrs={"T": ("image",)},
             allowed={"T": _REALS},
             shape=lambda ins, attrs: [(dtypes.float32, TensorShape([
                 ins["boxes"].shape[0] if ins["boxes"].shape.ndims else None,
                 *([int(v) for v in np.asarray(ins["crop_size"].value)] if ins["crop_size"].value is not None
                   else [None, None]),
                 ins["image"].shape[3] if ins["image"].shape.ndims else None]))])
def crop_and_resize(image, boxes, box_ind, crop_size, method="bilinear", extrapolation_value=0.0):
    """crops = for each box, a ``crop_size`` bilinear (or nearest) sampling of its image region (float32)."""
    op = "CropAndResize"
    if method not in ("bilinear", "nearest"):
        raise invalid_argument(f"{op}: method must be 'bilinear' or 'nearest', got {method!r}")
    img, b, bi = _check_crop(image, boxes, box_ind, crop_size, op)
    ch, cw = (int(v) for v in np.asarray(crop_size))
    _, ih, iw, depth = img.shape
    out = np.full((b.shape[0], ch, cw, depth), _F(extrapolation_value), _F)
    for k in range(b.shape[0]):
        ys, xs, oky, okx = _crop_sample_plan(b, ih, iw, ch, cw, k)
        src = img[bi[k]].astype(_F)
        yv, xv = ys[oky], xs[okx]
        if not yv.size or not xv.size:
            continue
        if method == "bilinear":
            top, bot = np.floor(yv).astype(np.int64), np.ceil(yv).astype(np.int64)
            left, right = np.floor(xv).astype(np.int64), np.ceil(xv).astype(np.int64)
            ly = (yv - top.astype(_F)).astype(_F)[:, None, None]
            lx = (xv - left.astype(_F)).astype(_F)[None, :, None]
            tl, tr = src[top][:, left], src[top][:, right]
            bl, br = src[bot][:, left], src[bot][:, right]
            t = tl + (tr - tl) * lx
            bo = bl + (br - bl) * lx
            vals = (t + (bo - t) * ly).astype(_F)
        else:  # roundf: halves away from zero (coordinates here are >= 0)
            ry = np.floor(yv.astype(np.float64) + 0.5).astype(np.int64)
            rx = np.floor(xv.astype(np.float64) + 0.5).astype(np.int64)
            vals = src[ry][:, rx]
        out[k][np.ix_(oky, okx)] = vals
    return out


@register_op("CropAndResizeGradImage", inputs=("grads", "boxes", "box_ind", "image_size"), outputs=("output",),
             attrs={"T": None, "method": "bilinear"}, allowed={"T": _FLOATS},
             shape=lambda ins, attrs: [(attrs["T"], TensorShape(
                 [int(v) for v in np.asarray(ins["image_size"].value)] if ins["image_size"].value is not None
                 else [None] * 4))])
def crop_and_resize_grad_image(grads, boxes, box_ind, image_size, T=None, method="bilinear"):
    """output = the gradient of CropAndResize with respect to the image (scattered lerp weights)."""
    op = "CropAndResizeGradImage"
    g = _check_image(grads, op, 4).astype(_F)
    size = [int(v) for v in np.asarray(image_size)]
    if len(size) != 4 or min(size) <= 0:
        raise invalid_argument(f"{op}: image_size must be 4 positive dimensions, got {size}")
    n, ih, iw, depth = size
    b = np.asarray(boxes, _F)
    bi = np.asarray(box_ind)
    ch, cw = g.shape[1:3]
    acc = np.zeros((n, ih, iw, depth), _F)
    for k in range(b.shape[0]):
        if not 0 <= bi[k] < n:
            continue
        ys, xs, oky, okx = _crop_sample_plan(b, ih, iw, ch, cw, k)
        dst = acc[bi[k]]
        for y in np.nonzero(oky)[0]:
            in_y = ys[y]
            if method == "bilinear":
                ty, by = int(np.floor(in_y)), int(np.ceil(in_y))
                ly = _F(in_y - _F(ty))
                for x in np.nonzero(okx)[0]:
                    in_x = xs[x]
                    lx_, rx = int(np.floor(in_x)), int(np.ceil(in_x))
                    lx = _F(in_x - _F(lx_))
                    gv = g[k, y, x]
                    dtop = (_F(1) - ly) * gv
                    dst[ty, lx_] += (_F(1) - lx) * dtop
                    dst[ty, rx] += lx * dtop
                    dbot = ly * gv
                    dst[by, lx_] += (_F(1) - lx) * dbot
                    dst[by, rx] += lx * dbot
            else:
                ry = int(np.floor(float(in_y) + 0.5))
                for x in np.nonzero(okx)[0]:
                    dst[ry, int(np.floor(float(xs[x]) + 0.5))] += g[k, y, x]
    return acc.astype(dtypes.as_dtype(T).as_numpy_dtype if T is not None else _F)


@register_op("CropAndResizeGradBoxes", inputs=("grads", "image", "boxes", "box_ind"), outputs=("output",),
             attrs={"method": "bilinear"}, type_attrs={"T": ("image",)}, allowed={"T": _REALS},
             shape=lambda ins, attrs: [(dtypes.float32, ins["boxes"].shape)])
def crop_and_resize_grad_boxes(grads, image, boxes, box_ind, method="bilinear"):
    """output = the gradient of CropAndResize (bilinear) with respect to the box coordinates."""
    op = "CropAndResizeGradBoxes"
    g = _check_image(grads, op, 4).astype(_F)
    img, b, bi = _check_crop(image, boxes, box_ind, None, op)
    _, ih, iw, depth = img.shape
    ch, cw = g.shape[1:3]
    out = np.zeros(b.shape, _F)
    for k in range(b.shape[0]):
        if not 0 <= bi[k] < img.shape[0]:
            continue
        y1, x1, y2, x2 = (_F(v) for v in b[k])
        src = img[bi[k]].astype(_F)
        hr = _F(_F(ih - 1) / _F(ch - 1)) if ch > 1 else _F(0)
        wr = _F(_F(iw - 1) / _F(cw - 1)) if cw > 1 else _F(0)
        ys = (y1 * _F(ih - 1) + np.arange(ch).astype(_F) * _F((y2 - y1) * hr)).astype(_F) if ch > 1 \
            else np.full(1, _F(0.5 * float(_F(y1 + y2)) * (ih - 1)), _F)
        xs = (x1 * _F(iw - 1) + np.arange(cw).astype(_F) * _F((x2 - x1) * wr)).astype(_F) if cw > 1 \
            else np.full(1, _F(0.5 * float(_F(x1 + x2)) * (iw - 1)), _F)
        d = [_F(0)] * 4
        for y in range(ch):
            in_y = ys[y]
            if in_y < 0 or in_y > _F(ih - 1):
                continue
            ty, by = int(np.floor(in_y)), int(np.ceil(in_y))
            ly = _F(in_y - _F(ty))
            for x in range(cw):
                in_x = xs[x]
                if in_x < 0 or in_x > _F(iw - 1):
                    continue
                lx_, rx = int(np.floor(in_x)), int(np.ceil(in_x))
                lx = _F(in_x - _F(lx_))
                tl, tr, bl, br = src[ty, lx_], src[ty, rx], src[by, lx_], src[by, rx]
                gy = ((_F(1) - lx) * (bl - tl) + lx * (br - tr)) * g[k, y, x]
                gx = ((_F(1) - ly) * (tr - tl) + ly * (br - bl)) * g[k, y, x]
                for c in range(depth):
                    d = _box_grad_step(d, gy[c], gx[c], y, x, ih, iw, hr, wr, ch, cw)
        out[k] = d
    return out


def _box_grad_step(d, gy, gx, y, x, ih, iw, hr, wr, ch, cw):
    """TF's accumulation of d(crop)/d(y1, x1, y2, x2) for one sample and channel."""
    d = list(d)
    if ch > 1:
        d[0] = _F(d[0] + gy * _F(_F(ih - 1) - _F(y) * hr))
        d[2] = _F(d[2] + gy * _F(_F(y) * hr))
    else:
        d[0] = _F(float(d[0]) + float(gy) * 0.5 * (ih - 1))
        d[2] = _F(float(d[2]) + float(gy) * 0.5 * (ih - 1))
    if cw > 1:
        d[1] = _F(d[1] + gx * _F(_F(iw - 1) - _F(x) * wr))
        d[3] = _F(d[3] + gx * _F(_F(x) * wr))
    else:
        d[1] = _F(float(d[1]) + float(gx) * 0.5 * (iw - 1))
        d[3] = _F(float(d[3]) + float(gx) * 0.5 * (iw - 1))
    return d
