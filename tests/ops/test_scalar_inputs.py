"""Every registered kernel takes 0-d inputs, NumPy scalars and Python numbers
where its shape rule allows a scalar, as TensorFlow's kernels do.

One row per registered op (the registry is the table): inputs are 0-d of an
allowed dtype; attrs TF requires come from ``REQUIRED_ATTRS``. An op whose shape
rule rejects scalars is skipped (its static check is the answer). The kernel
must either return arrays of the dtype and shape its shape rule claims or raise
TF's run-time error class (InvalidArgumentError); where TensorFlow has the op,
its value on the same inputs is the oracle.
"""
import numpy as np
import pytest

from ref.ops import registry
from ref.ops.control import DEAD
from ref.ops.registry import REQUIRED, Spec
from ref.types import dtypes, errors
from ref.types.shapes import TensorShape
from tests.ops.math_cases import ACTIVATION_ROWS

REQUIRED_ATTRS = {"Cast": {"DstT": dtypes.float64}, "CheckNumerics": {"message": "m"},
                  "CountUpTo": {"limit": 5}, "EnsureShape": {"shape": TensorShape([])},
                  "Split": {"num_split": 1}, "SplitV": {"num_split": 1}, "Unpack": {"num": 1},
                  "Empty": {"dtype": dtypes.float32}, "MirrorPad": {"mode": "REFLECT"},
                  "RandomUniform": {"dtype": dtypes.float32}, "RandomStandardNormal": {"dtype": dtypes.float32},
                  "TruncatedNormal": {"dtype": dtypes.float64}}
# Ops that cannot run as a pure call (no state, no session) or take no scalars by nature.
NOT_PURE = {"IsVariableInitialized", "VarIsInitializedOp", "DestroyResourceOp", "Placeholder",
            "ReadFile", "WriteFile"}  # (the file system: tests/ops/test_files.py)
# Kernels with a run context that a pure call can give them (random generators).
CTX_OK = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt", "RandomShuffle",
          "RandomGamma", "Multinomial", "Print"}
BOOL_INPUTS = {"LogicalNot", "LogicalAnd", "LogicalOr", "Assert"}


def _row(name, op, python_numbers):
    member = {m: a for a, ms in op.type_attrs.items() for m in ms}
    kwargs, specs = {}, {}
    for inp in op.inputs:
        attr = member.get(inp)
        allowed = op.allowed.get(attr) if attr else None
        if name in BOOL_INPUTS:
            dt = dtypes.bool
        elif allowed:
            dt = dtypes.float32 if dtypes.float32 in allowed else allowed[0]
        elif attr:
            dt = op.attrs[attr] if isinstance(op.attrs.get(attr), dtypes.DType) else dtypes.float32
        else:
            dt = dtypes.int32
        v = np.asarray(True if dt == dtypes.bool else (0.5 if dt.is_floating else 1), dt.as_numpy_dtype)[()]
        if python_numbers and not dt.is_complex:
            v = v.item()
        spec = Spec(dt, TensorShape([]), None)
        if inp in op.list_inputs:
            kwargs[inp], specs[inp] = [v, v], [spec, spec]
            if op.list_inputs[inp] in op.attrs:
                kwargs[op.list_inputs[inp]] = 2
        else:
            kwargs[inp], specs[inp] = v, spec
    attrs = dict(op.attrs, _op_name=name)
    attrs.update(REQUIRED_ATTRS.get(name, {}))
    kwargs.update(REQUIRED_ATTRS.get(name, {}))
    for a, ms in op.type_attrs.items():
        if ms[0] in specs:
            s = specs[ms[0]]
            attrs[a] = (s[0] if isinstance(s, list) else s).dtype
    return kwargs, specs, attrs


def _cases():
    for name, op in sorted(registry.registered().items()):
        if op.kernel is None or op.creates_ref or name in NOT_PURE or (op.ctx and name not in CTX_OK):
            continue
        if any(v is REQUIRED for k, v in op.attrs.items() if k not in REQUIRED_ATTRS.get(name, {})):
            continue
        yield name


@pytest.mark.parametrize("python_numbers", [False, True], ids=["numpy_scalars", "python_numbers"])
@pytest.mark.parametrize("name", list(_cases()))
def test_kernel_takes_scalars(name, python_numbers):
    op = registry.get(name)
    kwargs, specs, attrs = _row(name, op, python_numbers)
    try:
        outs = op.infer(specs, attrs)
    except (ValueError, TypeError):
        pytest.skip("the shape rule rejects scalar inputs")
    try:
        with np.errstate(all="ignore"):
            result = registry.call(name, **kwargs)
    except errors.InvalidArgumentError:
        return  # TF's run-time class for a value the op cannot take
    except errors.OutOfRangeError as e:  # TF's class for a reduction axis past the rank (ReduceJoin)
        assert "dimension" in e.message, (name, e.message)
        return
    result = result if isinstance(result, tuple) else (result,)
    for (dt, shape), x in zip(outs, result):
        if isinstance(x, list) or x is DEAD or dt == dtypes.variant:  # a list; an untaken branch; a variant
            continue
        assert isinstance(x, (np.ndarray, np.generic)), (name, type(x))
        if shape.is_fully_defined():
            assert np.shape(x) == tuple(shape.as_list()), (name, np.shape(x), shape)
        if dt != dtypes.string:
            assert np.asarray(x).dtype == dt.as_numpy_dtype, (name, np.asarray(x).dtype, dt)


# TF's own kernels on the same scalars, for the element-wise families.
TF_ROWS = ["Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Rsqrt",
           "Square", "Neg", "Abs", "Sign", "Floor", "Ceil", "Round", "Reciprocal", "Erf", "Lgamma",
           "Digamma", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Atanh", "Log1p", "Expm1", "AddV2", "Sub",
           "Mul", "RealDiv", "Maximum", "Minimum", "Pow", "SquaredDifference", "Atan2", "FloorMod",
           "SigmoidGrad", "TanhGrad", "Identity", "ZerosLike", "OnesLike"]
# nn activations: a field of their row (tests/ops/math_cases.py ACTIVATION_ROWS)
TF_ROWS += [name for row in ACTIVATION_ROWS.values() for name in row.scalar]


@pytest.mark.parametrize("name", TF_ROWS)
def test_scalar_values_match_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    try:
        op = registry.get(name)
    except LookupError:
        pytest.skip(f"{name} not registered")
    kwargs, _, _ = _row(name, op, python_numbers=False)
    got = registry.call(name, **kwargs)
    want = getattr(tf.raw_ops, name)(**{k: v for k, v in kwargs.items() if k in op.inputs}).numpy()
    assert np.asarray(got).dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)
