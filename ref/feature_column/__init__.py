"""``tf.feature_column`` (TF 1.x's ``tf.compat.v1.feature_column``): feature
columns, ``input_layer``, ``linear_model`` and ``make_parse_example_spec``,
built with variable scopes and ``get_variable`` as TF 1.x builds them."""
from ref.feature_column.factories import (  # noqa: F401
    bucketized_column, categorical_column_with_hash_bucket, categorical_column_with_identity,
    categorical_column_with_vocabulary_file, categorical_column_with_vocabulary_list, crossed_column,
    embedding_column, indicator_column, numeric_column, sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity, sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list, sequence_numeric_column, shared_embedding_columns,
    weighted_categorical_column,
)
from ref.feature_column.models import input_layer, linear_model, make_parse_example_spec  # noqa: F401

__all__ = ["bucketized_column", "categorical_column_with_hash_bucket", "categorical_column_with_identity",
           "categorical_column_with_vocabulary_file", "categorical_column_with_vocabulary_list", "crossed_column",
           "embedding_column", "indicator_column", "input_layer", "linear_model", "make_parse_example_spec",
           "numeric_column", "sequence_categorical_column_with_hash_bucket",
           "sequence_categorical_column_with_identity", "sequence_categorical_column_with_vocabulary_file",
           "sequence_categorical_column_with_vocabulary_list", "sequence_numeric_column", "shared_embedding_columns",
           "weighted_categorical_column"]
