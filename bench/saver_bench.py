"""Saver.save / Saver.restore of 400 MB of float32 variables (4 x 25M) through
a Session: ref's Saver (with and without fsync) against TensorFlow's
tf.compat.v1.train.Saver and numpy.save/np.load of the same bytes (the disk
floor), in the same run.

    python bench/saver_bench.py [--mb 400] [--repeat 3] [--dir /tmp] [--no-tf]

Best of ``--repeat``; each save starts from a deleted output and ``os.sync()``
(untimed, bench/checkpoint_bench.py's ``_best``). Meta graphs are not written
(``write_meta_graph=False``) so only the checkpoint is timed. Restores read
from the page cache. TF has no fsync option: its rows are no-fsync only.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)

from checkpoint_bench import _best  # noqa: E402


def _clear(root, stem):
    def run():
        for name in os.listdir(root):
            if name.startswith(stem):
                path = os.path.join(root, name)
                if os.path.isdir(path):
                    shutil.rmtree(path)
                else:
                    os.remove(path)
    return run


def _ref_case(arrays, root, repeat, results):
    import ref
    from ref.checkpoint.saver import Saver

    g = ref.Graph()
    with g.as_default():
        variables = [ref.Variable(ref.zeros([a.size]), name=name) for name, a in arrays.items()]
        savers = {False: Saver(variables), True: Saver(variables, fsync=True)}
        sess = ref.Session()
        for v, a in zip(variables, arrays.values()):
            v.load(a, sess)
        prefix = os.path.join(root, "ref")
        for fsync in (False, True):
            tag = "+fsync" if fsync else ""

            def save(s=savers[fsync]):
                s.save(sess, prefix, write_meta_graph=False)
            results[f"ref Saver.save{tag}"] = _best(save, repeat, _clear(root, "ref"))

        def restore():
            savers[False].restore(sess, prefix)
        results["ref Saver.restore"] = _best(restore, repeat)
        got = sess.run(variables)
        assert all(np.array_equal(x, y) for x, y in zip(got, arrays.values()))
        sess.close()


def _tf_case(arrays, root, repeat, results):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        variables = [v1.Variable(v1.zeros([a.size]), name=name, use_resource=False) for name, a in arrays.items()]
        saver = v1.train.Saver(variables)
        with v1.Session() as sess:
            for v, a in zip(variables, arrays.values()):
                v.load(a, sess)
            prefix = os.path.join(root, "tf")

            def save():
                saver.save(sess, prefix, write_meta_graph=False)
            results["tf Saver.save"] = _best(save, repeat, _clear(root, "tf"))

            def restore():
                saver.restore(sess, prefix)
            results["tf Saver.restore"] = _best(restore, repeat)
            got = sess.run(variables)
            assert all(np.array_equal(x, y) for x, y in zip(got, arrays.values()))


def _numpy_case(arrays, root, repeat, results):
    def save(fsync):
        def run():
            for i, v in enumerate(arrays.values()):
                with open(os.path.join(root, f"np{i}.npy"), "wb") as f:
                    np.save(f, v)
                    if fsync:
                        f.flush()
                        os.fsync(f.fileno())
        return run

    for fsync in (False, True):
        results["numpy save" + ("+fsync" if fsync else "")] = _best(save(fsync), repeat, _clear(root, "np"))

    def restore():
        out = [np.load(os.path.join(root, f"np{i}.npy")) for i in range(len(arrays))]
        assert all(np.array_equal(a, b) for a, b in zip(out, arrays.values()))
    results["numpy load"] = _best(restore, repeat)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=int, default=400, help="total megabytes of float32 variables (4 of them)")
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
    try:
        _ref_case(arrays, root, args.repeat, results)
        _numpy_case(arrays, root, args.repeat, results)
        if not args.no_tf:
            _tf_case(arrays, root, args.repeat, results)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    print(f"saver bench: {len(arrays)} float32 variables, {total_mb:.0f} MB total, best of {args.repeat}")
    for k, t in results.items():
        print(f"  {k:24s} {t * 1000:8.1f} ms  {total_mb / t:8.0f} MB/s")
    ratios = [("ref save / tf save", "ref Saver.save", "tf Saver.save"),
              ("ref restore / tf restore", "ref Saver.restore", "tf Saver.restore"),
              ("ref save / numpy save", "ref Saver.save", "numpy save"),
              ("ref save+fsync / numpy save+fsync", "ref Saver.save+fsync", "numpy save+fsync"),
              ("ref restore / numpy load", "ref Saver.restore", "numpy load"),
              ("fsync cost: ref save+fsync / ref save", "ref Saver.save+fsync", "ref Saver.save")]
    for label, a, b in ratios:
        if a in results and b in results:
            print(f"  {label:40s} {results[a] / results[b]:6.2f}x")


if __name__ == "__main__":
    main()
