"""``interpreter.rewrite.in_place``: a compiled plan's element-wise step writes into
an input (the first, or the second of the result's shape) when that input is
the plan's own array, read for the last time
(the step loop's bits: the same ufunc, element by element); never into a feed,
a variable's value, a fetched value, a value a view depends on, or a shape that
grows (nor while a late matrix helper thread still refers to a product's
result: products here run on one thread). Each row: does the spy ufunc get
``out=`` its first input, and are the values, and the fed arrays, the step
loop's."""
import numpy as np
import pytest

import ref
from ref.ops import gemm
from ref.session.interpreter import executor, rewrite

N, K = 256, 512


def _mm_mul(tf, x, w, big):
    return [tf.matmul(x, w) * big]


def _mm_fetched_too(tf, x, w, big):
    a = tf.matmul(x, w)
    return [a * big, a]


def _feed_mul(tf, x, w, big):
    return [big * tf.reduce_sum(tf.matmul(x, w))]  # only the feed is read for the last time


def _variable_mul(tf, x, w, big):
    return [w * tf.reduce_sum(x)]


def _view_kept(tf, x, w, big):
    a = tf.matmul(x, w)
    r = tf.reshape(a, [N * 2, K // 2])
    y = r * tf.reshape(big, [N * 2, K // 2])
    return [y, a + 1.0]


def _bias_add(tf, x, w, big):
    return [tf.nn.bias_add(tf.matmul(x, w), big[0])]


def _second_input(tf, x, w, big):
    return [tf.reduce_sum(x, 1, keepdims=True) * tf.matmul(x, w)]


def _scalar_scale(tf, x, w, big):
    return [tf.matmul(x, w) * tf.reduce_sum(x)]


def _grows(tf, x, w, big):
    return [tf.reduce_sum(tf.matmul(x, w), 0, keepdims=True) * big]


ROWS = [  # (name, program, op type spied, whether the first input is written in place)
    ("matmul output", _mm_mul, "Mul", True),
    ("fetched value", _mm_fetched_too, "Mul", False),
    ("feed", _feed_mul, "Mul", False),
    ("variable", _variable_mul, "Mul", False),
    ("view's base", _view_kept, "Mul", False),
    ("bias add", _bias_add, "BiasAdd", True),
    ("broadcast grows", _grows, "Mul", False),
    ("second input", _second_input, "Mul", True),
    ("scalar scale", _scalar_scale, "Mul", True),
]


def _run(program, op_type, compile_after):
    rng = np.random.RandomState(4)
    feeds_np = {"x": rng.standard_normal((N, K)).astype(np.float32),
                "big": rng.standard_normal((N, K)).astype(np.float32)}
    copies = {k: v.copy() for k, v in feeds_np.items()}
    written = []
    ufunc, bias = rewrite.IN_PLACE[op_type]

    def spy(a, b, out=None):
        written.append(out is a or out is b)
        return ufunc(a, b, out=out)

    old, old_entry = executor.COMPILE_AFTER, rewrite.IN_PLACE[op_type]
    executor.COMPILE_AFTER = compile_after
    rewrite.IN_PLACE[op_type] = (spy, bias)
    try:
        g = ref.Graph()
        with g.as_default():
            x = ref.placeholder(ref.float32, [None, K], name="x")
            big = ref.placeholder(ref.float32, [None, K], name="big")
            w = ref.Variable(rng.standard_normal((K, K)).astype(np.float32) * 0.1, name="w")
            fetches = program(ref, x, w, big)
            init = ref.global_variables_initializer()
        with ref.Session(graph=g) as sess:
            sess.run(init)
            feeds = {x: feeds_np["x"], big: feeds_np["big"]}
            with gemm.limit_threads(1):  # no late helper thread still holding a product's result
                values = [sess.run(fetches, feeds) for _ in range(3)]
            w_after = sess.run(w)
    finally:
        executor.COMPILE_AFTER = old
        rewrite.IN_PLACE[op_type] = old_entry
    for k in feeds_np:
        assert feeds_np[k].tobytes() == copies[k].tobytes(), f"feed {k} was written"
    return values, w_after, written


@pytest.mark.parametrize("name,program,op_type,expect", ROWS, ids=[r[0] for r in ROWS])
def test_in_place_only_into_the_plans_own_arrays(name, program, op_type, expect):
    got, w_got, written = _run(program, op_type, 1)
    want, w_want, _ = _run(program, op_type, 10 ** 9)
    assert any(written) == expect
    assert w_got.tobytes() == w_want.tobytes()
    for g_run, w_run in zip(got, want):
        for a, b in zip(g_run, w_run):
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
