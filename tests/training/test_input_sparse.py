"""SparseTensors through the batching functions (ref/training/input.py): the
deterministic pipelines give the same SparseTensorValues, in the same order,
ending with the same OutOfRangeError, as tensorflow.compat.v1; the static
shapes of the batched SparseTensor are TF's (input_test.py's checks)."""
import numpy as np
import pytest

from tests.training.test_input import _drain
from ref.training import input as _under_test  # noqa: F401  (the module these tests cover)


def _counter_sparse(tf, n):
    """Example i (of n): a rank-1 SparseTensor with entries [i, -i] at [0, i % 3 + 1], dense_shape [i % 3 + 2]."""
    i = tf.train.range_input_producer(n, num_epochs=1, shuffle=False).dequeue()
    i64 = tf.cast(i, tf.int64)
    return i, tf.SparseTensor(indices=tf.reshape(tf.stack([i64 * 0, i64 % 3 + 1]), [2, 1]),
                              values=tf.cast(tf.stack([i, -i]), tf.float32), dense_shape=tf.reshape(i64 % 3 + 2, [1]))


def _batch(tf):
    i, sp = _counter_sparse(tf, 5)
    return tf.train.batch([i, sp, "s"], batch_size=2, allow_smaller_final_batch=True)


def _batch_dict(tf):
    i, sp = _counter_sparse(tf, 4)
    return tf.train.batch({"i": i, "sp": sp}, batch_size=2)


def _batch_single(tf):
    _, sp = _counter_sparse(tf, 4)
    return tf.train.batch([sp], batch_size=3, allow_smaller_final_batch=True)


def _dynamic_pad(tf):
    i, sp = _counter_sparse(tf, 5)
    return tf.train.batch([tf.range(i), sp], batch_size=2, dynamic_pad=True, allow_smaller_final_batch=True)


def _enqueue_many(tf):
    sp = tf.SparseTensor(indices=[[0, 1], [0, 2], [1, 0], [2, 3], [3, 1]], values=[5, 4, 7, 2, 9], dense_shape=[4, 5])
    sp = tf.train.limit_epochs(tf.sparse.to_dense(sp), 1)
    return tf.train.batch([tf.sparse.from_dense(sp)], batch_size=3, enqueue_many=True,
                          allow_smaller_final_batch=True)


def _maybe_batch_vector(tf):
    dense = tf.train.limit_epochs(tf.constant([[0, 1, 0], [2, 0, 3], [0, 0, 4], [5, 0, 0]]), 1)
    keep = tf.constant([True, False, True, True])
    return tf.train.maybe_batch([tf.sparse.from_dense(dense)], keep, batch_size=2, enqueue_many=True,
                                allow_smaller_final_batch=True)


def _batch_join(tf):
    i, sp = _counter_sparse(tf, 4)
    return tf.train.batch_join([[i, sp]], batch_size=2, allow_smaller_final_batch=True)


# (TF itself fails to build maybe_batch of a SparseTensor with a scalar
# keep_input decided at run time, so that case has no row here.)
PIPELINES = [_batch, _batch_dict, _batch_single, _dynamic_pad, _enqueue_many, _maybe_batch_vector, _batch_join]


@pytest.mark.parametrize("build", PIPELINES, ids=[p.__name__.strip("_") for p in PIPELINES])
def test_sparse_pipeline_matches_tensorflow(build, rtf, tf1):
    assert _drain(rtf, build) == _drain(tf1, build)


def test_shuffle_batch_keeps_each_example_whole(rtf):
    def build(tf):
        i, sp = _counter_sparse(tf, 6)
        return tf.train.shuffle_batch([i, sp], batch_size=3, capacity=10, min_after_dequeue=2, seed=3)

    batches = _drain(rtf, build)
    assert batches[-1] == "OutOfRange" and len(batches) == 3
    seen = []
    for ids, (indices, values, dense_shape) in batches[:-1]:
        assert dense_shape == [3, max(k % 3 + 2 for k in ids)]
        for row, k in enumerate(ids):  # example k's entries sit in row `row`
            mine = [(ix[1], v) for ix, v in zip(indices, values) if ix[0] == row]
            assert mine == [(0, k), (k % 3 + 1, -k)]
            seen.append(k)
    assert sorted(seen) == list(range(6))


# input_test.py's static-shape checks: dense_shape of the batch has rank+1
# entries (per example) or rank (enqueue_many), unknown for unknown rank.
SHAPE_CASES = [
    ("batch", dict(), [2]),
    ("batch", dict(enqueue_many=True), [1]),
    ("maybe_batch", dict(keep_input=True), [2]),
    ("maybe_batch", dict(keep_input=True, enqueue_many=True), [1]),
    ("maybe_batch", dict(keep_input=[True, False], enqueue_many=True), [1]),
    ("shuffle_batch", dict(capacity=4, min_after_dequeue=1), [2]),
]


@pytest.mark.parametrize("fn,kwargs,expected", SHAPE_CASES)
@pytest.mark.parametrize("known_rank", [True, False])
def test_batched_sparse_static_shape_matches_tensorflow(fn, kwargs, expected, known_rank, rtf, tf1):
    got = []
    for tf in (tf1, rtf):
        with tf.Graph().as_default():
            if known_rank:
                sp = tf.SparseTensor(indices=[[0]], values=[1.0], dense_shape=[1])
            else:
                sp = tf.SparseTensor(indices=tf.placeholder(tf.int64), values=tf.placeholder(tf.float32),
                                     dense_shape=tf.placeholder(tf.int64))
            out = getattr(tf.train, fn)([sp], batch_size=2, **kwargs)
            assert isinstance(out, tf.SparseTensor)
            got.append((out.dense_shape.shape.as_list() if out.dense_shape.shape.ndims is not None else None,
                        out.indices.shape.as_list() if out.indices.shape.ndims is not None else None))
    assert got[0] == got[1]
    if known_rank:
        assert got[1][0] == expected
    else:
        assert got[1][0] in ([None], None)


def test_batch_of_sparse_values_rejects_mismatched_join_lists(rtf):
    with rtf.Graph().as_default():
        sp = rtf.SparseTensor(indices=[[0]], values=[1.0], dense_shape=[1])
        with pytest.raises(ValueError):
            rtf.train.batch_join([[sp], [rtf.constant([1.0])]], batch_size=2)
