"""Control flow v2 (``tf.compat.v1.enable_control_flow_v2()``: ``while_loop``
builds the functional ``While``, ``cond`` the functional ``If``) against
TensorFlow in the same mode: values of programs that take gradients inside
loop bodies with respect to outer tensors (TF's ``_Inputs``/``_Consumers``
crossing function captures), bodies under ``control_dependencies`` on outer
ops (TF's FuncGraph control captures), conds returning IndexedSlices and
their gradients (IndexedSlices where TF's are), static shapes of gradients,
the errors of loop bodies and branches whose results do not match, TypeSpec
shape invariants, and what cond returns for one-element results (v1 and v2)."""
import contextlib

import numpy as np
import pytest

import ref
from ref.graph_ops import control_flow_ops as _under_test  # noqa: F401
from tests.graph_ops._graphdef import tf1_behaviour, tf_v1


@contextlib.contextmanager
def _v2(lib):
    """``lib`` (ref or tf.compat.v1) building control flow v2, restored after."""
    if lib is ref:
        was = ref.control_flow_v2_enabled()
        ref.enable_control_flow_v2()
        try:
            yield
        finally:
            if not was:
                ref.disable_control_flow_v2()
        return
    from tensorflow.python.ops import control_flow_util
    with tf1_behaviour():
        control_flow_util.ENABLE_CONTROL_FLOW_V2 = True
        yield


def _values(lib, program):
    with _v2(lib), lib.Graph().as_default():
        outs, feed = program(lib)
        init = lib.global_variables_initializer()
        with lib.Session() as s:
            s.run(init)
            return s.run(outs, {k: v for k, v in feed.items()})


def _grad_of_outer_in_body(tf):  # TF's testCallGradInLoop
    params = tf.constant(5.0)
    params_1 = tf.square(params)

    def body(i, x):
        data = tf.constant([1.0, 2.0, 3.0]) * params_1
        return i + 1, x + tf.gradients(data, params)[0]

    return tf.while_loop(lambda i, _: i < 10, body, [tf.constant(0), tf.constant(0.0)]), {}


def _grad_of_inner_loop(tf):  # TF's testWhileGradInWhile: an inner loop's gradient wrt an outer placeholder
    x = tf.placeholder(tf.float32, shape=None, name="x")
    n = tf.convert_to_tensor(1.0, name="n")

    def outer_body(n):
        r = tf.while_loop(lambda n: n < 10.0, lambda n: n + x, [n], [tf.TensorShape(None)])
        return tf.gradients(r, x)

    return tf.while_loop(lambda n: n < 6.0, outer_body, [n], [tf.TensorShape(None)]), {x: 1.0}


def _grad_through_two_captures(tf):  # the outer tensor captured by the outer body, then the inner one
    w = tf.placeholder(tf.float32, [], name="w")

    def outer_body(i, acc):
        _, y = tf.while_loop(lambda j, y: j < 3, lambda j, y: (j + 1, y * w), [0, tf.constant(1.0)])
        return i + 1, acc + tf.gradients(y * y, w)[0]

    return tf.while_loop(lambda i, _: i < 2, outer_body, [0, tf.constant(0.0)]), {w: 1.5}


def _body_under_outer_control_dependency(tf):  # TF's testWhileWithControl_5
    b = tf.placeholder(tf.bool, name="b")
    c = tf.constant(1)

    def body(x):
        with tf.control_dependencies([b]):
            return x + c

    return tf.while_loop(lambda x: x < 10, body, [tf.constant(0)]), {b: True}


def _body_reads_updated_variable(tf):  # the outer op (an assign) runs before the loop
    v = tf.get_variable("v", initializer=1.0, use_resource=True)
    init = tf.variables_initializer([v])
    with tf.control_dependencies([init]):
        up = tf.assign_add(v, 2.0)

    def body(i, s):
        with tf.control_dependencies([up]):
            return i + 1, s + v.read_value()

    return tf.while_loop(lambda i, _: i < 2, body, [0, tf.constant(0.0)]), {}


def _cond_indexed_slices_index_types(tf):  # TF's testCondIndexedSlicesDifferentTypes
    values = tf.constant([10])
    i_32 = tf.convert_to_tensor([0], dtype=tf.int32)
    i_64 = tf.convert_to_tensor([0], dtype=tf.int64)
    r = tf.cond(tf.less(1, 2), lambda: tf.IndexedSlices(values + 1, i_32),
                lambda: tf.IndexedSlices(values - 1, i_64))
    return [r.values, r.indices], {}


def _cond_sparse_read_grad(tf):  # TF's testCondGrad_ResourceVarSparseRead: IndexedSlices through If
    var = tf.get_variable("var", initializer=np.ones((4, 2), np.float32), use_resource=True)
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.reduce_sum(var.sparse_read([1, 2])), lambda: tf.reduce_sum(var * 3.0))
    g = tf.gradients(r, var)[0]
    return [tf.convert_to_tensor(g), tf.constant(isinstance(g, tf.IndexedSlices))], {p: True}


def _cond_second_derivative(tf):  # TF's testCondGradMultiDevice: If's gradient is an If again
    pred = tf.placeholder(tf.bool, [], name="pred")
    x = tf.placeholder(tf.float32, name="x")
    z = tf.cond(pred, lambda: x * x * x, lambda: 2.0 * x)
    g = tf.gradients(z, x)[0]
    return [g, tf.gradients(g, x)[0]], {pred: True, x: 2.0}


VALUE_ROWS = [_grad_of_outer_in_body, _grad_of_inner_loop, _grad_through_two_captures,
              _body_under_outer_control_dependency, _body_reads_updated_variable, _cond_indexed_slices_index_types,
              _cond_sparse_read_grad, _cond_second_derivative]


@pytest.mark.parametrize("program", VALUE_ROWS, ids=lambda f: f.__name__)
def test_values_as_tf(program):
    tf = tf_v1()
    want = _values(tf, program)
    got = _values(ref, program)
    got, want = (x if isinstance(x, (list, tuple)) else [x] for x in (got, want))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _extra_value(tf):  # TF's testWhileBadBodyReturn: N loop variables, N + 1 results
    x = tf.constant([2.0, 4.0], name="values")
    tf.while_loop(lambda i, *x: i < 10, lambda i, *x: (i, i) + x, [tf.constant(0), x])


def _nested_bad_arity(tf):  # TF's testWhile_NestedBadArityFails
    import collections
    named = collections.namedtuple("named", ("a", "b"))
    loop_vars = [named(a=tf.constant(0.0), b=tf.constant(1.0)), (tf.constant(2.0), tf.constant(3.0)),
                 tf.constant(4.0)]
    tf.while_loop(lambda lv0, _1, _2: lv0.a < 100.0, lambda lv0, lv1, _: [lv0, lv1], loop_vars)


def _branches_differ_in_keys(tf):  # TF's testCheckNestedOutputStruct
    x, y = tf.constant(10), tf.constant(200)
    tf.cond(tf.less(1, 2), lambda: {"a": x + y, "b": x + y}, lambda: {"c": y, "d": y})


def _branches_differ_in_dtype(tf):
    tf.cond(tf.less(1, 2), lambda: tf.constant(1), lambda: tf.constant(1.0))


def _slices_against_tensor(tf):  # TF's testCondMismatchedIndexedSlices
    values, indices = tf.constant([10]), tf.constant([0])
    tf.cond(tf.constant(True), lambda: tf.IndexedSlices(values + 1, indices), lambda: values + 1)


def _other_branch_tensor(tf):  # TF's testCondAccessTrueBranchTensorInFalseBranchRaises
    inputs = {"c": tf.constant(1.0)}

    def true_fn():
        inputs["c"] = tf.identity(inputs["c"], name="true_branch")
        return inputs["c"]

    tf.cond(tf.constant(True), true_fn, lambda: tf.identity(inputs["c"]))


def _python_bool_pred(tf):  # TF's testCondBool
    tf.cond(False, lambda: tf.constant(1), lambda: tf.constant(2))


# (builder, error kind, a phrase of the message TF's v2 gives)
ERROR_ROWS = [
    (_extra_value, ValueError, "The two structures don't have the same nested structure"),
    (_nested_bad_arity, ValueError, "the same number of elements"),
    (_branches_differ_in_keys, TypeError, "must have the same number, type, and overall structure"),
    (_branches_differ_in_dtype, TypeError, "must have the same number, type, and overall structure"),
    (_slices_against_tensor, TypeError, "Cannot reconcile tf.cond 0-th outputs"),
    (_other_branch_tensor, ValueError, "Tensor true_branch:0 in true_fn is accessed from false_fn"),
    (_python_bool_pred, TypeError, "must not be a Python bool"),
]


def _resource_grads_through_cond(tf):  # TF's testCondResourceGradShape
    rv1 = tf.get_variable("rv1", initializer=[1.0, 2.0], use_resource=True)
    rv2 = tf.get_variable("rv2", initializer=[3.0, 4.0], use_resource=True)
    return tf.gradients(tf.cond(tf.constant(True), lambda: rv1, lambda: rv2), [rv1, rv2])


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
@pytest.mark.parametrize("build", [_resource_grads_through_cond], ids=lambda f: f.__name__)
def test_static_shapes_as_tf(build, v2):
    tf = tf_v1()
    shapes = []
    for lib in (tf, ref):
        with (_v2(lib) if v2 else (tf1_behaviour() if lib is tf else contextlib.nullcontext())), \
                lib.Graph().as_default():
            shapes.append([t.shape.as_list() if t.shape.ndims is not None else None for t in build(lib)])
    assert shapes[1] == shapes[0]


@pytest.mark.parametrize("build,kind,phrase", ERROR_ROWS, ids=lambda r: getattr(r, "__name__", None))
def test_errors_as_tf(build, kind, phrase):
    tf = tf_v1()
    for lib in (tf, ref):
        with _v2(lib), lib.Graph().as_default():
            with pytest.raises(kind, match=phrase):
                build(lib)


# -- TypeSpec shape invariants (TF's _shape_invariant_to_type_spec), v1 and v2 loops ---------

def _specs(lib):
    if lib is ref:
        from ref.data.dataset_ops import SparseTensorSpec, TensorSpec
        return TensorSpec, SparseTensorSpec
    return lib.TensorSpec, lib.SparseTensorSpec


def _spec_loop(lib, var, spec):
    """A loop over ``(0, var)`` with invariants ``[TensorSpec([], int32), spec(...)]``."""
    tensor_spec, sparse_spec = _specs(lib)
    i = lib.constant(0)
    x = {"dense": lambda: lib.constant([1]), "sparse": lambda: lib.SparseTensor([[0]], [1.0], [10]),
         "float_i": lambda: lib.constant([1])}[var]()
    if var == "float_i":
        i = lib.constant(0.0)
    inv = {"any_rank": lambda: tensor_spec(None, dtype=lib.int32), "sparse": lambda: sparse_spec([None]),
           "vector": lambda: tensor_spec([None], dtype=lib.int32)}[spec]()
    body = (lambda i, x: (i + 1, lib.stack([x, x]))) if spec == "any_rank" else (lambda i, x: (i + 1, x))
    lib.while_loop(lambda i, _: i < 10, body, [i, x], [tensor_spec([], dtype=lib.int32), inv])


# (loop variable, invariant spec, error kind or None) as TF gives them
SPEC_ROWS = [
    ("dense", "any_rank", None),
    ("dense", "vector", None),
    ("sparse", "sparse", None),
    ("dense", "sparse", TypeError),
    ("float_i", "vector", TypeError),
]


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
@pytest.mark.parametrize("var,spec,error", SPEC_ROWS)
def test_type_spec_invariants_as_tf(var, spec, error, v2):
    tf = tf_v1()
    for lib in (tf, ref):
        with (_v2(lib) if v2 else (tf1_behaviour() if lib is tf else contextlib.nullcontext())), \
                lib.Graph().as_default():
            if error is None:
                _spec_loop(lib, var, spec)
            else:
                with pytest.raises(error):
                    _spec_loop(lib, var, spec)


# -- what cond returns for one-element results: TF 1.x's cond unpacks a one-element list or tuple
# (a namedtuple too) unless strict; cond_v2 (control flow v2) returns the branches' structure as is --------
_Single = __import__("collections").namedtuple("_Single", "a")
_SINGLE_KINDS = {"list": lambda t: [t], "tuple": lambda t: (t,), "namedtuple": _Single, "tensor": lambda t: t}


def _result_kind(lib, kind, strict):
    p = lib.placeholder(lib.bool, [], name="p")
    r = lib.cond(p, lambda: _SINGLE_KINDS[kind](lib.constant(1)), lambda: _SINGLE_KINDS[kind](lib.constant(2)),
                 strict=strict)
    return type(r).__name__ if isinstance(r, (list, tuple)) else "Tensor"


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
@pytest.mark.parametrize("strict", [False, True], ids=["loose", "strict"])
@pytest.mark.parametrize("kind", sorted(_SINGLE_KINDS))
def test_singleton_results_as_tf(kind, strict, v2):
    tf = tf_v1()
    kinds = []
    for lib in (tf, ref):
        with (_v2(lib) if v2 else (tf1_behaviour() if lib is tf else contextlib.nullcontext())), \
                lib.Graph().as_default():
            kinds.append(_result_kind(lib, kind, strict))
    assert kinds[1] == kinds[0]


@pytest.mark.parametrize("name", [None, "noop"])
def test_async_noop_as_tf(name):
    """while_v2.async_noop: a While that never iterates, run for its control edge (TF's AsyncNoopTest)."""
    tf1 = tf_v1()
    from tensorflow.python.ops import while_v2
    got = []
    for lib, build in ((ref, _under_test.async_noop), (tf1, while_v2.async_noop)):
        with lib.Graph().as_default():
            x = lib.constant(2)
            op = build(name=name)
            with lib.control_dependencies([op]):
                y = x + 2
            with lib.Session() as s:
                got.append((op.type, op.name, [t.name for t in op.inputs], s.run(op), s.run(y)))
    assert got[0] == got[1]
