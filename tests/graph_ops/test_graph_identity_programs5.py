"""Builders that TF1 programs of the fifth program set (tests/programs/
test_tf1_user_programs3.py) found apart from TF: the ``tf.strings`` family
(``to_number``, ``length``, ``lower``, ``upper``, ``strip``, ``join``,
``reduce_join``, ``regex_full_match``, ``format``), ``sparse_reduce_sum/max``
with an ``axis`` (TF's ``<Op>/reduction_axes``), ``tf.cast`` of a SparseTensor,
``edit_distance`` of computed shapes (unknown output shape: a later reduction
builds TF's Rank/Range), the ``*_at_thresholds`` metrics (only the negations a
count reads), ``SpaceToBatchND`` / ``BatchToSpaceND`` and their builders, a
dilated ``tf.nn.convolution`` / ``atrous_conv2d`` / ``tf.layers.conv1d/conv2d``
(TF's SpaceToBatchND / VALID convolution / BatchToSpaceND graph) and ``concat``
of one tensor. Each row makes TF's GraphDef node for node and TF's values;
the convolution rows TF's gradients too."""
import numpy as np
import pytest

import ref  # noqa: F401
from ref.graph_ops import space_batch_ops as _space_batch, string_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, fetched_values, tf_v1

WORDS = [["Hello ", " wORLD\t"], ["\xe9t\xe9", "x"]]
SP = (np.array([[0, 0], [0, 2], [1, 1], [2, 0]], np.int64), np.array([1.5, -2.0, 3.0, 0.5], np.float32),
      np.array([3, 4], np.int64))
SCORES = np.array([0.1, 0.7, 0.4, 0.9, 0.35], np.float32)
LABELS = np.array([False, True, True, False, True])


def _words(t):
    return t.constant(WORDS)


def _unknown_rank(t):
    return t.placeholder_with_default(t.constant(WORDS), shape=None)


def _sparse(t):
    return t.SparseTensor(*[t.constant(a) for a in SP])


def _edit(t):
    truth = t.SparseTensor(t.constant([[0, 0], [0, 1], [1, 0]], t.int64), t.constant([1, 2, 3]),
                           t.placeholder_with_default(t.constant([2, 2], t.int64), [2]))
    hyp = t.SparseTensor(t.constant([[0, 0], [1, 0], [1, 1]], t.int64), t.constant([1, 3, 3]),
                         t.placeholder_with_default(t.constant([2, 2], t.int64), [2]))
    d = t.edit_distance(hyp, truth)
    return [d, t.reduce_mean(d)]


def _at_thresholds(name):
    def snippet(t):
        _, update = getattr(t.metrics, name)(t.constant(LABELS), t.constant(SCORES), [0.3, 0.5, 0.8])
        return update  # the value after one update (the value tensor itself is read in any order)
    return snippet


IMG = np.random.RandomState(3).rand(2, 9, 10, 3).astype(np.float32)
SEQ = np.random.RandomState(4).rand(2, 11, 3).astype(np.float32)
VOL = np.random.RandomState(5).rand(1, 6, 7, 5, 2).astype(np.float32)
K2 = np.random.RandomState(6).randn(3, 2, 3, 4).astype(np.float32)
K1 = np.random.RandomState(7).randn(3, 3, 4).astype(np.float32)
K3 = np.random.RandomState(8).randn(2, 3, 2, 2, 3).astype(np.float32)


def _image(t, known=True):
    return t.constant(IMG) if known else t.placeholder_with_default(IMG, [None, None, None, 3])


def _layer(kind, **kw):
    def snippet(t):
        t.set_random_seed(3)
        x = t.constant(SEQ if kind == "conv1d" else IMG)
        return getattr(t.layers, kind)(x, 4, 3, **kw)
    return snippet


CONVOLUTIONS = {
    "convolution_dilated_same": lambda t: t.nn.convolution(_image(t), K2, "SAME", dilation_rate=[2, 3]),
    "convolution_dilated_valid": lambda t: t.nn.convolution(_image(t), K2, "VALID", dilation_rate=[2, 2],
                                                            name="dil"),
    "convolution_dilated_unknown_hw": lambda t: t.nn.convolution(_image(t, False), K2, "SAME", dilation_rate=[3, 2]),
    "convolution_dilated_1d": lambda t: t.nn.convolution(t.constant(SEQ), K1, "SAME", dilations=[2]),
    "convolution_dilated_3d": lambda t: t.nn.convolution(t.constant(VOL), K3, "VALID", dilation_rate=[2, 1, 2]),
    "convolution_rate_one": lambda t: t.nn.convolution(_image(t), K2, "SAME", dilation_rate=[1, 1]),
    "atrous_conv2d": lambda t: t.nn.atrous_conv2d(_image(t), K2, 2, "SAME"),
    "atrous_conv2d_valid": lambda t: t.nn.atrous_conv2d(_image(t, False), K2, 3, "VALID"),
    "layers_conv2d_dilated": _layer("conv2d", dilation_rate=2, padding="same"),
    "layers_conv1d_dilated": _layer("conv1d", dilation_rate=3),
}

SNIPPETS = {
    **CONVOLUTIONS,
    "space_to_batch_nd": lambda t: t.space_to_batch_nd(_image(t), [2, 3], [[1, 0], [0, 2]]),
    "space_to_batch_nd_int64": lambda t: t.space_to_batch_nd(t.constant(SEQ), t.constant([4], t.int64),
                                                             t.constant([[0, 1]], t.int64)),
    "batch_to_space_nd": lambda t: t.batch_to_space_nd(t.space_to_batch_nd(_image(t, False), [2, 3], [[1, 0], [0, 2]]),
                                                       [2, 3], [[1, 0], [0, 2]]),
    "space_to_batch_v1": lambda t: t.space_to_batch(t.constant(IMG[:, :8, :8]), [[0, 0], [2, 2]], 2),
    "batch_to_space_v1": lambda t: t.batch_to_space(t.constant(np.tile(IMG[:, :4, :4], [4, 1, 1, 1])),
                                                    [[0, 1], [1, 0]], 2),
    "required_paddings_const": lambda t: list(t.required_space_to_batch_paddings([9, 10], [2, 4], [[1, 1], [0, 3]])),
    "required_paddings_dynamic": lambda t: list(t.required_space_to_batch_paddings(
        t.shape(_image(t, False))[1:3], [2, 4])),
    "concat_one": lambda t: [t.concat([t.constant([1.0, 2.0])], 0), t.concat(t.constant([[3]]), 1, name="c")],
    "to_number": lambda t: t.strings.to_number(["1.5", "-2"]),
    "to_number_input": lambda t: t.strings.to_number(input=t.constant(["7", "8"]), out_type=t.int32),
    "string_to_number": lambda t: t.string_to_number(["3.25"], t.float64, name="num"),
    "length": lambda t: t.strings.length(_words(t)),
    "length_utf8": lambda t: t.strings.length(_words(t), unit="UTF8_CHAR"),
    "lower": lambda t: t.strings.lower(_words(t)),
    "upper_utf8": lambda t: t.strings.upper(_words(t), encoding="utf-8"),
    "strip": lambda t: t.strings.strip(_words(t)),
    "string_strip": lambda t: t.string_strip(["  a b  "]),
    "join": lambda t: t.strings.join([_words(t), "-", _words(t)], separator="|"),
    "string_join": lambda t: t.string_join(["a", t.constant(["b", "c"])]),
    "reduce_join_all": lambda t: t.strings.reduce_join(_words(t)),
    "reduce_join_axis": lambda t: t.strings.reduce_join(_words(t), axis=0, separator=","),
    "reduce_join_axes_keep": lambda t: t.reduce_join(_words(t), [0, 1], keep_dims=True, separator="."),
    "reduce_join_neg_axis": lambda t: t.strings.reduce_join(_words(t), -1, keepdims=True, name="rj"),
    "reduce_join_unknown_rank": lambda t: t.strings.reduce_join(_unknown_rank(t)),
    "regex_full_match": lambda t: t.strings.regex_full_match(_words(t), r"\s*[a-zA-Z]+\s*"),
    "regex_full_match_tensor": lambda t: t.strings.regex_full_match(_words(t), t.constant("x|.*o.*")),
    "format": lambda t: t.strings.format("a={} b={}", [t.constant([1, 2]), t.constant(2.5)]),
    "format_one": lambda t: t.strings.format("v: {}", t.constant([[1.0, 2.0]])),
    "sparse_reduce_sum_axis": lambda t: t.sparse_reduce_sum(_sparse(t), axis=1),
    "sparse_reduce_sum_keep": lambda t: t.sparse_reduce_sum(_sparse(t), axis=[0], keepdims=True),
    "sparse_reduce_sum_all": lambda t: t.sparse_reduce_sum(_sparse(t)),
    "sparse_reduce_max_axis": lambda t: t.sparse_reduce_max(_sparse(t), 0),
    "cast_sparse": lambda t: [t.cast(_sparse(t), t.int32).values, t.cast(_sparse(t), t.float32).values, t.cast(_sparse(t), t.int64).indices],
    "cast_indexed_slices": lambda t: t.cast(t.IndexedSlices(t.constant([[1.5, 2.5]]), t.constant([1])),
                                            t.float64).values,
    "edit_distance_computed_shapes": _edit,
    "precision_at_thresholds": _at_thresholds("precision_at_thresholds"),
    "recall_at_thresholds": _at_thresholds("recall_at_thresholds"),
    "false_negatives_at_thresholds": _at_thresholds("false_negatives_at_thresholds"),
    "true_positives_at_thresholds": _at_thresholds("true_positives_at_thresholds"),
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_graph_def(name):
    assert_same_graph(SNIPPETS[name])


def _assert_same(got, want, where):
    if isinstance(want, (list, tuple)):
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want)):
            _assert_same(g, w, f"{where}[{i}]")
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (where, got, want)
    if want.dtype.kind == "f":
        # (a convolution's float32 sums in another order: rounding relative to the output's scale)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max(initial=0)),
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_values(name):
    tf_v1()
    _assert_same(fetched_values(ref, SNIPPETS[name]), fetched_values(tf_v1(), SNIPPETS[name]), name)


@pytest.mark.parametrize("name", sorted(CONVOLUTIONS))
def test_convolution_gradients(name):
    def snippet(t):
        t.set_random_seed(3)
        y = CONVOLUTIONS[name](t)
        xs = [v for v in t.global_variables()] or [
            op.outputs[0] for op in t.get_default_graph().get_operations() if op.type == "Const"
            and op.outputs[0].dtype == t.float32 and op.outputs[0].shape.ndims >= 3]
        return t.gradients(t.reduce_sum(y * y), xs)
    _assert_same(fetched_values(ref, snippet), fetched_values(tf_v1(), snippet), name)
