import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

try:  # property tests: the same examples on every run, so CI is reproducible
    from hypothesis import HealthCheck, settings

    settings.register_profile("ref", derandomize=True, deadline=None, database=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ref"))
except ImportError:  # hypothesis is in the test extra
    pass


import sys  # noqa: E402

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _tensorflow_stays_eager(request):
    """TF comparisons share one process: a test that switches TensorFlow's
    global mode off (disable_eager_execution / disable_v2_behavior) breaks every
    later test's eager tf.raw_ops call, so it fails here, by name."""
    yield
    tf = sys.modules.get("tensorflow")
    if tf is not None and hasattr(tf, "executing_eagerly") and not tf.executing_eagerly():
        tf.compat.v1.enable_eager_execution()
        pytest.fail(f"{request.node.nodeid} left TensorFlow's eager execution disabled")


@pytest.fixture(autouse=True)
def _control_flow_mode_restored():
    """ref's control-flow mode (and its TensorShape mode, resource-variable
    default and enable_v2_behavior's eager request) is global (TF 1.x loops by default): whatever a
    test switched with enable/disable_control_flow_v2 is undone after it, so a
    module's fixture cannot leak the other mode into later modules."""
    from ref.platform import modes

    from ref.types import shapes

    was = modes.control_flow_v2_enabled()
    was_v2_shapes = shapes.v2_tensorshape_enabled()
    was_switches = (modes._RESOURCE_VARIABLES[0], modes._EAGER_ASKED[0])  # enable_v2_behavior's others
    yield
    modes._RESOURCE_VARIABLES[0], modes._EAGER_ASKED[0] = was_switches
    if modes.control_flow_v2_enabled() != was:
        (modes.enable_control_flow_v2 if was else modes.disable_control_flow_v2)()
    if shapes.v2_tensorshape_enabled() != was_v2_shapes:
        (shapes.enable_v2_tensorshape if was_v2_shapes else shapes.disable_v2_tensorshape)()


# TensorFlow (the comparison oracle, never ref) can abort the interpreter's
# shutdown: a TF session left for garbage collection whose variables were
# allocated under TF's tracking allocator fails TF's own check
# "tracking_allocator.cc: Check failed: ref_ >= 1" when it is closed during
# finalization, and the process dies with SIGABRT after every test passed. So
# when TensorFlow was loaded, the run ends with pytest's own exit status as soon
# as pytest has reported, without finalizing TF's sessions. REF_TESTS_FINALIZE_TF=1
# turns this off (to find a test that leaves such a session).
_EXIT_STATUS = []


def pytest_sessionfinish(session, exitstatus):
    _EXIT_STATUS.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    if os.environ.get("REF_TESTS_FINALIZE_TF"):  # bisecting for a test that leaves a TF session behind
        return
    if "tensorflow" in sys.modules and _EXIT_STATUS and not hasattr(config, "workerinput"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT_STATUS[-1])
