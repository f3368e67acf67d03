"""ReadFile / WriteFile against TensorFlow's raw ops (bytes both ways)."""
import numpy as np
import pytest

import ref
from ref.ops import files as _under_test  # noqa: F401  (the kernels these tests cover)

tf = pytest.importorskip("tensorflow")


@pytest.mark.parametrize("contents", [b"", b"abc", bytes(range(256)), "héllo".encode()])
def test_write_then_read_matches_tf(contents, tmp_path):
    ours, theirs = str(tmp_path / "sub" / "ours.bin"), str(tmp_path / "theirs.bin")
    with ref.Graph().as_default():
        w = ref.write_file(ours, contents)
        r = ref.read_file(theirs)
        tf.raw_ops.WriteFile(filename=theirs, contents=contents)
        with ref.Session() as s:
            s.run(w)
            got = s.run(r)
    assert open(ours, "rb").read() == contents
    assert got == tf.raw_ops.ReadFile(filename=ours).numpy() == contents


def test_missing_file_is_not_found(tmp_path):
    with ref.Graph().as_default():
        r = ref.io.read_file(str(tmp_path / "nope"))
        with ref.Session() as s, pytest.raises(ref.errors.NotFoundError):
            s.run(r)
    with pytest.raises(tf.errors.NotFoundError):
        tf.raw_ops.ReadFile(filename=str(tmp_path / "nope"))


def test_nest_namespace():
    assert ref.nest.flatten({"b": (1, 2), "a": 3}) == tf.nest.flatten({"b": (1, 2), "a": 3})
    assert ref.nest.map_structure(lambda x: x * 2, (1, [2])) == tf.nest.map_structure(lambda x: x * 2, (1, [2]))
