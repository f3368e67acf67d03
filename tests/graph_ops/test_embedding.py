"""tf.nn.embedding_lookup (ref/graph_ops/embedding_ops.py) against tensorflow.compat.v1
on the same graphs: one table, shards with the "mod" and "div" strategies
(uneven shard sizes), max_norm clipping, a PartitionedVariable, and the
gradients, which are IndexedSlices for each table."""
import os

import numpy as np
import pytest

import ref
from ref.graph_ops import embedding_ops as _under_test  # noqa: F401  (the module these tests cover)

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
TABLE = np.arange(40, dtype=np.float32).reshape(10, 4) / 7 - 2
SHARDS = {"mod": [TABLE[0::3], TABLE[1::3], TABLE[2::3]],  # id i lives in shard i % 3, row i // 3
          "div": [TABLE[:4], TABLE[4:7], TABLE[7:]]}       # 10 rows in blocks of 4, 3, 3
IDS = [np.array([1, 3, 3, 7]), np.array([[0, 9, 4], [5, 5, 2]]), np.array([8])]

# (name, strategy or None for one table, ids, max_norm)
CASES = [(f"{s}-{i}-{m}", s, ids, m) for s in (None, "mod", "div") for i, ids in enumerate(IDS)
         for m in (None, 1.5)]


def _lookup(tf, strategy, ids, max_norm):
    with tf.Graph().as_default():
        if strategy is None:
            params = tf.Variable(TABLE, name="table")
            shards = [params]
        else:
            shards = [tf.Variable(s, name=f"shard{i}") for i, s in enumerate(SHARDS[strategy])]
            params = shards
        kw = {} if strategy is None else {"partition_strategy": strategy}
        out = tf.nn.embedding_lookup(params, tf.constant(ids), max_norm=max_norm, **kw)
        weights = tf.constant(np.linspace(-1, 1, out.shape.num_elements(), dtype=np.float32).reshape(
            out.shape.as_list()))
        grads = tf.gradients(tf.reduce_sum(out * out * weights), shards)
        static = out.shape.as_list()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            value = s.run(out)
            dense = [s.run(tf.convert_to_tensor(g)) for g in grads]
            kinds = [type(g).__name__ for g in grads]
    return value, dense, kinds, static


@pytest.mark.parametrize("name, strategy, ids, max_norm", CASES, ids=[c[0] for c in CASES])
def test_embedding_lookup_matches_tensorflow(name, strategy, ids, max_norm):
    tf = pytest.importorskip("tensorflow").compat.v1
    e_value, e_grads, e_kinds, e_static = _lookup(tf, strategy, ids, max_norm)
    value, grads, kinds, static = _lookup(ref, strategy, ids, max_norm)
    assert static == e_static == list(ids.shape) + [4]
    np.testing.assert_allclose(value, e_value, rtol=1e-6)
    assert kinds == ["IndexedSlices"] * len(kinds) and e_kinds == kinds
    for g, e in zip(grads, e_grads):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("strategy", ["mod", "div"])
def test_shards_give_the_rows_of_the_whole_table(strategy):
    """Without TF: sharded lookups equal TABLE[ids] (NumPy oracle of the placement rules)."""
    for ids in IDS:
        value, _, _, _ = _lookup(ref, strategy, ids, None)
        np.testing.assert_array_equal(value, TABLE[ids])
    value, _, _, _ = _lookup(ref, None, IDS[1], 1.5)
    rows = TABLE[IDS[1]]
    norms = np.sqrt((rows.astype(np.float64) ** 2).sum(-1, keepdims=True))
    np.testing.assert_allclose(value, np.where(norms > 1.5, rows * 1.5 / norms, rows), rtol=1e-6)


def test_partitioned_variable():
    with ref.Graph().as_default():
        v = ref.get_variable("emb", initializer=ref.constant(TABLE), partitioner=ref.fixed_size_partitioner(3))
        out = ref.nn.embedding_lookup(v, [9, 0, 4], partition_strategy="div")
        with ref.Session() as s:
            s.run(ref.global_variables_initializer())
            np.testing.assert_array_equal(s.run(out), TABLE[[9, 0, 4]])


@pytest.mark.parametrize("params, kwargs, error", [
    ([], {}, "Need at least one param"),
    (None, {}, "params must be specified"),
    ([TABLE[:5], TABLE[5:]], {"partition_strategy": "hash"}, "Unrecognized partition strategy"),
])
def test_bad_arguments(params, kwargs, error):
    with ref.Graph().as_default(), pytest.raises(ValueError, match=error):
        ref.nn.embedding_lookup(params if params is None else [ref.constant(p) for p in params], [0], **kwargs)
