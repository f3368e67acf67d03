"""The bitwise kernels (ref/ops/bitwise.py) against tf.raw_ops, bit for bit,
over every integer dtype, with shift amounts past the width and negative."""
import numpy as np
import pytest

from ref.ops import bitwise  # noqa: F401  (registers the ops)
from ref.ops import registry

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def _xy(dt):
    info = np.iinfo(dt)
    rng = np.random.default_rng(np.dtype(dt).itemsize * 7 + (np.dtype(dt).kind == "u"))
    x = rng.integers(info.min, info.max, size=12, dtype=dt, endpoint=True)
    x[:3] = [info.min, info.max, 0]
    y = rng.integers(info.min, info.max, size=12, dtype=dt, endpoint=True)
    shifts = np.array([0, 1, 3, np.dtype(dt).itemsize * 8 - 1, np.dtype(dt).itemsize * 8,
                       np.dtype(dt).itemsize * 8 + 5, 2, 5, 7, 1, 0, 4][:12]).astype(dt)
    if np.dtype(dt).kind == "i":
        shifts[-2] = -1
    return x, y, shifts


ROWS = [(op, dt) for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift", "Invert",
                            "PopulationCount") for dt in DTYPES]


@pytest.mark.parametrize("op,dt", ROWS, ids=[f"{op}-{np.dtype(dt).name}" for op, dt in ROWS])
def test_vs_tf_raw_ops(op, dt):
    tf = pytest.importorskip("tensorflow")
    x, y, shifts = _xy(dt)
    if op in ("Invert", "PopulationCount"):
        kw = {"x": x}
    else:
        kw = {"x": x, "y": shifts if "Shift" in op else y}
    got = registry.call(op, **kw)
    want = getattr(tf.raw_ops, op)(**kw).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_builders_and_no_gradient_as_in_tf():
    import ref
    with ref.Graph().as_default():
        x = ref.constant([6, 3], ref.int32)
        outs = [ref.bitwise.bitwise_and(x, 5), ref.bitwise.bitwise_or(x, 5), ref.bitwise.bitwise_xor(x, 5),
                ref.bitwise.invert(x), ref.bitwise.left_shift(x, 2), ref.bitwise.right_shift(x, 1)]
        assert [o.op.type for o in outs] == ["BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert", "LeftShift",
                                             "RightShift"]
        with ref.Session() as s:
            assert [v.tolist() for v in s.run(outs)] == [[4, 1], [7, 7], [3, 6], [-7, -4], [24, 12], [3, 1]]
        f = ref.cast(ref.bitwise.bitwise_and(x, 5), ref.float32)
        assert ref.gradients(f, [x]) == [None]
