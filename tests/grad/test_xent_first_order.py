"""The first-order gradient of (sparse) softmax cross entropy builds the op types
TF builds (no BatchMatMulV2: the unused backprop output's zero gradient is seen
as zero), and its values match TF's."""
import numpy as np
import pytest

import ref.grad  # noqa: F401  (the package these tests cover)
import ref

_L = np.float32([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]])
_Y = np.float32([[0.0, 1.0, 0.0], [0.5, 0.0, 0.5]])

CASES = [
    ("dense", lambda tf, x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=_Y, logits=x)),
    ("dense_v1", lambda tf, x: tf.nn.softmax_cross_entropy_with_logits(labels=_Y, logits=x)),
    ("sparse", lambda tf, x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1, 2], logits=x)),
    ("losses", lambda tf, x: tf.losses.softmax_cross_entropy(_Y, x)),
]


@pytest.mark.parametrize("case,build", CASES, ids=[c[0] for c in CASES])
def test_first_order_gradient_ops_and_values(case, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default() as g:
            x = lib.constant(_L)
            loss = lib.reduce_sum(build(lib, x))
            before = len(g.get_operations())
            (grad,) = lib.gradients(loss, [x])
            types = {op.type for op in g.get_operations()[before:]}
            with lib.Session() as s:
                out.append(("BatchMatMulV2" in types, s.run(grad)))
    assert out[0][0] == out[1][0] is False
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-6)
