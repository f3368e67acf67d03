"""Optional kernels (ref/ops/optional_ops.py): ``ref.raw_ops`` on arrays and
ref's graph, against ``tensorflow.compat.v1`` running the same raw ops: a
value put in comes back out, has_value tells none from some, reading none is
InvalidArgumentError."""
import numpy as np
import pytest

import ref
from ref.framework.op_def_library import apply_op
from ref.types import errors
from ref.ops import optional_ops as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow").compat.v1
raw_tf = pytest.importorskip("tensorflow").raw_ops

CASES = [  # components
    [np.float32(1.5)],
    [np.arange(6, dtype=np.int32).reshape(2, 3), np.array([True, False])],
    [np.array([[0.5]], np.float64)],
]


def _run(lib, raw_ops, comps, const):
    from_value = raw_ops.OptionalFromValue(components=[const(c) for c in comps])
    values = raw_ops.OptionalGetValue(optional=from_value, output_types=[lib.as_dtype(c.dtype) for c in comps],
                                      output_shapes=[lib.TensorShape(np.shape(c)) for c in comps])
    return list(values) + [raw_ops.OptionalHasValue(optional=from_value),
                           raw_ops.OptionalHasValue(optional=raw_ops.OptionalNone())]


class _GraphOps:
    """``apply_op`` under raw-op names: ref's graph."""

    def __getattr__(self, name):
        return lambda **kw: apply_op(name, **kw)


@pytest.mark.parametrize("comps", CASES)
def test_optional_round_trip_matches_tensorflow(comps):
    with tf.Graph().as_default(), tf.Session() as s:
        expected = s.run(_run(tf, raw_tf, comps, tf.constant))
    with ref.Graph().as_default(), ref.Session() as s:
        in_graph = s.run(_run(ref, _GraphOps(), comps, ref.constant))
    eager = _run(ref, ref.raw_ops, comps, lambda c: c)
    for got in (in_graph, eager):
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            np.testing.assert_array_equal(a, b)
            assert np.asarray(a).dtype == np.asarray(b).dtype


def test_reading_an_empty_optional_is_invalid_argument():
    with tf.Graph().as_default(), tf.Session() as s:
        v = raw_tf.OptionalGetValue(optional=raw_tf.OptionalNone(), output_types=[tf.float32], output_shapes=[[]])
        with pytest.raises(tf.errors.InvalidArgumentError):
            s.run(v)
    with ref.Graph().as_default(), ref.Session() as s:
        g = _GraphOps()
        v = g.OptionalGetValue(optional=g.OptionalNone(), output_types=[ref.float32],
                               output_shapes=[ref.TensorShape([])])
        with pytest.raises(errors.InvalidArgumentError, match="does not have a value"):
            s.run(v)
