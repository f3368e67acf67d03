"""Checkpoint I/O ops: ``SaveV2``, ``RestoreV2``, ``MergeV2Checkpoints`` and
the string helpers sharded savers build their file names with
(``ShardedFilename``, ``StringJoin``, ``StaticRegexFullMatch``).

These are TF's io_ops as the Saver uses them (TF's save_restore_v2_ops.cc):

* ``SaveV2(prefix, tensor_names, shape_and_slices, tensors)`` writes the V2
  bundle ``prefix.index`` + ``prefix.data-00000-of-00001``. An empty
  ``shape_and_slices[i]`` saves the whole tensor; ``"4 10 0,2:-"`` saves it as
  that slice of a ``[4, 10]`` tensor named ``tensor_names[i]`` (a partition of
  a partitioned variable). Each file is written under a temporary name and
  renamed into place, data first, index last (ref/formats/bundle.py), so a
  crash never leaves a ``prefix.index`` pointing at missing data.
* ``RestoreV2(prefix, tensor_names, shape_and_slices, dtypes)`` reads them back
  (a V1 checkpoint when ``prefix.index`` does not exist, as TF falls back).
  A missing tensor raises ``NotFoundError`` naming it; a corrupt file
  ``DataLossError`` naming the file; a wrong dtype or slice shape
  ``InvalidArgumentError``. Nothing is ever unpickled.
* ``MergeV2Checkpoints(checkpoint_prefixes, destination_prefix)`` merges the
  per-device bundles of a sharded save into one checkpoint.
* ``SaveSlices`` / ``Save`` write the deprecated V1 format (one table file,
  ref/formats/tensor_slice_writer.py); ``ShardedFilespec`` names the glob of a
  sharded V1 save.

All are stateful (they touch the file system) and pure otherwise: the tensors
to save come in as arrays, restored tensors go out as new arrays.
"""
from __future__ import annotations

import concurrent.futures
import os
import re

import numpy as np

from ref.types import dtypes, errors
from ref.types.dtypes import as_dtype
from ref.ops.registry import REQUIRED, invalid_argument, register_op, require_rank
from ref.types.shapes import TensorShape, unknown_shape
from ref.formats.slices import parse_shape_and_slice
from ref.formats.bundle import BundleWriter, meta_filename, merge_bundles, BundleReader
from ref.formats.checkpoint_v1 import TensorSliceReader
from ref.formats.tensor_slice_writer import write_tensor_slices
from ref import protos


def scalar_text(x) -> str:
    """A string scalar (0-d object array, bytes or str) as str."""
    if isinstance(x, np.ndarray):
        if x.ndim != 0:
            raise invalid_argument(f"Expected a scalar string, got shape {list(x.shape)}")
        x = x.item()
    return x.decode("utf-8", "surrogateescape") if isinstance(x, (bytes, np.bytes_)) else str(x)


def _texts(x, what: str, n: int | None = None) -> list[str]:
    arr = np.asarray(x, dtype=object)
    if arr.ndim != 1:
        raise invalid_argument(f"Input {what} must be a 1-D tensor, got shape {list(arr.shape)}")
    out = [scalar_text(v) for v in arr.tolist()]
    if n is not None and len(out) != n:
        raise invalid_argument(f"Expected {what} to have {n} elements, got {len(out)}")
    return out


def _parse_slice(spec: str, name: str):
    try:
        return parse_shape_and_slice(spec)
    except ValueError as e:
        raise invalid_argument(f"Failed to parse shape_and_slice spec {spec!r} for tensor {name}: {e}") from None


# ---------------------------------------------------------------------------
# SaveV2
# ---------------------------------------------------------------------------

def save_v2_tensors(prefix: str, names, specs, tensors, dtype_list=None, fsync=False) -> None:
    """Writes ``tensors`` as the bundle ``prefix`` (the SaveV2 kernel body)."""
    writer = BundleWriter(prefix, fsync=fsync)
    try:
        for i, (name, spec, value) in enumerate(zip(names, specs, tensors)):
            dt = dtype_list[i] if dtype_list else None
            full_shape, sl = _parse_slice(spec, name)
            if sl is None:
                writer.add(name, value, dt)
            else:
                writer.add_slice(name, full_shape, sl, value, dt)
    except BaseException:
        writer.abandon()
        raise
    writer.finish()


@register_op("SaveV2", inputs=("prefix", "tensor_names", "shape_and_slices", "tensors"), outputs=(),
             list_inputs={"tensors": None}, attrs={"dtypes": None, "_fsync": False},
             shape=lambda ins, attrs: [], stateful=True)
def save_v2(prefix, tensor_names, shape_and_slices, tensors, dtypes=None, _fsync=False):
    """Saves ``tensors[i]`` under ``tensor_names[i]`` (a slice of it when
    ``shape_and_slices[i]`` is not empty) in the V2 checkpoint ``prefix``.
    ``_fsync`` (ref's own, an underscore attr TF ignores) flushes every file to
    stable storage before it is renamed into place."""
    n = len(tensors)
    names = _texts(tensor_names, "tensor_names", n)
    specs = _texts(shape_and_slices, "shape_and_slices", n)
    save_v2_tensors(scalar_text(prefix), names, specs, tensors,
                    [as_dtype(d) for d in dtypes] if dtypes else None, bool(_fsync))
    return ()



# ---------------------------------------------------------------------------
# RestoreV2
# ---------------------------------------------------------------------------

def _restore_shape(ins, attrs):
    dts = attrs["dtypes"]
    require_rank(ins, attrs, prefix=0, tensor_names=1, shape_and_slices=1)
    n_names, n_specs = ins["tensor_names"].shape, ins["shape_and_slices"].shape
    if not n_names.is_compatible_with(n_specs):
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {n_names[0]} and {n_specs[0]}. "
                         f"Shapes are {n_names} and {n_specs}. for '{attrs.get('_op_name')}'")
    value = ins["shape_and_slices"].value
    specs = None
    if value is not None:
        arr = np.asarray(value, dtype=object).reshape(-1)
        if len(arr) != len(dts):
            raise ValueError("The number of shape_and_slice doesn't match tensor outputs.")
        specs = [scalar_text(v) for v in arr.tolist()]
    out = []
    for i, d in enumerate(dts):
        shape = unknown_shape()
        if specs is not None and specs[i]:
            try:
                full, sl = _parse_slice(specs[i], f"#{i}")
                shape = TensorShape(list(sl.shape(full)))
            except errors.OpError as e:
                raise ValueError(e.message) from None
        out.append((dtypes.as_dtype(d), shape))
    return out


def _type_string(dtype) -> str:
    """TF's DataTypeString: ``float``, ``double``, ``int64``..."""
    return protos.types_pb2.DataType.Name(dtype.as_datatype_enum)[3:].lower()


class _Source:
    """A V2 bundle, or a V1 checkpoint when ``prefix.index`` does not exist."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        if os.path.exists(meta_filename(prefix)):
            self.v2, self.v1 = BundleReader(prefix), None
        else:
            try:
                self.v2, self.v1 = None, TensorSliceReader(prefix)
            except errors.OpError:
                raise errors.NotFoundError(
                    None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
                                f"for {prefix}") from None

    def dtype_and_shape(self, name):
        if self.v2 is not None:
            return self.v2.lookup_dtype_and_shape(name)
        if not self.v1.has_tensor(name):
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        dtype, shape, _ = self.v1.tensors[name]
        return dtype, tuple(shape)

    def read(self, name, sl):
        if self.v2 is not None:
            return self.v2.lookup(name) if sl is None else self.v2.lookup_slice(name, sl)
        return self.v1.get_slice(name, sl)

    def close(self):
        if self.v2 is not None:
            self.v2.close()


PARALLEL_RESTORE_BYTES = 1 << 26
"""Bytes of a V2 checkpoint's data files from which RestoreV2 reads two tensors at a time."""


def _checked(src, name, spec, want):
    """``(name, slice)`` of one RestoreV2 entry after TF's dtype and shape checks."""
    want = as_dtype(want).base_dtype
    have, shape = src.dtype_and_shape(name)
    if have != want:
        raise invalid_argument(f"tensor_name = {name}; expected dtype {_type_string(want)} does not "
                               f"equal original dtype {_type_string(have)}")
    full, sl = _parse_slice(spec, name)
    if sl is not None and tuple(full) != tuple(shape):
        raise invalid_argument(
            f"tensor_name = {name}; shape in shape_and_slice spec [{','.join(map(str, full))}] does not "
            f"match the shape stored in checkpoint: [{','.join(map(str, shape))}]")
    return name, sl


def restore_v2_tensors(prefix: str, names, specs, dtype_list) -> list[np.ndarray]:
    """Reads the named tensors (slices) of checkpoint ``prefix`` (the RestoreV2 kernel body).

    A large V2 restore reads two tensors at a time: one thread's reads (positional,
    without the GIL) overlap the other's checksums. The error reported is still
    the first tensor's in order (as TF's one-by-one reads)."""
    src = _Source(prefix)
    try:
        if src.v2 is None or len(names) < 2 or src.v2.data_bytes() < PARALLEL_RESTORE_BYTES:
            return [src.read(*_checked(src, name, spec, want)) for name, spec, want in zip(names, specs, dtype_list)]
        with concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="ref-restore") as pool:
            pending = []
            try:
                for name, spec, want in zip(names, specs, dtype_list):
                    pending.append(pool.submit(src.read, *_checked(src, name, spec, want)))
            except Exception:
                for earlier in pending:  # a tensor before this one failing is the error to report
                    earlier.result()
                raise
            return [f.result() for f in pending]
    finally:
        src.close()


@register_op("RestoreV2", inputs=("prefix", "tensor_names", "shape_and_slices"), outputs=("*tensors",),
             attrs={"dtypes": REQUIRED}, shape=_restore_shape, stateful=True)
def restore_v2(prefix, tensor_names, shape_and_slices, dtypes):
    """The tensors ``tensor_names`` (slices ``shape_and_slices``) of checkpoint
    ``prefix``, with types ``dtypes``."""
    n = len(dtypes)
    names = _texts(tensor_names, "tensor_names", n)
    specs = _texts(shape_and_slices, "shape_and_slices", n)
    return restore_v2_tensors(scalar_text(prefix), names, specs, dtypes)


# ---------------------------------------------------------------------------
# Sharded saves: file names and the merge
# ---------------------------------------------------------------------------

@register_op("MergeV2Checkpoints", inputs=("checkpoint_prefixes", "destination_prefix"), outputs=(),
             attrs={"delete_old_dirs": True, "allow_missing_files": False}, shape=lambda ins, attrs: [],
             stateful=True)
def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs=True,
                         allow_missing_files=False):
    """Merges the bundles ``checkpoint_prefixes`` into ``destination_prefix``
    (data files renamed, one merged index written last, input indexes deleted);
    with ``delete_old_dirs`` the inputs' directories are removed when empty."""
    prefixes = _texts(checkpoint_prefixes, "checkpoint_prefixes")
    if allow_missing_files:
        prefixes = [p for p in prefixes if os.path.exists(meta_filename(p))]
        if not prefixes:
            raise invalid_argument("MergeV2Checkpoints: none of the checkpoint_prefixes exist")
    dest = scalar_text(destination_prefix)
    merge_bundles(prefixes, dest)
    if delete_old_dirs:
        for d in sorted({os.path.dirname(os.path.abspath(p)) for p in prefixes}):
            if d != os.path.dirname(os.path.abspath(dest)):
                try:
                    os.rmdir(d)
                except OSError:
                    pass  # not empty, or already gone: TF ignores this too
    return ()


@register_op("ShardedFilename", inputs=("basename", "shard", "num_shards"), outputs=("filename",),
             shape=lambda ins, attrs: [(dtypes.string, TensorShape([]))])
def sharded_filename(basename, shard, num_shards):
    """``"%s-%05d-of-%05d" % (basename, shard, num_shards)``."""
    name = "%s-%05d-of-%05d" % (scalar_text(basename), int(shard), int(num_shards))
    return np.array(name.encode("utf-8", "surrogateescape"), dtype=object)


def _join_shape(ins, attrs):
    shape = TensorShape([])
    for s in ins["inputs"]:
        if s.shape.ndims != 0:
            shape = s.shape if shape.ndims == 0 else shape.merge_with(s.shape)
    return [(dtypes.string, shape)]


@register_op("StringJoin", inputs=("inputs",), outputs=("output",), list_inputs={"inputs": "N"},
             attrs={"separator": ""}, shape=_join_shape)
def string_join(inputs, separator=""):
    """Joins the strings of ``inputs`` element-wise (scalars broadcast) with ``separator``."""
    arrays = [np.asarray(x, dtype=object) for x in inputs]
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    out = np.empty(shape, dtype=object)
    parts = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    sep = scalar_text(separator) if not isinstance(separator, str) else separator
    flat = out.reshape(-1)
    for i in range(flat.size):
        flat[i] = sep.join(scalar_text(p[i]) for p in parts).encode("utf-8", "surrogateescape")
    return out


def _full_match(input, pattern):
    pattern = scalar_text(pattern) if not isinstance(pattern, str) else pattern
    try:
        pattern = re.compile(pattern)
    except re.error as e:
        raise invalid_argument(f"Invalid pattern: {pattern}, error: {e}") from None
    arr = np.asarray(input, dtype=object)
    out = np.empty(arr.shape, dtype=np.bool_)
    flat, src = out.reshape(-1), arr.reshape(-1)
    for i in range(flat.size):
        flat[i] = pattern.fullmatch(scalar_text(src[i])) is not None
    return out


@register_op("StaticRegexFullMatch", inputs=("input",), outputs=("output",), attrs={"pattern": REQUIRED},
             shape=lambda ins, attrs: [(dtypes.bool, ins["input"].shape)])
def static_regex_full_match(input, pattern):
    """``output[i] = pattern matches all of input[i]`` (TF's RE2 ``FullMatch``; here
    Python's ``re.fullmatch``, the same for the patterns savers build, e.g. TF's
    sharded Saver asks whether the checkpoint prefix matches ``"^s3://.*"``)."""
    return _full_match(input, pattern)


@register_op("RegexFullMatch", inputs=("input", "pattern"), outputs=("output",),
             shape=lambda ins, attrs: [(dtypes.bool, ins["input"].shape)])
def regex_full_match(input, pattern):
    """``StaticRegexFullMatch`` with the pattern a scalar string tensor."""
    return _full_match(input, np.asarray(pattern, dtype=object).reshape(()).item())


# ---------------------------------------------------------------------------
# V1 checkpoints (SaverDef.V1): Save, SaveSlices, ShardedFilespec
# ---------------------------------------------------------------------------

def _save_v1(filename, names, specs, data):
    entries = []
    for name, spec, value in zip(names, specs, data):
        value = np.asarray(value)
        full_shape, sl = _parse_slice(spec, name)
        if sl is None:
            full_shape = list(value.shape)
        dtype = dtypes.string if value.dtype == object else dtypes.as_dtype(value.dtype)
        entries.append((name, full_shape, sl, value, dtype))
    try:
        write_tensor_slices(scalar_text(filename), entries)
    except ValueError as e:
        raise invalid_argument(str(e)) from None
    except FileNotFoundError as e:
        raise errors.NotFoundError(None, None, f"Failed to create a checkpoint file {scalar_text(filename)}: {e}") \
            from None


@register_op("SaveSlices", inputs=("filename", "tensor_names", "shapes_and_slices", "data"), outputs=(),
             list_inputs={"data": None}, attrs={"T": None}, shape=lambda ins, attrs: [], stateful=True)
def save_slices(filename, tensor_names, shapes_and_slices, data, T=None):
    """Saves ``data[i]`` under ``tensor_names[i]`` (as the slice
    ``shapes_and_slices[i]`` of a larger tensor when not empty) in the V1
    checkpoint file ``filename`` (TF's SaveSlices)."""
    n = len(data)
    _save_v1(filename, _texts(tensor_names, "tensor_names", n), _texts(shapes_and_slices, "shapes_and_slices", n),
            data)
    return ()


@register_op("Save", inputs=("filename", "tensor_names", "data"), outputs=(), list_inputs={"data": None},
             attrs={"T": None}, shape=lambda ins, attrs: [], stateful=True)
def save(filename, tensor_names, data, T=None):
    """Saves whole tensors ``data[i]`` under ``tensor_names[i]`` in the V1 checkpoint file ``filename``."""
    n = len(data)
    _save_v1(filename, _texts(tensor_names, "tensor_names", n), [""] * n, data)
    return ()


@register_op("ShardedFilespec", inputs=("basename", "num_shards"), outputs=("filename",),
             shape=lambda ins, attrs: [(dtypes.string, TensorShape([]))])
def sharded_filespec(basename, num_shards):
    """``"%s-?????-of-%05d" % (basename, num_shards)``: the glob of a sharded V1 checkpoint."""
    spec = "%s-?????-of-%05d" % (scalar_text(basename), int(num_shards))
    return np.array(spec.encode("utf-8", "surrogateescape"), dtype=object)


def _restore_one_shape(ins, attrs):
    require_rank(ins, attrs, **{k: 0 for k in ins})
    shape = unknown_shape()
    value = ins["shape_and_slice"].value if "shape_and_slice" in ins else None
    if value is not None and scalar_text(np.asarray(value, dtype=object).reshape(-1)[0]):
        full, sl = _parse_slice(scalar_text(np.asarray(value, dtype=object).reshape(-1)[0]), "#0")
        shape = TensorShape(list(sl.shape(full)))
    return [(dtypes.as_dtype(attrs["dt"]), shape)]


def _restore_v1(file_pattern, tensor_name, spec, dt):
    pattern, name = scalar_text(file_pattern), scalar_text(tensor_name)
    reader = TensorSliceReader(pattern)
    if not reader.has_tensor(name):
        raise errors.NotFoundError(None, None, f'Tensor name "{name}" not found in checkpoint files {pattern}')
    have, shape, _ = reader.tensors[name]
    want = as_dtype(dt).base_dtype
    if have != want:
        raise invalid_argument(f"Expected to restore a tensor of type {_type_string(want)}, got a tensor of type "
                               f"{_type_string(have)} instead: tensor_name = {name}")
    sl = None
    if spec:
        full, sl = _parse_slice(spec, name)
        if tuple(full) != tuple(shape):
            raise invalid_argument(f"Shape in shape_and_slice spec does not match the shape in the save file: "
                                   f"[{','.join(map(str, full))}], save file shape: [{','.join(map(str, shape))}]")
    return reader.get_slice(name, sl)


@register_op("Restore", inputs=("file_pattern", "tensor_name"), outputs=("tensor",),
             attrs={"dt": REQUIRED, "preferred_shard": -1}, shape=_restore_one_shape, stateful=True)
def restore(file_pattern, tensor_name, dt, preferred_shard=-1):
    """The whole tensor ``tensor_name`` of the V1 checkpoint files matching ``file_pattern``."""
    return _restore_v1(file_pattern, tensor_name, "", dt)


@register_op("RestoreSlice", inputs=("file_pattern", "tensor_name", "shape_and_slice"), outputs=("tensor",),
             attrs={"dt": REQUIRED, "preferred_shard": -1}, shape=_restore_one_shape, stateful=True)
def restore_slice(file_pattern, tensor_name, shape_and_slice, dt, preferred_shard=-1):
    """The slice ``shape_and_slice`` of tensor ``tensor_name`` in the V1 checkpoint files matching
    ``file_pattern`` (the whole tensor when empty)."""
    return _restore_v1(file_pattern, tensor_name, scalar_text(shape_and_slice), dt)


# ---------------------------------------------------------------------------
# Vocabulary remapping (warm-starting): GenerateVocabRemapping, LoadAndRemapMatrix
# ---------------------------------------------------------------------------

def _vocab_lines(path: str, what: str) -> list[str]:
    try:
        with open(path, "rb") as f:
            return [line.rstrip(b"\r\n").decode("utf-8", "surrogateescape") for line in f]
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory ({what})") from None


@register_op("GenerateVocabRemapping", inputs=("new_vocab_file", "old_vocab_file"),
             outputs=("remapping", "num_present"),
             attrs={"new_vocab_offset": REQUIRED, "num_new_vocab": REQUIRED, "old_vocab_size": -1},
             shape=lambda ins, attrs: [(dtypes.int64, TensorShape([attrs["num_new_vocab"]])),
                                       (dtypes.int32, TensorShape([]))])
def generate_vocab_remapping(new_vocab_file, old_vocab_file, new_vocab_offset, num_new_vocab, old_vocab_size=-1):
    """remapping[i] = the line of the old vocabulary holding line
    ``new_vocab_offset + i`` of the new one (-1 when absent; only the first
    ``old_vocab_size`` old lines count unless -1); num_present = #{i: remapping[i] >= 0}."""
    old = _vocab_lines(scalar_text(old_vocab_file), "old_vocab_file")
    if old_vocab_size != -1:
        if old_vocab_size > len(old):
            raise invalid_argument(f"old_vocab_size {old_vocab_size} is larger than the {len(old)} lines of "
                                   f"{scalar_text(old_vocab_file)}")
        old = old[:old_vocab_size]
    new = _vocab_lines(scalar_text(new_vocab_file), "new_vocab_file")
    if new_vocab_offset + num_new_vocab > len(new):
        raise invalid_argument(f"Trying to read {num_new_vocab} lines from {scalar_text(new_vocab_file)} starting at line "
                               f"{new_vocab_offset}, but it has only {len(new)} lines")
    index = {}
    for i, token in enumerate(old):
        if token in index:  # TF's lookup table refuses a repeated key
            raise errors.FailedPreconditionError(None, None, f"HashTable has different value for same key. Key "
                                                             f"{token} has {index[token]} and trying to add value {i}")
        index[token] = i
    remapping = np.array([index.get(t, -1) for t in new[new_vocab_offset:new_vocab_offset + num_new_vocab]],
                         dtype=np.int64)
    return remapping, np.int32(np.count_nonzero(remapping >= 0))


@register_op("LoadAndRemapMatrix",
             inputs=("ckpt_path", "old_tensor_name", "row_remapping", "col_remapping", "initializing_values"),
             outputs=("output_matrix",),
             attrs={"num_rows": REQUIRED, "num_cols": REQUIRED, "max_rows_in_memory": -1},
             shape=lambda ins, attrs: [(dtypes.float32, TensorShape([attrs["num_rows"], attrs["num_cols"]]))],
             stateful=True)
def load_and_remap_matrix(ckpt_path, old_tensor_name, row_remapping, col_remapping, initializing_values,
                          num_rows, num_cols, max_rows_in_memory=-1):
    """out[i, j] = old[row_remapping[i], col_remapping[j]] (``col_remapping``
    empty: column j itself) where both are >= 0; every other entry takes the
    next of ``initializing_values``, in row-major order. ``old`` is the 2-D
    float tensor ``old_tensor_name`` of checkpoint ``ckpt_path``."""
    rows = np.asarray(row_remapping, np.int64).reshape(-1)
    cols = np.asarray(col_remapping, np.int64).reshape(-1)
    if rows.size != num_rows:
        raise invalid_argument(f"Tensor row_remapping shape [{rows.size}] does not match num_rows {num_rows}")
    if cols.size and cols.size != num_cols:
        raise invalid_argument(f"Tensor col_remapping shape [{cols.size}] does not match num_cols {num_cols}")
    for what, ids in (("row", rows), ("col", cols)):
        kept = ids[ids >= 0]
        if np.unique(kept).size != kept.size:
            dup = int(next(i for i in kept if np.count_nonzero(kept == i) > 1))
            first, second = (int(i) for i in np.flatnonzero(ids == dup)[:2])
            raise errors.UnimplementedError(None, None, f"Old {what} ID {dup} is mapped to both new {what} ID "
                                            f"{first} and {second}, which is not supported.")
    if not cols.size:
        cols = np.arange(num_cols, dtype=np.int64)
    # TF reads both strings with Tensor::scalar(): any one-element tensor will do (the remapping
    # initializers pass ckpt_path as a [1] vector)
    ckpt_path, old_tensor_name = (np.asarray(t, dtype=object).reshape(()) if np.size(t) == 1 else t
                                  for t in (ckpt_path, old_tensor_name))
    old = restore_v2_tensors(scalar_text(ckpt_path), [scalar_text(old_tensor_name)], [""], [dtypes.float32])[0]
    if old.ndim != 2:
        raise invalid_argument(f"Tensor {scalar_text(old_tensor_name)} in {scalar_text(ckpt_path)} is not a matrix: "
                               f"shape {list(old.shape)}")
    if rows.max(initial=-1) >= old.shape[0] or cols.max(initial=-1) >= old.shape[1]:
        raise invalid_argument(f"Remapping indices out of range for {scalar_text(old_tensor_name)} of shape "
                               f"{list(old.shape)}")
    present = (rows[:, None] >= 0) & (cols[None, :] >= 0)
    init = np.asarray(initializing_values, np.float32).reshape(-1)
    missing = int(present.size - np.count_nonzero(present))
    if init.size != missing:
        raise invalid_argument(f"Number of entries ({init.size}) in initializing_values does not match the number "
                               f"of entries to initialize ({missing})")
    out = np.empty((num_rows, num_cols), np.float32)
    out[present] = old[np.ix_(np.maximum(rows, 0), np.maximum(cols, 0))][present]
    out[~present] = init
    return out
