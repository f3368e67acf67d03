"""Tile's shape function against TensorFlow (TF's TileShapeFn): static shapes from
known, partly known and unknown multiples, and multiples whose length disagrees with
the input's rank (a ValueError at graph construction)."""
import pytest

import ref
from ref.ops import pad_tile as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

CASES = {
    "known": lambda t: t.tile(t.zeros([2, 3]), [2, 1]),
    "partial_multiples": lambda t: t.tile(t.zeros([1, 1]), [t.placeholder(t.int32), 7]),
    "unknown_multiples_known_length": lambda t: t.tile(t.zeros([1, 2]), t.placeholder(t.int32, [2])),
    "unknown_input": lambda t: t.tile(t.placeholder(t.float32), [2, 3, 4]),
    "unknown_everything": lambda t: t.tile(t.placeholder(t.float32), t.placeholder(t.int32)),
    "length_mismatch_unknown_values": lambda t: t.tile(t.placeholder(t.float32, [None, None]),
                                                       t.placeholder(t.int32, [3])),
    "length_mismatch_known_values": lambda t: t.tile(t.zeros([1, 2]), [1, 2, 3]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tile_static_shapes_and_errors_match_tf(name):
    def shape(t):
        with t.Graph().as_default():
            try:
                s = CASES[name](t).shape
            except ValueError:
                return "ValueError"
            return None if s.ndims is None else s.as_list()
    assert shape(ref) == shape(tf1)
