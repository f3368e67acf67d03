"""The kernels behind tf.space_to_depth, tf.nn.conv3d / max_pool3d / avg_pool3d,
tf.extract_image_patches and tf.nn.dilation2d against ``tf.raw_ops`` on the
same inputs, within ``TF_BUDGETS`` (0 for element moves, maxima and their
winners; a few ULP where Conv3D's sums run in another order than Eigen's).
Inputs are positive where sums are taken, so no cancellation inflates ULPs."""
import numpy as np
import pytest

from ref.ops import conv3d as _under_test  # noqa: F401
from tests.ops.tf_budgets import TF_BUDGETS

R = np.random.RandomState(21)
VOL = R.rand(2, 5, 4, 6, 3).astype(np.float32) + 0.5
FILT = R.rand(2, 3, 2, 3, 4).astype(np.float32) + 0.5
IMG = R.rand(2, 7, 6, 3).astype(np.float32)
KER = R.rand(3, 2, 3).astype(np.float32) - 0.5
C3 = dict(strides=[1, 1, 1, 1, 1], padding="SAME")
P3 = dict(ksize=[1, 2, 3, 2, 1], strides=[1, 2, 1, 2, 1], padding="SAME")
D2 = dict(strides=[1, 2, 1, 1], rates=[1, 1, 2, 1], padding="SAME")
DY3 = R.rand(2, 5, 4, 6, 4).astype(np.float32) + 0.5

ROWS = [
    ("s2d_f32", "SpaceToDepth", dict(input=IMG[:, :6], block_size=2)),
    ("s2d_f64_b3", "SpaceToDepth", dict(input=IMG[:, :6].astype(np.float64), block_size=3)),
    ("d2s_i32", "DepthToSpace", dict(input=(IMG[:, :, :, :] * 100).astype(np.int32).repeat(4, 3), block_size=2)),
    ("conv3d_same", "Conv3D", dict(input=VOL, filter=FILT, **C3)),
    ("conv3d_valid_strided", "Conv3D", dict(input=VOL, filter=FILT, strides=[1, 2, 1, 2, 1], padding="VALID")),
    ("conv3d_f64", "Conv3D", dict(input=VOL.astype(np.float64), filter=FILT.astype(np.float64), **C3)),
    ("conv3d_input_grad", "Conv3DBackpropInputV2", dict(input_sizes=np.array(VOL.shape, np.int32), filter=FILT,
                                                        out_backprop=DY3, **C3)),
    ("conv3d_filter_grad", "Conv3DBackpropFilterV2", dict(input=VOL, filter_sizes=np.array(FILT.shape, np.int32),
                                                          out_backprop=DY3, **C3)),
    ("max_pool3d", "MaxPool3D", dict(input=VOL, **P3)),
    ("avg_pool3d", "AvgPool3D", dict(input=VOL, **P3)),
    ("avg_pool3d_grad", "AvgPool3DGrad", dict(orig_input_shape=np.array(VOL.shape, np.int32),
                                              grad=VOL[:, ::2, :, ::2] + 1.0, **P3)),
    ("patches_same", "ExtractImagePatches", dict(images=IMG, ksizes=[1, 3, 2, 1], strides=[1, 2, 1, 1],
                                                 rates=[1, 1, 2, 1], padding="SAME")),
    ("dilation2d", "Dilation2D", dict(input=IMG, filter=KER, **D2)),
    ("dilation2d_f16", "Dilation2D", dict(input=IMG.astype(np.float16), filter=KER.astype(np.float16), **D2)),
    ("dilation2d_uint8", "Dilation2D", dict(input=(IMG * 100).astype(np.uint8), filter=(KER * 0 + 3).astype(np.uint8),
                                            **D2)),
    ("dilation2d_input_grad", "Dilation2DBackpropInput", dict(input=IMG, filter=KER,
                                                              out_backprop=IMG[:, ::2] + 1.0, **D2)),
    ("dilation2d_filter_grad", "Dilation2DBackpropFilter", dict(input=IMG, filter=KER,
                                                                out_backprop=IMG[:, ::2] + 1.0, **D2)),
]


@pytest.mark.parametrize("rid,op,kwargs", ROWS, ids=[r[0] for r in ROWS])
def test_vs_tf_raw_ops(rid, op, kwargs):
    tf = pytest.importorskip("tensorflow")
    from tests.ops.tf_compare import distance

    d = distance(tf, op, kwargs)
    assert d <= TF_BUDGETS[op], f"{rid}: {d} ULP from tf.raw_ops.{op} > budget {TF_BUDGETS[op]}"
