"""Gradient rules for variables and summaries (``ref/ops/state.py``, ``summary.py``)."""
from __future__ import annotations

from ref.framework.graph import colocate_with
from ref.framework.indexed_slices import IndexedSlices
from ref.framework.op_def_library import apply_op
from ref.grad.registry import NotDifferentiable, RegisterGradient
from ref.graph_ops import array_ops

for _t in ("Variable", "VariableV2", "VarHandleOp", "VariableShape", "ScalarSummary", "HistogramSummary", "ImageSummary",
           "AudioSummaryV2", "MergeSummary", "TensorSummary", "TensorSummaryV2", "DestroyResourceOp",
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


@RegisterGradient("ResourceGather")
def _resource_gather_grad(op, grad):
    """Sparse, as TF: IndexedSlices(grad rows, indices, the variable's shape)."""
    handle, indices = op.inputs
    with colocate_with(handle.op):
        params_shape = apply_op("VariableShape", input=handle, out_type="int32")
    values = array_ops.reshape(grad, array_ops.concat([[-1], params_shape[1:]], 0))
    return IndexedSlices(values, array_ops.reshape(indices, [-1]), params_shape), None
