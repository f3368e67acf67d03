"""SessionManager.wait_for_session: readiness messages and the polling deadline."""
import pytest

import ref
from ref.types import errors
from ref.training import session_manager as _under_test  # noqa: F401  (the module these tests cover)

CASES = [
    # (devices of v and w, expected text in the reason)
    ((None, None), "Variables not initialized: v, w"),
    (("/job:ps/task:0", "/job:ps/task:0"), "Variables not initialized: v, w (v, w on /job:ps/task:0)"),
    (("/job:ps/task:0", "/job:ps/task:1"), "(v on /job:ps/task:0; w on /job:ps/task:1)"),
    (("/job:worker/task:1", "/job:ps/task:0"),
     "(v on /job:worker/task:1; w on /job:ps/task:0). Variables on /job:worker/task:1 are not initialized "
     "by the chief if they are not in its graph: put a worker's own variables in LOCAL_VARIABLES"),
]


@pytest.mark.parametrize("devices,expected", CASES)
def test_the_deadline_names_the_variables_not_ready_and_their_devices(devices, expected):
    g = ref.Graph()
    with g.as_default():
        for name, device in zip("vw", devices):
            with ref.device(device):
                ref.Variable(1.0, name=name)
        ready = ref.report_uninitialized_variables()
    sm = ref.train.SessionManager(graph=g, ready_op=ready, recovery_wait_secs=0.2)
    # Each local Session has fresh state: the model never becomes ready.
    with pytest.raises(errors.DeadlineExceededError, match="Session was not ready after waiting") as e:
        sm.wait_for_session("", max_wait_secs=0.5)
    assert expected in str(e.value)
    if devices == (None, None):
        assert "(" not in str(e.value).split("Variables not initialized: v, w")[1]
