"""``tf.tpu`` (compat.v1): XLAOptions, shutdown_system and shard against TensorFlow."""
import numpy as np
import pytest

import ref as rtf


def _tf():
    return pytest.importorskip("tensorflow").compat.v1


@pytest.mark.parametrize("kwargs", [{}, {"use_spmd_for_xla_partitioning": False},
                                    {"enable_xla_dynamic_padder": False, "use_shardy_partitioner": True}])
def test_xla_options_as_tensorflow(kwargs):
    tf = _tf()
    a, b = rtf.tpu.XLAOptions(**kwargs), tf.tpu.XLAOptions(**kwargs)
    assert repr(a) == repr(b) and tuple(a) == tuple(b) and a._fields == b._fields


@pytest.mark.parametrize("job", [None, "worker"])
def test_shutdown_system_builds_tf_op_and_fails_at_run_time(job):
    tf = _tf()
    got = []
    for lib, err in ((tf, tf.errors.InvalidArgumentError), (rtf, rtf.errors.InvalidArgumentError)):
        with lib.Graph().as_default(), lib.Session() as s:
            op = lib.tpu.shutdown_system(job=job)
            got.append((op.type, op.device, len(op.outputs)))
            with pytest.raises(err, match="ShutdownDistributedTPU"):
                s.run(op)
    assert got[0] == got[1]
    with rtf.Graph().as_default(), rtf.Session() as s:
        with pytest.raises(rtf.errors.InvalidArgumentError, match="TPU_SYSTEM"):
            s.run(rtf.tpu.shutdown_system(job=job))


X = np.arange(24, dtype=np.float32).reshape(4, 6)
Y = np.linspace(-1, 1, 12).reshape(6, 2).astype(np.float32)

def _halves(a, n, axis=0):
    return np.split(a, n, axis=axis)


# (computation(lib), inputs, keyword arguments, NumPy oracle for the outputs).
# TF's shard builds TPU replication ops that cannot run on a CPU, so values are
# checked against NumPy and graph-construction facts (output count, static
# shapes, dtypes) against TensorFlow.
SHARD_CASES = {
    "double_axis0": (lambda lib: lambda a: a * 2.0, [X], dict(num_shards=2), lambda: [X * 2]),
    "axis1_three": (lambda lib: lambda a: a + 1.0, [X], dict(num_shards=3, input_shard_axes=[1]),
                    lambda: [np.concatenate([h + 1 for h in _halves(X, 3, 1)], 0)]),
    "two_inputs": (lambda lib: lambda a, b: lib.matmul(a, b), [X, Y], dict(num_shards=2, input_shard_axes=[1, 0]),
                   lambda: [np.concatenate([X[:, :3] @ Y[:3], X[:, 3:] @ Y[3:]], 0)]),
    "output_axis1": (lambda lib: lambda a: lib.transpose(a), [X], dict(num_shards=2, output_shard_axes=[1]),
                     lambda: [np.concatenate([h.T for h in _halves(X, 2)], 1)]),
    "from_one_shard": (lambda lib: lambda a: [a, lib.reduce_sum(a, 0)], [X],
                       dict(num_shards=2, outputs_from_all_shards=[True, False]), lambda: [X, X[:2].sum(0)]),
    "first_shard_only": (lambda lib: lambda a: a - 1.0, [X], dict(num_shards=4, outputs_from_all_shards=False),
                         lambda: [X[:1] - 1]),
    "scalar_outputs_stacked": (lambda lib: lambda a: lib.reduce_sum(a), [X], dict(num_shards=2),
                               lambda: [np.array([X[:2].sum(), X[2:].sum()])]),
    "tuple_outputs": (lambda lib: lambda a: (a, a * a), [X], dict(num_shards=1), lambda: [X, X * X]),
}


@pytest.mark.parametrize("case", sorted(SHARD_CASES))
def test_shard_values_and_shapes(case):
    tf = _tf()
    make, inputs, kwargs, oracle = SHARD_CASES[case]
    with tf.Graph().as_default():
        want_sig = [(t.dtype.name, t.shape.as_list()) for t in
                    tf.tpu.shard(make(tf), [tf.constant(x) for x in inputs], **kwargs)]
    with rtf.Graph().as_default(), rtf.Session() as s:
        out = rtf.tpu.shard(make(rtf), [rtf.constant(x) for x in inputs], **kwargs)
        assert [(t.dtype.name, t.shape.as_list()) for t in out] == want_sig
        got = s.run(out)
    want = oracle()
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_shard_against_numpy():
    with rtf.Graph().as_default(), rtf.Session() as s:
        out = rtf.tpu.shard(lambda a: rtf.reduce_sum(a, 1, keepdims=True), [rtf.constant(X)], num_shards=2,
                            input_shard_axes=[1], output_shard_axes=[1])
        got = s.run(out)[0]
    np.testing.assert_allclose(got, np.stack([X[:, :3].sum(1), X[:, 3:].sum(1)], 1))


@pytest.mark.parametrize("kwargs,match", [
    (dict(num_shards=0), "num_shards must be a positive integer"),
    (dict(num_shards=2, input_shard_axes=[0, 1]), "input_shard_axes"),
    (dict(num_shards=2, output_shard_axes=[0, 0]), "output_shard_axes"),
    (dict(num_shards=2, outputs_from_all_shards=[True, True]), "outputs_from_all_shards"),
])
def test_shard_value_errors_as_tensorflow(kwargs, match):
    tf = _tf()
    for lib in (tf, rtf):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match=match):
                lib.tpu.shard(lambda a: a, [lib.constant(X)], **kwargs)


def test_shard_scalar_input_is_value_error():
    tf = _tf()
    for lib in (tf, rtf):
        with lib.Graph().as_default():
            with pytest.raises(ValueError):
                lib.tpu.shard(lambda a: a, [lib.constant(3.0)], num_shards=1)


def test_shard_inputs_not_a_list_is_type_error():
    tf = _tf()
    for lib in (tf, rtf):
        with lib.Graph().as_default():
            with pytest.raises(TypeError, match="list"):
                lib.tpu.shard(lambda a: a, lib.constant(X), num_shards=1)
