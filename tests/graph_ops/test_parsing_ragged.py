"""``tf.io.RaggedFeature`` partitions parsed from batches and from
SequenceExamples against TensorFlow's: every partition kind (row splits,
lengths, starts, limits, value row ids, uniform row length) and nestings of
them, in ``parse_example`` (each example's partition values offset by where
its values start), ``parse_single_example``, ``parse_sequence_example`` and
``parse_single_sequence_example``; the fetched RaggedTensorValues are compared
as (values, row splits, dtype) at every level, then TF's alignment check."""
import numpy as np
import pytest

import ref
from ref.graph_ops import parsing_ops as _under_test  # noqa: F401
from _graphdef import tf_v1
from test_parsing_composite import _example, _plain, _sequence_example

# each example: values v (6 floats or fewer) and every encoding of one row partition of them
BATCH = [dict(v=[1.0, 2.0, 3.0, 4.0], splits=[0, 1, 1, 4], lengths=[1, 0, 3], starts=[0, 1, 1], limits=[1, 1, 4],
              rowids=[0, 2, 2, 2], outer=[0, 2, 3], olens=[2, 1]),
         dict(v=[5.0, 6.0], splits=[0, 2], lengths=[2], starts=[0], limits=[2], rowids=[0, 0], outer=[0, 1],
              olens=[1]),
         dict(splits=[0], lengths=[], starts=[], limits=[], rowids=[], outer=[0], olens=[])]  # no values

P = lambda tf: tf.io.RaggedFeature  # noqa: E731
CASES = {
    "row_splits": lambda tf: [P(tf).RowSplits("splits")],
    "row_lengths": lambda tf: [P(tf).RowLengths("lengths")],
    "row_starts": lambda tf: [P(tf).RowStarts("starts")],
    "row_limits": lambda tf: [P(tf).RowLimits("limits")],
    "value_rowids": lambda tf: [P(tf).ValueRowIds("rowids")],
    "uniform": lambda tf: [P(tf).UniformRowLength(2)],
    "nested_splits": lambda tf: [P(tf).RowSplits("outer"), P(tf).RowSplits("splits")],
    "nested_lengths_limits": lambda tf: [P(tf).RowLengths("olens"), P(tf).RowLimits("limits")],
}
SPLITS_DTYPES = ("int32", "int64")


def _feature(tf, case, dtype):
    return {"x": tf.io.RaggedFeature(tf.float32, value_key="v", partitions=CASES[case](tf),
                                     row_splits_dtype=getattr(tf, dtype))}


def _parse(tf, case, dtype, batched):
    rows = BATCH if case != "uniform" else [BATCH[1], BATCH[2]]
    serialized = [_example(tf, **e) for e in rows]
    with tf.Graph().as_default(), tf.Session() as s:
        if batched:
            p = tf.placeholder(tf.string, [None])
            return _plain(s.run(tf.io.parse_example(p, _feature(tf, case, dtype)), {p: serialized})["x"])
        p = tf.placeholder(tf.string, [])
        parsed = tf.io.parse_single_example(p, _feature(tf, case, dtype))["x"]
        return [_plain(s.run(parsed, {p: x})) for x in serialized]


@pytest.mark.parametrize("batched", [True, False], ids=["batch", "single"])
@pytest.mark.parametrize("dtype", SPLITS_DTYPES)
@pytest.mark.parametrize("case", sorted(CASES))
def test_partitions_match_tf(case, dtype, batched):
    assert _parse(ref, case, dtype, batched) == _parse(tf_v1(), case, dtype, batched)


SEQUENCES = [({"d": [1.0, 2.0, 3.0], "cs": [0, 2, 3]}, {"t": [[1, 2], [3]], "ts": [[0, 1, 2], [0, 1]]}),
             ({"d": [4.0], "cs": [0, 0, 1]}, {"t": [[4, 5, 6]], "ts": [[0, 3]]})]


def _parse_sequences(tf, batched):
    context = {"d": tf.io.RaggedFeature(tf.float32, partitions=[tf.io.RaggedFeature.RowSplits("cs")])}
    lists = {"t": tf.io.RaggedFeature(tf.int64, partitions=[tf.io.RaggedFeature.RowSplits("ts")],
                                      row_splits_dtype=tf.int64)}
    serialized = [_sequence_example(tf, c, f) for c, f in SEQUENCES]
    with tf.Graph().as_default(), tf.Session() as s:
        if batched:
            p = tf.placeholder(tf.string, [None])
            out = s.run(tf.io.parse_sequence_example(p, context, lists)[:2], {p: serialized})
            return [{k: _plain(v) for k, v in part.items()} for part in out]
        p = tf.placeholder(tf.string, [])
        parsed = tf.io.parse_single_sequence_example(p, context, lists)
        return [[{k: _plain(v) for k, v in part.items()} for part in s.run(parsed, {p: x})] for x in serialized]


@pytest.mark.parametrize("batched", [True, False], ids=["batch", "single"])
def test_sequence_partitions_match_tf(batched):
    assert _parse_sequences(ref, batched) == _parse_sequences(tf_v1(), batched)


def test_misaligned_sequence_partition_fails_as_tf():
    """validate=True: a feature list whose partition has other steps than its values: InvalidArgumentError."""
    for tf in (ref, tf_v1()):
        lists = {"t": tf.io.RaggedFeature(tf.int64, partitions=[tf.io.RaggedFeature.RowSplits("ts")],
                                          validate=True)}
        serialized = [_sequence_example(tf, {}, {"t": [[1, 2], [3]], "ts": [[0, 1, 2]]})]
        with tf.Graph().as_default(), tf.Session() as s:
            p = tf.placeholder(tf.string, [None])
            out = tf.io.parse_sequence_example(p, None, lists)[1]["t"]
            with pytest.raises(tf.errors.InvalidArgumentError):
                s.run(out, {p: serialized})
