"""File-system kernels: MatchingFiles."""
from __future__ import annotations

import glob

import numpy as np

from ref.ops.registry import register_op
from ref.types import dtypes
from ref.types.shapes import TensorShape


@register_op("MatchingFiles", inputs=("pattern",), outputs=("filenames",),
             shape=lambda ins, attrs: [(dtypes.string, TensorShape([None]))], stateful=True)
def matching_files(pattern):
    """filenames = every file matching one of the glob ``pattern`` (a string or
    a vector of them), sorted; empty when nothing matches."""
    pats = np.asarray(pattern, dtype=object).reshape(-1)
    found = set()
    for p in pats:
        p = p.decode() if isinstance(p, bytes) else str(p)
        found.update(glob.glob(p))
    return np.asarray(sorted(f.encode() for f in found), dtype=object).reshape(-1)
