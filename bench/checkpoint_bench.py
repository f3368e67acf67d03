"""Save and restore 400 MB of float32 (4 arrays of 25M) with ref's
BundleWriter/BundleReader, TensorFlow's raw SaveV2/RestoreV2, and
numpy.save/np.load (the disk floor), in the same run, with and without fsync.

    python bench/checkpoint_bench.py [--mb 400] [--repeat 3] [--dir /tmp]

Prints the best of ``--repeat`` times and the ratios ref/TF and ref/numpy.
Before each timed run the previous output is deleted and ``os.sync()`` is
called (untimed), so no run pays for another's writeback. Reads come from the page cache (the files were just written), so they measure
copy + checksum cost, not the disk. TF has no fsync option; its numbers appear
in the no-fsync rows only.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ref.checkpoint import BundleReader, BundleWriter  # noqa: E402


def _best(fn, repeat, setup=None):
    """Best wall time of ``repeat`` runs; ``setup`` (untimed) runs before each."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        os.sync()  # start each run with no dirty pages left over from the last one
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=int, default=400, help="total megabytes of float32 data (4 arrays)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--dir", default=None, help="where to write (default: a temp dir)")
    p.add_argument("--no-tf", action="store_true", help="skip TensorFlow")
    args = p.parse_args(argv)

    n = args.mb * 1_000_000 // 4 // 4
    rng = np.random.default_rng(0)
    arrays = {f"layer_{i}/kernel": rng.standard_normal(n, dtype=np.float32) for i in range(4)}
    total_mb = sum(a.nbytes for a in arrays.values()) / 1e6
    root = tempfile.mkdtemp(dir=args.dir)
    results = {}

    def clear(*stems):
        def run():
            for name in os.listdir(root):
                if name.startswith(stems):
                    os.remove(os.path.join(root, name))
        return run

    def ref_save(fsync):
        def run():
            with BundleWriter(os.path.join(root, "ref"), fsync=fsync) as w:
                for k, v in arrays.items():
                    w.add(k, v)
        return run

    def ref_restore():
        with BundleReader(os.path.join(root, "ref")) as r:
            out = [r.lookup(k) for k in arrays]
        assert all(np.array_equal(a, b) for a, b in zip(out, arrays.values()))

    def np_save(fsync):
        def run():
            for i, v in enumerate(arrays.values()):
                with open(os.path.join(root, f"np{i}.npy"), "wb") as f:
                    np.save(f, v)
                    if fsync:
                        f.flush()
                        os.fsync(f.fileno())
        return run

    def np_restore():
        out = [np.load(os.path.join(root, f"np{i}.npy")) for i in range(len(arrays))]
        assert all(np.array_equal(a, b) for a, b in zip(out, arrays.values()))

    # Interleaved, so that both see the same state of the machine.
    for fsync in (False, True):
        tag = "+fsync" if fsync else ""
        results[f"ref save{tag}"] = _best(ref_save(fsync), args.repeat, clear("ref"))
        results[f"numpy save{tag}"] = _best(np_save(fsync), args.repeat, clear("np"))
    results["ref restore"] = _best(ref_restore, args.repeat)
    results["numpy restore"] = _best(np_restore, args.repeat)

    if not args.no_tf:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf
        names = list(arrays)
        tensors = [tf.constant(v) for v in arrays.values()]  # conversion outside the timing
        prefix = os.path.join(root, "tf")

        def tf_save():
            tf.raw_ops.SaveV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                              tensors=tensors)

        def tf_restore():
            out = tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names),
                                       dtypes=[tf.float32] * len(names))
            out = [t.numpy() for t in out]
            assert all(np.array_equal(a, b) for a, b in zip(out, arrays.values()))

        results["tf save"] = _best(tf_save, args.repeat, clear("tf"))
        results["tf restore"] = _best(tf_restore, args.repeat)

    shutil.rmtree(root, ignore_errors=True)
    print(f"checkpoint bench: {len(arrays)} float32 arrays, {total_mb:.0f} MB total, best of {args.repeat}")
    for k, t in results.items():
        print(f"  {k:18s} {t * 1000:8.1f} ms  {total_mb / t:8.0f} MB/s")
    ratios = [("ref save / numpy save", "ref save", "numpy save"),
              ("ref save+fsync / numpy save+fsync", "ref save+fsync", "numpy save+fsync"),
              ("ref restore / numpy restore", "ref restore", "numpy restore"),
              ("ref save / tf save", "ref save", "tf save"),
              ("ref restore / tf restore", "ref restore", "tf restore"),
              ("fsync cost: ref save+fsync / ref save", "ref save+fsync", "ref save")]
    for label, a, b in ratios:
        if a in results and b in results:
            print(f"  {label:40s} {results[a] / results[b]:6.2f}x")


if __name__ == "__main__":
    main()
