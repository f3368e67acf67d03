"""A compiled plan's frame and CPython's frame stack (codegen._frame_padding): a
plan between PAD_FROM_SLOTS and a chunk's size is padded past a chunk, so its
kernels' frames never each map a chunk of their own; the values and the op named
in an error are unchanged."""
import os
import resource
import sys

import numpy as np
import pytest

import ref as tf
from ref.session.interpreter import codegen as _under_test
from ref.types import errors

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "bench"))
import models  # noqa: E402  (bench/models.py: the LSTM LM's program text)


def _compiled(sess):
    return [p.compiled for p in sess._plans.values() if getattr(p, "compiled", None) is not None]


@pytest.mark.parametrize("steps", [3, 10, 15, 20, 25])
def test_plan_frames_are_small_or_larger_than_a_chunk(steps):
    with tf.Graph().as_default():
        train, feeds = models.lstm(tf, np.random.RandomState(0), vocab=50, hidden=8, steps=steps, batch=4)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train, feeds)
            runs = _compiled(sess)
    assert runs
    for run in runs:
        slots = run.__code__.co_nlocals + run.__code__.co_stacksize
        assert slots < _under_test.PAD_FROM_SLOTS or slots > _under_test.FRAME_CHUNK_SLOTS, slots


@pytest.mark.skipif(sys.version_info < (3, 11), reason="CPython 3.11's chunked frame stack")
def test_a_plan_that_filled_a_chunk_takes_no_page_faults():
    # the 20-step LM's plan frame (1,856 slots) filled a 16 KiB chunk: 1,041 faults a run before
    with tf.Graph().as_default():
        train, feeds = models.lstm(tf, np.random.RandomState(0), vocab=50, hidden=8, steps=20, batch=4)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train, feeds)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            for _ in range(10):
                sess.run(train, feeds)
            faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 10
    assert faults < 100, faults


def test_padded_plan_names_the_failing_op():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = x
        for _ in range(300):
            y = tf.identity(y * 1.0)
        bad = tf.reshape(y, [7], name="bad_reshape")
        out = tf.identity(bad * 2.0)
        with tf.Session() as sess:
            for _ in range(5):  # compiled after a few runs
                got = sess.run(out, {x: np.ones(7, np.float32)})
            np.testing.assert_array_equal(got, np.full(7, 2.0, np.float32))
            runs = _compiled(sess)
            with pytest.raises(errors.InvalidArgumentError, match="bad_reshape"):
                sess.run(out, {x: np.ones(5, np.float32)})
    assert runs and all(r.__code__.co_nlocals + r.__code__.co_stacksize > _under_test.FRAME_CHUNK_SLOTS
                        for r in runs)
