"""Runs a list of TensorFlow test files against ref (and/or TF) and tabulates them.

    PYTHONPATH=$PWD python tools/tf_tests/driver.py --backend ref --out /tmp/tf_tests
    PYTHONPATH=$PWD python tools/tf_tests/driver.py --backend tf --out /tmp/tf_tests
    PYTHONPATH=$PWD python tools/tf_tests/driver.py --table /tmp/tf_tests   # markdown, ref vs tf

Each file runs in its own process (``run_one.py``) with ``--file-timeout``
seconds; a file killed for time keeps the results it wrote, and its unfinished
test counts as an error. The file list defaults to ``files.txt`` next to this
script (paths in the TF source mirror; ``#`` starts a comment).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OUTCOMES = ("passed", "failed", "error", "skipped")


def read_list(path):
    with open(path) as f:
        return [line.split("#")[0].strip() for line in f if line.split("#")[0].strip()]


def _jsonl(out_dir, backend, path):
    return os.path.join(out_dir, backend, path.replace("/", "__") + ".jsonl")


def run_file(path, backend, out_dir, file_timeout, test_timeout):
    out = _jsonl(out_dir, backend, path)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    cmd = [sys.executable, os.path.join(HERE, "run_one.py"), "--backend", backend,
           "--test-timeout", str(test_timeout), path, out]
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=file_timeout)
        tail = proc.stderr[-2000:] if proc.returncode not in (0, 1) else ""
    except subprocess.TimeoutExpired:
        tail = "file timeout"
        with open(out, "a") as f:
            f.write(json.dumps({"test": "<timeout>", "outcome": "error", "message": "file timeout"}) + "\n")
    if not os.path.exists(out) or not open(out).read().strip():
        with open(out, "a") as f:
            f.write(json.dumps({"test": "<crash>", "outcome": "error", "message": tail}) + "\n")
    return summarize(out), time.time() - t0


def summarize(jsonl):
    counts = collections.Counter()
    if os.path.exists(jsonl):
        for line in open(jsonl):
            try:
                counts[json.loads(line)["outcome"]] += 1
            except (ValueError, KeyError):
                pass
    return counts


def table(out_dir, files):
    rows = ["| file | ref passed | ref failed | ref errors | ref skipped | TF passed | ref/TF |",
            "|---|---|---|---|---|---|---|"]
    total = collections.Counter()
    for path in files:
        r = summarize(_jsonl(out_dir, "ref", path))
        t = summarize(_jsonl(out_dir, "tf", path))
        ratio = f"{r['passed'] / t['passed']:.2f}" if t["passed"] else "-"
        rows.append(f"| {path.replace('tensorflow/python/', '')} | {r['passed']} | {r['failed']} | {r['error']} | "
                    f"{r['skipped']} | {t['passed'] if t else '?'} | {ratio} |")
        total.update({f"ref_{k}": r[k] for k in OUTCOMES})
        total["tf_passed"] += t["passed"]
    rows.append(f"| **total** | {total['ref_passed']} | {total['ref_failed']} | {total['ref_error']} | "
                f"{total['ref_skipped']} | {total['tf_passed']} | "
                f"{total['ref_passed'] / max(total['tf_passed'], 1):.2f} |")
    return "\n".join(rows)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--backend", choices=("ref", "tf"), default="ref")
    p.add_argument("--files", default=os.path.join(HERE, "files.txt"))
    p.add_argument("--only", nargs="*", default=None, help="substrings selecting files from the list")
    p.add_argument("--out", default="/tmp/tf_tests")
    p.add_argument("--file-timeout", type=int, default=300)
    p.add_argument("--test-timeout", type=int, default=60)
    p.add_argument("--table", metavar="OUT_DIR", help="print the markdown table of a finished run and exit")
    args = p.parse_args(argv)
    files = read_list(args.files)
    if args.table:
        print(table(args.table, files))
        return 0
    if args.only:
        files = [f for f in files if any(s in f for s in args.only)]
    for path in files:
        counts, seconds = run_file(path, args.backend, args.out, args.file_timeout, args.test_timeout)
        print(f"{path}: " + " ".join(f"{k}={counts[k]}" for k in OUTCOMES) + f" ({seconds:.0f}s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
