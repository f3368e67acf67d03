"""Runs one TensorFlow test file (a path in the TF source mirror) against ref or TF.

    python tools/tf_tests/run_one.py --backend ref tensorflow/python/training/adam_test.py out.jsonl

Writes one JSON line per test as it finishes ({"test", "outcome", "message"};
outcome: passed, failed, error, skipped), so a driver that kills a hung file
still has the results before it. Each test gets ``--test-timeout`` seconds
(SIGALRM raises in the test). ``--backend tf`` runs TensorFlow itself with
``tf.compat.v1.disable_v2_behavior()``: the baseline ref is counted against.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class _TestTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise _TestTimeout("test timed out")


class JsonResult(unittest.TestResult):
    """Records each test's outcome as a JSON line; sub-test failures fail the test."""

    def __init__(self, out, timeout):
        super().__init__()
        self.out, self.timeout = out, timeout
        self._bad = {}

    def startTest(self, test):
        super().startTest(test)
        self._t0 = time.time()
        signal.alarm(self.timeout)

    def _write(self, test, outcome, message=""):
        self.out.write(json.dumps({"test": test.id(), "outcome": outcome, "message": message[:2000],
                                   "seconds": round(time.time() - self._t0, 2)}) + "\n")
        self.out.flush()

    def _message(self, err):
        etype, value, tb = err
        last = traceback.extract_tb(tb)[-1] if tb else None
        where = f" [{os.path.basename(last.filename)}:{last.lineno}]" if last else ""
        return f"{etype.__name__}: {str(value).strip().splitlines()[0] if str(value).strip() else ''}{where}"

    def addError(self, test, err):
        super().addError(test, err)
        self._bad.setdefault(test.id(), ("error", self._message(err)))
        if os.environ.get("TF_TESTS_TRACEBACK"):
            traceback.print_exception(*err)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._bad.setdefault(test.id(), ("failed", self._message(err)))

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            kind = "failed" if issubclass(err[0], test.failureException) else "error"
            self._bad.setdefault(test.id(), (kind, self._message(err)))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._bad[test.id()] = ("skipped", str(reason))

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._bad[test.id()] = ("failed", "unexpected success")

    def stopTest(self, test):
        signal.alarm(0)
        outcome, message = self._bad.pop(test.id(), ("passed", ""))
        self._write(test, outcome, message)
        super().stopTest(test)


def _extract(mirror, path, into):
    source = subprocess.run(["git", "-C", mirror, "show", f"HEAD:{path}"], capture_output=True, check=True).stdout
    target = os.path.join(into, os.path.basename(path))
    with open(target, "wb") as f:
        f.write(source)
    return target


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--backend", choices=("ref", "tf"), default="ref")
    p.add_argument("--test-timeout", type=int, default=60)
    p.add_argument("--filter", default="", help="run only tests whose id contains this")
    p.add_argument("path")
    p.add_argument("out")
    args = p.parse_args(argv)
    sys.path.insert(0, HERE)
    import shim
    tmp = tempfile.mkdtemp(prefix="tf_tests_")
    file = _extract(shim.MIRROR, args.path, tmp)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    if args.backend == "tf":
        shim.install(tf_backend=True)
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
    else:
        shim.install()
    signal.signal(signal.SIGALRM, _alarm)
    with open(args.out, "w") as out:
        try:
            spec = importlib.util.spec_from_file_location(os.path.basename(file)[:-3], file)
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            suite = unittest.defaultTestLoader.loadTestsFromModule(module)
        except BaseException as e:  # noqa: BLE001 -- a module that does not import is one error
            out.write(json.dumps({"test": "<import>", "outcome": "error",
                                  "message": f"{type(e).__name__}: {e}"[:2000], "seconds": 0}) + "\n")
            return 1
        tests = []

        def walk(s):
            for t in s:
                if isinstance(t, unittest.TestSuite):
                    walk(t)
                elif args.filter in t.id():
                    tests.append(t)
        walk(suite)
        result = JsonResult(out, args.test_timeout)
        unittest.TestSuite(tests).run(result)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # threads a failed test left blocked (queue runners, dequeues) must not hold the exit
