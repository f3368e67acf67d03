"""TensorFlow's random numbers (ref/ops/philox.py): the Philox-4x32-10 block
function against the Random123 known-answer vectors, the samplers against
their bit formulas, and every Philox op against TensorFlow bit for bit --
as raw ops, run after run in one Session, in a new Session, and through the
TF1 functions and initializers with graph-level seeds."""
import itertools
import os

import numpy as np
import pytest

import ref
from ref.types import dtypes
from ref.ops import philox as P

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# Random123's kat_vectors for philox4x32_10: (counter words, key words, result words).
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("counter, key, expected", KAT)
def test_philox_block_matches_random123_known_answers(counter, key, expected):
    c = sum(w << (32 * i) for i, w in enumerate(counter))
    k = key[0] | key[1] << 32
    np.testing.assert_array_equal(P.words(k, c, 0, 1)[0], np.array(expected, np.uint32))


def test_counter_carries_across_64_bits():
    """Block g uses counter + g as a 128-bit number."""
    c = (5 << 64) | ((1 << 64) - 2)
    got = P.words(9, c, 0, 3)
    for g in range(3):
        np.testing.assert_array_equal(got[g], P.words(9, c + g, 0, 1)[0])


@pytest.mark.parametrize("word, expected", [
    (0, 0.0), (0x7FFFFF, 1 - 2.0 ** -23), (0xFF800000, 0.0), (0x400000, 0.5), (0xFFFFFFFF, 1 - 2.0 ** -23)])
def test_uint32_to_float_uses_the_23_low_bits(word, expected):
    assert P.uint32_to_float(np.array([word], np.uint32))[0] == np.float32(expected)


def test_uint64_to_double_uses_52_bits():
    x0, x1 = np.array([0xFFF80000, 0], np.uint32), np.array([1, 0], np.uint32)
    np.testing.assert_array_equal(P.uint64_to_double(x0, x1), [0.5 + 2.0 ** -52, 0.0])


def test_normal_is_box_muller_of_uniform_pairs():
    """float64 N(0, 1) pairs: r sin v, r cos v with u1 = U(w0, w1), v = 2 pi U(w2, w3)."""
    key, counter = 77, 3 << 64
    w = P.words(key, counter, 0, 4).reshape(-1, 4)
    u1 = np.maximum(P.uint64_to_double(w[:, 0], w[:, 1]), 1e-7)
    v = 2 * np.pi * P.uint64_to_double(w[:, 2], w[:, 3])
    r = np.sqrt(-2 * np.log(u1))
    expected = np.stack([r * np.sin(v), r * np.cos(v)], 1).reshape(-1)
    np.testing.assert_allclose(P.normal(key, counter, 8, dtypes.float64), expected, rtol=1e-15, atol=1e-15)


def test_truncated_normal_stays_inside_two_standard_deviations():
    x = P.truncated_normal(5, 6 << 64, 20000, dtypes.float32)
    assert np.abs(x).max() < 2 and abs(x.mean()) < 0.03 and abs(x.std() - 0.8796) < 0.01


def test_reservation_moves_the_counter_by_256_per_output():
    gen = P.PhiloxRandom(3, 4)
    assert gen.key == 3 and gen.counter == 4 << 64
    assert gen.reserve_outputs(10) == 4 << 64 and gen.counter == (4 << 64) + 2560


# -- against TensorFlow -----------------------------------------------------------

_SEED2 = itertools.count(1000)
FLOAT_OPS = ["RandomUniform", "RandomStandardNormal", "TruncatedNormal"]
FLOATS = ["float32", "float64", "float16", "bfloat16"]


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


@pytest.mark.parametrize("n", [1, 5, 4099])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", FLOAT_OPS)
def test_float_ops_match_tensorflow_bit_for_bit(tf, op, dtype, n):
    seed2 = next(_SEED2)  # a fresh seed: TF's eager kernel cache keeps a generator per attrs
    expected = getattr(tf.raw_ops, op)(shape=[n], dtype=getattr(tf, dtype), seed=123, seed2=seed2).numpy()
    got = getattr(ref.raw_ops, op)(shape=np.array([n], np.int32), dtype=getattr(ref, dtype), seed=123, seed2=seed2)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dtype, lo, hi", [("int32", -5, 1000003), ("int64", -(2 ** 40), 2 ** 41), ("int32", 0, 1)])
def test_uniform_int_matches_tensorflow(tf, dtype, lo, hi):
    seed2 = next(_SEED2)
    t = getattr(tf, dtype)
    expected = tf.raw_ops.RandomUniformInt(shape=[1001], minval=tf.constant(lo, t), maxval=tf.constant(hi, t),
                                           seed=9, seed2=seed2).numpy()
    d = np.dtype(dtype)
    got = ref.raw_ops.RandomUniformInt(shape=np.array([1001], np.int32), minval=d.type(lo), maxval=d.type(hi),
                                       seed=9, seed2=seed2)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("shape", [[2], [7], [1000], [50, 3]])
def test_shuffle_matches_tensorflow(tf, shape):
    seed2 = next(_SEED2)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    expected = tf.raw_ops.RandomShuffle(value=x, seed=11, seed2=seed2).numpy()
    np.testing.assert_array_equal(ref.raw_ops.RandomShuffle(value=x, seed=11, seed2=seed2), expected)


def _program(tf):
    """Graph-seeded random functions and initializers, run twice in each of two Sessions."""
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        outs = [tf.random_normal([3, 4]), tf.random_uniform([5], -1.0, 1.0, dtype=tf.float64),
                tf.truncated_normal([2, 3], stddev=0.5), tf.random_shuffle(tf.range(10)),
                tf.random_uniform([4], 0, 100, dtype=tf.int32), tf.random_normal([2], seed=3)]
        w = tf.get_variable("w", [4, 3], initializer=tf.glorot_uniform_initializer())
        u = tf.get_variable("u", [5], initializer=tf.truncated_normal_initializer(stddev=0.1))
        v = tf.get_variable("v", [6], initializer=tf.random_normal_initializer(seed=5), dtype=tf.float64)
        init = tf.global_variables_initializer()
        results = []
        for _ in range(2):
            with tf.Session() as s:
                s.run(init)
                results.append(s.run(outs + [w, u, v]))
                results.append(s.run(outs))
        return results


def test_graph_seeded_programs_give_tensorflows_values(tf):
    expected = _program(tf.compat.v1)  # graph mode inside Graph().as_default(); eager stays on
    got = _program(ref)
    assert len(got) == len(expected) == 4
    for g_run, e_run in zip(got, expected):
        for g, e in zip(g_run, e_run):
            np.testing.assert_array_equal(g, e)
    assert not np.array_equal(got[0][0], got[1][0])  # a second run draws new numbers


def test_op_seeds_count_up_per_graph():
    """Graph seed set, op seed not: op seeds 0, 1, 2, ... per graph; seeds are taken modulo 2**31 - 1."""
    with ref.Graph().as_default() as g:
        ref.set_random_seed(2 ** 31 + 1)
        ref.random_normal([2])
        ref.random_uniform([2])
        ref.random_normal([2], seed=2 ** 31 + 4)
        ref.truncated_normal([2])
        ops = [op for op in g.get_operations() if op.type in ("RandomStandardNormal", "RandomUniform",
                                                                "TruncatedNormal")]
        assert [(op.get_attr("seed"), op.get_attr("seed2")) for op in ops] == [(2, 0), (2, 1), (2, 5), (2, 2)]


def _shuffle_queue_program(tf):
    """A seeded RandomShuffleQueue and one seeded by the graph: dequeue, dequeue_many, dequeue_up_to."""
    with tf.Graph().as_default():
        tf.set_random_seed(5)
        q = tf.RandomShuffleQueue(capacity=50, min_after_dequeue=3, dtypes=[tf.int32, tf.float32],
                                  shapes=[[], [2]], seed=11)
        q2 = tf.RandomShuffleQueue(capacity=50, min_after_dequeue=0, dtypes=[tf.int32], shapes=[[]])
        enqueue = [q.enqueue_many([tf.range(20), tf.reshape(tf.range(40.0), [20, 2])]),
                   q2.enqueue_many([tf.range(30)])]
        one, many, rest = q.dequeue(), q.dequeue_many(5), q.dequeue_up_to(20)
        other = q2.dequeue_many(30)
        close = q.close()
        with tf.Session() as s:
            s.run(enqueue)
            out = [s.run(one)[0].tolist() for _ in range(4)]
            out.append(s.run(many)[0].tolist())
            s.run(close)
            out.append(s.run(rest)[0].tolist())
            out.append(s.run(other).tolist())
        return out


def test_random_shuffle_queue_dequeues_in_tensorflows_order(tf):
    expected = _shuffle_queue_program(tf.compat.v1)
    got = _shuffle_queue_program(ref)
    assert got == expected
    assert sorted(got[0:4] + got[4] + got[5]) == list(range(20))  # every element exactly once


# -- SimplePhilox.uniform: TF's ExactUniformInt over the word stream -------------------------

def _stream(words):
    from ref.ops import philox as _p
    s = _p.SimplePhilox(key=0, counter=0)
    s._words, s._next = list(words), 0
    return s


# (n, words drawn in order, expected value, words consumed)
EXACT_UNIFORM_ROWS = [
    (8, [0xFFFFFFFF], 7, 1),                         # a power of two masks the low bits
    (1, [12345], 0, 1),
    (0, [99, 5], 0, 1),                              # n == 0 still consumes one word
    (3, [0, 10], 10 % 3, 2),                         # (2^32-1) % 3 + 1 == 1: the word 0 is rejected
    (6, [3, 4, 7], 4, 2),                            # rem = (2^32-1) % 6 + 1 == 4: 3 rejected, 4 taken
    (10, [5, 6, 123456789], 6, 2),                   # rem = 6: 5 rejected
    (1000, [295, 296], 296 % 1000, 2),               # rem = 296
]


@pytest.mark.parametrize("n, words, want, used", EXACT_UNIFORM_ROWS)
def test_simple_philox_exact_uniform(n, words, want, used):
    assert (0xFFFFFFFF % n + 1 if n and n & (n - 1) else None) in (None, 1, 4, 6, 296)
    s = _stream(words)
    assert s.uniform(n) == want
    assert s._next == used


def test_one_simple_philox_for_every_kernel():
    from ref.ops import candidate_sampling, image_color, philox as _p
    assert candidate_sampling.SimplePhilox is _p.SimplePhilox
    assert not hasattr(image_color, "_Words")
