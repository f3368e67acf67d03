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
