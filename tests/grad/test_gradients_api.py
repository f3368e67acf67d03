"""``tf.gradients``'s arguments and results, each program run under
tensorflow.compat.v1 and ref: gate_gradients, aggregation_method (values and the
ops built), stop_gradients, unconnected_gradients, grad_ys checks (TF's
messages), complex ys, IndexedSlices dtypes (gather's dense_shape is int32),
clip_by_norm of IndexedSlices, colocate_gradients_with_ops (devices and
colocation groups), and the cases of TF's gradients_test.py."""
import numpy as np
import pytest

import ref

from _both import assert_same, run, tf_v1
from ref.grad import gradients as _under_test  # noqa: F401  (the module these tests cover)


def _ops_of_types(g, prefix, types):
    return sorted(o.type for o in g.get_operations() if o.name.startswith(prefix) and o.type in types)


def _p_gate(tf, s):
    x = tf.constant([1.0, 2.0])
    w = tf.constant([3.0, 4.0])
    y = tf.reduce_sum(x * w)
    got = tf.gradients(y, [x, w], gate_gradients=True)
    names = sorted(o.name for o in tf.get_default_graph().get_operations() if "tuple" in o.name)
    return s.run(got), names


def _p_no_gate(tf, s):
    x = tf.constant([1.0, 2.0])
    w = tf.constant([3.0, 4.0])
    got = tf.gradients(tf.reduce_sum(x * w), [x, w])
    names = sorted(o.name for o in tf.get_default_graph().get_operations() if "tuple" in o.name)
    return s.run(got), names


def _aggregation(method):
    def program(tf, s):
        x = tf.constant([1.0, 2.0])
        y = x * 2.0 + x * 3.0 + tf.square(x)
        got = tf.gradients(y, x, aggregation_method=getattr(tf.AggregationMethod, method))
        kinds = _ops_of_types(tf.get_default_graph(), "gradients/", ("AddN", "AddV2", "AccumulateNV2"))
        return s.run(got), kinds
    return program


def _p_aggregation_bad(tf, s):
    x = tf.constant(1.0)
    return tf.gradients(x * 2.0, x, aggregation_method=7), tf.gradients(x * 2.0, tf.constant(2.0),
                                                                        aggregation_method=7)


def _p_aggregation_bad_unconnected(tf, s):  # nothing visited, nothing checked
    return tf.gradients(tf.constant(1.0) * 2.0, tf.constant(2.0), aggregation_method=7)


def _p_aggregation_y_plus_y(tf, s):  # gradients_test.py testAggregationMethod*
    x = tf.constant(1.0)
    y = x * 2.0
    z = y + y + y + y + y + y + y + y + y + y
    out = []
    for m in ("ADD_N", "EXPERIMENTAL_TREE", "EXPERIMENTAL_ACCUMULATE_N"):
        out.append(s.run(tf.gradients(z, [x, y], aggregation_method=getattr(tf.AggregationMethod, m))))
    return out


def _p_slices_concat_order(tf, s):
    p = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    y = tf.reduce_sum(tf.gather(p, [0, 1])) + tf.reduce_sum(tf.gather(p, [1, 2]) * 2.0)
    (g,) = tf.gradients(y, p)
    return type(g).__name__, s.run(g)


def _p_slices_and_dense(tf, s):
    p = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    y = tf.reduce_sum(tf.gather(p, [0, 1])) + tf.reduce_sum(p * 2.0)
    (g,) = tf.gradients(y, p)
    return type(g).__name__ == "IndexedSlices", s.run(g)


def _p_stop_gradients_partial(tf, s):  # testPartialDerivatives
    x = tf.constant(1.0)
    y = 2 * x
    z = x + y
    return s.run(tf.gradients(z, [x, y])), s.run(tf.gradients(z, [x, y], stop_gradients=[x, y]))


def _p_stop_gradients_single(tf, s):
    a = tf.constant(1.0)
    b = 2 * a
    c = a * b
    return s.run(tf.gradients(c, [a], stop_gradients=[b])), s.run(tf.gradients(c, [a, b], stop_gradients=b))


def _p_stop_gradients_unconnected(tf, s):
    a = tf.constant(1.0)
    b = 2 * a
    c = b * 3.0
    return (tf.gradients(c, [a], stop_gradients=[b]),
            s.run(tf.gradients(c, [a], stop_gradients=[b], unconnected_gradients="zero")))


def _p_unconnected(tf, s):
    x = tf.constant(1.0, shape=[2, 2])
    y = tf.constant(3.0, shape=[3, 1])
    return (tf.gradients([y], [x], unconnected_gradients="none"),
            s.run(tf.gradients([y], [x], unconnected_gradients="zero")),
            s.run(tf.gradients([x * 3.0], [x], unconnected_gradients=tf.UnconnectedGradients.ZERO)))


def _p_unconnected_bad(tf, s):
    return tf.gradients([tf.constant(1.0)], [tf.constant(1.0)], unconnected_gradients="nonsense")


def _p_unconnected_identity_n(tf, s):  # testUnconnectedOpWithMultipleOutputs
    a = tf.constant(1.0)
    b = tf.constant(1.0)
    c, d = tf.identity_n([a, b])
    e = tf.identity(c)
    return (tf.gradients(e, d), s.run(tf.gradients(e, d, unconnected_gradients="zero")),
            s.run(tf.gradients(tf.stop_gradient(c) + d, c, unconnected_gradients="zero")))


def _p_dependent_ys(tf, s):  # testDependentYs
    x = tf.constant(3.0)
    y = tf.square(x)
    y2 = tf.square(tf.square(y))
    return (s.run(tf.gradients([y, y2], x)), s.run(tf.gradients(y + y2, x)),
            s.run(tf.gradients([tf.identity(y), tf.identity(y2)], x)))


def _p_boundary(tf, s):  # testBoundaryStop / testBoundaryContinue
    x = tf.constant(1.0)
    y = x * 2.0
    z = y * 3.0
    c = tf.identity(tf.constant(1.0))
    return s.run(tf.gradients(z, [x, y])), s.run(tf.gradients(c + 1.0 + 1, [c]))


def _p_complex_without_grad_ys(tf, s):
    x = tf.constant([7 + 3j], dtype=tf.complex64)
    return tf.gradients(tf.square(x), x)


def _p_grad_ys_length(tf, s):
    a = tf.constant([1.0, 2.0])
    return tf.gradients(a * 2.0, a, grad_ys=[tf.constant([1.0, 2.0]), None])


def _p_grad_ys_string(tf, s):
    a = tf.constant([1.0, 2.0])
    return tf.gradients(a * 2.0, a, grad_ys=[tf.constant(["a", "b"])])


def _p_grad_ys_given(tf, s):
    a = tf.constant([1.0, 2.0])
    got = tf.gradients(a * 2.0, a, grad_ys=[[3.0, 4.0]])
    names = sorted(o.name for o in tf.get_default_graph().get_operations() if "grad_y" in o.name)
    return s.run(got), names


def _p_grad_ys_indexed_slices(tf, s):  # testSingletonIndexedSlices
    x = tf.placeholder(tf.float32)
    y = tf.identity(x)
    dy = tf.IndexedSlices(tf.placeholder(tf.float32), tf.placeholder(tf.int32))
    (dx,) = tf.gradients(y, x, grad_ys=dy)
    return type(dx).__name__, s.run(dx, {x: [1.0], dy.indices: [0], dy.values: [2.0]})


def _p_names(tf, s):
    a = tf.constant([1.0, 2.0])
    tf.gradients(a * 2.0, a, name="mygrad")
    tf.gradients(a * 2.0, a, name="mygrad")
    tf.gradients(a * 2.0, a)
    return sorted({o.name.split("/")[0] for o in tf.get_default_graph().get_operations()})


def _p_integer_x(tf, s):
    x = tf.constant([1, 2])
    return tf.gradients(tf.cast(x, tf.float32) * 2.0, x), tf.gradients(x * 2, x)


def _gather(indices_dtype, source):
    def program(tf, s):
        if source == "constant":
            p = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
        else:
            p = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), use_resource=(source == "resource"))
        idx = [0, 2, 0] if indices_dtype is None else tf.constant([0, 2, 0], indices_dtype)
        (g,) = tf.gradients(tf.reduce_sum(tf.gather(p, idx) * 3.0), p)
        s.run(tf.global_variables_initializer())
        return type(g).__name__, g.dense_shape.dtype, g.indices.dtype, s.run(g)
    return program


def _p_embedding_lookup_slices(tf, s):
    v = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), use_resource=False)
    (g,) = tf.gradients(tf.reduce_sum(tf.nn.embedding_lookup(v, [0, 2, 0])), v)
    s.run(tf.global_variables_initializer())
    return type(g).__name__, g.dense_shape.dtype, s.run(g)


def _p_clip_by_norm_slices(tf, s):
    p = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    (g,) = tf.gradients(tf.gather(p, [0, 2, 0]) * 3.0, p)
    c = tf.clip_by_norm(g, 1.0)
    ca = tf.clip_by_norm(g, 1.0, axes=[1])
    return (type(c).__name__, c.indices is g.indices, c.dense_shape is g.dense_shape, s.run(c), s.run(ca))


def _p_clip_by_global_norm_slices(tf, s):
    p = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    (g,) = tf.gradients(tf.gather(p, [0, 2, 0]) * 3.0, p)
    clipped, norm = tf.clip_by_global_norm([g, tf.constant([1.0, 2.0])], 1.0)
    return type(clipped[0]).__name__, s.run(clipped), s.run(norm)


def _p_colocate(tf, s):
    with tf.device("/job:a/task:1"):
        x = tf.constant([1.0, 2.0])
        y = tf.square(x)
    with tf.device("/job:b"):
        z = tf.reduce_sum(y * 3.0)
    with tf.device("/job:c"):
        (gx,) = tf.gradients(z, x, colocate_gradients_with_ops=True)
        (gn,) = tf.gradients(z, x)
    return gx.device, gx.op.colocation_groups(), gn.device, gn.op.colocation_groups() == y.op.colocation_groups()


def _p_colocate_aggregation(tf, s):  # testColocateGradientsWithAggregation(InMultipleDevices)
    with tf.device("/device:GPU:1"):
        w = tf.constant(1.0, shape=[1, 1])
    x = tf.constant(1.0, shape=[1, 2])
    y = tf.constant(1.0, shape=[1, 2])
    wx = tf.matmul(w, x)
    wy = tf.matmul(w, y)
    with tf.device("/device:GPU:0"):
        z = wx + wy
    gw1 = tf.gradients(z, [w], colocate_gradients_with_ops=True)[0]
    gw2 = tf.gradients(z, [w], colocate_gradients_with_ops=False)[0]
    with tf.device("/task:1"):
        wx2 = tf.matmul(w, x)
    with tf.device("/task:2"):
        wy2 = tf.matmul(w, y)
    with tf.device("/device:GPU:0"):
        z2 = wx2 + wy2
    gw3 = tf.gradients(z2, [w], colocate_gradients_with_ops=True)[0]
    return (gw1.op.colocation_groups() == wx.op.colocation_groups(),
            gw2.op.colocation_groups() == wx.op.colocation_groups(),
            gw3.op.colocation_groups() == w.op.colocation_groups(), gw3.device, gw1.device)


def _p_no_gradient_registered(tf, s):
    x = tf.constant([1.0, 2.0])
    y = tf.round(x) * x
    return s.run(tf.gradients(y, x))


def _p_hessians(tf, s):
    x = tf.constant([1.0, 2.0])
    return s.run(tf.hessians(tf.reduce_sum(x * x * x), x))


PROGRAMS = {name[3:]: fn for name, fn in globals().items() if name.startswith("_p_")}
PROGRAMS.update({f"aggregation_{m}": _aggregation(m)
                 for m in ("ADD_N", "DEFAULT", "EXPERIMENTAL_TREE", "EXPERIMENTAL_ACCUMULATE_N")})
PROGRAMS.update({f"gather_{src}_{d or 'list'}": _gather(d and getattr(ref, d), src)
                 for src in ("constant", "ref", "resource") for d in (None, "int64")})

SAME_CLASS_ONLY = set()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradients_api_matches_tensorflow(name):
    tf = tf_v1()
    program = PROGRAMS[name]
    if name.startswith("gather_") and not name.endswith("list"):
        program = _gather(tf.int64, name.split("_")[1])
        ref_program = _gather(ref.int64, name.split("_")[1])
    else:
        ref_program = program
    want = run(tf, program)
    got = run(ref, ref_program)
    if name in SAME_CLASS_ONLY:
        assert got[0] == "raises"
        return
    assert_same(got, want)
