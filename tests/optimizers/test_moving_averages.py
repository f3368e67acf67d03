"""ExponentialMovingAverage and assign_moving_average against tf.compat.v1:
shadow trajectories over several steps (with and without num_updates,
zero_debias on tensors, float32/float64), names, collections,
variables_to_restore, errors; and the seed's update formula as an oracle."""
from __future__ import annotations

import numpy as np
import pytest

import ref.ops
from ref.types import dtypes
from ref.graph_ops import state_ops
from ref.framework.graph import Graph, GraphKeys
from ref.framework.op_def_library import constant
from ref.optimizers.moving_averages import ExponentialMovingAverage, assign_moving_average
from ref.session import Session
from ref.graph_ops.variables import Variable, global_variables_initializer
from ref import numpy_reference as npr

ref.ops.load_all()

STEPS = 6
V0 = np.array([1.0, -2.0, 0.5])
DELTA = np.array([0.3, 0.1, -0.7])


@pytest.fixture(scope="module")
def tf1():
    tf = pytest.importorskip("tensorflow")
    v1 = tf.compat.v1
    # resource variables: with ref variables TF 2.21's cond_v2 reads the variable in the
    # shadow's initializer before checking that it is initialized
    return v1


def _program(n, variable, const, group, init, dtype, ema_kw, use_step, use_tensor):
    """One TF1 program, written once for both namespaces: a variable moving by DELTA each
    step, a tensor (2 * var), an EMA over them; returns the fetches."""
    v = variable(V0.astype(dtype), name="w")
    step = variable(0, name="step", trainable=False) if use_step else None
    t = n["mul"](v, const(np.asarray(2, dtype)), name="double")
    kw = dict(ema_kw)
    if use_step:
        kw["num_updates"] = step
    ema = n["EMA"](**kw)
    update = ema.apply([v, t] if use_tensor else [v])
    with n["control_dependencies"]([update]):
        step_op = group(n["assign_add"](v, const(DELTA.astype(dtype))),
                        *([n["assign_add"](step, const(np.int32(1)))] if use_step else []))
    shadows = [ema.average(v)] + ([ema.average(t)] if use_tensor else [])
    return ema, v, t, step_op, shadows, init()


def _namespaces(tf1):
    from ref.graph_ops.control_flow_ops import group
    from ref.framework.graph import control_dependencies

    tf_ns = dict(mul=tf1.multiply, EMA=tf1.train.ExponentialMovingAverage,
                 control_dependencies=tf1.control_dependencies, assign_add=tf1.assign_add)
    from ref.framework.op_def_library import apply_op

    ref_ns = dict(mul=lambda x, y, name: apply_op("Mul", x=x, y=y, name=name), EMA=ExponentialMovingAverage,
                  control_dependencies=control_dependencies, assign_add=state_ops.assign_add)
    return ((tf_ns, tf1.Variable, tf1.constant, tf1.group, tf1.global_variables_initializer, tf1.Graph,
             tf1.Session),
            (ref_ns, Variable, constant, group, global_variables_initializer, Graph, Session))


def _trajectory(ns, dtype, ema_kw, use_step, use_tensor):
    n, variable, const, group, init, graph_cls, sess_cls = ns
    g = graph_cls()
    with g.as_default():
        ema, v, t, step_op, shadows, init_op = _program(n, variable, const, group, init, dtype, ema_kw, use_step,
                                                        use_tensor)
        names = sorted(x.name for x in g.get_collection(GraphKeys.GLOBAL_VARIABLES))
        mav = [x.name for x in g.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES)]
        restore = sorted((k, x.name) for k, x in ema.variables_to_restore().items())
        info = dict(names=names, mav=mav, restore=restore, avg_name=ema.average_name(v),
                    shadow_names=[s.name for s in shadows], update_name=step_op.control_inputs[0].name)
    traj = []
    with sess_cls(graph=g) as sess:
        sess.run(init_op)
        for _ in range(STEPS):
            sess.run(step_op)
            traj.append(sess.run(shadows))
    return traj, info


ROWS = [
    (np.float32, dict(decay=0.9), False, False),
    (np.float32, dict(decay=0.99), True, False),
    (np.float32, dict(decay=0.9), False, True),
    (np.float32, dict(decay=0.9, zero_debias=True), False, True),
    (np.float32, dict(decay=0.999, zero_debias=True, name="avg"), True, True),
    (np.float64, dict(decay=0.95), True, True),
    (np.float64, dict(decay=0.9, zero_debias=True), False, True),
    (np.float16, dict(decay=0.75), False, False),
]


@pytest.mark.parametrize("dtype,ema_kw,use_step,use_tensor", ROWS)
def test_trajectory_names_and_restore_map_as_tensorflow(tf1, dtype, ema_kw, use_step, use_tensor):
    tf_ns, ref_ns = _namespaces(tf1)
    want, want_info = _trajectory(tf_ns, dtype, ema_kw, use_step, use_tensor)
    got, got_info = _trajectory(ref_ns, dtype, ema_kw, use_step, use_tensor)
    assert got_info == want_info
    for g_step, w_step in zip(got, want):
        for g, w in zip(g_step, w_step):
            assert g.dtype == w.dtype == dtype
            # debiasing divides by 1 - Pow(decay, t): TF's float32 pow and libm's differ by an ULP or two
            np.testing.assert_array_max_ulp(g, w, maxulp=4)


def _oracle_trajectory(decay, num_updates_from_step):
    """The seed's formula, float64: shadow -= (1 - decay) * (shadow - variable)."""
    shadow, var, out = V0.copy(), V0.copy(), []
    for i in range(STEPS):
        d = npr.moving_average_decay(decay, i) if num_updates_from_step else decay
        shadow = npr.moving_average_update(shadow, var, d)
        out.append(shadow.copy())
        var = var + DELTA
    return out


@pytest.mark.parametrize("decay,use_step", [(0.9, False), (0.99, True), (0.5, False)])
def test_trajectory_follows_the_seed_formula(tf1, decay, use_step):
    _, ref_ns = _namespaces(tf1)
    got, _ = _trajectory(ref_ns, np.float64, dict(decay=decay), use_step, False)
    for g, w in zip(got, _oracle_trajectory(decay, use_step)):
        # the decay is a float32 tensor in TF (and ref): float32 precision in 1 - decay
        np.testing.assert_allclose(g[0], w, rtol=1e-6, atol=1e-7)


def test_zero_debias_oracle(tf1):
    """A tensor's debiased average equals biased / (1 - decay^t) from zero."""
    _, ref_ns = _namespaces(tf1)
    got, _ = _trajectory(ref_ns, np.float64, dict(decay=0.9, zero_debias=True), False, True)
    values = [2 * (V0 + i * DELTA) for i in range(STEPS)]
    want = npr.zero_debiased_averages(values, float(np.float32(0.9)))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g[1], w, rtol=1e-12)


ERRORS = [
    (lambda: ExponentialMovingAverage(0.9).apply([Variable(np.int32(1), name="i")]), TypeError,
     "The variables must be half, float, or double: i:0"),
    (lambda: ExponentialMovingAverage(0.9).apply([constant(np.int64(3), name="c")]), TypeError,
     "must be half, float, or double"),
]


@pytest.mark.parametrize("build,exc,match", ERRORS)
def test_errors(build, exc, match):
    with Graph().as_default(), pytest.raises(exc, match=match):
        build()


def test_duplicates_raise_value_error():
    """The seeds: 'ValueError: If the moving average of one of the variables is already
    being computed.' (TF 2.21 silently skips a repeat instead.)"""
    with Graph().as_default():
        v = Variable(np.float32(1), name="v")
        ema = ExponentialMovingAverage(0.9)
        ema.apply([v])
        with pytest.raises(ValueError, match="Moving average already computed for: v:0"):
            ema.apply([v])
        with pytest.raises(ValueError, match="already computed"):
            ExponentialMovingAverage(0.9, name="other").apply([v, v])


def test_average_name_before_apply_and_default_var_list(tf1):
    def names(n_vars, n_ema, init_tf):
        a = n_vars(np.float32(1), name="a")
        b = n_vars(np.float32(2), name="b", trainable=False)
        ema = n_ema(0.5)
        before = ema.average_name(a)
        none_yet = ema.average(a)
        ema.apply()  # default: the trainable variables
        return before, none_yet, ema.average(a).name, ema.average(b), ema.average_name(b)

    with tf1.Graph().as_default():
        want = names(tf1.Variable, tf1.train.ExponentialMovingAverage, None)
    with Graph().as_default():
        got = names(Variable, ExponentialMovingAverage, None)
    assert got == want


@pytest.mark.parametrize("zero_debias", [False, True])
def test_assign_moving_average_as_tensorflow(tf1, zero_debias):
    def run(variable, const, amv, init, graph_cls, sess_cls):
        g = graph_cls()
        with g.as_default():
            v = variable(np.array([1.0, 2.0], np.float32), name="avg", trainable=False)
            x = const(np.array([4.0, -1.0], np.float32))
            op = amv(v, x, 0.8, zero_debias=zero_debias)
            names = sorted(u.name for u in g.get_collection(GraphKeys.GLOBAL_VARIABLES))
            i = init()
        with sess_cls(graph=g) as sess:
            sess.run(i)
            return [sess.run(op) for _ in range(4)], names

    from tensorflow.python.training import moving_averages as tf_ma

    want = run(tf1.Variable, tf1.constant, tf_ma.assign_moving_average, tf1.global_variables_initializer,
               tf1.Graph, tf1.Session)
    got = run(Variable, constant, assign_moving_average, global_variables_initializer, Graph, Session)
    assert got[1:] == want[1:]
    for g, w in zip(got[0], want[0]):
        np.testing.assert_array_max_ulp(g, w, maxulp=2)


def test_shadow_collections_and_trainability():
    with Graph().as_default() as g:
        v = Variable(np.float32(1), name="v")
        t = constant(np.float32(3), name="t")
        ema = ExponentialMovingAverage(0.9)
        ema.apply([v, t])
        assert g.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES) == [v]
        assert ema.average(v) not in g.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        assert ema.average(t).dtype.base_dtype == dtypes.float32
        assert ema.name == "ExponentialMovingAverage"
