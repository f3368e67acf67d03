"""RunOptions tracing (ref/session/tracing.py), the Chrome-trace Timeline
(ref/session/timeline.py) and ProfilerHook, against TensorFlow's Timeline on the
same StepStats and TensorFlow's ProfilerHook on the same program."""
import json
import os

import numpy as np
import pytest

import ref
from ref.protos import step_stats_pb2
from ref.session.timeline import Timeline

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _traced_run(level, **kw):
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float32, [2, 3], name="x")
        w = ref.Variable(np.ones((3, 1), np.float32), name="w")
        y = ref.reduce_sum(ref.nn.relu(ref.matmul(x, w)), name="y")
        with ref.Session() as s:
            s.run(w.initializer)
            md = ref.RunMetadata()
            value = s.run(y, {x: np.full((2, 3), 2, np.float32)}, options=ref.RunOptions(trace_level=level, **kw),
                          run_metadata=md)
    return value, md


def test_full_trace_records_each_op_with_label_times_and_outputs():
    value, md = _traced_run(ref.RunOptions.FULL_TRACE)
    assert value == 12.0
    (dev,) = md.step_stats.dev_stats
    assert dev.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    # TF lists the Const (reduce_sum's axes) too, though its value is the plan's own
    assert [(n.node_name, n.timeline_label) for n in dev.node_stats] == [
        ("Const", "Const = Const()"), ("MatMul", "MatMul = MatMul(x, w/read)"), ("Relu", "Relu = Relu(MatMul)"),
        ("y", "y = Sum(Relu, Const)")]
    starts = [n.all_start_micros for n in dev.node_stats]
    assert starts == sorted(starts) and all(n.all_end_rel_micros >= 0 for n in dev.node_stats)
    assert all(n.all_end_rel_nanos == n.op_end_rel_nanos >= 1000 * n.all_end_rel_micros for n in dev.node_stats)
    out = dev.node_stats[1].output[0].tensor_description
    assert [d.size for d in out.shape.dim] == [2, 1] and out.allocation_description.requested_bytes == 8
    assert out.dtype == ref.float32.as_datatype_enum


@pytest.mark.parametrize("level, outputs", [("SOFTWARE_TRACE", False), ("HARDWARE_TRACE", False)])
def test_lighter_traces_have_times_without_outputs(level, outputs):
    _, md = _traced_run(getattr(ref.RunOptions, level))
    nodes = md.step_stats.dev_stats[0].node_stats
    assert len(nodes) == 4 and all(bool(n.output) == outputs for n in nodes)


def test_no_trace_records_nothing_and_partition_graphs_on_request():
    _, md = _traced_run(ref.RunOptions.NO_TRACE)
    assert not md.step_stats.dev_stats and not md.partition_graphs
    _, md = _traced_run(ref.RunOptions.NO_TRACE, output_partition_graphs=True)
    assert {n.name for n in md.partition_graphs[0].node} >= {"x", "w", "MatMul", "y"}


def test_make_callable_takes_options_when_asked():
    with ref.Graph().as_default():
        x = ref.placeholder(ref.float32, [], name="x")
        y = ref.square(x)
        with ref.Session() as s:
            f = s.make_callable(y, [x], accept_options=True)
            md = ref.RunMetadata()
            assert f(np.float32(3), options=ref.RunOptions(trace_level=3), run_metadata=md) == 9
            assert [n.node_name for n in md.step_stats.dev_stats[0].node_stats] == ["Square"]
            with pytest.raises(TypeError, match="accept_options"):
                s.make_callable(y, [x])(np.float32(3), options=ref.RunOptions())


# -- Timeline -------------------------------------------------------------------------

def _node(dev, name, label, start, dur, outputs=()):
    n = dev.node_stats.add(node_name=name, all_start_micros=start, all_end_rel_micros=dur, op_end_rel_micros=dur,
                           timeline_label=label)
    for i, nbytes in enumerate(outputs):
        o = n.output.add(slot=i)
        o.tensor_description.dtype = 1
        o.tensor_description.shape.dim.add().size = nbytes // 4
        o.tensor_description.allocation_description.requested_bytes = nbytes
        o.tensor_description.allocation_description.allocator_name = "cpu"


def _overlapping():
    """Two devices, ops overlapping in time (several lanes), a multi-output op."""
    stats = step_stats_pb2.StepStats()
    cpu = stats.dev_stats.add(device="/job:localhost/replica:0/task:0/device:CPU:0")
    _node(cpu, "a", "a = Const()", 100, 10, [16])
    _node(cpu, "b", "b = Split(a)", 105, 20, [8, 8])
    _node(cpu, "c", "c = Add(b, b:1)", 110, 5, [8])
    _node(cpu, "d", "d = Mul(c, a)", 130, 4, [8])
    other = stats.dev_stats.add(device="/job:localhost/replica:0/task:0/device:CPU:1")
    _node(other, "e", "e = Neg(d/_3)", 140, 6, [8])
    _node(other, "f", "f = NoOp()", 141, 1)
    return stats


def _tf_timeline(stats, show_dataflow, show_memory):
    pytest.importorskip("tensorflow")
    from tensorflow.core.framework import step_stats_pb2 as tf_step_stats
    from tensorflow.python.client import timeline

    tf_stats = tf_step_stats.StepStats.FromString(stats.SerializeToString())
    return timeline.Timeline(tf_stats).generate_chrome_trace_format(show_dataflow=show_dataflow,
                                                                    show_memory=show_memory)


@pytest.mark.parametrize("show_dataflow, show_memory", [(True, False), (False, False), (True, True), (False, True)])
@pytest.mark.parametrize("source", ["overlapping", "run"])
def test_timeline_matches_tensorflows(source, show_dataflow, show_memory):
    stats = _overlapping() if source == "overlapping" else _traced_run(ref.RunOptions.FULL_TRACE)[1].step_stats
    ours = Timeline(stats).generate_chrome_trace_format(show_dataflow=show_dataflow, show_memory=show_memory)
    assert ours == _tf_timeline(stats, show_dataflow, show_memory)


def test_timeline_lanes_flows_and_args():
    trace = json.loads(Timeline(_overlapping()).generate_chrome_trace_format())["traceEvents"]
    ops = {e["args"]["name"]: e for e in trace if e["ph"] == "X"}
    assert [ops[n]["tid"] for n in "abcdef"] == [0, 1, 2, 0, 0, 1]  # a free lane for each overlap
    assert ops["c"]["args"] == {"name": "c", "op": "Add", "input0": "b", "input1": "b:1"}
    assert ops["c"]["ts"] == 110 and ops["c"]["dur"] == 5
    flows = [(e["ph"], e["name"]) for e in trace if e.get("cat") == "DataFlow"]
    assert ("s", "d") in flows and ("t", "d") in flows  # d/_3 (a Recv) is traced back to d
    names = [e["args"]["name"] for e in trace if e["ph"] == "M"]
    assert names[0] == "Allocators" and names[1].endswith("CPU:0 Compute") and names[2].endswith("CPU:0 Tensors")


# -- ProfilerHook ---------------------------------------------------------------------

def _profile(tf, logdir, steps=6, save_steps=2):
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        w = tf.Variable(1.0, name="w")
        train = tf.group(tf.assign_add(w, 1.0), tf.assign_add(step, 1))
        hook = tf.train.ProfilerHook(save_steps=save_steps, output_dir=logdir)
        with tf.train.MonitoredSession(hooks=[hook]) as s:
            for _ in range(steps):
                s.run(train)
    return sorted(f for f in os.listdir(logdir) if f.startswith("timeline-"))


def test_profiler_hook_writes_timelines_at_tensorflows_steps(tmp_path):
    tf = pytest.importorskip("tensorflow")
    expected = _profile(tf.compat.v1, str(tmp_path / "tf"))  # graph mode inside Graph().as_default()
    got = _profile(ref, str(tmp_path / "ref"))
    assert got == expected and got
    trace = json.loads((tmp_path / "ref" / got[0]).read_text())["traceEvents"]
    assert {"AssignAdd"} <= {e["name"] for e in trace if e["ph"] == "X"}
    ref.train.SummaryWriterCache.get(str(tmp_path / "ref")).flush()
    events = list(ref.train.summary_iterator(str(next((tmp_path / "ref").glob("events.out.tfevents.*")))))
    tags = [e.tagged_run_metadata.tag for e in events if e.HasField("tagged_run_metadata")]
    assert tags == [f"step_{n[len('timeline-'):-len('.json')]}" for n in got]
