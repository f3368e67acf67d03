"""TF's construction-time ValueErrors and run-time InvalidArgumentErrors of ``ReverseSequence`` and
``Bitcast`` (their shape functions: merged batch dimension, dims inside the rank, bitcast size ratio
named by DataType enums), a table run in ref and TF."""
import numpy as np
import pytest

from ref.ops import array as _under_test  # noqa: F401

STATIC = [  # (builder(tf), message): a ValueError when the op is built
    (lambda tf: tf.reverse_sequence([[1, 2], [3, 4]], [2, 2, 2], seq_axis=1), "Dimensions must be equal, but are 2 and 3"),
    (lambda tf: tf.reverse_sequence([[1, 2], [3, 4]], [2], seq_axis=1), "Dimensions must be equal, but are 2 and 1"),
    (lambda tf: tf.reverse_sequence([[1, 2], [3, 4]], [[2, 2]], seq_axis=1), "Shape must be rank 1 but is rank 2"),
    (lambda tf: tf.reverse_sequence([[1, 2], [3, 4]], [2, 2], seq_axis=2), "seq_dim must be < input rank: 2 vs. 2"),
    (lambda tf: tf.reverse_sequence([[1, 2], [3, 4]], [2, 2], seq_axis=1, batch_axis=3),
     "batch_dim must be < input rank: 3 vs. 2"),
    (lambda tf: tf.bitcast(tf.constant([[1, 2]], tf.int8), tf.int32), "Cannot bitcast from 6 to 3 due to shape. 2 does not match 4"),
    (lambda tf: tf.bitcast(tf.constant([1], tf.int32), tf.float64), "Cannot bitcast from 3 to 2 due to shape. 1 does not match 2"),
    (lambda tf: tf.bitcast(tf.constant([1, 2, 3], tf.uint8), tf.uint16), "Cannot bitcast from 4 to 17 due to shape. 3 does not match 2"),
    (lambda tf: tf.bitcast(tf.constant(1, tf.int8), tf.int32), "Shape must be at least rank 1 but is rank 0"),
]


def _libs():
    import ref
    libs = [ref.compat.v1]
    try:
        libs.append(pytest.importorskip("tensorflow").compat.v1)
    except pytest.skip.Exception:
        pass
    return libs


@pytest.mark.parametrize("build,message", STATIC)
def test_construction_errors_as_tf(build, message):
    for tf in _libs():
        with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
            build(tf)


RUN = [  # (x, lengths, seq_axis, batch_axis, message): fed shapes unknown, TF's kernel checks
    ([[1, 2], [3, 4]], [2, 2], 0, 0, "batch_dim == seq_dim == 0"),
    ([[1, 2], [3, 4]], [2, 2, 2], 1, 0, r"Length of seq_lengths != input.dims\(0\), \(3 vs. 2\)"),
]


@pytest.mark.parametrize("x,lengths,seq_axis,batch_axis,message", RUN)
def test_reverse_sequence_run_time_errors_as_tf(x, lengths, seq_axis, batch_axis, message):
    for tf in _libs():
        with tf.Graph().as_default():
            xp, lp = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
            out = tf.reverse_sequence(xp, lp, seq_axis=seq_axis, batch_axis=batch_axis)
            with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(out, {xp: np.asarray(x), lp: lengths})


def test_reverse_sequence_unknown_batch_takes_lengths():
    """A batch dimension unknown in the input is the length of seq_lengths (TF's Merge)."""
    for tf in _libs():
        with tf.Graph().as_default():
            out = tf.reverse_sequence(tf.placeholder(tf.float32, [None, 5]), tf.placeholder(tf.int64, [7]),
                                      seq_axis=1)
            assert out.shape.as_list() == [7, 5]
