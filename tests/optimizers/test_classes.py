"""The Optimizer classes against tensorflow.compat.v1 and the seeds: slot and
non-slot variable names and collections, get_slot / get_slot_names /
variables, documented errors, minimize with global_step, gate_gradients
modes, var_list, grad_loss, the sparse (gather) path, hyperparameters as
Tensors and callables -- and the pure ``init`` / ``step`` forms, bit for bit
against the graph path."""
import importlib

import numpy as np
import pytest

from tests.optimizers._tf1 import ref_v1, tensorflow_v1

pytest.importorskip("tensorflow")

W0 = np.arange(6, dtype=np.float64).reshape(3, 2) / 7 - 0.3
B0 = np.array([0.25, -0.5])
EMB0 = np.arange(12, dtype=np.float64).reshape(4, 3) / 11 - 0.4
IDS = np.array([2, 0, 2, 3], np.int32)

MAKERS = {
    "GradientDescent": lambda t, gs: t.GradientDescentOptimizer(0.1),
    "Momentum": lambda t, gs: t.MomentumOptimizer(0.1, 0.9),
    "Adagrad": lambda t, gs: t.AdagradOptimizer(0.1),
    "AdagradDA": lambda t, gs: t.AdagradDAOptimizer(0.1, gs),
    "Adadelta": lambda t, gs: t.AdadeltaOptimizer(),
    "Adam": lambda t, gs: t.AdamOptimizer(),
    "RMSProp": lambda t, gs: t.RMSPropOptimizer(0.1),
    "RMSPropCentered": lambda t, gs: t.RMSPropOptimizer(0.1, centered=True),
    "Ftrl": lambda t, gs: t.FtrlOptimizer(0.1),
    "FtrlNamed": lambda t, gs: t.FtrlOptimizer(0.1, accum_name="acc", linear_name="lin"),
    "ProximalAdagrad": lambda t, gs: t.ProximalAdagradOptimizer(0.1),
    "ProximalGradientDescent": lambda t, gs: t.ProximalGradientDescentOptimizer(0.1),
}


def _structure(tf, maker, use_resource, embedding=False):
    """Names, collections and slots after ``minimize``, as comparable Python values."""
    g = tf.Graph()
    with g.as_default():
        w = tf.get_variable("w", initializer=W0.astype(np.float32), use_resource=use_resource)
        b = tf.Variable(B0.astype(np.float32), name="b", use_resource=use_resource)
        gs = tf.train.get_or_create_global_step()
        h = tf.matmul(tf.constant(np.ones((1, 3), np.float32)), w)
        if embedding:
            e = tf.Variable(EMB0.astype(np.float32), name="emb", use_resource=use_resource)
            h = tf.add(h, tf.reduce_sum(tf.gather(e, tf.constant(IDS))))
        loss = tf.reduce_sum(tf.add(h, b))
        opt = maker(tf.train, gs)
        train = opt.minimize(loss, global_step=gs)
        keys = (tf.GraphKeys.GLOBAL_VARIABLES, tf.GraphKeys.TRAINABLE_VARIABLES, tf.GraphKeys.LOCAL_VARIABLES,
                tf.GraphKeys.TRAIN_OP)
        cols = {k: sorted(x.name for x in tf.get_collection(k)) for k in keys}
        trained = [w, b] + ([e] if embedding else [])
        slots = {(v.op.name, n): (opt.get_slot(v, n).name, tuple(opt.get_slot(v, n).shape.as_list()))
                 for v in trained for n in opt.get_slot_names()}
        return dict(collections=cols, slot_names=opt.get_slot_names(), slots=slots,
                    variables=[v.name for v in opt.variables()], name=opt.get_name(), train_op=train.name,
                    unknown_slot=opt.get_slot(w, "nope"))


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("name", sorted(MAKERS))
def test_names_and_collections_match_tensorflow(name, use_resource):
    want = _structure(tensorflow_v1(), MAKERS[name], use_resource)
    got = _structure(ref_v1(), MAKERS[name], use_resource)
    assert got == want


@pytest.mark.parametrize("name", ["Adam", "Momentum", "Ftrl", "GradientDescent"])
def test_sparse_names_match_tensorflow(name):
    want = _structure(tensorflow_v1(), MAKERS[name], False, embedding=True)
    got = _structure(ref_v1(), MAKERS[name], False, embedding=True)
    assert got == want


def _op_types(tf, maker, use_resource):
    g = tf.Graph()
    with g.as_default():
        e = tf.Variable(EMB0.astype(np.float32), name="emb", use_resource=use_resource)
        loss = tf.reduce_sum(tf.gather(e, tf.constant(IDS)))
        maker(tf.train, None).minimize(loss)
        return sorted({op.type for op in g.get_operations()
                       if "Apply" in op.type or "Scatter" in op.type or op.type in ("Unique", "UnsortedSegmentSum")})


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("name", ["Adam", "Momentum", "Adagrad", "Ftrl", "GradientDescent", "RMSPropCentered",
                                  "Adadelta", "ProximalAdagrad"])
def test_sparse_gradients_use_the_kernels_tensorflow_uses(name, use_resource):
    assert _op_types(ref_v1(), MAKERS[name], use_resource) == _op_types(tensorflow_v1(), MAKERS[name],
                                                                        use_resource)


# -- documented errors (constructor), with TensorFlow's messages --------------------

CTOR_ERRORS = [
    ("Optimizer", (False, ""), {}),
    ("AdagradOptimizer", (0.1,), dict(initial_accumulator_value=0.0)),
    ("AdagradDAOptimizer", (0.1, None), dict(initial_gradient_squared_accumulator_value=-1.0)),
    ("ProximalAdagradOptimizer", (0.1,), dict(initial_accumulator_value=-0.5)),
    ("FtrlOptimizer", (0.1,), dict(learning_rate_power=0.5)),
    ("FtrlOptimizer", (0.1,), dict(initial_accumulator_value=-0.1)),
    ("FtrlOptimizer", (0.1,), dict(l1_regularization_strength=-1.0)),
    ("FtrlOptimizer", (0.1,), dict(l2_regularization_strength=-1.0)),
    ("FtrlOptimizer", (0.1,), dict(l2_shrinkage_regularization_strength=-1.0)),
]


@pytest.mark.parametrize("cls,args,kwargs", CTOR_ERRORS, ids=[f"{c[0]}-{sorted(c[2])}" for c in CTOR_ERRORS])
def test_constructor_errors_match_tensorflow(cls, args, kwargs):
    with pytest.raises(ValueError) as want:
        getattr(tensorflow_v1().train, cls)(*args, **kwargs)
    with pytest.raises(ValueError) as got:
        getattr(ref_v1().train, cls)(*args, **kwargs)
    assert str(got.value) == str(want.value)


def test_adagrad_da_requires_global_step():
    with pytest.raises(TypeError):
        ref_v1().train.AdagradDAOptimizer(0.1)


# -- documented errors of minimize / compute_gradients / apply_gradients --------------

def _error(tf, case):
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(np.array([1.0, 2.0], np.float32), name="w")
        opt = tf.train.GradientDescentOptimizer(0.1)
        try:
            if case == "empty":
                opt.apply_gradients([])
            elif case == "all_none":
                opt.apply_gradients([(None, w)])
            elif case == "bad_gradient":
                opt.apply_gradients([(object(), w)])
            elif case == "unconnected":
                opt.minimize(tf.constant(1.0))
            elif case == "int_loss":
                opt.minimize(tf.constant(1))
            elif case == "gate":
                opt.minimize(tf.reduce_sum(w), gate_gradients=5)
            elif case == "no_vars":
                opt.minimize(tf.reduce_sum(w), var_list=[])
        except Exception as e:  # noqa: BLE001  (the type and message are what is compared)
            return type(e), str(e)
    return None, ""


# (case, the message up to where TF embeds reprs of its own objects)
ERROR_CASES = [("empty", None), ("all_none", "No gradients provided for any variable: ["),
               ("bad_gradient", "Gradient must be convertible to a Tensor or IndexedSlices, or None: "),
               ("unconnected", "No gradients provided for any variable, check your graph for ops that do not "
                               "support gradients, between variables ["),
               ("int_loss", None), ("gate", None), ("no_vars", None)]


@pytest.mark.parametrize("case,prefix", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_optimizer_errors_match_tensorflow(case, prefix):
    want_type, want_msg = _error(tensorflow_v1(), case)
    got_type, got_msg = _error(ref_v1(), case)
    assert want_type is not None and got_type is want_type
    if prefix is None:
        assert got_msg == want_msg
    else:
        assert want_msg.startswith(prefix) and got_msg.startswith(prefix), (got_msg, want_msg)
        assert ("w:0" in got_msg) == ("w:0" in want_msg)


def test_malformed_pairs_raise_type_error_as_documented():
    # Seed 002 apply_gradients: "Raises TypeError If grads_and_vars is malformed." (TF itself lets
    # Python's unpacking raise ValueError for a 3-tuple; ref raises the documented TypeError.)
    tf = ref_v1()
    with tf.Graph().as_default():
        w = tf.Variable(np.array([1.0], np.float32), name="w")
        opt = tf.train.GradientDescentOptimizer(0.1)
        for bad in ([(1.0, w, 3)], [w], 5):
            with pytest.raises(TypeError):
                opt.apply_gradients(bad)
        with pytest.raises(TypeError):
            opt.compute_gradients(tf.reduce_sum(w), var_list=[1.0])


# -- behaviour, numbers compared with TensorFlow ---------------------------------------

def _run(tf, case):
    g = tf.Graph()
    with g.as_default():
        w = tf.Variable(W0, name="w")
        b = tf.Variable(B0, name="b")
        x = tf.constant(np.array([[1.0, -2.0, 0.5]]))
        loss = tf.reduce_sum(tf.tanh(tf.add(tf.matmul(x, w), b)))
        gs = tf.train.get_or_create_global_step()
        out = {}
        if case.startswith("gate"):
            opt = tf.train.MomentumOptimizer(0.1, 0.9)
            mode = getattr(tf.train.Optimizer, case[5:])
            gv = opt.compute_gradients(loss, gate_gradients=mode)
            out["grad_types"] = [gr.op.type for gr, _ in gv]
            train = opt.apply_gradients(gv, global_step=gs)
        elif case == "var_list":
            train = tf.train.AdamOptimizer(0.1).minimize(loss, var_list=[b], global_step=gs)
        elif case == "grad_loss":
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, grad_loss=tf.constant(2.5, tf.float64))
        elif case == "tensor_hypers":
            train = tf.train.MomentumOptimizer(tf.constant(0.05), tf.constant(0.8), use_nesterov=True).minimize(
                loss, global_step=gs, name="train")
        elif case == "callable_hypers":
            train = tf.train.AdamOptimizer(lambda: 0.01, beta1=lambda: 0.8).minimize(loss, global_step=gs)
        out["train"] = train.name
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(3):
                s.run(train)
            out["values"] = s.run({"w": w, "b": b, "global_step": gs})
    return out


@pytest.mark.parametrize("case", ["gate_GATE_NONE", "gate_GATE_OP", "gate_GATE_GRAPH", "var_list", "grad_loss",
                                  "tensor_hypers", "callable_hypers"])
def test_minimize_matches_tensorflow(case):
    want, got = _run(tensorflow_v1(), case), _run(ref_v1(), case)
    assert got["train"] == want["train"]
    assert got.get("grad_types") == want.get("grad_types")
    for k, v in want["values"].items():
        np.testing.assert_allclose(got["values"][k], v, rtol=4e-15, atol=4e-16, err_msg=k)
    if case == "var_list":
        np.testing.assert_array_equal(got["values"]["w"], W0)
    expect_steps = 0 if case == "grad_loss" else 3
    assert int(got["values"]["global_step"]) == expect_steps


# -- the functional form, bit for bit against the graph path ----------------------------

FUNCTIONAL = [  # (module, class, hyper (functional keywords = class keywords), slot name per state field)
    ("gradient_descent", "GradientDescentOptimizer", dict(learning_rate=0.1), {}),
    ("momentum", "MomentumOptimizer", dict(learning_rate=0.1, momentum=0.9, use_nesterov=True),
     {"momentum": "momentum"}),
    ("adagrad", "AdagradOptimizer", dict(learning_rate=0.3, initial_accumulator_value=0.2),
     {"accumulator": "accumulator"}),
    ("adadelta", "AdadeltaOptimizer", dict(learning_rate=1.0, rho=0.9, epsilon=1e-6),
     {"accum": "accum", "accum_update": "accum_update"}),
    ("adam", "AdamOptimizer", dict(learning_rate=0.05, beta1=0.8), {"m": "m", "v": "v"}),
    ("rmsprop", "RMSPropOptimizer", dict(learning_rate=0.01, momentum=0.5), {"rms": "rms", "momentum": "momentum"}),
    ("rmsprop", "RMSPropOptimizer", dict(learning_rate=0.01, momentum=0.5, centered=True),
     {"rms": "rms", "momentum": "momentum", "mg": "mg"}),
    ("ftrl", "FtrlOptimizer", dict(learning_rate=0.3, l1_regularization_strength=0.01, beta=0.3),
     {"accum": "accum", "linear": "linear"}),
    ("ftrl", "FtrlOptimizer", dict(learning_rate=0.3, learning_rate_power=-0.7,
                                   l2_shrinkage_regularization_strength=0.1), {"accum": "accum", "linear": "linear"}),
    ("proximal_adagrad", "ProximalAdagradOptimizer", dict(learning_rate=0.3, l1_regularization_strength=0.01,
                                                          l2_regularization_strength=0.1),
     {"accumulator": "accumulator"}),
    ("proximal_gradient_descent", "ProximalGradientDescentOptimizer",
     dict(learning_rate=0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.1), {}),
    ("adagrad_da", "AdagradDAOptimizer", dict(learning_rate=0.3, l1_regularization_strength=0.01,
                                              l2_regularization_strength=0.1),
     {"gradient_accumulator": "gradient_accumulator",
      "gradient_squared_accumulator": "gradient_squared_accumulator"}),
]
GRADS = [{"w": np.sin(np.arange(6.0)).reshape(3, 2) * (k + 1), "b": np.cos([1.0 + k, 2.0 - k])} for k in range(4)]


def _graph_path(mod, cls, hyper, dtype):
    tf = ref_v1()
    with tf.Graph().as_default():
        params = {"w": tf.Variable(W0.astype(dtype), name="w"), "b": tf.Variable(B0.astype(dtype), name="b")}
        gs = tf.train.get_or_create_global_step()
        feeds = {k: tf.placeholder(dtype, v.shape) for k, v in params.items()}
        kw = dict(hyper)
        if cls == "AdagradDAOptimizer":
            kw["global_step"] = gs
        opt = getattr(mod, cls)(**kw)
        train = opt.apply_gradients([(feeds[k], params[k]) for k in params], global_step=gs)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for grads in GRADS:
                s.run(train, {feeds[k]: grads[k].astype(dtype) for k in feeds})
            values = s.run(params)
            slots = {n: s.run({k: opt.get_slot(v, n) for k, v in params.items()}) for n in opt.get_slot_names()}
            extra = {n: s.run(v) for v in opt.variables() for n in [v.op.name] if "/" not in n}
    return values, slots, extra


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("module,cls,hyper,fields", FUNCTIONAL, ids=[f"{f[1]}-{i}" for i, f in enumerate(FUNCTIONAL)])
def test_functional_step_is_bit_identical_to_the_graph(module, cls, hyper, fields, dtype):
    mod = importlib.import_module(f"ref.optimizers.{module}")
    want_params, want_slots, want_extra = _graph_path(mod, cls, hyper, dtype)
    params = {"w": W0.astype(dtype), "b": B0.astype(dtype)}
    original = {k: v.copy() for k, v in params.items()}
    state = mod.init(params, **hyper)
    for grads in GRADS:
        params, state = mod.step(params, {k: v.astype(dtype) for k, v in grads.items()}, state, **hyper)
    for k in want_params:
        assert params[k].dtype == want_params[k].dtype
        np.testing.assert_array_equal(params[k], want_params[k], err_msg=k)
    for field, slot in fields.items():
        for k in want_params:
            np.testing.assert_array_equal(getattr(state, field)[k], want_slots[slot][k], err_msg=f"{field}/{k}")
    for name, value in want_extra.items():  # Adam's beta1_power / beta2_power
        assert np.asarray(getattr(state, name)).dtype == value.dtype
        np.testing.assert_array_equal(getattr(state, name), value, err_msg=name)
    assert type(state).__name__.endswith("State")
    for k in original:  # the inputs are never modified
        np.testing.assert_array_equal(original[k], W0.astype(dtype) if k == "w" else B0.astype(dtype))


def test_functional_lists_and_missing_gradients():
    from ref.optimizers import adam

    params = [W0.astype(np.float32), B0.astype(np.float32)]
    state = adam.init(params)
    new, state2 = adam.step(params, [GRADS[0]["w"].astype(np.float32), None], state)
    assert isinstance(new, list) and new[1] is params[1]
    assert not np.array_equal(new[0], params[0])
    np.testing.assert_array_equal(state2.m[1], np.zeros(2, np.float32))
    assert state2.beta1_power == np.float32(0.9) * np.float32(0.9)


def test_gating_constants():
    # Seed 002, tf.compat.v1.train.Optimizer: "Class Variables GATE_GRAPH 2 GATE_NONE 0 GATE_OP 1"
    from ref.optimizers.optimizer import Optimizer

    assert (Optimizer.GATE_GRAPH, Optimizer.GATE_NONE, Optimizer.GATE_OP) == (2, 0, 1)
