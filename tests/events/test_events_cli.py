"""``python -m ref events``: printing event files, reporting corruption."""
import glob
import os

import numpy as np
import pytest

import ref.ops.summary  # noqa: F401  (registers the summary ops)
from ref.events import FileWriter
from ref.events.cli import main
from ref.ops.registry import call

summary_pb2 = pytest.importorskip("ref.protos.summary_pb2")
event_pb2 = pytest.importorskip("ref.protos.event_pb2")


def _write(logdir):
    with FileWriter(logdir) as w:
        w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="loss", simple_value=0.5)]), 3)
        w.add_summary(call("HistogramSummary", tag="w", values=np.array([1.0, 2.0, 2.0])), 4)
        w.add_summary(call("ImageSummary", tag="im", tensor=np.zeros((1, 2, 3, 3), np.uint8), max_images=1), 5)
        w.add_summary(call("AudioSummaryV2", tag="snd", tensor=np.zeros((1, 40), np.float32),
                           sample_rate=np.float32(8000), max_outputs=1), 6)
        w.add_session_log(event_pb2.SessionLog(status=event_pb2.SessionLog.START), 7)
    return glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))[0]


@pytest.mark.parametrize("expected", [
    "file_version=brain.Event:2",
    "step=3 wall_time=",
    "  loss: simple_value=0.5",
    "  w: histo num=3 min=1.0 max=2.0 sum=5.0 sum_squares=9.0",
    "  im/image: image 2x3x3",
    "  snd/audio: audio 40 frames x 1 channels at 8000 Hz (audio/wav",
    "step=7 wall_time=",
    "session_log status=START",
    "(6 events)",
])
def test_prints_every_event(tmp_path, capsys, expected):
    path = _write(tmp_path)
    assert main([path]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"== {path}\n")
    assert expected in out


def test_directory_means_its_event_files(tmp_path, capsys):
    path = _write(tmp_path)
    assert main([str(tmp_path)]) == 0
    assert f"== {path}" in capsys.readouterr().out


@pytest.mark.parametrize("mutate,fragment", [
    (lambda d: d[:-3], "truncated record at"),
    (lambda d: d[:60] + bytes([d[60] ^ 1]) + d[61:], "corrupted record at"),
])
def test_corruption_is_reported_with_file_and_offset(tmp_path, capsys, mutate, fragment):
    path = _write(tmp_path)
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(mutate(data))
    assert main([path]) == 1
    captured = capsys.readouterr()
    assert fragment in captured.err and path in captured.err and "(after " in captured.err
    assert captured.err.count("\n") == 1 and "DataLoss" not in captured.out  # reported once


def test_missing_path(tmp_path, capsys):
    assert main([str(tmp_path / "nothing")]) == 2
    assert "no such file" in capsys.readouterr().err
