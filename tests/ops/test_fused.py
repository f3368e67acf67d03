"""ref.ops.fused: BiasAdd+Relu and ReluGrad+BiasAddGrad in one pass, and an
LSTM cell's ten element-wise ops as two compiled passes, give the bits of the
kernels one after the other (the oracle: ref's own unfused
kernels, themselves tested against TF), special values included."""
import numpy as np
import pytest

from ref.ops import _jit, fused, nn
from ref.ops import math as math_ops


@pytest.fixture(params=["numba", "numpy tier"])
def tier(request, monkeypatch):
    # "numba": every input above the NumPy tier's limit; "numpy tier": the forms run
    monkeypatch.setattr(_jit, "NUMPY_MAX", -1 if request.param == "numba" else 1 << 30)
    if request.param == "numpy tier":
        for k in (fused._bias_relu_rows, fused._relu_bias_grad_rows, fused._lstm_in, fused._lstm_mid):
            monkeypatch.setattr(k, "_dispatcher", None)
            monkeypatch.setattr(k, "numpy_seconds", 0.0)
    return request.param


def _same(a, b):
    """Same dtype, shape and bits, a NaN's sign and payload aside (which of two NaNs a
    sum passes on is the compiler's operand order: TF promises no NaN bits either)."""
    assert a.dtype == b.dtype and a.shape == b.shape
    nan = np.isnan(a)
    assert (nan == np.isnan(b)).all()
    assert a[~nan].tobytes() == b[~nan].tobytes()


def _data(shape, dtype, rng, specials=True):
    x = rng.standard_normal(shape).astype(dtype)
    if specials and x.size >= 8:
        flat = x.reshape(-1)
        flat[:8] = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45]
    return x


SHAPES = [(1, 2), (7, 3), (128, 256), (3, 5, 4), (2, 3, 3, 8)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bias_relu_is_relu_of_bias_add(tier, shape, dtype):
    rng = np.random.default_rng(len(shape))
    value = _data(shape, dtype, rng)
    bias = _data(shape[-1:], dtype, rng)
    bias[:2] = [-0.0, np.nan][:bias.size]
    value.reshape(-1, shape[-1])[-1, 0] = -0.0  # -0 + -0: the sum itself -0
    got = fused.bias_relu(nn.bias_add, nn.relu, value, bias, "NHWC")
    want = nn.relu(nn.bias_add(value, bias, data_format="NHWC"))
    _same(got, want)


@pytest.mark.parametrize("shape", [(1, 2), (7, 3), (128, 256), (300, 2), (9, 17),
                                   (2, 3, 3, 8), (16, 7, 7, 32), (3, 1, 5, 2), (4, 9, 2)])  # NHWC: a conv layer's
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_bias_grads_are_relu_grad_then_bias_add_grad(tier, shape, dtype):
    rng = np.random.default_rng(shape[0] * 7 + len(shape))
    grads = _data(shape, dtype, rng) * np.exp(rng.uniform(-30, 30, shape)).astype(dtype)
    feats = _data(shape, dtype, np.random.default_rng(99))
    got = fused.relu_bias_grads(nn.relu_grad, nn.bias_add_grad, grads, feats, "NHWC")
    backprops = nn.relu_grad(grads, feats)
    want = (backprops, nn.bias_add_grad(backprops, data_format="NHWC"))
    for g, w in zip(got, want):
        _same(g, w)


@pytest.mark.parametrize("case", ["one column", "float16", "transposed", "4-D NCHW grads", "4-D one channel",
                                  "NCHW", "bias dtype"])
def test_what_does_not_fuse_runs_the_two_kernels(tier, case):
    rng = np.random.default_rng(5)
    calls = []

    def counted(kernel):
        def run(*args, **kwargs):
            calls.append(kernel.__name__)
            return kernel(*args, **kwargs)
        return run

    if case in ("one column", "float16", "transposed", "4-D NCHW grads", "4-D one channel"):
        shape = {"one column": (300, 1), "4-D NCHW grads": (2, 3, 3, 4), "4-D one channel": (2, 3, 3, 1)}.get(
            case, (20, 6))
        fmt = "NCHW" if case == "4-D NCHW grads" else "NHWC"
        dtype = np.float16 if case == "float16" else np.float32
        g, f = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
        if case == "transposed":
            g, f = g.T, f.T
        got = fused.relu_bias_grads(counted(nn.relu_grad), counted(nn.bias_add_grad), g, f, fmt)
        bp = nn.relu_grad(g, f)
        want = (bp, nn.bias_add_grad(bp, data_format=fmt))
    else:
        v = rng.standard_normal((2, 4, 3, 3)).astype(np.float32)
        b = rng.standard_normal(4).astype(np.float64 if case == "bias dtype" else np.float32)
        fmt = "NCHW" if case == "NCHW" else "NHWC"
        if case == "bias dtype":
            v = v.reshape(6, 12)[:, :4].copy()
        got = (fused.bias_relu(counted(nn.bias_add), counted(nn.relu), v, b, fmt),)
        want = (nn.relu(nn.bias_add(v, b, data_format=fmt)),)
    assert len(calls) == 2
    for a, w in zip(got, want):
        _same(a, w)


def _unfused_cell(c, i, j, f, bias, o):
    """The ten ops of BasicLSTMCell, each its own kernel (ref.ops.math), in TF's order."""
    with np.errstate(all="ignore"):
        return _cell(c, i, j, f, bias, o)


def _cell(c, i, j, f, bias, o):
    add, sigmoid, mul, tanh = math_ops.add_v2, math_ops.sigmoid, math_ops.mul, math_ops.tanh
    t = add(f, bias)
    sf = sigmoid(t)
    kept = mul(c, sf)
    si, tj = sigmoid(i), tanh(j)
    added = mul(si, tj)
    new_c = add(kept, added)
    tc = tanh(new_c)
    so = sigmoid(o)
    return [t, sf, kept, si, tj, added, new_c, tc, so, mul(tc, so)]


CELL_SHAPES = [(1, 1), (20, 200), (3, 7), (64, 33), (5,), (2, 3, 17)]


@pytest.mark.parametrize("shape", CELL_SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scale", [1.0, 60.0])  # 60: exp overflows and sigmoid saturates (f32 and f64 at 800)
def test_lstm_cell_is_its_ten_ops(tier, shape, dtype, scale):
    rng = np.random.default_rng(shape[0] * 31 + len(shape))
    scale = scale if dtype == np.float32 else scale * 13
    c, i, j, f, o = (_data(shape, dtype, rng) * dtype(scale) for _ in range(5))
    for bias in (np.array(1.0, dtype), np.array(-0.0, dtype), np.array(np.nan, dtype)):
        got = fused.lstm_cell(lambda: _unfused_cell(c, i, j, f, bias, o), c, i, j, f, bias, o)
        want = _unfused_cell(c, i, j, f, bias, o)
        assert len(got) == len(fused.LSTM_OUTPUTS) == len(want)
        for g, w in zip(got, want):
            _same(np.asarray(g), w)


@pytest.mark.parametrize("case", ["float16", "shapes differ", "bias not 0-d", "bias dtype", "transposed", "empty"])
def test_an_lstm_cell_that_does_not_fuse_runs_its_ops(tier, case):
    rng = np.random.default_rng(3)
    dtype = np.float16 if case == "float16" else np.float32
    shape = (0, 4) if case == "empty" else (6, 4)
    c, i, j, f, o = (rng.standard_normal(shape).astype(dtype) for _ in range(5))
    bias = np.array(1.0, np.float64 if case == "bias dtype" else dtype)
    if case == "shapes differ":
        c = c[:1]
    elif case == "bias not 0-d":
        bias = np.ones(4, dtype)
    elif case == "transposed":
        i = np.ascontiguousarray(i.T).T
    calls = []

    def unfused():
        calls.append(1)
        return _unfused_cell(c, i, j, f, bias, o)

    got = fused.lstm_cell(unfused, c, i, j, f, bias, o)
    assert calls == [1]
    for g, w in zip(got, _unfused_cell(c, i, j, f, bias, o)):
        _same(np.asarray(g), w)


def _unfused_cell_grads(axis, a, b, yt, carry, carry_first, gates):
    """The cell gradient's ops one by one (ref.ops.math, ref.ops.concat_split kernels)."""
    from ref.ops import concat_split

    with np.errstate(all="ignore"):
        d = math_ops.tanh_grad(yt, math_ops.mul(a, b))
        if carry is not None:
            d = math_ops.add_n([carry, d] if carry_first else [d, carry])
        parts = []
        for tanh, p, r, y in gates:
            m = math_ops.mul(d if p is None else p, d if r is None else r)
            parts.append(math_ops.tanh_grad(y, m) if tanh else math_ops.sigmoid_grad(y, m))
        return concat_split.concat_v2(parts, axis), d


GRAD_CASES = [  # (shape, carry: None / "first" / "second")
    ((1, 1), None), ((20, 200), "first"), ((3, 7), "second"), ((64, 33), "first"), ((5, 2), None),
]


@pytest.mark.parametrize("shape, carry", GRAD_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lstm_cell_grads_are_their_ops(tier, shape, carry, dtype):
    rng = np.random.default_rng(shape[1])
    a, b, c_in, g = (_data(shape, dtype, rng) for _ in range(4))
    yt, si, tj, sf, so, tc = (np.tanh(_data(shape, dtype, rng, specials=False)) for _ in range(6))
    si[0, 0] = np.nan
    # BasicLSTMCell's gates in the Split's order i, j, f, o: d * tanh(j), d * sigmoid(i),
    # d * c, d_h * tanh(c'); the Mul operand order as TF's gradients build them
    gates = [(False, None, tj, si), (True, None, si, tj), (False, None, c_in, sf), (False, g, tc, so)]
    carry_value = None if carry is None else _data(shape, dtype, rng)
    for axis in (np.array(1, np.int32), np.array(-1, np.int64)):
        want = _unfused_cell_grads(axis, a, b, yt, carry_value, carry == "first", gates)
        got = fused.lstm_cell_grads(lambda: want, axis, a, b, yt, carry_value, carry == "first", gates)
        for x, w in zip(got, want):
            _same(x, w)
        if tier == "numba":
            assert got[0] is not want[0]  # computed, not the unfused result


@pytest.mark.parametrize("case", ["axis 0", "float16", "shapes differ", "1-D", "strided"])
def test_lstm_cell_grads_that_do_not_fuse_run_their_ops(tier, case):
    rng = np.random.default_rng(4)
    dtype = np.float16 if case == "float16" else np.float32
    shape = (6,) if case == "1-D" else (6, 4)
    a, b, yt, y, r = (rng.standard_normal(shape).astype(dtype) for _ in range(5))
    axis = np.array(0 if case in ("axis 0", "1-D") else 1, np.int32)
    if case == "shapes differ":
        r = r[:3]
    elif case == "strided":
        r = np.ascontiguousarray(r.T).T
    gates = [(False, None, r, y)] * 4
    calls = []

    def unfused():
        calls.append(1)
        return "unfused"

    assert fused.lstm_cell_grads(unfused, axis, a, b, yt, None, False, gates) == "unfused" and calls == [1]
