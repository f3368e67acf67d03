"""TF's forward-backward helpers of ctc_ops (``_sum_states``, ``_state_to_olabel``,
``_state_to_olabel_unique``, ``_scan``) give TF's values: each row builds the same program with ref's
and with TF's module (tensorflow.python.ops.ctc_ops, graph mode) and runs it."""
import numpy as np
import pytest

import ref
from ref.graph_ops import ctc_ops as _under_test  # noqa: F401

_RNG = np.random.default_rng(3)
_LABELS = np.array([[3, 4, 3, 4], [1, 1, 1, 0], [2, 0, 0, 0]], np.int32)
_STATES = _RNG.uniform(0.05, 2.0, size=(3, 3, 10)).astype(np.float32)  # frames, batch, 2 * (4 + 1)
_ONE_PATH = np.zeros((3, 2, 8), np.float32)  # TF's single-path case: zeros are log(0) = -inf
_ONE_PATH[0, :, 1], _ONE_PATH[1, 0, 2], _ONE_PATH[2, 0, 3] = 1.0, 1.0, 1.0


def _tf():
    pytest.importorskip("tensorflow")
    import tensorflow.compat.v1 as tf
    from tensorflow.python.ops import ctc_ops
    return tf, ctc_ops


def _run(tf, ctc, build):
    g = tf.Graph()
    with g.as_default():
        out = build(tf, ctc)
        with tf.Session(graph=g) as sess:
            return sess.run(out)


def _ref():
    return ref, _under_test


CASES = {
    "sum_states": lambda tf, c: tf.exp(c._sum_states([[0, 1, 0, 1], [0, 0, 0, 1], [0, 1, 2, 3]],
                                                     tf.log(_STATES[:, :, :4]))),
    "state_to_olabel": lambda tf, c: tf.exp(c._state_to_olabel(tf.constant(_LABELS), 8, tf.log(_STATES))),
    "state_to_olabel_unique": lambda tf, c: tf.exp(c._state_to_olabel_unique(
        tf.constant(_LABELS), 8, tf.log(_STATES), c.ctc_unique_labels(tf.constant(_LABELS)))),
    "state_to_olabel_single_path": lambda tf, c: tf.exp(c._state_to_olabel_unique(
        tf.constant([[3, 4, 3], [1, 0, 0]]), 8, tf.log(_ONE_PATH), c.ctc_unique_labels([[3, 4, 3], [1, 0, 0]]))),
    "scan": lambda tf, c: c._scan(lambda a, e: a + e, tf.constant([1.0, 2.0, 3.0]), 23.0),
    "scan_inclusive": lambda tf, c: c._scan(lambda a, e: a + e, tf.constant([1.0, 2.0, 3.0]), 23.0,
                                            inclusive=True),
    "scan_reverse": lambda tf, c: c._scan(lambda a, e: a * e + 1.0, tf.constant([1.0, 2.0, 3.0]), 2.0,
                                          reverse=True),
    "scan_reverse_inclusive": lambda tf, c: c._scan(lambda a, e: a * e + 1.0, tf.constant([1.0, 2.0, 3.0]), 2.0,
                                                    reverse=True, inclusive=True),
    "scan_final_only": lambda tf, c: c._scan(lambda a, e: a * e + 1.0, tf.constant([1.0, 2.0, 3.0]), 2.0,
                                             final_only=True),
    "scan_final_only_reverse": lambda tf, c: c._scan(lambda a, e: a * e + 1.0, tf.constant([1.0, 2.0, 3.0]),
                                                     2.0, reverse=True, final_only=True),
    "scan_vector_accumulator": lambda tf, c: c._scan(lambda a, e: a + e, tf.constant([[0.0, 1.0], [2.0, 3.0]]),
                                                     tf.constant([23.0, 24.0])),
    "scan_two_accumulators": lambda tf, c: c._scan(lambda a, e: (a[0] + e, a[1] * e), tf.constant([1.0, 2.0, 3.0]),
                                                   (23.0, tf.constant([1.0, 2.0]))),
    "scan_two_elems": lambda tf, c: c._scan(lambda a, e: a + e[0] * e[1],
                                            (tf.constant([1.0, 2.0, 3.0]),
                                             tf.constant([[1.0, 2.0], [2.0, 3.0], [3.0, 4.0]])),
                                            initial=tf.constant([0.0, 0.0]), inclusive=True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ctc_helper_as_tf(name):
    tf, tf_ctc = _tf()
    want = _run(tf, tf_ctc, CASES[name])
    got = _run(ref, _under_test, CASES[name])
    got, want = (list(v) if isinstance(v, (tuple, list)) else [v] for v in (got, want))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, np.float64), np.asarray(w, np.float64), rtol=1e-5, atol=1e-6)
