"""tf.map_fn, tf.scan, tf.foldl, tf.foldr (TF1 graph mode): values, static
shapes and gradients compared with tensorflow.compat.v1 (map_fn_test.py and
scan_ops_test.py cases)."""
import numpy as np
import pytest

import ref
from tests.graph_ops._interop import compare, tf1
from ref.graph_ops import functional_ops as _under_test  # noqa: F401  (the module these tests cover)

NUMS = np.array([1, 2, 3, 4, 5, 6])
X = np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32)


def _x(tf):
    return tf.constant(X)


CASES = {
    "map_simple": lambda tf: tf.map_fn(lambda r: r * r, _x(tf)),
    "map_not_tensor": lambda tf: tf.map_fn(lambda x: (x + 3) * 2, NUMS),
    "map_single_in_multi_out": lambda tf: tf.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), NUMS,
                                                    dtype=(tf.int64, tf.int64)),
    "map_multi_in_single_out": lambda tf: tf.map_fn(lambda x: x[0] * x[1][0] + x[1][1], (NUMS, (NUMS, -NUMS)),
                                                    dtype=tf.int64),
    "map_same_structure": lambda tf: tf.map_fn(lambda x: (x[1][0], (x[1][1], x[0])), (NUMS, (2 * NUMS, -NUMS))),
    "map_cast_dtype": lambda tf: tf.map_fn(lambda r: tf.cast(tf.reduce_sum(r), tf.int32), _x(tf), dtype=tf.int32),
    "map_empty_scalar": lambda tf: tf.map_fn(lambda x: 1, tf.constant([], dtype=tf.int32)),
    "map_empty_tensor": lambda tf: tf.map_fn(lambda x: tf.zeros([3, 2]), tf.constant([])),
    "map_grad": lambda tf: _map_grad(tf),
    "scan_sum": lambda tf: tf.scan(lambda a, x: a + x, _x(tf)),
    "scan_reverse": lambda tf: tf.scan(lambda a, x: a * x + 1, _x(tf), reverse=True),
    "scan_initializer": lambda tf: tf.scan(lambda a, x: a * x[0], _x(tf), initializer=tf.constant(1.0)),
    "scan_nested": lambda tf: tf.scan(lambda a, x: (a[0] + x[0], a[1] * x[1]), (_x(tf), 2 * _x(tf))),
    "scan_fibonacci": lambda tf: tf.scan(lambda a, _: (a[1], a[0] + a[1]), tf.constant(NUMS),
                                         initializer=(np.array(0), np.array(1))),
    "scan_grads": lambda tf: tf.gradients(tf.reduce_sum(tf.scan(lambda a, x: a * x, _x(tf))), _x(tf)),
    "scan_reverse_grads": lambda tf: _grads(tf, lambda x: tf.scan(lambda a, r: a * r + 1, x, reverse=True)),
    "foldl": lambda tf: tf.foldl(lambda a, x: a * 2 + x, tf.constant(NUMS)),
    "foldl_initializer": lambda tf: tf.foldl(lambda a, x: a + x, _x(tf), initializer=tf.zeros([2])),
    "foldr": lambda tf: tf.foldr(lambda a, x: a * 2 + x, tf.constant(NUMS)),
    "foldr_initializer_nested": lambda tf: tf.foldr(lambda a, x: (a[0] + x, a[1] - x), tf.constant(NUMS),
                                                    initializer=(np.array(0), np.array(10))),
    "fold_grads": lambda tf: _grads(tf, lambda x: tf.foldr(lambda a, r: a * r + r, x) +
                                    tf.foldl(lambda a, r: a * r, x, initializer=tf.ones([2]))),
    "map_no_back_prop": lambda tf: tf.map_fn(lambda r: r * 3.0, _x(tf), back_prop=False),
}


def _map_grad(tf):
    param = tf.constant(2.0)
    elems = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], name="elems")
    y = tf.map_fn(lambda x: tf.multiply(tf.square(x), param), elems)
    return tf.gradients(y, param)[0], tf.gradients(y, elems)[0]


def _grads(tf, f):
    x = tf.constant(X)
    return tf.gradients(tf.reduce_sum(f(x)), x)[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_tensorflow(case):
    compare(CASES[case])


STATIC_SHAPES = {
    "map_matrix": lambda tf: tf.map_fn(lambda e: e, tf.constant([[1, 2, 3], [4, 5, 6]])),
    "map_unknown": lambda tf: tf.map_fn(lambda e: e, tf.placeholder(tf.float32)),
    "map_empty": lambda tf: tf.map_fn(lambda x: tf.zeros([3, 2]), tf.constant([])),
    "scan_known": lambda tf: tf.scan(lambda a, x: a + x, tf.constant(X)),
    "scan_batch_unknown": lambda tf: tf.scan(lambda a, x: a + x, tf.placeholder(tf.float32, [None, 4])),
}


@pytest.mark.parametrize("case", sorted(STATIC_SHAPES))
def test_static_shapes_match_tensorflow(case):
    tf = tf1()
    shapes = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            shapes.append(STATIC_SHAPES[case](lib).shape.as_list() if STATIC_SHAPES[case](lib).shape.ndims
                          is not None else None)
    assert shapes[0] == shapes[1]


@pytest.mark.parametrize("elems", [[1, 2], 1], ids=["list_of_scalars", "scalar"])
def test_map_over_scalars_raises(elems):
    with ref.Graph().as_default():
        with pytest.raises(ValueError, match="must be .* Tensor.* not scalar"):
            ref.map_fn(lambda x: x, elems)


def test_map_empty_list_raises():
    with ref.Graph().as_default():
        with pytest.raises(ValueError, match=r"elems must be a Tensor or"):
            ref.map_fn(lambda e: e, [])


def test_map_mismatched_structure_raises():
    with ref.Graph().as_default():
        with pytest.raises((TypeError, ValueError), match="same nested structure"):
            ref.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), NUMS, dtype=[ref.int64, ref.int64])


def test_map_fn_fed_length():
    """The number of iterations can be known only at run time."""
    with ref.Graph().as_default(), ref.Session() as sess:
        x = ref.placeholder(ref.float32, [None, 2])
        y = ref.map_fn(lambda r: r * 2.0, x)
        g = ref.gradients(ref.reduce_sum(y * y), x)[0]
        got, dg = sess.run([y, g], {x: X})
    np.testing.assert_allclose(got, 2 * X)
    np.testing.assert_allclose(dg, 8 * X)


def test_map_scoped_variable_reused():
    """map_fn_test.testMap_Scoped: a variable made inside fn lives in the outer
    graph under the caller's variable scope (TF's init_scope) and is reused."""
    tf = ref
    with tf.Graph().as_default(), tf.Session() as sess:
        def double_scoped(x):
            with tf.variable_scope("body"):
                two = tf.get_variable("two", [], dtype=tf.int32, initializer=tf.constant_initializer(2))
                return tf.multiply(x, two)

        with tf.variable_scope("root") as varscope:
            elems = tf.constant([1, 2, 3, 4, 5, 6], name="data")
            r = tf.map_fn(double_scoped, elems)
            assert [v.name for v in tf.trainable_variables()] == ["root/body/two:0"]
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(r), 2 * NUMS)
            varscope.reuse_variables()
            r = tf.map_fn(double_scoped, elems)
            assert len(tf.trainable_variables()) == 1
            np.testing.assert_array_equal(sess.run(r), 2 * NUMS)


def test_variable_created_in_while_body_is_initialisable():
    tf = ref
    with tf.Graph().as_default(), tf.Session() as sess:
        out = tf.while_loop(lambda i: i < 10, lambda i: i + tf.cast(tf.Variable(3.0, name="w"), tf.int32), [0])
        assert tf.global_variables()[0].graph is tf.get_default_graph()
        sess.run(tf.global_variables_initializer())
        assert sess.run(out) == 12
