"""File-system kernels: MatchingFiles, ReadFile, WriteFile."""
from __future__ import annotations

import glob
import os

import numpy as np

from ref.ops.registry import invalid_argument, register_op
from ref.types import dtypes, errors
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


def _path(filename, what):
    a = np.asarray(filename, dtype=object)
    if a.ndim != 0:
        raise invalid_argument(f"{what} must be a scalar string, got shape {list(a.shape)}")
    p = a.item()
    return p.decode() if isinstance(p, bytes) else str(p)


@register_op("ReadFile", inputs=("filename",), outputs=("contents",),
             shape=lambda ins, attrs: [(dtypes.string, TensorShape([]))], stateful=True)
def read_file(filename):
    """contents = the bytes of file ``filename`` (NotFoundError if it does not exist)."""
    path = _path(filename, "filename")
    try:
        with open(path, "rb") as f:
            return np.asarray(f.read(), dtype=object)
    except FileNotFoundError as e:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from e


@register_op("WriteFile", inputs=("filename", "contents"), outputs=(), shape=lambda ins, attrs: [], stateful=True)
def write_file(filename, contents):
    """Writes the bytes ``contents`` to ``filename``, creating its directories."""
    path = _path(filename, "filename")
    data = np.asarray(contents, dtype=object)
    if data.ndim != 0:
        raise invalid_argument(f"contents must be scalar, got shape {list(data.shape)}")
    data = data.item()
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else str(data).encode())
