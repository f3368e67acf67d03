"""Resource variables on par with reference variables, each program run under
tensorflow.compat.v1 and ref: count_up_to, gradients through cond / while_loop
with respect to a variable, unconnected gradients as zeros, variables created
inside cond / while bodies, initial values from other variables (the
uninitialized-dependency guard), create_partitioned_variables with a Tensor
initializer, synchronization / aggregation / trainable, and TF's messages."""
import copy

import numpy as np
import pytest

import ref
from tests.grad._both import assert_same, resource_variable_class, run, tf_v1

BOTH = [False, True]


def _count_up_to(use_resource):
    def program(tf, s):
        v = tf.Variable(0, use_resource=use_resource, dtype=tf.int32)
        c = v.count_up_to(2)
        s.run(tf.global_variables_initializer())
        out = [s.run(c), s.run(c)]
        try:
            s.run(c)
        except tf.errors.OutOfRangeError:
            out.append("OutOfRangeError")
        return out, c.op.type, c.dtype, s.run(v)
    return program


def _cond_gradient(use_resource):
    def program(tf, s):
        v = tf.Variable(3.0, use_resource=use_resource)
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: v * v, lambda: v + 1.0)
        g = tf.gradients(y, v)
        s.run(tf.global_variables_initializer())
        return s.run(g, {p: True}), s.run(g, {p: False})
    return program


def _cond_gradient_gather(use_resource):
    def program(tf, s):
        v = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), use_resource=use_resource)
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.reduce_sum(tf.gather(v, [0, 2])), lambda: tf.reduce_sum(v.read_value() * 2.0))
        (g,) = tf.gradients(y, v)
        s.run(tf.global_variables_initializer())
        return s.run(tf.convert_to_tensor(g), {p: True}), s.run(tf.convert_to_tensor(g), {p: False})
    return program


def _while_gradient(use_resource):
    def program(tf, s):
        v = tf.Variable(2.0, use_resource=use_resource)
        _, y = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * v), [0, tf.constant(1.0)])
        g = tf.gradients(y, v)
        s.run(tf.global_variables_initializer())
        return s.run(g)
    return program


def _cond_in_while_gradient(use_resource):  # resource_variable_ops_test testGradientCondInWhileLoop
    def program(tf, s):
        v = tf.Variable(1.0, use_resource=use_resource)

        def body(i, x):
            return i + 1, tf.cond(i > 0, lambda: x + v, lambda: 2.0 * v)
        _, x = tf.while_loop(lambda i, _: i < 1, body, [0, 0.0])
        g = tf.gradients(x, v)
        s.run(tf.global_variables_initializer())
        return s.run(g)
    return program


def _minimize_in_while(use_resource):
    def program(tf, s):
        v = tf.Variable(np.array([1.0, 2.0], np.float32), use_resource=use_resource)
        _, y = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x + tf.reduce_sum(v * v)), [0, 0.0])
        op = tf.train.GradientDescentOptimizer(0.1).minimize(y)
        s.run(tf.global_variables_initializer())
        s.run(op)
        return s.run(v)
    return program


def _unconnected(use_resource):
    def program(tf, s):
        v = tf.Variable([1.0, 2.0], use_resource=use_resource)
        w = tf.Variable([[1.0, 2.0]], use_resource=use_resource)
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.reduce_sum(v * 2.0)
        s.run(tf.global_variables_initializer())
        out = []
        for how in ("none", "zero", tf.UnconnectedGradients.ZERO):
            g = tf.gradients(y, [v, w, x], unconnected_gradients=how)
            out.append([None if t is None else (t.shape.as_list(), s.run(t, {x: np.zeros((2, 3))})) for t in g])
        return out
    return program


def _variable_in_cond(use_resource):
    def program(tf, s):
        p = tf.placeholder(tf.bool, [])

        def branch():
            v = tf.Variable(5.0, use_resource=use_resource, name="inner")
            g = tf.get_variable("gv", [2], initializer=tf.ones_initializer(), use_resource=use_resource)
            return v + tf.reduce_sum(g)
        y = tf.cond(p, branch, lambda: tf.constant(0.0))
        names = [x.name for x in tf.global_variables()]
        s.run(tf.global_variables_initializer())
        return names, s.run(y, {p: True}), s.run(y, {p: False})
    return program


def _variable_in_while(use_resource):
    def program(tf, s):
        def body(i, x):
            v = tf.Variable(lambda: tf.constant(2.0), use_resource=use_resource, name="w")
            return i + 1, x + v
        _, y = tf.while_loop(lambda i, x: i < 3, body, [0, 0.0])
        names = [x.name for x in tf.global_variables()]
        s.run(tf.global_variables_initializer())
        return names, s.run(y)
    return program


def _initial_value_from_control_flow(use_resource):  # testControlFlowInitialization
    def program(tf, s):
        def body(i, _):
            v = tf.Variable(tf.zeros([], dtype=tf.int32), use_resource=use_resource)
            return i + 1, v.read_value()
        try:
            tf.while_loop(lambda i, _: i < 10, body, [0, 0])
        except ValueError as e:
            return "ValueError", "initial_value" in str(e)
        return "no error"
    return program


def _guard(which, initialize_v_first):
    """TF's _try_guard_against_uninitialized_dependencies: the op names it builds.
    (TF 2.21's functional cond reads the captured variable even when the guard
    picks the initial value; ref gives TF1's result -- compared separately.)"""
    def program(tf, s):
        v = tf.Variable([1.0, 2.0], use_resource=False, name="v")
        if which == "product":
            w = tf.Variable(v * 2.0, use_resource=False, name="w")
        elif which == "variable":
            w = tf.Variable(v, use_resource=False, name="w")
        else:
            w = tf.Variable(lambda: v + 1.0, use_resource=False, name="w")
        if initialize_v_first:
            s.run(v.initializer)
            s.run(v.assign([5.0, 6.0]))
            s.run(w.initializer)
            value = s.run(w)
        else:
            value = None
        built = sorted((o.name, o.type) for o in tf.get_default_graph().get_operations()
                       if o.name.startswith(("w/IsVariableInitialized", "v/read_w", "mul_w", "w/Initializer/add_w")))
        return value, w.initializer.inputs[1].op.name, built
    return program


@pytest.mark.parametrize("which, want", [("product", [2.0, 4.0]), ("variable", [1.0, 2.0]),
                                         ("callable", [2.0, 3.0])])
def test_guard_uses_initial_value_of_uninitialized_dependency(which, want):
    """TF1: ``w``'s initializer works before ``v``'s has run (it uses ``v``'s initial value)."""
    with ref.Graph().as_default(), ref.Session() as s:
        v = ref.Variable([1.0, 2.0], use_resource=False, name="v")
        init = {"product": lambda: v * 2.0, "variable": lambda: v, "callable": lambda: (lambda: v + 1.0)}[which]()
        w = ref.Variable(init, use_resource=False, name="w")
        s.run(w.initializer)
        np.testing.assert_array_equal(s.run(w), np.array(want, np.float32))
        assert not s.run(ref.is_variable_initialized(v))


def _initial_value_from_resource(tf, s):
    v = tf.Variable([1.0, 2.0], use_resource=True, name="v")
    w = tf.Variable(v * 2.0, use_resource=True, name="w")
    x = tf.Variable(v, use_resource=True, name="x")
    for var in (v, w, x):
        s.run(var.initializer)
    return s.run([w, x]), w.initializer.inputs[1].op.name, x.initializer.inputs[1].op.name


def _sync(use_resource, kwargs):
    def program(tf, s):
        kw = {k: (getattr(tf.VariableSynchronization, v) if k == "synchronization" and isinstance(v, str) and
                  v.isupper() else getattr(tf.VariableAggregation, v) if k == "aggregation" and isinstance(v, str)
                  and v.isupper() else v) for k, v in kwargs.items()}
        v = tf.Variable(1.0, use_resource=use_resource, **kw)
        g = tf.get_variable("g", [], use_resource=use_resource, **kw)
        return (v.trainable, v.synchronization.name, v.aggregation.name, g.trainable,
                [x.name for x in tf.trainable_variables()])
    return program


SYNC_CASES = [dict(synchronization="ON_READ"), dict(synchronization="ON_READ", trainable=True),
              dict(synchronization="ON_READ", trainable=False), dict(aggregation="MEAN"),
              dict(synchronization="ON_WRITE", aggregation="SUM"), dict(aggregation="bad"),
              dict(synchronization=5)]


def _partitioned_tensor_initializer(slicing):
    def program(tf, s):
        init = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
        vs = tf.create_partitioned_variables([4, 3], slicing, init)
        s.run(tf.global_variables_initializer())
        return [x.name for x in vs], [s.run(x) for x in vs]
    return program


def _constraint_not_callable(use_resource):
    def program(tf, s):
        tf.Variable(1.0, constraint=0, use_resource=use_resource)
    return program


def _resource_methods(tf, s):
    RV = resource_variable_class(tf)
    with tf.name_scope("foo"):
        v = RV(300.0, name="var6")
    w = RV(name="var4", initial_value=tf.ones(shape=[10, 20, 35]))
    f = RV(initial_value=lambda: 1, dtype=tf.float32)
    return (v._shared_name, v.name, str(w.shape), str(w.value().shape), str(w.sparse_read([0, 1, 2]).shape),
            str(w.sparse_read(tf.placeholder(tf.int32)).shape),
            f.handle.op.colocation_groups() == f.initializer.inputs[1].op.colocation_groups())


def _resource_caching_device(tf, s):
    RV = resource_variable_class(tf)
    out = []
    with tf.device("/job:server/task:1"):
        v = RV(2.0, caching_device="/job:localhost")
    with tf.colocate_with(v.op):
        w = RV(2.0, caching_device="/job:localhost")
    for x in (v, w):
        out.append(x.value().device)
        try:
            x.value().op.get_attr("_class")
            out.append("has _class")
        except ValueError:
            out.append("ValueError")
    return out


def _resource_cached_read_before_write(tf, s):  # testCachedValueReadBeforeWrite
    v = resource_variable_class(tf)(0.0, caching_device="cpu:0")
    s.run(v.initializer)
    value, _ = s.run([v, v.assign_add(1.0)])
    return value, s.run(v)


def _resource_deepcopy(tf, s):
    try:
        copy.deepcopy(resource_variable_class(tf)(np.ones((2,)), name="init"))
    except NotImplementedError as e:
        return str(e)


PROGRAMS = {}
for _r in BOTH:
    _k = "resource" if _r else "ref"
    for _name, _make in [("count_up_to", _count_up_to), ("cond_gradient", _cond_gradient),
                         ("cond_gradient_gather", _cond_gradient_gather), ("while_gradient", _while_gradient),
                         ("cond_in_while_gradient", _cond_in_while_gradient),
                         ("minimize_in_while", _minimize_in_while), ("unconnected", _unconnected),
                         ("variable_in_cond", _variable_in_cond), ("variable_in_while", _variable_in_while),
                         ("initial_value_from_control_flow", _initial_value_from_control_flow),
                         ("constraint_not_callable", _constraint_not_callable)]:
        PROGRAMS[f"{_name}_{_k}"] = _make(_r)
    for _i, _kw in enumerate(SYNC_CASES):
        PROGRAMS[f"sync_{_k}_{_i}"] = _sync(_r, _kw)
for _which in ("product", "variable", "callable"):
    PROGRAMS[f"guard_names_{_which}"] = _guard(_which, False)
    PROGRAMS[f"guard_values_{_which}"] = _guard(_which, True)
PROGRAMS["initial_value_from_resource"] = _initial_value_from_resource
PROGRAMS["partitioned_tensor_initializer_even"] = _partitioned_tensor_initializer([2, 1])
PROGRAMS["partitioned_tensor_initializer_uneven"] = _partitioned_tensor_initializer([3, 1])
PROGRAMS["resource_methods"] = _resource_methods
PROGRAMS["resource_caching_device"] = _resource_caching_device
PROGRAMS["resource_deepcopy"] = _resource_deepcopy
PROGRAMS["resource_cached_read_before_write"] = _resource_cached_read_before_write
# A reference variable with a Tensor initial value from a while body: TF 2.21 builds a
# graph whose Assign reads the body's tensor from outside it; ref raises TF's
# ValueError for both kinds (tested for resource variables above).
del PROGRAMS["initial_value_from_control_flow_ref"]


def test_ref_variable_initial_value_from_while_body_raises():
    with ref.Graph().as_default():
        def body(i, _):
            v = ref.Variable(ref.zeros([], dtype=ref.int32), use_resource=False)
            return i + 1, v.read_value()
        with pytest.raises(ValueError, match="inside a control-flow"):  # TF1's message (variables_test.py)
            ref.while_loop(lambda i, _: i < 10, body, [0, 0])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_matches_tensorflow(name, monkeypatch):
    tf = tf_v1()
    from tensorflow.python.ops import control_flow_util  # TF 1.x control flow, as compat.v1 graphs build
    monkeypatch.setattr(control_flow_util, "ENABLE_CONTROL_FLOW_V2", False)
    want = run(tf, PROGRAMS[name])
    got = run(ref, PROGRAMS[name])
    assert_same(got, want)


# -- TF's variables_test.py (graph mode) --------------------------------------------------

def _variables_module(tf):
    if tf is ref:
        from ref.graph_ops import variables
        return variables
    from tensorflow.python.ops import variables
    return variables


def _cyclic_initializer(tf, s):  # testCyclicInitializer: a loop's output is left as it is
    c = tf.while_loop(lambda i: i < 10, lambda i: i + 1, (tf.constant(0),))
    c = c[0] if isinstance(c, (list, tuple)) else c
    return _variables_module(tf)._try_guard_against_uninitialized_dependencies("test", c) is c


def _variables_in_cond_initialize_alone(tf, s):  # testControlFlow
    v0 = tf.Variable(0, name="v0", use_resource=False)
    made = {}

    def branch(k):
        def fn():
            made[k] = tf.Variable(k, name=f"v{k}", use_resource=False)
            return made[k] + v0
        return fn
    add = tf.cond(tf.less(v0, 10), branch(1), branch(2))
    out = []
    for k in (1, 2):
        s.run(made[k].initializer)
        out.append(s.run(made[k]))
    for t in (v0, add):
        try:
            s.run(t)
            out.append("ran")
        except tf.errors.OpError as e:
            out.append((type(e).__name__, "uninitialized" in str(e)))
    s.run(v0.initializer)
    return out, s.run(add)


def _initializer_placement(tf, s):  # testInitializerFunctionDevicePlacement, testColocation
    init = lambda: tf.constant(42.0)  # noqa: E731
    with tf.device("/cpu:100"):
        v1 = tf.Variable(init, dtype=tf.float32, name="v1", use_resource=False)
    v2 = tf.Variable(init, dtype=tf.float32, name="v2", use_resource=False)
    with tf.device("/job:ps"):
        var = tf.Variable(0, name="v", use_resource=False)
    with tf.device("/job:worker/task:7"):
        a = var.assign(1)
    return (v1.op.device, v1.op.colocation_groups(), [i.op.colocation_groups() for i in v1.initializer.inputs],
            [i.op.colocation_groups() for i in v2.initializer.inputs], a.device, a.op.colocation_groups())


def _control_dependencies_none(tf, s):  # testControlDepsNone
    c = tf.constant(1.0)
    with tf.control_dependencies([c]):
        d = tf.constant(2.0)
        x = tf.Variable(2.0, use_resource=False)
        y = tf.Variable(2.0, use_resource=True)
    return ([o.name for o in d.op.control_inputs], x.initializer.control_inputs, x.value().op.control_inputs,
            x._ref().op.control_inputs, y.initializer.control_inputs, y.value().op.control_inputs)


VARIABLES_TEST = {f.__name__[1:]: f for f in (_cyclic_initializer, _variables_in_cond_initialize_alone,
                                               _initializer_placement, _control_dependencies_none)}


@pytest.mark.parametrize("name", sorted(VARIABLES_TEST))
def test_variables_test_cases_match_tensorflow(name):
    want = run(tf_v1(), VARIABLES_TEST[name])
    got = run(ref, VARIABLES_TEST[name])
    assert_same(got, want)


def test_initialized_value_chain_initializes_in_any_order():
    """variables_test.py testNoRefDataRace (TF1: the guard makes the order irrelevant;
    TF 2.21's functional cond reads the uninitialized variable and fails)."""
    with ref.Graph().as_default(), ref.Session() as s:
        a = ref.Variable([1, 2, 3], dtype=ref.float32, use_resource=False)
        b = ref.Variable(a.initialized_value() + 2, use_resource=False)
        c = ref.Variable(b.initialized_value() + 2, use_resource=False)
        s.run(ref.variables_initializer([c, b, a]))
        for v, want in ((a, [1, 2, 3]), (b, [3, 4, 5]), (c, [5, 6, 7])):
            np.testing.assert_array_equal(s.run(v), np.array(want, np.float32))
