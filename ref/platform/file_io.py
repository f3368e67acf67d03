"""TF's ``lib/io/file_io`` functions, over :mod:`ref.platform.gfile`.

TensorFlow's training library (savers, checkpoint state, event writers) and its
tests read and write whole files through these names: ``read_file_to_string``,
``write_string_to_file``, ``atomic_write_string_to_file``, ``file_exists``,
``delete_file``, ``get_matching_files``, ``create_dir``, ``recursive_create_dir``,
``delete_recursively``, ``is_directory``, ``list_directory``. Errors are
:mod:`ref.platform.gfile`'s: a missing file is a ``NotFoundError``.
"""
from __future__ import annotations

import os
import uuid

from ref.platform import gfile
from ref.types import errors

__all__ = ["FileIO", "file_exists", "delete_file", "read_file_to_string", "write_string_to_file",
           "atomic_write_string_to_file", "get_matching_files", "create_dir", "recursive_create_dir",
           "copy", "rename", "delete_recursively", "is_directory", "list_directory", "walk", "stat"]

FileIO = gfile.GFile
file_exists = gfile.exists
delete_file = gfile.remove
get_matching_files = gfile.glob
create_dir = gfile.mkdir
recursive_create_dir = gfile.makedirs
copy = gfile.copy
rename = gfile.rename
delete_recursively = gfile.rmtree
is_directory = gfile.isdir
list_directory = gfile.listdir
walk = gfile.walk
stat = gfile.stat


def read_file_to_string(filename, binary_mode=False):
    """The file's contents: ``bytes`` when ``binary_mode``, else ``str``."""
    with gfile.GFile(filename, mode="rb" if binary_mode else "r") as f:
        return f.read()


def write_string_to_file(filename, file_content):
    """Replaces the file's contents with ``file_content`` (``str`` or ``bytes``)."""
    with gfile.GFile(filename, mode="wb" if isinstance(file_content, bytes) else "w") as f:
        f.write(file_content)


def atomic_write_string_to_file(filename, contents, overwrite=True):
    """Writes ``contents`` to a temporary file next to ``filename``, then renames it
    over ``filename`` (an existing file needs ``overwrite``: else AlreadyExistsError)."""
    temp = f"{os.fspath(filename)}.tmp{uuid.uuid4().hex}"
    write_string_to_file(temp, contents)
    try:
        gfile.rename(temp, filename, overwrite)
    except errors.OpError:
        gfile.remove(temp)
        raise
