"""Kernel goldens of the dense training kernels carry a case that separates the
known formula variants, and ``diagnose`` names the variant in kernel mode."""
import numpy as np
import pytest

from ref.golden import generate, compare
from ref.golden.variants import diagnose

f32 = np.float32


def paper_adam(kw):
    b1, b2, eps, lr = f32(kw["beta1"]), f32(kw["beta2"]), f32(kw["epsilon"]), f32(kw["lr"])
    m = b1 * kw["m"] + (f32(1) - b1) * kw["grad"]
    v = b2 * kw["v"] + (f32(1) - b2) * kw["grad"] * kw["grad"]
    m_hat, v_hat = m / (f32(1) - f32(kw["beta1_power"])), v / (f32(1) - f32(kw["beta2_power"]))
    return {"var": kw["var"] - lr * m_hat / (np.sqrt(v_hat) + eps), "m": m, "v": v}


def rmsprop_eps_outside(kw):  # PyTorch's placement, with TF's initial state given
    rho, mu, eps, lr = f32(kw["rho"]), f32(kw["momentum"]), f32(kw["epsilon"]), f32(kw["lr"])
    ms = kw["ms"] + (kw["grad"] * kw["grad"] - kw["ms"]) * (f32(1) - rho)
    mom = kw["mom"] * mu + lr * kw["grad"] / (np.sqrt(ms) + eps)
    return {"var": kw["var"] - mom, "ms": ms, "mom": mom}


def adagrad_keras(kw):
    accum = kw["accum"] + kw["grad"] * kw["grad"]
    return {"var": kw["var"] - f32(kw["lr"]) * kw["grad"] / (np.sqrt(accum) + f32(1e-7)), "accum": accum}


@pytest.mark.parametrize("op, impl, expected", [
    ("ApplyAdam", paper_adam, "paper epsilon"),
    ("ApplyRMSProp", rmsprop_eps_outside, "epsilon outside sqrt"),
    ("ApplyAdagrad", adagrad_keras, "epsilon 1e-7 outside sqrt"),
])
def test_kernel_diagnosis_names_the_variant(op, impl, expected):
    g = generate(op, dtype="float32", seed=0)
    assert "second moments near epsilon**2" in [c["label"] for c in g.cases]
    actual = {}
    with np.errstate(all="ignore"):
        for i in range(len(g.cases)):
            for k, v in impl(g.kernel_kwargs(i)).items():
                actual[f"c{i}.out.{k}"] = np.asarray(v, np.float32)
    assert not compare(g, actual, "impl").ok
    best = diagnose(g, actual).best
    assert best.formula == expected, diagnose(g, actual).format()


@pytest.mark.parametrize("op", ["ApplyAdam", "ApplyRMSProp", "ApplyAdagrad", "ApplyMomentum"])
def test_tf_variant_is_ref_itself_in_kernel_mode(op):
    g = generate(op, dtype="float32", seed=1)
    actual = {f"c{i}.out.{k}": v for i in range(len(g.cases)) for k, v in g.expected(i).items()}
    d = diagnose(g, actual)
    assert d.best.formula == "tf" and d.best.score == 0.0, d.format()


def test_near_epsilon_case_puts_sqrt_v_near_epsilon():
    g = generate("ApplyAdam", dtype="float32", seed=0)
    i = [c["label"] for c in g.cases].index("second moments near epsilon**2")
    kw = g.kernel_kwargs(i)
    root = np.sqrt(kw["v"])
    assert 1e-8 < np.median(root) < 1e-6 and kw["epsilon"] == pytest.approx(1e-7)
