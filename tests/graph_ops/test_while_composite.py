"""``tf.while_loop`` with SparseTensor and IndexedSlices loop variables
(ref/graph_ops/control_flow_ops.py), against tensorflow.compat.v1 with v2
behaviour disabled (TF 1.x loops carrying the composites' component tensors)."""
import numpy as np
import pytest

import ref
from ref.graph_ops import control_flow_ops as _under_test  # noqa: F401  (the module these tests cover)


def _st(T, indices, values, shape):
    return T.SparseTensor(indices, values, shape)


# (name, build(T) -> (loop_vars, cond, body, shape_invariants))
CASES = [
    ("sparse_scale", lambda T: ([T.constant(0), _st(T, [[0, 0], [1, 2]], [1.0, 2.0], [3, 4])],
                                lambda i, x: i < 3,
                                lambda i, x: (i + 1, T.SparseTensor(x.indices, x.values * 2.0, x.dense_shape)),
                                None)),
    ("sparse_grows", lambda T: ([T.constant(0), _st(T, [[0]], [1.0], [1])],
                                lambda i, x: i < 2,
                                lambda i, x: (i + 1, T.sparse_concat(0, [x, x])),
                                None)),
    ("sparse_grows_invariant", lambda T: ([T.constant(0), _st(T, [[0]], [1.0], [1])],
                                          lambda i, x: i < 3,
                                          lambda i, x: (i + 1, T.sparse_concat(0, [x, x])),
                                          [T.TensorShape([]), T.TensorShape([None])])),
    ("sparse_nested", lambda T: ([T.constant(1), (_st(T, [[1]], [5], [4]), T.constant(2))],
                                 lambda n, p: n < 4,
                                 lambda n, p: (n * 2, (T.SparseTensor(p[0].indices, p[0].values + n, p[0].dense_shape),
                                                       p[1] + 1)),
                                 None)),
    ("slices_scale", lambda T: ([T.constant(0), T.IndexedSlices(T.constant([[1., 2.], [3., 4.]]),
                                                                T.constant([0, 2]), T.constant([3, 2]))],
                                lambda i, x: i < 2,
                                lambda i, x: (i + 1, T.IndexedSlices(x.values * 3., x.indices, x.dense_shape)),
                                None)),
    ("slices_grow_invariant", lambda T: ([T.constant(0), T.IndexedSlices(T.constant([[1., 2.]]), T.constant([1]),
                                                                         T.constant([3, 2]))],
                                         lambda i, x: i < 2,
                                         lambda i, x: (i + 1, T.IndexedSlices(T.concat([x.values, x.values], 0),
                                                                              T.concat([x.indices, x.indices], 0),
                                                                              x.dense_shape)),
                                         [T.TensorShape([]), T.TensorShape([None, 2])])),
    ("slices_grow_without_invariant", lambda T: ([T.constant(0), T.IndexedSlices(T.constant([[1., 2.]]),
                                                                                 T.constant([1]))],
                                                 lambda i, x: i < 2,
                                                 lambda i, x: (i + 1, T.IndexedSlices(
                                                     T.concat([x.values, x.values], 0),
                                                     T.concat([x.indices, x.indices], 0))),
                                                 None)),
]


def _value(v):
    if hasattr(v, "indices") and hasattr(v, "dense_shape"):
        kind = "sparse" if hasattr(v, "values") and v.indices.ndim == 2 else "slices"
        dense = None if v.dense_shape is None else np.asarray(v.dense_shape).tolist()
        return (kind, np.asarray(v.indices).tolist(), np.asarray(v.values).tolist(), dense)
    if isinstance(v, dict):
        return {k: _value(x) for k, x in sorted(v.items())}
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    return np.asarray(v).tolist()


def _leaves(x):
    return [y for v in x for y in _leaves(v)] if isinstance(x, (list, tuple)) else [x]


def _run(T, build):
    with T.Graph().as_default(), T.Session() as s:
        loop_vars, cond, body, invariants = build(T)
        try:
            out = T.while_loop(cond, body, loop_vars, shape_invariants=invariants)
        except ValueError as e:
            return ("ValueError", str(e).split(" To allow")[0])
        kinds = [type(o).__name__.replace("SymbolicTensor", "Tensor") for o in _leaves(out)]
        return sorted(kinds), _value(s.run(out))


@pytest.mark.parametrize("name,build", CASES, ids=[c[0] for c in CASES])
def test_composite_loop_vars_match_tensorflow(name, build):
    tf = pytest.importorskip("tensorflow").compat.v1
    from tests.graph_ops._graphdef import tf1_behaviour

    with tf1_behaviour():  # compat.v1 with v2 behaviour disabled: TF 1.x loops carry the components
        want = _run(tf, build)
    got = _run(ref, build)
    assert got == want
    assert (got[0] == "ValueError") == (name == "slices_grow_without_invariant")


def test_sparse_loop_output_shapes_are_relaxed():
    """A SparseTensor's entries may change in number: the exits have [None, rank] / [None]."""
    with ref.Graph().as_default():
        i, out = ref.while_loop(lambda i, x: i < 2, lambda i, x: (i + 1, x),
                                [ref.constant(0), ref.SparseTensor([[0, 0]], [1.0], [2, 2])])
        assert isinstance(out, ref.SparseTensor)
        assert out.indices.shape.as_list() == [None, 2] and out.values.shape.as_list() == [None]
        with pytest.raises(TypeError, match="SparseTensor"):
            ref.while_loop(lambda i, x: i < 2, lambda i, x: (i + 1, ref.sparse.to_dense(x)),
                           [ref.constant(0), ref.SparseTensor([[0, 0]], [1.0], [2, 2])])
