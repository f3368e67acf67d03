"""``tf.flags`` / ``tf.app``: absl's flag interface (checked against absl, which
TensorFlow's ``tf.compat.v1.flags`` is, when installed) and ``tf.app.run``'s
argv handling, help and exit codes in subprocesses."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ref as tf
from ref.platform import flags as _under_test  # noqa: F401  (the module these tests cover)

ROOT = Path(__file__).resolve().parents[2]


def _define(flags, fv):
    flags.DEFINE_string("s", "d", "a string", flag_values=fv)
    flags.DEFINE_integer("i", 3, "an int", lower_bound=0, flag_values=fv)
    flags.DEFINE_float("f", 0.5, "a float", flag_values=fv)
    flags.DEFINE_boolean("b", False, "a bool", flag_values=fv)
    flags.DEFINE_bool("t", True, "another bool", flag_values=fv)
    flags.DEFINE_list("l", "a, b", "a list", flag_values=fv)
    flags.DEFINE_enum("e", "x", ["x", "y"], "an enum", flag_values=fv)
    flags.DEFINE_multi_string("m", None, "repeated", flag_values=fv)
    flags.DEFINE_multi_integer("mi", [1], "repeated ints", flag_values=fv)


ARGVS = [
    ["p"],
    ["p", "--s=hello", "--i", "7", "--f=-1.5", "--b", "--not", "pos"],
    ["p", "-s", "x y", "--l=", "--e=y", "--m", "a", "--m=b", "--mi=4", "--mi", "5"],
    ["p", "--b=false", "--t=1", "--l=p,q , r", "--", "--i=9"],
    ["p", "--unknown=3", "--i=1"],
    ["p", "--i=abc"],
    ["p", "--i=-1"],
    ["p", "--e=z"],
    ["p", "--b=maybe"],
    ["p", "--i"],
    ["p", "--zz"],
]


def _parse(flags, argv, known_only):
    fv = flags.FlagValues()
    _define(flags, fv)
    try:
        rest = fv(argv, known_only=known_only)
    except flags.Error as e:
        return type(e).__name__, str(e)
    return rest, fv.flag_values_dict(), {n: fv[n].present for n in fv}


@pytest.mark.parametrize("known_only", [False, True])
@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_parsing_matches_absl(argv, known_only):
    absl_flags = pytest.importorskip("absl.flags")
    assert _parse(tf.flags, argv, known_only) == _parse(absl_flags, argv, known_only)


def test_defaults_and_flag_objects():
    fv = tf.flags.FlagValues()
    _define(tf.flags, fv)
    fv(["p"])
    assert (fv.s, fv.i, fv.f, fv.b, fv.t, fv.l, fv.e, fv.m, fv.mi) == ("d", 3, 0.5, False, True, ["a", "b"], "x",
                                                                     None, [1])
    flag = fv["s"]
    assert (flag.name, flag.default, flag.help, flag.value, flag.present) == ("s", "d", "a string", "d", 0)
    assert sorted(fv) == sorted(dir(fv)) and len(fv) == 9 and "s" in fv


@pytest.mark.parametrize("old", [True, False])
def test_tf1_keyword_names_are_accepted(old):
    fv = tf.flags.FlagValues()
    kw = dict(flag_name="k", default_value="v", docstring="doc") if old else dict(name="k", default="v", help="doc")
    tf.flags.DEFINE_string(flag_values=fv, **kw)
    assert (fv["k"].default, fv["k"].help) == ("v", "doc")


def test_unparsed_access_raises_and_setattr_sets():
    fv = tf.flags.FlagValues()
    tf.flags.DEFINE_string("s", "d", "h", flag_values=fv)
    with pytest.raises(tf.flags.UnparsedFlagAccessError, match="Trying to access flag --s before flags were parsed"):
        fv.s
    with pytest.raises(tf.flags.UnrecognizedFlagError):
        fv.nope = 1
    fv(["p"])
    fv.s = "new"
    assert fv.s == "new" and not fv["s"].using_default_value
    with pytest.raises(AttributeError):
        fv.nope
    del fv.s
    assert "s" not in fv


def test_global_flags_parse_sys_argv_on_first_read(monkeypatch):
    fv = tf.flags.FLAGS
    tf.flags.DEFINE_string("ref_test_auto", "default", "h")
    try:
        fv.unparse_flags()
        monkeypatch.setattr(sys, "argv", ["prog", "--ref_test_auto=new"])
        assert fv.ref_test_auto == "new" and fv.is_parsed()
    finally:
        delattr(fv, "ref_test_auto")
        fv.unparse_flags()


def test_redefinition_from_another_module_raises():
    fv = tf.flags.FlagValues()
    tf.flags.DEFINE_string("dup", "a", "h", flag_values=fv)
    tf.flags.DEFINE_string("dup", "b", "h", flag_values=fv)  # same module: a re-import, ignored
    assert fv["dup"].default == "a"
    with pytest.raises(tf.flags.DuplicateFlagError, match="The flag 'dup' is defined twice"):
        exec("flags.DEFINE_string('dup', 'c', 'h', flag_values=fv)", {"__name__": "other", "flags": tf.flags,
                                                                      "fv": fv})


def test_required_flags_and_validators():
    fv = tf.flags.FlagValues()
    tf.flags.DEFINE_string("r", None, "h", flag_values=fv)
    tf.flags.DEFINE_integer("n", 1, "h", flag_values=fv)
    tf.flags.mark_flag_as_required("r", flag_values=fv)
    tf.flags.register_validator("n", lambda v: v % 2 == 1, "n must be odd", flag_values=fv)
    with pytest.raises(tf.flags.IllegalFlagValueError, match="Flag --r must have a value other than None"):
        fv(["p"])
    with pytest.raises(tf.flags.IllegalFlagValueError, match="flag --n=2: n must be odd"):
        fv(["p", "--r=x", "--n=2"])
    assert fv(["p", "--r=x", "--n=3"]) == ["p"]


_APP = '''"""A TF1 script's docstring."""
import sys
{imp}
flags = tf.app.flags
FLAGS = flags.FLAGS
flags.DEFINE_boolean("myflag", False, "a flag")
flags.DEFINE_integer("steps", 10, "how many steps")


def main(argv):
    print("argv", argv[1:], "myflag", FLAGS.myflag, "steps", FLAGS.steps)
    return int(FLAGS.steps == 99)


if __name__ == "__main__":
    tf.app.run()
'''


def _app(tmp_path, imp, args):
    script = tmp_path / "script.py"
    script.write_text(_APP.format(imp=imp))
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([sys.executable, str(script), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    return out.returncode, out.stdout, out.stderr


APP_CASES = [
    ([], 0, "argv [] myflag False steps 10"),
    (["--myflag", "--passthrough", "extra"], 0, "argv ['--passthrough', 'extra'] myflag True steps 10"),
    (["--steps=99", "x"], 1, "argv ['x'] myflag False steps 99"),
    (["--steps", "7", "--nomyflag"], 0, "argv [] myflag False steps 7"),
]


@pytest.mark.parametrize("args,rc,line", APP_CASES)
def test_app_run_passes_unparsed_argv_to_main_and_exits_with_its_value(tmp_path, args, rc, line):
    code, stdout, _ = _app(tmp_path, "import ref as tf", args)
    assert (code, stdout.strip()) == (rc, line)


def _error_line(stderr):
    return stderr.strip().splitlines()[-1].split(": ", 1)[1]


def test_app_run_flag_error_raises_out_of_run(tmp_path):
    code, stdout, stderr = _app(tmp_path, "import ref as tf", ["--steps=abc"])
    assert code == 1 and stdout == ""
    assert _error_line(stderr) == "flag --steps=abc: invalid literal for int() with base 10: 'abc'"


def test_app_run_help_prints_docstring_and_flags(tmp_path):
    code, stdout, _ = _app(tmp_path, "import ref as tf", ["--help"])
    script = tmp_path / "script.py"
    assert code == 1  # absl (so TF) exits 1 after printing help
    assert stdout == (f"A TF1 script's docstring.\nflags:\n\n{script}:\n"
                      "  --[no]myflag: a flag\n    (default: 'false')\n"
                      "  --steps: how many steps\n    (default: '10')\n    (an integer)\n\n"
                      "Try --helpfull to get a list of all flags.\n")


@pytest.mark.parametrize("args", [a for a, _, _ in APP_CASES] + [["--steps=abc"], ["--help"]])
def test_app_run_matches_tensorflow(tmp_path, args):
    pytest.importorskip("tensorflow")
    ours = _app(tmp_path, "import ref as tf", args)
    theirs = _app(tmp_path, "import tensorflow.compat.v1 as tf", args)
    assert ours[:2] == theirs[:2]
    if ours[0] == 1 and not ours[1]:
        assert _error_line(ours[2]) == _error_line(theirs[2])


@pytest.mark.parametrize("argv", [["p"], ["p", "-n", "x", "-v"], ["p", "--name=y", "--noverbose"]])
def test_short_names_and_required_match_absl(argv):
    def parse(flags):
        fv = flags.FlagValues()
        flags.DEFINE_string("name", None, "h", short_name="n", required=True, flag_values=fv)
        flags.DEFINE_bool("verbose", False, "h", short_name="v", flag_values=fv)
        try:
            return fv(argv), fv.flag_values_dict()
        except flags.Error as e:
            return type(e).__name__, str(e)
    ours = parse(tf.flags)
    assert ours[0] == "IllegalFlagValueError" if argv == ["p"] else ours[0] == ["p"]
    absl_flags = pytest.importorskip("absl.flags")
    assert ours == parse(absl_flags)
