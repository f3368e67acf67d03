"""A fifth set of TF1 programs (``_prog_*.py`` named in ``PROGRAMS``), written
for this suite the way 2016-2019 tutorials and repositories wrote them, for
families the earlier sets do not cover: ``tf.data`` input functions
(``TFRecordDataset`` + ``parse_single_example`` with ``num_parallel_calls``,
``string_split`` / hash buckets with ``zip`` and ``padded_batch``,
``interleave``, image augmentation in ``map``, ``tf.strings`` parsing), a
linear SVM with hinge losses, ``tf.losses`` with weights and every reduction, a
CRF forward algorithm in ``tf.scan``, capsule routing in a ``while_loop``, a
CTC speech toy, multi-GPU style towers averaging gradients with an EMA,
gradient accumulation, a ``validate_shape=False`` memory, streaming metrics,
sparse feeds, a ``dynamic_partition`` mixture of experts, ``tf.cond``
train/inference switches, dilated / space-to-depth convolutions and a
``MonitoredTrainingSession`` with explicit checkpoint and summary hooks whose
moving averages are restored by ``variables_to_restore`` (its own loop). Each is trained by ``_hooked.hooked_train`` and
compared with TensorFlow 2.21's ``tf.compat.v1`` as
``test_tf1_user_programs2.py`` compares its set: GraphDef node for node,
initial values bit for bit, losses and final variables within rtol 1e-5, and
the ``extra`` each program returns."""
import importlib

import pytest

import ref  # noqa: F401  (cross-layer programs)
from _corpus import assert_close, assert_same_graph_def, assert_same_initial, assert_same_trajectory, program_result

STEPS = 8
RTOL, ATOL = 1e-5, 1e-6

PROGRAMS = ["tfrecord_parse", "text_padded_zip", "interleave", "image_aug", "strings_ops", "linear_svm",
            "weighted_losses", "crf_scan", "capsule_routing", "ctc_speech", "towers", "grad_accum",
            "validate_shape", "metrics_stream", "sparse_feed", "moe_partition", "cond_switch", "dilated_s2d",
            "ema_hooks"]



def _result(name, which, tmp_root):
    return program_result(name, which, STEPS, tmp_root)


@pytest.fixture(scope="session")
def tmp_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("user_programs3"))


@pytest.mark.parametrize("name", PROGRAMS)
def test_graph_def(name):
    # (one-shot iterators included: both name the dataset factory '_make_dataset_<hash>', and the
    # comparison leaves the hash, which TF draws per process, out)
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
