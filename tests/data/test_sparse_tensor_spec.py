"""``SparseTensorSpec``'s TypeSpec protocol (TF's ``framework/sparse_tensor.py``):
``_serialize``, ``_component_specs``, ``_flat_tensor_specs``, ``_batch``/``_unbatch``,
``_to_components``/``_from_components`` and ``_to_tensor_list``/``_from_tensor_list``
round trips. Each row runs on ref and on TensorFlow and compares what comes out
(shapes as lists, dtypes by name, run values as arrays)."""
import numpy as np
import pytest

import ref
from ref.data import dataset_ops as _under_test  # noqa: F401  (the module these tests cover)
from ref.data.dataset_ops import SparseTensorSpec

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1


def _spec_cls(t):
    return SparseTensorSpec if t is ref else tf.SparseTensorSpec


def _shape(s):
    return None if s.ndims is None else s.as_list()


def _describe(x):
    """A library-neutral picture of a spec, a TensorShape/DType pair or a list of them."""
    if isinstance(x, (list, tuple)):
        return [_describe(e) for e in x]
    if hasattr(x, "as_list") or getattr(x, "ndims", 0) is None:
        return ("shape", _shape(x))
    if hasattr(x, "is_floating"):
        return ("dtype", x.name)
    return (type(x).__name__, _shape(x.shape), x.dtype.name)


SPECS = {
    "default": lambda t: _spec_cls(t)(),
    "rank3_partial": lambda t: _spec_cls(t)([5, None, None]),
    "int32": lambda t: _spec_cls(t)(dtype=t.int32),
    "string_rank2": lambda t: _spec_cls(t)([None, None], t.string),
    "known": lambda t: _spec_cls(t)([32, 2], t.float32),
    "rank1": lambda t: _spec_cls(t)([2], t.float32),
}

VIEWS = {
    "serialize": lambda s: s._serialize(),
    "component_specs": lambda s: s._component_specs,
    "flat_tensor_specs": lambda s: s._flat_tensor_specs,
    "batch_32": lambda s: s._batch(32),
    "batch_none": lambda s: s._batch(None),
    "legacy": lambda s: [s._to_legacy_output_types(), s._to_legacy_output_shapes()],
}


@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("spec", sorted(SPECS))
def test_spec_views_match_tf(spec, view):
    assert _describe(VIEWS[view](SPECS[spec](ref))) == _describe(VIEWS[view](SPECS[spec](tf)))


@pytest.mark.parametrize("spec", sorted(SPECS))
def test_unbatch_matches_tf(spec):
    def unbatch(t):
        s = SPECS[spec](t)
        if s.shape.ndims is None:
            return "unknown rank"  # TF's _unbatch of an unknown rank is an unknown rank again
        return _describe(s._unbatch())
    assert unbatch(ref) == unbatch(tf)


def test_unbatch_of_a_scalar_spec_raises_value_error_as_tf():
    for t in (ref, tf):
        with pytest.raises(ValueError, match="only supported for rank >= 1"):
            _spec_cls(t)([], t.float32)._unbatch()


ROUND_TRIPS = {
    "2d": ([[0, 1], [10, 8]], [3.0, 5.0], [100, 100], lambda t: _spec_cls(t)()),
    "3d_partial_spec": ([[0, 1, 3], [10, 8, 2]], [3.0, 5.0], [100, 20, 20], lambda t: _spec_cls(t)([100, None, None])),
    "1d_int": ([[2], [4]], np.array([7, 9], np.int32), [6], lambda t: _spec_cls(t)([None], t.int32)),
}


def _round_trip(t, row, through):
    indices, values, dense_shape, spec = ROUND_TRIPS[row]
    with t.Graph().as_default():
        st = t.SparseTensor(indices, values, dense_shape)
        s = spec(t)
        if through == "components":
            back = s._from_components(s._to_components(st))
        else:
            back = s._from_tensor_list(s._to_tensor_list(st))
        static = _shape(back.shape)
        with t.Session() as sess:
            got = sess.run([back.indices, back.values, back.dense_shape])
    return static, got


@pytest.mark.parametrize("through", ["components", "tensor_list"])
@pytest.mark.parametrize("row", sorted(ROUND_TRIPS))
def test_round_trip_matches_tf(row, through):
    (got_shape, got), (want_shape, want) = _round_trip(ref, row, through), _round_trip(tf1, row, through)
    assert got_shape == want_shape
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_numpy_components_give_a_sparse_tensor_value_as_tf1():
    """TF1 (``tf2.enabled()`` false) gives NumPy components back as a SparseTensorValue
    (TF's testFromNumpyComponents, run_v1_only); the oracle is the arrays themselves."""
    parts = [np.array([[0], [8]]), np.array([1.0, 9.0]), np.array([100])]
    value = SparseTensorSpec()._from_components(parts)
    assert isinstance(value, ref.SparseTensorValue)
    for got, want in zip(value, parts):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("make", [
    lambda t: t.SparseTensor([[0, 1]], [2.5], [3, 4]),
    lambda t: t.SparseTensorValue(np.array([[0, 1]]), np.array([2.5], np.float32), np.array([3, 4])),
])
def test_from_value_matches_tf(make):
    def spec_of(t):
        with t.Graph().as_default():
            return _describe(_spec_cls(t if t is ref else tf).from_value(make(t)))
    assert spec_of(ref) == spec_of(tf1)


def test_from_value_of_a_dense_value_is_a_type_error_as_tf():
    for t in (ref, tf):
        with pytest.raises(TypeError, match="Expected SparseTensor or SparseTensorValue"):
            _spec_cls(t).from_value(np.zeros(3))
