"""tf.gradients through nested TF 1.x control flow built by ref (a loop in a
cond in a loop, whose cond skips the inner loop in some iterations; conds and
loops nested the other ways), run by ref and compared with
tensorflow.compat.v1 building and running the same program (TF's stack-based
loop gradients: the inner gradient loop of an untaken branch gets dead inputs
and must not hold up the outer gradient loop)."""
import numpy as np
import pytest

import ref
from ref.grad import control_flow_state as _under_test  # noqa: F401  (the gradient loops these tests cover)

X0 = 1.5


def _inner(tf, x):
    return tf.while_loop(lambda j, y: j < 3, lambda j, y: (j + 1, y + x), [0, 0.0])[1]


def _while_cond_while(pred):
    def build(tf, v):
        return tf.while_loop(lambda i, y: i < 5,
                             lambda i, x: (i + 1, tf.cond(pred(i), lambda: _inner(tf, x), lambda: x)), [0, v])[1]
    return build


def _cond_while_cond(tf, v):
    loop = tf.while_loop(lambda i, y: i < 4,
                         lambda i, x: (i + 1, tf.cond(tf.equal(i % 2, 0), lambda: x * v, lambda: x + v)), [0, v])[1]
    return tf.cond(v > 0.0, lambda: loop, lambda: v * v)


def _while_while_cond(tf, v):
    def body(i, x):
        inner = tf.while_loop(lambda j, y: j < i,
                              lambda j, y: (j + 1, tf.cond(j > 0, lambda: y * x, lambda: y + 1.0)), [0, x])[1]
        return i + 1, inner * 0.5
    return tf.while_loop(lambda i, y: i < 3, body, [0, v])[1]


# (case, build(tf, v) -> the value differentiated with respect to v)
ROWS = [
    ("while_cond_while_untaken_first", _while_cond_while(lambda i: i > 0)),
    ("while_cond_while_untaken_last", _while_cond_while(lambda i: i < 4)),
    ("while_cond_while_untaken_odd", _while_cond_while(lambda i: (i % 2) > 0)),
    ("while_cond_while_always", _while_cond_while(lambda i: i >= 0)),
    ("cond_while_cond", _cond_while_cond),
    ("while_while_cond", _while_while_cond),
]


def _run(tf, build):
    with tf.Graph().as_default():
        v = tf.placeholder(tf.float32, [], name="v")
        y = build(tf, v) + 1.0
        (g,) = tf.gradients(y, [v])
        with tf.Session() as s:
            return s.run([y, g], {v: X0})


@pytest.mark.parametrize("case,build", ROWS, ids=[r[0] for r in ROWS])
def test_nested_control_flow_gradient_as_tf(case, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    want = _run(tf, build)
    got = _run(ref, build)
    np.testing.assert_allclose(got, want, rtol=1e-6)
