"""Initializers that load a matrix from a checkpoint with its rows (and/or
columns) remapped to a new vocabulary, as TF's ``training/checkpoint_ops.py``:
warm-starting a vocabulary-indexed variable (``warm_start(...,
var_name_to_vocab_info=...)``).

Row ``i`` of the new matrix is the row of the old one whose vocabulary line
holds the new vocabulary's line ``i`` (``GenerateVocabRemapping``); rows (and
columns) absent from the old vocabulary, and the out-of-vocabulary buckets
appended after the vocabulary, take values from ``initializer``
(``LoadAndRemapMatrix``). The checkpoint is read when the initializer runs.
"""
from __future__ import annotations

from ref.types import dtypes
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops, math_ops
from ref.graph_ops.init_ops import TruncatedNormal, Zeros

__all__ = ["_load_and_remap_matrix_initializer", "_load_embedding_initializer"]


def _load_and_remap_matrix(ckpt_path, old_tensor_name, new_row_vocab_offset, num_rows_to_load, new_col_vocab_size,
                           initializer, old_row_vocab_size=-1, old_row_vocab_file=None, new_row_vocab_file=None,
                           old_col_vocab_file=None, new_col_vocab_file=None, num_row_oov_buckets=0,
                           num_col_oov_buckets=0, max_rows_in_memory=-1):
    """The ``[num_rows_to_load + num_row_oov_buckets, new_col_vocab_size +
    num_col_oov_buckets]`` remapped matrix (a Tensor).

    Raises:
      ValueError: for negative OOV buckets, a vocabulary given without its
        counterpart, or no vocabulary at all."""
    if num_row_oov_buckets < 0:
        raise ValueError("num_row_oov_buckets must be >= 0, but received %d" % num_row_oov_buckets)
    if num_col_oov_buckets < 0:
        raise ValueError("num_col_oov_buckets must be >= 0, but received %d" % num_col_oov_buckets)
    if bool(old_row_vocab_file) != bool(new_row_vocab_file):
        raise ValueError("old_row_vocab_file and new_row_vocab_file must both be specified or left unspecified. "
                         f"old_row_vocab_file='{old_row_vocab_file}', new_row_vocab_file='{new_row_vocab_file}'")
    if bool(old_col_vocab_file) != bool(new_col_vocab_file):
        raise ValueError("old_col_vocab_file and new_col_vocab_file must both be specified or left unspecified. "
                         f"old_col_vocab_file='{old_col_vocab_file}', new_col_vocab_file='{new_col_vocab_file}'")
    remap_rows = new_row_vocab_file and old_row_vocab_file
    remap_cols = new_col_vocab_file and old_col_vocab_file
    if not (remap_rows or remap_cols):
        raise ValueError("Must provide either row or column vocab files. If no remapping is necessary, consider "
                         "using `tf.contrib.framework.init_from_checkpoint` instead.")
    num_rows_present = num_rows_to_load
    if remap_rows:
        row_remapping, num_rows_present = apply_op(
            "GenerateVocabRemapping", new_vocab_file=new_row_vocab_file, old_vocab_file=old_row_vocab_file,
            new_vocab_offset=new_row_vocab_offset, num_new_vocab=num_rows_to_load, old_vocab_size=old_row_vocab_size)
    else:  # no reordering, but a partition still starts at its offset
        row_remapping = math_ops.range(new_row_vocab_offset, new_row_vocab_offset + num_rows_to_load,
                                       dtype=dtypes.int64)
    col_remapping = convert_to_tensor([], dtype=dtypes.int64)
    num_cols_present = new_col_vocab_size
    if remap_cols:
        col_remapping, num_cols_present = apply_op(
            "GenerateVocabRemapping", new_vocab_file=new_col_vocab_file, old_vocab_file=old_col_vocab_file,
            new_vocab_offset=0, num_new_vocab=new_col_vocab_size)
    missing = num_rows_to_load * new_col_vocab_size - num_rows_present * num_cols_present
    if hasattr(missing, "op"):
        # ref's initializers take static shapes: draw for every entry, keep the first ``missing``
        init_vals = array_ops.reshape(initializer([num_rows_to_load * new_col_vocab_size, 1]), [-1])
        init_vals = apply_op("Slice", input=init_vals, begin=convert_to_tensor([0]),
                             size=array_ops.reshape(missing, [1]))
    else:
        init_vals = array_ops.reshape(initializer([missing, 1]), [-1])
    out = apply_op("LoadAndRemapMatrix", ckpt_path=ckpt_path, old_tensor_name=old_tensor_name,
                   row_remapping=row_remapping, col_remapping=col_remapping,
                   initializing_values=init_vals, num_rows=num_rows_to_load,
                   num_cols=new_col_vocab_size, max_rows_in_memory=max_rows_in_memory)
    if num_row_oov_buckets > 0:
        out = array_ops.concat([out, convert_to_tensor(initializer([num_row_oov_buckets, new_col_vocab_size]))], 0)
    if num_col_oov_buckets > 0:
        out = array_ops.concat(
            [out, convert_to_tensor(initializer([num_rows_to_load + num_row_oov_buckets, num_col_oov_buckets]))], 1)
    return out


def _load_and_remap_matrix_initializer(ckpt_path, old_tensor_name, new_row_vocab_size, new_col_vocab_size,
                                       old_row_vocab_size=-1, old_row_vocab_file=None, new_row_vocab_file=None,
                                       old_col_vocab_file=None, new_col_vocab_file=None, num_row_oov_buckets=0,
                                       num_col_oov_buckets=0, initializer=None, max_rows_in_memory=-1):
    """A variable initializer ``(shape, dtype, partition_info)`` loading the remapped
    matrix (the partition's rows of it, for a row-partitioned variable);
    ``initializer`` (default zeros) fills what the checkpoint does not hold.

    Raises:
      TypeError: if ``initializer`` is not callable."""
    if initializer is None:
        initializer = Zeros()
    if not callable(initializer):
        raise TypeError(f"initializer must be callable, instead of being {initializer} of type {type(initializer)}.")

    def _initializer(shape, dtype=dtypes.float32, partition_info=None):
        if dtype != dtypes.float32:
            raise TypeError(f"Currently, only float32 is supported. Received dtype: {dtype}")
        shape = [int(d) for d in shape]
        if len(shape) != 2:
            raise ValueError(f"Expected 2-dim shape, but received: {shape}")
        if shape[0] <= 0:
            raise ValueError(f"Expected 1st dim of shape to be > 0, but received shape: {shape}")
        if shape[1] != new_col_vocab_size + num_col_oov_buckets:
            raise ValueError(f"Expected 2nd dim of shape to be new_col_vocab_size ({new_col_vocab_size}) + "
                             f"num_col_oov_buckets ({num_col_oov_buckets}) = "
                             f"{new_col_vocab_size + num_col_oov_buckets}, but received shape: {shape}")
        offset = partition_info.single_offset(shape) if partition_info is not None else 0
        if offset + shape[0] > new_row_vocab_size + num_row_oov_buckets:
            raise ValueError(f"Trying to initialize {shape[0]} additional rows after {offset} rows have already "
                             f"been initialized, which would exceed expected total row count of "
                             f"new_row_vocab_size ({new_row_vocab_size}) + num_row_oov_buckets "
                             f"({num_row_oov_buckets}) = {new_row_vocab_size + num_row_oov_buckets}.")
        row_oov = min(shape[0], max(0, offset + shape[0] - new_row_vocab_size))
        if offset > new_row_vocab_size:  # an OOV-only partition
            if shape[0] != row_oov:
                raise ValueError(f"Partitioned variable offset is greater than new vocab size and not operating on "
                                 f"OOV-only partition: {offset} > {new_row_vocab_size}, {shape}, {row_oov}")
            return initializer(shape)
        return _load_and_remap_matrix(
            ckpt_path=ckpt_path, old_tensor_name=old_tensor_name, new_row_vocab_offset=offset,
            num_rows_to_load=shape[0] - row_oov, new_col_vocab_size=new_col_vocab_size, initializer=initializer,
            old_row_vocab_size=old_row_vocab_size, old_row_vocab_file=old_row_vocab_file,
            new_row_vocab_file=new_row_vocab_file, old_col_vocab_file=old_col_vocab_file,
            new_col_vocab_file=new_col_vocab_file, num_row_oov_buckets=row_oov,
            num_col_oov_buckets=num_col_oov_buckets, max_rows_in_memory=max_rows_in_memory)

    return _initializer


def _load_embedding_initializer(ckpt_path, embedding_tensor_name, new_vocab_size, embedding_dim, old_vocab_file,
                                new_vocab_file, old_vocab_size=-1, num_oov_buckets=0, initializer=None,
                                max_rows_in_memory=-1):
    """``_load_and_remap_matrix_initializer`` for embeddings: rows remapped by
    vocabulary, ``embedding_dim`` columns kept; default initializer a truncated
    normal of stddev 0.1."""
    if initializer is None:
        initializer = TruncatedNormal(stddev=0.1)
    return _load_and_remap_matrix_initializer(
        ckpt_path=ckpt_path, old_tensor_name=embedding_tensor_name, new_row_vocab_size=new_vocab_size,
        new_col_vocab_size=embedding_dim, old_row_vocab_size=old_vocab_size, old_row_vocab_file=old_vocab_file,
        new_row_vocab_file=new_vocab_file, old_col_vocab_file=None, new_col_vocab_file=None,
        num_row_oov_buckets=num_oov_buckets, num_col_oov_buckets=0, initializer=initializer,
        max_rows_in_memory=max_rows_in_memory)
