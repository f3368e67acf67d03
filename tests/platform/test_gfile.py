"""``tf.gfile`` / ``tf.io.gfile``: one table of file-system steps, each run on
a fresh directory and compared with TensorFlow's result (value or error class
and message) when TensorFlow is installed, and with the expected outcome
written here otherwise."""
from __future__ import annotations

import os

import pytest

import ref as tf
from ref.platform import gfile as _under_test  # noqa: F401  (the module these tests cover)


def _setup(g, d):
    g.MakeDirs(f"{d}/a/b")
    with g.GFile(f"{d}/a/f.txt", "w") as f:
        f.write("hello\nworld\n")
    with g.GFile(f"{d}/a/.hidden", "wb") as f:
        f.write(b"\x00\x01")


def _walk(g, d, **kw):
    return [(p[len(d):], sorted(s), sorted(f)) for p, s, f in g.Walk(d, **kw)]


# (case, step(g, io, d) -> value); errors are compared as (class name, message).
CASES = [
    ("exists", lambda g, io, d: (g.Exists(f"{d}/a"), g.Exists(f"{d}/nope"), io.exists(f"{d}/a/f.txt"))),
    ("isdir", lambda g, io, d: (g.IsDirectory(f"{d}/a"), g.IsDirectory(f"{d}/a/f.txt"), io.isdir(f"{d}/m"))),
    ("mkdir", lambda g, io, d: (g.MkDir(f"{d}/n"), g.IsDirectory(f"{d}/n"))),
    ("mkdir existing", lambda g, io, d: g.MkDir(f"{d}/a")),
    ("mkdir missing parent", lambda g, io, d: g.MkDir(f"{d}/x/y")),
    ("makedirs", lambda g, io, d: (g.MakeDirs(f"{d}/p/q/r"), io.makedirs(f"{d}/p/q/r"), g.IsDirectory(f"{d}/p/q/r"))),
    ("makedirs on file", lambda g, io, d: g.MakeDirs(f"{d}/a/f.txt")),
    ("makedirs under file", lambda g, io, d: io.makedirs(f"{d}/a/f.txt/z")),
    ("read text", lambda g, io, d: g.GFile(f"{d}/a/f.txt").read()),
    ("read bytes", lambda g, io, d: g.GFile(f"{d}/a/f.txt", "rb").read()),
    ("read n", lambda g, io, d: g.GFile(f"{d}/a/f.txt").read(3)),
    ("readline(s)", lambda g, io, d: (lambda f: (f.readline(), f.readlines(), f.readline()))(g.GFile(f"{d}/a/f.txt"))),
    ("iterate", lambda g, io, d: list(g.GFile(f"{d}/a/f.txt"))),
    ("size", lambda g, io, d: g.GFile(f"{d}/a/f.txt").size()),
    ("seek tell", lambda g, io, d: (lambda f: (f.read(2), f.tell(), f.seek(1), f.read(3), f.seek(-2, 2),
                                               f.read()))(g.GFile(f"{d}/a/f.txt"))),
    ("read missing", lambda g, io, d: g.GFile(f"{d}/missing").read()),
    ("bad mode", lambda g, io, d: g.GFile(f"{d}/a/f.txt", "z")),
    ("write missing dir", lambda g, io, d: g.GFile(f"{d}/nodir/f", "w").write("x")),
    ("write read-only", lambda g, io, d: g.GFile(f"{d}/a/f.txt").write("x")),
    ("read write-only", lambda g, io, d: g.GFile(f"{d}/a/new", "w").read()),
    ("append", lambda g, io, d: ([io.GFile(f"{d}/ap", "a").write(s) for s in ("x", b"y")],
                                 io.GFile(f"{d}/ap").read())),
    ("write bytes and str", lambda g, io, d: (io.GFile(f"{d}/w", "wb").write("é"), io.GFile(f"{d}/w", "rb").read())),
    ("fastgfile open", lambda g, io, d: (g.FastGFile(f"{d}/a/f.txt", "rb").read(), g.Open(f"{d}/a/f.txt").read())),
    ("listdir", lambda g, io, d: sorted(g.ListDirectory(f"{d}/a"))),
    ("listdir missing", lambda g, io, d: io.listdir(f"{d}/missing")),
    ("listdir file", lambda g, io, d: io.listdir(f"{d}/a/f.txt")),
    ("glob", lambda g, io, d: sorted(p[len(d):] for p in g.Glob(f"{d}/a/*"))),
    ("glob list", lambda g, io, d: sorted(p[len(d):] for p in io.glob([f"{d}/a/*.txt", f"{d}/a/b"]))),
    ("glob none", lambda g, io, d: io.glob(f"{d}/zz*")),
    ("copy", lambda g, io, d: (g.Copy(f"{d}/a/f.txt", f"{d}/a/g.txt"), g.GFile(f"{d}/a/g.txt").read())),
    ("copy onto existing", lambda g, io, d: (g.Copy(f"{d}/a/f.txt", f"{d}/a/g.txt"),
                                             g.Copy(f"{d}/a/f.txt", f"{d}/a/g.txt"))),
    ("copy overwrite", lambda g, io, d: (io.copy(f"{d}/a/.hidden", f"{d}/a/f.txt", overwrite=True),
                                         io.GFile(f"{d}/a/f.txt", "rb").read())),
    ("copy missing", lambda g, io, d: g.Copy(f"{d}/a/nn.txt", f"{d}/a/g2.txt")),
    ("rename", lambda g, io, d: (g.Rename(f"{d}/a/f.txt", f"{d}/a/h.txt"), g.Exists(f"{d}/a/f.txt"),
                                 g.Exists(f"{d}/a/h.txt"))),
    ("rename onto existing", lambda g, io, d: io.rename(f"{d}/a/f.txt", f"{d}/a/.hidden")),
    ("rename overwrite", lambda g, io, d: (io.rename(f"{d}/a/f.txt", f"{d}/a/.hidden", overwrite=True),
                                           io.GFile(f"{d}/a/.hidden").read())),
    ("rename missing", lambda g, io, d: g.Rename(f"{d}/a/q.txt", f"{d}/a/r.txt")),
    ("rename dir", lambda g, io, d: (g.Rename(f"{d}/a/b", f"{d}/a/bb"), sorted(io.listdir(f"{d}/a")))),
    ("remove", lambda g, io, d: (g.Remove(f"{d}/a/f.txt"), g.Exists(f"{d}/a/f.txt"))),
    ("remove missing", lambda g, io, d: io.remove(f"{d}/a/none")),
    ("remove dir", lambda g, io, d: g.Remove(f"{d}/a/b")),
    ("stat file", lambda g, io, d: (lambda s: (s.length, s.is_directory,
                                               s.mtime_nsec == int(os.stat(f"{d}/a/f.txt").st_mtime) * 10**9))(
        g.Stat(f"{d}/a/f.txt"))),
    ("stat dir", lambda g, io, d: io.stat(f"{d}/a").is_directory),
    ("stat missing", lambda g, io, d: io.stat(f"{d}/missing")),
    ("walk", lambda g, io, d: _walk(g, d)),
    ("walk bottom up", lambda g, io, d: _walk(g, d, in_order=False)),
    ("walk missing", lambda g, io, d: list(io.walk(f"{d}/missing"))),
    ("rmtree", lambda g, io, d: (g.DeleteRecursively(f"{d}/a"), g.Exists(f"{d}/a"))),
    ("rmtree file", lambda g, io, d: (io.rmtree(f"{d}/a/f.txt"), g.Exists(f"{d}/a/f.txt"))),
    ("rmtree missing", lambda g, io, d: io.rmtree(f"{d}/missing")),
    ("join", lambda g, io, d: io.join("a", "b", "c")),
]

EXPECTED = {  # outcomes written out for the cases that raise (TF's classes and messages)
    "mkdir missing parent": ("NotFoundError", "{d}/x/y; No such file or directory"),
    "makedirs on file": ("FailedPreconditionError", "{d}/a/f.txt is not a directory"),
    "makedirs under file": ("FailedPreconditionError", "{d}/a/f.txt is not a directory"),
    "read missing": ("NotFoundError", "{d}/missing; No such file or directory"),
    "bad mode": ("InvalidArgumentError", "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'"),
    "write missing dir": ("NotFoundError", "{d}/nodir/f; No such file or directory"),
    "write read-only": ("PermissionDeniedError", "File isn't open for writing"),
    "read write-only": ("PermissionDeniedError", "File isn't open for reading"),
    "listdir missing": ("NotFoundError", "Could not find directory {d}/missing"),
    "listdir file": ("NotFoundError", "Could not find directory {d}/a/f.txt"),
    "copy onto existing": ("AlreadyExistsError", "file already exists"),
    "copy missing": ("NotFoundError", "{d}/a/nn.txt; No such file or directory"),
    "rename onto existing": ("AlreadyExistsError", "file already exists"),
    "rename missing": ("NotFoundError", "{d}/a/q.txt; No such file or directory"),
    "remove missing": ("NotFoundError", "{d}/a/none; No such file or directory"),
    "remove dir": ("FailedPreconditionError", "{d}/a/b; Is a directory"),
    "stat missing": ("NotFoundError", "{d}/missing; No such file or directory"),
    "rmtree missing": ("NotFoundError", "{d}/missing not found"),
}


def _outcome(g, io, d, step, errors):
    _setup(g, d)
    try:
        return "ok", step(g, io, d)
    except errors.OpError as e:
        return type(e).__name__, e.message.replace(d, "{d}")


@pytest.mark.parametrize("case,step", CASES, ids=[c for c, _ in CASES])
def test_gfile_step(tmp_path, case, step):
    ours = _outcome(tf.gfile, tf.io.gfile, str(tmp_path / "ref"), step, tf.errors)
    if case in EXPECTED:
        assert ours == EXPECTED[case]
    else:
        assert ours[0] == "ok"
    t = pytest.importorskip("tensorflow").compat.v1
    assert ours == _outcome(t.gfile, t.io.gfile, str(tmp_path / "tf"), step, t.errors)


def test_write_creates_the_file_on_first_write_only(tmp_path):
    f = tf.gfile.GFile(str(tmp_path / "lazy"), "w")
    assert not os.path.exists(tmp_path / "lazy")
    f.write("x")
    f.close()
    assert (tmp_path / "lazy").read_text() == "x"


def test_namespaces_name_the_same_functions():
    assert tf.io.gfile.exists is tf.gfile.Exists and tf.io.gfile.rmtree is tf.gfile.DeleteRecursively
    assert tf.io.gfile.GFile is tf.gfile.GFile is tf.gfile.FastGFile


@pytest.mark.parametrize("fn,arg,expected", [
    ("as_bytes", "é", b"\xc3\xa9"), ("as_bytes", b"x", b"x"), ("as_bytes", bytearray(b"ab"), b"ab"),
    ("as_text", b"\xc3\xa9", "é"), ("as_text", "s", "s"), ("as_str", b"a", "a"),
    ("as_str_any", 3, "3"), ("as_str_any", b"b", "b"), ("path_to_str", __import__("pathlib").Path("/a/b"), "/a/b"),
    ("path_to_str", 5, 5),
])
def test_compat_strings(fn, arg, expected):
    assert getattr(tf.compat, fn)(arg) == expected
    t = pytest.importorskip("tensorflow").compat.v1
    assert getattr(t.compat, fn)(arg) == expected


@pytest.mark.parametrize("fn,arg", [("as_bytes", 3), ("as_text", 3), ("as_text", bytearray(b"ab"))])
def test_compat_strings_reject_other_types(fn, arg):
    with pytest.raises(TypeError, match="Expected binary or unicode string, got"):
        getattr(tf.compat, fn)(arg)


def _written(g, d, mode="r+"):
    f = g.GFile(f"{d}/t", mode)
    f.write("testing1\ntesting2\ntesting3\n\ntesting5")
    f.close()
    return f


# Steps on one file TF's file_io_test exercises: (case, step(f, g, d) -> value)
HANDLE_CASES = [
    ("tell", lambda f, g, d: [f.tell(), f.readline(), f.tell(), f.readline(), f.readline(), f.readline(), f.tell(),
                              f.readline(), f.tell(), f.readline(), f.tell()]),
    ("seek", lambda f, g, d: [f.readline(), f.seek(18), f.tell(), f.readline(), f.seek(9), f.readline(),
                              f.seek(position=9), f.tell()]),
    ("seek whence", lambda f, g, d: [f.readline(), f.seek(9, 1), f.tell(), f.seek(-f.size(), 2), f.tell()]),
    ("seek negative", lambda f, g, d: f.seek(-1)),
    ("seek bad whence", lambda f, g, d: f.seek(0, 3)),
    ("read -2", lambda f, g, d: f.read(-2)),
    ("read chunks", lambda f, g, d: [f.read(9), f.read(9), f.read(1), f.read()]),
    ("eof after flush", lambda f, g, d: (lambda h: (h.write("testing"), h.flush(), h.read(8)))(
        g.GFile(f"{d}/eof", "r+"))),
    ("w+ reads what was flushed", lambda f, g, d: (lambda h: (h.write("abc"), h.seek(0), h.read(), h.flush(),
                                                              h.seek(0), h.read()))(g.GFile(f"{d}/wp", "w+"))),
    ("r+ write truncates", lambda f, g, d: (lambda h: (h.write("xy"), h.close(), g.GFile(f"{d}/t").read()))(
        g.GFile(f"{d}/t", "r+"))),
    ("read a write-only file", lambda f, g, d: g.GFile(f"{d}/t", "w").read()),
]


@pytest.mark.parametrize("case,step", HANDLE_CASES, ids=[c for c, _ in HANDLE_CASES])
def test_file_handle_matches_tensorflow(tmp_path, case, step):
    def outcome(g, d, errors):
        os.makedirs(d)
        f = _written(g, d)
        try:
            return "ok", step(f, g, d)
        except errors.OpError as e:
            return type(e).__name__
        except TypeError:
            return "TypeError"
    ours = outcome(tf.gfile, str(tmp_path / "ref"), tf.errors)
    if case in ("seek negative", "seek bad whence", "read -2"):
        assert ours == "InvalidArgumentError"
    t = pytest.importorskip("tensorflow").compat.v1
    assert ours == outcome(t.gfile, str(tmp_path / "tf"), t.errors)


@pytest.mark.parametrize("call", [lambda f: f.seek(), lambda f: f.seek(offset=0, position=0)])
def test_seek_argument_errors(tmp_path, call):
    f = _written(tf.gfile, str(tmp_path))
    with pytest.raises(TypeError):
        call(f)
