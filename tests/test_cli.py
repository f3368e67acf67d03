"""``python -m ref ...``: every user mistake is one line on stderr starting with
``error:``, no traceback, and a non-zero exit status (2 for usage errors)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ref as tf


def run_cli(*args, cwd=None):
    env = dict(os.environ)
    env.pop("REF_TRACEBACK", None)
    return subprocess.run([sys.executable, "-m", "ref", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


@pytest.fixture(scope="module")
def checkpoint_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("ckpt")
    with tf.Graph().as_default():
        v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(v.initializer)
            saver.save(s, str(d / "model"))
    return d


def _mistakes(tmp, ckpt):
    not_npz = tmp / "not.npz"
    not_npz.write_text("hello")
    blocker = tmp / "a_file"
    blocker.write_text("x")
    golden = tmp / "g"
    return [
        # (argv, exit status, words the one line must contain)
        (["nosuch"], 2, ["unknown command", "nosuch"]),
        (["golden", "adam", "--dtype", "float8"], 2, ["float8", "float32"]),
        (["golden", "adam", "--hyper", "learning_rat=0.5"], 2, ["learning_rat", "learning_rate"]),
        (["golden", "ApplyAdam", "--attr", "use_nesterv=true"], 2, ["use_nesterv", "use_nesterov"]),
        (["golden", "ApplyAdam", "--hyper", "lr=1"], 2, ["--hyper"]),
        (["golden", "NoSuchOp"], 2, ["NoSuchOp"]),
        (["golden", "ApplyAdam", "--out", blocker / "sub"], 1, ["--out"]),
        (["check", tmp / "missing.json", "--actual", not_npz], 2, ["missing.json"]),
        (["check", golden, "--actual", tmp / "missing.npz"], 2, ["--actual", "missing.npz"]),
        (["check", golden, "--actual", not_npz], 2, ["--actual", "not.npz"]),
        (["check", golden, "--impl", "no_such_module_xyz:f"], 2, ["--impl"]),
        (["inspect-checkpoint", ckpt, "--count_exclude_pattern", "(["], 2, ["regular expression"]),
        (["inspect-checkpoint", tmp / "nothing_here"], 1, ["nothing_here"]),
        (["events", tmp / "no_such_dir"], 2, ["no_such_dir"]),
        (["demo", "--steps", "0"], 2, ["--steps"]),
        (["demo", "--steps", "-5"], 2, ["--steps"]),
        (["demo", "--optimizer", "sgd"], 2, ["sgd"]),
        (["demo", "--steps", "2", "--logdir", blocker / "logs"], 1, ["--logdir"]),
    ]


def test_user_mistakes_are_one_line(tmp_path, checkpoint_dir):
    assert run_cli("golden", "ApplyAdam", "--out", tmp_path).returncode == 0
    (tmp_path / "ApplyAdam_float32_seed0.json").rename(tmp_path / "g.json")
    (tmp_path / "ApplyAdam_float32_seed0.npz").rename(tmp_path / "g.npz")
    failures = []
    for argv, status, words in _mistakes(tmp_path, checkpoint_dir):
        p = run_cli(*argv)
        lines = p.stderr.strip().splitlines()
        ok = (p.returncode == status and len(lines) == 1 and lines[0].startswith("error: ")
              and "Traceback" not in p.stderr + p.stdout and all(str(w) in lines[0] for w in words))
        if not ok:
            failures.append((argv, p.returncode, p.stderr))
    assert not failures, failures


def test_help_has_no_restructured_text():
    for cmd in ("demo", "events", "inspect-checkpoint", "golden", "check", "server", "cluster", "warmup"):
        p = run_cli(cmd, "--help")
        assert p.returncode == 0 and "``" not in p.stdout, (cmd, p.stdout)


def test_events_reads_subdirectories_and_names_dtypes(tmp_path):
    for run, value in (("train", 1.5), ("eval", 2.5)):
        with tf.Graph().as_default():
            w = tf.summary.FileWriter(str(tmp_path / run))
            w.add_summary(tf.Session().run(tf.summary.scalar("loss", tf.constant(value))), 1)
            w.add_summary(tf.Session().run(tf.summary.text("note", tf.constant("hi"))), 2)
            w.close()
    p = run_cli("events", tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("== ") == 2 and "simple_value=1.5" in p.stdout and "simple_value=2.5" in p.stdout
    assert "dtype=string" in p.stdout


def test_events_reports_damage_once(tmp_path):
    with tf.Graph().as_default():
        w = tf.summary.FileWriter(str(tmp_path))
        for step in range(3):
            w.add_summary(tf.Session().run(tf.summary.scalar("loss", tf.constant(float(step)))), step)
        w.close()
    path = next(tmp_path.glob("events.out.tfevents.*"))
    data = path.read_bytes()
    path.write_bytes(data[:-7])
    p = run_cli("events", path)
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("error: ") and "DataLoss" not in p.stdout
    assert p.stdout.count("simple_value") == 2  # everything before the torn record


def test_demo_keeps_optimizers_apart(tmp_path):
    p = run_cli("demo", "--steps", "3", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    p = run_cli("demo", "--steps", "3", "--optimizer", "adam", cwd=tmp_path)
    assert p.returncode == 0 and "resumed" not in p.stdout, p.stderr
    assert (tmp_path / "runs/demo/momentum").is_dir() and (tmp_path / "runs/demo/adam").is_dir()
    # an explicit logdir with another optimizer's checkpoint: one line, nothing overwritten
    before = sorted(os.listdir(tmp_path / "runs/demo/momentum"))
    p = run_cli("demo", "--steps", "3", "--optimizer", "adam", "--logdir", tmp_path / "runs/demo/momentum")
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "--optimizer adam" in p.stderr, p.stderr
    assert "beta1_power" in p.stderr and sorted(os.listdir(tmp_path / "runs/demo/momentum")) == before
    # no terminal: no progress bar
    assert "[#" not in p.stderr and "\r" not in run_cli("demo", "--steps", "2", cwd=tmp_path).stderr


def test_kernels_are_silent_on_inf_and_nan_arithmetic():
    """TF's kernels never warn; NumPy's RuntimeWarnings must not leak (raw ops and Session)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tf.raw_ops.Log(x=np.array([0.0, -1.0], np.float32))[0] == -np.inf
        assert np.isinf(tf.raw_ops.RealDiv(x=np.float32([1.0]), y=np.float32([0.0]))[0])
        with tf.Graph().as_default(), tf.Session() as s:
            x = tf.placeholder(tf.float32)
            out = s.run(tf.log(x) + tf.sqrt(x), {x: np.array([0.0, -1.0], np.float32)})
    assert out[0] == -np.inf and np.isnan(out[1])


def test_versions_name_the_tensorflow_they_follow():
    assert tf.VERSION == "2.21.0" and tf.__version__.endswith("+tf" + tf.VERSION)
    real = pytest.importorskip("tensorflow")
    assert real.__version__.split(".")[:2] == tf.VERSION.split(".")[:2]
