"""while_loop(back_prop=False): no gradient through the loop, as TF."""
import numpy as np
import pytest

import ref.graph_ops  # noqa: F401  (the package these tests cover)
import ref

CASES = [
    ("square_10_times", lambda tf, x: tf.while_loop(lambda i, v: i < 10, lambda i, v: (i + 1, v * v),
                                                    [tf.constant(0), x], back_prop=False)[1]),
    ("plus_direct", lambda tf, x: x + tf.while_loop(lambda i, v: i < 10, lambda i, v: (i + 1, v * 2.0),
                                                    [tf.constant(0), x], back_prop=False)[1]),
    ("single_var", lambda tf, x: 3.0 * x + tf.while_loop(lambda v: v < 100.0, lambda v: v * 2.0, [x],
                                                         back_prop=False)),
]


@pytest.mark.parametrize("case,build", CASES, ids=[c[0] for c in CASES])
def test_back_prop_false_blocks_gradient(case, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            x = lib.constant(1.5)
            y = build(lib, x)
            g = lib.gradients(y, x)[0]
            with lib.Session() as s:
                out.append(None if g is None else s.run(g))
    assert out[0] == out[1] or (out[0] is None and out[1] in (None, 0.0))
