"""``ConfigProto.intra_op_parallelism_threads``: the threads one kernel of the
session may use (ref's large matrix products, ``ref.ops.gemm``); 0 is every
core, as in TensorFlow. The bits of a product do not depend on it."""
import numpy as np
import pytest

import ref as tf
from ref.ops import gemm
from ref.session import session as _under_test  # noqa: F401  (the module these tests cover)


@pytest.mark.parametrize("threads, want", [(0, gemm._WORKERS), (1, 1), (64, gemm._WORKERS)])
def test_kernels_see_the_sessions_thread_limit(threads, want):
    seen = []

    def probe(x):
        seen.append(gemm.workers())
        return x

    with tf.Graph().as_default():
        y = tf.py_func(probe, [tf.constant(1.0)], tf.float32)
        with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=threads)) as sess:
            sess.run(y)
            sess.make_callable(y)()
    assert seen == [want, want]
    assert gemm.workers() == gemm._WORKERS  # the limit ends with the run


def test_products_are_the_same_bits_on_one_thread():
    rng = np.random.RandomState(0)
    a = rng.standard_normal((256, 300)).astype(np.float32)
    b = rng.standard_normal((300, 200)).astype(np.float32)
    results = []
    for threads in (0, 1):
        with tf.Graph().as_default():
            p = tf.matmul(tf.constant(a), tf.placeholder_with_default(b, [300, 200]))
            with tf.Session(config=tf.ConfigProto(intra_op_parallelism_threads=threads)) as sess:
                results.append(sess.run(p))
    assert results[0].tobytes() == results[1].tobytes()
    np.testing.assert_allclose(results[0], a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
