"""Placement on a machine without a GPU (ref/session/devices.py) against TensorFlow
on a CPU-only build: explicit ``/gpu:0`` fails with TF's message unless soft
placement is on, then the ops run on the CPU and log TF's lines; the devices,
``tf.test.is_gpu_available`` and ``gpu_device_name`` are TF's."""
from __future__ import annotations

import os

import numpy as np
import pytest

import ref
from ref.session.devices import CPU0, local_devices, place

pytestmark = pytest.mark.skipif(os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", reason="needs no GPU (simulated)")


def _graph(lib, device):
    g = lib.Graph()
    with g.as_default():
        with lib.device(device):
            a = lib.constant([1.0, 2.0], name="a")
            b = lib.add(a, a, name="b")
    return g, b


def _run(lib, device, config, capfd):
    g, b = _graph(lib, device)
    capfd.readouterr()
    try:
        with lib.Session(graph=g, config=config) as s:
            out = ("ok", s.run(b).tolist(), [(d.name, d.device_type) for d in s.list_devices()])
    except Exception as e:  # noqa: BLE001 -- the kind and message are compared
        out = (type(e).__name__, str(e).split("\n")[-2 if "Graph execution" in str(e) else 0])
    return out, capfd.readouterr().out


CASES = [  # (device, ConfigProto kwargs)
    ("/gpu:0", {}),
    ("/device:GPU:0", {}),
    ("/gpu:0", dict(allow_soft_placement=True)),
    ("/gpu:0", dict(allow_soft_placement=True, log_device_placement=True)),
    ("/cpu:0", dict(log_device_placement=True)),
    ("/gpu:0", dict(device_count={"GPU": 0})),
]


@pytest.mark.parametrize("device,cfg", CASES)
def test_placement_without_gpu_as_tf(device, cfg, capfd):
    tf = pytest.importorskip("tensorflow").compat.v1
    want, want_log = _run(tf, device, tf.ConfigProto(**cfg), capfd)
    got, got_log = _run(ref, device, ref.ConfigProto(**cfg), capfd)
    assert got[0] == want[0]
    if want[0] == "ok":
        assert got[1:] == want[1:]
    else:
        assert got[1].strip() == want[1].strip()
    tf_lines = {ln for ln in want_log.splitlines() if ": (" in ln and "/device:" in ln}
    ref_lines = {ln for ln in got_log.splitlines() if ": (" in ln}
    assert tf_lines <= ref_lines and bool(tf_lines) == bool(ref_lines)


def test_gpu_queries_as_tf():
    tf = pytest.importorskip("tensorflow")
    assert ref.test.is_gpu_available() == tf.test.is_gpu_available()
    assert ref.test.gpu_device_name() == tf.test.gpu_device_name()
    assert [d[0] for d in local_devices()] == [CPU0]


def test_reference_edges_group_with_their_variable():
    # the variable's device wins for the ops that take it by reference; the rest stays put
    g = ref.Graph()
    with g.as_default():
        with ref.device("/cpu:0"):
            v = ref.Variable(np.zeros(3, np.float32), name="v")
        with ref.device("/gpu:0"):
            up = ref.assign_add(v, [1.0, 2.0, 3.0], name="up")
    placed = place(g.get_operations(), ref.ConfigProto(allow_soft_placement=True))
    assert placed["up"] == placed["v"] == CPU0


def _pruned_run(lib, interactive, cfg):
    """A run that does not need the op pinned to a GPU: TF places the whole graph first (so it fails)
    unless the session places the pruned graph (InteractiveSession, GraphOptions.place_pruned_graph)."""
    g = lib.Graph()
    with g.as_default():
        with lib.device("/device:GPU:0"):
            lib.constant(1.0, shape=[1, 2], name="on_gpu")
        b = lib.constant(2.0, shape=[1, 2], name="b")
    config = lib.ConfigProto(**cfg)
    sess = (lib.InteractiveSession if interactive else lib.Session)(graph=g, config=config)
    try:
        return "ok", sess.run(b).tolist()
    except Exception as e:  # noqa: BLE001 -- the kind is compared
        return type(e).__name__
    finally:
        sess.close()


PRUNED_CASES = [  # (InteractiveSession?, ConfigProto kwargs)
    (False, {}),
    (True, {}),
    (False, {"graph_options": {"place_pruned_graph": True}}),
    (False, {"allow_soft_placement": True}),
]


@pytest.mark.parametrize("interactive, cfg", PRUNED_CASES)
def test_whole_graph_placed_before_a_run_as_tf(interactive, cfg):
    tf = pytest.importorskip("tensorflow").compat.v1
    tf_cfg = dict(cfg)
    ref_cfg = dict(cfg)
    if "graph_options" in cfg:
        tf_cfg["graph_options"] = tf.GraphOptions(**cfg["graph_options"])
        ref_cfg["graph_options"] = ref.GraphOptions(**cfg["graph_options"])
    assert _pruned_run(ref, interactive, ref_cfg) == _pruned_run(tf, interactive, tf_cfg)
