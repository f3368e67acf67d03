"""GraphDefs TensorFlow writes when a ``tf.function`` is called in a TF1 graph
(a ``PartitionedCall`` of ``__inference_*`` FunctionDefs; its gradient a call of
the backward function on the rewritten forward call's intermediates) import into
ref and run to TF's values; ref's own gradient of an imported call (a
``SymbolicGradient`` of the function's body) matches TF's gradient."""
import numpy as np
import pytest

import ref
from ref.framework import importer as _under_test  # noqa: F401  (the module these tests cover)


def _affine(tf, tf2, x):
    c = tf.constant(3.0, name="c")

    @tf2.function
    def f(x, y):
        return x * y + c, tf.reduce_sum(tf.tanh(x))

    return list(f(x, tf.constant(2.0)))


def _nested(tf, tf2, x):
    @tf2.function
    def inner(v):
        return tf.exp(v) * 0.5

    @tf2.function
    def outer(v):
        return inner(v) + tf.square(v)

    return [outer(x)]


def _with_cond(tf, tf2, x):
    @tf2.function
    def f(v):
        return tf.cond(tf.reduce_sum(v) > 0.0, lambda: v * 2.0, lambda: v - 1.0)

    return [f(x)]


SNIPPETS = [_affine, _nested, _with_cond]
FEEDS = [np.array([1.0, 2.0], np.float32), np.array([-3.0, 0.5], np.float32)]


def _tf_run(snippet, with_grads):
    tf2 = pytest.importorskip("tensorflow")
    tf = tf2.compat.v1
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2], name="x")
        outs = snippet(tf, tf2, x)
        fetches = outs + (tf.gradients(outs, x) if with_grads else [])
        with tf.Session() as s:
            want = [s.run(fetches, {x: v}) for v in FEEDS]
        grads = None
        if not with_grads:
            with tf.Session() as s:
                grads = [s.run(tf.gradients(outs, x), {x: v}) for v in FEEDS]
        return g.as_graph_def().SerializeToString(), [t.name for t in fetches], want, grads


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.__name__.strip("_"))
def test_tf_function_calls_and_their_tf_gradients_run(snippet):
    gd, names, want, _ = _tf_run(snippet, with_grads=True)
    with ref.Graph().as_default():
        ours = ref.GraphDef()
        ours.ParseFromString(gd)
        ref.import_graph_def(ours, name="")
        with ref.Session() as s:
            got = [s.run(names, {"x:0": v}) for v in FEEDS]
    for g_run, w_run in zip(got, want):
        for a, b in zip(g_run, w_run):
            np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.__name__.strip("_"))
def test_ref_gradient_of_an_imported_call_matches_tf(snippet):
    gd, names, _, want = _tf_run(snippet, with_grads=False)
    with ref.Graph().as_default() as g:
        ours = ref.GraphDef()
        ours.ParseFromString(gd)
        ref.import_graph_def(ours, name="")
        x = g.get_tensor_by_name("x:0")
        grads = ref.gradients([g.get_tensor_by_name(n) for n in names], x)
        assert any(op.type == "SymbolicGradient" for op in g.get_operations())
        with ref.Session() as s:
            got = [s.run(grads, {x: v}) for v in FEEDS]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a[0], b[0], rtol=1e-6)
