"""``EditDistance``'s checks as TF's: sparse tensors of rank < 2 (a ValueError at construction when the
shapes are constants, InvalidArgumentError when fed), groups whose inner product with the output's
strides falls outside the output (TF's InternalError), and values at in-range groups; ref against TF."""
import numpy as np
import pytest

from ref.ops import edit_distance as _under_test  # noqa: F401


def _libs():
    import ref
    libs = [ref.compat.v1]
    try:
        libs.append(pytest.importorskip("tensorflow").compat.v1)
    except pytest.skip.Exception:
        pass
    return libs


def _sparse(tf, idx, vals, shape, dtype):
    idx = np.asarray(idx, np.int64).reshape(-1, len(shape)) if len(idx) else np.zeros((0, len(shape)), np.int64)
    return tf.SparseTensor(idx, np.asarray(vals, dtype),
                           np.asarray(shape, np.int64))


H, T = "Input Hypothesis SparseTensors must have rank at least 2, but hypothesis_shape rank is: ", \
    "Input SparseTensors must have rank at least 2, but truth_shape rank is: "
RANKS = [  # (hypothesis shape, truth shape, construction message, run-time message: the kernel checks truth first)
    ([], [], H + "0", T + "0"),
    ([3], [4], H + "1", T + "1"),
    ([2, 3], [2, 2], None, None),
]


@pytest.mark.parametrize("hs,ts,message,run_message", RANKS)
def test_rank_errors_as_tf(hs, ts, message, run_message):
    for tf in _libs():
        with tf.Graph().as_default():
            if message is None:
                out = tf.edit_distance(_sparse(tf, [], [], hs, np.int64), _sparse(tf, [], [], ts, np.int64))
                with tf.Session() as sess:
                    assert sess.run(out).shape == (2,)
                continue
            with pytest.raises(ValueError, match=message):
                tf.edit_distance(_sparse(tf, [], [], hs, np.int64), _sparse(tf, [], [], ts, np.int64))
            shapes = [tf.placeholder(tf.int64, [None]) for _ in range(2)]
            parts = [(tf.placeholder(tf.int64, [None, None]), tf.placeholder(tf.int64, [None]), s) for s in shapes]
            out = tf.edit_distance(*[tf.SparseTensor(*p) for p in parts])
            feed = {parts[0][0]: np.zeros([0, len(hs)]), parts[0][1]: [], shapes[0]: hs,
                    parts[1][0]: np.zeros([0, len(ts)]), parts[1][1]: [], shapes[1]: ts}
            with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=run_message):
                sess.run(out, feed)


OUTSIDE = [  # (index rows, output shape) whose group inner product leaves the output buffer
    (np.full((3, 3), -1250999896764), [2, 2, 2]),
    ([[0, 5, 0]], [2, 2, 2]),
    ([[2, 0, 0]], [2, 2, 2]),
]


@pytest.mark.parametrize("idx,shape", OUTSIDE)
def test_group_outside_output_as_tf(idx, shape):
    for tf in _libs():
        with tf.Graph().as_default():
            out = tf.edit_distance(_sparse(tf, idx, np.zeros(len(idx)), shape, np.int64),
                                   _sparse(tf, idx, np.full(len(idx), 2), shape, np.int64), normalize=False)
            with tf.Session() as sess, pytest.raises(tf.errors.InternalError, match="which would require writing "
                                                     "to outside of the buffer for the output tensor"):
                sess.run(out)


def test_in_range_values_as_tf():
    idx = [[0, 0, 0], [0, 0, 1], [1, 1, 0]]
    got = []
    for tf in _libs():
        with tf.Graph().as_default():
            out = tf.edit_distance(_sparse(tf, idx, [1, 2, 3], [2, 2, 2], np.int64),
                                   _sparse(tf, idx[:2], [1, 3], [2, 2, 2], np.int64), normalize=False)
            with tf.Session() as sess:
                got.append(sess.run(out))
    np.testing.assert_array_equal(got[0], [[1.0, 0.0], [0.0, 1.0]])
    for g in got[1:]:
        np.testing.assert_array_equal(g, got[0])
