"""``python -m ref ...``: every user mistake is one line on stderr starting with
``error:``, no traceback, and a non-zero exit status (2 for usage errors)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ref as tf


def run_cli(*args, cwd=None):
    env = dict(os.environ, REF_COMPILE_NOTICE_S="-1")  # a cold Numba cache must not add lines here
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
    wrong = tmp / "wrong_signature.py"
    wrong.write_text("def f(a):\n    return a\n")
    return [
        # (argv, exit status, words the one line must contain)
        (["nosuch"], 2, ["unknown command", "nosuch"]),
        ([], 2, ["no command", "demo", "--help"]),
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
        (["check", golden, "--impl", f"{wrong}:f"], 2, ["--impl", "f(a)", "kernel protocol"]),
        (["check", golden, "--impl", f"{wrong}:f", "--plot", tmp / "p.pdf"], 2, ["--plot", ".png", ".svg"]),
        (["golden", "adam", "--schedule", "no_such_decay"], 2, ["no_such_decay", "exponential_decay"]),
        (["golden", "adam", "--steps", "x"], 2, ["--steps"]),
        (["demo", "--seed", "x"], 2, ["--seed"]),
        (["demo", "--seed", "-1"], 2, ["--seed"]),
        (["--versio"], 2, ["unknown command", "--versio"]),
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


HELP_COMMANDS = [[], ["demo"], ["events"], ["inspect-checkpoint"], ["golden"], ["check"], ["server"], ["cluster"],
                 ["cluster", "run"], ["cluster", "status"], ["warmup"]]


def _undocumented(text):
    """The options and arguments of an argparse ``--help`` that have no help text."""
    lines, bad, section = text.splitlines(), [], False
    for i, line in enumerate(lines):
        if re.match(r"^\S.*:$", line):
            section = line.rstrip(":").endswith(("options", "arguments", "commands"))
            continue
        m = re.match(r"^  (\S.*?)(\s{2,}(\S.*))?$", line) if section else None
        if m and m.group(3) is None and not re.match(r"^ {4,}\S", lines[i + 1] if i + 1 < len(lines) else ""):
            bad.append(m.group(1))
    return bad


@pytest.mark.parametrize("cmd", HELP_COMMANDS, ids=lambda c: " ".join(c) or "ref")
def test_help_documents_every_option_without_markup(cmd):
    p = run_cli(*cmd, "--help")
    assert p.returncode == 0 and p.stderr == "", p.stderr
    assert "``" not in p.stdout and ":func:" not in p.stdout and ":mod:" not in p.stdout, p.stdout
    assert not _undocumented(p.stdout), (cmd, _undocumented(p.stdout))
    if not cmd:
        assert all(name in p.stdout for name in ("demo", "golden", "check", "--version"))


def test_version():
    p = run_cli("--version")
    assert p.returncode == 0 and p.stderr == ""
    assert p.stdout.strip() == f"ref-tf1 {tf.__version__} (import ref; TensorFlow {tf.VERSION}'s 1.x API)"


@pytest.mark.parametrize("argv", [["--help"], ["golden", "--help"], ["golden", "Softmax", "--out", "{tmp}"],
                                  ["check", "{tmp}/Softmax_float32_seed0.json", "--actual", "{tmp}/x.npz"]])
def test_output_into_a_closed_pipe_ends_quietly(tmp_path, argv):
    """``python -m ref ... | head``: the reader leaves early; no BrokenPipeError."""
    if argv[0] == "check":
        assert run_cli("golden", "Softmax", "--out", tmp_path).returncode == 0
        g = np.load(tmp_path / "Softmax_float32_seed0.npz")
        np.savez(tmp_path / "x.npz", **{k: g[k] for k in g.files if ".out." in k})
    proc = subprocess.Popen([sys.executable, "-m", "ref", *(a.replace("{tmp}", str(tmp_path)) for a in argv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, REF_COMPILE_NOTICE_S="-1"))
    proc.stdout.close()  # before the command writes a byte
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0 and err == "", err


def test_missing_grpcio_is_one_line_naming_the_extra():
    """Without grpcio: one line, the distribution's extra, no task started, no retry."""
    code = ("import sys; sys.modules['grpc'] = None\n"
            "from ref.__main__ import main\n"
            "sys.exit(main(['cluster', 'run', '--ps', '1', '--workers', '1', '--', sys.executable, '-c', 'print(1)']))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 1 and p.stdout == "", p.stdout
    assert p.stderr.splitlines() == ["error: python -m ref cluster needs grpcio: pip install 'ref-tf1[distributed]'"]


def test_golden_names_what_distinguishes_it_and_refuses_to_overwrite(tmp_path):
    runs = [(["adam"], "adam_float32_seed0"),
            (["nesterov"], "momentum_use_nesterov_float32_seed0"),
            (["momentum"], "momentum_float32_seed0"),
            (["adam", "--hyper", "epsilon=1e-3"], "adam_epsilon0.001_float32_seed0"),
            (["adam", "--hyper", "learning_rate=0.001"], "adam_float32_seed0"),  # the default: same golden
            (["adam", "--schedule", "exponential_decay:decay_steps=5,decay_rate=0.5", "--clip-norm", "1.0"],
             "adam_exponential_decay-decay_rate0.5-decay_steps5_clip_norm1.0_float32_seed0"),
            (["adam", "--steps", "3", "--seed", "2", "--dtype", "float64"], "adam_steps3_float64_seed2"),
            (["adam", "--flush-denormals"], "adam_float32_seed0_ftz"),
            (["ApplyAdam", "--attr", "use_nesterov=true"], "ApplyAdam_use_nesterov_float32_seed0")]
    for argv, stem in runs:
        p = run_cli("golden", *argv, "--out", tmp_path)
        assert p.returncode == 0 and f"wrote {tmp_path / stem}.npz and {tmp_path / stem}.json" in p.stdout, (
            argv, p.stdout, p.stderr)
    names = sorted(f.name for f in tmp_path.glob("*.json"))
    assert names == sorted({stem + ".json" for _, stem in runs})
    from ref.golden import load  # a stem with dots, given without its extension, names its files
    assert load(tmp_path / "adam_epsilon0.001_float32_seed0").manifest["hyper_defaults"]["epsilon"] == 1e-3
    # a different golden under an existing name: refused (one line), kept, then --force
    target = tmp_path / "adam_float32_seed0.json"
    (tmp_path / "adam_epsilon0.001_float32_seed0.json").replace(target)
    before = target.read_bytes()
    p = run_cli("golden", "adam", "--out", tmp_path)
    assert p.returncode == 1 and p.stderr.count("\n") == 1 and "--force" in p.stderr and "Traceback" not in p.stderr
    assert target.read_bytes() == before
    assert run_cli("golden", "adam", "--out", tmp_path, "--force").returncode == 0
    assert target.read_bytes() != before


@pytest.mark.parametrize("ext,magic", [("png", b"\x89PNG"), ("svg", b"<?xml")])
def test_check_plot(tmp_path, ext, magic):
    pytest.importorskip("matplotlib")
    assert run_cli("golden", "adam", "--steps", "4", "--out", tmp_path).returncode == 0
    root = Path(__file__).resolve().parents[1]
    out = tmp_path / f"errors.{ext}"
    p = run_cli("check", tmp_path / "adam_steps4_float32_seed0.json", "--impl",
                root / "examples" / "numpy_adam.py:adam", "--plot", out)
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr  # over budget: the paper's epsilon
    assert f"plot: {out}" in p.stdout and out.read_bytes().startswith(magic)
    if ext == "svg":
        text = out.read_text()
        assert "budget" in text and "first divergence: case" in text and "leaves its budget at step" in text


def test_plot_series_marks_budget_and_first_divergence():
    """The numbers drawn: per case and output, scaled ULPs per step, the budget, the first over-budget step."""
    from ref import golden
    from ref.golden import plot
    g = golden.generate("adam", steps=4)
    actual = {k: np.array(v) for k, v in g.arrays.items() if ".out." in k}
    actual["c1.out.var"][2:] += np.float32(1e-3)  # case 1 leaves its budget at step 3
    series = plot.series(golden.compare(g, actual))
    assert [index for index, _, _ in series] == [c["index"] for c in g.cases]
    lines = {name: rest for name, *rest in series[1][2]}
    steps, scaled, budgets, first = lines["var"]
    assert steps == [1, 2, 3, 4] and first == 3 and scaled[:2] == [0.0, 0.0] and scaled[2] > budgets[2]
    assert budgets == [budgets[0] * t for t in steps]
    assert all(rest[3] is None for _, *rest in series[0][2])


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


ADAM_STEP = ("import numpy as np, ref\n"
             "z = np.zeros(3, np.float32)\n"
             "print(ref.raw_ops.ApplyAdam(var=z + 1, m=z, v=z, beta1_power=0.9, beta2_power=0.999, lr=0.1, beta1=0.9,"
             " beta2=0.999, epsilon=1e-8, grad=z + 1)[0])")


@pytest.mark.parametrize("cache,threshold,expect", [
    ("cold", "0", "notice"),      # a compilation longer than the threshold: one line, once per kernel
    ("warm", "0", "quiet"),       # loaded from Numba's cache: no compilation, no word
    ("cold", "1000", "quiet"),    # a compilation shorter than the threshold: no word
])
def test_compile_notice(tmp_path_factory, cache, threshold, expect):
    cache_dir = tmp_path_factory.getbasetemp() / f"numba_cache_{threshold}"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache_dir), REF_NUMPY_MAX="0", REF_COMPILE_NOTICE_S=threshold)
    runs = 2 if cache == "warm" else 1
    if cache == "cold":
        import shutil
        shutil.rmtree(cache_dir, ignore_errors=True)
    for _ in range(runs):
        p = subprocess.run([sys.executable, "-c", ADAM_STEP], capture_output=True, text=True, timeout=300, env=env)
        assert p.returncode == 0 and p.stdout.strip() == "[0.90000004 0.90000004 0.90000004]", p.stderr
    lines = p.stderr.splitlines()
    if expect == "quiet":
        assert lines == []
    else:
        assert lines and len(set(lines)) == len(lines), lines
        assert all(re.fullmatch(r"compiling kernels for ref\.ops\.[\w.]+, first run only", x) for x in lines), lines
        assert "compiling kernels for ref.ops.training.adam._adam_loop, first run only" in lines
