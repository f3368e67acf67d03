"""Gradient clipping (ref.graph_ops.clip_ops graph functions, ref.ops.clip pure forms):
TF 1.x docs, "Training", "Gradient Clipping".

Compositions of ordinary ops, not raw ops: ``kernel`` is empty and
tests/graph_ops/test_clipping.py checks the pure forms against these
oracles (float64, straight from the quotes) over sizes 1..100 and scales
1e-3..1e3. ``target`` is the graph function whose documented defaults are
checked.
"""
from ref import numpy_reference
from specs.card import SpecCard

SEED = "001_05ea92376fdb369e.txt"
SECTION = "Gradient Clipping"


_ORDER = "TF's order, in t's dtype: "

CARDS = [
    SpecCard(name="clip_by_value", seed=SEED, section=SECTION,
             quote="Any values less than `clip_value_min` are set to `clip_value_min`. Any values greater than "
                   "`clip_value_max` are set to `clip_value_max`.",
             target="ref.graph_ops.clip_ops.clip_by_value", defaults={"name": None}, oracle=numpy_reference.clip_by_value,
             ulp=0, ulp64=0,
             notes=_ORDER + "Maximum(Minimum(t, clip_value_max), clip_value_min) (TF's Python clip_by_value; the "
                            "ClipByValue raw op computes the same). Bounds broadcasting t to a larger shape "
                            "raise ValueError.",
             errors=("ValueError: Shapes ... are incompatible (bounds that broadcast t)",)),
    SpecCard(name="clip_by_norm", seed=SEED, section=SECTION, quote="`t * clip_norm / l2norm(t)`",
             target="ref.graph_ops.clip_ops.clip_by_norm", defaults={"axes": None, "name": None},
             oracle=numpy_reference.clip_by_norm, ulp=4, ulp64=4,
             notes=_ORDER + "(t * clip_norm) / max(l2norm, clip_norm), l2norm = sqrt(sum(t * t, axes, keepdims)) "
                            "(0 where the sum is 0, so zeros stay zeros); a negative clip_norm counts as 0. "
                            "`axes` (later TF) normalises each slice separately. IndexedSlices are clipped on "
                            "their values."),
    SpecCard(name="clip_by_average_norm", seed=SEED, section=SECTION, quote="`t * clip_norm / l2norm_avg(t)`",
             target="ref.graph_ops.clip_ops.clip_by_average_norm", defaults={"name": None},
             oracle=numpy_reference.clip_by_average_norm, ulp=8, ulp64=4,
             notes=_ORDER + "(t * clip_norm) * min(rsqrt(sum(t * t)) * n, 1 / clip_norm), n the element count. "
                            "TF's float32 rsqrt is Eigen's approximation (2 ULP). TF 2.21 computes n and "
                            "1 / clip_norm in float32 and fails for float64 t; ref computes them in t's dtype "
                            "and supports float64."),
    SpecCard(name="global_norm", seed=SEED, section=SECTION,
             quote="`global_norm = sqrt(sum([l2norm(t)**2 for t in t_list]))` Any entries in `t_list` that are of "
                   "type None are ignored.",
             target="ref.graph_ops.clip_ops.global_norm", defaults={"name": None}, oracle=numpy_reference.global_norm,
             ulp=4, ulp64=4,
             notes=_ORDER + "sqrt(sum(stack([l2_loss(t) for t])) * 2), l2_loss(t) = sum(t * t * 0.5). "
                            "IndexedSlices count their values. Sums of many elements may be reordered by TF's "
                            "Eigen reductions (a few ULP).",
             errors=("TypeError: `t_list` should be a sequence of tensors.",)),
    SpecCard(name="clip_by_global_norm", seed=SEED, section=SECTION,
             quote="t_list[i] * clip_norm / max(global_norm, clip_norm)",
             target="ref.graph_ops.clip_ops.clip_by_global_norm", defaults={"use_norm": None, "name": None},
             oracle=numpy_reference.clip_by_global_norm, ulp=6, ulp64=6,
             notes=_ORDER + "t * (clip_norm * min(1 / use_norm, 1 / clip_norm) + (use_norm - use_norm)): an inf or "
                            "NaN norm makes every output NaN. None entries stay None; IndexedSlices stay "
                            "IndexedSlices.",
             errors=("TypeError: `t_list` should be a sequence of tensors.",)),
]

MATH = r"""\operatorname{clip\_by\_value}(t) = \min(\max(t, c_{\min}), c_{\max}) \qquad
\operatorname{clip\_by\_norm}(t) = \frac{t \cdot c}{\max(\lVert t \rVert_2,\, c)}

\operatorname{global\_norm} = \sqrt{\textstyle\sum_i \lVert t_i \rVert_2^2} \qquad
\operatorname{clip\_by\_global\_norm}(t_i) = \frac{t_i \cdot c}{\max(\operatorname{global\_norm},\, c)}
"""
"""The update in LaTeX (TF's form; rendered as MathML at the top of the docs page)."""
