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
    ``write``, ``seek``, ``tell``, ``size``, ``flush``, ``close``; a context manager).

    As TF's ``FileIO``, reading and writing go through two handles opened on
    first use: writes go to a writer that truncates the file (``w``, ``r+``,
    ``w+``) or appends to it (``a``, ``a+``); reads, ``seek`` and ``tell`` use a
    reader that starts at offset 0 and sees what the writer has flushed.
    """

    def __init__(self, name, mode="r", encoding="utf-8"):
        self.__name, self.__mode = _path(name), mode
        if mode.replace("b", "") not in _MODES:
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._binary, self._encoding = "b" in mode, encoding
        self._read_ok = "r" in mode or "+" in mode
        self._write_ok = "w" in mode or "a" in mode or "+" in mode
        self._reader = self._writer = None

    name = property(lambda self: self.__name)
    mode = property(lambda self: self.__mode)

    def _open(self, how):
        try:
            return open(self.__name, how)
        except OSError as e:
            raise _error(e, self.__name) from None

    def _read_handle(self):
        if not self._read_ok:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        if self._reader is None:
            self._reader = self._open("rb")
        return self._reader

    def _out(self, data: bytes):
        return data if self._binary else data.decode(self._encoding)

    def size(self):
        """The file's length in bytes (what has been flushed)."""
        return stat(self.__name).length

    def write(self, file_content):
        """Writes ``str`` (encoded) or ``bytes``."""
        if not self._write_ok:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        if self._writer is None:
            self._writer = self._open("ab" if "a" in self.__mode else "wb")
        data = file_content.encode(self._encoding) if isinstance(file_content, str) else bytes(file_content)
        self._writer.write(data)

    def read(self, n=-1):
        """Up to ``n`` bytes (all the rest when ``n`` is -1), ``str`` in text modes."""
        if n is not None and n < -1:
            raise errors.InvalidArgumentError(None, None, f"Cannot read a negative number of bytes: {n}")
        return self._out(self._read_handle().read(-1 if n is None else n))

    def readline(self):
        return self._out(self._read_handle().readline())

    def readlines(self):
        return [self._out(line) for line in self._read_handle().readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def seek(self, offset=None, whence=0, position=None):
        """Moves the reader to ``offset`` relative to the start (``whence`` 0), the
        current position (1) or the end (2); ``position`` is the deprecated name."""
        if position is not None:
            if offset is not None:
                raise TypeError("offset and position may not be set simultaneously.")
            offset = position
        if offset is None:
            raise TypeError("seek() missing the offset argument")
        handle = self._read_handle()
        if whence not in (0, 1, 2):
            raise errors.InvalidArgumentError(None, None, f"Invalid whence argument: {whence}. Valid values are 0, "
                                              "1, or 2.")
        target = offset + (0, handle.tell(), self.size())[whence]
        if target < 0:
            raise errors.InvalidArgumentError(None, None, f"Seeking to a negative position: {target}")
        handle.seek(target)

    def tell(self):
        """The reader's position (the writer's when nothing has been read yet)."""
        if self._reader is None and self._writer is not None:
            return self._writer.tell()
        return self._read_handle().tell()

    def seekable(self):
        return True

    def flush(self):
        """Pushes buffered writes to the file."""
        if self._writer is not None:
            self._writer.flush()

    def close(self):
        """Flushes and closes both handles (the next read starts again at 0)."""
        for handle in (self._reader, self._writer):
            if handle is not None:
                handle.close()
        self._reader = self._writer = None

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
