"""``tf.random.Generator`` in a graph (ref/graph_ops/stateful_random_ops.py, the
``RngReadAndSkip``/``RngSkip`` kernels) and ``tf.bitcast`` against TensorFlow: each
draw's values over two steps and the state variable after them, one draw per row
(several draws in one step run in an unspecified order in TF), the seed to state
conversion, and Bitcast's values and static shapes."""
import numpy as np
import pytest

from ref.graph_ops import stateful_random_ops as _under_test
import ref

BIG = 12345678901234567890123


def _draws(lib):
    return {
        "uniform": lambda g: g.uniform([5]),
        "uniform-range-f64": lambda g: g.uniform([2, 3], minval=-2.0, maxval=3.0, dtype=lib.float64),
        "uniform-int": lambda g: g.uniform([4], minval=3, maxval=10, dtype=lib.int32),
        "uniform-int64-full": lambda g: g.uniform([3], minval=None, maxval=None, dtype=lib.int64),
        "uniform_full_int-uint32": lambda g: g.uniform_full_int([3], dtype=lib.uint32),
        "normal": lambda g: g.normal([2, 3], mean=1.0, stddev=2.0, dtype=lib.float64),
        "truncated_normal": lambda g: g.truncated_normal([7]),
        "normal-half": lambda g: g.normal([4], dtype=lib.float16),
    }


# (id, seed or state, draw name)
ROWS = [(f"{d}-seed{seed if seed != BIG else 'big'}", seed, d)
        for seed in (1, BIG) for d in _draws(ref)] + [
    ("from_state-uniform", [5, 2 ** 63 + 7, 9], "uniform"),
    ("from_state-normal", [0, 0, 12345], "normal"),
]


def _run(lib, mod, seed, draw):
    with lib.Graph().as_default():
        g = mod.Generator.from_state(seed, "philox") if isinstance(seed, list) else mod.Generator.from_seed(seed)
        y = _draws(lib)[draw](g)
        skip = g.skip(10)
        with lib.Session() as s:
            s.run(lib.global_variables_initializer())
            first = s.run(g.state.read_value())
            values = [s.run(y), s.run(y)]
            before_skip = s.run(skip)
            return first, values, before_skip, s.run(g.state.read_value()), y.dtype.name, y.shape.as_list()


@pytest.mark.parametrize("rid,seed,draw", ROWS, ids=[r[0] for r in ROWS])
def test_generator_matches_tf(rid, seed, draw):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops import stateful_random_ops as tf_mod
    want = _run(tf, tf_mod, seed, draw)
    got = _run(ref, _under_test, seed, draw)
    assert got[4:] == want[4:]
    for g, w in zip(got[:4], want[:4]):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


@pytest.mark.parametrize("seed", [0, 7, 2 ** 64 + 3, [4, 5], [1, 2, 3, 4]])
def test_create_rng_state_matches_tf(seed):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tensorflow.python.ops import stateful_random_ops as tf_mod
    out = []
    for lib, mod in ((tf, tf_mod), (ref, _under_test)):
        with lib.Graph().as_default(), lib.Session() as s:
            out.append(s.run(mod.create_rng_state(seed, "philox")))
    np.testing.assert_array_equal(out[1], out[0])


BITCAST_ROWS = [
    ("f32-to-i32", np.array([1.5, -2.0, np.inf], np.float32), "int32"),
    ("f64-to-u8", np.array([[1.0, -0.5]]), "uint8"),
    ("i64-to-u32", np.array([2 ** 40 + 5, -1], np.int64), "uint32"),
    ("u8-to-f32", np.arange(8, dtype=np.uint8).reshape(2, 4), "float32"),
    ("i16-to-f16", np.array([15360, -1024], np.int16), "float16"),
    ("c64-to-f64", np.array([1 + 2j], np.complex64), "float64"),
]


@pytest.mark.parametrize("rid,x,to", BITCAST_ROWS, ids=[r[0] for r in BITCAST_ROWS])
def test_bitcast_matches_tf(rid, x, to):
    tf = pytest.importorskip("tensorflow").compat.v1
    out = []
    for lib in (tf, ref):
        with lib.Graph().as_default(), lib.Session() as s:
            y = lib.bitcast(lib.constant(x), getattr(lib, to))
            out.append((y.dtype.name, y.shape.as_list(), s.run(y)))
    assert out[1][:2] == out[0][:2]
    assert out[1][2].tobytes() == out[0][2].tobytes()


def test_bitcast_bad_last_dimension_raises_as_tf():
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf, ref):
        with lib.Graph().as_default(), pytest.raises(ValueError):
            lib.bitcast(lib.constant(np.zeros(3, np.uint8)), lib.float32)
