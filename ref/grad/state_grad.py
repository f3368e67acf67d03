"""Gradient rules for variables and summaries (``ref/ops/state.py``, ``summary.py``)."""
from __future__ import annotations

from ref.framework.indexed_slices import IndexedSlices
import numpy as np

from ref.framework.op_def_library import apply_op, constant
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops

for _t in ("Variable", "VariableV2", "VarHandleOp", "VariableShape", "ScalarSummary", "HistogramSummary", "ImageSummary",
           "AudioSummaryV2", "MergeSummary", "TensorSummary", "TensorSummaryV2", "DestroyResourceOp",
           "TemporaryVariable", "DestroyTemporaryVariable",
           # checkpoint I/O (TF's io_ops.py / string_ops.py declare them so too)
           "SaveV2", "RestoreV2", "Restore", "RestoreSlice", "MergeV2Checkpoints", "ShardedFilename", "StringJoin",
           "StaticRegexFullMatch", "RegexFullMatch",
           "Save", "SaveSlices", "ShardedFilespec", "GenerateVocabRemapping", "LoadAndRemapMatrix",
           # queues (TF's data_flow_ops.py declares them so too)
           "FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2", "QueueCloseV2",
           "QueueDequeueManyV2",
           "QueueDequeueUpToV2", "QueueDequeueV2", "QueueEnqueueManyV2", "QueueEnqueueV2", "QueueIsClosedV2",
           "QueueSizeV2",
           # readers (TF's io_ops.py declares them so too)
           "WholeFileReaderV2", "IdentityReaderV2", "TextLineReaderV2", "FixedLengthRecordReaderV2",
           "TFRecordReaderV2", "ReaderReadV2", "ReaderReadUpToV2", "ReaderNumRecordsProducedV2",
           "ReaderNumWorkUnitsCompletedV2", "ReaderResetV2", "ReaderSerializeStateV2", "ReaderRestoreStateV2",
           "DecodeRaw", "DecodePaddedRaw", "DecodeCSV", "StringToNumber", "ParseExampleV2", "ParseSingleSequenceExample",
           "ParseSequenceExampleV2", "ParseTensor", "SerializeTensor", "DecodeJSONExample",
           # gradient accumulators (SyncReplicasOptimizer; TF's data_flow_ops.py declares them so too)
           "ConditionalAccumulator", "AccumulatorApplyGradient", "AccumulatorNumAccumulated",
           "AccumulatorSetGlobalStep", "AccumulatorTakeGradient", "SparseConditionalAccumulator",
           "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient",
           # no numeric inputs: the example user op and the TPU system op (ref/ops/user_ops.py)
           "Fact", "ShutdownDistributedTPU", "SdcaShrinkL1", "SdcaFprint",
           "SdcaOptimizer", "SdcaOptimizerV2",
           # session tensors (TF's session_ops: not differentiable)
           "GetSessionHandle", "GetSessionTensor", "DeleteSessionTensor"):
    NotDifferentiable(_t)


@RegisterGradient("ReadVariableOp")
def _read_variable_grad(op, grad):
    """The gradient of a read flows to the variable's handle unchanged."""
    return grad


def _variable_shape(handle):
    """TF's ``variable_shape``: a constant when the handle's data carries a fully known shape (a
    ``VarHandleOp``'s, which ``Identity`` / ``Enter`` / ``Switch`` pass on), else ``VariableShape``."""
    source = handle
    while source.op.type in ("Identity", "Enter", "Switch", "RefIdentity") and source.op.inputs:
        source = source.op.inputs[0]
    if source.op.type == "VarHandleOp":
        shape = source.op._get_attr("shape")
        dims = None if shape is None or shape.ndims is None else shape.as_list()
        if dims is not None and all(d is not None and d >= 0 for d in dims):
            return constant(np.asarray(dims, np.int32))
    return apply_op("VariableShape", input=handle, out_type="int32")


@RegisterGradient("ResourceGather")
def _resource_gather_grad(op, grad):
    """Sparse, as TF: IndexedSlices(grad rows, indices, the variable's shape); the rows counted by the
    indices' size."""
    handle, indices = op.inputs
    params_shape = _variable_shape(handle)
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values = array_ops.reshape(grad, array_ops.concat([size, params_shape[1:]], 0))
    return IndexedSlices(values, array_ops.reshape(indices, size), params_shape), None
