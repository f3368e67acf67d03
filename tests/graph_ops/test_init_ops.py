"""Initializers (ref/graph_ops/init_ops.py): statistics with fixed seeds against the
documented distributions, get_config/from_config round trips compared with
TensorFlow's configs, seeding rules, dtype errors."""
import math

import numpy as np
import pytest

from ref.graph_ops import init_ops

F32 = np.float32
N = 40000  # samples per statistics row


def _value(rtf, init, shape, dtype=None, partition_info=None, graph_seed=None):
    with rtf.Graph().as_default():
        if graph_seed is not None:
            rtf.set_random_seed(graph_seed)
        t = init(shape, dtype=dtype, partition_info=partition_info) if partition_info else init(shape, dtype=dtype)
        with rtf.Session() as sess:
            return sess.run(t)


# (initializer, shape, expected mean, expected std, bound or None)
_VS_FANIN = 200
STATS = [
    (init_ops.random_normal_initializer(mean=1.0, stddev=2.0, seed=1), [N], 1.0, 2.0, None),
    (init_ops.random_uniform_initializer(-3.0, 1.0, seed=1), [N], -1.0, 4 / math.sqrt(12), 2.0),
    (init_ops.truncated_normal_initializer(mean=0.5, stddev=2.0, seed=1), [N], 0.5, 2.0 * .87962566103423978, 4.0),
    # seed 003: U(-sqrt(3)/sqrt(dim), sqrt(3)/sqrt(dim)) * factor, dim = prod(shape[:-1])
    (init_ops.uniform_unit_scaling_initializer(factor=1.43, seed=1), [100, N // 100], 0.0, 1.43 / 10,
     1.43 * math.sqrt(3 / 100)),
    (init_ops.variance_scaling_initializer(2.0, "fan_in", "truncated_normal", seed=1), [_VS_FANIN, N // _VS_FANIN],
     0.0, math.sqrt(2.0 / _VS_FANIN), 2 * math.sqrt(2.0 / _VS_FANIN) / .87962566103423978),
    (init_ops.variance_scaling_initializer(1.0, "fan_out", "untruncated_normal", seed=1), [N // 100, 100], 0.0,
     math.sqrt(1 / 100), None),
    (init_ops.variance_scaling_initializer(3.0, "fan_avg", "uniform", seed=1), [100, 300], 0.0, math.sqrt(3 / 200),
     math.sqrt(9 / 200)),
    (init_ops.glorot_uniform_initializer(seed=1), [150, 250], 0.0, math.sqrt(2 / 400), math.sqrt(6 / 400)),
    (init_ops.glorot_normal_initializer(seed=1), [150, 250], 0.0, math.sqrt(2 / 400),
     2 * math.sqrt(2 / 400) / .87962566103423978),
    (init_ops.he_normal(seed=1), [3, 3, 20, 100], 0.0, math.sqrt(2 / 180), 2 * math.sqrt(2 / 180) / .87962566103423978),
    (init_ops.lecun_uniform(seed=1), [3, 3, 20, 100], 0.0, math.sqrt(1 / 180), math.sqrt(3 / 180)),
]


@pytest.mark.parametrize("init,shape,mean,std,bound", STATS, ids=[f"{type(s[0]).__name__}{i}" for i, s in
                                                                   enumerate(STATS)])
def test_statistics(rtf, init, shape, mean, std, bound):
    x = _value(rtf, init, shape).astype(np.float64)
    assert x.shape == tuple(shape) and x.dtype == np.float64
    n = x.size
    assert abs(x.mean() - mean) < 5 * std / math.sqrt(n)
    assert abs(x.std() - std) < 0.03 * std
    if bound is not None:
        assert np.abs(x - mean).max() <= bound * (1 + 1e-6)
        assert np.abs(x - mean).max() > 0.95 * bound


@pytest.mark.parametrize("shape,gain", [([30, 30], 1.0), ([20, 50], 2.0), ([4, 5, 60], 0.5), ([60, 12], 1.0)])
def test_orthogonal(rtf, shape, gain):
    q = _value(rtf, init_ops.orthogonal_initializer(gain=gain, seed=5), shape).reshape(-1, shape[-1]).astype(float)
    small = min(q.shape)
    gram = q.T @ q if q.shape[0] >= q.shape[1] else q @ q.T
    np.testing.assert_allclose(gram, gain ** 2 * np.eye(small), atol=1e-5 * gain ** 2)


@pytest.mark.parametrize("init,shape,expected", [
    (init_ops.zeros_initializer(), [2, 3], np.zeros((2, 3), F32)),
    (init_ops.ones_initializer(dtype="int32"), [3], np.ones(3, np.int32)),
    (init_ops.constant_initializer(7.5), [2, 2], np.full((2, 2), 7.5, F32)),
    (init_ops.constant_initializer([1, 2, 3, 4]), [2, 2], np.array([[1, 2], [3, 4]], F32)),
    (init_ops.identity_initializer(gain=3.0), [2, 3], 3 * np.eye(2, 3, dtype=F32)),
])
def test_deterministic_initializers(rtf, init, shape, expected):
    got = _value(rtf, init, shape)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype


def test_seed003_old_zeros_initializer_form(rtf):
    """Seed 003: ``tf.zeros_initializer(shape, dtype=tf.float32)`` is an adaptor for zeros()."""
    with rtf.Graph().as_default():
        z, o = init_ops.zeros_initializer([2, 2]), init_ops.ones_initializer([3], rtf.int32)
        with rtf.Session() as sess:
            zv, ov = sess.run([z, o])
    assert zv.tolist() == [[0., 0.], [0., 0.]] and ov.tolist() == [1, 1, 1] and ov.dtype == np.int32


def test_partition_info_uses_full_shape(rtf):
    from ref.graph_ops.partitioned import PartitionInfo

    info = PartitionInfo(full_shape=[4, 3], var_offset=[2, 0])
    got = _value(rtf, init_ops.identity_initializer(), [2, 3], partition_info=info)
    np.testing.assert_array_equal(got, np.eye(4, 3, dtype=F32)[2:])
    # scale from the full shape: dim = 10000 gives bound sqrt(3/10000)
    x = _value(rtf, init_ops.uniform_unit_scaling_initializer(seed=2), [100, 50],
               partition_info=PartitionInfo(full_shape=[10000, 50], var_offset=[0, 0]))
    assert np.abs(x).max() <= math.sqrt(3 / 10000) * (1 + 1e-6)


@pytest.mark.parametrize("graph_seed,op_seed", [(None, 3), (7, None), (7, 3)])
def test_fixed_seeds_repeat(rtf, graph_seed, op_seed):
    init = init_ops.random_normal_initializer(seed=op_seed)
    a = _value(rtf, init, [5], graph_seed=graph_seed)
    b = _value(rtf, init, [5], graph_seed=graph_seed)
    np.testing.assert_array_equal(a, b)


CONFIGS = [
    ("zeros_initializer", {}), ("ones_initializer", {}), ("constant_initializer", {"value": 3.0}),
    ("random_uniform_initializer", {"minval": -1.0, "maxval": 2.0, "seed": 4}),
    ("random_normal_initializer", {"mean": 1.0, "stddev": 0.5, "seed": 3}),
    ("truncated_normal_initializer", {"mean": 0.0, "stddev": 2.0, "seed": 1}),
    ("uniform_unit_scaling_initializer", {"factor": 1.15, "seed": 2}),
    ("variance_scaling_initializer", {"scale": 2.0, "mode": "fan_out", "distribution": "uniform", "seed": 9}),
    ("glorot_uniform_initializer", {"seed": 1}), ("glorot_normal_initializer", {"seed": 1}),
    ("orthogonal_initializer", {"gain": 2.0, "seed": 3}),
]


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_config_matches_tensorflow(tf1, name, kwargs):
    want = getattr(tf1, name)(**kwargs).get_config()
    cls = getattr(init_ops, name)
    got = cls(**kwargs).get_config()
    assert got == want
    assert cls.from_config(got).get_config() == got


@pytest.mark.parametrize("name", ["random_normal_initializer", "truncated_normal_initializer",
                                  "uniform_unit_scaling_initializer", "variance_scaling_initializer",
                                  "orthogonal_initializer"])
def test_non_float_dtype_error(tf1, name):
    with pytest.raises(ValueError) as want:
        getattr(tf1, name)(dtype=tf1.int32)
    with pytest.raises(ValueError) as got:
        getattr(init_ops, name)(dtype="int32")
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("kwargs", [dict(scale=0.0), dict(mode="fan_x"), dict(distribution="cauchy")])
def test_variance_scaling_argument_errors(tf1, kwargs):
    with pytest.raises(ValueError) as want:
        tf1.variance_scaling_initializer(**kwargs)
    with pytest.raises(ValueError) as got:
        init_ops.variance_scaling_initializer(**kwargs)
    assert str(got.value) == str(want.value)


def test_glorot_ignores_dtype_like_tensorflow(tf1):
    assert init_ops.glorot_uniform_initializer(dtype="float64").get_config() == \
        tf1.glorot_uniform_initializer(dtype=tf1.float64).get_config()


def test_orthogonal_needs_rank_two(rtf):
    with rtf.Graph().as_default():
        with pytest.raises(ValueError, match="must be at least two-dimensional"):
            init_ops.orthogonal_initializer()([3])


def test_get_variable_default_initializers(rtf):
    """glorot_uniform for floats, zeros for integers (TF's get_variable)."""
    with rtf.Graph().as_default():
        f = rtf.get_variable("f", [50, 50], initializer=None)
        i = rtf.get_variable("i", [3], dtype=rtf.int32)
        with rtf.Session() as sess:
            sess.run(rtf.global_variables_initializer())
            fv, iv = sess.run([f, i])
    assert np.abs(fv).max() <= math.sqrt(6 / 100) and fv.std() > 0.1 and iv.tolist() == [0, 0, 0]
