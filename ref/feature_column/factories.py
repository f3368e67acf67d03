"""The ``tf.compat.v1.feature_column`` constructors: arguments checked with
TF's messages and error kinds (``feature_column_v2.py`` and
``sequence_feature_column.py``), then the column namedtuple."""
from __future__ import annotations

import collections

from ref.types import dtypes
from ref.feature_column import utils
from ref.feature_column.base import CategoricalColumn
from ref.feature_column.columns import (BucketizedColumn, CrossedColumn, EmbeddingColumn, HashedCategoricalColumn,
                                        IdentityCategoricalColumn, IndicatorColumn, NumericColumn,
                                        SequenceCategoricalColumn, VocabularyFileCategoricalColumn,
                                        VocabularyListCategoricalColumn, WeightedCategoricalColumn,
                                        _SharedEmbeddingColumn, embedding_initializer, vocabulary_file_size)
from ref.graph_ops.parsing_ops import VarLenFeature
from ref.platform import gfile
from ref.types.shapes import TensorShape


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32, normalizer_fn=None):
    """A real-valued feature of ``shape`` (TF's ``numeric_column``)."""
    shape = utils.check_shape(shape, key)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {utils.dtype_str(dtype)}, key: {key}")
    default_value = utils.check_default_value(shape, default_value, dtype, key)
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    utils.assert_key_is_string(key)
    return NumericColumn(key, shape=shape, default_value=default_value, dtype=dtype, normalizer_fn=normalizer_fn)


def bucketized_column(source_column, boundaries):
    """``source_column`` discretized at the sorted ``boundaries`` (TF's ``bucketized_column``)."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries:
        raise ValueError("boundaries must not be empty.")
    if not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Ids by hashing the feature's values into ``hash_bucket_size`` buckets."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    utils.assert_key_is_string(key)
    utils.assert_string_or_int(dtype, prefix=f"column_name: {key}")
    return HashedCategoricalColumn(key, hash_bucket_size, dtype)


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                            default_value=None, dtype=dtypes.string):
    """Ids from a vocabulary file, one value per line (its size counted when not given)."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    file_format = "tfrecord_gzip" if vocabulary_file.endswith("tfrecord.gz") else None
    if file_format == "tfrecord_gzip":  # TF reads it with a tf.data pipeline into its table
        raise NotImplementedError(f"ref reads text vocabulary files only; {vocabulary_file} is a tfrecord.gz "
                                  f"vocabulary (column {key})")
    if vocabulary_size is None:
        if not gfile.Exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        vocabulary_size = vocabulary_file_size(vocabulary_file)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    utils.assert_string_or_int(dtype, prefix=f"column_name: {key}")
    utils.assert_key_is_string(key)
    return VocabularyFileCategoricalColumn(
        key=key, vocabulary_file=vocabulary_file, vocabulary_size=vocabulary_size,
        num_oov_buckets=0 if num_oov_buckets is None else num_oov_buckets,
        default_value=-1 if default_value is None else default_value, dtype=dtype, file_format=file_format)


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1, num_oov_buckets=0):
    """Ids by position in ``vocabulary_list``; others to ``default_value`` or hashed into OOV buckets."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    vocabulary_dtype = utils.as_dtype_of(vocabulary_list)
    if num_oov_buckets:
        if default_value != -1:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    utils.assert_string_or_int(vocabulary_dtype, prefix=f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocabulary_dtype
    elif dtype.is_integer != vocabulary_dtype.is_integer:
        raise ValueError(f"dtype {utils.dtype_str(dtype)} and vocabulary dtype {utils.dtype_str(vocabulary_dtype)} do not match, column_name: {key}")
    utils.assert_string_or_int(dtype, prefix=f"column_name: {key}")
    utils.assert_key_is_string(key)
    return VocabularyListCategoricalColumn(key=key, vocabulary_list=tuple(vocabulary_list), dtype=dtype,
                                           default_value=default_value, num_oov_buckets=num_oov_buckets)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """The integer values as ids in [0, num_buckets)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    utils.assert_key_is_string(key)
    return IdentityCategoricalColumn(key=key, number_buckets=num_buckets, default_value=default_value)


def indicator_column(categorical_column):
    """The multi-hot dense representation of a categorical column."""
    if not isinstance(categorical_column, CategoricalColumn):
        raise ValueError(f"Unsupported input type. Input must be a CategoricalColumn. Given: {categorical_column}")
    return IndicatorColumn(categorical_column)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """``categorical_column``'s ids weighted by the feature ``weight_feature_key``."""
    if dtype is None or not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype {utils.dtype_str(dtype)} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column=categorical_column, weight_feature_key=weight_feature_key,
                                     dtype=dtype)


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Hashed crosses of string features and categorical columns (not hash-bucket ones)."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or categorical column except "
                             f"HashedCategoricalColumn. Given: {key}")
        if isinstance(key, HashedCategoricalColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for crossing. Hashing before "
                             f"crossing will increase probability of collision. Instead, use the feature name as a "
                             f"string. Given: {key}")
    return CrossedColumn(keys=tuple(keys), hash_bucket_size=hash_bucket_size, hash_key=hash_key)


def _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None, ckpt_to_load_from=None,
                     tensor_name_in_ckpt=None, max_norm=None, trainable=True, use_safe_embedding_lookup=True):
    """A dense ``dimension``-vector per example from a categorical column's ids."""
    _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt)
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column_name: "
                         f"{categorical_column.name}")
    if initializer is None:
        initializer = embedding_initializer(dimension)
    return EmbeddingColumn(categorical_column=categorical_column, dimension=dimension, combiner=combiner,
                           initializer=initializer, ckpt_to_load_from=ckpt_to_load_from,
                           tensor_name_in_ckpt=tensor_name_in_ckpt, max_norm=max_norm, trainable=trainable,
                           use_safe_embedding_lookup=use_safe_embedding_lookup)


def _base_categorical(c):
    while isinstance(c, (WeightedCategoricalColumn, SequenceCategoricalColumn)):
        c = c.categorical_column
    return c


def shared_embedding_columns(categorical_columns, dimension, combiner="mean", initializer=None,
                             shared_embedding_collection_name=None, ckpt_to_load_from=None, tensor_name_in_ckpt=None,
                             max_norm=None, trainable=True, use_safe_embedding_lookup=True):
    """Embedding columns sharing one ``embedding_weights`` variable (all of one
    type and number of buckets)."""
    _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt)
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    if initializer is None:
        initializer = embedding_initializer(dimension)
    sorted_columns = sorted(categorical_columns, key=lambda x: x.name)
    c0 = sorted_columns[0]
    num_buckets = c0._num_buckets
    if not isinstance(c0, CategoricalColumn):
        raise ValueError(f"All categorical_columns must be subclasses of _CategoricalColumn. Given: {c0}, of type: "
                         f"{type(c0)}")
    c0 = _base_categorical(c0)
    for c in sorted_columns[1:]:
        c = _base_categorical(c)
        if not isinstance(c, type(c0)):
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same type, or "
                             f"be weighted_categorical_column or sequence column of the same type. Given column: "
                             f"{c0} of type: {type(c0)} does not match given column: {c} of type: {type(c)}")
        if num_buckets != c._num_buckets:
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same number "
                             f"of buckets. ven column: {c0} with buckets: {num_buckets} does  not match column: "
                             f"{c} with buckets: {c._num_buckets}")
    if not shared_embedding_collection_name:
        shared_embedding_collection_name = "_".join(c.name for c in sorted_columns) + "_shared_embedding"
    return [_SharedEmbeddingColumn(categorical_column=column, initializer=initializer, dimension=dimension,
                                   combiner=combiner, shared_embedding_collection_name=shared_embedding_collection_name,
                                   ckpt_to_load_from=ckpt_to_load_from, tensor_name_in_ckpt=tensor_name_in_ckpt,
                                   max_norm=max_norm, trainable=trainable,
                                   use_safe_embedding_lookup=use_safe_embedding_lookup)
            for column in categorical_columns]


# -- sequence columns ----------------------------------------------------------------------------------------

def sequence_categorical_column_with_identity(key, num_buckets, default_value=None):
    return SequenceCategoricalColumn(categorical_column_with_identity(key, num_buckets, default_value))


def sequence_categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    return SequenceCategoricalColumn(categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


def sequence_categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None, num_oov_buckets=0,
                                                     default_value=None, dtype=dtypes.string):
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size, num_oov_buckets, default_value, dtype))


def sequence_categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None, default_value=-1,
                                                     num_oov_buckets=0):
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_list(
        key, vocabulary_list, dtype, default_value, num_oov_buckets))


class SequenceNumericColumn(collections.namedtuple(
        "SequenceNumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """A real-valued sequence feature (a VarLenFeature per example). As in TF,
    a TF2-only column: no TF1 interface (``input_layer``, ``linear_model`` and
    ``make_parse_example_spec`` reject it)."""

    @property
    def name(self):
        return self.key

    @property
    def parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    @property
    def variable_shape(self):
        return TensorShape(self.shape)

    @property
    def parents(self):
        return [self.key]


def sequence_numeric_column(key, shape=(1,), default_value=0., dtype=dtypes.float32, normalizer_fn=None):
    shape = utils.check_shape(shape=shape, key=key)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {utils.dtype_str(dtype)}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, shape=shape, default_value=default_value, dtype=dtype,
                                 normalizer_fn=normalizer_fn)


for _f in (sequence_categorical_column_with_identity, sequence_categorical_column_with_hash_bucket,
           sequence_categorical_column_with_vocabulary_file, sequence_categorical_column_with_vocabulary_list,
           sequence_numeric_column):
    _f.__doc__ = (f"The sequence form of ``{_f.__name__.replace('sequence_', '', 1)}`` "
                  f"(TF's ``sequence_feature_column``).")
