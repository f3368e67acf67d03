"""Variable sharing and naming: the same program under ``ref`` and under
``tensorflow.compat.v1`` (reference variables) must give the same variable
names, op names, collection contents and reuse errors (seed 003 "Sharing
Variables", seed 002 ``tf.compat.v1.variable_scope``)."""
import re

import pytest
from ref.graph_ops import variable_scope as _under_test  # noqa: F401  (the module these tests cover)


def _err(fn):
    try:
        fn()
    except (ValueError, TypeError) as e:
        msg = str(e).split(" Originally defined at")[0]
        return (type(e).__name__, msg)
    return None


def nested_scopes(tf):
    with tf.variable_scope("foo"):
        with tf.variable_scope("bar"):
            v = tf.get_variable("v", [1])
    return v.name


def reuse_true(tf):
    with tf.variable_scope("foo"):
        v = tf.get_variable("v", [1])
    with tf.variable_scope("foo", reuse=True):
        v1 = tf.get_variable("v", [1])
    return v1 is v, v1.name


def reuse_variables(tf):
    with tf.variable_scope("foo") as scope:
        v = tf.get_variable("v", [1])
        scope.reuse_variables()
        v1 = tf.get_variable("v", [1])
    return v1 is v, scope.reuse


def already_exists(tf):
    def body():
        with tf.variable_scope("foo"):
            tf.get_variable("v", [1])
            tf.get_variable("v", [1])
    return _err(body)


def does_not_exist(tf):
    def body():
        with tf.variable_scope("foo", reuse=True):
            tf.get_variable("v", [1])
    return _err(body)


def auto_reuse(tf):
    def foo():
        with tf.variable_scope("foo", reuse=tf.AUTO_REUSE):
            return tf.get_variable("v", [1])
    v1, v2 = foo(), foo()
    return v1 is v2, v1.name, len(tf.global_variables())


def default_name_counters(tf):
    names = []
    with tf.variable_scope("foo") as vs:
        with tf.variable_scope(None, default_name="bar"):
            names.append(tf.get_variable("a", [1]).name)
        with tf.variable_scope(None, default_name="bar"):
            names.append(tf.get_variable("b", [1]).name)
    with tf.variable_scope(vs):
        with tf.variable_scope(None, default_name="bar"):
            names.append(tf.get_variable("c", [1]).name)
    return names


def reenter_without_aux_name_scope(tf):
    with tf.variable_scope("foo") as vs:
        pass
    with tf.variable_scope(vs, auxiliary_name_scope=False) as vs1:
        with tf.name_scope(vs1.original_name_scope):
            v = tf.get_variable("v", [1])
            c = tf.constant([1], name="c")
    return v.name, c.name, vs1.original_name_scope


def reenter_scope_object(tf):
    with tf.variable_scope("foo") as vs:
        a = tf.constant(1.0, name="a")
    with tf.variable_scope(vs):
        b = tf.constant(1.0, name="b")
        w = tf.get_variable("w", [1])
    with tf.variable_scope("foo"):
        c = tf.constant(1.0, name="c")
    return a.name, b.name, w.name, c.name, vs.name, vs.original_name_scope


def name_scope_vs_variable_scope(tf):
    with tf.name_scope("ns"):
        x = tf.get_variable("x", [1])
        y = tf.Variable(1.0, name="y")
        with tf.variable_scope("vs"):
            z = tf.get_variable("z", [1])
            c = tf.constant(0.0, name="c")
    return x.name, y.name, z.name, c.name


def variable_op_names(tf):
    g = tf.get_default_graph() if hasattr(tf, "get_default_graph") else None
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable(tf.constant(3.0), name="v")
    ops = [op.name for op in v.graph.get_operations()]
    return ops, v.name, w.name, v.initializer.name, v.op.name, str(v.dtype.name), v.get_shape().as_list(), g is None


def collections(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(1.0, name="b", trainable=False)
    c = tf.Variable(1.0, name="c", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    with tf.variable_scope("s"):
        d = tf.get_variable("d", [2])
        e = tf.get_variable("e", [2], trainable=False)
    names = lambda vs: [v.name for v in vs]  # noqa: E731
    return (names(tf.global_variables()), names(tf.trainable_variables()), names(tf.local_variables()),
            names(tf.trainable_variables("s")), names(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, "s/")),
            names(tf.get_variable_scope().global_variables()), [a.trainable, b.trainable, c.trainable, d.trainable,
                                                                 e.trainable])


def scope_methods(tf):
    with tf.variable_scope("outer", initializer=tf.constant_initializer(2.0)) as outer:
        with tf.variable_scope("inner", dtype=tf.float32) as inner:
            v = tf.get_variable("v", [1])
            vars_in = [x.name for x in inner.global_variables()]
    return (outer.name, inner.name, inner.original_name_scope, v.name, vars_in,
            [x.name for x in outer.trainable_variables()], inner.reuse, inner.dtype.name)


def get_variable_dtype_mismatch(tf):
    return _err(lambda: tf.get_variable("v", initializer=tf.constant(1), dtype=tf.float32))


def initializer_constant_with_shape(tf):
    return _err(lambda: tf.get_variable("v", [2], initializer=tf.constant([1.0, 2.0])))


def share_with_other_shape(tf):
    def body():
        with tf.variable_scope("s"):
            tf.get_variable("v", [2])
        with tf.variable_scope("s", reuse=True):
            tf.get_variable("v", [3])
    return _err(body)


def reuse_inherited(tf):
    with tf.variable_scope("root"):
        v = tf.get_variable("v", [1])
    with tf.variable_scope("root", reuse=True):
        with tf.variable_scope("child") as child:
            err = _err(lambda: tf.get_variable("w", [1]))
        again = tf.get_variable("v", [1])
    return child.reuse, err, again is v


def custom_getter(tf):
    seen = []

    def getter(getter, name, *args, **kwargs):
        seen.append(name)
        return getter(name + "_x", *args, **kwargs)

    with tf.variable_scope("cg", custom_getter=getter):
        v = tf.get_variable("v", [1])
    return v.name, seen


def make_template_program(tf):
    def my_op(x, scalar_name):
        var1 = tf.get_variable(scalar_name, shape=[], initializer=tf.constant_initializer(1))
        return x * var1

    scale_by_y = tf.make_template("scale_by_y", my_op, scalar_name="y")
    z = scale_by_y(tf.constant(2.0))
    w = scale_by_y(tf.constant(3.0))
    with tf.variable_scope("scope") as vs:
        t = tf.make_template("scale_by_y", my_op, scalar_name="y")
        z1 = t(tf.constant(2.0))
    with tf.variable_scope(vs, reuse=True):
        t2 = tf.make_template("scale_by_y", my_op, scalar_name="y")
        z2 = t2(tf.constant(2.0))
    now = tf.make_template("now", my_op, create_scope_now_=True, scalar_name="k")
    n1 = now(tf.constant(1.0))
    scopes = [t.name.rsplit("/", 1)[0] for t in (z, w, z1, z2, n1)]  # the name scope each call opened
    return [v.name for v in tf.global_variables()], scopes, scale_by_y.variable_scope.name


def template_trainable_variable_error(tf):
    def bad(x):
        return x * tf.Variable(1.0, name="bad")

    t = tf.make_template("t", bad)
    t(tf.constant(1.0))
    e = _err(lambda: t(tf.constant(1.0)))
    return e[0], e[1].split(":")[0]


def variable_op_scope_program(tf):
    a = tf.constant(1.0)
    with tf.variable_op_scope([a], None, "MyOp") as scope:
        c = tf.get_variable("c", [1])
    with tf.variable_op_scope([a], None, "MyOp") as scope2:
        d = tf.get_variable("d", [1])
    return scope.name, c.name, scope2.name, d.name


def creator_scope(tf):
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs["name"])
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        v = tf.Variable(1.0, name="cv")
        w = tf.get_variable("gw", [1])
    return seen, [x.name for x in tf.trainable_variables()], v.name, w.name


def regularizers(tf):
    reg = lambda v: tf.reduce_sum(v) if hasattr(tf, "reduce_sum") else v  # noqa: E731
    with tf.variable_scope("r", regularizer=lambda v: tf.identity(v, name="l")):
        tf.get_variable("a", [1])
        tf.get_variable("b", [1], regularizer=tf.no_regularizer)
    del reg
    return [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)]


def partitioned_names(tf):
    with tf.variable_scope("p", partitioner=tf.fixed_size_partitioner(3)):
        pv = tf.get_variable("emb", [7, 2])
    parts = list(pv)
    return ([v.name for v in parts], [v.get_shape().as_list() for v in parts],
            [v._get_save_slice_info().spec for v in parts], len(pv), [v.name for v in tf.global_variables()])


def partitioned_errors(tf):
    def scalar_tensorshape():
        tf.get_variable("s", shape=tf.TensorShape([]) if hasattr(tf, "TensorShape") else (),
                        partitioner=tf.fixed_size_partitioner(2))

    def unpartitioned_then_partitioned():
        tf.get_variable("u", [4])
        tf.get_variable("u", [4], partitioner=tf.fixed_size_partitioner(2))

    scalar_list = tf.get_variable("sl", shape=[], partitioner=tf.fixed_size_partitioner(2))
    return _err(unpartitioned_then_partitioned), scalar_list.name


PROGRAMS = [nested_scopes, reuse_true, reuse_variables, already_exists, does_not_exist, auto_reuse,
            default_name_counters, reenter_without_aux_name_scope, reenter_scope_object,
            name_scope_vs_variable_scope, variable_op_names, collections, scope_methods,
            get_variable_dtype_mismatch, initializer_constant_with_shape, share_with_other_shape, reuse_inherited,
            custom_getter, make_template_program, template_trainable_variable_error, variable_op_scope_program,
            creator_scope, regularizers, partitioned_names, partitioned_errors]


def _run(tf, prog):
    with tf.Graph().as_default():
        return prog(tf)


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.__name__)
def test_same_as_tensorflow(prog, rtf, tf1):
    assert _run(rtf, prog) == _run(tf1, prog)


# The documented outcomes (seed 003 / seed 002 examples), independent of TF.
DOCUMENTED = [
    (nested_scopes, "foo/bar/v:0"),
    (reuse_true, (True, "foo/v:0")),
    (reuse_variables, (True, True)),
    (auto_reuse, (True, "foo/v:0", 1)),
    (default_name_counters, ["foo/bar/a:0", "foo/bar_1/b:0", "foo/bar/c:0"]),
]


@pytest.mark.parametrize("prog,expected", DOCUMENTED, ids=lambda p: getattr(p, "__name__", ""))
def test_documented_examples(prog, expected, rtf):
    assert _run(rtf, prog) == expected


@pytest.mark.parametrize("prog,pattern", [
    (already_exists, r"Variable foo/v already exists, disallowed\. Did you mean to set reuse=True or "
                     r"reuse=tf\.AUTO_REUSE in VarScope\?"),
    (does_not_exist, r"Variable foo/v does not exist, or was not created with tf\.get_variable\(\)\. Did you mean "
                     r"to set reuse=tf\.AUTO_REUSE in VarScope\?"),
], ids=["exists", "missing"])
def test_reuse_error_wording(prog, pattern, rtf):
    kind, msg = _run(rtf, prog)
    assert kind == "ValueError" and re.fullmatch(pattern, msg)


def test_scalar_tensorshape_partitioner_error(rtf):
    with rtf.Graph().as_default():
        with pytest.raises(ValueError, match=r"A partitioned Variable must have rank at least 1, shape: \(\)"):
            from ref.types.shapes import TensorShape

            rtf.get_variable("s", shape=TensorShape([]), partitioner=rtf.fixed_size_partitioner(2))


def test_variable_scopes_are_thread_local(rtf):
    import threading

    out = {}
    with rtf.Graph().as_default() as g:
        with rtf.variable_scope("main"):
            def target():
                with g.as_default():
                    out["name"] = rtf.get_variable_scope().name

            t = threading.Thread(target=target)
            t.start()
            t.join()
            out["main"] = rtf.get_variable_scope().name
    assert out == {"name": "", "main": "main"}
