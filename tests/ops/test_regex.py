"""``StaticRegexFullMatch`` / ``RegexFullMatch`` (TF's sharded Saver builds the first) against tf.raw_ops."""
import numpy as np
import pytest

import ref
from ref.framework.op_def_library import apply_op
from ref.types import errors
from ref.ops import io as _under_test  # noqa: F401  (the module these tests cover)

CASES = [
    # (input, pattern)
    (np.array([b"s3://bucket/ckpt", b"/tmp/ckpt", b"s3:/x"], dtype=object), "^s3://.*"),
    (np.array(b"model.ckpt-10", dtype=object), r"model\.ckpt-\d+"),
    (np.array([[b"ab", b"abc"], [b"", b"b"]], dtype=object), "a?b"),
    (np.array([b"abc"], dtype=object), "b"),  # a match inside is not a full match
]


@pytest.mark.parametrize("value, pattern", CASES)
def test_full_match_is_tfs(value, pattern):
    tf = pytest.importorskip("tensorflow")
    want = tf.raw_ops.StaticRegexFullMatch(input=value, pattern=pattern).numpy()
    got = ref.raw_ops.StaticRegexFullMatch(input=value, pattern=pattern)
    assert got.dtype == np.bool_ and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    got = ref.raw_ops.RegexFullMatch(input=value, pattern=np.array(pattern.encode(), dtype=object))
    np.testing.assert_array_equal(got, tf.raw_ops.RegexFullMatch(input=value, pattern=pattern).numpy())


def test_a_bad_pattern_is_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError, match="Invalid pattern"):
        ref.raw_ops.StaticRegexFullMatch(input=np.array([b"a"], dtype=object), pattern="(")


def test_in_a_graph():
    with ref.Graph().as_default(), ref.Session() as s:
        x = ref.constant([b"s3://a", b"b"])
        y = apply_op("StaticRegexFullMatch", input=x, pattern="^s3://.*")
        assert y.shape.as_list() == [2] and y.dtype == ref.bool
        np.testing.assert_array_equal(s.run(y), [True, False])
