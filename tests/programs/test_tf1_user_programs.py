"""A third set of TF1 programs (``_prog_*.py`` named in ``PROGRAMS``),
written for this suite as a new user would write them after the public
tutorials and blog posts of 2016-2019 that the first two sets do not
follow: an ``is_training`` flag through ``placeholder_with_default`` for
batch norm and dropout, an AlexNet-style raw ``tf.nn`` CNN with LRN, a
dropout-wrapped GRU encoder, a placeholder-fed initializable ``tf.data``
pipeline with streaming metrics, checkpoint/resume through
``get_checkpoint_state``, scope-level variable regularizers, graph-loop
logic (``while_loop``, ``TensorArray``, ``scan``), static shape queries
with unknown dimensions, batch renormalization / ghost batches /
``adjustment``, and additive attention over a bidirectional RNN
(``einsum``, ``tensordot`` of an unknown batch, ``conv1d``,
``cosine_decay_restarts``). Compared with TensorFlow 2.21's ``tf.compat.v1`` (TF1
behaviour) exactly as ``test_tf1_tutorials.py`` compares its set: GraphDef
node for node, initial values bit for bit, losses and final variables
within rtol 1e-5, and the ``extra`` each program returns."""
import importlib

import pytest

import ref  # noqa: F401  (cross-layer programs)
from _corpus import assert_same_graph_def, assert_same_initial, assert_same_trajectory, program_result, assert_close

STEPS = 12
RTOL, ATOL = 1e-5, 1e-6

# Known gaps: every comparison of these programs fails until ref is fixed
# (strict xfail: flips when it is).
XFAIL = {}
# The GraphDef only differs (initial values, trajectory and extra match TF's).
GRAPH_XFAIL = {}
PROGRAMS = ["bn_flag", "alexnet_lrn", "gru_encoder", "data_metrics", "ckpt_resume", "regularized", "while_refine",
            "renorm", "shape_queries", "birnn_attention"]
CASES = [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=XFAIL[n])) if n in XFAIL else n
         for n in PROGRAMS]
GRAPH_CASES = [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=GRAPH_XFAIL[n]))
               if n in GRAPH_XFAIL else c for n, c in zip(PROGRAMS, CASES)]


def _result(name, which, tmp_root):
    return program_result(name, which, STEPS, tmp_root)


@pytest.fixture(scope="session")
def tmp_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("user_programs"))


@pytest.mark.parametrize("name", GRAPH_CASES)
def test_graph_def(name):
    assert_same_graph_def(importlib.import_module(f"_prog_{name}"))


@pytest.mark.parametrize("name", CASES)
def test_initial_values(name, tmp_root):
    assert_same_initial(_result(name, "ref", tmp_root)["initial"], _result(name, "tf", tmp_root)["initial"])


@pytest.mark.parametrize("name", CASES)
def test_trajectory(name, tmp_root):
    want = _result(name, "tf", tmp_root)
    got = _result(name, "ref", tmp_root)
    assert_same_trajectory(got, want, STEPS, RTOL, ATOL, same_final_names=True)


@pytest.mark.parametrize("name", CASES)
def test_extra(name, tmp_root):
    want = _result(name, "tf", tmp_root).get("extra")
    got = _result(name, "ref", tmp_root).get("extra")
    assert_close(got, want, RTOL, ATOL)
