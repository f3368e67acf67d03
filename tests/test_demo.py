"""The main job: ``python -m ref demo`` trains, writes event files and
checkpoints that TensorFlow/TensorBoard read, and resumes when run again."""
import io
import os
import subprocess
import sys

import numpy as np
import pytest

from ref import demo


def test_demo_trains_and_resumes(tmp_path):
    logdir = str(tmp_path / "run")
    out = io.StringIO()
    first = demo.run(logdir, steps=400, optimizer="momentum", quiet=True, out=out)
    assert first["step"] == 400 and first["accuracy"] > 0.9, first
    assert first["checkpoint"].endswith("model.ckpt-400")
    assert f"tensorboard --logdir {logdir}" in out.getvalue() and f"python -m ref events {logdir}" in out.getvalue()
    second = demo.run(logdir, steps=40, optimizer="momentum", quiet=True, out=out)
    assert "resumed from" in out.getvalue()
    assert second["step"] == 440 and second["checkpoint"].endswith("model.ckpt-440")


@pytest.mark.parametrize("optimizer", sorted(demo.OPTIMIZERS))
def test_every_demo_optimizer_learns(tmp_path, optimizer):
    result = demo.run(str(tmp_path), steps=300, optimizer=optimizer, quiet=True, out=io.StringIO())
    assert result["loss"] < 1.0, result  # chance level is log(3) = 1.10


def test_demo_files_open_in_tensorflow_and_tensorboard(tmp_path):
    tf = pytest.importorskip("tensorflow")
    logdir = str(tmp_path)
    demo.run(logdir, steps=60, quiet=True, out=io.StringIO())
    reader = tf.train.load_checkpoint(logdir)
    names = reader.get_variable_to_shape_map()
    assert names["layer1/weights"] == [2, 64] and "global_step" in names
    assert "layer1/weights/Momentum" in names and "layer1/weights/ExponentialMovingAverage" in names
    ea_mod = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    acc = ea_mod.EventAccumulator(logdir, size_guidance={"scalars": 0, "histograms": 0})
    acc.Reload()
    tags = acc.Tags()
    assert {"loss", "learning_rate", "gradient_norm", "accuracy"} <= set(tags["scalars"])
    assert "layer1_weights" in tags["histograms"] and tags["graph"]
    steps = [e.step for e in acc.Scalars("loss")]
    assert steps == sorted(steps) and steps[-1] == 60
    lr = [e.value for e in acc.Scalars("learning_rate")]
    np.testing.assert_allclose(lr, [0.7 ** (s / 200) for s in steps], rtol=1e-6)


def test_command_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ref", "demo", "--steps", "20", "--logdir", str(tmp_path),
                           "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "accuracy" in proc.stdout and "tensorboard --logdir" in proc.stdout


def _weights(logdir):
    import ref as tf
    reader = tf.train.load_checkpoint(logdir)
    return {name: reader.get_tensor(name) for name in sorted(reader.get_variable_to_shape_map())}


@pytest.mark.parametrize("seed_args,printed", [([], "seed 0 "), (["--seed", "7"], "seed 7 ")])
def test_demo_is_reproducible_bit_for_bit(tmp_path, seed_args, printed):
    """Two runs with the same seed: the same output and the same bits in every
    checkpointed tensor; another seed: other batches, other weights."""
    outs, weights = [], []
    for run in ("a", "b"):
        proc = subprocess.run([sys.executable, "-m", "ref", "demo", "--steps", "25", "--quiet",
                               "--logdir", str(tmp_path / run), *seed_args],
                              capture_output=True, text=True, timeout=300,
                              env=dict(os.environ, REF_COMPILE_NOTICE_S="-1"))  # cold cache: no notice
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert proc.stdout.startswith(printed), proc.stdout
        outs.append(proc.stdout.replace(str(tmp_path / run), "LOGDIR"))
        weights.append(_weights(str(tmp_path / run)))
    assert outs[0] == outs[1]
    assert weights[0].keys() == weights[1].keys()
    for name in weights[0]:
        assert weights[0][name].tobytes() == weights[1][name].tobytes(), name
    other = demo.run(str(tmp_path / "c"), steps=25, quiet=True, out=io.StringIO(),
                     seed=1 if seed_args == [] else 0)
    assert other["seed"] != (7 if seed_args else 0)
    assert not np.array_equal(_weights(str(tmp_path / "c"))["layer1/weights"], weights[0]["layer1/weights"])
