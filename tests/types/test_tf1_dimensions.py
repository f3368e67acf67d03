"""TF1 programs index and iterate static shapes and call ``.value`` on the
result (``x.get_shape()[1].value``, ``[d.value for d in shape]``); ref's
shapes give ints (what its own code computes with) that also answer TF1's
``Dimension`` API. Oracle: TensorFlow's ``Dimension`` for the same calls."""
import pytest

from ref.types.shapes import Dimension, KnownDimension, TensorShape, dimension_value

SHAPE = TensorShape([8, None, 3])

# (description, expression on a shape, expected) -- the expected values are
# what TF1's TensorShape gives for the same expression.
ROWS = [
    ("index .value", lambda s: s[0].value, 8),
    ("negative index .value", lambda s: s[-1].value, 3),
    ("iterate .value", lambda s: [None if d is None else d.value for d in s], [8, None, 3]),
    ("int()", lambda s: int(s[2]), 3),
    ("arithmetic stays int", lambda s: type(s[0] * s[2]) is int and s[0] * s[2] == 24, True),
    ("== int", lambda s: s[0] == 8, True),
    ("hash as int", lambda s: {s[0]: "a"}[8], "a"),
    ("is_compatible_with", lambda s: (s[0].is_compatible_with(8), s[0].is_compatible_with(Dimension(None)),
                                      s[0].is_compatible_with(7)), (True, True, False)),
    ("merge_with", lambda s: s[0].merge_with(None).value, 8),
    ("dimension_value", lambda s: (dimension_value(s[0]), type(dimension_value(s[0])) is int), (8, True)),
    ("as Dimension", lambda s: Dimension(s[2]) == Dimension(3), True),
    ("unknown stays None", lambda s: s[1], None),
    ("repr as int", lambda s: repr(s[0]), "8"),
]


@pytest.mark.parametrize("expr,want", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_tf1_dimension_api(expr, want):
    assert expr(SHAPE) == want


def test_merge_with_incompatible_raises():
    with pytest.raises(ValueError):
        SHAPE[0].merge_with(9)
    with pytest.raises(ValueError):
        SHAPE[0].assert_is_compatible_with(9)


def test_same_as_tensorflow_dimension():
    tf = pytest.importorskip("tensorflow").compat.v1
    want = tf.Dimension(8)
    got = SHAPE[0]
    assert isinstance(got, KnownDimension)
    assert (got.value, got.is_compatible_with(8), got.merge_with(8).value) == \
        (want.value, want.is_compatible_with(8), want.merge_with(8).value)
