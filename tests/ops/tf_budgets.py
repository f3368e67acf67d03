"""Largest ULP distance allowed between a ref kernel and ``tf.raw_ops.<Name>``
on the same inputs, per op. Ops that only move or select elements are exact (0).
"""
from tests.ops.math_cases import ACTIVATION_ROWS, UNARY_ROWS

TF_BUDGETS = {
    # ref/ops/array.py and its sibling families: element moves and selections -- exact.
    "Reshape": 0, "Bitcast": 0, "Transpose": 0, "ConjugateTranspose": 0, "ConcatV2": 0, "Concat": 0, "Split": 0,
    "SplitV": 0, "Pack": 0, "ParallelConcat": 0, "Bucketize": 0, "Unpack": 0, "ExpandDims": 0, "Squeeze": 0, "Slice": 0, "StridedSlice": 0,
    "StridedSliceGrad": 0, "TensorStridedSliceUpdate": 0, "GatherV2": 0, "Gather": 0, "GatherNd": 0, "ScatterNd": 0, "TensorScatterUpdate": 0,
    "TensorScatterAdd": 0, "TensorScatterSub": 0, "TensorScatterMin": 0, "TensorScatterMax": 0,
    "ScatterNdNonAliasingAdd": 0, "Tile": 0, "Pad": 0,
    "PadV2": 0, "MirrorPad": 0, "Shape": 0, "ShapeN": 0, "Size": 0, "Rank": 0, "ZerosLike": 0, "OnesLike": 0,
    "Fill": 0, "Where": 0, "BroadcastTo": 0, "BroadcastArgs": 0, "BroadcastGradientArgs": 0, "OneHot": 0,
    "StopGradient": 0, "PreventGradient": 0, "IdentityN": 0, "CheckNumerics": 0, "UnsortedSegmentSum": 0,
    "UnsortedSegmentMax": 0, "UnsortedSegmentMin": 0, "UnsortedSegmentProd": 0, "SegmentSum": 0,
    "SegmentMean": 0, "SegmentMax": 0, "SegmentMin": 0, "SegmentProd": 0, "Roll": 0, "UniqueWithCounts": 0, "DenseBincount": 0,
    "LowerBound": 0, "UpperBound": 0, "UnravelIndex": 0, "HistogramFixedWidth": 0,
    "DynamicStitch": 0, "ParallelDynamicStitch": 0, "DynamicPartition": 0, "Reverse": 0, "ReverseV2": 0, "InvertPermutation": 0,
    "ReverseSequence": 0,
    "MirrorPadGrad": 0,
    "Unique": 0, "UniqueV2": 0, "UniqueWithCountsV2": 0, "ListDiff": 0, "MatrixDiag": 0, "MatrixDiagPart": 0, "Empty": 0, "EnsureShape": 0,
}

# ref/ops/math.py and ref/ops/nn.py, measured against tensorflow-cpu 2.21 on the
# rows of tests/ops/math_cases.py (float16/32/64). 0: TF's IEEE arithmetic
# reproduced bit for bit. Small numbers: Eigen's vectorised float32
# exp/log/tanh/sigmoid/erf/rsqrt approximations. Reductions, MatMul, softmax
# and cross-entropy: Eigen's blocked summation order (inputs chosen without
# cancellation, except LogSoftmax/xent outputs near 0, where an ULP of the
# row sum is thousands of ULPs of log(sum)).
TF_BUDGETS.update({
    # exact
    "AddV2": 0, "Add": 0, "Sub": 0, "Mul": 0, "RealDiv": 0, "Div": 0, "DivNoNan": 0, "FloorDiv": 0,
    "FloorMod": 0, "TruncateDiv": 0, "Maximum": 0, "Minimum": 0, "SquaredDifference": 0,
    "Less": 0, "LessEqual": 0, "Greater": 0, "GreaterEqual": 0, "Equal": 0,
    "NotEqual": 0, "LogicalAnd": 0, "LogicalOr": 0, "LogicalNot": 0, "Max": 0, "Min": 0, "All": 0, "Any": 0,
    "ArgMax": 0, "ArgMin": 0, "AddN": 0, "Cast": 0, "ClipByValue": 0, "Select": 0, "SelectV2": 0,
    "Cumsum": 0, "Cumprod": 0, "Range": 0, "TanhGrad": 0,
    "TruncateMod": 0, "MulNoNan": 0, "Xdivy": 0,
    "BiasAdd": 0, "BiasAddV1": 0, "InTopKV2": 0, "DataFormatDimMap": 0, "DataFormatVecPermute": 0,
    "IsotonicRegression": 0,
    # transcendental approximations (measured 1-3)
    "Zeta": 3, "Polygamma": 3, "Atan2": 2, "Xlogy": 1, "Xlog1py": 2,
    "Pow": 2, "SigmoidGrad": 2, "SqrtGrad": 2,
    "RsqrtGrad": 2, "ReciprocalGrad": 3, "InvGrad": 3,
    # CumulativeLogsumexp: measured 2 along the inner axis, 16 (float64, outputs near 0) across rows
    "CumulativeLogsumexp": 16,
    # summation order (measured: MatMul 10, BatchMatMulV2 1, Sum 3, Mean 3, Prod 3, BiasAddGrad 1,
    # L2Loss 2, Softmax 7, LogSoftmax 8191, xent 51, sparse xent 64)
    "MatMul": 16, "BatchMatMulV2": 4, "Sum": 6, "EuclideanNorm": 6, "Mean": 6, "Prod": 6, "BiasAddGrad": 4, "L2Loss": 4,
    "Softmax": 12, "LogSoftmax": 8192, "SoftmaxCrossEntropyWithLogits": 96,
    "SparseSoftmaxCrossEntropyWithLogits": 96,
})

# element-wise unary math ops: the budget is a field of their row (tests/ops/math_cases.py UNARY_ROWS)
TF_BUDGETS.update({op: row.budget for op, row in UNARY_ROWS.items()})
# nn activations and their gradient kernels: fields of their row (tests/ops/math_cases.py ACTIVATION_ROWS)
TF_BUDGETS.update({op: row.budget for op, row in ACTIVATION_ROWS.items()})
TF_BUDGETS.update({row.grad_op: row.grad_budget for row in ACTIVATION_ROWS.values()})

# ref/ops/space_depth.py, conv3d.py, morphology.py (tests/ops/test_breadth_conv_kernels.py):
# element moves, maxima and their winners exact; Conv3D's per-offset sums in
# another order than Eigen's contraction (measured 2-7 ULP), AvgPool3DGrad's
# shares likewise (measured 1).
TF_BUDGETS.update({
    "SpaceToDepth": 0, "DepthToSpace": 0, "ExtractImagePatches": 0, "MaxPool3D": 0, "AvgPool3D": 0,
    "Dilation2D": 0, "Dilation2DBackpropInput": 0, "Dilation2DBackpropFilter": 0,
    "Conv3D": 8, "Conv3DBackpropInputV2": 8, "Conv3DBackpropFilterV2": 12, "AvgPool3DGrad": 2,
})
