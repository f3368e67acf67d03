"""Run one TF1 program under ``tensorflow.compat.v1`` and under ``ref`` and compare
what it returns: arrays, IndexedSlices, dtypes, devices, exceptions.

A program is ``program(tf, sess) -> result`` (``result`` nested lists/tuples of
plain Python and NumPy values); it builds its graph in a fresh ``tf.Graph`` and
runs it in ``sess``. An exception becomes ``("raises", class name, message)``.
"""
import numpy as np
import pytest

import ref

from ref.graph_ops.resource_variable_ops import ResourceVariable as _RefResourceVariable


def tf_v1():
    return pytest.importorskip("tensorflow").compat.v1


def resource_variable_class(tf):
    """``ResourceVariable`` of the framework (TF keeps it out of compat.v1)."""
    if tf is ref:
        return _RefResourceVariable
    from tensorflow.python.ops import resource_variable_ops
    return resource_variable_ops.ResourceVariable


def normalize(x):
    if isinstance(x, (list, tuple)):
        return [normalize(v) for v in x]
    if isinstance(x, dict):
        return {k: normalize(v) for k, v in x.items()}
    if hasattr(x, "indices") and hasattr(x, "values") and hasattr(x, "dense_shape"):  # IndexedSlicesValue
        return ("slices", normalize(x.values), normalize(x.indices), normalize(x.dense_shape))
    if isinstance(x, (np.ndarray, np.generic)):
        return np.asarray(x)
    if hasattr(x, "name") and hasattr(x, "is_floating"):  # a DType
        return ("dtype", x.name)
    return x


def run(tf, program):
    with tf.Graph().as_default(), tf.Session() as sess:
        try:
            return normalize(program(tf, sess))
        except Exception as e:  # noqa: BLE001 -- compared with TF's
            return ("raises", type(e).__name__, str(e).split("\n")[0])


def assert_same(got, want, rtol=2e-6, atol=1e-6, path="result"):
    if isinstance(want, np.ndarray):
        got = np.asarray(got)
        assert got.shape == want.shape, f"{path}: shape {got.shape} != {want.shape}"
        assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != {want.dtype}"
        if want.dtype.kind in "fc":
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(got, want, err_msg=path)
    elif isinstance(want, (list, tuple)) and not (isinstance(want, tuple) and want[:1] == ("raises",)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), f"{path}: {got!r} != {want!r}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, rtol, atol, f"{path}[{i}]")
    else:
        assert got == want, f"{path}: {got!r} != {want!r}"
