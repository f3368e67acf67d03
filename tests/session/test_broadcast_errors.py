"""Every broadcasting binary op fed shapes that do not broadcast fails as TF's:
InvalidArgumentError with TF's ``Incompatible shapes: [2,3] vs. [4]`` (the kernels'
NumPy broadcasting errors are reported in TF's words), against TF 2.21."""
import numpy as np
import pytest

from ref.session.interpreter import failures as _under_test  # noqa: F401

BINARY = {
    "add": lambda tf, a, b: a + b, "sub": lambda tf, a, b: a - b, "mul": lambda tf, a, b: a * b,
    "truediv": lambda tf, a, b: a / b, "pow": lambda tf, a, b: a ** b, "maximum": lambda tf, a, b: tf.maximum(a, b),
    "minimum": lambda tf, a, b: tf.minimum(a, b), "less": lambda tf, a, b: a < b,
    "greater_equal": lambda tf, a, b: a >= b, "equal": lambda tf, a, b: tf.equal(a, b),
    "not_equal": lambda tf, a, b: tf.not_equal(a, b), "squared_difference": lambda tf, a, b: tf.squared_difference(a, b),
    "floordiv": lambda tf, a, b: a // b, "floormod": lambda tf, a, b: a % b, "atan2": lambda tf, a, b: tf.atan2(a, b),
    "xlogy": lambda tf, a, b: tf.math.xlogy(a, b), "xdivy": lambda tf, a, b: tf.math.xdivy(a, b),
    "div_no_nan": lambda tf, a, b: tf.div_no_nan(a, b), "realdiv": lambda tf, a, b: tf.realdiv(a, b),
    "logical_and": lambda tf, a, b: tf.logical_and(a > 0, b > 0),
    "int_floordiv": lambda tf, a, b: tf.cast(a, tf.int32) // tf.cast(b, tf.int32),
    "int_mod": lambda tf, a, b: tf.cast(a, tf.int64) % tf.cast(b, tf.int64),
    "bitwise_and": lambda tf, a, b: tf.bitwise.bitwise_and(tf.cast(a, tf.int32), tf.cast(b, tf.int32)),
}
SHAPES = [((2, 3), (4,)), ((3, 1, 2), (3, 4, 5)), ((5,), (2, 3))]


def _message(lib, name, sa, sb):
    with lib.Graph().as_default():
        a = lib.placeholder(lib.float32)
        b = lib.placeholder(lib.float32)
        t = BINARY[name](lib, a, b)
        with lib.Session() as s:
            try:
                s.run(t, {a: np.ones(sa, np.float32), b: np.full(sb, 2., np.float32)})
            except lib.errors.InvalidArgumentError as e:
                return e.message
    return None


@pytest.mark.parametrize("shapes", SHAPES, ids=lambda s: f"{s[0]}-{s[1]}")
@pytest.mark.parametrize("name", sorted(BINARY))
def test_incompatible_shapes_as_tf(name, shapes):
    tf = pytest.importorskip("tensorflow").compat.v1
    import ref
    from tests.graph_ops._graphdef import tf1_behaviour
    got = _message(ref, name, *shapes)
    with tf1_behaviour():
        want = _message(tf, name, *shapes)
    assert want is not None and got is not None
    line = next(ln for ln in want.splitlines() if ln.startswith("Incompatible shapes"))
    assert got.splitlines()[0] == line


def test_message_without_tensorflow():
    import ref
    msg = _message(ref, "add", (2, 3), (4,))
    assert msg.splitlines()[0] == "Incompatible shapes: [2,3] vs. [4]"
    assert "[[node add" in msg
