"""``tf.gfile`` and ``tf.io.gfile``: file access with TensorFlow's errors.

Local files only (TF also routes ``gs://``, ``hdfs://``, ... to plug-ins).
Behaviour follows TF 2.21's ``tf.compat.v1.gfile`` / ``tf.io.gfile``:

* failures raise ``ref.errors`` classes with TF's messages: a missing path
  ``NotFoundError("<path>; No such file or directory")``, removing a directory
  ``FailedPreconditionError("<path>; Is a directory")``, renaming or copying
  onto an existing file without ``overwrite=True``
  ``AlreadyExistsError("file already exists")``;
* ``GFile`` opens lazily: a missing file fails on the first read, a file
  opened for writing appears on the first write; modes are ``r``, ``w``,
  ``a``, ``r+``, ``w+``, ``a+`` with an optional ``b``; text modes read
  ``str`` (UTF-8), binary modes ``bytes``; ``write`` takes either;
* ``MkDir`` on an existing directory is a no-op (TF 2.21), ``listdir`` and
  ``glob`` return the file system's order (not sorted), ``Stat().mtime_nsec``
  has whole-second resolution, ``Walk`` on a missing directory yields nothing.
"""
from __future__ import annotations

import errno
import glob as _glob
import os
import shutil

from ref.types import errors

__all__ = ["GFile", "FastGFile", "Open", "FileStatistics", "Exists", "Remove", "Rename", "Copy", "MkDir",
           "MakeDirs", "ListDirectory", "Glob", "IsDirectory", "Walk", "DeleteRecursively", "Stat",
           "exists", "remove", "rename", "copy", "mkdir", "makedirs", "listdir", "glob", "isdir", "walk",
           "rmtree", "stat", "join", "get_registered_schemes"]

_MODES = ("r", "w", "a", "r+", "w+", "a+")
_REASON = {errno.ENOENT: (errors.NotFoundError, "No such file or directory"),
           errno.EISDIR: (errors.FailedPreconditionError, "Is a directory"),
           errno.ENOTDIR: (errors.FailedPreconditionError, "Not a directory"),
           errno.EACCES: (errors.PermissionDeniedError, "Permission denied"),
           errno.EEXIST: (errors.AlreadyExistsError, "File exists"),
           errno.ENOTEMPTY: (errors.FailedPreconditionError, "Directory not empty")}


def _error(e: OSError, path):
    """The TF error for an OSError on ``path``."""
    cls, reason = _REASON.get(e.errno, (errors.UnknownError, e.strerror))
    return cls(None, None, f"{path}; {reason}")


def _path(p):
    return os.fspath(p).decode() if isinstance(os.fspath(p), bytes) else os.fspath(p)


class GFile:
    """A file with TF's interface (``read``, ``readline``, ``readlines``, iteration,
    ``write``, ``seek``, ``tell``, ``size``, ``flush``, ``close``; a context manager)."""

    def __init__(self, name, mode="r"):
        self.__name, self.__mode = _path(name), mode
        if mode.replace("b", "") not in _MODES:
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._binary = "b" in mode
        self._read_ok = "r" in mode or "+" in mode
        self._write_ok = "w" in mode or "a" in mode or "+" in mode
        self._file = None

    name = property(lambda self: self.__name)
    mode = property(lambda self: self.__mode)

    def _open(self):
        if self._file is None:
            try:
                self._file = open(self.__name, self.__mode.replace("b", "") + "b")
            except OSError as e:
                raise _error(e, self.__name) from None
        return self._file

    def _reader(self):
        if not self._read_ok:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        return self._open()

    def _out(self, data: bytes):
        return data if self._binary else data.decode("utf-8")

    def size(self):
        """The file's length in bytes."""
        return stat(self.__name).length

    def write(self, file_content):
        """Writes ``str`` (as UTF-8) or ``bytes``."""
        if not self._write_ok:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        data = file_content.encode("utf-8") if isinstance(file_content, str) else bytes(file_content)
        self._open().write(data)

    def read(self, n=-1):
        """Up to ``n`` bytes (all the rest when ``n`` is -1), ``str`` in text modes."""
        return self._out(self._reader().read(-1 if n is None or n < 0 else n))

    def readline(self):
        return self._out(self._reader().readline())

    def readlines(self):
        return [self._out(line) for line in self._reader().readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def seek(self, offset=None, whence=0, position=None):
        """Moves to ``offset`` (or the deprecated ``position``) relative to ``whence``."""
        if position is not None:
            offset = position
        self._open().seek(offset, whence)

    def tell(self):
        return self._open().tell()

    def seekable(self):
        return True

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


FastGFile = Open = GFile


class FileStatistics:
    """``length`` (bytes), ``mtime_nsec`` (whole seconds, in ns) and ``is_directory``."""

    def __init__(self, length=0, mtime_nsec=0, is_directory=False):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory

    def __repr__(self):
        return (f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
                f"is_directory={self.is_directory})")


def exists(path):
    """Whether ``path`` exists."""
    return os.path.exists(_path(path))


def isdir(path):
    """Whether ``path`` is a directory."""
    return os.path.isdir(_path(path))


def remove(path):
    """Deletes a file (NotFoundError if missing, FailedPreconditionError for a directory)."""
    path = _path(path)
    try:
        os.remove(path)
    except OSError as e:
        raise _error(e, path) from None


def _check_target(src, dst, overwrite):
    if not os.path.exists(src):
        raise errors.NotFoundError(None, None, f"{src}; No such file or directory")
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")


def rename(src, dst, overwrite=False):
    """Renames a file or directory; an existing ``dst`` needs ``overwrite=True``."""
    src, dst = _path(src), _path(dst)
    _check_target(src, dst, overwrite)
    try:
        os.replace(src, dst)
    except OSError as e:
        raise _error(e, src) from None


def copy(src, dst, overwrite=False):
    """Copies a file; an existing ``dst`` needs ``overwrite=True``."""
    src, dst = _path(src), _path(dst)
    _check_target(src, dst, overwrite)
    try:
        shutil.copyfile(src, dst)
    except OSError as e:
        raise _error(e, src) from None


def mkdir(path):
    """Creates one directory; its parent must exist. An existing directory is kept (TF 2.21)."""
    path = _path(path)
    try:
        os.mkdir(path)
    except FileExistsError:
        if not os.path.isdir(path):
            raise errors.FailedPreconditionError(None, None, f"{path} is not a directory") from None
    except OSError as e:
        raise _error(e, path) from None


def makedirs(path):
    """Creates a directory and its missing parents (no error if it exists)."""
    path = _path(path)
    prefix = path
    while prefix and not os.path.exists(prefix):
        prefix = os.path.dirname(prefix.rstrip("/"))
    if prefix and not os.path.isdir(prefix):
        raise errors.FailedPreconditionError(None, None, f"{prefix} is not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise _error(e, path) from None


def listdir(path):
    """The names in a directory (no ``.``/``..``), in the file system's order."""
    path = _path(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


def glob(pattern):
    """Paths matching ``pattern`` (a string or a list of them); hidden files included."""
    if isinstance(pattern, (str, bytes, os.PathLike)):
        return _glob.glob(_path(pattern), include_hidden=True)
    return [p for one in pattern for p in _glob.glob(_path(one), include_hidden=True)]


def walk(top, topdown=True, onerror=None):
    """Yields ``(dirname, subdirs, files)`` for ``top`` and every directory under it,
    parents first when ``topdown`` (else children first); nothing for a missing ``top``."""
    top = _path(top)
    try:
        names = listdir(top)
    except errors.NotFoundError as e:
        if onerror:
            onerror(e)
        return
    subdirs = [n for n in names if os.path.isdir(os.path.join(top, n))]
    files = [n for n in names if not os.path.isdir(os.path.join(top, n))]
    if topdown:
        yield top, subdirs, files
    for sub in subdirs:
        yield from walk(os.path.join(top, sub), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def rmtree(path):
    """Deletes a directory and everything under it (or a single file)."""
    path = _path(path)
    if not os.path.lexists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    except OSError as e:
        raise _error(e, path) from None


def stat(path):
    """:class:`FileStatistics` of ``path``."""
    path = _path(path)
    try:
        st = os.stat(path)
    except OSError as e:
        raise _error(e, path) from None
    return FileStatistics(st.st_size, int(st.st_mtime) * 10**9, os.path.isdir(path))


def join(path, *paths):
    """Joins path components with ``/`` (``os.path.join``)."""
    return os.path.join(path, *paths)


def get_registered_schemes():
    """The URL schemes this file system serves: local files only."""
    return ["file"]


def Walk(top, in_order=True):  # noqa: N802 (TF 1.x name)
    """``tf.gfile.Walk``: :func:`walk` with ``in_order`` for ``topdown``."""
    return walk(top, topdown=in_order)


Exists, IsDirectory, Remove, Rename, Copy = exists, isdir, remove, rename, copy
MkDir, MakeDirs, ListDirectory, Glob, DeleteRecursively, Stat = mkdir, makedirs, listdir, glob, rmtree, stat
