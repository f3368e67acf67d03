"""``tf.compat.v1.feature_column.input_layer``, ``linear_model`` and
``make_parse_example_spec``, with TF 1.x's scopes (``feature_column.py``):

* ``input_layer``: ``variable_scope(scope, default_name="input_layer")``, then
  per column (sorted by name) ``variable_scope(None, default_name=<column's
  var scope name>)`` around its dense tensor reshaped to [batch, n]; the
  outputs concatenated on axis 1;
* ``linear_model``: TF builds a Keras-style layer named after
  ``variable_scope(None, "linear_model")``; its call runs under that name
  scope (uniquified: ``linear_model_1``) and the variable scope of the same
  name; each column's ``weights`` (zeros, [num_buckets or n, units]) is made
  in its own variable scope before its weighted sum (``MatMul`` named
  ``weighted_sum``, or ``safe_embedding_lookup_sparse`` for categorical
  columns), then ``AddN`` ``weighted_sum_no_bias``, the variable
  ``bias_weights`` and ``BiasAdd`` ``weighted_sum``.

Variables go to GLOBAL_VARIABLES, MODEL_VARIABLES and the given
``weight_collections``; ``cols_to_vars`` maps each column to the global
variables of its scope (``'bias'`` to the bias).
"""
from __future__ import annotations

import numpy as np

from ref.types import dtypes, nest
from ref.framework.graph import GraphKeys, add_to_collection, get_collection, name_scope
from ref.framework.op_def_library import convert_to_tensor
from ref.graph_ops import array_ops, embedding_ops, init_ops, math_ops, nn_ops, sparse_ops
from ref.graph_ops.partitioned import PartitionedVariable
from ref.graph_ops.variable_scope import get_variable, get_variable_scope, variable_scope
from ref.feature_column.base import (CategoricalColumn, DenseColumn, FeatureColumn, LazyBuilder,
                                     normalize_feature_columns, verify_static_batch_size_equality)


def _weight_collections(weight_collections):
    out = list(weight_collections or [])
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES):
        if key not in out:
            out.append(key)
    return out


def input_layer(features, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None,
                cols_to_output_tensors=None):
    """A [batch, sum of the columns' sizes] float tensor: the dense columns'
    tensors side by side, in the order of their names (TF's ``input_layer``)."""
    return internal_input_layer(features, feature_columns, weight_collections=weight_collections,
                                trainable=trainable, cols_to_vars=cols_to_vars,
                                cols_to_output_tensors=cols_to_output_tensors)


def internal_input_layer(features, feature_columns, weight_collections=None, trainable=True, cols_to_vars=None,
                         scope=None, cols_to_output_tensors=None, from_template=False):
    """:func:`input_layer` under the variable scope ``scope`` (a name or a scope)."""
    feature_columns = normalize_feature_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, DenseColumn):
            raise ValueError(f"Items of feature_columns must be a _DenseColumn. You can wrap a categorical column "
                             f"with an embedding_column or indicator_column. Given: {column}")
    weight_collections = _weight_collections(weight_collections)

    def build():
        builder = LazyBuilder(features)
        outputs, ordered = [], []
        for column in sorted(feature_columns, key=lambda x: x.name):
            ordered.append(column)
            with variable_scope(None, default_name=column._var_scope_name):
                tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                                  trainable=trainable)
                num_elements = column._variable_shape.num_elements()
                batch_size = array_ops.shape(tensor)[0]
                output = array_ops.reshape(tensor, shape=(batch_size, num_elements))
                outputs.append(output)
                if cols_to_vars is not None:
                    cols_to_vars[column] = get_collection(GraphKeys.GLOBAL_VARIABLES,
                                                          scope=get_variable_scope().name)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = output
        verify_static_batch_size_equality(outputs, ordered)
        return array_ops.concat(outputs, 1)

    if from_template:
        return build()
    with variable_scope(scope, default_name="input_layer", values=_flat_values(features)):
        return build()


def _flat_values(features):
    values = []
    for v in features.values():
        values.extend([v.indices, v.values, v.dense_shape] if hasattr(v, "dense_shape") else [v])
    return values


def _add_to_collections(var, weight_collections):
    for key in weight_collections:
        if key == GraphKeys.GLOBAL_VARIABLES:
            continue
        for v in (list(var) if isinstance(var, PartitionedVariable) else [var]):
            add_to_collection(key, v)


def _strip_leading_slashes(name):
    return name.rsplit("/", 1)[-1]


def _dense_weighted_sum(column, builder, weight, weight_collections, trainable):
    tensor = column._get_dense_tensor(builder, weight_collections=weight_collections, trainable=trainable)
    num_elements = column._variable_shape.num_elements()
    batch_size = array_ops.shape(tensor)[0]
    tensor = array_ops.reshape(tensor, shape=(batch_size, num_elements))
    return math_ops.matmul(tensor, weight, name="weighted_sum")


def _categorical_weighted_sum(column, builder, weight, sparse_combiner, weight_collections, trainable):
    pair = column._get_sparse_tensors(builder, weight_collections=weight_collections, trainable=trainable)
    id_tensor = sparse_ops.sparse_reshape(pair.id_tensor, [array_ops.shape(pair.id_tensor)[0], -1])
    weight_tensor = pair.weight_tensor
    if weight_tensor is not None:
        weight_tensor = sparse_ops.sparse_reshape(weight_tensor, [array_ops.shape(weight_tensor)[0], -1])
    return embedding_ops.safe_embedding_lookup_sparse(weight, id_tensor, sparse_weights=weight_tensor,
                                                      combiner=sparse_combiner, name="weighted_sum")


def _convert_non_tensor(x):
    # TF's Keras-style layer call converts NumPy arrays and Python numbers among
    # its inputs to constants first (before its name scope).
    return convert_to_tensor(x) if isinstance(x, (np.ndarray, float, int)) else x


class LinearModel:
    """The layer ``linear_model`` builds (TF's ``_LinearModel``): made with the
    columns (each column's variable scope name taken here), called on a
    features dict under the name scope and variable scope ``name``;
    ``cols_to_vars()`` once called."""

    def __init__(self, feature_columns, units=1, sparse_combiner="sum", weight_collections=None, trainable=True,
                 name=None):
        self.name = name or "linear_model"
        self.units, self.sparse_combiner, self.trainable = units, sparse_combiner, trainable
        self._feature_columns = normalize_feature_columns(feature_columns)
        self._weight_collections = _weight_collections(weight_collections)
        self._layer_names = {}
        for column in sorted(self._feature_columns, key=lambda x: x.name):
            with variable_scope(None, default_name=column._var_scope_name) as vs:
                self._layer_names[column] = _strip_leading_slashes(vs.name)
        self._cols_to_vars = {}

    def cols_to_vars(self):
        return self._cols_to_vars

    def __call__(self, features):
        if isinstance(features, dict) and any(isinstance(v, (np.ndarray, float, int))
                                              for v in nest.flatten(features)):
            features = nest.map_structure(_convert_non_tensor, features)
        units, collections = self.units, self._weight_collections
        with name_scope(self.name), variable_scope(self.name):
            for column in self._feature_columns:
                if not isinstance(column, (DenseColumn, CategoricalColumn)):
                    raise ValueError(f"Items of feature_columns must be either a _DenseColumn or _CategoricalColumn. "
                                     f"Given: {column}")
            weighted_sums, ordered = [], []
            builder = LazyBuilder(features)
            for column in sorted(self._feature_columns, key=lambda c: self._layer_names[c]):
                ordered.append(column)
                with variable_scope(None, default_name=self._layer_names[column]) as scope:
                    if isinstance(column, CategoricalColumn):
                        shape = (column._num_buckets, units)
                    else:
                        shape = [column._variable_shape.num_elements(), units]
                    weight = get_variable(name="weights", shape=shape, initializer=init_ops.zeros_initializer(),
                                          trainable=self.trainable, dtype=dtypes.float32)
                    _add_to_collections(weight, collections)
                    if isinstance(column, CategoricalColumn):
                        weighted_sums.append(_categorical_weighted_sum(column, builder, weight, self.sparse_combiner,
                                                                       collections, self.trainable))
                    else:
                        weighted_sums.append(_dense_weighted_sum(column, builder, weight, collections,
                                                                 self.trainable))
                self._cols_to_vars[column] = get_collection(GraphKeys.GLOBAL_VARIABLES, scope=scope.name)
            verify_static_batch_size_equality(weighted_sums, ordered)
            no_bias = math_ops.add_n(weighted_sums, name="weighted_sum_no_bias")
            bias = get_variable("bias_weights", shape=[units], initializer=init_ops.zeros_initializer(),
                                trainable=self.trainable, dtype=dtypes.float32)
            _add_to_collections(bias, collections)
            predictions = nn_ops.bias_add(no_bias, bias, name="weighted_sum")
            self._cols_to_vars["bias"] = list(bias) if isinstance(bias, PartitionedVariable) else [bias]
        return predictions


def linear_model(features, feature_columns, units=1, sparse_combiner="sum", weight_collections=None, trainable=True,
                 cols_to_vars=None):
    """The [batch, units] logits ``sum_c x_c W_c + bias`` of the columns (a
    categorical column contributes the ``sparse_combiner`` of its ids' rows of
    ``W_c``) (TF's ``linear_model``): a :class:`LinearModel` named after
    ``variable_scope(None, "linear_model")``, called once."""
    with variable_scope(None, "linear_model") as vs:
        model_name = _strip_leading_slashes(vs.name)
    layer = LinearModel(feature_columns, units=units, sparse_combiner=sparse_combiner,
                        weight_collections=weight_collections, trainable=trainable, name=model_name)
    predictions = layer(features)
    if cols_to_vars is not None:
        cols_to_vars.update(layer.cols_to_vars())
    return predictions


def make_parse_example_spec(feature_columns):
    """The ``tf.parse_example`` features dict of the columns: each key's
    FixedLenFeature/VarLenFeature (ValueError when two columns disagree)."""
    result = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: {column}")
        config = column._parse_example_spec
        for key, value in config.items():
            if key in result and value != result[key]:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. Given {value} and "
                                 f"{result[key]}")
        result.update(config)
    return result
