"""tf.config (ref/session/runtime_config.py) against TF 2.21 with v2 behaviour
disabled: the devices listed, the defaults, TF's errors; the thread setting a
Session without a ConfigProto takes."""
import copy

import pytest

import ref
from ref.session import runtime_config


@pytest.fixture(autouse=True)
def _restore():
    saved = copy.deepcopy(runtime_config._STATE)
    yield
    runtime_config._STATE.clear()
    runtime_config._STATE.update(saved)


def _tf():
    tf = pytest.importorskip("tensorflow.compat.v1")
    return tf


@pytest.mark.parametrize("query", [
    lambda c: c.list_physical_devices("GPU"),
    lambda c: [tuple(d) for d in c.list_physical_devices("CPU")],
    lambda c: [tuple(d) for d in c.list_physical_devices()],
    lambda c: [tuple(d) for d in c.list_logical_devices("CPU")],
    lambda c: [tuple(d) for d in c.get_visible_devices("CPU")],
    lambda c: c.threading.get_intra_op_parallelism_threads(),
    lambda c: c.threading.get_inter_op_parallelism_threads(),
], ids=["gpus", "cpus", "all", "logical", "visible", "intra", "inter"])
def test_queries_answer_as_tensorflow(query):
    if ref.config.list_physical_devices("GPU"):
        pytest.skip("a GPU ref can use: TF's CPU wheel lists none")
    assert query(ref.config) == query(_tf().config)


def test_soft_placement_default_is_tf1s():
    """TF's answer with v2 behaviour disabled, asked in a subprocess (the switch is process-wide)."""
    import subprocess
    import sys
    _tf()
    code = ("import tensorflow.compat.v1 as tf; tf.disable_v2_behavior(); "
            "print(tf.config.get_soft_device_placement())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip().splitlines()[-1] == str(ref.config.get_soft_device_placement()) == "False"


def test_memory_growth_on_a_cpu_is_a_value_error_in_both():
    for config in (ref.config, _tf().config):
        cpu = config.list_physical_devices("CPU")[0]
        with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU"):
            config.experimental.set_memory_growth(cpu, True)


def test_visible_devices_fixed_once_the_runtime_is_initialized():
    cpus = ref.config.list_physical_devices("CPU")
    ref.config.set_visible_devices(cpus)  # before: allowed
    with pytest.raises(ValueError, match="CPU must remain visible"):
        ref.config.set_visible_devices([], "CPU")
    ref.config.list_logical_devices()  # initializes the runtime, as in TF
    with pytest.raises(RuntimeError, match="cannot be modified after being initialized"):
        ref.config.set_visible_devices(cpus)


def test_a_session_without_config_takes_the_threading_setting():
    ref.config.threading.set_intra_op_parallelism_threads(1)
    with ref.Graph().as_default():
        assert ref.Session()._intra_threads == 1
        assert ref.Session(config=ref.ConfigProto(intra_op_parallelism_threads=2))._intra_threads == 2
