"""The feature columns of ``tf.compat.v1.feature_column`` (TF's
``feature_column_v2.py`` classes as the TF1 ``input_layer``/``linear_model``
use them): each factory validates its arguments with TF's messages and returns
a namedtuple of TF's class name and fields.

Transformations, as TF builds them:

* numeric: the raw tensor (``normalizer_fn`` applied), cast to float32;
* bucketized: ``Bucketize`` of the numeric tensor; dense as a one-hot over
  ``len(boundaries) + 1`` buckets, sparse as ids ``bucket + (len + 1) * j``
  for the j-th element of a multi-dimensional source;
* hash bucket: ``StringToHashBucketFast`` (integers first ``AsString``);
* vocabulary list/file: an index table (``index_table_from_tensor``/
  ``_from_file``) named ``<key>_lookup``; identity: the integer ids, out of
  range ones replaced by ``default_value`` when given;
* crossed: ``SparseCross`` hashed with TF's FingerprintCat64 chain;
* dense inputs of categorical columns drop '' (strings) / -1 (integers).
"""
from __future__ import annotations

import collections
import math

from ref.types import dtypes
from ref.types.shapes import TensorShape, dimension_value
from ref.framework.graph import GraphKeys, add_to_collection, get_collection, init_scope, name_scope
from ref.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from ref.graph_ops import array_ops, embedding_ops, init_ops, lookup_ops, math_extras, math_ops, sparse_ops
from ref.graph_ops.parsing_ops import FixedLenFeature, VarLenFeature
from ref.graph_ops.variable_scope import get_variable
from ref.graph_ops.partitioned import PartitionedVariable
from ref.checkpoint import warm_start
from ref.platform import gfile
from ref.feature_column import utils
from ref.feature_column.base import (CategoricalColumn, DenseColumn, FeatureColumn, IdWeightPair,
                                     SequenceCategoricalBase, SequenceDenseColumn, TensorSequenceLengthPair,
                                     V2Categorical, V2Dense,
                                     to_sparse_input_and_drop_ignore_values)


# -- dense ---------------------------------------------------------------------------------------------------

class NumericColumn(V2Dense, DenseColumn, collections.namedtuple(
        "NumericColumn", ("key", "shape", "default_value", "dtype", "normalizer_fn"))):
    """A real-valued feature of ``shape`` per example."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: FixedLenFeature(self.shape, self.dtype, self.default_value)}

    def _transform_feature(self, inputs):
        input_tensor = inputs.get(self.key)
        if isinstance(input_tensor, SparseTensor):
            raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. SparseTensor is not "
                             f"supported. key: {self.key}")
        if self.normalizer_fn is not None:
            input_tensor = self.normalizer_fn(input_tensor)
        return math_ops.cast(input_tensor, dtypes.float32)

    @property
    def _variable_shape(self):
        return TensorShape(self.shape)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)

    @property
    def parents(self):
        return [self.key]


class BucketizedColumn(V2Dense, V2Categorical, DenseColumn, CategoricalColumn, collections.namedtuple(
        "BucketizedColumn", ("source_column", "boundaries"))):
    """A numeric column discretized by sorted ``boundaries``."""

    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self):
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs):
        return math_extras.bucketize(inputs.get(self.source_column), boundaries=self.boundaries)

    @property
    def _variable_shape(self):
        return TensorShape(tuple(self.source_column.shape) + (len(self.boundaries) + 1,))

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return array_ops.one_hot(indices=math_ops.cast(inputs.get(self), dtypes.int64),
                                 depth=len(self.boundaries) + 1, on_value=1., off_value=0.)

    @property
    def _num_buckets(self):
        return (len(self.boundaries) + 1) * self.source_column.shape[0]

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        input_tensor = inputs.get(self)
        batch_size = array_ops.shape(input_tensor)[0]
        source_dimension = self.source_column.shape[0]
        i1 = array_ops.reshape(array_ops.tile(array_ops.expand_dims(math_ops.range(0, batch_size), 1),
                                              [1, source_dimension]), (-1,))
        i2 = array_ops.tile(math_ops.range(0, source_dimension), [batch_size])
        bucket_indices = array_ops.reshape(input_tensor, (-1,)) + (len(self.boundaries) + 1) * i2
        indices = math_ops.cast(array_ops.transpose(array_ops.stack((i1, i2))), dtypes.int64)
        dense_shape = math_ops.cast(array_ops.stack([batch_size, source_dimension]), dtypes.int64)
        return IdWeightPair(SparseTensor(indices=indices, values=bucket_indices, dense_shape=dense_shape), None)

    @property
    def parents(self):
        return [self.source_column]


def _lookup_sparse(column, weights, sparse_tensors, name):
    if column.ckpt_to_load_from is not None:
        to_restore = list(weights) if isinstance(weights, PartitionedVariable) else weights
        warm_start.init_from_checkpoint(column.ckpt_to_load_from, {column.tensor_name_in_ckpt: to_restore})
    ids, sp_weights = sparse_tensors.id_tensor, sparse_tensors.weight_tensor
    rank = dimension_value(ids.dense_shape.get_shape()[0])
    if not column.use_safe_embedding_lookup and rank is not None and rank <= 2:
        return embedding_ops.embedding_lookup_sparse_v2(weights, ids, sp_weights, combiner=column.combiner,
                                                        name=name, max_norm=column.max_norm)
    return embedding_ops.safe_embedding_lookup_sparse(weights, ids, sp_weights, combiner=column.combiner, name=name,
                                                      max_norm=column.max_norm)


def _check_not_sequence(kind, column, fix_a, fix_b):
    if isinstance(column.categorical_column, SequenceCategoricalBase):
        raise ValueError(f"In {kind}: {column.name}. categorical_column must not be of type "
                         f"_SequenceCategoricalColumn. Suggested fix A: {fix_a} Suggested fix B: {fix_b} "
                         f"Given (type {type(column.categorical_column)}): {column.categorical_column}")


_FIX_A = "If you wish to use DenseFeatures, use a non-sequence categorical_column_with_*."
_FIX_B = "If you wish to create sequence input, use SequenceFeatures instead of DenseFeatures."


class EmbeddingColumn(V2Dense, DenseColumn, SequenceDenseColumn, collections.namedtuple(
        "EmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer", "ckpt_to_load_from",
                            "tensor_name_in_ckpt", "max_norm", "trainable", "use_safe_embedding_lookup"))):
    """A dense ``dimension``-vector per example: the ``combiner`` of the
    embeddings of its ids (variable ``embedding_weights``)."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_embedding"

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return TensorShape([self.dimension])

    def _weights(self, weight_collections, trainable):
        if weight_collections and GraphKeys.GLOBAL_VARIABLES not in weight_collections:
            weight_collections.append(GraphKeys.GLOBAL_VARIABLES)
        return get_variable(name="embedding_weights", shape=(self.categorical_column._num_buckets, self.dimension),
                            dtype=dtypes.float32, initializer=self.initializer,
                            trainable=self.trainable and trainable, collections=weight_collections)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _check_not_sequence("embedding_column", self, _FIX_A, _FIX_B)
        sparse_tensors = self.categorical_column._get_sparse_tensors(inputs, weight_collections, trainable)
        weights = self._weights(weight_collections, trainable)
        return _lookup_sparse(self, weights, sparse_tensors, f"{self.name}_weights")

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        if not isinstance(self.categorical_column, SequenceCategoricalBase):
            raise ValueError(f"In embedding_column: {self.name}. categorical_column must be of type "
                             f"SequenceCategoricalColumn to use SequenceFeatures. Suggested fix: Use one of "
                             f"sequence_categorical_column_with_*. Given (type {type(self.categorical_column)}): "
                             f"{self.categorical_column}")
        sparse_tensors = self.categorical_column._get_sparse_tensors(inputs)
        dense = _lookup_sparse(self, self._weights(weight_collections, trainable), sparse_tensors,
                               f"{self.name}_weights")
        length = utils.sequence_length_from_sparse_tensor(sparse_tensors.id_tensor)
        return TensorSequenceLengthPair(dense_tensor=dense, sequence_length=length)

    @property
    def parents(self):
        return [self.categorical_column]


class _SharedEmbeddingColumn(DenseColumn, SequenceDenseColumn, collections.namedtuple(
        "_SharedEmbeddingColumn", ("categorical_column", "dimension", "combiner", "initializer",
                                   "shared_embedding_collection_name", "ckpt_to_load_from", "tensor_name_in_ckpt",
                                   "max_norm", "trainable", "use_safe_embedding_lookup"))):
    """An embedding column whose ``embedding_weights`` variable is shared by
    every column of one ``shared_embedding_columns`` call (found through the
    graph collection ``shared_embedding_collection_name``)."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self):
        return self.shared_embedding_collection_name

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return TensorShape([self.dimension])

    def _get_dense_tensor_internal(self, inputs, weight_collections=None, trainable=None):
        with name_scope(None, default_name=self.name):
            sparse_tensors = self.categorical_column._get_sparse_tensors(
                inputs, weight_collections=weight_collections, trainable=trainable)
            shape = (self.categorical_column._num_buckets, self.dimension)
            shared = get_collection(self.shared_embedding_collection_name)
            if shared:
                if len(shared) > 1:
                    raise ValueError(f"Collection {shared} can only contain one variable. Suggested fix A: Choose "
                                     f"a unique name for this collection. Suggested fix B: Do not add any variables "
                                     f"to this collection. The feature_column library already adds a variable "
                                     f"under the hood.")
                weights = shared[0]
                if weights.get_shape() != shape:
                    raise ValueError(f"Shared embedding collection {self.shared_embedding_collection_name} contains "
                                     f"variable {weights.name} of unexpected shape {weights.get_shape()}. Expected "
                                     f"shape is {shape}. Suggested fix A: Choose a unique name for this collection. "
                                     f"Suggested fix B: Do not add any variables to this collection. The "
                                     f"feature_column library already adds a variable under the hood.")
            else:
                weights = get_variable(name="embedding_weights", shape=shape, dtype=dtypes.float32,
                                       initializer=self.initializer, trainable=self.trainable and trainable,
                                       collections=weight_collections)
                add_to_collection(self.shared_embedding_collection_name, weights)
            return _lookup_sparse(self, weights, sparse_tensors, f"{self.name}_weights")

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        if isinstance(self.categorical_column, SequenceCategoricalBase):
            raise ValueError(f"In embedding_column: {self.name}. categorical_column must not be of type "
                             f"_SequenceCategoricalColumn. Suggested fix A: If you wish to use input_layer, use a "
                             f"non-sequence categorical_column_with_*. Suggested fix B: If you wish to create "
                             f"sequence input, use sequence_input_layer instead of input_layer. Given (type "
                             f"{type(self.categorical_column)}): {self.categorical_column}")
        return self._get_dense_tensor_internal(inputs, weight_collections, trainable)

    @property
    def parents(self):
        return [self.categorical_column]


# -- categorical ---------------------------------------------------------------------------------------------

def _check_dtype_compatible(column, input_tensor):
    if column.dtype.is_integer != input_tensor.dtype.is_integer:
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: {column.key}, column "
                         f"dtype: {utils.dtype_str(column.dtype)}, tensor dtype: {utils.dtype_str(input_tensor.dtype)}")


class HashedCategoricalColumn(V2Categorical, CategoricalColumn, collections.namedtuple(
        "HashedCategoricalColumn", ("key", "hash_bucket_size", "dtype"))):
    """Ids ``Fingerprint64(value) mod hash_bucket_size`` of string (or integer) values."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        input_tensor = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not isinstance(input_tensor, SparseTensor):
            raise ValueError("SparseColumn input must be a SparseTensor.")
        utils.assert_string_or_int(input_tensor.dtype, prefix=f"column_name: {self.key} input_tensor")
        _check_dtype_compatible(self, input_tensor)
        values = input_tensor.values if self.dtype == dtypes.string else lookup_ops.as_string(input_tensor.values)
        ids = lookup_ops.string_to_hash_bucket_fast(values, self.hash_bucket_size, name="lookup")
        return SparseTensor(input_tensor.indices, ids, input_tensor.dense_shape)

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    @property
    def parents(self):
        return [self.key]


def _integer_keys(column, input_tensor):
    _check_dtype_compatible(column, input_tensor)
    utils.assert_string_or_int(input_tensor.dtype, prefix=f"column_name: {column.key} input_tensor")
    if input_tensor.dtype.is_integer:
        return dtypes.int64, math_ops.cast(input_tensor, dtypes.int64)
    return column.dtype, input_tensor


class VocabularyFileCategoricalColumn(V2Categorical, CategoricalColumn, collections.namedtuple(
        "VocabularyFileCategoricalColumn", ("key", "vocabulary_file", "vocabulary_size", "num_oov_buckets", "dtype",
                                            "default_value", "file_format"))):
    """Ids from a vocabulary file (line i is id i), OOV values hashed into
    ``num_oov_buckets`` extra ids or mapped to ``default_value``."""

    def __new__(cls, key, vocabulary_file, vocabulary_size, num_oov_buckets, dtype, default_value, file_format=None):
        return super().__new__(cls, key, vocabulary_file, vocabulary_size, num_oov_buckets, dtype, default_value,
                               file_format)

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        key_dtype, input_tensor = _integer_keys(self, to_sparse_input_and_drop_ignore_values(inputs.get(self.key)))
        with init_scope():
            table = lookup_ops.index_table_from_file(
                vocabulary_file=self.vocabulary_file, num_oov_buckets=self.num_oov_buckets,
                vocab_size=self.vocabulary_size, default_value=self.default_value, key_dtype=key_dtype,
                name=f"{self.key}_lookup")
        return table.lookup(input_tensor)

    @property
    def _num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets

    @property
    def parents(self):
        return [self.key]


class VocabularyListCategoricalColumn(V2Categorical, CategoricalColumn, collections.namedtuple(
        "VocabularyListCategoricalColumn", ("key", "vocabulary_list", "dtype", "default_value", "num_oov_buckets"))):
    """Ids from an in-memory vocabulary (position in ``vocabulary_list``)."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(self.dtype)}

    def _transform_feature(self, inputs):
        key_dtype, input_tensor = _integer_keys(self, to_sparse_input_and_drop_ignore_values(inputs.get(self.key)))
        with init_scope():
            table = lookup_ops.index_table_from_tensor(
                vocabulary_list=tuple(self.vocabulary_list), default_value=self.default_value,
                num_oov_buckets=self.num_oov_buckets, dtype=key_dtype, name=f"{self.key}_lookup")
        return table.lookup(input_tensor)

    @property
    def _num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets

    @property
    def parents(self):
        return [self.key]


class IdentityCategoricalColumn(V2Categorical, CategoricalColumn, collections.namedtuple(
        "IdentityCategoricalColumn", ("key", "number_buckets", "default_value"))):
    """The integer values themselves as ids in [0, num_buckets)."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: VarLenFeature(dtypes.int64)}

    def _transform_feature(self, inputs):
        input_tensor = to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not input_tensor.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {utils.dtype_str(input_tensor.dtype)}")
        values = input_tensor.values
        if values.dtype != dtypes.int64:
            values = math_ops.cast(values, dtypes.int64, name="values")
        if self.default_value is not None:
            values = math_ops.cast(input_tensor.values, dtypes.int64, name="values")
            num_buckets = math_ops.cast(self.num_buckets, dtypes.int64, name="num_buckets")
            zero = math_ops.cast(0, dtypes.int64, name="zero")
            values = array_ops.where_v2(
                math_ops.logical_or(values < zero, values >= num_buckets, name="out_of_range"),
                array_ops.fill(dims=array_ops.shape(values), value=math_ops.cast(self.default_value, dtypes.int64),
                               name="default_values"), values)
        return SparseTensor(indices=input_tensor.indices, values=values, dense_shape=input_tensor.dense_shape)

    @property
    def _num_buckets(self):
        return self.number_buckets

    @property
    def parents(self):
        return [self.key]


class WeightedCategoricalColumn(V2Categorical, CategoricalColumn, collections.namedtuple(
        "WeightedCategoricalColumn", ("categorical_column", "weight_feature_key", "dtype"))):
    """A categorical column whose ids carry the weights of feature ``weight_feature_key``."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self):
        config = self.categorical_column._parse_example_spec
        if self.weight_feature_key in config:
            raise ValueError(f"Parse config {config[self.weight_feature_key]} already exists for "
                             f"{self.weight_feature_key}.")
        config[self.weight_feature_key] = VarLenFeature(self.dtype)
        return config

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs):
        weight_tensor = inputs.get(self.weight_feature_key)
        if weight_tensor is None:
            raise ValueError(f"Missing weights {self.weight_feature_key}.")
        weight_tensor = convert_to_tensor_or_sparse_tensor(weight_tensor)
        if self.dtype != weight_tensor.dtype.base_dtype:
            raise ValueError(f"Bad dtype, expected {utils.dtype_str(self.dtype)}, but got {utils.dtype_str(weight_tensor.dtype)}.")
        if not isinstance(weight_tensor, SparseTensor):
            weight_tensor = to_sparse_input_and_drop_ignore_values(weight_tensor, ignore_value=0.0)
        if not weight_tensor.dtype.is_floating:
            weight_tensor = math_ops.cast(weight_tensor, dtypes.float32)
        return (inputs.get(self.categorical_column), weight_tensor)

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        tensors = inputs.get(self)
        return IdWeightPair(tensors[0], tensors[1])

    @property
    def parents(self):
        return [self.categorical_column, self.weight_feature_key]


def _leaf_keys(cross):
    keys = []
    for k in cross.keys:
        keys.extend(_leaf_keys(k) if isinstance(k, CrossedColumn) else [k])
    return keys


class CrossedColumn(V2Categorical, CategoricalColumn, collections.namedtuple(
        "CrossedColumn", ("keys", "hash_bucket_size", "hash_key"))):
    """Hashed crosses of string features and categorical columns."""

    @property
    def name(self):
        return "_X_".join(sorted(k.name if isinstance(k, FeatureColumn) else k for k in _leaf_keys(self)))

    @property
    def _parse_example_spec(self):
        config = {}
        for key in self.keys:
            if isinstance(key, FeatureColumn):
                config.update(key._parse_example_spec)
            else:
                config.update({key: VarLenFeature(dtypes.string)})
        return config

    def _transform_feature(self, inputs):
        tensors = []
        for key in _leaf_keys(self):
            if isinstance(key, str):
                tensors.append(inputs.get(key))
            elif isinstance(key, CategoricalColumn):
                pair = key._get_sparse_tensors(inputs)
                if pair.weight_tensor is not None:
                    raise ValueError(f"crossed_column does not support weight_tensor, but the given column "
                                     f"populates weight_tensor. Given column: {key.name}")
                tensors.append(pair.id_tensor)
            else:
                raise ValueError(f"Unsupported column type. Given: {key}")
        return sparse_ops.sparse_cross_hashed(inputs=tensors, num_buckets=self.hash_bucket_size,
                                              hash_key=self.hash_key)

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    @property
    def parents(self):
        return list(self.keys)


class IndicatorColumn(V2Dense, DenseColumn, SequenceDenseColumn, collections.namedtuple(
        "IndicatorColumn", ("categorical_column",))):
    """A multi-hot [batch, num_buckets] float tensor of a categorical column
    (the weights summed for a weighted column)."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    def _transform_feature(self, inputs):
        pair = self.categorical_column._get_sparse_tensors(inputs)
        size = self._variable_shape[-1]
        if pair.weight_tensor is not None:
            merged = sparse_ops.sparse_merge(sp_ids=pair.id_tensor, sp_values=pair.weight_tensor,
                                             vocab_size=int(size))
            merged = sparse_ops.sparse_slice(merged, [0, 0], merged.dense_shape)
            return array_ops.scatter_nd(merged.indices, merged.values, merged.dense_shape)
        dense_ids = sparse_ops.sparse_tensor_to_dense(pair.id_tensor, default_value=-1)
        one_hot = array_ops.one_hot(dense_ids, depth=size, on_value=1.0, off_value=0.0)
        return math_ops.reduce_sum(one_hot, axis=[-2])

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    @property
    def _variable_shape(self):
        return TensorShape([1, self.categorical_column._num_buckets])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        _check_not_sequence("indicator_column", self, _FIX_A, _FIX_B)
        return inputs.get(self)

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        if not isinstance(self.categorical_column, SequenceCategoricalBase):
            raise ValueError(f"In indicator_column: {self.name}. categorical_column must be of type "
                             f"_SequenceCategoricalColumn to use SequenceFeatures. Suggested fix: Use one of "
                             f"sequence_categorical_column_with_*. Given (type {type(self.categorical_column)}): "
                             f"{self.categorical_column}")
        dense = inputs.get(self)
        sparse_tensors = self.categorical_column._get_sparse_tensors(inputs)
        length = utils.sequence_length_from_sparse_tensor(sparse_tensors.id_tensor)
        return TensorSequenceLengthPair(dense_tensor=dense, sequence_length=length)

    @property
    def parents(self):
        return [self.categorical_column]


class SequenceCategoricalColumn(V2Categorical, SequenceCategoricalBase, collections.namedtuple(
        "SequenceCategoricalColumn", ("categorical_column",))):
    """A categorical column over sequences: ids reshaped to [batch, time, n]."""

    @property
    def name(self):
        return self.categorical_column.name

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return self.categorical_column._transform_feature(inputs)

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        pair = self.categorical_column._get_sparse_tensors(inputs)
        id_tensor, weight_tensor = pair.id_tensor, pair.weight_tensor
        shape = array_ops.shape(id_tensor)
        target = [shape[0], shape[1], math_ops.reduce_prod(shape[2:])]
        id_tensor = sparse_ops.sparse_reshape(id_tensor, target)
        if weight_tensor is not None:
            weight_tensor = sparse_ops.sparse_reshape(weight_tensor, target)
        return IdWeightPair(id_tensor, weight_tensor)

    @property
    def parents(self):
        return [self.categorical_column]


def embedding_initializer(dimension):
    """TF's default embedding initializer: truncated normal, stddev 1/sqrt(dimension)."""
    return init_ops.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))


def vocabulary_file_size(path):
    with gfile.GFile(path, mode="rb") as f:
        return sum(1 for _ in f)
