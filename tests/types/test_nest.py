"""``nest.assert_same_structure``'s ValueError for structures that nest
differently: the same message as ``tf.nest`` (the top structures, "More
specifically: ..." with the first difference, both structures with ``.``
leaves). Oracle: TensorFlow's ``tf.nest``."""
import collections

import pytest

from ref.types import nest

Pair = collections.namedtuple("Pair", ("a", "b"))

MISMATCHES = {
    "dict keys": ({"a": 1, "b": 2}, {"c": 1, "d": 2}),
    "list lengths": ([1, 2, 3], [1, 2]),
    "nested lengths": ([Pair(1, 2), (3, 4), 5], [Pair(1, 2), (3, 4)]),
    "sequence against leaf": ([1, [2, 3]], [1, 2]),
    "leaf against sequence": ([1, 2], [1, [2, 3]]),
    "inner dict keys": ([1, {"x": 1}], [1, {"y": 1}]),
}


@pytest.mark.parametrize("check_types", [False, True])
@pytest.mark.parametrize("name", sorted(MISMATCHES))
def test_mismatch_message_as_tf(name, check_types):
    """(dict keys are compared only with ``check_types``, as in TF)"""
    tf = pytest.importorskip("tensorflow")
    a, b = MISMATCHES[name]
    if "dict keys" in name and not check_types:
        tf.nest.assert_same_structure(a, b, check_types=False)
        nest.assert_same_structure(a, b, check_types=False)
        return
    with pytest.raises(ValueError) as want:
        tf.nest.assert_same_structure(a, b, check_types=check_types)
    with pytest.raises(ValueError) as got:
        nest.assert_same_structure(a, b, check_types=check_types)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("a, b", [([1, (2, 3)], [4, (5, 6)]), ({"k": [1]}, {"k": [2]}), (1, 2)])
def test_same_structures_pass(a, b):
    nest.assert_same_structure(a, b)
