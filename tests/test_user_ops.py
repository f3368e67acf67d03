"""``tf.user_ops.my_fact`` against TensorFlow's ``Fact`` op."""
import pytest

import ref as rtf


def _run(lib):
    with lib.Graph().as_default(), lib.Session() as s:
        f = lib.user_ops.my_fact()
        return f.op.type, f.dtype.name, f.shape.ndims, s.run(f)


def test_my_fact_matches_tensorflow():
    tf = pytest.importorskip("tensorflow").compat.v1
    assert _run(rtf) == _run(tf)


def test_my_fact_value():
    op_type, dtype, ndims, value = _run(rtf)
    assert (op_type, dtype, ndims, value) == ("Fact", "string", None, b"0! == 1")
