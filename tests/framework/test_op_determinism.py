"""Op determinism (``tf.config.experimental.enable_op_determinism``; the flag in
ref.platform.modes): building a random op with neither a graph nor an op seed
raises TF's RuntimeError (``random_seed.get_seed``); running a raw random op
whose ``seed`` and ``seed2`` are both 0 raises TF's InvalidArgumentError;
seeded ops run. TensorFlow with the same switch is the oracle."""
import pytest

import ref
from ref.framework import random_seed as _under_test  # noqa: F401
from ref.framework.op_def_library import apply_op
from ref.platform import modes
from tests.graph_ops._graphdef import tf1_behaviour

ROWS = [  # (name, build(lib, raw)) -- raw(op type, **attrs) adds a raw random op
    ("random_normal", lambda lib, raw: lib.random_normal((1,))),
    ("truncated_normal", lambda lib, raw: lib.truncated_normal((2,))),
    ("random_uniform", lambda lib, raw: lib.random_uniform((1,))),
    ("op_seed", lambda lib, raw: lib.random_normal((1,), seed=3)),
    ("graph_seed", lambda lib, raw: (lib.set_random_seed(1), lib.random_uniform((1,)))[1]),
    ("raw_unseeded", lambda lib, raw: raw("RandomStandardNormal", shape=[1], dtype=lib.float32)),
    ("raw_truncated_unseeded", lambda lib, raw: raw("TruncatedNormal", shape=[1], dtype=lib.float32)),
    ("raw_seed2", lambda lib, raw: raw("RandomStandardNormal", shape=[1], dtype=lib.float32, seed2=1)),
]


def _outcome(lib, raw, build):
    with lib.Graph().as_default():
        try:
            t = build(lib, raw)
        except RuntimeError as e:
            return "RuntimeError", str(e)
        with lib.Session() as sess:
            try:
                return "ok", sess.run(t).shape
            except lib.errors.InvalidArgumentError as e:
                return "InvalidArgumentError", next(x for x in e.message.splitlines() if x.startswith("When determinism"))


@pytest.mark.parametrize("name,build", ROWS, ids=[r[0] for r in ROWS])
def test_op_determinism_as_tf(name, build):
    tf = pytest.importorskip("tensorflow")
    with tf1_behaviour():
        tf.config.experimental.enable_op_determinism()
        try:
            want = _outcome(tf.compat.v1, lambda t, **a: getattr(tf.raw_ops, t)(**a), build)
        finally:
            from tensorflow.python.framework import config as tf_config
            tf_config.disable_op_determinism()  # (TF's public API has no switch back)
    ref.config.experimental.enable_op_determinism()
    try:
        got = _outcome(ref, lambda t, **a: apply_op(t, **a), build)
    finally:
        modes.disable_op_determinism()
    assert got == want


def test_without_determinism_unseeded_ops_run():
    with ref.Graph().as_default(), ref.Session() as sess:
        assert sess.run(apply_op("RandomStandardNormal", shape=[2], dtype=ref.float32)).shape == (2,)
