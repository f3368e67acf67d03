"""``tf.data.experimental.cardinality`` / ``Dataset.cardinality`` and
``assert_cardinality`` against TensorFlow's TF1 graphs: the counts TF's
``CardinalityInternal`` rules give for each pipeline, and the errors of a
wrong assertion."""
import re

import numpy as np
import pytest

import ref
from ref.data import experimental as _under_test  # noqa: F401

PIPELINES = {
    "range": lambda D: D.range(10),
    "empty_range": lambda D: D.range(5, 2),
    "slices": lambda D: D.from_tensor_slices(np.arange(7)),
    "tensors": lambda D: D.from_tensors(np.arange(7)),
    "batch": lambda D: D.range(10).batch(3),
    "batch_drop": lambda D: D.range(10).batch(3, drop_remainder=True),
    "padded_batch": lambda D: D.range(5).padded_batch(2, padded_shapes=[]),
    "repeat": lambda D: D.range(3).repeat(4),
    "repeat_forever": lambda D: D.range(3).repeat(),
    "repeat_empty_forever": lambda D: D.range(0).repeat(),
    "take_of_infinite": lambda D: D.range(3).repeat().take(8),
    "take": lambda D: D.range(3).take(8),
    "skip": lambda D: D.range(10).skip(4),
    "skip_all": lambda D: D.range(10).skip(-1),
    "map": lambda D: D.range(4).map(lambda x: x * 2),
    "filter": lambda D: D.range(4).filter(lambda x: x > 1),
    "filter_take": lambda D: D.range(4).filter(lambda x: x > 1).take(2),
    "shuffle_cache_prefetch": lambda D: D.range(6).shuffle(3, seed=1).cache().prefetch(1),
    "zip": lambda D: D.zip((D.range(4), D.range(3).repeat(), D.range(9))),
    "concatenate": lambda D: D.range(4).concatenate(D.range(5)),
    "concatenate_infinite": lambda D: D.range(4).concatenate(D.range(5).repeat()),
    "unbatch": lambda D: D.range(4).batch(2).unbatch(),
}


def _run(lib, fn):
    from tests.graph_ops import _graphdef
    ctx = _graphdef.tf1_behaviour() if not lib.__name__.startswith("ref") else _graphdef.contextlib.nullcontext()
    with ctx, lib.Graph().as_default():
        out = fn(lib)
        with lib.Session() as s:
            return s.run(out)


@pytest.mark.parametrize("row", sorted(PIPELINES))
def test_cardinality_as_tf(row):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    build = PIPELINES[row]
    fn = lambda lib: [lib.data.experimental.cardinality(build(lib.data.Dataset)),  # noqa: E731
                      build(lib.data.Dataset).cardinality()]
    ours, theirs = _run(ref, fn), _run(tf1, fn)
    assert [int(v) for v in ours] == [int(v) for v in theirs]
    assert ref.data.experimental.INFINITE_CARDINALITY == tf1.data.experimental.INFINITE_CARDINALITY
    assert ref.data.UNKNOWN_CARDINALITY == tf1.data.UNKNOWN_CARDINALITY


def _asserted(lib, n, expected):
    ds = lib.data.Dataset.range(n).filter(lambda x: x >= 0).apply(lib.data.experimental.assert_cardinality(expected))
    it = lib.data.make_one_shot_iterator(ds) if hasattr(lib.data, "make_one_shot_iterator") else \
        ds.make_one_shot_iterator()
    nxt = it.get_next()
    return lib.data.experimental.cardinality(ds), nxt


@pytest.mark.parametrize("n,expected", [(3, 3), (2, 3), (4, 3), (1, 2)])
def test_assert_cardinality_as_tf(n, expected):
    tf1 = pytest.importorskip("tensorflow").compat.v1
    from tests.graph_ops import _graphdef

    def walk(lib):
        ctx = _graphdef.tf1_behaviour() if lib is tf1 else _graphdef.contextlib.nullcontext()
        with ctx, lib.Graph().as_default():
            card, nxt = _asserted(lib, n, expected)
            with lib.Session() as s:
                got = [int(s.run(card))]
                try:
                    while True:
                        got.append(int(s.run(nxt)))
                except lib.errors.OutOfRangeError:
                    got.append("end")
                except lib.errors.FailedPreconditionError as e:
                    got.append(re.search(r"Input dataset was expected[^.]*\.", e.message).group(0))
                return got

    assert walk(ref) == walk(tf1)
