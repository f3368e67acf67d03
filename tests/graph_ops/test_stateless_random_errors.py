"""Errors of the stateless random builders and kernels: the same kind and
wording as TensorFlow's (each row also runs under TF 2.21's tf.compat.v1)."""
import contextlib

import numpy as np
import pytest

from ref.graph_ops import stateless_random_ops as _under_test  # noqa: F401
import ref
from _graphdef import tf1_behaviour, tf_v1


def _range_not_scalar(tf):
    return tf.random.stateless_uniform([2, 3], [1, 2], minval=tf.zeros([2, 3], tf.int32), maxval=100,
                                       dtype=tf.int32)


CASES = [  # (id, build, error kind name at build (B) or run (R), message fragment)
    ("minval_not_scalar", _range_not_scalar, "ValueError", "B", "minval must be a scalar; got a tensor of shape"),
    ("one_int_bound_none", lambda tf: tf.random.stateless_uniform([2], [1, 2], minval=None, maxval=3,
                                                                  dtype=tf.int32),
     "ValueError", "B", "argument `minval` and `maxval` must be both None or not None"),
    ("unsigned_with_range", lambda tf: tf.random.stateless_uniform([2], [1, 2], minval=0, maxval=3,
                                                                   dtype=tf.uint32),
     "ValueError", "B", "Please don't use unsigned integers in this case"),
    ("empty_int_range", lambda tf: tf.random.stateless_uniform([2], [1, 2], minval=5, maxval=5, dtype=tf.int64),
     "InvalidArgumentError", "R", "Need minval < maxval, got 5 >= 5"),
    ("gamma_shape_not_ending_in_alpha", lambda tf: tf.random.stateless_gamma([3, 2], [1, 2], [1.0, 2.0, 3.0]),
     "InvalidArgumentError", "R", "Shape passed in must end with broadcasted shape."),
    ("poisson_shape_not_ending_in_lam", lambda tf: tf.random.stateless_poisson([3, 2], [1, 2], [1.0, 2.0, 3.0]),
     "InvalidArgumentError", "R", "Shape passed in must end with broadcasted shape."),
    ("seed_of_three", lambda tf: tf.random.stateless_poisson([3], tf.placeholder_with_default([1, 2, 3], [None]),
                                                             [1.0, 2.0, 3.0]),
     "InvalidArgumentError", "R", "seed must have shape [2], not [3]"),
]


def _raised(lib, build):
    ctx = tf1_behaviour() if lib is not ref else contextlib.nullcontext()
    with ctx, lib.Graph().as_default():
        try:
            t = build(lib)
        except Exception as e:  # noqa: BLE001 -- the row names the kind
            return "B", type(e).__name__, str(e)
        with lib.Session() as sess:
            try:
                sess.run(t)
            except Exception as e:  # noqa: BLE001
                return "R", type(e).__name__, str(e)
    return None, None, None


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_error_is_tensorflows(case):
    _, build, kind, when, fragment = case
    got = _raised(ref, build)
    assert got[:2] == (when, kind) and fragment in got[2], got
    want = _raised(tf_v1(), build)
    assert want[:2] == (when, kind) and fragment in want[2], want


def test_numpy_uint64_seed_converts_as_int64():
    """TF's conversion for a type attr with a default: the value's own dtype
    where allowed ([1, 2] -> int32), else the default (uint64 array -> int64)."""
    with ref.Graph().as_default():
        ref.random.stateless_uniform([2], [1, 2])
        b = ref.random.stateless_uniform([2], np.array([2**63 + 5, 7], np.uint64))
        kc = [op for op in ref.get_default_graph().get_operations() if op.type == "StatelessRandomGetKeyCounter"]
        assert [op.get_attr("Tseed") for op in kc] == [ref.int32, ref.int64]
        with ref.Session() as sess:
            got = sess.run(b)
        want = ref.random.stateless_uniform([2], ref.constant([-(2**63) + 5, 7], ref.int64))
        with ref.Session() as sess:
            np.testing.assert_array_equal(got, sess.run(want))
