"""``python -m ref warmup`` (ref/ops/warmup.py): its generic recipe builds valid
inputs for every registered training kernel, and a run compiles with the
small-input NumPy forms switched off (so the Numba builds land in the cache)."""
import os

import numpy as np
import pytest

from ref.ops import _jit, registry, warmup


def test_recipe_fits_every_training_op():
    ops = registry.registered()
    names = [n for n in ops if n.startswith(("Apply", "SparseApply")) and ops[n].kernel is not None]
    assert len(names) >= 20
    for name in names:
        kwargs = warmup._training_inputs(ops[name], np.float32, 8)
        assert set(kwargs) == set(ops[name].inputs), name
        if "indices" in kwargs:
            assert kwargs["grad"].shape[0] == kwargs["indices"].shape[0], name


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compiles with Numba")
def test_run_compiles_with_numpy_forms_off(monkeypatch):
    from ref.ops.training import gradient_descent

    op = registry.get("ApplyGradientDescent")
    monkeypatch.setattr(warmup, "_jobs", lambda size, everything=False: iter([
        ("ApplyGradientDescent float64", "ApplyGradientDescent",
         lambda: registry.call("ApplyGradientDescent", **warmup._training_inputs(op, np.float64, size)))]))
    lines = []

    class Out:
        def write(self, text):
            lines.append(text)

    saved = _jit.NUMPY_MAX
    assert warmup.run(out=Out()) == (1, 0)
    assert gradient_descent._gradient_descent_loop.serial._dispatcher is not None
    assert _jit.NUMPY_MAX == saved  # restored
    assert any("ApplyGradientDescent float64" in t for t in lines)


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compiles with Numba")
def test_the_fused_kernels_are_warmed_up(monkeypatch):
    from ref.ops import fused

    jobs = {label: job for label, _, job in warmup._jobs(8)}
    names = ["BiasAdd+Relu float32 (ref.ops.fused)", "ReluGrad+BiasAddGrad float32 (ref.ops.fused)",
             "LSTM cell float32 (ref.ops.fused)", "LSTM cell gradient float32 (ref.ops.fused)"]
    assert set(names) <= set(jobs)
    monkeypatch.setattr(_jit, "NUMPY_MAX", 0)
    for name in names:
        jobs[name]()
    assert fused._bias_relu_rows._dispatcher is not None
    assert fused._relu_bias_grad_rows._dispatcher is not None
    from ref.ops import eigen_math  # the float32 cell's sigmoids and tanhs: TF's Eigen functions

    assert eigen_math._sigmoid_loop._dispatcher is not None and eigen_math._tanh_loop._dispatcher is not None
    assert fused._lstm_grad_rows._dispatcher is not None


def test_default_jobs_cover_what_the_models_first_steps_compile():
    """The float32 kernels an empty cache compiled on bench/models.py's first steps
    (MLP, LeNet, VGG, LSTM, word2vec), each job in the process of the kernel it calls."""
    jobs = {label: group for label, group, _ in warmup._jobs(8)}
    assert all("float64" not in label for label in jobs)
    for label in ["MatMul float32 (ref.ops.gemm_llvm: micro-kernels of 1..12 rows)",
                  "Conv2D and its backprops float32 (ref.ops.conv)"]:
        assert jobs[label] == "gemm"  # the convolutions' products are the kernel's
    assert jobs["MaxPool, MaxPoolGrad float32 (ref.ops.pooling)"] == "pool"
    for name in warmup.COMMON_OPTIMIZERS:
        for variant in ("", " (in place, large)", " (new arrays, large: parallel)"):
            assert jobs[f"{name} float32{variant}"] == name
    every = {label for label, _, _ in warmup._jobs(8, everything=True)}
    assert "ApplyFtrl float64" in every and "SparseApplyAdagrad float32" in every
    assert warmup.groups()[0] == "gemm"
    assert sorted(warmup.groups()) == sorted(set(jobs.values()))


@pytest.mark.skipif(os.environ.get("REF_DISABLE_JIT") == "1", reason="compiles with Numba")
def test_conv_and_pool_jobs_build_their_loops(monkeypatch):
    from ref.ops import conv, pooling

    jobs = {label: job for label, _, job in warmup._jobs(8)}
    monkeypatch.setattr(_jit, "NUMPY_MAX", 0)
    jobs["Conv2D and its backprops float32 (ref.ops.conv)"]()
    jobs["MaxPool, MaxPoolGrad float32 (ref.ops.pooling)"]()
    for kernel in (conv._im2col_runs, conv._col2im, pooling._max_taps_loop, pooling._max_grad_loop):
        assert kernel._dispatcher is not None and kernel._dispatcher.signatures, kernel


def test_readme_set_up_command_warms_the_cache():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        first = next(line for line in f if line.startswith("pip install -e . "))
    assert "python -m ref warmup" in first.split("&&")[1]
