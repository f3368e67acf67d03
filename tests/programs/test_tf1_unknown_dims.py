"""Builders that read static dims, run with TF1's ``Dimension`` indexing (a
dim is ``Dimension(None)``, not None, when unknown): each row builds a small
graph whose static shapes have known and unknown dims, and fetches values (and
static shapes) that must equal TensorFlow 2.21's ``tf.compat.v1`` for the same
program (TF with ``disable_v2_tensorshape``, as ``disable_v2_behavior`` sets)."""
import numpy as np
import pytest

import ref


def _pwd(tf, value, shape):
    return tf.placeholder_with_default(np.asarray(value, np.float32), shape)


def _concat_sparse_grad(tf):
    a, b = _pwd(tf, np.ones((2, 3)), [None, 3]), _pwd(tf, np.full((1, 3), 2.0), [None, 3])
    c = tf.concat([a, b], 0)
    return [tf.convert_to_tensor(g) for g in tf.gradients(tf.reduce_sum(tf.gather(c, [0, 2])), [a, b])]


def _sparse_placeholder_unknown_rank(tf):
    sp = tf.sparse_placeholder(tf.float32, shape=tf.placeholder_with_default(np.array([2, 3], np.int64), [None]))
    return sp.get_shape()


def _hessians(tf):
    x = tf.Variable(np.array([1.0, 2.0], np.float32))
    return tf.hessians(tf.reduce_sum(x ** 3), x)


def _unstack_static_num(tf):
    return tf.unstack(_pwd(tf, np.arange(6).reshape(2, 3), [None, 3]), axis=1)


def _split_sizes(tf):
    return tf.split(_pwd(tf, np.arange(6).reshape(2, 3), [None, 3]), tf.constant([1, 2]), axis=1)


def _moments_known(tf):
    return tf.nn.moments(_pwd(tf, np.arange(6).reshape(2, 3), [2, 3]), axes=[0, 1])


def _tensor_array_concat(tf):
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=True)
    ta = ta.write(0, tf.ones([2, 3])).write(1, tf.zeros([2, 3]))
    return ta.concat()


def _conv2d_transpose(tf):
    x = _pwd(tf, np.ones((1, 2, 2, 1)), [None, 2, 2, 1])
    f = tf.constant(np.ones((2, 2, 3, 1), np.float32))
    return tf.nn.conv2d_transpose(x, f, tf.constant([1, 4, 4, 3]), [1, 2, 2, 1], "SAME")


def _padded_batch_tensorshape(tf):
    ds = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n], n))
    it = tf.data.make_one_shot_iterator(ds.padded_batch(3, padded_shapes=tf.TensorShape([None])))
    return it.get_next()


def _dims_in_user_code(tf):
    x = _pwd(tf, np.arange(24).reshape(2, 3, 4), [None, 3, 4])
    flat = tf.reshape(x, [-1, x.shape[1] * x.shape[2]])
    w = tf.get_variable("w", [x.get_shape()[2].value, 2], initializer=tf.ones_initializer())
    return [flat, tf.tensordot(x, w, 1), flat.get_shape()]


def _partitioned_assign(tf):
    v = tf.get_variable("v", [6, 2], partitioner=tf.fixed_size_partitioner(3))
    return tf.concat(v.assign(np.arange(12, dtype=np.float32).reshape(6, 2)), 0)


ROWS = {
    "concat_indexed_slices_gradient": _concat_sparse_grad,
    "sparse_placeholder_shape_tensor": _sparse_placeholder_unknown_rank,
    "hessians": _hessians,
    "unstack_static_num": _unstack_static_num,
    "split_sizes_tensor": _split_sizes,
    "moments_known_counts": _moments_known,
    "tensor_array_concat": _tensor_array_concat,
    "conv2d_transpose_shape_tensor": _conv2d_transpose,
    "padded_batch_tensorshape": _padded_batch_tensorshape,
    "dims_in_user_code": _dims_in_user_code,
    "partitioned_variable_assign": _partitioned_assign,
}


def _values(tf, build):
    with tf.Graph().as_default():
        out = build(tf)
        out = out if isinstance(out, (list, tuple)) else [out]
        static = {i: o.as_list() if o.dims is not None else None for i, o in enumerate(out)
                  if type(o).__name__ == "TensorShape"}
        fetch = [o for i, o in enumerate(out) if i not in static]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(fetch) if fetch else []
    return [np.asarray(v).tolist() for v in got], static


@pytest.fixture
def tf1_shapes_tf():
    tf = pytest.importorskip("tensorflow").compat.v1
    tf.disable_v2_tensorshape()
    yield tf
    tf.enable_v2_tensorshape()  # TF's eager default


@pytest.mark.parametrize("name", list(ROWS))
def test_same_as_tensorflow(tf1_shapes_tf, name):
    assert _values(ref, ROWS[name]) == _values(tf1_shapes_tf, ROWS[name])
