"""``tf.decode_raw``, ``tf.decode_csv`` and ``tf.string_to_number`` (kernels in
:mod:`ref.ops.parsing`)."""
from __future__ import annotations

import collections

import numpy as np

import re

from ref.framework.graph import Tensor, control_dependencies, name_scope
from ref.framework.op_def_library import apply_op, constant, convert_to_tensor
from ref.framework.sparse_tensor import SparseTensor
from ref.graph_ops import array_ops, check_ops, math_ops, ragged_array_ops, sparse_ops
from ref.graph_ops.control_flow_ops import with_dependencies
from ref.graph_ops.logging_ops import Assert
from ref.graph_ops.ragged_tensor import RaggedTensor
from ref.platform import tf_logging
from ref.types import dtypes
from ref.types.shapes import as_shape

__all__ = ["decode_raw", "decode_raw_v1", "decode_csv", "string_to_number", "VarLenFeature", "FixedLenFeature",
           "FixedLenSequenceFeature", "RaggedFeature", "SparseFeature", "parse_example", "parse_single_example", "parse_single_sequence_example",
           "parse_sequence_example", "parse_tensor", "serialize_tensor",
           "decode_json_example"]



def _scope_safe(key):
    """A feature key as a name (TF replaces characters a scope may not hold with _)."""
    return re.sub(r"[^A-Za-z0-9_.\-/]", "_", key)

def decode_raw(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None,  # noqa: A002
               fixed_length=None):
    """Reinterprets the bytes of each string as a vector of ``out_type`` values
    (``DecodeRaw``); TF 1.x's ``bytes`` keyword is accepted too; with
    ``fixed_length`` (tf.io.decode_raw v2's) each string is cut or zero-padded
    to that many bytes (``DecodePaddedRaw``)."""
    if input_bytes is None:
        input_bytes = bytes
    if out_type is None:
        raise TypeError("decode_raw() missing required argument 'out_type'")
    if fixed_length is not None:
        return apply_op("DecodePaddedRaw", input_bytes=convert_to_tensor(input_bytes, dtype=dtypes.string),
                        fixed_length=convert_to_tensor(fixed_length, dtype=dtypes.int32),
                        out_type=dtypes.as_dtype(out_type), little_endian=bool(little_endian),
                        name=name or "DecodePaddedRaw")
    return apply_op("DecodeRaw", bytes=convert_to_tensor(input_bytes, dtype=dtypes.string),
                    out_type=dtypes.as_dtype(out_type), little_endian=bool(little_endian),
                    name=name or "DecodeRaw")


def decode_raw_v1(input_bytes=None, out_type=None, little_endian=True, name=None, bytes=None):  # noqa: A002
    """TF 1.x's ``tf.decode_raw`` signature (``bytes`` as the old name of
    ``input_bytes``, no ``fixed_length``): :func:`decode_raw`."""
    return decode_raw(input_bytes, out_type, little_endian, name, bytes=bytes)


def string_to_number(string_tensor=None, out_type=dtypes.float32, name=None, input=None):
    """Converts each string to the number it spells (``StringToNumber``);
    ``tf.strings.to_number`` (v1) also takes it as ``input``."""
    if input is not None:
        if string_tensor is not None:
            raise ValueError("Cannot specify both 'input' and 'string_tensor'")
        string_tensor = input
    return apply_op("StringToNumber", string_input=string_tensor, out_type=dtypes.as_dtype(out_type), name=name)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None, na_value="",
               select_cols=None):
    """Converts CSV records to tensors, one per column (``DecodeCSV``).
    ``record_defaults`` gives each column's type and its default (an empty
    tensor makes the column required)."""
    if not isinstance(record_defaults, (list, tuple)):
        raise TypeError(f"Expected list for 'record_defaults' argument to 'DecodeCSV' Op, not {record_defaults!r}.")
    if select_cols is not None:
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
        if any(c < 0 for c in select_cols):
            raise ValueError("select_cols contains negative values.")
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
    # TF converts the defaults inside the op's name scope ("DecodeCSV/record_defaults_0")
    out = apply_op("DecodeCSV", records=records, record_defaults=list(record_defaults), field_delim=field_delim,
                   use_quote_delim=use_quote_delim, na_value=na_value, select_cols=list(select_cols or []),
                   name=name or "DecodeCSV")
    return list(out) if isinstance(out, (list, tuple)) else [out]


# -- tf.parse_example ------------------------------------------------------------------

class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """Configuration for parsing a variable-length input feature (a SparseTensor)."""


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """Configuration for parsing a fixed-length input feature (a dense tensor of
    ``shape``; ``default_value`` when the feature is missing, else required)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """Configuration for a feature holding any number of ``shape`` elements
    (a dense tensor padded with ``default_value`` to the longest in the batch)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class RaggedFeature(collections.namedtuple("RaggedFeature",
                                           ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """Configuration for a feature parsed as a ``tf.RaggedTensor``: the values
    of ``value_key`` (the feature's own key by default), split into rows by
    example (a batch) and then by each of ``partitions``, innermost last."""

    RowSplits = collections.namedtuple("RowSplits", ["key"])
    RowLengths = collections.namedtuple("RowLengths", ["key"])
    RowStarts = collections.namedtuple("RowStarts", ["key"])
    RowLimits = collections.namedtuple("RowLimits", ["key"])
    ValueRowIds = collections.namedtuple("ValueRowIds", ["key"])
    UniformRowLength = collections.namedtuple("UniformRowLength", ["length"])

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32, validate=False):
        if value_key is not None:
            if not isinstance(value_key, str):
                raise ValueError(f"Argument `value_key` must be a string; got {value_key}")
            if not value_key:
                raise ValueError("Argument `value_key` must not be empty")
        dtype = dtypes.as_dtype(dtype)
        if dtype not in (dtypes.int64, dtypes.float32, dtypes.string):
            raise ValueError(f"Argument `dtype` must be int64, float32, or bytes; got {dtype!r}")
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if row_splits_dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64; got{row_splits_dtype!r}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"Argument `partitions` must be a list or tuple. Receivedpartitions={partitions} of "
                            f"type {type(partitions).__name__}.")
        kinds = (cls.RowSplits, cls.RowLengths, cls.RowStarts, cls.RowLimits, cls.ValueRowIds, cls.UniformRowLength)
        for p in partitions:
            if not isinstance(p, kinds):
                raise TypeError(f"Argument `partitions` must be a list of partition objects {kinds}; got: {p!r}")
        if not isinstance(validate, bool):
            raise TypeError(f"Argument `validate` must be a bool; got {validate!r}")
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


class SparseFeature(collections.namedtuple("SparseFeature",
                                           ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """Configuration for a SparseTensor built from index feature(s) and a value
    feature: entry ``[b, index_0[i], ..., index_k[i]]`` holds ``value[i]``
    (``tf.sparse_merge`` of the parsed features), dense shape [batch] + size."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class _Params:
    """The parse op's keys, types, shapes and defaults for a feature dict
    (TF's ``_ParseOpParams``): feature keys in sorted order; a SparseFeature
    adds its index keys (sorted) and value key as sparse keys, a RaggedFeature
    its value key and partition keys as ragged keys."""

    def __init__(self, features, allowed):
        self.sparse_keys, self.sparse_types = [], []
        self.dense_keys, self.dense_types, self.dense_shapes, self.dense_defaults = [], [], [], {}
        self.ragged_keys, self.ragged_value_types, self.ragged_split_types = [], [], []
        for key in sorted(features):
            f = features[key]
            if not isinstance(f, allowed):
                raise ValueError(f"Unsupported {type(f).__name__} {f} for key '{key}'")
            self._add(key, f)
        dense, sparse, ragged = set(self.dense_keys), set(self.sparse_keys), set(self.ragged_keys)
        if dense & sparse:
            raise ValueError(f"Dense and sparse keys must not intersect; dense_keys: {self.dense_keys}, "
                             f"sparse_keys: {self.sparse_keys}, intersection: {dense & sparse}")
        if dense & ragged:
            raise ValueError("Dense and ragged keys must not intersect; dense_keys: ",
                             f"{self.dense_keys}, ragged_keys: {self.ragged_keys}, intersection: {dense & ragged}")
        if ragged & sparse:
            raise ValueError(f"Ragged and sparse keys must not intersect; ragged_keys: {self.ragged_keys}, "
                             f"sparse_keys: {self.sparse_keys}, intersection: {ragged & sparse}")

    def _add(self, key, f):
        if isinstance(f, VarLenFeature):
            if not f.dtype:
                raise ValueError(f"Missing type for feature {key}. Received feature={f}")
            self._sparse(key, dtypes.as_dtype(f.dtype))
        elif isinstance(f, SparseFeature):
            if not f.index_key:
                raise ValueError(f"Missing index_key for SparseFeature {f}.")
            if not f.value_key:
                raise ValueError(f"Missing value_key for SparseFeature {f}.")
            if not f.dtype:
                raise ValueError(f"Missing type for feature {key}. Received feature={f}.")
            index_keys = [f.index_key] if isinstance(f.index_key, str) else list(f.index_key)
            if len(index_keys) > 1:
                tf_logging.warning("SparseFeature is a complicated feature config and should only be used after "
                                   "careful consideration of VarLenFeature.")
            for k in sorted(index_keys):
                self._sparse(k, dtypes.int64)
            self._sparse(f.value_key, dtypes.as_dtype(f.dtype))
        elif isinstance(f, FixedLenFeature):
            if not f.dtype:
                raise ValueError(f"Missing type for feature {key}. Received feature={f}.")
            if f.shape is None:
                raise ValueError(f"Missing shape for feature {key}. Received feature={f}.")
            shape = as_shape(f.shape)
            if f.shape and shape.ndims and shape.dims[0].value is None:
                raise ValueError(f"First dimension of shape for feature {key} unknown. Consider using "
                                 f"FixedLenSequenceFeature. Received feature={f}.")
            if not shape.is_fully_defined():
                raise ValueError(f"All dimensions of shape for feature {key} need to be known but received "
                                 f"{f.shape!s}.")
            self._dense(key, shape, f.dtype)
            if f.default_value is not None:
                self.dense_defaults[key] = f.default_value
        elif isinstance(f, FixedLenSequenceFeature):
            if not f.dtype:
                raise ValueError(f"Missing type for feature {key}. Received feature={f}.")
            if f.shape is None:
                raise ValueError(f"Missing shape for feature {key}. Received feature={f}.")
            self._dense(key, as_shape(f.shape), f.dtype)
            if f.allow_missing:
                self.dense_defaults[key] = None
            if f.default_value is not None:
                self.dense_defaults[key] = f.default_value
        else:
            self._ragged(key if f.value_key is None else f.value_key, f.dtype, f.row_splits_dtype)
            for p in f.partitions:
                if not isinstance(p, RaggedFeature.UniformRowLength):
                    self._ragged(p.key, dtypes.int64, f.row_splits_dtype)

    def _sparse(self, key, dtype):
        if key in self.sparse_keys:
            original = self.sparse_types[self.sparse_keys.index(key)]
            if original != dtype:
                raise ValueError(f"Conflicting type {original} vs {dtype} for feature {key}.")
        else:
            self.sparse_keys.append(key)
            self.sparse_types.append(dtype)

    def _dense(self, key, shape, dtype):
        self.dense_keys.append(key)
        self.dense_shapes.append(shape)
        self.dense_types.append(dtypes.as_dtype(dtype))

    def _ragged(self, key, value_type, split_type):
        value_type, split_type = dtypes.as_dtype(value_type), dtypes.as_dtype(split_type)
        if key in self.ragged_keys:
            i = self.ragged_keys.index(key)
            if self.ragged_value_types[i] != value_type:
                raise ValueError(f"Conflicting type {self.ragged_value_types[i]} vs {value_type} for feature {key}.")
            if self.ragged_split_types[i] != split_type:
                raise ValueError(f"Conflicting partition type {self.ragged_split_types[i]} vs {split_type} for "
                                 f"feature {key}.")
        else:
            self.ragged_keys.append(key)
            self.ragged_value_types.append(value_type)
            self.ragged_split_types.append(split_type)

    def dense_default(self, key, shape, dtype):
        """The default tensor of a dense feature: a padding scalar for a
        variable first dimension, else the default reshaped to the shape
        (empty: the feature is required)."""
        default = self.dense_defaults.get(key)
        if shape.ndims and shape.dims[0].value is None:
            if default is None:
                return convert_to_tensor("" if dtype == dtypes.string else 0, dtype=dtype)
            default = convert_to_tensor(default, dtype=dtype, name="padding_" + _scope_safe(key))
            return array_ops.reshape(default, [])
        if default is None:
            return constant([], dtype=dtype)
        if isinstance(default, Tensor):
            return default
        default = convert_to_tensor(default, dtype=dtype, name="key_" + _scope_safe(key))
        return array_ops.reshape(default, shape)


def _parse_raw(serialized, names, params, name):
    """The parse op's outputs by key: SparseTensors, dense Tensors, ragged
    values (RaggedTensors of one row per example for a batch)."""
    if not (params.sparse_keys or params.dense_keys or params.ragged_keys):
        raise ValueError("Must provide at least one feature key.")
    with name_scope(name, "ParseExample", [serialized, names]):
        names = [] if names is None else names
        serialized = convert_to_tensor(serialized, name="serialized")
        if params.ragged_keys and serialized.shape.ndims is None:
            raise ValueError("serialized must have statically-known rank to parse ragged features.")
        defaults = [params.dense_default(k, s, t)
                    for k, s, t in zip(params.dense_keys, params.dense_shapes, params.dense_types)]
        outs = apply_op(
            "ParseExampleV2", serialized=serialized, names=_strings(names), sparse_keys=_strings(params.sparse_keys),
            dense_keys=_strings(params.dense_keys), ragged_keys=_strings(params.ragged_keys), dense_defaults=defaults,
            Tdense=[d.dtype for d in defaults], num_sparse=len(params.sparse_keys), sparse_types=params.sparse_types,
            ragged_value_types=params.ragged_value_types, ragged_split_types=params.ragged_split_types,
            dense_shapes=[s.as_list() for s in params.dense_shapes], name=name or "ParseExampleV2")
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    n, d, r = len(params.sparse_keys), len(params.dense_keys), len(params.ragged_keys)
    result = {}
    for i, k in enumerate(params.sparse_keys):
        result[k] = SparseTensor(outs[i], outs[n + i], outs[2 * n + i])
    for i, k in enumerate(params.dense_keys):
        result[k] = outs[3 * n + i]
    for i, k in enumerate(params.ragged_keys):
        values, splits = outs[3 * n + d + i], outs[3 * n + d + r + i]
        result[k] = values if serialized.shape.ndims == 0 else RaggedTensor.from_row_splits(values, splits,
                                                                                             validate=False)
    return result


def _strings(keys):
    """A list of keys as the op's string input (an empty one too: a string, not float32, Const)."""
    return np.array(keys, dtype=object).reshape(-1) if isinstance(keys, (list, tuple)) else keys


def _ragged_partition(values, partition, tensors, splits_dtype, validate):
    """``values`` of one example split into rows by one partition of its RaggedFeature."""
    if isinstance(partition, RaggedFeature.UniformRowLength):
        if isinstance(values, RaggedTensor):
            length = convert_to_tensor(partition.length, dtype=splits_dtype)
            return RaggedTensor.from_uniform_row_length(values, length, validate=validate)
        return array_ops.reshape(values, array_ops.concat([[-1, partition.length], array_ops.shape(values)[1:]],
                                                          axis=0))
    p = math_ops.cast(tensors[partition.key], splits_dtype)
    factory = {RaggedFeature.RowSplits: RaggedTensor.from_row_splits,
               RaggedFeature.RowLengths: RaggedTensor.from_row_lengths,
               RaggedFeature.RowStarts: RaggedTensor.from_row_starts,
               RaggedFeature.RowLimits: RaggedTensor.from_row_limits,
               RaggedFeature.ValueRowIds: RaggedTensor.from_value_rowids}[type(partition)]
    return factory(values, p, validate=validate)


def _batched_ragged_partition(rt, partition, tensors, key, validate, outer_splits=None):
    """A batch's RaggedTensor ``rt`` (one row per example) with one more ragged
    dimension from ``partition``, whose parsed tensor is itself a batch of rows
    (TF's ``_add_batched_ragged_partition``): each example's row splits / starts
    / limits / row ids are offset by where the example's values start in
    ``rt.values``."""
    if isinstance(partition, RaggedFeature.UniformRowLength):
        length = convert_to_tensor(partition.length, rt.row_splits.dtype)
        if rt.ragged_rank > 1:
            inner = RaggedTensor.from_uniform_row_length(rt.values, length, validate=validate)
        else:
            inner = array_ops.reshape(rt.values, array_ops.concat([[-1, partition.length],
                                                                    array_ops.shape(rt.values)[1:]], axis=0))
        return RaggedTensor.from_row_splits(inner, rt.row_splits // length, validate=validate)
    p = tensors[partition.key]
    if p.dtype != rt.row_splits.dtype:
        p = p.with_flat_values(math_ops.cast(p.flat_values, rt.row_splits.dtype))
    checks = []
    if outer_splits is not None:
        if validate:
            checks.append(check_ops.assert_equal(outer_splits, p.row_splits,
                                                 message=f"Feature {key}: values and partitions are not aligned"))
        p = p.values
    with control_dependencies(checks):
        # each partition value's example start: rt.row_starts() repeated per value of its row
        example_start = array_ops.gather(rt.row_starts(), p.value_rowids())
        if isinstance(partition, (RaggedFeature.RowSplits, RaggedFeature.RowLimits)):
            if isinstance(partition, RaggedFeature.RowSplits):  # drop each row's leading 0: its limits
                position = math_ops.range(array_ops.shape(p.values, out_type=p.row_splits.dtype)[0])
                p = ragged_array_ops.boolean_mask_values(
                    p, math_ops.greater(position - array_ops.gather(p.row_starts(), p.value_rowids()), 0))
                example_start = array_ops.gather(rt.row_starts(), p.value_rowids())
            return p.with_values(RaggedTensor.from_row_limits(rt.values, p.values + example_start,
                                                              validate=validate))
        if isinstance(partition, RaggedFeature.RowStarts):
            return p.with_values(RaggedTensor.from_row_starts(rt.values, p.values + example_start,
                                                              validate=validate))
        if isinstance(partition, RaggedFeature.RowLengths):
            return p.with_values(RaggedTensor.from_row_lengths(rt.values, p.values, validate=validate))
        if isinstance(partition, RaggedFeature.ValueRowIds):
            rows = p.nrows(out_type=dtypes.int32)
            nrows = math_ops.maximum(array_ops.unsorted_segment_max(p.values + 1, p.value_rowids(), rows),
                                     constant(0, p.values.dtype))
            offsets = array_ops.gather(math_ops.cumsum(nrows, exclusive=True), p.value_rowids())
            inner = RaggedTensor.from_value_rowids(rt.values, p.values + offsets, validate=validate)
            return RaggedTensor.from_row_lengths(inner, nrows, validate=validate)
    raise ValueError(f"Unhandled partition type {partition!r}")


def _composite(features, tensors):
    """The outputs by feature key: a SparseFeature's SparseTensor (``sparse_merge``
    of its parsed index and value features), a RaggedFeature's RaggedTensor."""
    tensors = dict(tensors)
    updates = {}
    for key in sorted(features):
        f = features[key]
        if isinstance(f, SparseFeature):
            ids = (tensors[f.index_key] if isinstance(f.index_key, str)
                   else [tensors[k] for k in f.index_key])
            updates[key] = sparse_ops.sparse_merge(ids, tensors[f.value_key], vocab_size=f.size,
                                                   already_sorted=f.already_sorted)
        elif isinstance(f, RaggedFeature):
            rt = tensors[key if f.value_key is None else f.value_key]
            if isinstance(rt, RaggedTensor):  # a batch (or one SequenceExample's feature list)
                outer_splits = None
                if rt.ragged_rank > 1:  # a batch of SequenceExamples: two batch dimensions, joined here
                    outer_splits, rt = rt.row_splits, rt.values
                for p in reversed(f.partitions):
                    rt = _batched_ragged_partition(rt, p, tensors, key, f.validate, outer_splits)
                if outer_splits is not None:
                    rt = RaggedTensor.from_row_splits(rt, outer_splits, validate=f.validate)
            else:
                for p in reversed(f.partitions):
                    rt = _ragged_partition(rt, p, tensors, f.row_splits_dtype, f.validate)
            updates[key] = rt
    tensors.update(updates)
    return {k: v for k, v in tensors.items() if k in features}


_EXAMPLE_FEATURES = (VarLenFeature, SparseFeature, FixedLenFeature, FixedLenSequenceFeature, RaggedFeature)


def parse_example(serialized, features, name=None, example_names=None):
    """Parses a batch of serialized ``Example`` protos into a dict:
    ``FixedLenFeature`` -> [batch] + shape, ``FixedLenSequenceFeature`` ->
    [batch, longest] + shape, ``VarLenFeature`` -> a SparseTensor [batch,
    longest], ``SparseFeature`` -> a SparseTensor [batch] + size,
    ``RaggedFeature`` -> a RaggedTensor [batch, None]."""
    if not features:
        raise ValueError("Argument `features` cannot be None or falsy. Got %s" % features)
    features = dict(features)
    for key, f in list(features.items()):  # TF's _prepend_none_dimension
        if isinstance(f, FixedLenSequenceFeature):
            if not f.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            features[key] = FixedLenSequenceFeature([None] + list(as_shape(f.shape).as_list()), f.dtype,
                                                    f.allow_missing, f.default_value)
    params = _Params(features, _EXAMPLE_FEATURES)
    return _composite(features, _parse_raw(serialized, example_names, params, name))


def parse_single_example(serialized, features, name=None, example_names=None):
    """As :func:`parse_example` for one serialized ``Example`` (a scalar): no
    batch dimension (a RaggedFeature without partitions: its values)."""
    if features is None:
        raise ValueError("Invalid argument: features cannot be None.")
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    with name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = convert_to_tensor(serialized, name="serialized")
        serialized = _assert_scalar(serialized, "serialized")
        return parse_example(serialized, features, name, example_names)


def _assert_scalar(value, name):
    """``value``, checked to be a scalar (at run time when its rank is unknown)."""
    rank = value.shape.ndims
    if rank is None:
        check = Assert(math_ops.equal(array_ops.rank(value), 0), ["Input %s must be a scalar" % name],
                       name="%sIsScalar" % name.capitalize())
        result = with_dependencies([check], value, name="%sDependencies" % name)
        result.set_shape([])
        return result
    if rank == 0:
        return value
    raise ValueError("Input %s must be a scalar" % name)


def _sequence_outputs(outs, c_sparse, c_dense, s_sparse, s_dense):
    """(context, feature_lists, dense lengths) from a sequence-example parse op's
    flat outputs: context sparse (indices, values, shapes), context dense,
    feature-list sparse (indices, values, shapes), feature-list dense, then (the
    batched op only) the dense lengths."""
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    context, feature_lists, lengths = {}, {}, {}
    n = len(c_sparse)
    for i, k in enumerate(c_sparse):
        context[k] = SparseTensor(outs[i], outs[n + i], outs[2 * n + i])
    pos = 3 * n
    for i, k in enumerate(c_dense):
        context[k] = outs[pos + i]
    pos += len(c_dense)
    m = len(s_sparse)
    for i, k in enumerate(s_sparse):
        feature_lists[k] = SparseTensor(outs[pos + i], outs[pos + m + i], outs[pos + 2 * m + i])
    pos += 3 * m
    for i, k in enumerate(s_dense):
        feature_lists[k] = outs[pos + i]
        if pos + len(s_dense) + i < len(outs):
            lengths[k] = outs[pos + len(s_dense) + i]
    return context, feature_lists, lengths


def _context_dense_defaults(context_features, keys):
    """The context's dense defaults, one tensor per key of ``keys`` (``context_key_<k>``):
    empty when a feature has none (required), else its default reshaped to its shape."""
    defaults = []
    for k in keys:
        f = context_features[k]
        dtype = dtypes.as_dtype(f.dtype)
        if f.default_value is None:
            defaults.append(convert_to_tensor([], dtype=dtype, name=f"context_key_{k}"))
        else:
            defaults.append(apply_op("Reshape", tensor=convert_to_tensor(f.default_value, dtype=dtype),
                                     shape=convert_to_tensor(as_shape(f.shape).as_list(), dtype=dtypes.int32),
                                     name=f"context_key_{k}"))
    return defaults


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """Parses one serialized ``SequenceExample``: returns (context dict, sequence
    dict). Context features parse as in :func:`parse_single_example`; a
    ``FixedLenFeature``/``FixedLenSequenceFeature`` sequence feature becomes a
    [steps] + shape tensor (``allow_missing``: [0] + shape when absent), a
    ``VarLenFeature`` one a SparseTensor [steps, longest]."""
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    if not context_features and not sequence_features:
        raise ValueError("Missing features.")
    if any(isinstance(f, RaggedFeature) for f in list(context_features.values()) + list(sequence_features.values())):
        # as TF: the batch parser on a scalar (ParseSequenceExampleV2), which knows ragged features
        context, lists, _ = parse_sequence_example(serialized, context_features, sequence_features,
                                                   None if example_name is None else example_name, name)
        return context, lists
    c_sparse = sorted(k for k, f in context_features.items() if isinstance(f, VarLenFeature))
    c_dense = sorted(k for k, f in context_features.items() if isinstance(f, FixedLenFeature))
    s_sparse = sorted(k for k, f in sequence_features.items() if isinstance(f, VarLenFeature))
    s_dense = sorted(k for k, f in sequence_features.items()
                     if isinstance(f, (FixedLenFeature, FixedLenSequenceFeature)))
    with name_scope(name, "ParseSingleSequenceExample", [serialized]):
        defaults = _context_dense_defaults(context_features, c_dense)
        missing_ok = [k for k in s_dense if getattr(sequence_features[k], "allow_missing", False)]
        s = lambda keys: [convert_to_tensor(k, dtype=dtypes.string) for k in keys]  # noqa: E731
        outs = apply_op(
            "ParseSingleSequenceExample", serialized=convert_to_tensor(serialized, dtype=dtypes.string),
            feature_list_dense_missing_assumed_empty=convert_to_tensor(missing_ok, dtype=dtypes.string),
            context_sparse_keys=s(c_sparse), context_dense_keys=s(c_dense), feature_list_sparse_keys=s(s_sparse),
            feature_list_dense_keys=s(s_dense), context_dense_defaults=defaults,
            debug_name=convert_to_tensor(example_name or "", dtype=dtypes.string),
            context_sparse_types=[dtypes.as_dtype(context_features[k].dtype) for k in c_sparse],
            Tcontext_dense=[d.dtype for d in defaults],
            context_dense_shapes=[as_shape(context_features[k].shape).as_list() for k in c_dense],
            feature_list_sparse_types=[dtypes.as_dtype(sequence_features[k].dtype) for k in s_sparse],
            feature_list_dense_types=[dtypes.as_dtype(sequence_features[k].dtype) for k in s_dense],
            feature_list_dense_shapes=[as_shape(sequence_features[k].shape).as_list() for k in s_dense],
            name="ParseSingleSequenceExample")
    context, sequence, _ = _sequence_outputs(outs, c_sparse, c_dense, s_sparse, s_dense)
    return context, sequence


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None,
                           name=None):
    """Parses a batch (a vector) of serialized ``SequenceExample`` protos:
    returns (context dict, feature-list dict, lengths dict). Context features
    parse as in :func:`parse_example` ([batch] + shape; VarLenFeature a
    SparseTensor [batch, longest]); a ``FixedLenSequenceFeature`` feature list
    becomes [batch, most steps] + shape, zero-padded, with each example's
    number of steps in the lengths dict; a ``VarLenFeature`` one a
    SparseTensor [batch, most steps, longest]; a ``RaggedFeature`` (without
    partitions) a RaggedTensor [batch, None] in the context, [batch, None,
    None] (examples, steps, values) as a feature list, each partition adding a
    ragged dimension."""
    if not (context_features or sequence_features):
        raise ValueError("Both `context_features` and `sequence_features` argument are None, but at least one "
                         "should have values.")
    context = _Params(dict(context_features or {}), (VarLenFeature, FixedLenFeature, RaggedFeature))
    lists = _Params(dict(sequence_features or {}), (VarLenFeature, FixedLenSequenceFeature, RaggedFeature))
    with name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        with name_scope(name, "ParseSequenceExample", [serialized]):
            names = [] if example_names is None else example_names
            for k, v in lists.dense_defaults.items():
                if v is not None:
                    raise ValueError("Value feature_list.dense_defaults[%s] must be None" % k)
            serialized = convert_to_tensor(serialized, name="serialized")
            if (context.ragged_keys or lists.ragged_keys) and serialized.shape.ndims is None:
                raise ValueError("serialized must have statically-known rank to parse ragged features.")
            missing_ok = np.array([k in lists.dense_defaults for k in lists.dense_keys], dtype=bool)
            defaults = [context.dense_default(k, sh, t)
                        for k, sh, t in zip(context.dense_keys, context.dense_shapes, context.dense_types)]
            outs = apply_op(
                "ParseSequenceExampleV2", serialized=serialized, debug_name=_strings(names),
                context_sparse_keys=_strings(context.sparse_keys), context_dense_keys=_strings(context.dense_keys),
                context_ragged_keys=_strings(context.ragged_keys),
                feature_list_sparse_keys=_strings(lists.sparse_keys),
                feature_list_dense_keys=_strings(lists.dense_keys),
                feature_list_ragged_keys=_strings(lists.ragged_keys),
                feature_list_dense_missing_assumed_empty=missing_ok, context_dense_defaults=defaults,
                Ncontext_sparse=len(context.sparse_keys), Nfeature_list_sparse=len(lists.sparse_keys),
                Nfeature_list_dense=len(lists.dense_keys), context_sparse_types=context.sparse_types,
                context_ragged_value_types=context.ragged_value_types,
                context_ragged_split_types=context.ragged_split_types,
                feature_list_dense_types=lists.dense_types, feature_list_sparse_types=lists.sparse_types,
                feature_list_ragged_value_types=lists.ragged_value_types,
                feature_list_ragged_split_types=lists.ragged_split_types,
                Tcontext_dense=[d.dtype for d in defaults],
                context_dense_shapes=[sh.as_list() for sh in context.dense_shapes],
                feature_list_dense_shapes=[sh.as_list() for sh in lists.dense_shapes], name=name or
                "ParseSequenceExampleV2")
            outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    # the outputs: context sparse (x3), dense, ragged (values, splits); feature-list sparse (x3), dense,
    # dense lengths, ragged (values, outer splits, inner splits)
    nc, nd, nr = len(context.sparse_keys), len(context.dense_keys), len(context.ragged_keys)
    c_ragged = outs[3 * nc + nd:3 * nc + nd + 2 * nr]
    outs = outs[:3 * nc + nd] + outs[3 * nc + nd + 2 * nr:]
    fr = len(lists.ragged_keys)
    f_ragged = outs[len(outs) - 3 * fr:]
    outs = outs[:len(outs) - 3 * fr]
    ctx, feature_lists, lengths = _sequence_outputs(outs, context.sparse_keys, context.dense_keys,
                                                    lists.sparse_keys, lists.dense_keys)
    batched = serialized.shape.ndims != 0
    for i, k in enumerate(context.ragged_keys):
        values, splits = c_ragged[i], c_ragged[nr + i]
        ctx[k] = RaggedTensor.from_row_splits(values, splits, validate=False) if batched else values
    for i, k in enumerate(lists.ragged_keys):
        values, outer, inner = f_ragged[i], f_ragged[fr + i], f_ragged[2 * fr + i]
        rt = RaggedTensor.from_row_splits(values, inner, validate=False)
        feature_lists[k] = RaggedTensor.from_row_splits(rt, outer, validate=False) if batched else rt
    ctx = _composite(dict(context_features or {}), ctx) if context_features else ctx
    feature_lists = _composite(dict(sequence_features or {}), feature_lists) if sequence_features else feature_lists
    return ctx, feature_lists, lengths


def serialize_tensor(tensor, name=None):
    """A scalar string: ``tensor`` as a serialized TensorProto (``SerializeTensor``)."""
    return apply_op("SerializeTensor", tensor=tensor, name=name or "SerializeTensor")


def parse_tensor(serialized, out_type, name=None):
    """The tensor of ``out_type`` that a serialized TensorProto holds (``ParseTensor``)."""
    return apply_op("ParseTensor", serialized=convert_to_tensor(serialized, dtype=dtypes.string),
                    out_type=dtypes.as_dtype(out_type), name=name or "ParseTensor")


def decode_json_example(json_examples, name=None):
    """JSON-encoded ``Example`` protos as binary ones (``DecodeJSONExample``)."""
    return apply_op("DecodeJSONExample", json_examples=convert_to_tensor(json_examples, dtype=dtypes.string),
                    name=name or "DecodeJSONExample")
