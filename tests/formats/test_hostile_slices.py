"""Crafted slice fields in checkpoint indexes (issue 26): a damaged file is
DataLossError, TF's kind for it, on every reading path -- never a ValueError or
IndexError from the slice arithmetic. One row per malformed field, for the V2
index (``BundleEntryProto.slices``) and the V1 metadata
(``SavedTensorSliceMeta``), read by every public entry point.
"""
from __future__ import annotations

import numpy as np
import pytest

from ref import protos
from ref.formats import table
from ref.formats.bundle import BundleReader, BundleWriter
from ref.formats.checkpoint_reader import CheckpointReader
from ref.formats.checkpoint_v1 import TensorSliceReader
from ref.formats.slices import TensorSlice
from ref.formats.tensor_slice_writer import write_tensor_slices
from ref.types import dtypes, errors

FULL = np.arange(12, dtype=np.float32).reshape(4, 3)

# (case, the first slice's extents as (start, length or None for "all"), TF's shape)
BAD_SLICES = [
    ("extent_past_shape", [(2, 5), (None, None)]),
    ("start_past_shape", [(9, 1), (None, None)]),
    ("negative_start", [(-1, 2), (None, None)]),
    ("negative_length", [(0, -3), (None, None)]),
    ("rank_too_small", [(0, 2)]),
    ("rank_too_large", [(0, 2), (None, None), (0, 1)]),
    ("second_dim_past_shape", [(0, 2), (1, 3)]),
]


def _set_extents(slice_proto, extents):
    slice_proto.ClearField("extent")
    for start, length in extents:
        e = slice_proto.extent.add()
        if length is not None:
            e.start, e.length = start, length


def _v2(prefix, extents):
    with BundleWriter(prefix) as w:
        w.add_slice("p", FULL.shape, "0,2:-", FULL[:2])
        w.add_slice("p", FULL.shape, "2,2:-", FULL[2:])
    index = prefix + ".index"
    items = list(table.Table(open(index, "rb").read(), index))
    with open(index, "wb") as f:
        b = table.TableBuilder(f)
        for k, v in items:
            if k == b"p":
                e = protos.tensor_bundle_pb2.BundleEntryProto.FromString(v)
                _set_extents(e.slices[0], extents)
                v = e.SerializeToString()
            b.add(k, v)
        b.finish()


def _v1(path, extents):
    write_tensor_slices(path, [("p", FULL.shape, TensorSlice.parse("0,2:-"), FULL[:2], dtypes.float32),
                               ("p", FULL.shape, TensorSlice.parse("2,2:-"), FULL[2:], dtypes.float32)])
    items = list(table.Table(open(path, "rb").read(), path))
    with open(path, "wb") as f:
        b = table.TableBuilder(f)
        for k, v in items:
            if k == b"":
                sts = protos.saved_tensor_slices_pb2.SavedTensorSlices.FromString(v)
                _set_extents(sts.meta.tensor[0].slice[0], extents)
                v = sts.SerializeToString()
            b.add(k, v)
        b.finish()


READS = {
    "v2_lookup": ("v2", lambda p: BundleReader(p).lookup("p")),
    "v2_lookup_slice": ("v2", lambda p: BundleReader(p).lookup_slice("p", "0,1:-")),
    "v2_lookup_tensor_slices": ("v2", lambda p: BundleReader(p).lookup_tensor_slices("p")),
    "v2_variables": ("v2", lambda p: BundleReader(p).variables()),
    "v2_checkpoint_reader": ("v2", lambda p: CheckpointReader(p).get_tensor("p")),
    "v1_get_tensor": ("v1", lambda p: TensorSliceReader(p).get_tensor("p")),
    "v1_checkpoint_reader": ("v1", lambda p: CheckpointReader(p).get_tensor("p")),
}
CASES = [(c, ext, r) for c, ext in BAD_SLICES for r in READS]


@pytest.mark.parametrize("case,extents,read", CASES, ids=[f"{c}-{r}" for c, _, r in CASES])
def test_malformed_slice_is_data_loss(tmp_path, case, extents, read):
    fmt, fn = READS[read]
    path = str(tmp_path / "model")
    (_v2 if fmt == "v2" else _v1)(path, extents)
    with pytest.raises(errors.DataLossError):
        fn(path)


@pytest.mark.parametrize("fmt", ["v2", "v1"])
def test_well_formed_slices_still_read(tmp_path, fmt):
    path = str(tmp_path / "model")
    (_v2 if fmt == "v2" else _v1)(path, [(0, 2), (None, None)])  # the slice as written
    np.testing.assert_array_equal(CheckpointReader(path).get_tensor("p"), FULL)
