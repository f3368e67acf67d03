"""TF1 loss scaling against tensorflow.compat.v1: the same program built with
``import ref as tf`` and with TF, in a graph, under the default strategy and a
one-device MirroredStrategy -- DynamicLossScale's scale sequence, the
loss-scaling optimizer's updates (skipped on a nonfinite step, with
global_step), the checkpoint keys of its state, the strategy contexts, the
mixed precision switch, and TF's errors."""
import math

import numpy as np
import pytest

from ref.optimizers import loss_scale as _under_test  # noqa: F401
from tests.graph_ops._graphdef import tf1_behaviour

tensorflow = pytest.importorskip("tensorflow")

NAN = float("nan")


def _tf():
    return tensorflow.compat.v1


def _ref():
    import ref
    return ref


def _both(program, *args):
    """``program(tf, *args)`` with ref, and with TF in TF1 behaviour (v1 control flow)."""
    got = program(_ref(), *args)
    with tf1_behaviour():
        want = program(_tf(), *args)
    return got, want


def _strategy(tf, kind):
    return tf.distribute.get_strategy() if kind == "default" else tf.distribute.MirroredStrategy(["cpu:0"])


# -- DynamicLossScale: (gradient values fed each step, initial scale, period, multiplier) --------
DYNAMIC_ROWS = {
    "increase": ([1.0] * 6, 1, 2, 2),
    "decrease_to_one": ([NAN] * 6, 16, 2, 2),
    "capped_at_float32_max": ([1.0] * 6, float(np.finfo(np.float32).max) / 4, 2, 2),
    "nan_clears_good_steps": ([1.0, 1.0, 1.0, NAN, 1.0], 1, 2, 2),
    "inf_each_step": ([1.0, math.inf] * 3, 1, 1, 2),
    "multiplier_3": ([1.0, 1.0, NAN, 1.0, 1.0], 4, 1, 3),
}


def _dynamic_program(tf, kind, feeds, initial, period, multiplier):
    with tf.Graph().as_default(), _strategy(tf, kind).scope():
        scale = tf.train.experimental.DynamicLossScale(initial_loss_scale=initial, increment_period=period,
                                                       multiplier=multiplier)
        g = tf.placeholder(tf.float32, [2])
        update_op, should_apply = scale.update([g, None])
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v in feeds:
                applied, _ = sess.run([should_apply, update_op], {g: [0.5, v]})
                out.append((bool(applied), float(sess.run(scale()))))
        return out, repr(scale), scale.get_config()


@pytest.mark.parametrize("kind", ["default", "mirrored"])
@pytest.mark.parametrize("row", sorted(DYNAMIC_ROWS))
def test_dynamic_loss_scale_matches_tf(row, kind):
    got, want = _both(_dynamic_program, kind, *DYNAMIC_ROWS[row])
    assert got == want


# -- the optimizer: (loss scale, optimizer, the loss's factor each step) -------------------------
OPTIMIZER_ROWS = {
    "fixed_sgd": (8, lambda tf: tf.train.GradientDescentOptimizer(0.5), [1.0, 2.0]),
    "dynamic_sgd_nan_step": ("dynamic_small", lambda tf: tf.train.GradientDescentOptimizer(0.5), [1.0, NAN, 2.0]),
    "dynamic_momentum": ("dynamic_small", lambda tf: tf.train.MomentumOptimizer(1.0, momentum=0.5),
                         [1.0, 1.0, math.inf, 1.0]),
    "dynamic_adam": ("dynamic", lambda tf: tf.train.AdamOptimizer(0.1), [1.0, NAN, 3.0]),
}


def _optimizer_program(tf, kind, spec, make_opt, factors):
    with tf.Graph().as_default(), _strategy(tf, kind).scope() as strategy:
        if spec == "dynamic_small":
            spec = tf.train.experimental.DynamicLossScale(initial_loss_scale=2, increment_period=1, multiplier=2)
        var = tf.Variable([1.0, -2.0], use_resource=True)
        step = tf.train.get_or_create_global_step()
        factor = tf.placeholder(tf.float32, [])
        opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(make_opt(tf), spec)
        train_op = strategy.experimental_run(
            lambda: opt.minimize(lambda: tf.reduce_sum(var * var) * factor, global_step=step, var_list=[var]))
        out = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for f in factors:
                sess.run(train_op, {factor: f})
                out.append((sess.run(var).tolist(), float(sess.run(opt._loss_scale())), int(sess.run(step))))
        names = sorted(v.op.name for v in opt.variables())
        return out, names


@pytest.mark.parametrize("kind", ["default", "mirrored"])
@pytest.mark.parametrize("row", sorted(OPTIMIZER_ROWS))
def test_loss_scale_optimizer_matches_tf(row, kind):
    got, want = _both(_optimizer_program, kind, *OPTIMIZER_ROWS[row])
    assert got[1] == want[1]
    for (gv, gs, gstep), (wv, ws, wstep) in zip(got[0], want[0]):
        np.testing.assert_allclose(gv, wv, rtol=1e-6)
        assert (gs, gstep) == (ws, wstep)


def _checkpoint_keys(tf, tmp_path):
    tmp_path = tmp_path / ("ref" if tf is _ref() else "tf")
    with tf.Graph().as_default():
        var = tf.Variable([2.0], use_resource=True)
        opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(tf.train.MomentumOptimizer(1.0, 0.5),
                                                                     "dynamic")
        train_op = opt.minimize(lambda: var * 3.0, var_list=[var])
        ckpt = tf.train.Checkpoint(optimizer=opt, var=var)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    return sorted(name for name, _ in tf.train.list_variables(path) if "OBJECT_GRAPH" not in name)


def test_checkpoint_keys_match_tf(tmp_path):
    got, want = _both(_checkpoint_keys, tmp_path)
    assert got == want


# -- strategy contexts: what library code sees in each place ---------------------------------------
def _contexts(tf, kind):
    ds = tf.distribute
    seen = {}

    def probe(where):
        seen[where] = (ds.has_strategy(), ds.in_cross_replica_context(), ds.get_replica_context() is None,
                       ds.get_loss_reduction().value)

    with tf.Graph().as_default():
        probe("outside")
        strategy = _strategy(tf, kind)
        with strategy.scope():
            probe("scope")

            def replica_fn():
                probe("replica")
                ctx = ds.get_replica_context()
                rid = ctx.replica_id_in_sync_group
                return ctx.merge_call(lambda s: (probe("merge"), s.num_replicas_in_sync)[1]), rid

            n, rid = strategy.experimental_run(replica_fn)
            total = strategy.reduce(ds.ReduceOp.SUM, tf.constant([1.0, 2.0]), axis=0)
            with tf.Session() as sess:
                seen["values"] = (n, int(sess.run(rid)), float(sess.run(total)), rid.dtype.name)
    return seen


@pytest.mark.parametrize("kind", ["default", "mirrored"])
def test_strategy_contexts_match_tf(kind):
    got, want = _both(_contexts, kind)
    assert got == want


# -- errors -------------------------------------------------------------------------------------
ERROR_ROWS = {
    "fixed_below_one": lambda tf: tf.train.experimental.FixedLossScale(0.5),
    "fixed_not_number": lambda tf: tf.train.experimental.FixedLossScale("8"),
    "optimizer_none_scale": lambda tf: tf.train.experimental.MixedPrecisionLossScaleOptimizer(
        tf.train.GradientDescentOptimizer(1.0), None),
    "optimizer_not_optimizer": lambda tf: tf.train.experimental.MixedPrecisionLossScaleOptimizer(3, 8),
    "bad_identifier": lambda tf: tf.train.experimental.MixedPrecisionLossScaleOptimizer(
        tf.train.GradientDescentOptimizer(1.0), "static"),
    "rewrite_not_optimizer": lambda tf: tf.train.experimental.enable_mixed_precision_graph_rewrite(1),
    "rewrite_already_wrapped": lambda tf: tf.train.experimental.enable_mixed_precision_graph_rewrite(
        tf.train.experimental.MixedPrecisionLossScaleOptimizer(tf.train.GradientDescentOptimizer(1.0), 2)),
    "apply_in_cross_replica": lambda tf: _apply_in_cross_replica(tf),
}


def _apply_in_cross_replica(tf):
    with tf.Graph().as_default(), tf.distribute.MirroredStrategy(["cpu:0"]).scope():
        var = tf.Variable(1.0, use_resource=True)
        tf.train.GradientDescentOptimizer(1.0).apply_gradients([(tf.constant(1.0), var)])


def _error(tf, row):
    with pytest.raises(Exception) as info:
        ERROR_ROWS[row](tf)
    return type(info.value).__name__, str(info.value).split(" got")[0].split("but got")[0]


@pytest.mark.parametrize("row", sorted(ERROR_ROWS))
def test_errors_match_tf(row):
    got, want = _both(_error, row)
    assert got == want


def _rewrite_switch(tf):
    opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(tf.train.GradientDescentOptimizer(1.0), 16)
    on = tf.config.optimizer.get_experimental_options().get("auto_mixed_precision")
    tf.train.experimental.disable_mixed_precision_graph_rewrite()
    off = tf.config.optimizer.get_experimental_options().get("auto_mixed_precision")
    with tf.Graph().as_default(), tf.Session() as sess:
        scale = sess.run(opt._loss_scale())
    return type(opt).__name__, on, off, float(scale)


def test_mixed_precision_switch_matches_tf():
    got, want = _both(_rewrite_switch)
    assert got == want


def _session_flags(tf):
    """Whether a Session made before / after enabling the rewrite counts as a
    non-mixed-precision Session (the flag ``enable_mixed_precision_graph_rewrite`` warns on)."""
    if tf is _ref():
        from ref.session import mixed_precision_global_state as state
    else:
        from tensorflow.python.training.experimental import mixed_precision_global_state as state
    out = []
    for enable_first in (False, True):
        state.set_non_mixed_precision_session_created(False)
        if enable_first:
            tf.train.experimental.enable_mixed_precision_graph_rewrite(tf.train.GradientDescentOptimizer(1.0))
        with tf.Graph().as_default(), tf.Session():
            pass
        out.append((state.non_mixed_precision_session_created(), state.is_mixed_precision_graph_rewrite_enabled()))
        if enable_first:
            tf.train.experimental.disable_mixed_precision_graph_rewrite()
    return out


def test_session_creation_flag_matches_tf():
    got, want = _both(_session_flags)
    assert got == want == [(True, False), (False, True)]
