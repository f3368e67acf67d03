"""Gradient declarations for ``ref/ops/lookup.py`` and ``ref/ops/sets.py``
(TF's lookup_grad.py, sets_impl.py and string_ops.py): none of them is
differentiable. TF registers nothing for LookupTableExportV2/ImportV2/RemoveV2,
but its gradients() never reaches them (no float input); declaring them gives
the same None gradient."""
from ref.grad.registry import NotDifferentiable

for _t in ("HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2", "MutableDenseHashTableV2",
           "LookupTableFindV2", "LookupTableInsertV2", "LookupTableSizeV2", "LookupTableExportV2",
           "LookupTableImportV2", "LookupTableRemoveV2", "InitializeTableV2", "InitializeTableFromTextFileV2",
           "StringToHashBucket", "StringToHashBucketFast", "StringToHashBucketStrong", "AsString", "StringSplit", "RegexReplace",
           "StringLength", "StringLower", "StringUpper", "StringStrip", "ReduceJoin",
           "SetSize", "DenseToDenseSetOperation", "DenseToSparseSetOperation", "SparseToSparseSetOperation"):
    NotDifferentiable(_t)
