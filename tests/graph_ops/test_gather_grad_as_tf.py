"""The gradient of ``GatherV2`` off axis 0 and with ``batch_dims`` (TF's
``_GatherV2Grad``/``_BatchGatherGrad``: the gathered axis moved behind the batch
dimensions, the rows segment-summed per batch and index, moved back). Each row
builds one snippet with both libraries: the GraphDefs are identical and the
gradients equal TF's."""

import numpy as np
import pytest

from ref.graph_ops import array_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph, fed_values, graph_only, tf_v1

_P = np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2) / 7.0


def _snippet(indices, axis, batch_dims, dtype="float32", shape=(2, 3, 4, 2)):
    def snippet(tf):
        p = tf.placeholder(getattr(tf, dtype), shape, name="p")
        y = tf.gather(p, tf.constant(indices), axis=axis, batch_dims=batch_dims)
        w = tf.constant(np.arange(1, 1 + int(np.prod(y.shape.as_list())), dtype=dtype).reshape(y.shape.as_list()))
        g = tf.gradients(y * w, [p])[0]
        return [y, tf.convert_to_tensor(g)], {p: _P.reshape(shape).astype(dtype)}
    return snippet


ROWS = [
    pytest.param(_snippet([[0, 2, 2], [1, 0, 1]], 1, 1), id="axis1_batch1"),
    pytest.param(_snippet([[[3, 0], [1, 1], [2, 3]], [[0, 0], [3, 2], [1, 0]]], 2, 2), id="axis2_batch2"),
    pytest.param(_snippet([[1, 0], [0, 0]], 2, 1), id="axis2_batch1"),
    pytest.param(_snippet([[1, 1, 0], [1, 0, 1]], -1, -1), id="batch_minus1"),
    pytest.param(_snippet([2, 0, 2], 1, 0, "float64"), id="axis1_no_batch"),
    pytest.param(_snippet([[1, 0], [0, 1]], 3, 0), id="last_axis_2d_indices"),
    pytest.param(_snippet([1, 0, 1], 0, 0), id="axis0"),
]


@pytest.mark.parametrize("snippet", ROWS)
def test_same_graph_as_tf(snippet):
    assert_same_graph(graph_only(snippet))


@pytest.mark.parametrize("snippet", ROWS)
def test_gradients_equal_tf(snippet):
    import ref

    want = fed_values(tf_v1(), snippet)
    got = fed_values(ref, snippet)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
