"""Event-file benchmark: write N scalar summaries, read them back.

    python bench/events_bench.py [N]        (default N = 100000)

Writers, each building one Summary proto per step in its own proto classes and
adding it with a step (the training-loop pattern), then closing:
ref's ``FileWriter``, TensorFlow's ``tf.compat.v1.summary.FileWriter`` and
tensorboardX's ``SummaryWriter.add_scalar``. Readers: ref's
``summary_iterator`` and TF's ``tf.compat.v1.train.summary_iterator`` over the
same file. Prints seconds and ratios (ref's target: <= 1.5 s to write 100,000;
reading at least as fast as TF; reads are best of three).
"""
from __future__ import annotations

import glob
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _event_file(logdir):
    return glob.glob(os.path.join(logdir, "events.out.tfevents.*"))[0]


def write_ref(logdir, n):
    from ref.events import FileWriter
    from ref.protos import summary_pb2

    Summary, Value = summary_pb2.Summary, summary_pb2.Summary.Value
    t = time.perf_counter()
    w = FileWriter(logdir)
    for step in range(n):
        w.add_summary(Summary(value=[Value(tag="loss", simple_value=1.0 / (step + 1))]), step)
    w.close()
    return time.perf_counter() - t


def write_tf(tf, logdir, n):
    Summary, Value = tf.compat.v1.Summary, tf.compat.v1.Summary.Value
    with tf.Graph().as_default():
        t = time.perf_counter()
        w = tf.compat.v1.summary.FileWriter(logdir)
        for step in range(n):
            w.add_summary(Summary(value=[Value(tag="loss", simple_value=1.0 / (step + 1))]), step)
        w.close()
        return time.perf_counter() - t


def write_tensorboardx(logdir, n):
    from tensorboardX import SummaryWriter

    t = time.perf_counter()
    w = SummaryWriter(logdir)
    for step in range(n):
        w.add_scalar("loss", 1.0 / (step + 1), step)
    w.close()
    return time.perf_counter() - t


def read_ref(path):
    from ref.events import summary_iterator

    t = time.perf_counter()
    total = sum(v.simple_value for e in summary_iterator(path) for v in e.summary.value)
    return time.perf_counter() - t, total


def read_tf(tf, path):
    t = time.perf_counter()
    total = sum(v.simple_value for e in tf.compat.v1.train.summary_iterator(path) for v in e.summary.value)
    return time.perf_counter() - t, total


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 100_000
    try:
        import tensorflow as tf
    except ImportError:
        tf = None
    try:
        import tensorboardX  # noqa: F401
    except ImportError:
        tensorboardX = None
    root = tempfile.mkdtemp(prefix="events_bench_")
    print(f"{n} scalar summaries; files under {root}")
    times = {"ref": write_ref(os.path.join(root, "ref"), n)}
    if tf is not None:
        times["tensorflow"] = write_tf(tf, os.path.join(root, "tf"), n)
    if tensorboardX is not None:
        times["tensorboardX"] = write_tensorboardx(os.path.join(root, "tbx"), n)
    print("write:")
    for name, secs in times.items():
        print(f"  {name:13s} {secs:7.3f} s  ({secs / n * 1e6:6.2f} us/event)  ref is "
              f"{secs / times['ref']:5.2f}x faster" if name != "ref" else
              f"  {name:13s} {secs:7.3f} s  ({secs / n * 1e6:6.2f} us/event)  target <= 1.5 s per 100k")
    print("read (summary_iterator):")
    for source in ("ref", "tf"):
        logdir = os.path.join(root, source)
        if not os.path.isdir(logdir):
            continue
        path = _event_file(logdir)
        ours = theirs = float("inf")
        for _ in range(3):   # best of three, alternating
            secs, total_ours = read_ref(path)
            ours = min(ours, secs)
            if tf is not None:
                secs, total_theirs = read_tf(tf, path)
                theirs = min(theirs, secs)
                assert total_ours == total_theirs, (total_ours, total_theirs)
        line = f"  file by {source:4s}: ref {ours:7.3f} s"
        if tf is not None:
            line += f"   tensorflow {theirs:7.3f} s   ref/tf time ratio {ours / theirs:5.2f}"
        print(line)


if __name__ == "__main__":
    main(sys.argv)
