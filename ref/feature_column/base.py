"""The feature-column interfaces of TF 1.x (``feature_column.py``'s
``_FeatureColumn``, ``_DenseColumn``, ``_CategoricalColumn``,
``_SequenceDenseColumn``), the ``_LazyBuilder`` that caches each column's
transformation while a model is built, and the helpers ``input_layer`` and
``linear_model`` share.

A column is a namedtuple (equal columns are the same column, usable as dict
keys); ``name`` orders the columns of a model, and ``_var_scope_name`` names
the variable scope its variables live in.
"""
from __future__ import annotations

import collections
import collections.abc

from ref.types import dtypes
from ref.framework.graph import Tensor, control_dependencies, name_scope
from ref.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from ref.graph_ops import array_ops, check_ops, control_flow_ops, math_ops, sparse_ops


class FeatureColumn:
    """A feature of a model: how to turn the raw input under its key(s) into
    tensors (TF's ``_FeatureColumn``)."""

    __slots__ = ()

    @property
    def name(self):
        raise NotImplementedError

    def __lt__(self, other):
        return str(self) < str(other)

    def __gt__(self, other):
        return str(self) > str(other)

    @property
    def _var_scope_name(self):
        return self.name

    def _transform_feature(self, inputs):
        raise NotImplementedError

    @property
    def _parse_example_spec(self):
        raise NotImplementedError

    def _reset_config(self):
        pass


class DenseColumn(FeatureColumn):
    """A column giving a dense [batch, ...] float tensor (TF's ``_DenseColumn``)."""

    __slots__ = ()

    @property
    def _variable_shape(self):
        raise NotImplementedError

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        raise NotImplementedError


IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])
TensorSequenceLengthPair = collections.namedtuple("TensorSequenceLengthPair", ["dense_tensor", "sequence_length"])


class CategoricalColumn(FeatureColumn):
    """A column giving a SparseTensor of int64 ids in [0, num_buckets), with
    optional weights (TF's ``_CategoricalColumn``)."""

    __slots__ = ()
    IdWeightPair = IdWeightPair

    @property
    def _num_buckets(self):
        raise NotImplementedError

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return IdWeightPair(inputs.get(self), None)


class SequenceDenseColumn(FeatureColumn):
    """A column giving a [batch, time, ...] tensor and the sequence lengths."""

    __slots__ = ()
    TensorSequenceLengthPair = TensorSequenceLengthPair

    def _get_sequence_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        raise NotImplementedError


class SequenceCategoricalBase(CategoricalColumn):
    """Marker of the sequence categorical columns (TF's ``_SequenceCategoricalColumn``)."""

    __slots__ = ()


class V2Column:
    """The TF 2.x spelling of the parse spec (TF's ``feature_column_v2`` classes have both)."""

    __slots__ = ()

    @property
    def parse_example_spec(self):
        return self._parse_example_spec


class V2Dense(V2Column):
    __slots__ = ()

    @property
    def variable_shape(self):
        return self._variable_shape


class V2Categorical(V2Column):
    __slots__ = ()

    @property
    def num_buckets(self):
        return self._num_buckets


class LazyBuilder:
    """Caches the transformation of each column and raw feature while a model
    is built: a column shared by two others (a bucketized column used alone and
    in a cross) is transformed once. A raw feature of rank 1 is expanded to
    [batch, 1]; rank 0 is an error."""

    def __init__(self, features):
        self._features = features.copy()
        self._feature_tensors = {}

    def get(self, key):
        if key in self._feature_tensors:
            return self._feature_tensors[key]
        if key in self._features:
            tensor = self._get_raw_feature_as_tensor(key)
            self._feature_tensors[key] = tensor
            return tensor
        if isinstance(key, str):
            raise ValueError(f"Feature {key} is not in features dictionary.")
        if not isinstance(key, FeatureColumn):
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: {key}')
        transformed = key._transform_feature(self)
        if transformed is None:
            raise ValueError(f"Column {key.name} is not supported.")
        self._feature_tensors[key] = transformed
        return transformed

    def _get_raw_feature_as_tensor(self, key):
        tensor = convert_to_tensor_or_sparse_tensor(self._features[key])

        def expand_dims(t):
            if isinstance(t, SparseTensor):
                return sparse_ops.sparse_reshape(t, [array_ops.shape(t)[0], 1])
            return array_ops.expand_dims(t, -1)

        rank = tensor.get_shape().ndims
        if rank is not None:
            if rank == 0:
                raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {tensor}")
            return tensor if rank != 1 else expand_dims(tensor)
        with control_dependencies([check_ops.assert_positive(
                array_ops.rank(tensor), message=f"Feature (key: {key}) cannot have rank 0. Given: {tensor}")]):
            return control_flow_ops.cond(math_ops.equal(1, array_ops.rank(tensor)),
                                         lambda: expand_dims(tensor), lambda: tensor)


def to_sparse_input_and_drop_ignore_values(input_tensor, ignore_value=None):
    """``input_tensor`` as a SparseTensor without the cells equal to
    ``ignore_value`` (default: '' for strings, -1 for integers, 0 for floats);
    a SparseTensor is returned as it is."""
    input_tensor = convert_to_tensor_or_sparse_tensor(input_tensor)
    if isinstance(input_tensor, SparseTensor):
        return input_tensor
    with name_scope(None, "to_sparse_input", (input_tensor, ignore_value)):
        if ignore_value is None:
            if input_tensor.dtype == dtypes.string:
                ignore_value = ""
            elif input_tensor.dtype.is_integer:
                ignore_value = -1
            else:
                ignore_value = input_tensor.dtype.as_numpy_dtype()
        ignore_value = math_ops.cast(ignore_value, input_tensor.dtype, name="ignore_value")
        indices = array_ops.where(math_ops.not_equal(input_tensor, ignore_value), name="indices")
        return SparseTensor(indices=indices, values=array_ops.gather_nd(input_tensor, indices, name="values"),
                            dense_shape=array_ops.shape(input_tensor, out_type=dtypes.int64, name="dense_shape"))


def normalize_feature_columns(feature_columns):
    """``feature_columns`` as a non-empty list of columns with distinct names."""
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, collections.abc.Iterator):
        feature_columns = list(feature_columns)
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given (type {type(column)}): "
                             f"{column}.")
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    by_name = {}
    for column in feature_columns:
        if column.name in by_name:
            raise ValueError(f"Duplicate feature column name found for columns: {column} and "
                             f"{by_name[column.name]}. This usually means that these columns refer to same base "
                             f"feature. Either one must be discarded or a duplicated but renamed item must be "
                             f"inserted in features dict.")
        by_name[column.name] = column
    return feature_columns


def verify_static_batch_size_equality(tensors, columns):
    """ValueError when two tensors' static batch sizes differ."""
    expected, first = None, None
    for i, t in enumerate(tensors):
        dim = t.shape.dims[0]
        if dim.value is not None:
            if expected is None:
                first, expected = i, dim
            elif not expected.is_compatible_with(dim):
                raise ValueError(f"Batch size (first dimension) of each feature must be same. Batch size of "
                                 f"columns ({columns[first].name}, {columns[i].name}): ({expected}, {dim})")


def is_tensor(x):
    return isinstance(x, Tensor)
