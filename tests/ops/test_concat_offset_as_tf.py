"""ConcatOffset and tf.concat's edges against TensorFlow: a negative concat_dim
(counted from the end), TF's kernel messages for a size mismatch and a bad dim, the
empty value list, and the IndexedSlices gradient of a negative axis whose rank is
unknown (TF's ValueError)."""
import numpy as np
import pytest

import ref
from ref.framework.op_def_library import apply_op
from ref.ops import grad_helpers as _under_test  # noqa: F401  (the module these tests cover)

tf = pytest.importorskip("tensorflow")
tf1 = tf.compat.v1

CASES = {
    "negative_dim": (-2, [[2, 3, 5], [2, 7, 5], [2, 20, 5]]),
    "first_dim_negative": (-3, [[2, 3, 5], [1, 3, 5], [3, 3, 5]]),
    "positive": (1, [[2, 3, 5], [2, 7, 5]]),
    "size_mismatch": (1, [[2, 3, 5], [2, 7, 10]]),
    "out_of_range": (3, [[2, 3, 5], [2, 7, 5]]),
    "out_of_range_negative": (-4, [[2, 3, 5], [2, 7, 5]]),
    "length_mismatch": (0, [[2, 3, 5], [2, 7]]),
}


def _offsets(t, cdim, shapes):
    with t.Graph().as_default(), t.Session() as s:
        args = dict(concat_dim=t.constant(cdim, t.int32), shape=[t.constant(x, t.int32) for x in shapes])
        out = apply_op("ConcatOffset", **args) if t is ref else t.raw_ops.ConcatOffset(**args)
        try:
            return [v.tolist() for v in s.run(list(out))]
        except t.errors.InvalidArgumentError as e:
            words = ("Concat dim is out of range", "must match", "should contain")
            return next(l for l in e.message.split("\n") if any(w in l for w in words)).split(" [[")[0].strip()


@pytest.mark.parametrize("name", sorted(CASES))
def test_concat_offset_matches_tf(name):
    assert _offsets(ref, *CASES[name]) == _offsets(tf1, *CASES[name])


def test_concat_of_nothing_is_tf_value_error():
    for t in (ref, tf1):
        with t.Graph().as_default():
            with pytest.raises(ValueError, match="with length 0 shorter than minimum length 2"):
                t.concat([], 0)


@pytest.mark.parametrize("known_rank", [True, False])
def test_indexed_slices_gradient_of_a_negative_axis_as_tf(known_rank):
    def grads(t):
        with t.Graph().as_default():
            shape = [2, 3] if known_rank else None
            xs = [t.placeholder(t.float32, shape) for _ in range(2)]
            c = t.concat(xs, -2)
            y = t.gather(c, [2, 0])
            try:
                g = t.gradients(y, xs)
            except ValueError as e:
                return "ValueError", "negative concat_dim" in str(e)
            with t.Session() as s:
                feed = {xs[0]: np.arange(6.0).reshape(2, 3), xs[1]: np.arange(6.0, 12.0).reshape(2, 3)}
                return [v.tolist() for v in s.run([t.convert_to_tensor(x) for x in g], feed)]
    assert grads(ref) == grads(tf1)
