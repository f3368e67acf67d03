"""The inputs the fifth program set shares (one RandomState(61) stream, drawn in
this order, so every program sees the same arrays)."""
import numpy as np

R = np.random.RandomState(61)
XS = R.randn(16, 3).astype(np.float32)
YS = np.where(XS[:, 0] - 0.5 * XS[:, 1] > 0, 1.0, -1.0).astype(np.float32)
W8 = (R.rand(16) + 0.5).astype(np.float32)
SEQ = R.randn(3, 7, 5).astype(np.float32)
TAGS = R.randint(0, 4, (3, 7)).astype(np.int32)
SLEN = np.array([7, 5, 3], np.int32)
CTCX = R.randn(9, 2, 6).astype(np.float32)
IMG = R.rand(2, 12, 12, 3).astype(np.float32)
