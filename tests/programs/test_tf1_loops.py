"""TF1 programs whose models run in TF 1.x while loops over TensorArrays
(``tf.nn.dynamic_rnn``), compared with TensorFlow 2.21's ``tf.compat.v1``
with TF1 behaviour as ``test_tf1_corpus.py`` compares its corpus: the
GraphDef node for node, every initial value bit for bit, the losses and
final variables within rtol 1e-5 (the corpus's reasoning). ref runs with
control flow v2 disabled (TF1's ``tf.disable_control_flow_v2()``), as TF
with TF1 behaviour does."""
import importlib

import numpy as np
import pytest

import ref
from ref.graph_ops import rnn as _under_test  # noqa: F401  (dynamic_rnn in a TF1 loop)
from _corpus import run
from _graphdef import differences, graph_def, tf_v1

STEPS = 12
RTOL, ATOL = 1e-5, 1e-6
PROGRAMS = ["dynamic_rnn"]


@pytest.fixture(autouse=True)
def _tf1_loops():
    was = ref.control_flow_v2_enabled() if hasattr(ref, "control_flow_v2_enabled") else True
    ref.disable_control_flow_v2()
    yield
    if was:
        ref.enable_control_flow_v2()


def _results(name, tmp_path):
    module = importlib.import_module(f"_prog_{name}")
    return (run(ref, module, STEPS, tmp_path / "ref"), run(tf_v1(), module, STEPS, tmp_path / "tf"))


@pytest.mark.parametrize("name", PROGRAMS)
def test_graph_def(name):
    module = importlib.import_module(f"_prog_{name}")
    want = graph_def(tf_v1(), module.build)
    got = graph_def(ref, module.build)
    diff = differences(got, want)
    assert not diff, f"{len(got.node)} ref nodes, {len(want.node)} tf nodes\n" + "\n".join(diff)


@pytest.mark.parametrize("name", PROGRAMS)
def test_initial_values_and_trajectory(name, tmp_path):
    got, want = _results(name, tmp_path)
    assert sorted(got["initial"]) == sorted(want["initial"])
    for k, w in want["initial"].items():
        assert got["initial"][k].dtype == w.dtype, k
        np.testing.assert_array_equal(got["initial"][k], w, err_msg=k)
    assert len(got["losses"]) == len(want["losses"]) == STEPS
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=RTOL, atol=ATOL)
    for k, w in want["final"].items():
        np.testing.assert_allclose(got["final"][k], w, rtol=RTOL, atol=ATOL, err_msg=k)
