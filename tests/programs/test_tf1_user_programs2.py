"""A fourth set of TF1 programs (``_prog_*.py`` named in ``PROGRAMS``),
written for this suite as users of 2016-2019 wrote them after public
tutorials and blog posts of families the first three sets do not cover: a
seq2seq model with a statically unrolled decoder, a DQN with a target
network, a tied-weight denoising autoencoder, a residual block with fused
batch norm, learning-rate schedules, greedy decoding in a ``while_loop``,
``tf.py_func`` preprocessing, a Transformer encoder layer, a message-passing
graph network over segment ops, REINFORCE
with ``tf.multinomial`` samples, a mixture density network, matrix
factorization, sparse logistic regression, neural style transfer, WGAN-GP,
a MobileNet block, knowledge distillation, highway/maxout layers, a DCGAN
generator of ``conv2d_transpose`` with a dynamic batch and a
``Dataset.from_generator`` pipeline. Each is trained by
``_hooked.hooked_train`` (hooks: an initializer, an op after every step, an
``extra`` fetch). Compared with TensorFlow 2.21's ``tf.compat.v1`` (TF1
behaviour) exactly as ``test_tf1_user_programs.py`` compares its set: GraphDef
node for node, initial values bit for bit, losses and final variables within
rtol 1e-5, and the ``extra`` each program returns."""
import importlib

import pytest

import ref  # noqa: F401  (cross-layer programs)
from _corpus import assert_close, assert_same_graph_def, assert_same_initial, assert_same_trajectory, program_result

STEPS = 8
RTOL, ATOL = 1e-5, 1e-6

PROGRAMS = ["seq2seq_static", "dqn", "tied_ae", "resnet_block", "lr_schedules", "greedy_decode", "py_func",
            "transformer_attn", "segment_gnn", "reinforce", "mdn", "matrix_factorization", "sparse_logreg",
            "style_transfer", "wgan_gp", "mobilenet_block", "distill", "highway_maxout", "deconv_dynamic",
            "data_generator"]


def _result(name, which, tmp_root):
    return program_result(name, which, STEPS, tmp_root)


@pytest.fixture(scope="session")
def tmp_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("user_programs2"))


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
    assert_same_trajectory(got, want, STEPS, RTOL, ATOL, same_final_names=True)


@pytest.mark.parametrize("name", PROGRAMS)
def test_extra(name, tmp_root):
    want = _result(name, "tf", tmp_root).get("extra")
    got = _result(name, "ref", tmp_root).get("extra")
    assert_close(got, want, RTOL, ATOL)
