"""Diagnosis of formula variants, the `python -m ref golden/check` CLI, ref.testing."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ref.testing
from ref.golden import compare, diagnose, generate, run_impl
from tests.golden import impls

ROOT = Path(__file__).resolve().parents[2]
NUMPY_ADAM = str(ROOT / "examples" / "numpy_adam.py")


def _numpy_adam():
    from ref.golden.impl import load_callable

    return load_callable(NUMPY_ADAM + ":adam")


DIAGNOSIS_ROWS = [  # (optimizer, implementation, best-matching formula, bit-identical to it, passes budgets)
    ("adam", _numpy_adam(), "paper epsilon", True, False),
    ("adam", impls.tf_adam, "tf", True, True),
    ("rmsprop", impls.torch_rmsprop, "rms starts at zero, epsilon outside sqrt", False, False),
    ("adagrad", impls.torch_adagrad, "initial accumulator 0, epsilon 1e-10 outside sqrt", True, False),
    ("momentum", impls.keras_momentum, "velocity form", True, True),
]


@pytest.mark.parametrize("optimizer,fn,best,exact,ok", DIAGNOSIS_ROWS, ids=[r[2] for r in DIAGNOSIS_ROWS])
def test_diagnosis_names_the_variant(optimizer, fn, best, exact, ok):
    g = generate(optimizer, steps=4)
    actual = run_impl(g, fn)
    report = compare(g, actual)
    assert report.ok is ok
    d = diagnose(g, actual)
    assert d.best.formula == best, d.format()
    assert (d.best.score == 0.0) is exact, d.format()
    if not exact:  # near, but another rounding order: far closer than TF's own form
        tf = next(r for r in d.ranking if r.name == "tf")
        assert d.best.score < tf.score / 4 and d.best.max_ulp <= 4, d.format()
    assert f"best match: {best}" in d.format()


def test_diagnosis_of_a_kernel_golden_prefers_ref_for_ref():
    g = generate("Softmax")
    d = diagnose(g, {k: v for k, v in g.arrays.items() if ".out." in k})
    assert d.best.name == "tf" and d.best.score == 0.0


# -- CLI ---------------------------------------------------------------------------------------

def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "ref", *args], cwd=cwd, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.fixture(scope="module")
def adam_golden(tmp_path_factory):
    out = tmp_path_factory.mktemp("golden")
    r = _cli("golden", "adam", "--steps", "3", "--seed", "1", "--out", str(out), cwd=out)
    assert r.returncode == 0, r.stderr
    return out / "adam_steps3_float32_seed1.json"


def test_cli_check_paper_epsilon_adam_fails_with_diagnosis(adam_golden):
    r = _cli("check", str(adam_golden), "--impl", NUMPY_ADAM + ":adam", cwd=adam_golden.parent)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAILED" in r.stdout and "first divergence" in r.stdout
    assert "best match: paper epsilon" in r.stdout


def test_cli_check_correct_impl_and_actual_npz_pass(adam_golden, tmp_path):
    r = _cli("check", str(adam_golden), "--impl", "tests.golden.impls:tf_adam", cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASSED" in r.stdout
    from ref.golden import load

    g = load(adam_golden)
    np.savez(tmp_path / "mine.npz", **run_impl(g, impls.tf_adam))
    assert _cli("check", str(adam_golden), "--actual", str(tmp_path / "mine.npz"), cwd=tmp_path).returncode == 0
    np.savez(tmp_path / "bad.npz", **run_impl(g, _numpy_adam()))
    assert _cli("check", str(adam_golden), "--actual", str(tmp_path / "bad.npz"), cwd=tmp_path).returncode == 1


CLI_ERROR_ROWS = [
    ("golden", "NoSuchOp"),
    ("golden", "Reshape"),           # no automatic inputs
    ("check", "missing.json", "--actual", "x.npz"),
]


@pytest.mark.parametrize("args", CLI_ERROR_ROWS)
def test_cli_usage_errors_exit_2(args, tmp_path):
    extra = ("--out", str(tmp_path)) if args[0] == "golden" else ()
    assert _cli(*args, *extra, cwd=tmp_path).returncode == 2


def test_cli_schedule_and_clip_are_recorded(tmp_path):
    r = _cli("golden", "momentum", "--steps", "3", "--schedule", "exponential_decay:decay_steps=1,decay_rate=0.5",
             "--clip-norm", "0.5", "--out", str(tmp_path), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    from ref.golden import load

    g = load(tmp_path / "momentum_exponential_decay-decay_rate0.5-decay_steps1_clip_norm0.5_steps3_float32_seed0.json")
    assert g.manifest["loop"]["clip"]["clip_norm"] == 0.5
    np.testing.assert_allclose(g.arrays["c0.lr"], [0.01, 0.005, 0.0025], rtol=1e-6)
    norms = np.sqrt((g.arrays["c0.grad"].astype(np.float64) ** 2).sum(axis=1))
    assert (norms <= 0.5 * (1 + 1e-6)).all()


# -- ref.testing --------------------------------------------------------------------------------

ASSERT_ROWS = [  # (fn, name, passes)
    (impls.tf_adam, "adam", True),
    (_numpy_adam(), "adam", False),
    (impls.tf_apply_adam, "ApplyAdam", True),
    (impls.paper_apply_adam, "ApplyAdam", False),
]


@pytest.mark.parametrize("fn,name,passes", ASSERT_ROWS)
def test_assert_matches(fn, name, passes):
    if passes:
        assert ref.testing.assert_matches(fn, name, steps=3 if name == "adam" else None).ok
        return
    with pytest.raises(AssertionError) as e:
        ref.testing.assert_matches(fn, name, steps=3 if name == "adam" else None)
    assert "first divergence" in str(e.value) and "diagnosis" in str(e.value)
    if name == "adam":
        assert "best match: paper epsilon" in str(e.value)


def test_max_ulp_replaces_the_budget():
    fn = _numpy_adam()
    with pytest.raises(AssertionError):
        ref.testing.assert_matches(fn, "adam", steps=2)
    assert ref.testing.assert_matches(fn, "adam", steps=2, max_ulp=10 ** 6).ok


hypothesis = pytest.importorskip("hypothesis")


@hypothesis.settings(max_examples=25, deadline=None)
@hypothesis.given(ref.testing.strategies.kernel_inputs("ApplyAdam", dtype=np.float32))
def test_strategy_property_tf_form_adam_kernel(kwargs):
    ref.testing.assert_kernel_matches(impls.tf_apply_adam, "ApplyAdam", kwargs)


STRATEGY_ROWS = ["SparseApplyFtrl", "ApplyCenteredRMSProp", "SparseApplyAdagradDA", "Softmax", "Sum", "adam"]


@pytest.mark.parametrize("name", STRATEGY_ROWS)
def test_strategies_draw_inputs_ref_accepts(name):
    import ref.raw_ops as raw
    from ref.golden import trajectory

    @hypothesis.settings(max_examples=10, deadline=None)
    @hypothesis.given(ref.testing.strategies.kernel_inputs(name, dtype=np.float64))
    def check(kw):
        if trajectory.lookup(name):
            assert kw["grads"].shape[1:] == kw["var"].shape and kw["var"].dtype == np.float64
            return
        out = getattr(raw, name)(**kw)
        for a in (out if isinstance(out, tuple) else (out,)):
            assert np.asarray(a).dtype == np.float64
        if "indices" in kw:
            assert ((0 <= kw["indices"]) & (kw["indices"] < kw["var"].shape[0])).all()

    check()
