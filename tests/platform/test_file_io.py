"""``ref.platform.file_io`` (TF's ``lib/io/file_io`` functions) against TensorFlow's module:
the same sequence of calls on a fresh directory gives the same results and error kinds."""
import os

import pytest

from ref.platform import file_io as ref_file_io
from ref.types import errors

# (id, steps): each step is (function name, args relative to the directory); results compared
ROWS = [
    ("write-read-text", [("write_string_to_file", ("a.txt", "hello")), ("read_file_to_string", ("a.txt",)),
                         ("file_exists", ("a.txt",)), ("file_exists", ("b.txt",))]),
    ("write-read-binary", [("write_string_to_file", ("b.bin", b"\x00\x01")),
                           ("read_file_to_string", ("b.bin", True))]),
    ("atomic-overwrite", [("write_string_to_file", ("c", "1")), ("atomic_write_string_to_file", ("c", "2")),
                          ("read_file_to_string", ("c",)), ("list_directory", (".",))]),
    ("atomic-no-overwrite", [("write_string_to_file", ("c", "1")),
                             ("atomic_write_string_to_file", ("c", "2", False)), ("read_file_to_string", ("c",))]),
    ("read-missing", [("read_file_to_string", ("missing",))]),
    ("delete", [("write_string_to_file", ("d", "x")), ("delete_file", ("d",)), ("file_exists", ("d",)),
                ("delete_file", ("d",))]),
    ("dirs", [("recursive_create_dir", ("x/y/z",)), ("is_directory", ("x/y",)), ("create_dir", ("x/w",)),
              ("list_directory", ("x",)), ("delete_recursively", ("x",)), ("file_exists", ("x",))]),
    ("glob", [("write_string_to_file", ("m1.ckpt", "")), ("write_string_to_file", ("m2.ckpt", "")),
              ("get_matching_files", ("*.ckpt",))]),
]


def _play(module, directory, steps):
    out = []
    for name, args in steps:
        args = tuple(os.path.join(directory, a) if i == 0 else a for i, a in enumerate(args))
        try:
            value = getattr(module, name)(*args)
        except errors.OpError as e:
            out.append(("error", type(e).__name__))
            continue
        except Exception as e:  # noqa: BLE001 -- TF's errors compared by class name
            out.append(("error", type(e).__name__))
            continue
        if isinstance(value, list):
            value = sorted(os.path.relpath(v, directory) if os.path.isabs(v) else v for v in value)
        out.append(value)
    return out


@pytest.mark.parametrize("rid,steps", ROWS, ids=[r[0] for r in ROWS])
def test_matches_tf(rid, steps, tmp_path):
    pytest.importorskip("tensorflow")
    from tensorflow.python.lib.io import file_io as tf_file_io
    (tmp_path / "tf").mkdir()
    (tmp_path / "ref").mkdir()
    want = _play(tf_file_io, str(tmp_path / "tf"), steps)
    got = _play(ref_file_io, str(tmp_path / "ref"), steps)
    assert got == want
