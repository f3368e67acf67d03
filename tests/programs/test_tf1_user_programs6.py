"""An eighth set of TF1 programs (``_prog_*.py`` named in ``PROGRAMS``), modelled on
public TF1 tutorials run near-verbatim under ``ref`` and TensorFlow this session
(hunkim's "DeepLearningZeroToAll" lab 9-7, the TF r1 "MNIST for ML beginners"
``mnist_softmax.py``) and written for this suite in their style. Each row drifted
from TensorFlow before its fix: a hand-written ``1 / (1 + exp(-x))`` after a
``MatMul``, which TF's grappler runs as ``Reciprocal`` (Eigen's ``rcpps`` and a
Newton step, not a correctly rounded quotient); ``log(softmax)`` evaluated
alone, which TF runs as ``LogSoftmax``; ``Softmax``'s own ``1 / sum``. Each is
compared with TensorFlow 2.21's ``tf.compat.v1`` as ``test_tf1_user_programs4.py``
compares its set: GraphDef node for node, initial values bit for bit, losses
and final variables within rtol 1e-5, and the ``extra`` each program returns."""
import importlib

import pytest

import ref  # noqa: F401  (cross-layer programs)
from _corpus import assert_close, assert_same_graph_def, assert_same_initial, assert_same_trajectory, program_result

STEPS = 8
RTOL, ATOL = 1e-5, 1e-6

TOLERANCE = {}

PROGRAMS = ["sigmoid_by_hand", "mnist_softmax_log"]


def _result(name, which, tmp_root):
    return program_result(name, which, STEPS, tmp_root)


@pytest.fixture(scope="session")
def tmp_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("user_programs6"))


@pytest.mark.parametrize("name", PROGRAMS)
def test_graph_def(name):
    assert_same_graph_def(importlib.import_module(f"_prog_{name}"))


@pytest.mark.parametrize("name", PROGRAMS)
def test_initial_values(name, tmp_root):
    assert_same_initial(_result(name, "ref", tmp_root)["initial"], _result(name, "tf", tmp_root)["initial"])


@pytest.mark.parametrize("name", PROGRAMS)
def test_trajectory(name, tmp_root):
    want = _result(name, "tf", tmp_root)
    got = _result(name, "ref", tmp_root)
    rtol, atol = TOLERANCE.get(name, (RTOL, ATOL))
    assert_same_trajectory(got, want, STEPS, rtol, atol, same_final_names=True)


@pytest.mark.parametrize("name", PROGRAMS)
def test_extra(name, tmp_root):
    want = _result(name, "tf", tmp_root).get("extra")
    got = _result(name, "ref", tmp_root).get("extra")
    assert_close(got, want, *TOLERANCE.get(name, (RTOL, ATOL)))


@pytest.mark.parametrize("which", ["tf", "ref"])
def test_hand_written_sigmoid_is_a_reciprocal(which, tmp_root):
    """The first predictions of ``sigmoid_by_hand`` are, bit for bit, ``Reciprocal(1 +
    exp(-layer))`` of that run's own logits (TF's grappler rewrite; ref's plan as TF's),
    not the correctly rounded quotient. (Each run's own logits: the ``MatMul`` before
    them is not TF's bits in ref.)"""
    import numpy as np
    from ref import raw_ops
    from ref.ops import eigen_recip
    extra = _result("sigmoid_by_hand", which, tmp_root)["extra"]
    pred, layer = np.asarray(extra[0], np.float32), np.asarray(extra[2], np.float32)
    y = raw_ops.AddV2(x=np.float32(1), y=raw_ops.Exp(x=raw_ops.Neg(x=layer)))
    assert np.array_equal(pred, eigen_recip.reciprocal(y))
    assert not np.array_equal(pred, np.float32(1) / y)
