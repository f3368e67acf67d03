"""The ``tf.data`` ops (ref/ops/dataset), ReadFile/WriteFile and the image
codecs have no gradient, as in TF: datasets are variants, iterators
resources, files and encoded images bytes, decoded pixels integers."""
from __future__ import annotations

from ref.grad.registry import NotDifferentiable
from ref.ops import registry
from ref.ops.dataset import cardinality, csv, datasets, files, grouping, iterators, options

for _module in (cardinality, csv, datasets, files, grouping, iterators, options):
    for _name, _opdef in registry.registered().items():
        if getattr(_opdef.kernel, "__module__", None) == _module.__name__:
            NotDifferentiable(_name)
for _t in ("ReadFile", "WriteFile", "DecodeJpeg", "DecodePng", "DecodeGif", "DecodeBmp", "DecodeImage", "EncodePng",
           "EncodeJpeg"):
    NotDifferentiable(_t)
