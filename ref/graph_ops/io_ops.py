"""``tf.matching_files`` and ``tf.train.match_filenames_once``."""
from __future__ import annotations

from ref.framework.graph import GraphKeys, apply_op, convert_to_tensor, name_scope
from ref.types import dtypes
from ref.graph_ops import variables

__all__ = ["matching_files", "match_filenames_once"]


def matching_files(pattern, name=None):
    """The sorted file names matching the glob ``pattern`` (``MatchingFiles``)."""
    return apply_op("MatchingFiles", pattern=convert_to_tensor(pattern, dtype=dtypes.string),
                    name=name or "MatchingFiles")


def match_filenames_once(pattern, name=None):
    """A local variable (not trainable, any length) initialised to the files
    matching ``pattern``: the glob runs once, when the local variables are
    initialised (``tf.local_variables_initializer()``)."""
    with name_scope(name, "matching_filenames", [pattern]) as scope:
        return variables.VariableV1(initial_value=matching_files(pattern), trainable=False, validate_shape=False,
                                    collections=[GraphKeys.LOCAL_VARIABLES], name=scope)
