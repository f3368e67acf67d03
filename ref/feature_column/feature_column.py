"""TF 1.x's ``feature_column.py`` names (the module TF's own tests and older
programs import): the interfaces ``_FeatureColumn``, ``_DenseColumn``,
``_CategoricalColumn``, ``_SequenceDenseColumn``, ``_LazyBuilder``,
``_transform_features``, and the ``_<kind>_column`` constructors. ref has one
set of column classes (TF's ``feature_column_v2`` ones, which implement the
TF1 interface too): the old constructors build those."""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.feature_column.base import (CategoricalColumn as _CategoricalColumn, DenseColumn as _DenseColumn,  # noqa: F401
                                     FeatureColumn as _FeatureColumn, LazyBuilder as _LazyBuilder,
                                     SequenceDenseColumn as _SequenceDenseColumn, normalize_feature_columns,
                                     to_sparse_input_and_drop_ignore_values as _to_sparse_input_and_drop_ignore_values)
from ref.feature_column.factories import (  # noqa: F401
    categorical_column_with_hash_bucket as _categorical_column_with_hash_bucket,
    categorical_column_with_identity as _categorical_column_with_identity,
    categorical_column_with_vocabulary_file as _categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list as _categorical_column_with_vocabulary_list,
    crossed_column as _crossed_column, embedding_column as _embedding_column, indicator_column as _indicator_column,
    numeric_column as _numeric_column, shared_embedding_columns as _shared_embedding_columns,
    weighted_categorical_column as _weighted_categorical_column,
)
from ref.feature_column.models import (LinearModel as _LinearModel, input_layer,  # noqa: F401
                                       internal_input_layer as _internal_input_layer, linear_model,
                                       make_parse_example_spec)
from ref.feature_column.columns import BucketizedColumn, NumericColumn

_normalize_feature_columns = normalize_feature_columns


def _transform_features(features, feature_columns):
    """Each column's transformed tensor (its ``_transform_feature`` through one
    shared builder), under ``transform_features/<column name>`` name scopes."""
    feature_columns = normalize_feature_columns(feature_columns)
    outputs = {}
    with name_scope(None, default_name="transform_features", values=list(features.values())):
        builder = _LazyBuilder(features)
        for column in sorted(feature_columns, key=lambda x: x.name):
            with name_scope(None, default_name=column.name):
                outputs[column] = builder.get(column)
    return outputs


def _bucketized_column(source_column, boundaries):
    """TF 1.x's ``_bucketized_column``: its checks (empty or unlisted
    boundaries are "not a sorted list")."""
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError(f"source_column must be one-dimensional column. Given: {source_column}")
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return BucketizedColumn(source_column, tuple(boundaries))
