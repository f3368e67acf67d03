"""tf.gradients semantics, compared with tensorflow.compat.v1 on the same graphs:
values, None-ness, IndexedSlices vs dense; grad_ys, stop_gradient(s),
unconnected inputs, broadcasting, gather with duplicate indices, while_loop,
cond, aggregation methods."""
import numpy as np
import pytest

import ref
from ref.grad import gradients as _under_test  # noqa: F401  (the module these tests cover)

X0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
W0 = np.array([[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]], np.float32)


def _run(tf, program):
    """Builds ``program(tf, x, w)`` in a fresh graph; returns evaluated gradients."""
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        w = tf.constant(W0, name="w")
        grads = program(tf, x, w)
        with tf.Session() as s:
            out = []
            for gr in grads:
                if gr is None:
                    out.append(None)
                elif isinstance(gr, tf.IndexedSlices):
                    v = s.run(gr, {x: X0})
                    out.append(("slices", np.asarray(v.values), np.asarray(v.indices)))
                else:
                    out.append(("dense", s.run(gr, {x: X0})))
    return out


def _p_composite(tf, x, w):
    y = tf.nn.softmax(tf.matmul(x, w)) * tf.reduce_sum(x * x)
    return tf.gradients(y, [x, w])


def _p_grad_ys(tf, x, w):
    y = tf.tanh(tf.matmul(x, w))
    return tf.gradients(y, [x], grad_ys=[tf.constant(np.full((2, 2), 3.0, np.float32))])


def _p_stop(tf, x, w):
    a = tf.square(x)
    b = tf.stop_gradient(a) * x
    return tf.gradients(b, [x])


def _p_stop_gradients_arg(tf, x, w):
    a = tf.square(x)
    b = a * x
    return tf.gradients(b, [x, a], stop_gradients=[a])


def _p_unconnected(tf, x, w):
    z = tf.placeholder(tf.float32, [3])
    return tf.gradients(tf.reduce_sum(x), [x, z])


def _p_unconnected_zero(tf, x, w):
    z = tf.constant([1.0, 2.0])
    return tf.gradients(tf.reduce_sum(x), [z], unconnected_gradients="zero")


def _p_broadcast(tf, x, w):
    b = tf.constant([[1.0], [2.0]])
    c = tf.constant([1.0, -1.0, 0.5])
    y = (x + b) * c - x / (b + 3.0)
    return tf.gradients(y, [x])


def _p_gather_dup(tf, x, w):
    e = tf.gather(x, tf.constant([1, 0, 1]))
    return tf.gradients(tf.reduce_sum(e * e), [x])


def _p_gather_and_dense(tf, x, w):
    e = tf.gather(x, tf.constant([1, 1]))
    return tf.gradients(tf.reduce_sum(e) + tf.reduce_sum(x * 2.0), [x])


def _p_multiple_ys(tf, x, w):
    return tf.gradients([tf.reduce_sum(tf.exp(x)), tf.reduce_max(x)], [x])


def _p_while(tf, x, w):
    i0 = tf.constant(0)
    _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, tf.sin(y) * 1.5 + x), [i0, x])
    return tf.gradients(tf.reduce_sum(y), [x])


def _p_cond(tf, x, w):
    p = tf.reduce_sum(x) > 0.0
    y = tf.cond(p, lambda: tf.square(x) * 2.0, lambda: tf.exp(x))
    return tf.gradients(y, [x])


def _p_cond_false(tf, x, w):
    p = tf.reduce_sum(x) < 0.0
    y = tf.cond(p, lambda: tf.square(x) * 2.0, lambda: tf.exp(x) + tf.reduce_sum(x))
    return tf.gradients(y, [x])


def _p_aggregation_tree(tf, x, w):
    y = tf.sin(x) + tf.cos(x) + tf.square(x)
    return tf.gradients(y, [x], aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE)


def _p_integer_path(tf, x, w):
    n = tf.cast(tf.reduce_sum(x), tf.int32)
    return tf.gradients(tf.cast(n, tf.float32) + tf.reduce_sum(x), [x])


def _p_second_order(tf, x, w):
    y = tf.reduce_sum(tf.tanh(tf.matmul(x, w)))
    (g,) = tf.gradients(y, [x])
    return tf.gradients(tf.reduce_sum(g * g), [x])


def _p_concat_many(tf, x, w):  # more than 16 pieces: TF's Split of the sizes (an LSTM's outputs)
    parts = [x * float(i + 1) for i in range(17)]
    return tf.gradients(tf.reduce_sum(tf.sin(tf.concat(parts, 1))), [x])


def _p_concat_many_negative_axis(tf, x, w):
    parts = [tf.square(x) + float(i) for i in range(18)]
    return tf.gradients(tf.reduce_sum(tf.cos(tf.concat(parts, -2))), [x])


PROGRAMS = {name[3:]: fn for name, fn in globals().items() if name.startswith("_p_")}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradients_match_tensorflow(name):
    tf = pytest.importorskip("tensorflow").compat.v1
    expected = _run(tf, PROGRAMS[name])
    actual = _run(ref, PROGRAMS[name])
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        if e is None:
            assert a is None
            continue
        assert a is not None and a[0] == e[0], (a and a[0], e[0])
        if e[0] == "slices":
            dense_a = np.zeros_like(X0)
            np.add.at(dense_a, a[2], a[1])
            dense_e = np.zeros_like(X0)
            np.add.at(dense_e, e[2], e[1])
            np.testing.assert_allclose(dense_a, dense_e, rtol=2e-6, atol=1e-6)
        else:
            np.testing.assert_allclose(a[1], e[1], rtol=2e-5, atol=1e-6)


def test_no_gradient_registered_raises_lookup_error():
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float32, [3])
        with ref.get_default_graph().gradient_override_map({"Square": "NoSuchGradient"}):
            y = ref.square(x)
        with pytest.raises(LookupError, match="No gradient defined"):
            ref.gradients(y, [x])


def test_register_gradient_and_override_map():
    @ref.RegisterGradient("TestTimesThreeGrad")
    def _times_three(op, grad):
        return grad * 3.0

    with ref.Graph().as_default() as g:
        x = ref.placeholder(ref.float32, [2])
        with g.gradient_override_map({"Identity": "TestTimesThreeGrad"}):
            y = ref.identity(x)
        (gx,) = ref.gradients(y, [x])
        with ref.Session() as s:
            assert s.run(gx, {x: [1.0, 2.0]}).tolist() == [3.0, 3.0]


def test_bad_arguments():
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float32, [2])
        y = ref.square(x)
        with pytest.raises(ValueError):
            ref.gradients([y], [x], grad_ys=[y, y])
        with pytest.raises(ValueError):
            ref.gradients(y, [x], aggregation_method=99)


def test_gate_gradients_groups_with_tuple():
    with ref.Graph().as_default() as g:
        a = ref.placeholder(ref.float32, [2])
        b = ref.placeholder(ref.float32, [2])
        ga, gb = ref.gradients(a * b, [a, b], gate_gradients=True)
        # each gated gradient is an Identity behind a control dependency on the tuple's group
        assert ga.op.type == "Identity" and ga.op.control_inputs


def test_gradients_are_differentiable_graphs():
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float64, [])
        y = x * x * x
        (g1,) = ref.gradients(y, x)
        (g2,) = ref.gradients(g1, x)
        (g3,) = ref.gradients(g2, x)
        with ref.Session() as s:
            assert s.run([g1, g2, g3], {x: 2.0}) == [12.0, 12.0, 6.0]
