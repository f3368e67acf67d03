"""GraphDef identity rows from the third sweep of ref's TF1 builders: the
builders the second sweep left different (``tf.hessians``' while loop over a
TensorArray) and the families it covered thinly (tf.image, tf.data, feature
columns, distributions, schedules, RNN cells, metrics, losses, layers, tf.nn,
optimizers' slots and sparse paths), built the way users call them on
placeholders of known and unknown shapes, with ``tf.gradients`` of a scalar of
their float outputs, under ref and under TF 2.21's ``tf.compat.v1`` (TF1
behaviour). Each row is one builder (or gradient rule) the sweep found
different and that now builds TF's graph (``_graphdef.py``: names, op types,
attrs, data inputs in order, control inputs in order (a GraphDef sorts them by name), creation order).
"""
import numpy as np
import pytest

from ref.graph_ops import array_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, fed_values, tf_v1


def _x(tf, shape=(None, 3), name="x", dtype=None):
    return tf.placeholder(dtype or tf.float32, None if shape is None else list(shape), name=name)


def _grad(tf, y, xs):
    return tf.gradients(tf.reduce_sum(y), xs)


# -- tf.hessians: TF's while_loop writing one row per element of x into a TensorArray --

def hessians_known(tf):
    x = _x(tf, [3])
    tf.hessians(tf.reduce_sum(x * x * x), x)


def hessians_unknown_two_xs(tf):
    x = _x(tf, [None, 2])
    w = _x(tf, [2], "w")
    tf.hessians(tf.reduce_sum(tf.sin(x) * w * w), [x, w])


# -- resource variables handed to builders: read where TF reads them --------------------

def _rv(tf):
    return tf.get_variable("e", [4, 3], use_resource=True)


def rv_reduce(tf):  # TF's reductions convert inside the op's scope: "Sum/ReadVariableOp"
    e = _rv(tf)
    tf.reduce_sum(e)
    tf.reduce_mean(e, 0)
    tf.reduce_all(tf.cast(e, tf.bool))


def rv_gather_indices(tf):  # ResourceGather's indices convert in its scope ("Gather/indices")
    e = _rv(tf)
    _grad(tf, tf.gather(e, [0, 1]), [e])


def rv_zeros_like(tf):  # a variable of known shape is not read by zeros_like
    e = _rv(tf)
    tf.zeros_like(e)
    tf.ones_like(e)


def rv_add_n(tf):  # add_n converts its inputs before AddN's scope; one input comes back as is
    e = _rv(tf)
    tf.add_n([e, e])
    tf.add_n([e])
    tf.add_n([e], name="named")
    tf.add_n([1.0, 2.0])


def rv_group_updates(tf):  # tf.group of an update's result depends on the update, not on a read
    e = _rv(tf)
    tf.group(e.assign(tf.zeros([4, 3])), e.assign_add(tf.ones([4, 3])), e)


def _opt_resource(name, make):
    def snippet(tf):
        e = _rv(tf)
        i = _x(tf, [None], "i", tf.int32)
        make(tf).minimize(tf.reduce_sum(tf.gather(e, i)) + tf.reduce_sum(e))
    return snippet


OPTIMIZERS = {
    "adam": lambda tf: tf.train.AdamOptimizer(0.1),
    "momentum": lambda tf: tf.train.MomentumOptimizer(0.1, 0.9),
    "adagrad_da": lambda tf: tf.train.AdagradDAOptimizer(0.1, tf.train.get_or_create_global_step()),
    "rmsprop_centered": lambda tf: tf.train.RMSPropOptimizer(0.1, momentum=0.9, centered=True),
    "ftrl": lambda tf: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.1),
}


# -- tf.data iterators: colocation as TF's, the one-shot factory named _make_dataset_<hash> --

def iterator_from_structure(tf):
    d = tf.data.Dataset.from_tensor_slices({"a": np.zeros([4, 2], np.float32), "b": np.arange(4)})
    it = tf.data.Iterator.from_structure(tf.data.get_output_types(d), tf.data.get_output_shapes(d))
    it.make_initializer(d)
    it.get_next()


def one_shot_map_batch(tf):
    d = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.float32)).map(lambda v: v * 2).batch(3)
    tf.data.make_one_shot_iterator(d).get_next()


def one_shot_interleave(tf):
    d = tf.data.Dataset.range(3).interleave(lambda v: tf.data.Dataset.from_tensors(v).repeat(2), cycle_length=2)
    tf.data.make_one_shot_iterator(d).get_next()


# -- feature columns whose lookup tables are named by a uuid4 (masked, TF draws one per table) --

def _features(tf):
    fc = tf.feature_column
    c = fc.categorical_column_with_vocabulary_list("c", ["x", "y", "z"])
    feats = {"c": _x(tf, [None, 1], "c", tf.string), "n": _x(tf, [None, 1], "n")}
    return fc, c, feats


def fc_embedding_vocabulary(tf):
    fc, c, feats = _features(tf)
    fc.input_layer(feats, [fc.embedding_column(c, 3), fc.indicator_column(c)])


def fc_linear_model_vocabulary(tf):
    fc, c, feats = _features(tf)
    fc.linear_model(feats, [c, fc.bucketized_column(fc.numeric_column("n"), [0.0, 1.0])])


# -- gradients: FusedBatchNorm inference channels-first (TF transposes to channels-last), conv3d_transpose --

def bn_inference_nchw(tf):
    x = _x(tf, [None, 3, 4, 4])
    _grad(tf, tf.layers.batch_normalization(x, axis=1, training=False), [x] + tf.trainable_variables())


def fused_bn_inference_nchw(tf):
    x = _x(tf, [2, 3, 4, 4])
    s, o = _x(tf, [3], "s"), _x(tf, [3], "o")
    _grad(tf, tf.nn.fused_batch_norm(x, s, o, mean=s, variance=o * o, is_training=False, data_format="NCHW")[0],
          [x, s, o])


def conv3d_transpose_grad(tf):
    x = _x(tf, [2, 2, 4, 4, 3])
    f = _x(tf, [3, 3, 3, 2, 3], "f")
    _grad(tf, tf.nn.conv3d_transpose(x, f, [2, 4, 8, 8, 2], [1, 2, 2, 2, 1]), [x, f])


# -- map_fn over elements of unknown count: one Shape for the length (TF's), so Multinomial.sample --

def map_fn_unknown_count(tf):
    x = _x(tf)
    _grad(tf, tf.map_fn(lambda r: r * 2.0, x), [x])
    tf.map_fn(lambda r: r[0] + r[1], (x, x), dtype=tf.float32)


def multinomial_sample(tf):
    tf.distributions.Multinomial(5.0, logits=_x(tf, [None, 3], "l")).sample(2, seed=3)


# -- Einsum's gradient of a trace ("ii->" differentiates as "i->ii", a diagonal), ones(int) as TF --

def einsum_trace_grad(tf):
    x = _x(tf, [3, 3])
    y = _x(tf, [None, 3, 3], "y")
    _grad(tf, tf.einsum("ii->", x) + tf.reduce_sum(tf.einsum("ii->i", x)), [x])
    _grad(tf, tf.einsum("bii->b", y), [y])


def filled_scalar_shapes(tf):
    tf.zeros(3)
    tf.ones(np.int64(2), tf.int32)
    tf.zeros([3])


ROWS = {
    "hessians_known": hessians_known, "hessians_unknown_two_xs": hessians_unknown_two_xs,
    "rv_reduce": rv_reduce, "rv_gather_indices": rv_gather_indices, "rv_zeros_like": rv_zeros_like,
    "rv_add_n": rv_add_n, "rv_group_updates": rv_group_updates,
    **{f"resource_{k}": _opt_resource(k, v) for k, v in OPTIMIZERS.items()},
    "iterator_from_structure": iterator_from_structure, "one_shot_map_batch": one_shot_map_batch,
    "one_shot_interleave": one_shot_interleave, "fc_embedding_vocabulary": fc_embedding_vocabulary,
    "fc_linear_model_vocabulary": fc_linear_model_vocabulary,
    "bn_inference_nchw": bn_inference_nchw, "fused_bn_inference_nchw": fused_bn_inference_nchw,
    "conv3d_transpose_grad": conv3d_transpose_grad, "map_fn_unknown_count": map_fn_unknown_count,
    "multinomial_sample": multinomial_sample, "einsum_trace_grad": einsum_trace_grad,
    "filled_scalar_shapes": filled_scalar_shapes,
}


@pytest.mark.parametrize("snippet", ROWS.values(), ids=list(ROWS))
def test_graph_is_tensorflows(snippet):
    assert_same_graph(snippet)


# -- values of what ref now builds differently ------------------------------------------

def _hessian_unknown_size(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.placeholder(tf.float32, [2], name="w")
    h = tf.hessians(tf.reduce_sum(tf.sin(x) * w * w), [x, w])
    return h, {x: np.array([[0.5, -1.0], [2.0, 0.25]], np.float32), w: np.array([1.5, -0.5], np.float32)}


def _fused_bn_nchw_grad(tf):
    x = tf.placeholder(tf.float32, [2, 3, 2, 2], name="x")
    s = tf.placeholder(tf.float32, [3], name="s")
    y = tf.nn.fused_batch_norm(x, s, s * 0.5, mean=s * 0.1, variance=s * s, is_training=False, data_format="NCHW")[0]
    rng = np.random.default_rng(3)
    return tf.gradients(tf.reduce_sum(y * y), [x, s]), {x: rng.standard_normal([2, 3, 2, 2]).astype(np.float32),
                                                       s: np.array([0.5, 1.5, 2.0], np.float32)}


def _conv3d_transpose_grad(tf):
    x = tf.placeholder(tf.float32, [1, 2, 2, 2, 3], name="x")
    f = tf.placeholder(tf.float32, [2, 2, 2, 2, 3], name="f")
    y = tf.nn.conv3d_transpose(x, f, [1, 4, 4, 4, 2], [1, 2, 2, 2, 1])
    gx, gf = tf.gradients(tf.reduce_sum(y * y), [x, f])
    rng = np.random.default_rng(4)
    return [gx, gf, tf.gradients(tf.reduce_sum(gx * gx), [f])[0]], {
        x: rng.standard_normal([1, 2, 2, 2, 3]).astype(np.float32), f: rng.standard_normal([2, 2, 2, 2, 3]).astype(np.float32)}


def _einsum_diagonal(tf):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    m = tf.placeholder(tf.float32, [2, 3, 3], name="m")
    return [tf.gradients(tf.einsum("bii->", m * m), [m])[0], tf.gradients(tf.einsum("ii->i", x[:, :2] * 3.0), [x])[0]], {
        x: np.arange(6, dtype=np.float32).reshape(3, 2).T.copy(), m: np.arange(18, dtype=np.float32).reshape(2, 3, 3)}


@pytest.mark.parametrize("equation, x", [("i->ii", np.arange(1, 4, dtype=np.float32)),
                                         ("bi->bii", np.arange(6, dtype=np.float32).reshape(2, 3))])
def test_einsum_kernel_repeated_output_label_is_a_diagonal(equation, x):
    import ref
    want = np.stack([np.diag(r) for r in x]) if x.ndim == 2 else np.diag(x)
    np.testing.assert_array_equal(ref.raw_ops.Einsum(inputs=[x], equation=equation), want)


@pytest.mark.parametrize("snippet", [_hessian_unknown_size, _fused_bn_nchw_grad, _conv3d_transpose_grad,
                                     _einsum_diagonal],
                         ids=["hessians_unknown_size", "fused_bn_nchw_inference_grad", "conv3d_transpose_grads",
                              "einsum_repeated_output_label"])
def test_values_are_tensorflows(snippet):
    import ref
    got, want = fed_values(ref, snippet), fed_values(tf_v1(), snippet)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
