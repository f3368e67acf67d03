"""tf.Variable (v1 semantics) and the variable helpers: the documented examples
of seed 003 ("Variables") and seed 002 (``tf.compat.v1.Variable``), run with the
documented results, plus the state semantics TF1 programs rely on."""
import numpy as np
import pytest

from ref.types import dtypes, errors
from ref.framework.indexed_slices import IndexedSlices

F32 = np.float32


@pytest.fixture
def g(rtf):
    with rtf.Graph().as_default() as graph:
        yield graph


def _math():
    return pytest.importorskip("ref.graph_ops.math_ops")


# -- seed 003 examples -----------------------------------------------------------

def test_seed003_class_example(rtf, g):
    """w = Variable(...); y = matmul(w, ...); z = sigmoid(w + y); w.assign(w + 1.0); w.assign_add(...)
    (the delta has w's shape: AssignAdd merges both shapes, as in TF)."""
    m = _math()
    w = rtf.Variable(np.array([[1., 2.], [3., 4.]], F32), name="w")
    y = m.matmul(w, rtf.constant(np.eye(2, dtype=F32)))
    z = m.sigmoid(w + y)
    a1 = w.assign(w + 1.0)
    a2 = w.assign_add(np.ones((2, 2), F32))
    with rtf.Session() as sess:
        sess.run(w.initializer)
        wv = np.array([[1., 2.], [3., 4.]], F32)
        np.testing.assert_allclose(sess.run(z), 1 / (1 + np.exp(-2 * wv)), rtol=1e-6)
        np.testing.assert_array_equal(sess.run(a1), wv + 1)
        np.testing.assert_array_equal(sess.run(a2), wv + 2)
        np.testing.assert_array_equal(sess.run(w), wv + 2)


def test_seed003_initialize_all_variables(rtf, g):
    v = rtf.Variable([1, 2])
    init = rtf.initialize_all_variables()
    with rtf.Session() as sess:
        sess.run(init)
        np.testing.assert_array_equal(v.eval(sess), [1, 2])
        np.testing.assert_array_equal(v.eval(), [1, 2])
    assert init.name == "init" and init.type == "NoOp"


def test_seed003_initialized_value(rtf, g):
    """w = Variable(v.initialized_value() * 2.0): the random values are picked once."""
    _math()
    v = rtf.Variable(rtf.truncated_normal_initializer(seed=3)([10, 40]))
    w = rtf.Variable(v.initialized_value() * 2.0)
    with rtf.Session() as sess:
        sess.run(w.initializer)  # initializes w from v's initial value without v being initialized
        assert not sess.run(rtf.is_variable_initialized(v))
        sess.run(rtf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(w), 2 * sess.run(v))


def test_seed002_global_step_example(rtf, g):
    step = rtf.Variable(10, trainable=False, name="global_step")
    with rtf.Session() as sess:
        sess.run(step.initializer)
        assert rtf.train.global_step(sess, step) == 10
        assert rtf.train.global_step(sess, "global_step:0") == 10


# -- constructor ---------------------------------------------------------------

@pytest.mark.parametrize("kwargs,error", [
    ({}, "initial_value must be specified."),
    ({"initial_value": 1.0, "collections": "x"}, "collections argument to Variable constructor must be a list"),
    ({"initial_value": 1.0, "constraint": 3}, "The `constraint` argument must be a callable."),
])
def test_constructor_errors(rtf, g, kwargs, error):
    with pytest.raises(ValueError, match=error):
        rtf.Variable(**kwargs)


def test_unknown_shape_needs_validate_shape_false(rtf, g):
    p = rtf.placeholder(rtf.float32)
    with pytest.raises(ValueError, match="initial_value must have a shape specified"):
        rtf.Variable(p)
    v = rtf.Variable(p, validate_shape=False)
    with rtf.Session() as sess:
        sess.run(v.initializer, {p: [1., 2., 3.]})
        np.testing.assert_array_equal(sess.run(v), [1., 2., 3.])


@pytest.mark.parametrize("kwargs,names,dtype,trainable", [
    (dict(initial_value=1.0), ["Variable"], "float32_ref", True),
    (dict(initial_value=lambda: np.ones(2, F32), name="f", dtype="float32"), ["f"], "float32_ref", True),
    (dict(initial_value=[1, 2], dtype="float32", trainable=False), ["Variable"], "float32_ref", False),
    (dict(initial_value=3, use_resource=True, name="r"), ["r"], "int32", True),
])
def test_constructor_table(rtf, g, kwargs, names, dtype, trainable):
    v = rtf.Variable(**kwargs)
    assert v.op.name == names[0] and v.name == names[0] + ":0"
    assert v.dtype.name == dtype and v.trainable is trainable
    assert (v in rtf.trainable_variables()) is trainable and v in rtf.global_variables()


def test_callable_initial_value_names(rtf, g):
    rtf.Variable(lambda: rtf.constant([1., 2.]), name="f")
    assert [op.name for op in g.get_operations()] == ["f/Initializer/Const", "f", "f/Assign", "f/read"]


def test_resource_variable_op_names(rtf, g):
    rtf.Variable(1.0, name="r", use_resource=True)
    assert [op.name for op in g.get_operations()] == [
        "r/Initializer/initial_value", "r", "r/IsInitialized/VarIsInitializedOp", "r/Assign",
        "r/Read/ReadVariableOp"]


# -- state semantics -------------------------------------------------------------

def test_uninitialized_read_names_the_variable(rtf, g):
    v = rtf.Variable([1., 2.], name="weights")
    with rtf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError, match="Attempting to use uninitialized value weights"):
            sess.run(v)
        assert sess.run(rtf.report_uninitialized_variables()).tolist() == [b"weights"] or \
            sess.run(rtf.report_uninitialized_variables()).tolist() == ["weights"]
        with pytest.raises(errors.FailedPreconditionError, match="weights"):
            sess.run(rtf.assert_variables_initialized())
        sess.run(v.initializer)
        assert sess.run(rtf.report_uninitialized_variables()).size == 0


@pytest.mark.parametrize("use_resource", [False, True])
def test_read_after_control_dependency(rtf, g, use_resource):
    """A read placed after an assign by a control dependency sees the new value."""
    v = rtf.Variable(1.0, use_resource=use_resource)
    a = v.assign(5.0)
    with rtf.control_dependencies([a]):
        y = rtf.identity(v)
    with rtf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(y) == 5.0


@pytest.mark.parametrize("use_resource", [False, True])
def test_assign_methods(rtf, g, use_resource):
    v = rtf.Variable([1., 2.], use_resource=use_resource)
    ops = [v.assign([3., 4.]), v.assign_add([1., 1.]), v.assign_sub([2., 2.])]
    op_only = v.assign([0., 0.], read_value=False)
    with rtf.Session() as sess:
        sess.run(v.initializer)
        assert [sess.run(o).tolist() for o in ops] == [[3., 4.], [4., 5.], [2., 3.]]
        assert sess.run(op_only) is None
        assert sess.run(v).tolist() == [0., 0.]


@pytest.mark.parametrize("use_resource", [False, True])
@pytest.mark.parametrize("method,expected", [
    ("scatter_update", [[9., 9.], [1., 1.], [8., 8.]]), ("scatter_add", [[10., 10.], [1., 1.], [9., 9.]]),
    ("scatter_sub", [[-8., -8.], [1., 1.], [-7., -7.]]), ("scatter_mul", [[9., 9.], [1., 1.], [8., 8.]]),
    ("scatter_max", [[9., 9.], [1., 1.], [8., 8.]]), ("scatter_min", [[1., 1.], [1., 1.], [1., 1.]]),
])
def test_scatter_methods(rtf, g, use_resource, method, expected):
    v = rtf.Variable(np.ones((3, 2), F32), use_resource=use_resource)
    delta = IndexedSlices(rtf.constant(np.array([[9., 9.], [8., 8.]], F32)), rtf.constant([0, 2]))
    out = getattr(v, method)(delta)
    with rtf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(out).tolist() == expected
    with pytest.raises(TypeError, match="sparse_delta is not IndexedSlices"):
        getattr(v, method)(rtf.constant([1.]))


@pytest.mark.parametrize("use_resource", [False, True])
def test_nd_and_batch_scatter_and_reads(rtf, g, use_resource):
    v = rtf.Variable(np.arange(6, dtype=F32).reshape(2, 3), use_resource=use_resource)
    nd = v.scatter_nd_add([[0, 0], [1, 2]], [10., 20.])
    batch = v.batch_scatter_update(IndexedSlices(rtf.constant(np.array([[7.], [8.]], F32)),
                                                 rtf.constant([[2], [0]])))
    rows = v.sparse_read([1, 0])
    cells = v.gather_nd([[1, 1]])
    with rtf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(nd).tolist() == [[10., 1., 2.], [3., 4., 25.]]
        assert sess.run(batch).tolist() == [[10., 1., 7.], [8., 4., 25.]]
        assert sess.run(rows).tolist() == [[8., 4., 25.], [10., 1., 7.]]
        assert sess.run(cells).tolist() == [4.]


def test_count_up_to_and_load(rtf, g):
    v = rtf.Variable(0, name="counter")
    c = v.count_up_to(2)
    with rtf.Session() as sess:
        sess.run(v.initializer)
        assert [int(sess.run(c)), int(sess.run(c))] == [0, 1]
        with pytest.raises(errors.OutOfRangeError, match="Reached limit of 2"):
            sess.run(c)
        v.load(7, sess)
        assert int(sess.run(v)) == 7


def test_wrong_shape_assign(rtf, g):
    v = rtf.Variable([1., 2.], name="v")
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 and 3\. "
                                         r"Shapes are \[2\] and \[3\]"):
        v.assign([1., 2., 3.])
    p = rtf.placeholder(rtf.float32)
    a = v.assign(p)
    grow = rtf.assign(v, p, validate_shape=False)
    with rtf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(errors.InvalidArgumentError, match=r"lhs shape= \[2\] rhs shape= \[3\]"):
            sess.run(a, {p: [1., 2., 3.]})
        assert sess.run(grow, {p: [1., 2., 3.]}).tolist() == [1., 2., 3.]


def test_operators_and_getitem(rtf, g):
    _math()
    v = rtf.Variable(np.array([[1., 2.], [3., 4.]], F32))
    outs = [v + 1, 1 - v, v * v, v / 2, -v, abs(-v), v[1], v[:, 0], v @ v]
    with rtf.Session() as sess:
        sess.run(v.initializer)
        x = np.array([[1., 2.], [3., 4.]], F32)
        want = [x + 1, 1 - x, x * x, x / 2, -x, x, x[1], x[:, 0], x @ x]
        for o, w in zip(sess.run(outs), want):
            np.testing.assert_array_equal(o, w)


def test_properties(rtf, g):
    with g.device("/cpu:0"):
        v = rtf.Variable(np.zeros((2, 3), F32), name="p")
    assert v.graph is g and v.device == v.op.device
    assert v.shape.as_list() == v.get_shape().as_list() == [2, 3]
    assert v.initial_value.name == "p/initial_value:0" and v.initializer.name == "p/Assign"
    assert v.value().name == "p/read:0" and v.read_value().op.type == "Identity"
    assert v.constraint is None and v.synchronization.name == "AUTO" and v.aggregation.name == "NONE"
    r = v.ref()
    assert r == v.experimental_ref() and hash(r) == hash(v.ref()) and r.deref() is v
    assert repr(v) == "<tf.Variable 'p:0' shape=(2, 3) dtype=float32_ref>"
    with pytest.raises(TypeError):
        iter(v)


@pytest.mark.parametrize("use_resource", [False, True])
def test_proto_round_trip(rtf, g, use_resource):
    from ref.protos import variable_pb2

    v = rtf.Variable([1., 2.], name="pv", trainable=False, use_resource=use_resource)
    d = v.to_proto()
    assert isinstance(d, variable_pb2.VariableDef)
    assert (d.variable_name, d.initializer_name, d.trainable, d.is_resource) == (
        "pv:0", "pv/Assign", False, use_resource)
    w = rtf.Variable.from_proto(d)
    assert w.name == v.name and w.initializer is v.initializer and w.trainable is False
    assert v.to_proto(export_scope="other") is None
    with pytest.raises(ValueError, match="mutually exclusive"):
        rtf.Variable(1.0, variable_def=d)


def test_save_slice_info_proto(rtf, g):
    from ref.graph_ops.variables import Variable

    info = Variable.SaveSliceInfo("full", [10, 20], [5, 0], [5, 20])
    assert info.spec == "10 20 5,5:0,20"
    back = Variable.SaveSliceInfo(save_slice_info_def=info.to_proto(), import_scope="imp")
    assert (back.full_name, back.full_shape, back.var_offset, back.var_shape) == ("imp/full", [10, 20], [5, 0],
                                                                                  [5, 20])


def test_to_proto_matches_tensorflow(rtf, g, tf1):
    from google.protobuf import text_format

    v = rtf.Variable([1., 2.], name="pv")
    with tf1.Graph().as_default():
        t = tf1.Variable([1., 2.], name="pv")
        want = text_format.MessageToString(t.to_proto())
    assert text_format.MessageToString(v.to_proto()) == want


def test_collection_helpers(rtf, g):
    a = rtf.Variable(1.0, name="a")
    loc = rtf.Variable(1.0, name="l", collections=[rtf.GraphKeys.LOCAL_VARIABLES])
    mod = rtf.Variable(1.0, name="m", collections=[rtf.GraphKeys.MODEL_VARIABLES, rtf.GraphKeys.GLOBAL_VARIABLES])
    g.add_to_collection(rtf.GraphKeys.MOVING_AVERAGE_VARIABLES, a)
    assert rtf.all_variables() == rtf.global_variables() == [a, mod]
    assert rtf.local_variables() == [loc] and rtf.model_variables() == [mod]
    assert rtf.moving_average_variables() == [a] and rtf.trainable_variables("a") == [a]
    init = rtf.local_variables_initializer()
    empty = rtf.variables_initializer([])
    assert (init.name, empty.name, empty.type) == ("init", "init_1", "NoOp")
    assert rtf.initialize_local_variables().name == "init_2"
    assert rtf.initialize_variables([a], name="just_a").name == "just_a"
    with rtf.Session() as sess:
        sess.run(init)
        assert sess.run(rtf.is_variable_initialized(loc)) and not sess.run(rtf.is_variable_initialized(a))


def test_sparse_mask_seed_example(rtf, g):
    """Seed 003: a.indices [12, 26, 37, 45], mask [12, 45] -> b.indices [26, 37], values [2, 10]."""
    values = np.arange(40, dtype=F32).reshape(4, 10)
    a = IndexedSlices(rtf.constant(values), rtf.constant([12, 26, 37, 45]), rtf.constant([1000, 10]))
    b = rtf.sparse_mask(a, [12, 45])
    with rtf.Session() as sess:
        idx, vals = sess.run([b.indices, b.values])
    assert idx.tolist() == [26, 37] and vals.shape == (2, 10)
    np.testing.assert_array_equal(vals, values[1:3])


def test_variable_creator_scope_sees_all_arguments(rtf, g):
    seen = {}

    def creator(next_creator, **kwargs):
        seen.update(kwargs)
        return next_creator(**kwargs)

    with rtf.variable_creator_scope(creator):
        rtf.Variable(1.0, name="c")
    assert seen["name"] == "c" and seen["initial_value"] == 1.0


# -- the deprecated `Variable` op (TF's state_ops.variable_op) ---------------------

VARIABLE_OP_ROWS = [  # shape, dtype, set_shape -> static shape
    ([2, 3], "float32", True, [2, 3]),
    ([1, 2], "float32", False, None),
    ([], "int64", True, []),
    ([4], "float16", True, [4]),
]


@pytest.mark.parametrize("shape,dtype,set_shape,static", VARIABLE_OP_ROWS)
def test_variable_op_is_a_ref_variable(rtf, g, shape, dtype, set_shape, static):
    from ref.graph_ops import state_ops
    p = state_ops.variable_op(shape, dtypes.as_dtype(dtype), set_shape=set_shape)
    assert p.op.type == "Variable" and p.dtype.is_ref_dtype
    assert (p.get_shape().ndims is None) if static is None else (p.get_shape().as_list() == static)
    value = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    with rtf.Session() as sess:
        assert not sess.run(rtf.is_variable_initialized(p))
        sess.run(state_ops.assign(p, value))
        assert sess.run(rtf.is_variable_initialized(p))
        np.testing.assert_array_equal(sess.run(p), value)


@pytest.mark.parametrize("shape,dtype,set_shape,static", VARIABLE_OP_ROWS)
def test_variable_op_node_def_matches_tensorflow(rtf, g, tf1, shape, dtype, set_shape, static):
    from tensorflow.python.ops import state_ops as tf_state_ops
    from ref.graph_ops import state_ops
    mine = state_ops.variable_op(shape, dtypes.as_dtype(dtype), set_shape=set_shape).op.node_def
    with tf1.Graph().as_default():
        theirs = tf_state_ops.variable_op(shape, getattr(tf1, dtype), set_shape=set_shape).op.node_def
    assert mine.op == theirs.op and mine.name == theirs.name
    assert {k: str(v) for k, v in mine.attr.items()} == {k: str(v) for k, v in theirs.attr.items()}
