"""CTC against TensorFlow: ``tf.nn.ctc_loss`` values and gradients on random
batches with varying lengths (each flag), the greedy and beam search
decoders' sparse outputs and log-probabilities, GraphDefs identical to TF's,
and the run-time errors (kind and message) for bad lengths and labels."""
import numpy as np
import pytest

import ref
from ref.graph_ops import ctc_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, ref_and_tf_values

_RNG = np.random.default_rng(7)


def _batch(time, classes, lens, labels, scale=2.0):
    x = (_RNG.normal(size=(time, len(lens), classes)) * scale).astype(np.float32)
    idx = np.array([[b, i] for b, lab in enumerate(labels) for i in range(len(lab))], np.int64).reshape(-1, 2)
    vals = np.array([v for lab in labels for v in lab], np.int32)
    return x, idx, vals, np.array(lens, np.int32)


# (name, time, classes, sequence lengths, labels, ctc_loss kwargs)
LOSS_CASES = [
    ("plain", 7, 5, [7, 4, 6], [[0, 1, 2], [3], [1, 1, 2]], {}),
    ("no_merge", 7, 5, [7, 4, 6], [[0, 1, 2], [3], [1, 1, 2]], {"ctc_merge_repeated": False}),
    ("collapse", 7, 5, [7, 4, 6], [[0, 1, 1, 2], [3, 3], [1, 1, 2]], {"preprocess_collapse_repeated": True}),
    ("no_valid_path", 6, 5, [6, 4, 3], [[0, 1, 2], [3], [1, 1, 2]], {}),
    ("ignore_longer", 6, 4, [6, 2, 5], [[0, 1, 2], [2, 1, 0, 1], [1]], {"ignore_longer_outputs_than_inputs": True}),
    ("trailing_padding", 6, 5, [6, 5, 4], [[0, 1, 4], [3, 4, 4], [2]], {}),
    ("all_padding", 6, 5, [6, 2, 4], [[4], [4, 4], [1, 4]], {}),
    ("padding_counts_for_time", 6, 5, [6, 2, 4], [[0, 4], [3, 4, 4], [2]], {"ignore_longer_outputs_than_inputs": True}),
    ("batch_major", 5, 4, [5, 3], [[0, 2], [1]], {"time_major": False}),
    ("one_step", 1, 3, [1, 1], [[0], [1]], {}),
]


def _loss_snippet(case, dtype="float32"):
    _, time, classes, lens, labels, kw = case
    x, idx, vals, seq = _batch(time, classes, lens, labels)
    if kw.get("time_major") is False:
        x = np.ascontiguousarray(np.transpose(x, (1, 0, 2)))
    shape = np.array([len(lens), max(len(lab) for lab in labels)], np.int64)

    def snippet(t):
        logits = t.constant(x.astype(dtype))
        loss = t.nn.ctc_loss(t.SparseTensor(idx, vals, shape), logits, t.constant(seq), **kw)
        return [loss, t.gradients(t.reduce_sum(loss * t.constant([1.5] + [1.0] * (len(lens) - 1), dtype)),
                                  logits)[0]]
    return snippet


@pytest.mark.parametrize("case", LOSS_CASES, ids=[c[0] for c in LOSS_CASES])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_ctc_loss_and_gradient_match_tf(case, dtype):
    (loss, grad), (tf_loss, tf_grad) = ref_and_tf_values(_loss_snippet(case, dtype))
    assert loss.dtype == tf_loss.dtype == np.dtype(dtype) and grad.shape == tf_grad.shape
    tol = {"float32": 2e-5, "float64": 1e-7, "float16": 2e-3}[dtype]  # TF's double kernel: ~2e-9 relative
    np.testing.assert_allclose(loss, tf_loss, rtol=tol, atol=tol)
    np.testing.assert_allclose(grad, tf_grad, rtol=tol, atol=tol)


def test_ctc_loss_v2_sparse_blank_index_matches_tf():
    x, idx, vals, seq = _batch(6, 5, [6, 4], [[1, 3, 3], [1, 3]])

    def snippet(t):
        labels = t.SparseTensor(idx, vals, np.array([2, 3], np.int64))
        return [t.nn.ctc_loss_v2(labels, t.constant(x), None, t.constant(seq), blank_index=b) for b in (0, 2, -1)]
    got, want = ref_and_tf_values(snippet)
    np.testing.assert_allclose(got, want, rtol=2e-5)


DENSE = np.array([[1, 3, 3, 2], [2, 1, 0, 0], [3, 0, 0, 0]], np.int32)


# (name, kwargs of ctc_loss_v2 beyond labels/logits/lengths, logits batch-major)
DENSE_CASES = [
    ("blank_0", {}, False),
    ("blank_2", {"blank_index": 2}, False),
    ("blank_last_batch_major", {"blank_index": -1, "logits_time_major": False}, True),
]


@pytest.mark.parametrize("case", DENSE_CASES, ids=[c[0] for c in DENSE_CASES])
def test_ctc_loss_dense_labels_match_tf(case):
    _, kw, batch_major = case
    x = (_RNG.normal(size=(7, 3, 5)) * 2).astype(np.float32)
    if batch_major:
        x = np.ascontiguousarray(np.transpose(x, (1, 0, 2)))
    labels = np.where(DENSE == kw.get("blank_index", 0) % 5, 4, DENSE) if kw.get("blank_index", 0) else DENSE

    def snippet(t):
        logits = t.constant(x)
        loss = t.nn.ctc_loss_v2(t.constant(labels), logits, t.constant([4, 2, 1]), t.constant([7, 5, 6]), **kw)
        return [loss, t.gradients(t.reduce_sum(loss), logits)[0]]
    (loss, grad), (tf_loss, tf_grad) = ref_and_tf_values(snippet)
    np.testing.assert_allclose(loss, tf_loss, rtol=2e-5)
    np.testing.assert_allclose(grad, tf_grad, rtol=2e-5, atol=2e-5)


# (name, builder over the library, fetched values)
HELPER_CASES = [
    ("collapse_repeated", lambda t: list(t.nn.collapse_repeated(t.constant([[1, 1, 2, 2, 1], [3, 4, 4, 5, 6]]),
                                                                 t.constant([5, 3])))),
    ("ctc_unique_labels", lambda t: list(t.nn.ctc_unique_labels(t.constant([[3, 4, 4, 3], [1, 1, 2, 0]])))),
]


@pytest.mark.parametrize("case", HELPER_CASES, ids=[c[0] for c in HELPER_CASES])
def test_label_helpers_match_tf(case):
    got, want = ref_and_tf_values(case[1])
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_dense_labels_to_sparse():
    with ref.Graph().as_default():
        sp = ref.nn.dense_labels_to_sparse(ref.constant(DENSE), ref.constant([4, 2, 1]))
        with ref.Session() as s:
            idx, vals, shape = s.run([sp.indices, sp.values, sp.dense_shape])
    np.testing.assert_array_equal(idx, [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [2, 0]])
    np.testing.assert_array_equal(vals, [1, 3, 3, 2, 2, 1, 3])
    np.testing.assert_array_equal(shape, [3, 4])


def test_second_derivative_is_prevented():
    x, idx, vals, seq = _batch(4, 3, [4], [[0, 1]])
    with ref.Graph().as_default():
        logits = ref.constant(x)
        loss = ref.nn.ctc_loss(ref.SparseTensor(idx, vals, np.array([1, 2], np.int64)), logits, seq)
        g = ref.gradients(loss, logits)[0]
        with pytest.raises(LookupError, match="second  derivative of ctc_loss"):
            ref.gradients(g, logits)


# (name, time, batch, classes, lengths, kwargs) -- integer logits make ties
GREEDY_CASES = [
    ("default", 8, 3, 5, [8, 5, 0], {}),
    ("no_merge", 8, 3, 5, [8, 5, 1], {"merge_repeated": False}),
    ("blank_first", 8, 3, 4, [8, 5, 3], {"blank_index": 0}),
    ("blank_negative", 8, 2, 4, [8, 5], {"blank_index": -2}),
    ("negative_length", 8, 2, 5, [8, -1], {}),
]


@pytest.mark.parametrize("case", GREEDY_CASES, ids=[c[0] for c in GREEDY_CASES])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_greedy_decoder_matches_tf(case, dtype):
    _, time, batch, classes, lens, kw = case
    x = _RNG.integers(0, 3, size=(time, batch, classes)).astype(dtype)

    def snippet(t):
        (decoded,), log_prob = t.nn.ctc_greedy_decoder(t.constant(x), t.constant(np.array(lens, np.int32)), **kw)
        return [decoded.indices, decoded.values, decoded.dense_shape, log_prob]
    got, want = ref_and_tf_values(snippet)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


# (name, time, batch, classes, lengths, beam_width, top_paths, merge_repeated)
BEAM_CASES = [
    ("two_paths", 8, 3, 5, [8, 5, 2], 4, 2, True),
    ("no_merge", 10, 2, 4, [10, 7], 3, 3, False),
    ("width_one", 6, 2, 3, [6, 6], 1, 1, True),
    ("wide", 10, 3, 6, [10, 9, 1], 16, 4, True),
    ("empty_sequence", 5, 2, 3, [5, 0], 2, 1, True),
    ("negative_length", 5, 2, 3, [5, -1], 3, 1, True),
]


@pytest.mark.parametrize("case", BEAM_CASES, ids=[c[0] for c in BEAM_CASES])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_beam_search_decoder_matches_tf(case, dtype):
    _, time, batch, classes, lens, width, paths, merge = case
    x = (_RNG.normal(size=(time, batch, classes)) * 2).astype(dtype)

    def snippet(t):
        decoded, log_prob = t.nn.ctc_beam_search_decoder(t.constant(x), t.constant(np.array(lens, np.int32)),
                                                         beam_width=width, top_paths=paths, merge_repeated=merge)
        return [[d.indices, d.values, d.dense_shape] for d in decoded] + [log_prob]
    got, want = ref_and_tf_values(snippet)
    for g, w in zip(got[:-1], want[:-1]):
        for a, b in zip(g, w):
            np.testing.assert_array_equal(a, b)
    assert got[-1].dtype == want[-1].dtype
    np.testing.assert_allclose(got[-1], want[-1], rtol=1e-5)


def _lab(t):
    return t.SparseTensor(np.array([[0, 0], [0, 1], [1, 0]], np.int64), np.array([0, 1, 2], np.int32),
                          np.array([2, 2], np.int64))


def _beam_parts(result):
    decoded, log_prob = result
    return [p for d in decoded for p in (d.indices, d.values, d.dense_shape)] + [log_prob]


GRAPH_SNIPPETS = {
    "ctc_loss": lambda t: t.nn.ctc_loss(_lab(t), t.placeholder(t.float32, [5, 2, 4]), [5, 3]),
    "ctc_loss_batch_major": lambda t: t.nn.ctc_loss(_lab(t), np.zeros((2, 5, 4), np.float32), [5, 3],
                                                    ctc_merge_repeated=False, time_major=False),
    "ctc_loss_float16_logits_alias": lambda t: t.nn.ctc_loss(_lab(t), logits=t.placeholder(t.float16, [5, 2, 4]),
                                                             sequence_length=[5, 3]),
    "ctc_loss_gradient": lambda t: t.gradients(
        t.nn.ctc_loss(_lab(t), t.placeholder(t.float32, [5, 2, 4], name="x"), [5, 3]), t.get_default_graph()
        .get_tensor_by_name("x:0")),
    "ctc_loss_v2_blank_0": lambda t: t.nn.ctc_loss_v2(_lab(t), t.placeholder(t.float32, [5, 2, 4]), None, [5, 3],
                                                      blank_index=0),
    "greedy": lambda t: t.nn.ctc_greedy_decoder(t.placeholder(t.float32, [5, 2, 4]), [5, 3]),
    "beam": lambda t: t.nn.ctc_beam_search_decoder(t.placeholder(t.float64, [5, 2, 4]), [5, 3], beam_width=7,
                                                   top_paths=3),
    "collapse_repeated": lambda t: t.nn.collapse_repeated(t.placeholder(t.int32, [2, 5]), [5, 3]),
    "ctc_unique_labels": lambda t: t.nn.ctc_unique_labels(t.constant([[3, 4, 4, 3], [1, 1, 2, 0]])),
    "beam_outputs_consumed": lambda t: [
        t.identity(x) for x in _beam_parts(t.nn.ctc_beam_search_decoder(t.placeholder(t.float32, [5, 2, 4]), [5, 3],
                                                                         beam_width=4, top_paths=2))],
    "beam_v2": lambda t: t.nn.ctc_beam_search_decoder_v2(t.placeholder(t.float32, [5, 2, 4]), [5, 3]),
}


@pytest.mark.parametrize("name", list(GRAPH_SNIPPETS))
def test_graph_def_matches_tf(name):
    assert_same_graph(GRAPH_SNIPPETS[name])


def test_static_shapes():
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float32, [5, None, 4])
        loss = ref.nn.ctc_loss(_lab(ref), x, ref.placeholder(ref.int32, [2]))
        assert loss.shape.as_list() == [2]
        decoded, lp = ref.nn.ctc_beam_search_decoder(x, [5, 3], beam_width=4, top_paths=2)
        assert lp.shape.as_list() == [2, 2] and decoded[1].indices.shape.as_list() == [None, 2]
        with pytest.raises(ValueError):
            ref.nn.ctc_greedy_decoder(x, ref.placeholder(ref.int32, [2, 1]))


# (name, time, classes, lengths, labels, kwargs, message) -- TF's InvalidArgumentError message
ERROR_CASES = [
    ("length_over_max_time", 6, 5, [6, 7], [[0, 1], [2]], {}, r"sequence_length\(1\) <= 6"),
    ("negative_length", 6, 5, [6, -1], [[0, 1], [2]], {}, r"seq_len\(1\) < 0"),
    ("empty_labels", 6, 5, [6, 4], [[0, 1], []], {}, "Labels length is zero in batch 1"),
    ("negative_label", 6, 5, [6, 4], [[0, -1], [2]], {}, "All labels must be nonnegative integers, batch: 0"),
    ("label_after_null", 6, 5, [6, 4], [[0, 1], [4, 1]], {}, "Saw a non-null label"),
    ("too_long", 6, 5, [6, 2], [[0, 1], [2, 3, 1]], {}, r"Not enough time for target transition sequence \("
                                                          r"required: 3, available: 2\)1"),
    ("too_long_with_padding", 6, 5, [6, 2], [[0, 1], [2, 4, 4]], {}, r"\(required: 3, available: 2\)1"),
]


# (name, labels_indices, TF's message) -- two batch entries, three labels
INDEX_ERRORS = [
    ("out_of_order", [[0, 1], [0, 0], [1, 0]], r"indices\[1\] = \[0,0\] is out of order"),
    ("repeated", [[0, 0], [0, 0], [1, 0]], r"indices\[1\] = \[0,0\] is repeated"),
    ("batch_out_of_bounds", [[0, 0], [3, 0], [1, 0]], r"indices\[1\] = \[3,0\] is out of bounds: need 0 <= index < "
                                                      r"\[2,1\]"),
    ("negative_position", [[0, 0], [0, 1], [1, -1]], r"indices\[2\] = \[1,-1\] is out of bounds"),
]


@pytest.mark.parametrize("case", INDEX_ERRORS, ids=[c[0] for c in INDEX_ERRORS])
@pytest.mark.parametrize("lib_name", ["ref", "tf"])
def test_ctc_loss_label_index_errors(case, lib_name):
    _, idx, message = case
    lib = ref if lib_name == "ref" else pytest.importorskip("tensorflow").compat.v1
    with lib.Graph().as_default():
        labels = lib.SparseTensor(np.array(idx, np.int64), np.array([1, 2, 3], np.int32), np.array([2, 2], np.int64))
        loss = lib.nn.ctc_loss(labels, np.zeros((4, 2, 5), np.float32), np.array([4, 4], np.int32))
        with lib.Session() as s, pytest.raises(lib.errors.InvalidArgumentError,
                                               match="label SparseTensor is not valid: " + message):
            s.run(loss)


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
@pytest.mark.parametrize("lib_name", ["ref", "tf"])
def test_ctc_loss_errors(case, lib_name):
    name, time, classes, lens, labels, kw, message = case
    x, idx, vals, seq = _batch(time, classes, lens, labels)
    if lib_name == "ref":
        lib, errors = ref, ref.errors
    else:
        lib = pytest.importorskip("tensorflow").compat.v1
        errors = lib.errors
    with lib.Graph().as_default():
        loss = lib.nn.ctc_loss(lib.SparseTensor(idx, vals, np.array([len(lens), 3], np.int64)), x, seq, **kw)
        with lib.Session() as s, pytest.raises(errors.InvalidArgumentError, match=message):
            s.run(loss)


# (name, builder(lib) -> fetch, TF's message, TF's error class)
DECODER_ERRORS = [
    ("greedy_length", lambda t: t.nn.ctc_greedy_decoder(np.zeros((4, 2, 3), np.float32), [5, 1])[0][0].values,
     r"sequence_length\(0\) <= 4", "FailedPreconditionError"),
    ("greedy_empty", lambda t: t.nn.ctc_greedy_decoder(np.zeros((1, 0, 3), np.float32),
                                                       np.zeros(0, np.int32))[1], "inputs must not be empty",
     "InvalidArgumentError"),
    ("beam_length", lambda t: t.nn.ctc_beam_search_decoder(np.zeros((4, 2, 3), np.float32), [4, 5],
                                                           beam_width=2)[1], r"sequence_length\(1\) <= 4",
     "FailedPreconditionError"),
    ("beam_fewer_leaves", lambda t: t.nn.ctc_beam_search_decoder(np.zeros((4, 2, 3), np.float32), [4, 0],
                                                                 beam_width=2, top_paths=2)[1],
     "Less leaves in the beam search", "InvalidArgumentError"),
    ("beam_paths_over_width", lambda t: t.nn.ctc_beam_search_decoder(np.zeros((4, 2, 3), np.float32), [4, 4],
                                                                     beam_width=2, top_paths=3)[1],
     "requested more paths than the beam width", "InvalidArgumentError"),
    ("loss_empty_batch", lambda t: t.nn.ctc_loss(t.SparseTensor(np.zeros((0, 2), np.int64), np.zeros(0, np.int32),
                                                                np.array([5, 5], np.int64)),
                                                 np.zeros((1, 0, 2), np.float32), np.zeros(0, np.int32)),
     "batch_size must not be 0", "InvalidArgumentError"),
]


@pytest.mark.parametrize("case", DECODER_ERRORS, ids=[c[0] for c in DECODER_ERRORS])
@pytest.mark.parametrize("lib_name", ["ref", "tf"])
def test_decoder_and_batch_errors(case, lib_name):
    _, build, message, kind = case
    lib = ref if lib_name == "ref" else pytest.importorskip("tensorflow").compat.v1
    with lib.Graph().as_default():
        fetch = build(lib)
        with lib.Session() as s, pytest.raises(getattr(lib.errors, kind), match=message):
            s.run(fetch)
