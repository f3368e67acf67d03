"""tf.nn.softmax / tf.nn.log_softmax over an axis (TF's ``_wrap_2d_function``)
against TF: values for every axis (ints and tensors), the InvalidArgumentError
for an axis known out of range at graph construction or only at run time, and
the GraphDef (the permutation built with range/concat as TF builds it)."""
import numpy as np
import pytest

import ref
from ref.graph_ops import nn_ops as _under_test  # noqa: F401
from _graphdef import assert_same_graph

_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7.0

# (function, axis, axis given as a tensor)
AXIS_ROWS = [(f, a, t) for f in ("softmax", "log_softmax") for a in (-3, -2, -1, 0, 1, 2) for t in (False, True)]


@pytest.mark.parametrize("fn,axis,as_tensor", AXIS_ROWS)
def test_values_as_tensorflow(fn, axis, as_tensor):
    """A tensor axis naming the last dimension fails in TF too (its swap builds
    ``range(rank, rank - 1)``): the outcome compared is the values or the error kind."""
    tf = pytest.importorskip("tensorflow").compat.v1
    got = []
    for lib in (tf, ref):
        with lib.Graph().as_default():
            a = lib.placeholder_with_default(axis, []) if as_tensor else axis
            out = getattr(lib.nn, fn)(lib.constant(_X), axis=a)
            with lib.Session() as s:
                try:
                    got.append((s.run(out), out.shape.as_list()))
                except lib.errors.OpError as e:
                    got.append((type(e).__name__, None))
    if isinstance(got[0][0], str):
        assert got[1] == got[0]
    else:
        np.testing.assert_allclose(got[1][0], got[0][0], rtol=2e-6, atol=1e-6)
        assert got[1][1] == got[0][1]


@pytest.mark.parametrize("axis", [3, -4, 100])
def test_static_axis_out_of_range(axis):
    tf = pytest.importorskip("tensorflow").compat.v1
    messages = []
    for lib in (tf, ref):
        with lib.Graph().as_default(), pytest.raises(lib.errors.InvalidArgumentError) as info:
            lib.nn.softmax(lib.ones([2, 3, 4]), axis=axis)
        messages.append(info.value.message)
    assert messages[1] == messages[0]


@pytest.mark.parametrize("axis", [3, 100])
def test_run_time_axis_out_of_range(axis):
    tf = pytest.importorskip("tensorflow").compat.v1
    for lib in (tf, ref):
        with lib.Graph().as_default():
            out = lib.nn.softmax([1.0, 2.0, 3.0, 4.0], axis=lib.placeholder_with_default(axis, []))
            with lib.Session() as s, pytest.raises(lib.errors.InvalidArgumentError):
                s.run(out)


def _graph(tf):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="x")
    tf.nn.softmax(x, axis=1)
    tf.nn.log_softmax(x, axis=-2, name="ls")
    tf.nn.softmax(x, axis=tf.placeholder_with_default(0, []))
    tf.nn.softmax([1.0, 2.0])
    tf.nn.softmax(x, axis=2, name="last")


def test_softmax_axis_graph_is_tensorflows():
    pytest.importorskip("tensorflow")
    assert_same_graph(_graph)
