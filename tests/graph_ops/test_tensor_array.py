"""tf.TensorArray under control flow v2 (``tf.enable_control_flow_v2()``;
TF 2.x's compat.v1 builds it from TensorList ops): values, static shapes,
errors and gradients, compared with tensorflow.compat.v1 (cases from
tensor_array_ops_test.py). The TF 1.x default (TensorArrayV3 ops) is
test_tensor_array_v1.py, which runs these value cases again in that form."""
import numpy as np
import pytest

import ref
from tests.graph_ops._interop import compare, run, tf1
from ref.graph_ops import tensor_array_ops as _under_test  # noqa: F401  (the module these tests cover)


@pytest.fixture(autouse=True)
def _v2_loops():
    """Control flow v2 on for each test here, the previous mode restored after."""
    was = ref.control_flow_v2_enabled()
    ref.enable_control_flow_v2()
    yield
    if not was:
        ref.disable_control_flow_v2()


def _ta(tf, size=3, **kw):
    return tf.TensorArray(dtype=kw.pop("dtype", tf.float32), size=size, **kw)


def _write_read(tf):
    ta = _ta(tf)
    w0 = ta.write(0, [[4.0, 5.0]])
    w1 = w0.write(1, [[1.0, 3.0]])
    w2 = w1.write(2, -3.0 * np.ones((1, 2), np.float32))
    return [w2.read(0), w2.read(1), w2.read(2), w2.stack(), w2.concat(), w2.size()]


def _unstack_read(tf):
    ta = _ta(tf, 0, dynamic_size=True)
    w = ta.unstack(tf.constant([[1.0, -1.0], [10.0, -10.0], [100.0, -100.0]]))
    w = w.write(4, [4.0, 5.0])
    return [w.read(0), w.read(3), w.read(4), w.stack(), w.size()]


def _split_concat(tf):
    ta = _ta(tf, 3)
    w = ta.split(tf.constant([[1.0, 101.0], [2.0, 201.0], [3.0, 301.0]]), tf.constant([0, 2, 1], tf.int64))
    return [w.read(0), w.read(1), w.read(2), w.concat()]


def _scatter_gather(tf):
    ta = _ta(tf, 5)
    w = ta.scatter([4, 1], tf.constant([[1., 2.], [3., 4.]]))
    return [w.stack(), w.gather([4, 0]), w.read(3)]


def _identity_close(tf):
    ta = _ta(tf, 2).write(0, 1.0).write(1, 2.0)
    ta2 = ta.identity()
    with tf.control_dependencies([ta.close()]):
        out = tf.identity(ta2.stack())
    return out


def _while_loop(tf):
    x = tf.constant([1.0, 2.0, 3.0, 4.0])

    def body(i, ta):
        return i + 1, ta.write(i, x[i] * tf.cast(i, tf.float32))

    _, ta = tf.while_loop(lambda i, ta: i < 4, body, [0, _ta(tf, 4)])
    y = ta.stack()
    return [y, tf.gradients(tf.reduce_sum(y * y), x)[0]]


def _while_dynamic(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    src = _ta(tf, 3).unstack(x)

    def body(i, acc, out):
        acc = acc * 2.0 + src.read(i)
        return i + 1, acc, out.write(i, acc)

    _, acc, out = tf.while_loop(lambda i, *_: i < 3, body,
                                [0, tf.zeros([2]), _ta(tf, 0, dynamic_size=True, element_shape=[2])])
    y = out.stack()
    return [y, acc, out.size(), tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(acc * acc), x)[0]]


def _gradients_write_read(tf):
    a = tf.constant([[1.0, -1.0]])
    b = tf.constant([[2.0, 3.0]])
    ta = _ta(tf, 3).write(0, a).write(1, b)
    r0, r1 = ta.read(0), ta.read(1)
    loss = tf.reduce_sum(r0 * r0 * 3.0) + tf.reduce_sum(r1 * r0) + tf.reduce_sum(ta.stack())
    return tf.gradients(loss, [a, b])


def _gradients_unstack_split(tf):
    v = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ta = _ta(tf, 3).unstack(v)
    ta2 = _ta(tf, 2).split(v, [1, 2])
    loss = tf.reduce_sum(ta.read(1) * 3.0) + tf.reduce_sum(ta.gather([2, 0]) * 2.0) + \
        tf.reduce_sum(ta2.concat() * v) + tf.reduce_sum(ta2.read(1))
    return tf.gradients(loss, v)[0]


def _gradients_scatter(tf):
    v = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    ta = _ta(tf, 4).scatter([3, 1], v)
    return tf.gradients(tf.reduce_sum(ta.stack() * tf.constant([[1.], [2.], [3.], [4.]])), v)[0]


def _not_all_read(tf):
    v = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    ta = _ta(tf, 2).unstack(v)
    return tf.gradients(tf.reduce_sum(ta.read(0)), v)[0]


def _fills_zeros(tf):
    ta = _ta(tf, 3, element_shape=[1, 2])
    return [ta.write(1, [[4.0, 5.0]]).stack(), ta.read(0)]


def _empty_stack_known_shape(tf):
    return tf.TensorArray(tf.float32, size=0, element_shape=(5, 10), dynamic_size=True).stack()


def _infer_shape_false_concat(tf):
    ta = tf.TensorArray(tf.float32, size=3, infer_shape=False, element_shape=[None, 10, 20])
    ta = ta.write(0, tf.ones([50, 10, 20])).write(1, tf.ones([50, 10, 20])).write(2, tf.ones([1, 10, 20]))
    return ta.concat()


def _int64(tf):
    ta = tf.TensorArray(tf.int64, size=2).write(0, tf.constant([1, 2], tf.int64)).write(1, tf.constant([3, 4],
                                                                                                      tf.int64))
    return ta.stack()


def _cond(pred):
    def build(tf):
        x = tf.constant([1., 2.])
        ta = _ta(tf, 2)
        r = tf.cond(tf.constant(pred), lambda: ta.write(0, x * 2).write(1, x), lambda: ta.write(0, x).write(1, x * 3))
        y = r.stack()
        return [y, tf.gradients(tf.reduce_sum(y * y), x)[0]]
    build.__name__ = f"_cond_{pred}"
    return build


CASES = {f.__name__.strip("_"): f for f in [_cond(True), _cond(False),
    _write_read, _unstack_read, _split_concat, _scatter_gather, _identity_close, _while_loop, _while_dynamic,
    _gradients_write_read, _gradients_unstack_split, _gradients_scatter, _not_all_read, _fills_zeros,
    _empty_stack_known_shape, _infer_shape_false_concat, _int64]}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tensorflow(case):
    compare(CASES[case])


# Run-time errors: TF's class and (a piece of) its message.
ERRORS = {
    "write_negative": (lambda tf: _ta(tf).write(-1, 3.0).stack(),
                       "Trying to modify element -1 in a list with 3 elements."),
    "write_past_end": (lambda tf: _ta(tf).write(3, 3.0).stack(),
                       "Trying to modify element 3 in a list with 3 elements"),
    "read_negative": (lambda tf: _ta(tf).write(0, [[4.0, 5.0]]).read(-1),
                      "Trying to access element -1 in a list with 3 elements."),
    "read_past_end": (lambda tf: _ta(tf).write(0, [[4.0, 5.0]]).read(3),
                      "Trying to access element 3 in a list with 3 elements."),
    "concat_scalars": (lambda tf: _ta(tf, infer_shape=False).write(0, 3.0).write(1, 4.0).write(2, [3.0]).concat(),
                       "Concat saw a scalar shape at index 0 but requires at least vectors"),
    "concat_ranks": (lambda tf: _ta(tf, infer_shape=False).write(0, [3.0]).write(1, [4.0]).write(2, [[3.0]])
                     .concat(), "Incompatible ranks"),
    "split_unused": (lambda tf: _ta(tf).split([1.0, 2.0, 3.0], [1]).stack(),
                     "Unused values in tensor. Length of tensor: 3 Values used: 1"),
    "stack_empty_unknown": (lambda tf: tf.TensorArray(tf.float32, size=0, infer_shape=False).stack(),
                            "Tried to stack elements of an empty list with non-fully-defined element_shape"),
    "read_unset_unknown_shape": (lambda tf: _ta(tf).read(1),
                                 "Trying to read an uninitialized tensor but element_shape is not fully defined"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_runtime_errors_match_tensorflow(case):
    build, message = ERRORS[case]
    want = run(tf1(), build)
    got = run(ref, build)
    assert isinstance(want, tf1().errors.InvalidArgumentError) and message in want.message, want
    assert isinstance(got, ref.errors.InvalidArgumentError), got
    assert message in got.message, got.message


def test_split_lengths_must_be_a_vector():
    with ref.Graph().as_default(), ref.Session() as sess:
        lengths = ref.placeholder(ref.int64)
        flow = _ta(ref).split([1.0, 2.0, 3.0], lengths).stack()
        with pytest.raises(ref.errors.InvalidArgumentError, match=r"Expected lengths to be a vector, received "
                                                                  r"shape: \[\]"):
            sess.run(flow, {lengths: 1})


def test_write_wrong_dtype_raises():
    with ref.Graph().as_default():
        with pytest.raises((TypeError, ref.errors.InvalidArgumentError),
                           match="TensorArray dtype is float.* but Op is trying to write dtype string"):
            _ta(ref).write(0, "wrong_type_scalar")


def test_split_scalar_raises_at_construction():
    with ref.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be at least rank 1 but is rank 0"):
            _ta(ref, 1).split(1.0, [1])


STATIC = {
    "write_read": lambda tf: _ta(tf).write(0, tf.constant([4.0, 5.0])).read(0),
    "stack_static_size": lambda tf: tf.TensorArray(tf.float32, size=42).write(0, [0]).stack(),
    "stack_partial_shape": lambda tf: tf.TensorArray(tf.float32, size=0, element_shape=(5, None),
                                                     dynamic_size=True).stack(),
    "gather_known_indices": lambda tf: _ta(tf).write(0, tf.constant([1.0, 2.0, 3.0])).gather([0]),
    "unstack_read": lambda tf: _ta(tf, 0, dynamic_size=True).unstack(tf.ones([3, 2])).read(0),
    "partly_unknown": lambda tf: _partly_unknown(tf),
    "split_equal_lengths": lambda tf: _ta(tf, 2).split(tf.placeholder(tf.float32, [10, 4, 2, 3]),
                                                       tf.constant([5, 5])).read(0),
}


def _partly_unknown(tf):
    ta = tf.TensorArray(dtype=tf.float32, size=6)
    w = ta.write(0, tf.placeholder(tf.float32, [None, None, None, 3]))
    w = w.write(1, tf.placeholder(tf.float32, [None, None, None, None]))
    w = w.write(2, tf.placeholder(tf.float32, [None, None, 2, None]))
    return w.read(0)


@pytest.mark.parametrize("case", sorted(STATIC))
def test_static_shapes_match_tensorflow(case):
    tf = tf1()
    shapes = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            shapes.append(STATIC[case](lib).shape.as_list())
    assert shapes[0] == shapes[1]


def test_inconsistent_write_shape_raises():
    with ref.Graph().as_default():
        ta = ref.TensorArray(ref.float32, size=3, infer_shape=True, element_shape=[None, 10, 20])
        assert ta.element_shape.as_list() == [None, 10, 20]
        ta = ta.write(0, ref.ones([50, 10, 20]))
        assert ta.element_shape.as_list() == [50, 10, 20]
        with pytest.raises(ValueError, match="Inconsistent shapes"):
            ta.write(2, ref.ones([1, 10, 20]))
        ta2 = ref.TensorArray(ref.float32, size=2, infer_shape=False, element_shape=[None, 10, 20])
        with pytest.raises(ValueError):
            ta2.write(1, ref.ones([1, 20, 20]))


def test_flow_is_a_variant_and_ops_are_tensorlists():
    with ref.Graph().as_default() as g:
        ta = ref.TensorArray(ref.float32, size=3).write(0, 1.0)
        assert ta.flow.dtype == ref.variant and ta.handle is None
        assert [op.type for op in g.get_operations() if op.type.startswith("TensorList")] == \
            ["TensorListReserve", "TensorListSetItem"]
