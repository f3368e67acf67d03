"""``tf.lookup`` (compat.v1): static and vocabulary tables, their initializers,
and ``tf.lookup.experimental``'s mutable tables."""
import types as _types

from ref.graph_ops.lookup_ops import (KeyValueTensorInitializer, StaticHashTable,  # noqa: F401
                                      StaticVocabularyTable, TextFileIndex, TextFileInitializer)
from ref.graph_ops.lookup_ops import DenseHashTable as _DenseHashTable, MutableHashTable as _MutableHashTable

from ref import _coverage  # noqa: E402

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable", "TextFileIndex",
           "TextFileInitializer", "experimental"]

experimental = _types.SimpleNamespace(DenseHashTable=_DenseHashTable, MutableHashTable=_MutableHashTable)


def __getattr__(name):  # a TF name ref lacks: say so and point to the coverage page
    raise _coverage.miss("tf.lookup", name)
