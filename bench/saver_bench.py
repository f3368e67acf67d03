"""Saver.save / Saver.restore of 400 MB of float32 variables (4 x 25M) through
a Session: ref's Saver (with and without fsync) against TensorFlow's
tf.compat.v1.train.Saver and numpy.save/np.load of the same bytes (the disk
floor), side by side in one run.

    python bench/saver_bench.py [--mb 400] [--repeat 5] [--dir /tmp] [--no-tf]

Each round times every case once, one after another (ref, numpy, TF), so that
all of them see the same state of the (shared, noisy) machine; ``--repeat``
rounds are run and every time is printed, then the best and the median per
case and the ratios ref/TF on both. Before each timed save the previous output
is deleted and ``os.sync()`` is called (untimed), so no run pays for another's
writeback. Meta graphs are not written (``write_meta_graph=False``) so only the
checkpoint is timed. Restores read from the page cache (the files were just
written), so they measure allocation, copy and checksum cost, not the disk.
TF has no fsync option: its rows are no-fsync only. Every restore is checked
against the saved values.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))


def _clear(root, stem):
    for name in os.listdir(root):
        if name.startswith(stem):
            path = os.path.join(root, name)
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.remove(path)


def _timed(fn, setup=None):
    if setup is not None:
        setup()
    os.sync()  # no dirty pages left over from the previous case
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


class _RefCase:
    def __init__(self, arrays, root):
        import ref
        from ref.checkpoint.saver import Saver

        self.arrays = arrays
        self.root = root
        self.graph = ref.Graph()
        with self.graph.as_default():
            self.variables = [ref.Variable(ref.zeros([a.size]), name=name) for name, a in arrays.items()]
            self.savers = {False: Saver(self.variables), True: Saver(self.variables, fsync=True)}
            self.sess = ref.Session()
            for v, a in zip(self.variables, arrays.values()):
                v.load(a, self.sess)
        self.prefix = os.path.join(root, "ref")

    def cases(self):
        def save(fsync):
            return lambda: self.savers[fsync].save(self.sess, self.prefix, write_meta_graph=False)

        def restore():
            self.savers[False].restore(self.sess, self.prefix)

        clear = lambda: _clear(self.root, "ref")  # noqa: E731
        return [("ref Saver.save", save(False), clear), ("ref Saver.restore", restore, None),
                ("ref Saver.save+fsync", save(True), clear)]

    def check(self):
        with self.graph.as_default():
            got = self.sess.run(self.variables)
        assert all(np.array_equal(x, y) for x, y in zip(got, self.arrays.values()))


class _TFCase:
    def __init__(self, arrays, root):
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf
        v1 = tf.compat.v1
        self.arrays = arrays
        self.root = root
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.variables = [v1.Variable(v1.zeros([a.size]), name=name, use_resource=False)
                              for name, a in arrays.items()]
            self.saver = v1.train.Saver(self.variables)
            self.sess = v1.Session(graph=self.graph)
            for v, a in zip(self.variables, arrays.values()):
                v.load(a, self.sess)
        self.prefix = os.path.join(root, "tf")

    def cases(self):
        def save():
            with self.graph.as_default():
                self.saver.save(self.sess, self.prefix, write_meta_graph=False)

        def restore():
            with self.graph.as_default():
                self.saver.restore(self.sess, self.prefix)

        return [("tf Saver.save", save, lambda: _clear(self.root, "tf")), ("tf Saver.restore", restore, None)]

    def check(self):
        with self.graph.as_default():
            got = self.sess.run(self.variables)
        assert all(np.array_equal(x, y) for x, y in zip(got, self.arrays.values()))


class _NumpyCase:
    def __init__(self, arrays, root):
        self.arrays = arrays
        self.root = root

    def cases(self):
        def save(fsync):
            def run():
                for i, v in enumerate(self.arrays.values()):
                    with open(os.path.join(self.root, f"np{i}.npy"), "wb") as f:
                        np.save(f, v)
                        if fsync:
                            f.flush()
                            os.fsync(f.fileno())
            return run

        def load():
            self.out = [np.load(os.path.join(self.root, f"np{i}.npy")) for i in range(len(self.arrays))]

        clear = lambda: _clear(self.root, "np")  # noqa: E731
        return [("numpy save", save(False), clear), ("numpy load", load, None), ("numpy save+fsync", save(True), clear)]

    def check(self):
        assert all(np.array_equal(a, b) for a, b in zip(self.out, self.arrays.values()))


RATIOS = [("ref save / tf save", "ref Saver.save", "tf Saver.save", "<= 1.0"),
          ("ref restore / tf restore", "ref Saver.restore", "tf Saver.restore", "<= 1.0"),
          ("ref save / numpy save", "ref Saver.save", "numpy save", ""),
          ("ref save+fsync / numpy save+fsync", "ref Saver.save+fsync", "numpy save+fsync", ""),
          ("ref restore / numpy load", "ref Saver.restore", "numpy load", ""),
          ("fsync cost: ref save+fsync / ref save", "ref Saver.save+fsync", "ref Saver.save", "")]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=int, default=400, help="total megabytes of float32 variables (4 of them)")
    p.add_argument("--repeat", type=int, default=5, help="rounds (each times every case once)")
    p.add_argument("--dir", default=None, help="where to write (default: a temp dir)")
    p.add_argument("--no-tf", action="store_true", help="skip TensorFlow")
    args = p.parse_args(argv)

    n = args.mb * 1_000_000 // 4 // 4
    rng = np.random.default_rng(0)
    arrays = {f"layer_{i}/kernel": rng.standard_normal(n, dtype=np.float32) for i in range(4)}
    total_mb = sum(a.nbytes for a in arrays.values()) / 1e6
    root = tempfile.mkdtemp(dir=args.dir)
    times: dict[str, list[float]] = {}
    try:
        runners = [_RefCase(arrays, root), _NumpyCase(arrays, root)]
        if not args.no_tf:
            runners.append(_TFCase(arrays, root))
        for _ in range(args.repeat):
            for r in runners:
                for name, fn, setup in r.cases():
                    times.setdefault(name, []).append(_timed(fn, setup))
                r.check()
    finally:
        shutil.rmtree(root, ignore_errors=True)

    load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    print(f"saver bench: {len(arrays)} float32 variables, {total_mb:.0f} MB total, {args.repeat} rounds "
          f"(ms per round, then best and median; load average {load})")
    for k, ts in times.items():
        rounds = " ".join(f"{t * 1000:6.0f}" for t in ts)
        print(f"  {k:22s} {rounds}   best {min(ts) * 1000:6.1f}  median {statistics.median(ts) * 1000:6.1f} ms  "
              f"({total_mb / min(ts):5.0f} MB/s)")
    for label, a, b, target in RATIOS:
        if a in times and b in times:
            best = min(times[a]) / min(times[b])
            med = statistics.median(times[a]) / statistics.median(times[b])
            print(f"  {label:40s} best {best:5.2f}x  median {med:5.2f}x" + (f"  (target {target})" if target else ""))


if __name__ == "__main__":
    main()
