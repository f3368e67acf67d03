"""Ragged array functions TF1 code meets: ``tf.ragged.fill_empty_rows``
(``RaggedFillEmptyRows``: every empty row of a rank-2 RaggedTensor gets one
``default_value``) and ``tf.ragged.boolean_mask`` over the flat values of a
rank-2 RaggedTensor (TF's ``ragged_array_ops``)."""
from __future__ import annotations

from ref.framework.graph import name_scope
from ref.framework.op_def_library import apply_op, convert_to_tensor
from ref.graph_ops import array_ops
from ref.graph_ops.ragged_tensor import RaggedTensor

__all__ = ["fill_empty_rows", "boolean_mask_values"]


def fill_empty_rows(ragged_input, default_value, name=None):
    """(the rank-2 RaggedTensor with each empty row holding ``default_value``,
    a bool vector saying which rows were empty)."""
    with name_scope(name, "RaggedFillEmptyRows", [ragged_input]):
        if not isinstance(ragged_input, RaggedTensor):
            raise TypeError(f"ragged_input must be RaggedTensor, got {type(ragged_input)}")
        default_value = convert_to_tensor(default_value, dtype=ragged_input.dtype)
        rowids, values, empty, _ = apply_op("RaggedFillEmptyRows", value_rowids=ragged_input.value_rowids(),
                                            values=ragged_input.values, nrows=ragged_input.nrows(),
                                            default_value=default_value)
        return RaggedTensor.from_value_rowids(values=values, value_rowids=rowids, validate=False), empty


def boolean_mask_values(rt, mask, name=None):
    """The rank-2 RaggedTensor keeping the values where ``mask`` (one bool per
    value) is true, each in its row; the row count is kept."""
    with name_scope(name, "RaggedMaskValues", [rt, mask]):
        kept_rowids = array_ops.boolean_mask(rt.value_rowids(), mask)
        return RaggedTensor.from_value_rowids(array_ops.boolean_mask(rt.values, mask), kept_rowids,
                                              nrows=rt.nrows(), validate=False)
