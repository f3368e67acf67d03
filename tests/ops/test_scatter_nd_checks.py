"""ScatterNd, TensorScatter*, ScatterNdNonAliasingAdd and ScatterNd{Update,...} as
TF's: graph construction's ScatterNdShapeHelper (empty input, indices' outer
dimensions against updates', the input's inner dimensions against updates'),
the kernels' first checks (rank-0 output, empty output), empty scatters, string
ScatterNd (concatenation), and a list of tensors packed to the tensor's dtype.
Each row runs in ref and in TensorFlow (``tensorflow.compat.v1`` graphs)."""
import re

import numpy as np
import pytest

import ref
from ref.framework.op_def_library import apply_op
from ref.ops import gather_scatter as _under_test  # noqa: F401


class _RefRaw:
    """``tf.raw_ops``-style graph builders for ref (keyword inputs -> apply_op)."""

    def __getattr__(self, op_type):
        return lambda **kw: apply_op(op_type, **kw)


def _raw(lib):
    return _RefRaw() if lib is ref else lib.raw_ops


def _z(lib, shape):
    return lib.zeros(shape, lib.int32)


def _var(lib, shape):
    return lib.Variable(_z(lib, shape))


# (name, build(lib) -> fetch, feeds(lib, fetch) or None)
ROWS = [
    ("outer_dims", lambda t: t.scatter_nd(_z(t, [3, 2, 2]), _z(t, [2, 2, 2]), np.array([2, 2, 2]))),
    ("inner_dims", lambda t: t.scatter_nd(_z(t, [2, 2, 1]), _z(t, [2, 2]), t.constant([2, 2, 2]))),
    ("empty_output", lambda t: t.scatter_nd(_z(t, [2, 2, 2]), _z(t, [2, 2, 2]), t.constant([0, 3, 2]))),
    ("empty_scatter", lambda t: t.scatter_nd(_z(t, [0]), _z(t, [0]), t.constant([0]))),
    ("nonaliasing_outer", lambda t: _raw(t).ScatterNdNonAliasingAdd(input=_z(t, [2, 2, 2]), indices=_z(t, [3, 2, 2]),
                                                                      updates=_z(t, [2, 2, 2]))),
    ("nonaliasing_inner", lambda t: _raw(t).ScatterNdNonAliasingAdd(input=_z(t, [2, 2, 2]), indices=_z(t, [2, 2, 1]),
                                                                      updates=_z(t, [2, 2]))),
    ("nonaliasing_empty_input", lambda t: _raw(t).ScatterNdNonAliasingAdd(
        input=_z(t, [0, 3, 2]), indices=_z(t, [2, 2, 2]), updates=_z(t, [2, 2, 2]))),
    ("nonaliasing_empty_scatter", lambda t: _raw(t).ScatterNdNonAliasingAdd(input=_z(t, [0]), indices=_z(t, [0]),
                                                                              updates=_z(t, [0]))),
    ("tensor_scatter_inner", lambda t: t.tensor_scatter_nd_update(_z(t, [2, 2, 2]), _z(t, [2, 2, 1]), _z(t, [2, 2]))),
    ("update_outer", lambda t: t.scatter_nd_update(_var(t, [2, 2, 2]), _z(t, [3, 2, 2]), _z(t, [2, 2, 2]))),
    ("update_inner", lambda t: t.scatter_nd_update(_var(t, [2, 2, 2]), _z(t, [2, 2, 1]), _z(t, [2, 2]))),
    ("add_inner", lambda t: t.scatter_nd_add(_var(t, [2, 2, 2]), _z(t, [2, 2, 1]), _z(t, [2, 2]))),
    ("update_rank0", lambda t: t.scatter_nd_update(
        t.Variable(lambda: t.zeros([], t.float32), dtype=t.float32), [[0]], [0.22])),
    ("string", lambda t: t.scatter_nd(t.constant([[4], [3], [1], [7]]), t.constant(["four", "three", "one", "seven"]),
                                      shape=(8,))),
    ("string_repeated", lambda t: t.scatter_nd(t.constant([[4], [3], [3], [7]]), t.constant(["a", "b", "b", "c"]),
                                               shape=(8,))),
    # bad_indices_policy: IGNORE skips rows outside the shape, ERROR/"" raise, an unknown value raises
    ("ignore_skips_bad_rows", lambda t: t.scatter_nd([[1], [-1], [5], [1]], [1.0, 2.0, 3.0, 4.0], [3],
                                                     bad_indices_policy="IGNORE")),
    ("ignore_skips_bad_slices", lambda t: t.scatter_nd([[0, 1], [2, 0], [1, 3]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                                                       [2, 3, 2], bad_indices_policy="IGNORE")),
    ("error_policy_raises", lambda t: t.scatter_nd([[1], [-1]], [1.0, 2.0], [3], bad_indices_policy="ERROR")),
    ("default_policy_raises", lambda t: t.scatter_nd([[1], [3]], [1.0, 2.0], [3])),
    ("unknown_policy", lambda t: t.scatter_nd([[1]], [1.0], [3], bad_indices_policy="FOO")),
    ("gather_nd_ignore_gradient", lambda t: (lambda p: t.gradients(
        t.gather_nd(p, [[[1]], [[-1]], [[0]]], bad_indices_policy="IGNORE") * [[3.0], [5.0], [7.0]], p)[0])(
        t.constant([1.0, 2.0]))),
    ("packed_updates_cast", lambda t: t.tensor_scatter_update(
        t.zeros([4, 3]), [[1], [2], [2]], [t.range(3), t.range(11, 14), t.range(10, 13)])),
]

FED_ROWS = [  # (name, build(lib) -> (fetch, feed dict)): errors only the kernel sees
    ("empty_output_fed", lambda t: (lambda i, u: (t.scatter_nd(i, u, t.constant([0, 3, 2])), {
        i: np.zeros([2, 2, 2], np.int32), u: np.zeros([2, 2, 2], np.int32)}))(
        t.placeholder(t.int32), t.placeholder(t.int32))),
    ("tensor_scatter_empty_fed", lambda t: (lambda i, u: (t.tensor_scatter_nd_add(t.zeros([0, 2], t.int32), i, u), {
        i: np.zeros([2, 1], np.int32), u: np.zeros([2, 2], np.int32)}))(
        t.placeholder(t.int32), t.placeholder(t.int32))),
]


def _outcome(lib, build, fed=False):
    with lib.Graph().as_default():
        try:
            if fed:
                fetch, feeds = build(lib)
            else:
                fetch, feeds = build(lib), {}
        except (ValueError, TypeError) as e:
            return type(e).__name__, str(e)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            try:
                return "value", sess.run(fetch, feeds)
            except lib.errors.OpError as e:
                return type(e).__name__, e.message


def _tf():
    tf = pytest.importorskip("tensorflow")
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "graph_ops"))
    from _graphdef import tf1_behaviour
    return tf.compat.v1, tf1_behaviour


def _same(got, want):
    assert got[0] == want[0], (got, want)
    if got[0] == "value":
        np.testing.assert_array_equal(got[1], want[1])
        assert got[1].dtype == want[1].dtype
    elif got[0] in ("ValueError", "TypeError"):
        # TF's message up to its node rendering (ref names the op, TF prints the NodeDef); TF's
        # ScatterNd renders the shape input's dims as "?" there: those match any number
        head = want[1].split(" for '")[0]
        assert re.match(re.escape(head).replace(r"\?", r"(\d+|\?)"), got[1]), (got[1], head)
    else:  # a kernel's error: TF 2.21 wraps it ("Graph execution error: ... Node: 'X'")
        assert got[1].split("\n")[0] in want[1], (got[1], want[1])


@pytest.mark.parametrize("name,build", ROWS, ids=[r[0] for r in ROWS])
def test_scatter_nd_as_tf(name, build):
    tf, tf1_behaviour = _tf()
    with tf1_behaviour():
        want = _outcome(tf, build)
    _same(_outcome(ref, build), want)


@pytest.mark.parametrize("name,build", FED_ROWS, ids=[r[0] for r in FED_ROWS])
def test_scatter_nd_kernel_checks_as_tf(name, build):
    tf, tf1_behaviour = _tf()
    with tf1_behaviour():
        want = _outcome(tf, build, fed=True)
    _same(_outcome(ref, build, fed=True), want)
